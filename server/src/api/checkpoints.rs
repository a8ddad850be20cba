//! Time travel (issue 20): step back, checkpoints, rewind, branches, timeline, diff; and the two
//! doors the debug client uses (reporting a checkpoint, a checkpoint process's held poll).

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::checkpoints::model::{
    BranchDiff, Checkpoint, CheckpointReport, HoldReply, NameRequest, StepBackRequest, Timeline, Travel,
};
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::wire::ErrorBody;
use crate::error::{ApiError, ApiResult, JsonBody};

#[utoipa::path(operation_id = "step_back", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/paused/{pause_id}/step-back", tag = "time travel",
    params(("pause_id" = String, Path)), request_body = Option<StepBackRequest>,
    responses((status = 200, body = Travel, description = "the program is paused again at the checkpoint's call; `pause_id` is the new pause"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`no_checkpoint` (with the reason), `checkpoint_dropped`, `checkpoint_ended`, `snapshot_silent`")))]
pub async fn step_back(
    State(debugger): State<Debugger>,
    Path(pause_id): Path<String>,
    JsonBody(req): JsonBody<StepBackRequest>,
) -> ApiResult<Travel> {
    Ok(Json(debugger.checkpoints().step_back(&pause_id, req).await?))
}

#[utoipa::path(operation_id = "process_timeline", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/processes/{id}/timeline", tag = "time travel",
    params(("id" = String, Path)),
    responses((status = 200, body = Timeline), (status = 404, body = ErrorBody)))]
pub async fn timeline(State(debugger): State<Debugger>, Path(id): Path<String>) -> ApiResult<Timeline> {
    Ok(Json(debugger.checkpoints().timeline(&id)?))
}

#[utoipa::path(operation_id = "newest_process_with_checkpoints", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/checkpoints/newest-process", tag = "time travel",
    responses((status = 200, body = Value, description = "`process_id`: the process whose newest checkpoint is the newest of all"),
        (status = 404, body = ErrorBody, description = "`no_checkpoints`")))]
pub async fn newest_process(State(debugger): State<Debugger>) -> ApiResult<Value> {
    Ok(Json(serde_json::json!({"process_id": debugger.checkpoints().newest_process_with_checkpoints()?})))
}

#[utoipa::path(operation_id = "create_checkpoint", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/processes/{id}/checkpoints", tag = "time travel",
    params(("id" = String, Path)), request_body = Option<NameRequest>,
    responses((status = 200, body = Checkpoint, description = "the paused program forked a checkpoint, named `label`"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`checkpoints_off`, `not_paused`, `checkpoint_refused`, `not_polling` (its program is not waiting at the pause: answered at once), `snapshot_silent`")))]
pub async fn create(
    State(debugger): State<Debugger>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<NameRequest>,
) -> ApiResult<Checkpoint> {
    Ok(Json(debugger.checkpoints().create_checkpoint(&id, req.label.or(req.name)).await?))
}

#[utoipa::path(operation_id = "rewind", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/checkpoints/{id}/rewind", tag = "time travel",
    params(("id" = String, Path)),
    responses((status = 200, body = Travel, description = "the live line was killed; the checkpoint's call is paused again"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn rewind(State(debugger): State<Debugger>, Path(id): Path<String>) -> ApiResult<Travel> {
    Ok(Json(debugger.checkpoints().rewind(&id).await?))
}

#[utoipa::path(operation_id = "branch", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/checkpoints/{id}/branch", tag = "time travel",
    params(("id" = String, Path)), request_body = Option<NameRequest>,
    responses((status = 200, body = Travel, description = "a new live branch at the checkpoint; the line left stays paused"),
        (status = 400, body = ErrorBody, description = "`invalid_branch_name`"), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`branch_exists`, `checkpoint_dropped`, `checkpoint_ended`, `snapshot_silent`")))]
pub async fn branch(
    State(debugger): State<Debugger>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<NameRequest>,
) -> ApiResult<Travel> {
    Ok(Json(debugger.checkpoints().branch_at(&id, req.name.as_deref()).await?))
}

#[utoipa::path(operation_id = "switch_branch", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/processes/{id}/branches/{name}/switch", tag = "time travel",
    params(("id" = String, Path), ("name" = String, Path)),
    responses((status = 200, body = Travel), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`branch_empty`, `snapshot_silent`")))]
pub async fn switch(State(debugger): State<Debugger>, Path((id, name)): Path<(String, String)>) -> ApiResult<Travel> {
    Ok(Json(debugger.checkpoints().switch_branch(&id, &name).await?))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DiffQuery {
    /// One branch's name.
    #[param(value_type = String)]
    a: Option<String>,
    /// The other branch's name.
    #[param(value_type = String)]
    b: Option<String>,
}

#[utoipa::path(operation_id = "branch_diff", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/processes/{id}/branches/diff", tag = "time travel",
    params(("id" = String, Path), DiffQuery),
    responses((status = 200, body = BranchDiff), (status = 400, body = ErrorBody, description = "`missing_branch`"),
        (status = 404, body = ErrorBody)))]
pub async fn diff(
    State(debugger): State<Debugger>,
    Path(id): Path<String>,
    Query(q): Query<DiffQuery>,
) -> ApiResult<BranchDiff> {
    let name = |v: Option<String>, which: &str| {
        v.filter(|n| !n.trim().is_empty())
            .ok_or_else(|| ApiError::bad_request("missing_branch", format!("{which}= names a branch to compare")))
    };
    let (a, b) = (name(q.a, "a")?, name(q.b, "b")?);
    Ok(Json(debugger.checkpoints().branch_diff(&id, &a, &b)?))
}

#[utoipa::path(operation_id = "report_checkpoint", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/checkpoints", tag = "client", request_body = CheckpointReport,
    responses((status = 200, body = Object, description = "`{\"checkpoint_id\"}`, or `{\"status\": \"refused\"}` for a refusal"),
        (status = 400, body = ErrorBody, description = "`missing_pause_id`, `missing_pid`, `invalid_pid` (not a child of the paused program)"),
        (status = 404, body = ErrorBody)))]
pub async fn report(State(debugger): State<Debugger>, JsonBody(req): JsonBody<CheckpointReport>) -> ApiResult<Value> {
    Ok(Json(debugger.checkpoints().report_checkpoint(req)?))
}

#[utoipa::path(operation_id = "hold_checkpoint", extensions(("x-breakroom-needs" = json!(Need::Program))), get, path = "/api/checkpoints/{id}/hold", tag = "client",
    params(("id" = String, Path)),
    responses((status = 200, body = HoldReply, description = "held up to 25 s; `wake` orders a fork into the live line"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "dropped or ended: the checkpoint's process exits")))]
pub async fn hold(State(debugger): State<Debugger>, Path(id): Path<String>) -> ApiResult<HoldReply> {
    Ok(Json(debugger.checkpoints().hold_checkpoint(&id).await?))
}
