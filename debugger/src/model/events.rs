//! The event log (the session recording): what an entry records, and one entry.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an entry of the event log records.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    ProcessSeen,
    CallStart,
    Pause,
    SessionStart,
    EvalRequest,
    EvalResult,
    SessionClose,
    Resume,
    CallComplete,
    /// A breakpoint matched (issue 18): its id, kind, why, hit count.
    BreakpointHit,
    /// A logpoint's message.
    Log,
    /// Time travel (issue 20): a snapshot taken (or refused, with its reason).
    Checkpoint,
    /// A process went back to a checkpoint, killing the line it left.
    Rewind,
    /// A branch was made at a checkpoint (the line left is kept paused).
    BranchCreated,
    /// The live line moved to another branch.
    BranchSwitched,
}

impl EventKind {
    /// Every kind, in the order a call lives through them.
    pub const ALL: [EventKind; 15] = [
        EventKind::ProcessSeen,
        EventKind::CallStart,
        EventKind::Pause,
        EventKind::SessionStart,
        EventKind::EvalRequest,
        EventKind::EvalResult,
        EventKind::SessionClose,
        EventKind::Resume,
        EventKind::CallComplete,
        EventKind::BreakpointHit,
        EventKind::Log,
        EventKind::Checkpoint,
        EventKind::Rewind,
        EventKind::BranchCreated,
        EventKind::BranchSwitched,
    ];

    /// The name stored and shown (the serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::ProcessSeen => "process_seen",
            EventKind::CallStart => "call_start",
            EventKind::Pause => "pause",
            EventKind::SessionStart => "session_start",
            EventKind::EvalRequest => "eval_request",
            EventKind::EvalResult => "eval_result",
            EventKind::SessionClose => "session_close",
            EventKind::Resume => "resume",
            EventKind::CallComplete => "call_complete",
            EventKind::BreakpointHit => "breakpoint_hit",
            EventKind::Log => "log",
            EventKind::Checkpoint => "checkpoint",
            EventKind::Rewind => "rewind",
            EventKind::BranchCreated => "branch_created",
            EventKind::BranchSwitched => "branch_switched",
        }
    }

    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

/// One entry of the event log (the session recording): everything that happened, in
/// order. `breakroom export` writes these as JSON lines and `breakroom replay` reads them back.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedEvent {
    pub sequence: i64,
    /// Seconds since the Unix epoch.
    pub timestamp: f64,
    #[serde(rename = "type")]
    pub kind: EventKind,
    pub process_key: Option<String>,
    pub session_id: Option<String>,
    pub data: Value,
}
