//! What the pauses concept keeps under the one lock ([`PauseParts`], [`PauseState`]), and what
//! it asks of the owner of the state ([`PauseHost`]; see `crate::host`).
//!
//! A pause's end reaches concepts later in the order (its REPL sessions close, its checkpoints
//! hear of it): those are hooks of [`PauseState`], which the owner answers.

use serde::de::DeserializeOwned;
use tokio::sync::watch;

use super::methods::{PauseCall, PauseService};
use super::PauseBook;
use crate::breakpoints::state::BreakpointHost;
use crate::calls::store::PauseRecord;
use crate::error::Result;
use crate::eval::EvalResult;
use crate::host::{Host, Ledger, Stored};

/// The live pauses and the store, borrowed from the state for as long as the lock is held.
pub struct PauseParts<'a> {
    pub(crate) store: &'a Ledger,
    pub(crate) pauses: &'a mut PauseBook,
}

impl PauseParts<'_> {
    /// Writes a live pause's record to the store.
    pub(crate) fn save_pause(&self, pause_id: &str) -> Result<()> {
        self.pauses.get(pause_id).map_or(Ok(()), |p| self.store.put_pause(&p.record))
    }
}

pub trait PauseState: Stored {
    /// The live pauses, to read.
    fn pauses(&self) -> &PauseBook;

    /// The live pauses and the store, to change.
    fn pause_parts(&mut self) -> PauseParts<'_>;

    /// The open REPL sessions of a pause (the sessions concept keeps them).
    fn open_sessions_of(&self, pause_id: &str) -> Vec<String>;

    /// A pause is closing: its REPL sessions close, unless a step is taking them on to where
    /// it stops, and time travel hears of it. Returns the sessions closed.
    fn pause_closing(&mut self, pause_id: &str, now: f64, reason: Option<&str>) -> Result<Vec<(String, f64)>>;

    /// A checkpoint asked for at this pause, for the client's poll to take (time travel).
    fn take_named_checkpoint(&mut self, pause_id: &str) -> Option<String>;

    /// A pause, live (from memory) or resumed (from the store).
    fn pause_record(&self, pause_id: &str) -> Result<Option<PauseRecord>> {
        self.pauses().record_of(pause_id, self.store())
    }
}

pub trait PauseHost: BreakpointHost + Host<State: PauseState> {
    /// True once the server is shutting down: held polls answer `stopping`.
    fn stopping(&self) -> watch::Receiver<bool>;

    /// The server holding `pause_id`, when it is another one of a cluster.
    fn pause_held_elsewhere(&self, pause_id: &str) -> Result<Option<String>>;

    /// Runs `call` on the server `holder`, which holds its pause.
    fn ask_pause_holder_now<T: DeserializeOwned>(&self, holder: &str, call: PauseCall) -> Result<T>;

    /// The pauses other servers of a cluster hold, as stored.
    fn pauses_elsewhere(&self) -> Vec<PauseRecord>;

    /// The client's answer to an eval, carried by its poll (the sessions concept records it).
    fn submit_eval_result(&self, result: EvalResult) -> Result<()>;

    /// The tracked process whose calls carry `process_key`, if any.
    fn process_id_for_key(&self, process_key: &str) -> Option<String>;

    /// Paused calls, the client's held poll and resuming.
    fn pauses(&self) -> PauseService<'_, Self>
    where
        Self: Sized,
    {
        PauseService { debugger: self }
    }
}
