//! Several servers on one PostgreSQL database (issue 35): one view, and work routed to the
//! server that holds the program.
//!
//! A program's held poll is on one server, so its pause lives in that server's memory; the
//! records are shared through the store. What the servers add on top, in PostgreSQL only:
//! - `cluster_pauses`: which server holds each live pause. A server is alive while its listening
//!   connection is open (`pg_stat_activity`, by application name: a killed server's pauses drop
//!   out of every listing at once) and its lease, renewed every second, runs (`cluster_servers`:
//!   a hung server's drop out within five seconds; see `lease.rs`).
//! - One NOTIFY channel, `breakroom`, carrying [`Notice`]s: every live event (so `/api/live` on
//!   any server shows all), and requests for a pause or session held elsewhere. The asking server
//!   records the request in `cluster_requests`, the holder runs it on its own debugger and
//!   records the reply, which comes back on the same channel.

use std::collections::{HashMap, HashSet};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{broadcast, oneshot};

use crate::error::{Error, ErrorKind, Result};
use crate::host::Host;
use crate::live_events::LiveEvent;
use crate::store::postgres::{display_url, PgConnection};
use crate::store::values;

mod lease;
mod requests;
use lease::live_server;
pub use lease::LEASE_LOST_REASON;
pub(crate) use requests::Request;

/// The channel every server listens on.
const CHANNEL: &str = "breakroom";
/// PostgreSQL refuses NOTIFY payloads of 8000 bytes or more: a larger event is announced as
/// a page refresh, a larger request or reply is read from its row.
const MAX_PAYLOAD: usize = 7_900;
/// Recorded requests are kept a day, trimmed every thousand requests a server sends.
const REQUESTS_KEPT_S: f64 = 86_400.0;
const TRIM_EVERY: u64 = 1_000;
/// How long a request that needs no program (start a session, resume, close) may take.
const QUICK_REQUEST: Duration = Duration::from_secs(10);

/// One message between servers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Notice {
    Event {
        from: String,
        event: LiveEvent,
    },
    /// `request` is None when it was too large for the payload: read it from its row.
    Request {
        from: String,
        to: String,
        id: i64,
        request: Option<Request>,
    },
    Reply {
        to: String,
        id: i64,
        reply: Option<Reply>,
    },
}

/// What the holding server answered: a value, or its error (code, status, message).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Reply {
    #[serde(default)]
    ok: Option<Value>,
    #[serde(default)]
    error: Option<(String, u16, String)>,
}

impl Reply {
    fn of(outcome: Result<Value>) -> Reply {
        match outcome {
            Ok(value) => Reply { ok: Some(value), error: None },
            Err(e) => Reply { ok: None, error: Some((e.code().to_string(), e.kind().http_status(), e.to_string())) },
        }
    }

    fn into_result(self) -> Result<Value> {
        match (self.ok, self.error) {
            (_, Some((code, status, message))) => {
                Err(Error::FromPeer { code, kind: ErrorKind::from_http_status(status), message })
            }
            (Some(value), None) => Ok(value),
            (None, None) => Ok(Value::Null),
        }
    }
}

enum Waiter {
    Async(oneshot::Sender<Reply>),
    Blocking(mpsc::SyncSender<Reply>),
}

/// This server's membership: its id, its connection for cluster statements, the requests it
/// is waiting on.
pub struct Cluster {
    server_id: String,
    db: PgConnection,
    waiting: Mutex<HashMap<i64, Waiter>>,
    /// Requests sent, for trimming the recorded ones now and then.
    sent: std::sync::atomic::AtomicU64,
    /// Which server holds each session asked about: fixed for the session's life, so a REPL's
    /// evals after the first skip the lookup. Forgotten when the holder answers otherwise.
    session_holders: Mutex<HashMap<String, String>>,
}

