//! The debug client's call lifecycle: start, poll, complete, events (docs/src/protocol.md §5.4–5.12).

use breakroom_debugger::users::Need;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, Query, State};
use axum::{Extension, Json};
use breakroom_debugger::call_reports::CallStartReply;
use breakroom_debugger::calls::{CallComplete, CallStart, ClientEvent, ComErrorReport};
use breakroom_debugger::eval::EvalResult;
use breakroom_debugger::model::StoredValue;
use breakroom_debugger::pauses::ResumeRequest;
use breakroom_debugger::{Debugger, PollReply};
use serde::Deserialize;
use utoipa::IntoParams;

use super::wire::{CallCompleted, ComErrors, ErrorBody, OkStatus, PausedList, Resumed, StatusOk};
use crate::access::Caller;
use crate::error::{ApiResult, JsonBody};

#[utoipa::path(operation_id = "call_start", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/call/start", tag = "client", request_body = CallStart,
    responses((status = 200, body = CallStartReply, description = "what the client does now: `continue`, `poll`, `replace`, …"),
        (status = 400, body = ErrorBody, description = "`cid_not_found` (with `missing_cids`), `cid_mismatch`, missing identity, …")))]
pub async fn start(
    State(debugger): State<Debugger>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    caller: Option<Extension<Caller>>,
    JsonBody(mut req): JsonBody<CallStart>,
) -> ApiResult<CallStartReply> {
    req.from_loopback = peer.is_some_and(|Extension(ConnectInfo(addr))| addr.ip().is_loopback());
    let reply = debugger.calls().start_call(req)?;
    // The pause it made belongs to this credential's process from now on.
    if let (Some(Extension(caller)), breakroom_debugger::calls::Action::Poll { poll_url, .. }) =
        (&caller, &reply.action)
    {
        if let Some(pause_id) = poll_url.rsplit('/').next() {
            crate::access::check_pause_owner(&debugger, Some(caller), pause_id)?;
        }
    }
    Ok(Json(reply))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PollQuery {
    /// Breakroom's client sets this to `1` to take a queued eval with the poll (one round trip).
    #[serde(default)]
    evals: Option<String>,
}

impl PollQuery {
    fn take_eval(&self) -> bool {
        matches!(self.evals.as_deref(), Some("1" | "true"))
    }
}

#[utoipa::path(operation_id = "poll_pause", extensions(("x-breakroom-needs" = json!(Need::Program))), get, path = "/api/poll/{pause_id}", tag = "client",
    params(("pause_id" = String, Path), PollQuery),
    responses((status = 200, body = PollReply,
        description = "held until a resume action, a queued eval or ~25 s; unknown ids answer `waiting`")))]
pub async fn poll(
    State(debugger): State<Debugger>,
    caller: Option<Extension<Caller>>,
    Path(pause_id): Path<String>,
    Query(q): Query<PollQuery>,
) -> ApiResult<PollReply> {
    crate::access::check_pause_owner(&debugger, caller.as_ref().map(|c| &c.0), &pause_id)?;
    Ok(Json(debugger.pauses().poll(&pause_id, q.take_eval()).await))
}

#[utoipa::path(operation_id = "answer_and_poll", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/poll/{pause_id}", tag = "client", request_body = EvalResult,
    params(("pause_id" = String, Path), PollQuery),
    responses((status = 200, body = PollReply,
        description = "Breakroom's client: the answer to an eval (a `/api/call/repl-result` body) is recorded, then the \
            request is held like `GET /api/poll/{pause_id}`"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody, description = "`session_not_found`, `eval_not_found`"),
        (status = 409, body = ErrorBody, description = "the session closed while the eval ran: the answer is dropped")))]
