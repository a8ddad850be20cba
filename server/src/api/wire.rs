//! The JSON bodies the API answers with. Handlers return these types, and the OpenAPI
//! document is generated from them, so the two cannot drift apart.

use std::collections::BTreeMap;

use breakroom_debugger::calls::Action;
use breakroom_debugger::eval::EvalRequest;
use breakroom_debugger::model::{AfterBehavior, Behavior, BreakpointsView, GlobalBehavior, ReplSession};
use breakroom_debugger::RegisteredFunction;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// Every 4xx/5xx answer. Some errors add fields: `missing_cids` (cid_not_found),
/// `expected_cid`/`provided_cid` (cid_mismatch).
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// A stable machine-readable code, e.g. `pause_not_found`, `eval_timeout`, `invalid_json`.
    pub error: String,
    /// What went wrong, for a human.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_cids: Option<Vec<String>>,
}

/// The `status` of a request that succeeded: always `ok`.
#[derive(Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OkStatus {
    Ok,
}

#[derive(Serialize, ToSchema)]
pub struct StatusOk {
    pub status: OkStatus,
}

impl StatusOk {
    pub fn new() -> Self {
        StatusOk { status: OkStatus::Ok }
    }
}

#[derive(Serialize, ToSchema)]
pub struct BreakpointList {
    pub breakpoints: Vec<String>,
    /// Before-call behaviour per breakpoint.
    pub breakpoint_behaviors: BTreeMap<String, Behavior>,
    /// After-call behaviour per breakpoint.
    pub breakpoint_after_behaviors: BTreeMap<String, AfterBehavior>,
    pub breakpoint_replacements: BTreeMap<String, String>,
    pub global_behavior: GlobalBehavior,
    /// Every breakpoint of every kind, by id, oldest first (issue 18).
    pub items: Vec<breakroom_debugger::breakpoints::record::BreakpointRecord>,
}

impl From<BreakpointsView> for BreakpointList {
    fn from(view: BreakpointsView) -> Self {
        let bps = &view.breakpoints;
        BreakpointList {
            breakpoints: bps.iter().map(|b| b.function_name.clone()).collect(),
            breakpoint_behaviors: bps.iter().map(|b| (b.function_name.clone(), b.behavior)).collect(),
            breakpoint_after_behaviors: bps.iter().map(|b| (b.function_name.clone(), b.after_behavior)).collect(),
            breakpoint_replacements: bps
                .iter()
                .filter_map(|b| Some((b.function_name.clone(), b.replacement.clone()?)))
                .collect(),
            global_behavior: view.global_behavior,
            items: vec![],
        }
    }
}

/// A breakpoint added or removed.
#[derive(Serialize, ToSchema)]
pub struct BreakpointChanged {
    pub status: OkStatus,
    pub function_name: String,
}

/// A breakpoint's before-call behaviour, as set.
#[derive(Serialize, ToSchema)]
pub struct BehaviorSet {
    pub status: OkStatus,
    pub function_name: String,
    pub behavior: Behavior,
}

/// A breakpoint's after-call behaviour, as set.
#[derive(Serialize, ToSchema)]
pub struct AfterBehaviorSet {
    pub status: OkStatus,
    pub function_name: String,
    pub behavior: AfterBehavior,
}

#[derive(Serialize, ToSchema)]
pub struct ReplacementSet {
    pub status: OkStatus,
    pub function_name: String,
    /// `null` when the replacement was cleared.
    pub replacement_function: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct BreakpointHistory {
    pub function_name: String,
    /// Newest first: one record per call that hit the breakpoint.
    pub history: Vec<Value>,
}

/// The behaviour of calls without a breakpoint of their own; `status` only when it was set.
#[derive(Serialize, ToSchema)]
pub struct GlobalBehaviorSetting {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<OkStatus>,
    pub behavior: GlobalBehavior,
}

#[derive(Serialize, ToSchema)]
pub struct FunctionList {
    pub functions: Vec<String>,
    pub function_signatures: BTreeMap<String, Option<String>>,
    pub function_metadata: BTreeMap<String, Value>,
}

impl From<BTreeMap<String, RegisteredFunction>> for FunctionList {
    fn from(functions: BTreeMap<String, RegisteredFunction>) -> Self {
        FunctionList {
            functions: functions.keys().cloned().collect(),
            function_signatures: functions.iter().map(|(n, f)| (n.clone(), f.signature.clone())).collect(),
            function_metadata: functions.into_iter().map(|(n, f)| (n, f.metadata)).collect(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct FunctionRegistered {
    pub status: OkStatus,
    pub function_name: String,
    pub signature: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct PausedList {
    /// Paused calls, oldest first: `id`, `call_data`, `paused_at`, `reason`, `frames`, ….
    pub paused: Vec<Value>,
}

#[derive(Serialize, ToSchema)]
pub struct Resumed {
    pub status: OkStatus,
    pub pause_id: String,
    /// With checkpoints on (issue 20): `{"status": "snapshot"}` (the program forks one as it
    /// goes on) or `{"status": "refused", "reason": …}` (it went on without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Value>,
}

#[derive(Serialize, ToSchema)]
pub struct ComErrors {
    /// The last 500 reports, oldest first.
    pub errors: Vec<Value>,
}

#[derive(Serialize, ToSchema)]
pub struct SessionStarted {
    /// `{pid}-{started_at:.6f}`.
    pub session_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct SessionReply {
    pub session: ReplSession,
}

#[derive(Serialize, ToSchema)]
pub struct SessionList {
    /// Newest first.
    pub sessions: Vec<ReplSession>,
    /// Sessions matching the filters, over all pages: exactly up to 1,000, then 1,000 with
    /// `total_is_lower_bound` set.
    pub total: usize,
    /// More sessions match than `total` says (the count stops at 1,000).
    pub total_is_lower_bound: bool,
    pub page: usize,
    pub per_page: usize,
}

/// `/api/poll-repl/{pause_id}` when no eval is queued.
#[derive(Serialize, ToSchema)]
pub struct NoEval {
    pub eval_id: Option<String>,
}

/// `GET /api/poll-repl/{pause_id}`: the next queued eval, or no eval.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum NextEval {
    Eval(EvalRequest),
    None(NoEval),
}

impl From<Option<EvalRequest>> for NextEval {
    fn from(request: Option<EvalRequest>) -> Self {
        match request {
            Some(request) => NextEval::Eval(request),
            None => NextEval::None(NoEval { eval_id: None }),
        }
    }
}

/// `POST /api/call/complete`: a `poll` action when the call pauses again after completing,
/// else `{"status": "ok"}`.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum CallCompleted {
    PausesAgain(Action),
    Done(StatusOk),
}

impl From<Option<Action>> for CallCompleted {
    fn from(action: Option<Action>) -> Self {
        match action {
            Some(action) => CallCompleted::PausesAgain(action),
            None => CallCompleted::Done(StatusOk::new()),
        }
    }
}
