//! What time travel keeps under the one lock ([`CheckpointParts`], [`CheckpointState`]), and
//! what it asks of the owner of the state ([`CheckpointHost`]; see `crate::host`).

use super::book::Book;
use super::CheckpointService;
use crate::calls::store::PauseRecord;
use crate::error::Result;
use crate::host::{Host, Ledger};
use crate::pauses::PauseBook;
use crate::processes::host::ProcessHost;
use crate::sessions::state::SessionParts;
use crate::sessions::Sessions;
use crate::steps::in_flight::StepsInFlight;
use crate::steps::state::{StepHost, StepState};

/// Checkpoints, branches and lines, with the steps, sessions and live pauses a travel moves,
/// and the store, borrowed from the state for as long as the lock is held.
pub struct CheckpointParts<'a> {
    pub(crate) store: &'a Ledger,
    pub(crate) checkpoints: &'a mut Book,
    pub(crate) steps: &'a mut StepsInFlight,
    pub(crate) sessions: &'a mut Sessions,
    pub(crate) pauses: &'a mut PauseBook,
}

impl CheckpointParts<'_> {
    /// The sessions' view of the same parts.
    pub(crate) fn sessions(&mut self) -> SessionParts<'_> {
        SessionParts { store: self.store, sessions: self.sessions, pauses: self.pauses }
    }

    /// A pause, live (from memory) or resumed (from the store).
    pub(crate) fn pause_record(&self, pause_id: &str) -> Result<Option<PauseRecord>> {
        self.pauses.record_of(pause_id, self.store)
    }
}

pub trait CheckpointState: StepState {
    /// Checkpoints and the rest of time travel, to change.
    fn checkpoint_parts(&mut self) -> CheckpointParts<'_>;
}

pub trait CheckpointHost: ProcessHost + StepHost + Host<State: CheckpointState> {
    /// Time travel: checkpoints, branches and the jumps between them.
    fn checkpoints(&self) -> CheckpointService<'_, Self>
    where
        Self: Sized,
    {
        CheckpointService { debugger: self }
    }
}
