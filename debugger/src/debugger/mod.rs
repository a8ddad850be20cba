//! [`Debugger`]: the one owner of Breakroom's state, with a small API. State sits behind one
//! mutex that is never held across an await; the only waits are for the paused program (an
//! eval's answer) and for a resume (the client's long-poll).

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::broadcast;

use crate::breakpoints::state::BreakpointsState;
use crate::calls::Action;
use crate::error::Result;
use crate::ids;
use crate::model::{LiveEvent, RecordedEvent};
use crate::pauses::Pause;
use crate::sessions::state::SessionState;
use crate::store::{EventSelection, Store};

mod cluster;
#[doc(hidden)]
pub mod for_tests;
mod hosts;
mod shutdown;
mod state;

pub(crate) use state::State;

pub use crate::breakpoints::BreakpointSnapshot;
use crate::pauses::methods::close_pause;
pub use crate::pauses::methods::{Continued, PollReply};
use crate::sessions::methods::close_one_session;

#[derive(Clone, Debug)]
pub struct Config {
    /// How long a browser's eval waits for the paused program.
    pub eval_timeout: Duration,
    /// How long a client's poll is held when nothing happens: 5 s, below the 6 s of silence after
    /// which a client given several addresses takes its server for hung and moves on.
    pub poll_hold: Duration,
    /// How many completed calls each breakpoint's history keeps, newest first; older ones are
    /// deleted from memory and from the data directory.
    pub history_per_breakpoint: usize,
    /// Launched and connected processes: output limit, retention, history size.
    pub processes: crate::processes::ProcessConfig,
    /// Bash and Python runtimes per workspace.
    pub runtimes: crate::runtimes::RuntimeConfig,
    /// Snapshots kept on disk, the newest (issue 34).
    pub snapshots_kept: usize,
    /// How long audit records are kept (`--audit-days`, issue 48).
    pub audit_keep: Duration,
    /// A file the audit trail is also appended to, as JSON lines (`--audit-log`).
    pub audit_log: Option<std::path::PathBuf>,
    /// Redaction rules and places not debugged (issue 50), sent to programs on their channel.
    pub policy: crate::policy::Policy,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            eval_timeout: Duration::from_secs(30),
            poll_hold: Duration::from_secs(5),
            history_per_breakpoint: 1_000,
            processes: crate::processes::ProcessConfig::default(),
            runtimes: crate::runtimes::RuntimeConfig::default(),
            snapshots_kept: 10_000,
            audit_keep: Duration::from_secs(90 * 86_400),
            audit_log: None,
            policy: crate::policy::Policy::default(),
        }
    }
}

pub(crate) struct Inner {
    state: Mutex<State>,
    pub(crate) config: Config,
    pub(crate) live: broadcast::Sender<LiveEvent>,
    /// What happened here, for the other servers on the same database (issue 35).
    pub(crate) to_peers: broadcast::Sender<LiveEvent>,
    /// The other servers on the same database, once joined.
    pub(crate) cluster: std::sync::OnceLock<Arc<crate::cluster::Cluster>>,
    pub(crate) processes: crate::processes::ProcessRegistry,
    /// Bumped on every change of a breakpoint's spec: running programs' watchers wait on it.
    pub(crate) breakpoint_version: tokio::sync::watch::Sender<u64>,
    runtimes: crate::runtimes::RuntimeRegistry,
    /// True once the server is shutting down: held polls answer `stopping` (issue 32).
    pub(crate) stopping: tokio::sync::watch::Sender<bool>,
    /// Attaches in flight (issue 33).
    pub(crate) attaching: crate::attach::Attaching,
    pub(crate) access: Access,
}

/// Users, program credentials and the audit trail (issue 48): connections of their own.
pub(crate) struct Access {
    users: crate::users::Users,
    audit: crate::audit::AuditTrail,
}

/// Cheap to clone: every clone is the same debugger.
#[derive(Clone)]
pub struct Debugger {
    pub(crate) inner: Arc<Inner>,
}

impl Default for Debugger {
    fn default() -> Self {
        Self::new(Config::default())
    }
}

