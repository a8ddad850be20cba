//! Snapshots (issue 34): `POST /api/snapshots` from a program whose snapshot breakpoint was hit,
//! `GET /api/snapshots` and `GET /api/snapshots/{id}` for pages, tools and agents.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use breakroom_debugger::snapshots::methods::{SnapshotKept, SnapshotTaken};
use breakroom_debugger::snapshots::{Snapshot, SnapshotFilter, SnapshotSummary};
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::query;
use super::wire::ErrorBody;
use crate::error::{ApiError, JsonBody};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SnapshotQuery {
    /// Only this breakpoint's snapshots (`bp-N`).
    breakpoint_id: Option<String>,
    /// Only this tracked process's snapshots.
    process_id: Option<String>,
    /// Older than this snapshot (`snap-N`): the next page.
    before: Option<String>,
    /// Newer than this snapshot (`snap-N`): what came since a list was read. Still newest first,
    /// so when more than `limit` came, the newest `limit` of them.
    after: Option<String>,
    /// At most this many (default 50).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500)]
    limit: Option<String>,
}

/// Snapshots, newest first.
#[derive(Serialize, ToSchema)]
pub struct SnapshotList {
    pub snapshots: Vec<SnapshotSummary>,
}

#[utoipa::path(operation_id = "list_snapshots", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/snapshots", tag = "snapshots", params(SnapshotQuery),
    responses((status = 200, body = SnapshotList), (status = 400, body = ErrorBody)))]
pub async fn list(
    State(debugger): State<Debugger>,
    Query(q): Query<SnapshotQuery>,
) -> Result<Json<SnapshotList>, ApiError> {
    let cursor = |name: &str, code: &'static str, value: Option<String>| match query::text(value) {
        Some(id) if !breakroom_debugger::snapshots::is_snapshot_id(&id) => {
            Err(ApiError::bad_request(code, format!("{name} is a snapshot id (snap-N), not {id:?}")))
        }
        id => Ok(id),
    };
    let filter = SnapshotFilter {
        breakpoint_id: query::text(q.breakpoint_id),
        process_id: query::text(q.process_id),
        before: cursor("before", "invalid_before", q.before)?,
        after: cursor("after", "invalid_after", q.after)?,
        limit: match query::count("limit", q.limit.as_deref())? {
            None => 50,
            Some(n @ 1..=500) => n,
            Some(n) => return Err(ApiError::bad_request("invalid_limit", format!("limit is from 1 to 500, not {n}"))),
        },
    };
    Ok(Json(SnapshotList { snapshots: debugger.snapshots().list(&filter)? }))
}

#[utoipa::path(operation_id = "get_snapshot", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/snapshots/{id}", tag = "snapshots",
    params(("id" = String, Path, description = "the snapshot's id (`snap-N`)")),
    responses((status = 200, body = Snapshot), (status = 404, body = ErrorBody)))]
pub async fn get(State(debugger): State<Debugger>, Path(id): Path<String>) -> Result<Json<Snapshot>, ApiError> {
    Ok(Json(debugger.snapshots().get(&id)?))
}

#[utoipa::path(operation_id = "take_snapshot", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/snapshots", tag = "client", request_body = SnapshotTaken,
    responses((status = 201, body = SnapshotKept), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "breakpoint_finished: it kept its max_hits or expired")))]
pub async fn take(
    State(debugger): State<Debugger>,
    JsonBody(sent): JsonBody<SnapshotTaken>,
) -> Result<(StatusCode, Json<SnapshotKept>), ApiError> {
    Ok((StatusCode::CREATED, Json(debugger.snapshots().take(sent)?)))
}
