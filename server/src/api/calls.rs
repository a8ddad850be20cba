//! The debug client's call lifecycle: start, poll, complete, events (PROTOCOL.md §5.4–5.12).

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use breakroom_debugger::call::{CallComplete, CallStart};
use breakroom_debugger::pause::ResumeRequest;
use breakroom_debugger::Debugger;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult, JsonBody};

pub async fn start(State(debugger): State<Debugger>, JsonBody(req): JsonBody<CallStart>) -> ApiResult {
    let reply = debugger.start_call(req)?;
    Ok(Json(serde_json::to_value(reply).unwrap_or_default()))
}

#[derive(Deserialize)]
pub struct PollQuery {
    /// Breakroom's client sets this to take a ready eval with the poll (one round trip).
    #[serde(default)]
    evals: Option<String>,
}

pub async fn poll(
    State(debugger): State<Debugger>,
    Path(pause_id): Path<String>,
    Query(q): Query<PollQuery>,
) -> Json<Value> {
    let take_eval = matches!(q.evals.as_deref(), Some("1" | "true"));
    let reply = debugger.poll(&pause_id, take_eval).await;
    Json(serde_json::to_value(reply).unwrap_or_default())
}

pub async fn complete(State(debugger): State<Debugger>, JsonBody(req): JsonBody<CallComplete>) -> ApiResult {
    Ok(Json(match debugger.complete_call(req)? {
        Some(action) => serde_json::to_value(action).unwrap_or_default(),
        None => json!({"status": "ok"}),
    }))
}

pub async fn event(State(debugger): State<Debugger>, JsonBody(event): JsonBody<Value>) -> ApiResult {
    let has_number = |key: &str| event.get(key).is_some_and(Value::is_number);
    if !has_number("process_pid") || !has_number("process_start_time") {
        return Err(breakroom_debugger::Error::MissingProcessIdentity.into());
    }
    for (cid, data, format) in [
        ("result_cid", "result_data", "result_serialization_format"),
        ("exception_cid", "exception_data", "exception_serialization_format"),
    ] {
        if let (Some(cid), Some(data)) =
            (event.get(cid).and_then(Value::as_str), event.get(data).and_then(Value::as_str))
        {
            debugger.store_value(cid, data, event.get(format).and_then(Value::as_str))?;
        }
    }
    debugger.record_event(event);
    Ok(Json(json!({"status": "ok"})))
}

pub async fn paused(State(debugger): State<Debugger>) -> Json<Value> {
    Json(json!({"paused": debugger.paused_protocol_view()}))
}

pub async fn resume(
    State(debugger): State<Debugger>,
    Path(pause_id): Path<String>,
    JsonBody(req): JsonBody<ResumeRequest>,
) -> Result<Response, ApiError> {
    match debugger.resume(&pause_id, req) {
        // Resuming twice is harmless for the client; answer as the reference server does.
        Ok(_) | Err(breakroom_debugger::Error::PauseResumed(_)) => {
            Ok((StatusCode::OK, Json(json!({"status": "ok", "pause_id": pause_id}))).into_response())
        }
        Err(e) => Err(e.into()),
    }
}

pub async fn report_com_error(State(debugger): State<Debugger>, JsonBody(report): JsonBody<Value>) -> Json<Value> {
    debugger.report_com_error(report);
    Json(json!({"status": "ok"}))
}

pub async fn com_errors(State(debugger): State<Debugger>) -> Json<Value> {
    Json(json!({"errors": debugger.com_errors()}))
}
