//! Tracked processes joined with the debugger: launching and watching a process to its end,
//! its status (`paused` while one of its calls is), its pauses and REPL sessions, and closing
//! those when the process dies (a launched one at its exit, a connected client when its pid
//! is gone).

use std::os::unix::process::ExitStatusExt;

use nix::sys::signal::Signal;

use crate::error::{Error, Result};
use crate::ids;
use crate::model::LiveEvent;
use std::collections::HashSet;
use std::time::Duration;

use crate::host::Stored;
use crate::processes::crash_reason::{signal_name, Ending};
use crate::processes::host::ProcessHost;
use crate::processes::output::capture;
use crate::processes::registry::{blank, ClientSeen};
use crate::processes::{
    launch, liveness, LaunchRequest, OutputPage, OutputStream, ProcessDetail, ProcessOrigin, ProcessPause,
    ProcessRegistry, ProcessSession, ProcessStatus, TrackedProcess,
};

/// How long `stop` waits after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long output is still read after the process exited (children may hold its pipes).
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);
/// Most lines in one `process_output` event. The live stream keeps its last 1,024 events until
/// newer ones replace them: small events keep that bounded after a flood of output.
const LINES_PER_EVENT: usize = 256;
/// How often connected clients on this host are checked for a pid that is gone.
const LIVENESS_INTERVAL: Duration = Duration::from_secs(1);

/// Breakpoint hits and logpoint messages a process's detail shows (the newest).
const BREAKPOINT_EVENTS_SHOWN: usize = 50;

crate::host::service!(
    /// Launched and connected processes: what the doors reach as `debugger.processes()`.
    ProcessService
);

