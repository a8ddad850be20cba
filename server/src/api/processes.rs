//! Tracked processes: launch one, list them, read a launched one's output, stop it, forget it.
//! Each handler is one debugger call; query values are read here so a bad one is named.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use breakroom_debugger::interrupts::{Interrupt, TaskOrderDone, TaskOrderReport, TaskReport, TaskView};
use breakroom_debugger::processes::{
    LaunchRequest, OutputPage, OutputStream, ProcessDetail, ProcessList, TrackedProcess,
};
use breakroom_debugger::users::Need;
use breakroom_debugger::{Debugger, Error};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::wire::{ErrorBody, StatusOk};
use crate::error::{ApiError, ApiResult, JsonBody};

/// Most lines one output request returns.
const MAX_LINES: usize = 10_000;
const DEFAULT_LINES: usize = 1_000;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `true` (or `1`): every record in history, not only running and recently finished ones.
    #[param(value_type = Option<String>, pattern = "^(|true|false|1|0)$")]
    all: Option<String>,
}

#[utoipa::path(operation_id = "list_processes", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/processes", tag = "processes", params(ListQuery),
    responses((status = 200, body = ProcessList), (status = 400, body = ErrorBody)))]
pub async fn list(State(debugger): State<Debugger>, Query(q): Query<ListQuery>) -> ApiResult<ProcessList> {
    let all = match q.all.as_deref().map(str::trim) {
        None | Some("") | Some("false") | Some("0") => false,
        Some("true") | Some("1") => true,
        Some(other) => {
            return Err(ApiError::bad_request("invalid_all", format!("all must be true or false, not {other:?}")))
        }
    };
    Ok(Json(ProcessList { processes: debugger.processes().tracked_processes(all) }))
}

#[utoipa::path(operation_id = "launch_process", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/processes", tag = "processes", request_body = LaunchRequest,
    responses((status = 200, body = TrackedProcess, description = "started; output and exit follow on /api/live"),
        (status = 400, body = ErrorBody,
            description = "`missing_command`, `empty_command`, `cwd_not_found`, `cwd_not_a_directory`, `invalid_env`, \
                `command_not_found`, `command_not_executable`, `launch_failed` (the last three leave a `crashed` record)")))]
pub async fn launch(
    State(debugger): State<Debugger>,
    JsonBody(req): JsonBody<LaunchRequest>,
) -> ApiResult<TrackedProcess> {
    Ok(Json(debugger.processes().launch_process(req)?))
}

#[utoipa::path(operation_id = "get_process", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/processes/{id}", tag = "processes", params(("id" = String, Path)),
    responses((status = 200, body = ProcessDetail), (status = 404, body = ErrorBody)))]
pub async fn get(State(debugger): State<Debugger>, Path(id): Path<String>) -> ApiResult<ProcessDetail> {
    Ok(Json(debugger.processes().tracked_process(&id)?))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OutputQuery {
    /// `stdout` or `stderr`; both, merged in order, when absent.
    #[param(value_type = Option<String>, pattern = "^(|stdout|stderr)$")]
    stream: Option<String>,
    /// First line to return (`seq`); 0 by default. Page on with the answer's `next`.
    #[param(value_type = Option<u64>, maximum = 9_223_372_036_854_775_807_i64)]
    from: Option<String>,
    /// Most lines to return: 1,000 by default, from 1 to 10,000.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 10_000)]
    limit: Option<String>,
}

/// A whole number from the query, at most 2^63 - 1 (what the stores hold); a bad one answers
/// 400 `code` (`invalid_from`, `invalid_limit`).
fn number(name: &str, code: &'static str, value: Option<&str>, default: u64) -> Result<u64, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(default),
        Some(v) => v.parse::<i64>().ok().and_then(|n| u64::try_from(n).ok()).ok_or_else(|| {
            ApiError::bad_request(code, format!("{name} must be a whole number from 0 to 2^63 - 1, not {v:?}"))
        }),
    }
}

#[utoipa::path(operation_id = "process_output", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/processes/{id}/output", tag = "processes",
    params(("id" = String, Path), OutputQuery),
    responses((status = 200, body = OutputPage), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn output(
    State(debugger): State<Debugger>,
    Path(id): Path<String>,
    Query(q): Query<OutputQuery>,
) -> ApiResult<OutputPage> {
    let stream = match q.stream.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(name) => Some(OutputStream::parse(name).ok_or_else(|| {
            ApiError::bad_request("invalid_stream", format!("stream must be stdout or stderr, not {name:?}"))
        })?),
    };
    let from = number("from", "invalid_from", q.from.as_deref(), 0)?;
    let limit = number("limit", "invalid_limit", q.limit.as_deref(), DEFAULT_LINES as u64)?;
    // Refused rather than cut to the range: the caller would not know it got fewer than asked.
    if !(1..=MAX_LINES as u64).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_limit",
            format!("limit must be from 1 to {MAX_LINES}, not {limit}"),
        ));
    }
    let limit = limit as usize;
    Ok(Json(debugger.processes().process_output(&id, stream, from, limit).await?))
}

#[utoipa::path(operation_id = "stop_process", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/processes/{id}/stop", tag = "processes", params(("id" = String, Path)),
    responses((status = 200, body = TrackedProcess, description = "SIGTERM sent (SIGKILL follows after 2 s); the exit follows on /api/live"),
        (status = 400, body = ErrorBody, description = "a connected client on another host"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "`process_ended`")))]
pub async fn stop(State(debugger): State<Debugger>, Path(id): Path<String>) -> ApiResult<TrackedProcess> {
    Ok(Json(debugger.processes().stop_process(&id)?))
}

