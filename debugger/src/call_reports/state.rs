//! What calls as clients report them keep under the one lock ([`CallReportParts`],
//! [`CallReportState`]), and what they ask of the owner of the state ([`CallReportHost`]; see
//! `crate::host`). Being last among the concepts that share the lock, a call's start reaches
//! every one before it through their own traits: breakpoints decide, pauses open, steps land,
//! time travel notes the pause.

use std::collections::HashSet;

use super::retries::StartReplies;
use super::CallService;
use crate::breakpoints::state::BreakpointsState;
use crate::calls::CallBook;
use crate::checkpoints::state::{CheckpointHost, CheckpointState};
use crate::host::{Host, Ledger};
use crate::interrupts::InterruptHost;

/// The calls running, the answers kept for retried starts, the processes seen and the store,
/// borrowed from the state for as long as the lock is held.
pub struct CallReportParts<'a> {
    pub(crate) store: &'a Ledger,
    pub(crate) calls: &'a mut CallBook,
    /// call/start answers by the client's request id: a retried request gets the same one.
    pub(crate) start_replies: &'a mut StartReplies,
    /// Processes this server has seen (their `process_seen` is in the event log).
    pub(crate) seen_processes: &'a mut HashSet<String>,
}

pub trait CallReportState: CheckpointState + BreakpointsState {
    fn call_report_parts(&mut self) -> CallReportParts<'_>;
}

pub trait CallReportHost: CheckpointHost + InterruptHost + Host<State: CallReportState> {
    /// How many completed calls each breakpoint's history keeps.
    fn history_per_breakpoint(&self) -> usize;

    /// Calls as clients report them, and their records.
    fn calls(&self) -> CallService<'_, Self>
    where
        Self: Sized,
    {
        CallService { debugger: self }
    }
}
