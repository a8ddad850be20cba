//! `/snapshots` and `/snapshots/{id}` (issue 34): what snapshot breakpoints captured, served as
//! plain HTML like the timeline. They are not Leptos routes on purpose: a route adds to the wasm
//! every page shares, and `/repl/{id}` is at its size budget already. The list's live refresh is
//! `public/snapshots.js`, which fetches `?fragment=1` (the list alone) on `breakpoints_changed`.

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use breakroom_debugger::snapshots::SnapshotFilter;
use breakroom_debugger::Debugger;
use serde::Deserialize;

use breakroom_app::render::{shell, snapshot, snapshots};

/// Snapshots a page shows unless `limit` says otherwise.
const PAGE: usize = 100;

#[derive(Debug, Default, Deserialize)]
pub struct ListParams {
    #[serde(default)]
    breakpoint_id: Option<String>,
    #[serde(default)]
    process_id: Option<String>,
    #[serde(default)]
    before: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    /// `1`: only the list (what the page's script swaps in).
    #[serde(default)]
    fragment: Option<String>,
}

/// An empty parameter (a form's "every breakpoint") is no filter.
fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

pub async fn list(State(debugger): State<Debugger>, Query(params): Query<ListParams>) -> Response {
    let query = snapshots::ListQuery {
        breakpoint_id: given(&params.breakpoint_id),
        process_id: given(&params.process_id),
        limit: params.limit.unwrap_or(PAGE).clamp(1, 500),
    };
    let filter = SnapshotFilter {
        breakpoint_id: query.breakpoint_id.map(str::to_string),
        process_id: query.process_id.map(str::to_string),
        before: given(&params.before).map(str::to_string),
        limit: query.limit,
    };
    let found = match debugger.snapshots().list(&filter) {
        Ok(found) => found,
        Err(e) => return failure(&e, "Snapshots", "snapshots-page"),
    };
    let records = debugger.breakpoints().breakpoint_records();
    let now = breakroom_debugger::ids::now();
    if given(&params.fragment).is_some() {
        let html = snapshots::list_fragment(&records, &found, &query, now).into_string();
        // The script fetches it again on every change: a cached copy would show stale counts.
        return ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response();
    }
    let title = match query.breakpoint_id {
        Some(id) => format!("Snapshots · {id}"),
        None => "Snapshots".to_string(),
    };
    let main = snapshots::snapshots_page(&records, &found, &query, now);
    Html(shell::page(&title, "snapshots-page", main)).into_response()
}

pub async fn detail(State(debugger): State<Debugger>, Path(id): Path<String>) -> Response {
    match debugger.snapshots().get(&id) {
        Ok(found) => {
            let title = format!("Snapshot · {}", found.snapshot_id);
            Html(shell::page(&title, "snapshot-page", snapshot::snapshot_page(&found))).into_response()
        }
        Err(e) => failure(&e, "Snapshot", "snapshot-page"),
    }
}

/// The debugger's error as a page with its status (404 for an unknown snapshot).
fn failure(e: &breakroom_debugger::Error, title: &str, class: &str) -> Response {
    let status = StatusCode::from_u16(e.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Html(shell::page(title, class, shell::empty(&e.to_string())))).into_response()
}
