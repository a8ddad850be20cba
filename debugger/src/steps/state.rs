//! What stepping keeps under the one lock ([`StepParts`], [`StepState`]), and what it asks of
//! the owner of the state ([`StepHost`]; see `crate::host`).

use std::future::Future;

use serde::de::DeserializeOwned;

use super::in_flight::StepsInFlight;
use super::methods::{StepCall, StepService};
use crate::calls::CallBook;
use crate::error::Result;
use crate::host::{Host, Ledger};
use crate::pauses::PauseBook;
use crate::sessions::state::{SessionHost, SessionParts, SessionState};
use crate::sessions::Sessions;

/// The steps running, the sessions they carry, the live pauses and the store, borrowed from
/// the state for as long as the lock is held.
pub struct StepParts<'a> {
    pub(crate) store: &'a Ledger,
    pub(crate) steps: &'a mut StepsInFlight,
    pub(crate) sessions: &'a mut Sessions,
    pub(crate) pauses: &'a mut PauseBook,
    /// Calls running now: a post-mortem pause cannot step.
    pub(crate) calls: &'a CallBook,
}

impl StepParts<'_> {
    /// The sessions' view of the same parts.
    pub(crate) fn sessions(&mut self) -> SessionParts<'_> {
        SessionParts { store: self.store, sessions: self.sessions, pauses: self.pauses }
    }
}

pub trait StepState: SessionState {
    /// The steps running, to read.
    fn steps(&self) -> &StepsInFlight;

    /// The steps running, their sessions, the live pauses and the store, to change.
    fn step_parts(&mut self) -> StepParts<'_>;
}

pub trait StepHost: SessionHost + Host<State: StepState> {
    /// Runs `call` on the server `holder`, which holds its pause, waiting for the stop.
    fn ask_step_holder<T: DeserializeOwned + Send>(
        &self,
        holder: &str,
        call: StepCall,
    ) -> impl Future<Output = Result<T>> + Send;

    /// Stepping from a pause to the next line.
    fn steps(&self) -> StepService<'_, Self>
    where
        Self: Sized,
    {
        StepService { debugger: self }
    }
}
