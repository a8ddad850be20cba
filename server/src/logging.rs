//! What the server logs: every 5xx answer and every panic caught at the boundary, with the
//! request's method and path, through `tracing`. `RUST_LOG` sets the level (default `warn`);
//! with `RUST_LOG=debug` refused requests (4xx) are logged too.

use std::any::Any;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use tracing_subscriber::EnvFilter;

use crate::error::{ApiError, Failure};

/// The filter when `RUST_LOG` is unset or unreadable: failures (5xx, panics) and warnings.
const DEFAULT_FILTER: &str = "warn";

/// Sends `tracing` events to stderr (stdout carries the lines scripts read: "Server running on …").
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

/// Wraps `routes` so that a panic in a handler answers 500 JSON instead of dropping the
/// connection, and every 5xx (panics included) is logged with its method and path.
pub fn with_failure_handling(routes: Router) -> Router {
    routes.layer(CatchPanicLayer::custom(panic_response)).layer(axum::middleware::from_fn(log_failures))
}

fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let panic = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".to_string());
    ApiError::Panicked { panic }.into_response()
}

/// Logs failed requests. Only the path is logged, never the query: `?token=` may be in it.
pub async fn log_failures(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    let status = response.status();
    if status.is_server_error() {
        let failure = response.extensions().get::<Failure>().map(|f| Arc::clone(&f.0));
        let error = failure.as_deref().map(describe).unwrap_or_default();
        if status == StatusCode::GATEWAY_TIMEOUT {
            // The paused program did not answer in time: its problem, not the server's.
            tracing::warn!(%method, %path, status = status.as_u16(), %error, "request failed");
        } else {
            tracing::error!(%method, %path, status = status.as_u16(), %error, "request failed");
        }
    } else if status.is_client_error() {
        tracing::debug!(%method, %path, status = status.as_u16(), "request refused");
    }
    response
}

/// The error and everything under it: its message, then each cause in the chain with its
/// debug form (e.g. SQLite's extended result code), which the client's message leaves out.
fn describe(error: &ApiError) -> String {
    let mut text = match error {
        ApiError::Panicked { panic } => format!("panic: {panic}"),
        other => format!("{}: {other}", other.code()),
    };
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        text.push_str(&format!("; caused by {inner:?}"));
        cause = inner.source();
    }
    text
}
