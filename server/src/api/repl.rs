//! REPL sessions: the browser's side (start, eval, close, list) and the paused client's side
//! (poll-repl, repl-result). docs/src/protocol.md §6.

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::eval::EvalResult;
use breakroom_debugger::model::EvalOutcome;
use breakroom_debugger::model::{SessionQuery, SessionStatus};
use breakroom_debugger::users::Need;
use breakroom_debugger::{Debugger, Error};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::query;
use super::wire::{ErrorBody, NextEval, SessionList, SessionReply, SessionStarted, StatusOk};
use crate::error::{ApiError, ApiResult, JsonBody};

#[derive(Deserialize, ToSchema)]
pub struct StartBody {
    #[schema(value_type = String, required = true, pattern = "\\S")]
    #[serde(default)]
    pause_id: Option<String>,
}

#[utoipa::path(operation_id = "start_session", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/start", tag = "repl", request_body = StartBody,
    responses((status = 200, body = SessionStarted), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "unknown pause"), (status = 409, body = ErrorBody, description = "the pause was resumed")))]
pub async fn start(State(debugger): State<Debugger>, JsonBody(body): JsonBody<StartBody>) -> ApiResult<SessionStarted> {
    let pause_id = body.pause_id.unwrap_or_default();
    let session_id = debugger.off_workers(move |d| d.sessions().start_session(&pause_id)).await?;
    Ok(Json(SessionStarted { session_id }))
}

#[utoipa::path(operation_id = "get_session", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/repl/{session_id}", tag = "repl", params(("session_id" = String, Path)),
    responses((status = 200, body = SessionReply), (status = 404, body = ErrorBody)))]
pub async fn get(State(debugger): State<Debugger>, Path(session_id): Path<String>) -> ApiResult<SessionReply> {
    let session = debugger.sessions().session(&session_id)?.ok_or(Error::SessionNotFound(session_id))?;
    Ok(Json(SessionReply { session }))
}

#[derive(Deserialize, ToSchema)]
pub struct EvalBody {
    /// Python source: an expression, statements, or a whole block.
    #[schema(value_type = String, required = true, pattern = "\\S")]
    #[serde(default)]
    expr: Option<String>,
    /// The stack frame to evaluate in (0 = innermost); absent: the session's selected frame.
    #[serde(default)]
    frame: Option<breakroom_debugger::steps::FrameIndex>,
}

#[utoipa::path(operation_id = "eval_in_session", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/{session_id}/eval", tag = "repl", request_body = EvalBody,
    params(("session_id" = String, Path)),
    responses((status = 200, body = EvalOutcome, description = "waits until the paused client has evaluated"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`session_closed`"), (status = 504, body = ErrorBody, description = "`eval_timeout`")))]
pub async fn eval(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<EvalBody>,
) -> ApiResult<EvalOutcome> {
    Ok(Json(debugger.sessions().eval_in_frame(&session_id, body.expr.as_deref().unwrap_or(""), body.frame).await?))
}

#[utoipa::path(operation_id = "close_session", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/{session_id}/close", tag = "repl", params(("session_id" = String, Path)),
    responses((status = 200, body = StatusOk, description = "also when already closed"), (status = 404, body = ErrorBody)))]
pub async fn close(State(debugger): State<Debugger>, Path(session_id): Path<String>) -> ApiResult<StatusOk> {
    debugger.off_workers(move |d| d.sessions().close_session(&session_id)).await?;
    Ok(Json(StatusOk::new()))
}

/// Filters of the session list; all optional.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Case-insensitive text in the function name or the transcript.
    #[serde(default)]
    search: Option<String>,
    /// `active`, `closed` or `all` (the default; blank is `all` too).
    #[param(value_type = Option<SessionStatus>, inline)]
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

#[utoipa::path(operation_id = "list_sessions", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/repl/sessions", tag = "repl", params(ListQuery),
    responses((status = 200, body = SessionList), (status = 400, body = ErrorBody)))]
pub async fn list(State(debugger): State<Debugger>, Query(q): Query<ListQuery>) -> ApiResult<SessionList> {
    let status = SessionStatus::parse(q.status.as_deref().unwrap_or("").trim())
        .ok_or_else(|| ApiError::bad_request("invalid_status", "status must be 'active' or 'closed'"))?;
    let filters = SessionQuery {
        search: q.search,
        status,
        from: query::timestamp("from", q.from.as_deref())?,
        to: query::timestamp("to", q.to.as_deref())?,
        // 0 asks for the defaults (`session::DEFAULT_PER_PAGE`).
        page: query::count("page", q.page.as_deref())?.unwrap_or(0),
        per_page: query::count("per_page", q.per_page.as_deref())?.unwrap_or(0),
    };
    let page = debugger.sessions().list_sessions(&filters)?;
    Ok(Json(SessionList {
        sessions: page.sessions,
        total: page.total,
        total_is_lower_bound: page.total_is_lower_bound,
        page: page.page,
        per_page: page.per_page,
    }))
}

#[utoipa::path(operation_id = "next_eval", extensions(("x-breakroom-needs" = json!(Need::Program))), get, path = "/api/poll-repl/{pause_id}", tag = "client", params(("pause_id" = String, Path)),
    responses((status = 200, body = NextEval, description = "the next queued eval, or `{\"eval_id\": null}`")))]
pub async fn next_eval(
    State(debugger): State<Debugger>,
    caller: Option<axum::Extension<crate::access::Caller>>,
    Path(pause_id): Path<String>,
) -> ApiResult<NextEval> {
    crate::access::check_pause_owner(&debugger, caller.as_ref().map(|c| &c.0), &pause_id)?;
    Ok(Json(debugger.sessions().next_eval(&pause_id).into()))
}

#[utoipa::path(operation_id = "submit_eval_result", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/call/repl-result", tag = "client", request_body = EvalResult,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the session closed while the eval ran: the result is dropped")))]
pub async fn submit_result(
    State(debugger): State<Debugger>,
    caller: Option<axum::Extension<crate::access::Caller>>,
    JsonBody(result): JsonBody<EvalResult>,
) -> ApiResult<StatusOk> {
    if let Some(pause_id) = &result.pause_id {
        crate::access::check_pause_owner(&debugger, caller.as_ref().map(|c| &c.0), pause_id)?;
    }
    debugger.sessions().submit_eval_result(result)?;
    Ok(Json(StatusOk::new()))
}