impl Cluster {
    pub fn server_id(&self) -> &str {
        &self.server_id
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Waiter>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn notify(&self, notice: &Notice) -> Result<()> {
        let payload = serde_json::to_string(notice).map_err(|e| Error::storage_caused("", e))?;
        self.db.execute("SELECT pg_notify(?1, ?2)", values![CHANNEL, payload]).map(drop)
    }

    /// The server holding a live pause, when it is another live server.
    pub(crate) fn holder_of_pause(&self, pause_id: &str) -> Result<Option<String>> {
        self.holder(
            concat!(
                "SELECT p.server_id FROM cluster_pauses p WHERE p.pause_id = ?1 AND p.server_id <> ?2 AND ",
                live_server!()
            ),
            pause_id,
        )
    }

    /// The server holding the pause a session is open on, when it is another live server.
    pub(crate) fn holder_of_session(&self, session_id: &str) -> Result<Option<String>> {
        if let Some(holder) = self.session_holders().get(session_id) {
            return Ok(Some(holder.clone()));
        }
        let holder = self.holder(
            concat!(
                "SELECT p.server_id FROM sessions s JOIN cluster_pauses p ON p.pause_id = s.pause_id
                 WHERE s.session_id = ?1 AND p.server_id <> ?2 AND ",
                live_server!()
            ),
            session_id,
        )?;
        if let Some(holder) = &holder {
            self.session_holders().insert(session_id.to_string(), holder.clone());
        }
        Ok(holder)
    }

    fn session_holders(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.session_holders.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// After a reply that was not a success: the next request looks the holder up again.
    pub(crate) fn forget_session_holder(&self, session_id: &str) {
        self.session_holders().remove(session_id);
    }

    fn holder(&self, query: &str, id: &str) -> Result<Option<String>> {
        self.db.query_first(query, values![id, &self.server_id])?.map(|r| r.text(0)).transpose()
    }

    /// The live pauses other live servers hold, in the order they paused.
    /// Their records, as stored, in one query (a listing asks this every time).
    pub(crate) fn pauses_held_elsewhere(&self) -> Result<Vec<crate::calls::store::PauseRecord>> {
        let rows = self.db.query(
            concat!(
                "SELECT s.data FROM cluster_pauses p JOIN pauses s ON s.pause_id = p.pause_id
                 WHERE p.server_id <> ?1 AND s.resumed_at IS NULL AND ",
                live_server!(),
                " ORDER BY p.paused_at, p.pause_id"
            ),
            values![&self.server_id],
        )?;
        rows.iter().map(|r| crate::store::parse("pause", &r.text(0)?)).collect()
    }

    /// Records a request for `holder` and announces it; the reply wakes `waiter`.
    fn send(&self, holder: &str, request: &Request, waiter: Waiter) -> Result<i64> {
        let text = serde_json::to_string(request).map_err(|e| Error::storage_caused("", e))?;
        // Chosen here, so the waiter is in place before the reply can come.
        let id = (uuid::Uuid::new_v4().as_u64_pair().0 >> 1) as i64;
        let inline = (text.len() < MAX_PAYLOAD - 300).then(|| request.clone());
        let notice = Notice::Request { from: self.server_id.clone(), to: holder.to_string(), id, request: inline };
        let payload = serde_json::to_string(&notice).map_err(|e| Error::storage_caused("", e))?;
        self.waiting().insert(id, waiter);
        // Recorded and announced in one statement (one round trip). An asked request lives
        // only while its asker waits, so its commit need not wait for the WAL flush: after a
        // PostgreSQL crash the asker's wait ends with an error either way.
        let sent = self.db.execute(
            "WITH recorded AS (
                 INSERT INTO cluster_requests (id, origin, target, request, created_at)
                 VALUES (?1, ?2, ?3, ?4, extract(epoch from clock_timestamp())))
             SELECT pg_notify(?5, ?6), set_config('synchronous_commit', 'off', true)",
            values![id, &self.server_id, holder, &text, CHANNEL, payload],
        );
        if let Err(e) = sent {
            self.waiting().remove(&id);
            return Err(e);
        }
        // The record is for looking back a while, not forever.
        if self.sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % TRIM_EVERY == 0 {
            let _ = self.db.execute(
                "DELETE FROM cluster_requests WHERE created_at < extract(epoch from clock_timestamp()) - ?1",
                values![REQUESTS_KEPT_S],
            );
        }
        Ok(id)
    }

    /// Asks the holder and waits for its reply (for requests that wait on a program).
    pub(crate) async fn ask(&self, holder: &str, request: Request, wait: Duration) -> Result<Value> {
        let (tx, rx) = oneshot::channel();
        let id = self.send(holder, &request, Waiter::Async(tx))?;
        match tokio::time::timeout(wait, rx).await {
            Ok(Ok(reply)) => reply.into_result(),
            _ => {
                self.waiting().remove(&id);
                Err(Error::TimedOut("peer_timeout", format!("server {holder} did not answer in time")))
            }
        }
    }

    /// Asks the holder and blocks until it replies (quick requests, from synchronous services).
    ///
    /// The doors call those services through [`Debugger::off_workers`], so this wait is on the
    /// blocking pool. Called on a runtime worker anyway, the wait hands the worker's other tasks
    /// to another thread first (`block_in_place`): the requests other servers send here run as
    /// tasks of this runtime, so two servers asking each other at once with every worker waiting
    /// would otherwise stall until the requests time out.
    pub(crate) fn ask_now(&self, holder: &str, request: Request) -> Result<Value> {
        let (tx, rx) = mpsc::sync_channel(1);
        let id = self.send(holder, &request, Waiter::Blocking(tx))?;
        let on_workers = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        let received = if on_workers {
            tokio::task::block_in_place(|| rx.recv_timeout(QUICK_REQUEST))
        } else {
            rx.recv_timeout(QUICK_REQUEST)
        };
        match received {
            Ok(reply) => reply.into_result(),
            Err(_) => {
                self.waiting().remove(&id);
                Err(Error::TimedOut("peer_timeout", format!("server {holder} did not answer in time")))
            }
        }
    }

    /// Records which pause this server holds, or that it no longer does.
    pub(crate) fn track(&self, event: &LiveEvent) -> Result<()> {
        match event {
            LiveEvent::PauseAdded { pause_id, .. } => self.db.execute(
                "INSERT INTO cluster_pauses (pause_id, server_id, paused_at)
                 VALUES (?1, ?2, extract(epoch from clock_timestamp())) ON CONFLICT (pause_id) DO NOTHING",
                values![pause_id, &self.server_id],
            ),
            LiveEvent::PauseResumed { pause_id, .. } => {
                self.db.execute("DELETE FROM cluster_pauses WHERE pause_id = ?1", values![pause_id])
            }
            _ => Ok(0),
        }
        .map(drop)
    }
}

const SCHEMA: &str = "
    SELECT pg_advisory_xact_lock(35036);
    CREATE TABLE IF NOT EXISTS cluster_pauses (
        pause_id TEXT PRIMARY KEY, server_id TEXT NOT NULL, paused_at DOUBLE PRECISION NOT NULL);
    CREATE INDEX IF NOT EXISTS cluster_pauses_by_server ON cluster_pauses (server_id);
    CREATE TABLE IF NOT EXISTS cluster_servers (server_id TEXT PRIMARY KEY, lease_until DOUBLE PRECISION NOT NULL);
    CREATE TABLE IF NOT EXISTS cluster_requests (
        id BIGSERIAL PRIMARY KEY, origin TEXT NOT NULL, target TEXT NOT NULL, request TEXT NOT NULL,
        reply TEXT, created_at DOUBLE PRECISION NOT NULL, answered_at DOUBLE PRECISION);";

/// Pause ids that other live servers hold now: a server starting on a shared database leaves
/// those open (the ones of servers that are gone it closes, as after a restart).
pub fn pauses_of_live_servers(url: &str) -> Result<HashSet<String>> {
    let db = PgConnection::connect(url)?;
    db.batch(&format!("BEGIN; {SCHEMA} COMMIT;"))?;
    let rows = db.query(concat!("SELECT p.pause_id FROM cluster_pauses p WHERE ", live_server!()), values![])?;
    rows.iter().map(|r| r.text(0)).collect()
}

/// What a server joining others asks of the owner of the state: where the cluster is kept,
/// what happens here (for the others), and the calls the others send it.
pub(crate) trait ClusterHost: Host {
    /// Where the cluster is kept once joined (set once).
    fn cluster_slot(&self) -> &OnceLock<Arc<Cluster>>;

