//! The JSON bodies the API answers with. Handlers return these types, and the OpenAPI
//! document is generated from them, so the two cannot drift apart.

use std::collections::BTreeMap;

use breakroom_debugger::eval::EvalRequest;
use breakroom_debugger::model::ReplSession;
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

#[derive(Serialize, ToSchema)]
pub struct StatusOk {
    /// Always `ok`.
    pub status: &'static str,
}

impl StatusOk {
    pub fn new() -> Self {
        StatusOk { status: "ok" }
    }
}

#[derive(Serialize, ToSchema)]
pub struct BreakpointList {
    pub breakpoints: Vec<String>,
    /// Before-call behaviour per breakpoint: `stop`, `go` or `yield`.
    pub breakpoint_behaviors: BTreeMap<String, String>,
    /// After-call behaviour per breakpoint: `stop`, `go`, `yield`, `exception` or `stop_exception`.
    pub breakpoint_after_behaviors: BTreeMap<String, String>,
    pub breakpoint_replacements: BTreeMap<String, String>,
    pub global_behavior: String,
}

#[derive(Serialize, ToSchema)]
pub struct BreakpointChanged {
    pub status: &'static str,
    pub function_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behavior: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct ReplacementSet {
    pub status: &'static str,
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

#[derive(Serialize, ToSchema)]
pub struct GlobalBehavior {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'static str>,
    /// `stop`, `go`, `yield`, `stop_after` or `stop_exception`.
    pub behavior: String,
}

#[derive(Serialize, ToSchema)]
pub struct FunctionList {
    pub functions: Vec<String>,
    pub function_signatures: BTreeMap<String, Option<String>>,
    pub function_metadata: BTreeMap<String, Value>,
}

#[derive(Serialize, ToSchema)]
pub struct FunctionRegistered {
    pub status: &'static str,
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
    pub status: &'static str,
    pub pause_id: String,
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
    /// Sessions matching the filters, over all pages.
    pub total: usize,
    pub page: usize,
    pub per_page: usize,
}

/// `/api/poll-repl/{pause_id}` when no eval is queued.
#[derive(Serialize, ToSchema)]
pub struct NoEval {
    pub eval_id: Option<String>,
}

/// `POST /api/call/event`: any JSON object that names its process; values sent along with it
/// (`result_cid`/`result_data`, `exception_cid`/`exception_data`) go to the CID store.
#[derive(ToSchema)]
#[allow(dead_code)] // describes the body; the handler keeps it as JSON
pub struct CallEventBody {
    pub process_pid: f64,
    pub process_start_time: f64,
    pub result_cid: Option<String>,
    #[schema(format = Byte)]
    pub result_data: Option<String>,
    #[schema(pattern = "^(dill|json)$")]
    pub result_serialization_format: Option<String>,
    pub exception_cid: Option<String>,
    #[schema(format = Byte)]
    pub exception_data: Option<String>,
    #[schema(pattern = "^(dill|json)$")]
    pub exception_serialization_format: Option<String>,
}

/// `GET /api/poll-repl/{pause_id}`: the next queued eval, or no eval.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum NextEval {
    Eval(EvalRequest),
    None(NoEval),
}
