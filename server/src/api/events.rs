//! The event log over HTTP (the session recording): what `breakroom export` prints, for tools and
//! the REPL page's download link.

use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use breakroom_debugger::model::RecordedEvent;
use breakroom_debugger::store::EventSelection;
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::query;
use super::wire::ErrorBody;
use crate::error::ApiError;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventQuery {
    /// Only this REPL session's events.
    session_id: Option<String>,
    /// Only this process's events (`{start_time}+{pid}`).
    process_key: Option<String>,
    /// Start at this sequence number.
    #[param(value_type = Option<i64>)]
    from_sequence: Option<String>,
    /// `json` (default) or `jsonl`: one event per line, as `breakroom export` writes and
    /// `breakroom replay FILE` reads.
    #[param(pattern = "^(json|jsonl)?$")]
    format: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct EventList {
    events: Vec<RecordedEvent>,
}

#[utoipa::path(operation_id = "list_events", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/events", tag = "browser", params(EventQuery),
    responses((status = 200, description = "the events in sequence order",
            content((EventList = "application/json"), (String = "application/x-ndjson"))),
        (status = 400, body = ErrorBody)))]
pub async fn list(State(debugger): State<Debugger>, Query(q): Query<EventQuery>) -> Result<Response, ApiError> {
    let selection = EventSelection {
        session_id: query::text(q.session_id),
        process_key: query::text(q.process_key),
        from_sequence: query::sequence("from_sequence", q.from_sequence.as_deref())?.unwrap_or(0),
    };
    let jsonl = match q.format.as_deref().map(str::trim) {
        None | Some("") | Some("json") => false,
        Some("jsonl") => true,
        Some(other) => {
            return Err(ApiError::bad_request(
                "invalid_format",
                format!("format must be 'json' or 'jsonl', not {other:?}"),
            ))
        }
    };
    let events = debugger.events(&selection)?;
    if !jsonl {
        return Ok(Json(EventList { events }).into_response());
    }
    let mut body = String::new();
    for event in &events {
        body.push_str(&serde_json::to_string(event).unwrap_or_default());
        body.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson; charset=utf-8")], body).into_response())
}