impl Debugger {
    /// A debugger that keeps nothing after it is dropped.
    pub fn new(config: Config) -> Self {
        // An in-memory SQLite database needs no file system; failing to open one is a broken build.
        let store = Store::in_memory().expect("an in-memory SQLite database opens");
        let client_dir = crate::processes::client_bundle::private_temp_dir();
        let process_store = Store::in_memory().expect("an in-memory SQLite database opens");
        let processes = crate::processes::ProcessRegistry::open(
            config.processes.clone(),
            process_store,
            Some(client_dir),
            ids::now(),
        )
        .expect("an empty process registry opens");
        let (live, to_peers) = (broadcast::channel(1024).0, broadcast::channel(1024).0);
        let runtimes = crate::runtimes::RuntimeRegistry::new(
            config.runtimes.clone(),
            Store::in_memory().expect("an in-memory SQLite database opens"),
            live.clone(),
        );
        let access = Access {
            users: crate::users::Users::on(Store::in_memory().expect("an in-memory SQLite database opens"))
                .expect("an empty user table reads"),
            audit: crate::audit::AuditTrail::in_memory(config.audit_keep).expect("an in-memory audit trail opens"),
        };
        Self::with_state(
            config,
            State::new(store, live.clone(), to_peers.clone()),
            live,
            to_peers,
            processes,
            runtimes,
            access,
        )
    }

    /// A debugger whose history lives in `data_dir` (created if needed). What was there is read
    /// back; pauses and sessions that were open when the last server stopped come back closed.
    pub fn open(config: Config, data_dir: &Path) -> Result<Self> {
        let location = crate::store::Location::Directory(data_dir.to_path_buf());
        Self::open_at(config, &location, data_dir.join("client"), &HashSet::new())
    }

    /// A debugger whose history lives in a PostgreSQL database (`--database-url`, issue 35),
    /// which other servers may share.
    pub fn connect(config: Config, database_url: &str) -> Result<Self> {
        let location = crate::store::Location::Postgres(database_url.to_string());
        // What other servers hold stays open: only what gone servers left is closed.
        let held_elsewhere = crate::cluster::pauses_of_live_servers(database_url)?;
        Self::open_at(config, &location, crate::processes::client_bundle::private_temp_dir(), &held_elsewhere)
    }

    fn open_at(
        config: Config,
        location: &crate::store::Location,
        client_dir: std::path::PathBuf,
        held_elsewhere: &HashSet<String>,
    ) -> Result<Self> {
        let store = Store::at(location)?;
        let (live, to_peers) = (broadcast::channel(1024).0, broadcast::channel(1024).0);
        let mut st = State::new(store, live.clone(), to_peers.clone());
        if let crate::store::Location::Directory(data_dir) = location {
            st.lock = Some(st.store.lock_exclusively(data_dir)?);
        }
        // The closing of what was left open is written in one transaction.
        st.store.begin()?;
        match restore(&mut st, ids::now(), held_elsewhere) {
            Ok(()) => st.store.commit()?,
            Err(e) => {
                st.store.rollback();
                return Err(e);
            }
        }
        // Its own connection to the same database: output batches do not wait for the debugger.
        let processes = crate::processes::ProcessRegistry::open(
            config.processes.clone(),
            Store::at(location)?,
            Some(client_dir),
            ids::now(),
        )?;
        let runtimes =
            crate::runtimes::RuntimeRegistry::new(config.runtimes.clone(), Store::at(location)?, live.clone());
        let access = Access {
            users: crate::users::Users::open(location)?,
            audit: crate::audit::AuditTrail::open(location, config.audit_keep, config.audit_log.clone())?,
        };
        Ok(Self::with_state(config, st, live, to_peers, processes, runtimes, access))
    }