#[utoipa::path(operation_id = "forget_process", extensions(("x-breakroom-needs" = json!(Need::Admin))), delete, path = "/api/processes/{id}", tag = "processes", params(("id" = String, Path)),
    responses((status = 200, body = StatusOk), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`process_running`: stop it first")))]
pub async fn forget(State(debugger): State<Debugger>, Path(id): Path<String>) -> ApiResult<StatusOk> {
    debugger.processes().forget_process(&id)?;
    Ok(Json(StatusOk::new()))
}

/// `POST /api/processes/{id}/interrupt`: which thread (none: the main thread).
#[derive(Deserialize, ToSchema, Default)]
pub struct InterruptRequest {
    /// The thread's ident, as `threading.get_ident()` gives it and a pause's `thread.id` says.
    #[schema(value_type = Option<i64>)]
    thread: Option<serde_json::Value>,
}

#[utoipa::path(operation_id = "interrupt_process", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/processes/{id}/interrupt", tag = "processes", params(("id" = String, Path)),
    request_body(content = InterruptRequest, description = "optional"),
    responses((status = 202, body = Interrupt, description = "asked: the pause follows on /api/live (`stop.kind` `interrupt`)"),
        (status = 400, body = ErrorBody, description = "`invalid_thread`"), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`process_ended`, or `cannot_interrupt`: the program does not follow Breakroom's breakpoint channel")))]
pub async fn interrupt(
    State(debugger): State<Debugger>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<InterruptRequest>,
) -> Result<(StatusCode, Json<Interrupt>), ApiError> {
    let thread = match request.thread {
        None | Some(serde_json::Value::Null) => None,
        Some(value) => Some(value.as_i64().ok_or_else(|| {
            Error::invalid("invalid_thread", format!("thread must be a thread ident (an integer), not {value}"))
        })?),
    };
    Ok((StatusCode::ACCEPTED, Json(debugger.interrupts().ask(&id, thread)?)))
}

/// `GET /api/processes/{id}/tasks`.
#[derive(Serialize, ToSchema)]
pub struct TaskList {
    /// Every asyncio task of every loop in the process.
    pub tasks: Vec<TaskView>,
}

#[utoipa::path(operation_id = "list_tasks", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/processes/{id}/tasks", tag = "processes", params(("id" = String, Path)),
    responses((status = 200, body = TaskList, description = "read by the program without stopping its loops"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`process_ended`, `cannot_list_tasks` (no breakpoint channel) or `program_not_answering`")))]
pub async fn tasks(State(debugger): State<Debugger>, Path(id): Path<String>) -> ApiResult<TaskList> {
    Ok(Json(TaskList { tasks: debugger.interrupts().list_tasks(&id).await? }))
}

#[utoipa::path(operation_id = "report_tasks", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/task-lists", tag = "client", request_body = TaskReport,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody, description = "`unknown_task_ask`")))]
pub async fn report_tasks(
    State(debugger): State<Debugger>,
    JsonBody(report): JsonBody<TaskReport>,
) -> ApiResult<StatusOk> {
    debugger.interrupts().report_tasks(report)?;
    Ok(Json(StatusOk::new()))
}

#[utoipa::path(operation_id = "pause_task", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/processes/{id}/tasks/{task_id}/pause", tag = "processes",
    params(("id" = String, Path), ("task_id" = String, Path, description = "the task's id, as the task list gives it")),
    responses((status = 200, body = TaskOrderDone, description = "held where it waits, its loop running on: `outcome` `suspended`, and the `pause_id` to continue, step or evaluate in"),
        (status = 400, body = ErrorBody, description = "`invalid_task_id`: not an id the task list gives"),
        (status = 404, body = ErrorBody, description = "no such process, or `task_not_found`"),
        (status = 409, body = ErrorBody, description = "`process_ended`, `task_paused` (already), `task_finished`, `loop_blocked` (its loop's thread did not come round), `task_not_pausable`, `cannot_pause_tasks` (no breakpoint channel) or `program_not_answering`")))]
pub async fn pause_task(
    State(debugger): State<Debugger>,
    Path((id, task_id)): Path<(String, String)>,
) -> ApiResult<TaskOrderDone> {
    Ok(Json(debugger.interrupts().pause_task(&id, &task_id).await?))
}

#[utoipa::path(operation_id = "cancel_task", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/processes/{id}/tasks/{task_id}/cancel", tag = "processes",
    params(("id" = String, Path), ("task_id" = String, Path, description = "the task's id, as the task list gives it")),
    responses((status = 200, body = TaskOrderDone, description = "cancelled from the task's own loop: `outcome` `cancelled` (it finished) or `cancelling` (it still runs, catching it)"),
        (status = 400, body = ErrorBody, description = "`invalid_task_id`: not an id the task list gives"),
        (status = 404, body = ErrorBody, description = "no such process, or `task_not_found`"),
        (status = 409, body = ErrorBody, description = "`process_ended`, `task_paused` (continue its pause instead), `task_finished`, `cannot_cancel_tasks` (no breakpoint channel) or `program_not_answering`")))]
pub async fn cancel_task(
    State(debugger): State<Debugger>,
    Path((id, task_id)): Path<(String, String)>,
) -> ApiResult<TaskOrderDone> {
    Ok(Json(debugger.interrupts().cancel_task(&id, &task_id).await?))
}

#[utoipa::path(operation_id = "report_task_order", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/task-orders", tag = "client", request_body = TaskOrderReport,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody, description = "`unknown_task_order`")))]
pub async fn report_task_order(
    State(debugger): State<Debugger>,
    JsonBody(report): JsonBody<TaskOrderReport>,
) -> ApiResult<StatusOk> {
    debugger.interrupts().report_task_order(report)?;
    Ok(Json(StatusOk::new()))
}