pub async fn answer_and_poll(
    State(debugger): State<Debugger>,
    caller: Option<Extension<Caller>>,
    Path(pause_id): Path<String>,
    Query(q): Query<PollQuery>,
    JsonBody(result): JsonBody<EvalResult>,
) -> ApiResult<PollReply> {
    crate::access::check_pause_owner(&debugger, caller.as_ref().map(|c| &c.0), &pause_id)?;
    Ok(Json(debugger.pauses().answer_and_poll(&pause_id, result, q.take_eval()).await?))
}

#[utoipa::path(operation_id = "call_complete", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/call/complete", tag = "client", request_body = Option<CallComplete>,
    responses((status = 200, body = CallCompleted, description = "`{\"status\": \"ok\"}`, or a `poll` action when the call pauses after completing"),
        (status = 400, body = ErrorBody)))]
pub async fn complete(
    State(debugger): State<Debugger>,
    JsonBody(req): JsonBody<CallComplete>,
) -> ApiResult<CallCompleted> {
    Ok(Json(debugger.calls().complete_call(req)?.into()))
}

#[utoipa::path(operation_id = "call_event", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/call/event", tag = "client", request_body = ClientEvent,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody, description = "no `process_pid`/`process_start_time`")))]
pub async fn event(State(debugger): State<Debugger>, JsonBody(event): JsonBody<ClientEvent>) -> ApiResult<StatusOk> {
    debugger.calls().record_event(event)?;
    Ok(Json(StatusOk::new()))
}

#[utoipa::path(operation_id = "list_paused", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/paused", tag = "browser", responses((status = 200, body = PausedList)))]
pub async fn paused(State(debugger): State<Debugger>) -> ApiResult<PausedList> {
    Ok(Json(PausedList { paused: debugger.pauses().paused_protocol_view()? }))
}

#[utoipa::path(operation_id = "resume_pause", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/paused/{pause_id}/continue", tag = "browser", request_body = Option<ResumeRequest>,
    params(("pause_id" = String, Path)),
    responses((status = 200, body = Resumed, description = "also when the pause was already resumed"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn resume(
    State(debugger): State<Debugger>,
    Path(pause_id): Path<String>,
    JsonBody(req): JsonBody<ResumeRequest>,
) -> ApiResult<Resumed> {
    let checkpoint = debugger.checkpoints().checkpoint_on_continue(&pause_id);
    let id = pause_id.clone();
    match debugger.off_workers(move |d| d.pauses().continue_pause(&id, req)).await {
        // The debug-client protocol answers success for a pause it does not know (docs/src/protocol.md §9).
        Ok(_) | Err(breakroom_debugger::Error::PauseNotFound(_)) => {
            Ok(Json(Resumed { status: OkStatus::Ok, pause_id, checkpoint }))
        }
        Err(e) => Err(e.into()),
    }
}

#[utoipa::path(operation_id = "report_com_error", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/report-com-error", tag = "client", request_body = Option<ComErrorReport>,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody)))]
pub async fn report_com_error(
    State(debugger): State<Debugger>,
    JsonBody(report): JsonBody<ComErrorReport>,
) -> ApiResult<StatusOk> {
    debugger.calls().report_com_error(report)?;
    Ok(Json(StatusOk::new()))
}

#[utoipa::path(operation_id = "list_com_errors", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/com-errors", tag = "browser", responses((status = 200, body = ComErrors)))]
pub async fn com_errors(State(debugger): State<Debugger>) -> ApiResult<ComErrors> {
    Ok(Json(ComErrors { errors: debugger.calls().com_errors()? }))
}

#[utoipa::path(get, operation_id = "get_stored_value", extensions(("x-breakroom-needs" = json!(Need::Viewer))), path = "/api/objects/{cid}", tag = "browser",
    params(("cid" = String, Path, description = "SHA-512 hex of the serialized bytes")),
    responses((status = 200, body = StoredValue), (status = 404, body = ErrorBody)))]
pub async fn stored_value(State(debugger): State<Debugger>, Path(cid): Path<String>) -> ApiResult<StoredValue> {
    Ok(Json(debugger.function_breakpoints().stored_value(&cid)?))
}
