//! Attach to a running Python process by pid (issue 33), and the Python processes of this
//! machine one could attach to. Each handler is one debugger call.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use breakroom_debugger::attach::local::LocalPythonProcesses;
use breakroom_debugger::attach::{AttachRequest, Attached};
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;

use super::wire::ErrorBody;
use crate::error::{ApiError, ApiResult, JsonBody};

#[utoipa::path(operation_id = "attach_process", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/processes/attach", tag = "processes",
    request_body = AttachRequest,
    responses((status = 202, body = Attached, description = "the client is in and has called in; the process is listed"),
        (status = 400, body = ErrorBody, description = "`invalid_pid`, `invalid_timeout`"),
        (status = 403, body = ErrorBody, description = "`ptrace_denied` (why, and how to allow it), `attach_disabled` (a server beyond loopback without --allow-attach)"),
        (status = 404, body = ErrorBody, description = "`no_such_process`"),
        (status = 409, body = ErrorBody, description = "`already_debugged`, `attach_failed`"),
        (status = 422, body = ErrorBody, description = "`not_python`, `unsupported_python`, `unsupported_platform`, `remote_debugging_disabled`"),
        (status = 504, body = ErrorBody, description = "`attach_timeout`: where the main thread is")))]
pub async fn attach(
    State(debugger): State<Debugger>,
    JsonBody(request): JsonBody<AttachRequest>,
) -> Result<(StatusCode, Json<Attached>), ApiError> {
    Ok((StatusCode::ACCEPTED, Json(debugger.attach().process(request).await?)))
}

#[utoipa::path(operation_id = "local_python_processes", extensions(("x-breakroom-needs" = json!(Need::Admin))), get, path = "/api/local-processes", tag = "processes",
    responses((status = 200, body = LocalPythonProcesses, description = "Python processes of this machine: pid, user, version, argv, attachable or why not")))]
pub async fn local(State(debugger): State<Debugger>) -> ApiResult<LocalPythonProcesses> {
    Ok(Json(debugger.attach().local_python().await))
}

/// A Python child a debugged program started where Breakroom cannot follow it.
#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct NotFollowed {
    /// The parent's identity, as its calls give it.
    process_pid: i64,
    process_start_time: f64,
    /// The child's pid and command line.
    pid: i64,
    #[serde(default)]
    argv: Vec<String>,
    /// Why it cannot follow (`env=` without Breakroom's variables, `python -I`).
    reason: String,
}

#[utoipa::path(operation_id = "child_not_followed", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/processes/not-followed", tag = "client",
    request_body = NotFollowed,
    responses((status = 201, body = breakroom_debugger::processes::TrackedProcess, description = "listed under its parent"),
        (status = 204, description = "the parent is not known here"), (status = 400, body = ErrorBody)))]
pub async fn not_followed(
    State(debugger): State<Debugger>,
    JsonBody(child): JsonBody<NotFollowed>,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let parent = (child.process_pid, child.process_start_time);
    Ok(match debugger.processes().child_not_followed(parent, child.pid, child.argv, child.reason)? {
        Some(process) => (StatusCode::CREATED, Json(process)).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}
