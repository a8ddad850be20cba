//! Stepping (issue 30): step over/into/out/to a line from a pause, the pause's frames, the
//! frame a REPL session evaluates in, and reverse-continue. Each is one manager call.

use axum::extract::{Path, State};
use axum::Json;
use breakroom_debugger::checkpoints::model::Travel;
use breakroom_debugger::steps::{FrameIndex, FrameView, StepReply, StepRequest};
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::wire::{ErrorBody, StatusOk};
use crate::error::{ApiResult, JsonBody};

#[utoipa::path(operation_id = "step", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/paused/{pause_id}/step", tag = "browser",
    params(("pause_id" = String, Path)), request_body = StepRequest,
    responses((status = 200, body = StepReply, description = "`stopped` (within 2 s: the new pause, where it is, the session that followed) \
        or `running` (the stop comes as a `step_stopped` live event)"),
        (status = 400, body = ErrorBody, description = "`missing_kind`, `invalid_step_kind`, `missing_file`, `invalid_line`"),
        (status = 404, body = ErrorBody, description = "`pause_not_found`"),
        (status = 409, body = ErrorBody, description = "`pause_resumed`, `cannot_step_post_mortem`, `stepping_unsupported` (naming the client and language)")))]
pub async fn step(
    State(debugger): State<Debugger>,
    Path(pause_id): Path<String>,
    JsonBody(req): JsonBody<StepRequest>,
) -> ApiResult<StepReply> {
    Ok(Json(debugger.steps().step(&pause_id, req).await?))
}

#[derive(Serialize, ToSchema)]
pub struct FramesReply {
    pub pause_id: String,
    /// Innermost first; `index` is what evals, completion and the variables panel take.
    pub frames: Vec<FrameView>,
}

#[utoipa::path(operation_id = "pause_frames", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/paused/{pause_id}/frames", tag = "browser",
    params(("pause_id" = String, Path)),
    responses((status = 200, body = FramesReply), (status = 404, body = ErrorBody, description = "`pause_not_found`")))]
pub async fn frames(State(debugger): State<Debugger>, Path(pause_id): Path<String>) -> ApiResult<FramesReply> {
    let frames = debugger.steps().frames(&pause_id)?;
    Ok(Json(FramesReply { pause_id, frames }))
}

#[utoipa::path(operation_id = "reverse_continue", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/paused/{pause_id}/reverse-continue", tag = "time travel",
    params(("pause_id" = String, Path)),
    responses((status = 200, body = Travel, description = "paused again at the newest earlier breakpoint pause (not a step's) with a checkpoint"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`no_breakpoint_checkpoint`, `checkpoint_dropped`, `checkpoint_ended`, `snapshot_silent`")))]
pub async fn reverse_continue(State(debugger): State<Debugger>, Path(pause_id): Path<String>) -> ApiResult<Travel> {
    Ok(Json(debugger.checkpoints().reverse_continue(&pause_id).await?))
}

#[derive(Deserialize, ToSchema)]
pub struct FrameBody {
    /// 0 = innermost, as `GET /api/paused/{id}/frames` numbers them.
    #[schema(required = true)]
    #[serde(default)]
    frame: Option<FrameIndex>,
}

#[utoipa::path(operation_id = "select_frame", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/{session_id}/frame", tag = "repl",
    params(("session_id" = String, Path)), request_body = FrameBody,
    responses((status = 200, body = StatusOk, description = "the session's evals, completion and variables run in that frame from now on"),
        (status = 400, body = ErrorBody, description = "`invalid_frame`"), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`session_closed`")))]
pub async fn select_frame(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<FrameBody>,
) -> ApiResult<StatusOk> {
    let frame = body
        .frame
        .ok_or_else(|| breakroom_debugger::Error::invalid("invalid_frame", "frame must be a frame index from 0"))?;
    debugger.sessions().select_frame(&session_id, frame)?;
    Ok(Json(StatusOk::new()))
}
