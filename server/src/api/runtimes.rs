//! Runtimes (issue 19): a bash and a Python process per workspace, kept between commands.
//! Each handler is one registry call; query values are read here so a bad one is named.

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::runtimes::registry::MAX_HISTORY_PAGE;
use breakroom_debugger::runtimes::{
    ExecRequest, ExecResult, HistoryPage, RuntimeState, WorkspaceList, WorkspaceSummary,
};
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde::Deserialize;
use utoipa::IntoParams;

use super::wire::ErrorBody;
use crate::error::{ApiError, ApiResult, JsonBody};

const DEFAULT_HISTORY: u64 = 20;

#[utoipa::path(operation_id = "runtime_exec", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/runtimes/{workspace}/exec", tag = "runtimes",
    params(("workspace" = String, Path, description = "1–64 characters of A-Z a-z 0-9 . _ -")),
    request_body = ExecRequest,
    responses((status = 200, body = ExecResult, description = "the command ran (or failed, timed out, or its process died: see the fields)"),
        (status = 400, body = ErrorBody, description = "`invalid_workspace`, `missing_command`, `invalid_command`, `command_too_long`, \
            `invalid_language`, `invalid_timeout`, `invalid_idle_timeout`"),
        (status = 403, body = ErrorBody, description = "`runtimes_disabled`: a non-loopback server without --allow-runtimes"),
        (status = 409, body = ErrorBody, description = "`too_many_workspaces`")))]
pub async fn exec(
    State(debugger): State<Debugger>,
    Path(workspace): Path<String>,
    JsonBody(req): JsonBody<ExecRequest>,
) -> ApiResult<ExecResult> {
    Ok(Json(debugger.runtimes().exec(&workspace, req).await?))
}

#[utoipa::path(operation_id = "runtime_state", extensions(("x-breakroom-needs" = json!(Need::Admin))), get, path = "/api/runtimes/{workspace}/state", tag = "runtimes",
    params(("workspace" = String, Path)),
    responses((status = 200, body = RuntimeState, description = "from the live processes (none is started for it) and the history"),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn state(State(debugger): State<Debugger>, Path(workspace): Path<String>) -> ApiResult<RuntimeState> {
    Ok(Json(debugger.runtimes().state(&workspace).await?))
}

#[utoipa::path(operation_id = "runtime_reset", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/runtimes/{workspace}/reset", tag = "runtimes",
    params(("workspace" = String, Path)),
    responses((status = 200, body = WorkspaceSummary, description = "its processes ended (a running command is killed); the next command starts fresh ones"),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn reset(State(debugger): State<Debugger>, Path(workspace): Path<String>) -> ApiResult<WorkspaceSummary> {
    Ok(Json(debugger.runtimes().reset(&workspace).await?))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Newest entries to return: 20 by default, from 1 to 1,000.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1_000)]
    limit: Option<String>,
}

#[utoipa::path(operation_id = "runtime_history", extensions(("x-breakroom-needs" = json!(Need::Admin))), get, path = "/api/runtimes/{workspace}/history", tag = "runtimes",
    params(("workspace" = String, Path), HistoryQuery),
    responses((status = 200, body = HistoryPage), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn history(
    State(debugger): State<Debugger>,
    Path(workspace): Path<String>,
    Query(q): Query<HistoryQuery>,
) -> ApiResult<HistoryPage> {
    let limit = match q.limit.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        None => DEFAULT_HISTORY,
        Some(v) => v
            .parse()
            .map_err(|_| ApiError::bad_request("invalid_limit", format!("limit must be a whole number, not {v:?}")))?,
    };
    if !(1..=MAX_HISTORY_PAGE as u64).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_limit",
            format!("limit must be from 1 to {MAX_HISTORY_PAGE}, not {limit}"),
        ));
    }
    let limit = limit as usize;
    Ok(Json(debugger.runtimes().history(&workspace, limit)?))
}

#[utoipa::path(operation_id = "list_runtimes", extensions(("x-breakroom-needs" = json!(Need::Admin))), get, path = "/api/runtimes", tag = "runtimes",
    responses((status = 200, body = WorkspaceList), (status = 403, body = ErrorBody)))]
pub async fn list(State(debugger): State<Debugger>) -> ApiResult<WorkspaceList> {
    Ok(Json(debugger.runtimes().list()?))
}

#[utoipa::path(operation_id = "stop_runtime", extensions(("x-breakroom-needs" = json!(Need::Admin))), delete, path = "/api/runtimes/{workspace}", tag = "runtimes",
    params(("workspace" = String, Path)),
    responses((status = 200, body = WorkspaceSummary, description = "it left the list; its processes get `exit`, then SIGTERM, then SIGKILL after 2 s"),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn stop(State(debugger): State<Debugger>, Path(workspace): Path<String>) -> ApiResult<WorkspaceSummary> {
    Ok(Json(debugger.runtimes().stop(&workspace)?))
}
