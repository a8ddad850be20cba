//! REPL sessions: the browser's side (start, eval, close, list) and the paused client's side
//! (poll-repl, repl-result). PROTOCOL.md §6.

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::eval::EvalResult;
use breakroom_debugger::model::{EvalOutcome, ReplSession};
use breakroom_debugger::model::{SessionQuery, SessionStatus};
use breakroom_debugger::Debugger;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::wire::{ErrorBody, NextEval, NoEval, SessionList, SessionReply, SessionStarted, StatusOk};
use crate::error::{ApiError, ApiResult, JsonBody};

#[derive(Deserialize, ToSchema)]
pub struct StartBody {
    #[schema(value_type = String, required = true, pattern = "\\S")]
    #[serde(default)]
    pause_id: Option<String>,
}

#[utoipa::path(operation_id = "start_session", post, path = "/api/repl/start", tag = "repl", request_body = StartBody,
    responses((status = 200, body = SessionStarted), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "unknown pause"), (status = 409, body = ErrorBody, description = "the pause was resumed")))]
pub async fn start(State(debugger): State<Debugger>, JsonBody(body): JsonBody<StartBody>) -> ApiResult<SessionStarted> {
    let session_id = debugger.start_session(body.pause_id.as_deref().unwrap_or(""))?;
    Ok(Json(SessionStarted { session_id }))
}

#[utoipa::path(operation_id = "get_session", get, path = "/api/repl/{session_id}", tag = "repl", params(("session_id" = String, Path)),
    responses((status = 200, body = SessionReply), (status = 404, body = ErrorBody)))]
pub async fn get(State(debugger): State<Debugger>, Path(session_id): Path<String>) -> ApiResult<SessionReply> {
    let session: ReplSession = debugger
        .session(&session_id)?
        .ok_or_else(|| ApiError::not_found("session_not_found", format!("no REPL session with id {session_id}")))?;
    Ok(Json(SessionReply { session }))
}

#[derive(Deserialize, ToSchema)]
pub struct EvalBody {
    /// Python source: an expression, statements, or a whole block.
    #[schema(value_type = String, required = true, pattern = "\\S")]
    #[serde(default)]
    expr: Option<String>,
}

#[utoipa::path(operation_id = "eval_in_session", post, path = "/api/repl/{session_id}/eval", tag = "repl", request_body = EvalBody,
    params(("session_id" = String, Path)),
    responses((status = 200, body = EvalOutcome, description = "waits until the paused client has evaluated"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`session_closed`"), (status = 504, body = ErrorBody, description = "`eval_timeout`")))]
pub async fn eval(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<EvalBody>,
) -> ApiResult<EvalOutcome> {
    Ok(Json(debugger.eval(&session_id, body.expr.as_deref().unwrap_or("")).await?))
}

#[utoipa::path(operation_id = "close_session", post, path = "/api/repl/{session_id}/close", tag = "repl", params(("session_id" = String, Path)),
    responses((status = 200, body = StatusOk, description = "also when already closed"), (status = 404, body = ErrorBody)))]
pub async fn close(State(debugger): State<Debugger>, Path(session_id): Path<String>) -> ApiResult<StatusOk> {
    debugger.close_session(&session_id)?;
    Ok(Json(StatusOk::new()))
}

/// Filters of the session list; all optional.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Case-insensitive text in the function name or the transcript.
    #[serde(default)]
    search: Option<String>,
    /// `active`, `closed` or `all` (the default).
    #[param(pattern = "^(|all|active|closed)$")]
    #[serde(default)]
    status: Option<String>,
    /// Started at or after, epoch seconds.
    #[param(value_type = Option<String>, pattern = "^\\s*([+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?)?\\s*$")]
    #[serde(default)]
    from: Option<String>,
    /// Started at or before, epoch seconds.
    #[param(value_type = Option<String>, pattern = "^\\s*([+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?)?\\s*$")]
    #[serde(default)]
    to: Option<String>,
    /// 1-based page (default 1).
    #[param(value_type = Option<String>, pattern = "^[0-9]*$")]
    #[serde(default)]
    page: Option<String>,
    /// Sessions per page (default 50, at most 500).
    #[param(value_type = Option<String>, pattern = "^[0-9]*$")]
    #[serde(default)]
    per_page: Option<String>,
}

fn timestamp_param(name: &str, value: Option<&str>) -> Result<Option<f64>, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => v.parse::<f64>().ok().filter(|f| f.is_finite()).map(Some).ok_or_else(|| {
            ApiError::bad_request("invalid_timestamp", format!("{name} must be epoch seconds, not {v:?}"))
        }),
    }
}

pub(super) fn count_param(name: &str, value: Option<&str>) -> Result<usize, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(0),
        // Past usize::MAX is still "everything": saturate rather than refuse.
        Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(v.parse::<usize>().unwrap_or(usize::MAX))
        }
        Some(v) => v.parse::<usize>().map_err(|_| {
            ApiError::bad_request("invalid_pagination", format!("{name} must be a positive integer, not {v:?}"))
        }),
    }
}

#[utoipa::path(operation_id = "list_sessions", get, path = "/api/repl/sessions", tag = "repl", params(ListQuery),
    responses((status = 200, body = SessionList), (status = 400, body = ErrorBody)))]
pub async fn list(State(debugger): State<Debugger>, Query(q): Query<ListQuery>) -> ApiResult<SessionList> {
    let status = SessionStatus::parse(q.status.as_deref().unwrap_or("").trim())
        .ok_or_else(|| ApiError::bad_request("invalid_status", "status must be 'active' or 'closed'"))?;
    let query = SessionQuery {
        search: q.search,
        status,
        from: timestamp_param("from", q.from.as_deref())?,
        to: timestamp_param("to", q.to.as_deref())?,
        page: count_param("page", q.page.as_deref())?,
        per_page: count_param("per_page", q.per_page.as_deref())?,
    };
    let page = debugger.list_sessions(&query)?;
    Ok(Json(SessionList { sessions: page.sessions, total: page.total, page: page.page, per_page: page.per_page }))
}

#[utoipa::path(operation_id = "next_eval", get, path = "/api/poll-repl/{pause_id}", tag = "client", params(("pause_id" = String, Path)),
    responses((status = 200, body = NextEval, description = "the next queued eval, or `{\"eval_id\": null}`")))]
pub async fn next_eval(State(debugger): State<Debugger>, Path(pause_id): Path<String>) -> Json<NextEval> {
    Json(match debugger.next_eval(&pause_id) {
        Some(request) => NextEval::Eval(request),
        None => NextEval::None(NoEval { eval_id: None }),
    })
}

#[utoipa::path(operation_id = "submit_eval_result", post, path = "/api/call/repl-result", tag = "client", request_body = EvalResult,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the session closed while the eval ran: the result is dropped")))]
pub async fn submit_result(
    State(debugger): State<Debugger>,
    JsonBody(result): JsonBody<EvalResult>,
) -> ApiResult<StatusOk> {
    debugger.submit_eval_result(result)?;
    Ok(Json(StatusOk::new()))
}
