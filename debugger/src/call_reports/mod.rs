//! Calls as clients report them: the entry that starts pauses and lands steps. call/start and
//! call/complete ask the breakpoints, add or close the pause, land a step, note the process and
//! its checkpoints, and answer an interrupt; hence this sits after those concepts in the order,
//! apart from the call shapes and records (`calls`) that the earlier concepts use.

pub(crate) mod methods;
pub mod retries;
pub mod state;
mod watchers;

pub use methods::CallService;

use serde::{Deserialize, Serialize};

use crate::calls::Action;

/// The answer to call/start: an action that always carries the call id.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallStartReply {
    pub call_id: String,
    #[serde(flatten)]
    pub action: Action,
    /// Snapshot breakpoints on this function: the program captures the call, then runs it
    /// (issue 34).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<crate::breakpoints::record::BreakpointRecord>,
}