    /// What happens here, for the other servers.
    fn subscribe_for_peers(&self) -> broadcast::Receiver<LiveEvent>;

    /// An event another server relayed: shown here, not sent back.
    fn publish_from_peer(&self, event: LiveEvent);

    /// Reads the breakpoints and registered functions again from the store (another server
    /// changed them), and wakes the programs that follow breakpoints.
    fn reload_configuration(&self) -> Result<()>;

    /// The pauses this server holds now, each as its `pause_added` event.
    fn held_pauses(&self) -> Vec<LiveEvent>;

    /// Closes every pause and REPL session this server holds, with `reason`, as a restart would.
    fn let_go_of_everything(&self, reason: &str) -> Result<()>;

    /// Runs a door's call another server sent, here where its pause is, as a local door would.
    fn run_for_peer(&self, request: Request) -> impl std::future::Future<Output = Result<Value>> + Send;
}

/// Joins the servers sharing `url` (`--database-url`): this server's pauses are listed and
/// driven from the others, theirs from here, and live events flow both ways. Call once,
/// inside the server's runtime.
pub(crate) fn join<H: ClusterHost>(host: &H, url: &str) -> Result<Arc<Cluster>> {
    let server_id = crate::ids::new_uuid();
    let db = PgConnection::connect(url)?;
    db.batch(&format!("BEGIN; {SCHEMA} COMMIT;"))?;
    lease::take(&db, &server_id)?;
    // Pauses left by servers that are gone.
    db.execute(concat!("DELETE FROM cluster_pauses p WHERE NOT (", live_server!(), ")"), values![])?;
    let cluster = Arc::new(Cluster {
        server_id: server_id.clone(),
        db,
        waiting: Mutex::new(HashMap::new()),
        session_holders: Mutex::new(HashMap::new()),
        sent: Default::default(),
    });
    host.cluster_slot().set(cluster.clone()).map_err(|_| Error::storage("this server joined a cluster already"))?;
    let (ready_tx, ready) = mpsc::sync_channel(1);
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|_| Error::storage("joining a cluster needs the server's runtime"))?;
    let (listener, listener_cluster, listen_url) = (host.clone(), cluster.clone(), url.to_string());
    std::thread::Builder::new()
        .name("breakroom-cluster".into())
        .spawn(move || listen(&listen_url, &listener, &listener_cluster, &runtime, ready_tx))
        .map_err(|e| Error::storage_caused("cannot start the cluster listener", e))?;
    ready.recv().map_err(|_| Error::storage("the cluster listener ended"))??;
    lease::keep(url, host.clone(), cluster.clone())?;
    // Only now, with this server's connection up: a server starting meanwhile would take
    // rows of a server it cannot see for a gone one's.
    for event in host.held_pauses() {
        cluster.track(&event)?;
    }
    relay_local_events(host.subscribe_for_peers(), cluster.clone());
    Ok(cluster)
}

