//! `/process/{id}/timeline` (issue 20): a process's branches and checkpoints as a picture, served
//! as plain HTML (no wasm: its buttons are forms posting to server functions).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use breakroom_debugger::Debugger;

use breakroom_app::render::{shell, time_travel};

pub async fn page(
    State(debugger): State<Debugger>,
    caller: Option<axum::Extension<crate::access::Caller>>,
    Path(id): Path<String>,
) -> Response {
    let role = caller.map(|axum::Extension(c)| c.identity.holder.label());
    let (status, title, main) = match (debugger.processes().tracked_process(&id), debugger.checkpoints().timeline(&id))
    {
        (Ok(detail), Ok(timeline)) => (
            StatusCode::OK,
            format!("Timeline · {}", detail.process.name),
            time_travel::timeline(&detail.process.name, &timeline),
        ),
        (Err(e), _) | (_, Err(e)) => (
            StatusCode::from_u16(e.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "Timeline".to_string(),
            shell::empty(&e.to_string()),
        ),
    };
    (status, Html(shell::page_for(role, &title, "timeline-page", main))).into_response()
}
