//! REPL sessions: the browser's side (start, eval, close, list) and the paused client's side
//! (poll-repl, repl-result). PROTOCOL.md §6.

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::eval::EvalResult;
use breakroom_debugger::model::{SessionQuery, SessionStatus};
use breakroom_debugger::Debugger;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult, JsonBody};

#[derive(Deserialize)]
pub struct StartBody {
    #[serde(default)]
    pause_id: Option<String>,
}

pub async fn start(State(debugger): State<Debugger>, JsonBody(body): JsonBody<StartBody>) -> ApiResult {
    let session_id = debugger.start_session(body.pause_id.as_deref().unwrap_or(""))?;
    Ok(Json(json!({"session_id": session_id})))
}

pub async fn get(State(debugger): State<Debugger>, Path(session_id): Path<String>) -> ApiResult {
    let session = debugger
        .session(&session_id)
        .ok_or_else(|| ApiError::not_found("session_not_found", format!("no REPL session with id {session_id}")))?;
    Ok(Json(json!({"session": session})))
}

#[derive(Deserialize)]
pub struct EvalBody {
    #[serde(default)]
    expr: Option<String>,
}

pub async fn eval(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<EvalBody>,
) -> ApiResult {
    let outcome = debugger.eval(&session_id, body.expr.as_deref().unwrap_or("")).await?;
    Ok(Json(serde_json::to_value(outcome).unwrap_or_default()))
}

pub async fn close(State(debugger): State<Debugger>, Path(session_id): Path<String>) -> ApiResult {
    debugger.close_session(&session_id)?;
    Ok(Json(json!({"status": "ok"})))
}

#[derive(Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    search: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    page: Option<String>,
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

fn count_param(name: &str, value: Option<&str>) -> Result<usize, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(0),
        Some(v) => v.parse::<usize>().map_err(|_| {
            ApiError::bad_request("invalid_pagination", format!("{name} must be a positive integer, not {v:?}"))
        }),
    }
}

pub async fn list(State(debugger): State<Debugger>, Query(q): Query<ListQuery>) -> ApiResult {
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
    let page = debugger.list_sessions(&query);
    Ok(Json(json!({"sessions": page.sessions, "total": page.total, "page": page.page, "per_page": page.per_page})))
}

pub async fn next_eval(State(debugger): State<Debugger>, Path(pause_id): Path<String>) -> Json<Value> {
    Json(match debugger.next_eval(&pause_id) {
        Some(request) => serde_json::to_value(request).unwrap_or_default(),
        None => json!({"eval_id": null}),
    })
}

pub async fn submit_result(State(debugger): State<Debugger>, JsonBody(result): JsonBody<EvalResult>) -> ApiResult {
    debugger.submit_eval_result(result)?;
    Ok(Json(json!({"status": "ok"})))
}
