//! The REPL page's helpers: completion (Jupyter's complete_request) and the variables panel.
//! Answered by the paused program from its live frame, never recorded in the transcript.

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::eval::VariablePath;
use breakroom_debugger::steps::FrameIndex;
use breakroom_debugger::users::Need;
use breakroom_debugger::{Debugger, Error};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::wire::ErrorBody;
use crate::error::{ApiResult, JsonBody};

#[derive(Deserialize, ToSchema)]
pub struct CompleteBody {
    /// The REPL input.
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    code: Option<String>,
    /// Cursor position in code points (Jupyter's); the end of `code` when absent.
    #[serde(default)]
    cursor_pos: Option<usize>,
    /// The stack frame to complete in (0 = innermost); the session's selected frame when absent.
    #[serde(default)]
    frame: Option<usize>,
}

/// Jupyter's `complete_reply`: `matches` replace `code[cursor_start..cursor_end]`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct CompleteReply {
    #[serde(default)]
    pub status: String,
    pub matches: Vec<String>,
    pub cursor_start: usize,
    pub cursor_end: usize,
    pub metadata: CompleteMetadata,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct CompleteMetadata {
    /// One per match: `function`, `class`, `module`, `keyword`, `property`, `instance`, `key`, …
    #[serde(default)]
    pub types: Vec<String>,
    /// The 200 ms budget ran out: these are the matches found until then.
    #[serde(default)]
    pub timed_out: bool,
    /// Per match: start, end, text, type, signature (IPython's shape).
    #[schema(value_type = Vec<Object>)]
    #[serde(default, rename = "_jupyter_types_experimental")]
    pub jupyter_types_experimental: Value,
}

/// The program answered in a shape we do not know: a 502, not a panic.
fn shaped<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::ClientFailed(format!("unexpected answer: {e}")))
}

#[utoipa::path(operation_id = "complete_in_session", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/{session_id}/complete", tag = "repl",
    request_body = CompleteBody, params(("session_id" = String, Path)),
    responses((status = 200, body = CompleteReply, description = "completions from the paused frame; no user code runs"),
        (status = 400, body = ErrorBody, description = "`missing_code`, `cursor_out_of_range`, `invalid_frame`"), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`session_closed`"),
        (status = 502, body = ErrorBody, description = "`client_failed`: the program could not answer"),
        (status = 504, body = ErrorBody, description = "`eval_timeout`: the program is busy")))]
pub async fn complete(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<CompleteBody>,
) -> ApiResult<CompleteReply> {
    let code = body.code.ok_or(Error::MissingField { code: "missing_code", field: "code" })?;
    Ok(Json(shaped(
        debugger.sessions().complete(&session_id, &code, body.cursor_pos, body.frame.map(FrameIndex)).await?,
    )?))
}

/// One row of the variables panel.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct VariableEntry {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
    /// Bounded; a placeholder when the repr raised or took too long.
    pub repr: String,
    pub expandable: bool,
    /// What `…/variables/expand` takes to open this row.
    #[schema(value_type = Vec<Vec<Object>>)]
    pub path: Value,
    /// REPL text for this value, when there is a plain one.
    #[serde(default)]
    pub expression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// `local` or `session` (top-level rows only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// A call argument's value as it was stored at the call (`/object/{cid}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cid: Option<String>,
    /// Its value has a richer form (a table, a picture): `…/variables/view` shows it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub viewable: bool,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct VariablesReply {
    pub variables: Vec<VariableEntry>,
    /// The panel's time budget ran out: later rows show a placeholder repr.
    #[serde(default)]
    pub timed_out: bool,
    /// How many values were replaced by `[redacted]` (issue 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<usize>,
    /// Why nothing of this frame is listed: its code is not debugged (`--no-debug`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
}

/// `?frame=N`: the stack frame (0 = innermost); the session's selected frame when absent.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FrameQuery {
    #[serde(default)]
    frame: Option<usize>,
}

#[utoipa::path(operation_id = "session_variables", extensions(("x-breakroom-needs" = json!(Need::Debugger))), get, path = "/api/repl/{session_id}/variables", tag = "repl",
    params(("session_id" = String, Path), FrameQuery),
    responses((status = 200, body = VariablesReply, description = "the frame's locals, then the session's own names"),
        (status = 400, body = ErrorBody, description = "`invalid_frame`"), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "`session_closed`"),
        (status = 502, body = ErrorBody), (status = 504, body = ErrorBody)))]
pub async fn variables(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    Query(query): Query<FrameQuery>,
) -> ApiResult<VariablesReply> {
    Ok(Json(shaped(debugger.sessions().variables(&session_id, query.frame.map(FrameIndex)).await?)?))
}

#[derive(Deserialize, ToSchema)]
pub struct ExpandBody {
    /// A row's `path`: `[["var", name], then ["attr", name] or ["item", index]…]`.
    #[schema(required = true)]
    #[serde(default)]
    path: Option<VariablePath>,
    /// First child to list (100 at a time).
    #[serde(default)]
    offset: Option<usize>,
    /// The stack frame the path starts in (0 = innermost); the session's selected frame when absent.
    #[serde(default)]
    frame: Option<usize>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct ExpandReply {
    #[schema(value_type = Vec<Vec<Object>>)]
    pub path: Value,
    pub children: Vec<VariableEntry>,
    pub count: usize,
    pub offset: usize,
    pub truncated: bool,
    /// How many values were replaced by `[redacted]` (issue 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<usize>,
    /// Why nothing of this frame is listed: its code is not debugged (`--no-debug`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
}

#[utoipa::path(operation_id = "expand_variable", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/{session_id}/variables/expand", tag = "repl",
    request_body = ExpandBody, params(("session_id" = String, Path)),
    responses((status = 200, body = ExpandReply, description = "one level of children; attributes read statically"),
        (status = 400, body = ErrorBody, description = "`invalid_path`"), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 502, body = ErrorBody), (status = 504, body = ErrorBody)))]
pub async fn expand(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<ExpandBody>,
) -> ApiResult<ExpandReply> {
    let path = body.path.ok_or_else(VariablePath::refusal)?;
    Ok(Json(shaped(
        debugger.sessions().expand(&session_id, &path, body.offset.unwrap_or(0), body.frame.map(FrameIndex)).await?,
    )?))
}

#[derive(Deserialize, ToSchema)]
pub struct WatchBody {
    /// Python expressions, read-only as a snapshot breakpoint's are (at most 20).
    #[schema(required = true)]
    #[serde(default)]
    expressions: Option<Vec<String>>,
    /// The stack frame to read them in (0 = innermost); the session's selected frame when absent.
    #[serde(default)]
    frame: Option<FrameIndex>,
}

#[utoipa::path(operation_id = "watch_in_session", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/{session_id}/watch", tag = "repl",
    request_body = WatchBody, params(("session_id" = String, Path)),
    responses((status = 200, body = breakroom_debugger::snapshots::WatchList,
            description = "each expression's value, or why it has none (it would write, it raised, it would run the program's code); never recorded"),
        (status = 400, body = ErrorBody, description = "`missing_expr`, `too_many_watches`, `watch_too_long`, `invalid_frame`"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "`session_closed`"),
        (status = 502, body = ErrorBody), (status = 504, body = ErrorBody)))]
pub async fn watch(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<WatchBody>,
) -> ApiResult<breakroom_debugger::snapshots::WatchList> {
    let expressions =
        body.expressions.ok_or(Error::MissingField { code: "missing_expressions", field: "expressions" })?;
    Ok(Json(debugger.snapshots().watch(&session_id, &expressions, body.frame).await?))
}
