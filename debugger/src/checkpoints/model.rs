//! What the time-travel API answers: checkpoints, branches, the live position, diffs.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What lives outside the process and is therefore not rewound (the pages and the docs say so).
pub const NOT_REWOUND: &str = "Files, sockets, databases and child processes are not rewound: only the \
    program's own memory is. A process with more than one thread gets no checkpoint unless \
    breakroom.checkpoints(threads=\"allow\").";

/// Whether a checkpoint's process still holds its memory.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointStatus {
    /// The checkpoint's process is there: it can be rewound to, any number of times.
    Held,
    /// Dropped to keep the process under its cap (the oldest unnamed first).
    Dropped,
    /// The process was stopped or forgotten, or the checkpoint's process died.
    Ended,
}

/// One checkpoint of a process (a forked copy), taken when a pause was committed (Continue) or asked for by name.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// `cp-N`, never reused.
    pub id: String,
    pub process_id: String,
    pub label: String,
    /// Given a name by the user: never dropped for the cap.
    pub named: bool,
    /// The pause it was taken at, and that pause's call.
    pub pause_id: String,
    pub call_id: String,
    pub function_name: String,
    pub branch: String,
    /// Seconds since the Unix epoch.
    pub taken_at: f64,
    /// The checkpoint before it on its line (what a step back from its pause goes to).
    pub parent: Option<String>,
    /// The checkpoint's process, holding the memory.
    pub pid: i64,
    pub status: CheckpointStatus,
    /// Memory only this checkpoint holds (its private dirty pages: what the program changed since),
    /// in bytes; absent when it cannot be read.
    pub memory_bytes: Option<u64>,
}

/// A line of history: "main", or one a user made from a checkpoint.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Branch {
    pub name: String,
    /// The checkpoint it forked from (none for main).
    pub fork_point: Option<String>,
    pub created_at: f64,
    /// The program runs (or is paused) on this branch now.
    pub live: bool,
    /// A pause kept on this branch by a non-destructive step back or branch, still paused.
    pub kept_pause: Option<String>,
}

/// Where the program is now.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LivePosition {
    pub branch: String,
    /// Its pause, when it is paused.
    pub pause_id: Option<String>,
    /// The newest checkpoint before the live position (a step back goes there).
    pub checkpoint: Option<String>,
    pub pid: Option<i64>,
}

/// A refused checkpoint: the Continue went on without one.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    pub pause_id: String,
    pub reason: String,
    pub at: f64,
}

/// `GET /api/processes/{id}/timeline`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub process_id: String,
    /// Oldest first.
    pub checkpoints: Vec<Checkpoint>,
    pub branches: Vec<Branch>,
    pub live: Option<LivePosition>,
    /// Most unnamed checkpoints kept.
    pub cap: usize,
    /// Memory pinned by every held checkpoint, in bytes.
    pub memory_bytes: u64,
    pub refusals: Vec<Refusal>,
    pub not_rewound: String,
}

/// `POST /api/paused/{pause_id}/step-back`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct StepBackRequest {
    /// Keep the abandoned line paused on a branch of its own instead of killing it.
    #[serde(default)]
    pub keep: Option<bool>,
    /// The new branch's name when `keep` (default `branch-N`).
    #[serde(default)]
    pub name: Option<String>,
}

/// `POST /api/checkpoints/{id}/branch` and `POST /api/processes/{id}/checkpoints`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct NameRequest {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub label: Option<String>,
}

/// What a rewind, branch, step back or switch did.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Travel {
    pub process_id: String,
    /// The checkpoint woken (none when a switch went to a kept pause).
    pub checkpoint_id: Option<String>,
    pub branch: String,
    /// The pause the program is at now.
    pub pause_id: String,
    /// The pid of the line now live.
    pub pid: i64,
    /// The line left behind: killed (rewind) or kept paused on its branch.
    pub abandoned_pid: Option<i64>,
    pub abandoned_kept: bool,
}

/// A debug client's report of a checkpoint it forked, or of why it did not (`refused`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct CheckpointReport {
    pub pause_id: Option<String>,
    pub pid: Option<i64>,
    pub cap: Option<usize>,
    pub label: Option<String>,
    /// The named checkpoint request this answers (from the poll's `checkpoint`).
    pub token: Option<String>,
    pub refused: Option<String>,
}

/// What a checkpoint process's held poll answers: a wake order, or nothing yet.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HoldReply {
    pub wake: Option<WakeOrder>,
}

/// Fork again: the new child becomes the process's live line and pauses at the same call.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WakeOrder {
    /// Sent back with the new line's call/start (`checkpoint_wake`).
    pub token: String,
    pub process_id: String,
}

/// One side of `GET /api/processes/{id}/branches/diff`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchSide {
    pub branch: String,
    /// Calls recorded on this branch after the fork point, oldest first.
    pub calls: Vec<DiffCall>,
    /// REPL inputs and outputs on this branch after the fork point.
    pub transcript: Vec<DiffEntry>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffCall {
    pub call_id: String,
    pub function_name: String,
    pub started_at: f64,
    pub args: Vec<Value>,
    pub result: Option<Value>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffEntry {
    pub session_id: String,
    pub input: String,
    pub output: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchDiff {
    /// Where the two branches part (the newest checkpoint both come from).
    pub fork_point: Option<String>,
    pub fork_time: f64,
    pub a: BranchSide,
    pub b: BranchSide,
}

/// What a paused card shows of time travel: Step back (to this checkpoint), or why the
/// Continue will take no checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PauseTravel {
    pub checkpoint_before: Option<String>,
    pub refusal: Option<String>,
}