/// Every event that happens here goes to the other servers.
fn relay_local_events(mut events: broadcast::Receiver<LiveEvent>, cluster: Arc<Cluster>) {
    std::thread::spawn(move || loop {
        match events.blocking_recv() {
            Ok(event) => {
                let notice = Notice::Event { from: cluster.server_id.clone(), event };
                let fits = serde_json::to_string(&notice).is_ok_and(|t| t.len() < MAX_PAYLOAD);
                let notice = if fits {
                    notice
                } else {
                    // Too large to carry (a burst of output): peers refetch what they show.
                    Notice::Event { from: cluster.server_id.clone(), event: LiveEvent::BREAKPOINTS_CHANGED }
                };
                let _ = cluster.notify(&notice);
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
        }
    });
}

/// The listening connection: named after the server (its liveness), LISTENing on the channel,
/// handing each notice to the debugger. Reconnects if the database goes away.
fn listen<H: ClusterHost>(
    url: &str,
    debugger: &H,
    cluster: &Arc<Cluster>,
    runtime: &tokio::runtime::Handle,
    ready: mpsc::SyncSender<Result<()>>,
) {
    let mut ready = Some(ready);
    loop {
        let connected = (|| {
            let mut config: postgres::Config = url.parse().map_err(|e| Error::storage_caused("database URL", e))?;
            config.application_name(&format!("breakroom:{}", cluster.server_id));
            let mut client = config
                .connect(postgres::NoTls)
                .map_err(|e| Error::storage_caused(format!("cannot connect to {}", display_url(url)), e))?;
            client.batch_execute(&format!("LISTEN {CHANNEL}")).map_err(|e| Error::storage_caused("LISTEN", e))?;
            Ok(client)
        })();
        let mut client = match (connected, ready.take()) {
            (Ok(client), ready) => {
                if let Some(ready) = ready {
                    let _ = ready.send(Ok(()));
                }
                client
            }
            (Err(e), Some(ready)) => {
                let _ = ready.send(Err(e));
                return;
            }
            (Err(e), None) => {
                eprintln!("cluster: {e}; retrying");
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
        };
        let mut notifications = client.notifications();
        let mut iter = notifications.blocking_iter();
        while let Ok(Some(notification)) = iter.next() {
            match serde_json::from_str::<Notice>(notification.payload()) {
                Ok(notice) => requests::receive(notice, debugger, cluster, runtime),
                Err(e) => eprintln!("cluster: an unreadable notice: {e}"),
            }
        }
        eprintln!("cluster: the listening connection closed; reconnecting");
    }
}