    fn with_state(
        config: Config,
        state: State,
        live: broadcast::Sender<LiveEvent>,
        to_peers: broadcast::Sender<LiveEvent>,
        processes: crate::processes::ProcessRegistry,
        runtimes: crate::runtimes::RuntimeRegistry,
        access: Access,
    ) -> Self {
        let breakpoint_version = tokio::sync::watch::Sender::new(1);
        Debugger {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                config,
                live,
                to_peers,
                cluster: Default::default(),
                processes,
                runtimes,
                breakpoint_version,
                stopping: tokio::sync::watch::Sender::new(false),
                attaching: Default::default(),
                access,
            }),
        }
    }

    /// People and program credentials, and the tokens requests carry.
    pub fn users(&self) -> &crate::users::Users {
        &self.inner.access.users
    }

    /// The audit trail: what was done, by whom, through which door.
    pub fn audit(&self) -> &crate::audit::AuditTrail {
        &self.inner.access.audit
    }

    /// cideldill's breakpoints by function name, registered functions and stored values.
    pub fn function_breakpoints(&self) -> crate::breakpoints::by_name::FunctionBreakpointService<'_, Debugger> {
        crate::breakpoints::by_name::FunctionBreakpointService { debugger: self }
    }

    /// Breakpoints by id, of every kind, and the channel programs follow them on.
    pub fn breakpoints(&self) -> crate::breakpoints::BreakpointService<'_, Debugger> {
        crate::breakpoints::BreakpointService { debugger: self }
    }

    /// Calls as clients report them, and their records.
    pub fn calls(&self) -> crate::call_reports::CallService<'_, Debugger> {
        crate::call_reports::CallService { debugger: self }
    }

    /// REPL sessions, their evals and the REPL's helper requests.
    pub fn sessions(&self) -> crate::sessions::SessionService<'_, Debugger> {
        crate::sessions::SessionService { debugger: self }
    }

    /// Paused calls, the client's held poll and resuming.
    pub fn pauses(&self) -> crate::pauses::PauseService<'_, Debugger> {
        crate::pauses::PauseService { debugger: self }
    }

    /// Stepping from a pause to the next line.
    pub fn steps(&self) -> crate::steps::StepService<'_, Debugger> {
        crate::steps::StepService { debugger: self }
    }

    /// Launched and connected processes.
    pub fn processes(&self) -> crate::processes::ProcessService<'_, Debugger> {
        crate::processes::ProcessService { debugger: self }
    }

    /// Time travel: checkpoints, branches and the jumps between them.
    pub fn checkpoints(&self) -> crate::checkpoints::CheckpointService<'_, Debugger> {
        crate::checkpoints::CheckpointService { debugger: self }
    }

    /// Attaching to running Python processes of this machine.
    pub fn attach(&self) -> crate::attach::AttachService<'_, Debugger> {
        crate::attach::AttachService { debugger: self }
    }

    /// Pause orders for running programs.
    pub fn interrupts(&self) -> crate::interrupts::InterruptService<'_, Debugger> {
        crate::interrupts::InterruptService { debugger: self }
    }

    /// Snapshot breakpoints' captures.
    pub fn snapshots(&self) -> crate::snapshots::SnapshotService<'_, Debugger> {
        crate::snapshots::SnapshotService { debugger: self }
    }

    /// The bash and Python runtimes of every workspace.
    pub fn runtimes(&self) -> &crate::runtimes::RuntimeRegistry {
        &self.inner.runtimes
    }

    /// The event log, oldest first.
    pub fn events(&self, selection: &EventSelection) -> Result<Vec<RecordedEvent>> {
        self.state().store.events(selection)
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere must not take the whole debugger down with it.
        self.inner.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn publish(&self, event: LiveEvent) {
        if let Some(cluster) = self.cluster() {
            // Before anyone hears of the pause: another server asked for it must find its holder.
            if let Err(e) = cluster.track(&event) {
                eprintln!("cluster: cannot record {event:?}: {e}");
            }
        }
        let _ = self.inner.to_peers.send(event.clone());
        let _ = self.inner.live.send(event);
    }

    /// The other servers sharing this one's database, when it joined them.
    pub(crate) fn cluster(&self) -> Option<&Arc<crate::cluster::Cluster>> {
        self.inner.cluster.get()
    }

    /// Every change pages care about, as it happens.
    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.inner.live.subscribe()
    }
}

/// Reads back the configuration, and closes what the last server left open (with the restart
/// as reason). History stays in the store.
fn restore(st: &mut State, now: f64, held_elsewhere: &HashSet<String>) -> Result<()> {
    st.breakpoint_parts().load_breakpoint_configuration()?;
    let calls = st.store.call_count()?;
    st.calls.restore_count(calls);
    for session in st.store.open_sessions()? {
        if !held_elsewhere.contains(&session.pause_id) {
            st.sessions.restore(session);
        }
    }
    for record in st.store.open_pauses()? {
        if held_elsewhere.contains(&record.pause_id) {
            continue;
        }
        let pause = Pause::from_record(record);
        let pause_id = pause.record.pause_id.clone();
        st.pauses.add(pause);
        close_pause(st, &pause_id, Action::Continue, now, Some(crate::pauses::RESTART_REASON))?;
    }
    // Sessions whose pause was lost or resumed without closing them.
    for session_id in st.sessions.open_ids() {
        close_one_session(&mut st.session_parts(), &session_id, now, Some(crate::pauses::RESTART_REASON))?;
    }
    Ok(())
}