impl<'a, H: ProcessHost> ProcessService<'a, H> {
    pub(crate) fn registry(&self) -> &'a ProcessRegistry {
        self.debugger.process_registry()
    }

    /// The address launched processes call back to (`BREAKROOM_URL`).
    pub fn set_server_url(&self, url: String) {
        self.registry().set_server_url(url);
    }

    /// Starts `req` and watches it to its end. A bad request is refused before anything is
    /// recorded; a program the OS will not start leaves a `crashed` record and is refused too.
    pub fn launch_process(&self, req: LaunchRequest) -> Result<TrackedProcess> {
        launch::check(&req)?;
        let now = ids::now();
        let name = req.name.clone().filter(|n| !n.trim().is_empty()).unwrap_or_else(|| req.command.join(" "));
        let cwd = req.cwd.clone().or_else(|| std::env::current_dir().ok().map(|d| d.display().to_string()));
        let record = TrackedProcess { name, command: req.command.clone(), cwd, ..blank(now) };
        let process = self.registry().create(record)?;
        let id = process.id.clone();
        let mut child = match launch::command(&req, &id, &self.launch_env_for(&launched_credential(&id))).spawn() {
            Ok(child) => child,
            Err(e) => {
                let (code, message) = launch::spawn_error(&req.command[0], &e);
                if let Ok(failed) = self.registry().failed_to_start(&id, &message, ids::now()) {
                    self.debugger.publish(LiveEvent::ProcessExited { process: failed });
                }
                return Err(Error::invalid(code, message));
            }
        };
        let child_pid = child.id();
        self.registry().spawned(&id, child_pid)?;
        let readers: Vec<_> = [
            child.stdout.take().map(|pipe| {
                tokio::spawn(capture(pipe, OutputStream::Stdout, self.output_sink(&id), self.output_backlogged()))
            }),
            child.stderr.take().map(|pipe| {
                tokio::spawn(capture(pipe, OutputStream::Stderr, self.output_sink(&id), self.output_backlogged()))
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        let debugger = self.debugger.clone();
        let watched = id.clone();
        tokio::spawn(async move {
            let status = child.wait().await;
            let drained = futures_join_all(readers);
            let _ = tokio::time::timeout(DRAIN_AFTER_EXIT, drained).await;
            debugger.processes().registry().flush_output().await;
            let ending = match status {
                Ok(status) => match (status.code(), status.signal()) {
                    (Some(code), _) => Ending::Code(code),
                    (None, Some(signal)) => Ending::Signal(signal),
                    (None, None) => Ending::Code(-1),
                },
                Err(e) => {
                    debugger.processes().process_lost(&watched, &format!("cannot wait for the process: {e}"));
                    return;
                }
            };
            // A line woken from a checkpoint took the process over: this one's end is not its end.
            let moved =
                debugger.processes().registry().get(&watched, 0.0).is_ok_and(|p| p.pid != child_pid.map(i64::from));
            if moved {
                debugger.checkpoint_line_ended(&watched, child_pid.map(i64::from));
                return;
            }
            debugger.processes().process_finished(&watched, ending);
        });
        let started = self.registry().get(&id, now)?;
        self.debugger.publish(LiveEvent::ProcessStarted { process: started.clone() });
        Ok(started)
    }

    /// Where a reader hands the lines it read: numbered and queued for storage, then published.
    fn output_sink(&self, id: &str) -> impl Fn(OutputStream, Vec<String>) + Send + 'static {
        let debugger = self.debugger.clone();
        let id = id.to_string();
        move |stream, texts| {
            let lines = debugger.processes().registry().append(&id, stream, texts, ids::now());
            for chunk in lines.chunks(LINES_PER_EVENT) {
                debugger.publish(LiveEvent::ProcessOutput { process_id: id.clone(), lines: chunk.to_vec() });
            }
        }
    }

    fn output_backlogged(&self) -> impl Fn() -> bool + Send + 'static {
        let debugger = self.debugger.clone();
        move || debugger.processes().registry().output_backlogged()
    }

    /// What a launched or attached program is given (`BREAKROOM_URL`, `BREAKROOM_TOKEN`...). Once
    /// users exist, and without an owner's `--token`, it is a program credential minted for it
    /// alone (issue 48), named `credential`, so that it can drive only its own pauses.
    pub fn launch_env_for(&self, credential: &str) -> launch::LaunchEnv {
        let mut env = self.registry().launch_env();
        if env.token.is_none() && self.debugger.users().configured() {
            let users = self.debugger.users();
            // A name used before (an id or a pid seen again) gets a fresh token.
            let token = users.rotate(credential).or_else(|_| users.add(credential, crate::users::Holder::Program));
            match token {
                Ok(token) => env.token = Some(token),
                Err(e) => eprintln!("breakroom: no program credential for {credential}: {e}"),
            }
        }
        env
    }

    fn process_finished(&self, id: &str, ending: Ending) {
        // Its credential ends with it (a checkpoint's line taking over keeps it).
        let _ = self.debugger.users().remove(&launched_credential(id));
        let Ok(process) = self.registry().finished(id, ending, ids::now()) else { return };
        self.debugger.checkpoint_line_ended(id, process.pid);
        let reason = match ending {
            Ending::Code(code) => format!("process exited with code {code}"),
            Ending::Signal(signal) => format!("process killed by {}", signal_name(signal)),
        };
        self.debugger.publish(LiveEvent::ProcessExited { process: self.shown(process) });
        self.close_pauses_of_process(id, &reason);
    }

    fn process_lost(&self, id: &str, reason: &str) {
        let _ = self.debugger.users().remove(&launched_credential(id));
        if let Some(process) = self.registry().lost(id, reason, ids::now()) {
            self.debugger.checkpoint_line_ended(id, process.pid);
            self.debugger.publish(LiveEvent::ProcessExited { process: self.shown(process) });
            self.close_pauses_of_process(id, reason);
        }
    }

    /// A record as lists show it now (uptime, retention countdown, `paused`).
    pub(crate) fn shown(&self, process: TrackedProcess) -> TrackedProcess {
        self.registry()
            .get(&process.id, ids::now())
            .map(|p| self.with_pause_status(p, &self.paused_process_ids()))
            .unwrap_or(process)
    }

    /// Resumes (continue) every open pause of a process and closes its REPL sessions, with `reason`.
    pub fn close_pauses_of_process(&self, id: &str, reason: &str) {
        let keys: HashSet<String> = self.registry().keys_of(id).into_iter().collect();
        self.debugger.close_pauses_of_keys(&keys, reason);
    }

    /// A debug client's call: links it to its process record (made if new).
    pub(crate) fn note_client(&self, mut seen: ClientSeen) {
        seen.attached = seen.host.as_deref() == Some(self.registry().host()) && self.debugger.is_attaching(seen.pid);
        match self.registry().client_seen(seen, ids::now()) {
            Ok(Some(process)) => self.debugger.publish(LiveEvent::ProcessStarted { process: self.shown(process) }),
            Ok(None) => {}
            Err(e) => eprintln!("breakroom: cannot record a client's process: {e}"),
        }
    }

    /// Ids of tracked processes with a call paused right now.
    fn paused_process_ids(&self) -> HashSet<String> {
        let keys = self.debugger.paused_keys();
        keys.iter().filter_map(|key| self.registry().id_for_key(key)).collect()
    }

    fn with_pause_status(&self, mut process: TrackedProcess, paused: &HashSet<String>) -> TrackedProcess {
        if process.status == ProcessStatus::Running && paused.contains(&process.id) {
            process.status = ProcessStatus::Paused;
        }
        process
    }

    /// The active list (`all`: every record in history), oldest first.
    pub fn tracked_processes(&self, all: bool) -> Vec<TrackedProcess> {
        let paused = self.paused_process_ids();
        self.registry().list(all, ids::now()).into_iter().map(|p| self.with_pause_status(p, &paused)).collect()
    }

    /// One process's record alone (its status, its counts of lines), without its pauses and
    /// sessions from the store: what a page that follows the output asks for each time it prints.
    pub fn tracked_record(&self, id: &str) -> Result<TrackedProcess> {
        self.registry().get(id, ids::now())
    }

    /// One process with its pauses and REPL sessions.
    pub fn tracked_process(&self, id: &str) -> Result<ProcessDetail> {
        let process = self.registry().get(id, ids::now())?;
        let process = self.with_pause_status(process, &self.paused_process_ids());
        let keys: HashSet<String> = self.registry().keys_of(id).into_iter().collect();
        let st = self.debugger.state();
        let store = st.store();
        let mut pauses = vec![];
        let mut sessions = vec![];
        let mut breakpoint_events = vec![];
        // From the store: it holds every pause and session, live or finished.
        for key in &keys {
            breakpoint_events.extend(store.breakpoint_events_of_process(key, BREAKPOINT_EVENTS_SHOWN)?);
            for record in store.pauses_of_process(key)? {
                for session in store.session_headers_of_pause(&record.pause_id)? {
                    sessions.push(ProcessSession {
                        session_id: session.session_id.clone(),
                        pause_id: session.pause_id.clone(),
                        function_name: session.function_name.clone(),
                        started_at: session.started_at,
                        closed_at: session.closed_at,
                        closed_reason: session.closed_reason.clone(),
                    });
                }
                pauses.push(ProcessPause {
                    pause_id: record.pause_id,
                    call_id: record.call.call_id,
                    function_name: record.call.method_name,
                    paused_at: record.paused_at,
                    resumed_at: record.resumed_at,
                    resumed_reason: record.resumed_reason,
                });
            }
        }
        pauses.sort_by(|a, b| a.paused_at.total_cmp(&b.paused_at));
        sessions.sort_by(|a, b| a.started_at.total_cmp(&b.started_at));
        breakpoint_events.sort_by_key(|e| e.sequence);
        let extra = breakpoint_events.len().saturating_sub(BREAKPOINT_EVENTS_SHOWN);
        breakpoint_events.drain(..extra);
        Ok(ProcessDetail { process, pauses, sessions, breakpoint_events })
    }

    /// The keys a process's calls carry: one per line of it (a line woken from a checkpoint has
    /// its own).
    pub fn keys_of(&self, id: &str) -> Vec<String> {
        self.registry().keys_of(id)
    }

    /// The tracked process whose calls carry `process_key`, if any (pages link to it).
    pub fn process_id_for_key(&self, process_key: &str) -> Option<String> {
        self.registry().id_for_key(process_key)
    }

    /// A page of a launched process's output (`stream`: one, or both merged in order).
    pub async fn process_output(
        self,
        id: &str,
        stream: Option<OutputStream>,
        from: u64,
        limit: usize,
    ) -> Result<OutputPage> {
        // Lines reach the live stream when they are read and SQLite when the writer's batch
        // commits: wait for that, so a page refetched on a `process_output` event shows the
        // lines it announced (on a busy machine it otherwise showed none, and no event followed).
        self.registry().flush_output().await;
        self.registry().output(id, stream, from, limit)
    }

    /// SIGTERM to the process (a launched one: its whole group), SIGKILL 2 s later if it still
    /// runs. A connected client can be stopped only on this host.
    pub fn stop_process(&self, id: &str) -> Result<TrackedProcess> {
        let process = self.registry().stop_requested(id)?;
        // Its checkpoints end with it; a process that ended but kept checkpoints is stopped by that.
        if self.debugger.end_checkpoints_of(id) > 0 && !process.status.is_alive() {
            return Ok(self.shown(process));
        }
        if !process.status.is_alive() {
            return Err(Error::ProcessEnded(id.to_string()));
        }
        let Some(pid) = process.pid else {
            return Err(Error::invalid("process_not_started", format!("process {id} has no pid yet")));
        };
        let signal: fn(i64, Signal) -> bool = match process.origin {
            ProcessOrigin::Launched => launch::signal_group,
            ProcessOrigin::Connected | ProcessOrigin::Attached if process.host == self.registry().host() => {
                launch::signal_process
            }
            ProcessOrigin::Connected | ProcessOrigin::Attached => {
                return Err(Error::invalid("process_remote", format!("process {id} runs on {}", process.host)))
            }
        };
        signal(pid, Signal::SIGTERM);
        let debugger = self.debugger.clone();
        let id = id.to_string();
        tokio::spawn(async move {
            tokio::time::sleep(STOP_GRACE).await;
            let alive = debugger.processes().registry().get(&id, 0.0).is_ok_and(|p| p.status.is_alive());
            if alive {
                signal(pid, Signal::SIGKILL);
            }
        });
        Ok(self.shown(process))
    }

    /// A child a debugged process started where Breakroom cannot follow it (issue 33): listed
    /// under its parent with the reason. `None` when the parent is not known here.
    pub fn child_not_followed(
        &self,
        parent: (i64, f64),
        pid: i64,
        argv: Vec<String>,
        reason: String,
    ) -> Result<Option<TrackedProcess>> {
        if pid <= 0 || reason.trim().is_empty() {
            return Err(Error::invalid("invalid_child", "pid must be positive and reason non-empty"));
        }
        let key = ids::process_key(parent.0, parent.1);
        let created = self.registry().child_not_followed(&key, pid, argv, reason, ids::now())?;
        if let Some(process) = &created {
            self.debugger.publish(LiveEvent::ProcessStarted { process: self.shown(process.clone()) });
        }
        Ok(created)
    }

    /// Forgets a finished process and its output now.
    pub fn forget_process(&self, id: &str) -> Result<()> {
        self.registry().forget(id)?;
        self.debugger.end_checkpoints_of(id);
        self.debugger.publish(LiveEvent::ProcessForgotten { process_id: id.to_string() });
        Ok(())
    }

    /// Checks, every second, that processes on this host whose exit is not awaited (connected
    /// clients) still exist; one whose pid is gone is `lost`, and its pauses and REPL sessions
    /// close. Also tells the pages when a finished process leaves the active list. Runs until
    /// the runtime stops.
    pub fn watch_processes(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let debugger = self.debugger.clone();
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(LIVENESS_INTERVAL);
            let mut checked_at = ids::now();
            loop {
                tick.tick().await;
                for (id, pid) in debugger.processes().registry().unwatched_local() {
                    if !liveness::pid_is_alive(pid) {
                        debugger.processes().process_lost(&id, &format!("process {pid} ended"));
                    }
                }
                let now = ids::now();
                for process_id in debugger.processes().registry().left_list_between(checked_at, now) {
                    debugger.publish(LiveEvent::ProcessLeftList { process_id });
                }
                checked_at = now;
            }
        });
    }
}

/// Waits for every task (their results do not matter, only that they ended).
async fn futures_join_all(tasks: Vec<tokio::task::JoinHandle<()>>) {
    for task in tasks {
        let _ = task.await;
    }
}

/// The program credential minted for a launched process.
pub fn launched_credential(process_id: &str) -> String {
    format!("launched-{process_id}")
}
