//! `/process/{id}/timeline` (issue 20): a process's branches and checkpoints as a picture, served
//! as plain HTML (no wasm: its buttons are forms posting to server functions).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use breakroom_debugger::Debugger;

use breakroom_app::render::{esc, time_travel};

pub async fn page(State(debugger): State<Debugger>, Path(id): Path<String>) -> Response {
    let (status, title, main) = match (debugger.tracked_process(&id), debugger.timeline(&id)) {
        (Ok(detail), Ok(timeline)) => (
            StatusCode::OK,
            format!("Timeline · {}", detail.process.name),
            time_travel::timeline(&detail.process.name, &timeline),
        ),
        (Err(e), _) | (_, Err(e)) => (
            StatusCode::from_u16(e.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "Timeline".to_string(),
            format!(r#"<section class="empty"><p>{}</p></section>"#, esc(&e.to_string())),
        ),
    };
    let html = format!(
        concat!(
            r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">"#,
            r#"<link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>{title} · Breakroom</title>"#,
            r#"<link rel="stylesheet" href="/pkg/breakroom.css"></head><body><header class="topbar"><a href="/" class="brand">Breakroom</a>"#,
            r#"<nav><a href="/">Paused</a><a href="/repls">Sessions</a><a href="/processes">Processes</a><a href="/call-tree">Call trees</a>"#,
            r#"<a href="/runtimes">Runtimes</a></nav></header><main class="timeline-page">{main}</main></body></html>"#
        ),
        title = esc(&title),
        main = main
    );
    (status, Html(html)).into_response()
}
