//! [`State`]: what the one lock guards, every concept's live part (pauses, sessions, breakpoints,
//! calls, steps, checkpoints) and the store, with the few store helpers every concept uses while
//! it holds the lock (values by CID, a pause's or a session's record, the event log).

use std::collections::{BTreeMap, HashSet};

use tokio::sync::broadcast;

use crate::breakpoints::by_name::{Breakpoints, RegisteredFunction};
use crate::host::Ledger;
use crate::model::LiveEvent;
use crate::sessions::Sessions;
use crate::store::Store;

/// What live pauses and open sessions need, and nothing of the history: closed sessions, call
/// records, resumed pauses, stored values and events are read from the store when asked for.
pub struct State {
    /// Where every change is written before it is acknowledged, and where history is read,
    /// with the live stream a logpoint's line is told on.
    pub(crate) store: Ledger,
    /// Processes this server has seen (their `process_seen` is in the event log).
    pub(crate) seen_processes: HashSet<String>,
    /// Pause orders for running programs, waiting for the pause (DAP's `pause`).
    pub(crate) interrupts: crate::interrupts::Interrupts,
    /// Held while the data directory is ours: two servers on one directory would each close the
    /// other's live sessions.
    pub(crate) lock: Option<std::fs::File>,
    pub(crate) breakpoints: Breakpoints,
    /// Breakpoints of every kind by id, with their options and hit counts.
    pub(crate) records: crate::breakpoints::Records,
    pub(crate) functions: BTreeMap<String, RegisteredFunction>,
    pub(crate) pauses: crate::pauses::PauseBook,
    pub(crate) calls: crate::calls::CallBook,
    /// call/start answers by the client's request id: a retried request gets the same one.
    pub(crate) start_replies: crate::call_reports::retries::StartReplies,
    /// Open REPL sessions.
    pub(crate) sessions: Sessions,
    /// Checkpoints, branches and lines of processes with time travel on (issue 20).
    pub(crate) checkpoints: crate::checkpoints::book::Book,
    /// Steps running now (issue 30).
    pub(crate) steps: crate::steps::in_flight::StepsInFlight,
}

impl State {
    /// `live` and `to_peers` are the debugger's own senders: what is logged under the lock is
    /// published on them.
    pub(super) fn new(
        store: Store,
        live: broadcast::Sender<LiveEvent>,
        to_peers: broadcast::Sender<LiveEvent>,
    ) -> Self {
        State {
            store: Ledger::new(store, live, to_peers),
            seen_processes: HashSet::new(),
            interrupts: Default::default(),
            lock: None,
            breakpoints: Breakpoints::default(),
            records: Default::default(),
            functions: BTreeMap::new(),
            pauses: Default::default(),
            calls: Default::default(),
            start_replies: Default::default(),
            sessions: Sessions::default(),
            checkpoints: Default::default(),
            steps: Default::default(),
        }
    }
}
