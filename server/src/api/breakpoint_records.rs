//! Breakpoints of every kind by id (issue 18): `POST /api/breakpoints` with a `kind`,
//! `PATCH`/`DELETE /api/breakpoints/{id}`, `DELETE /api/breakpoints`, and the two routes a
//! running program uses: the change channel it holds and the hits it reports. `GET` and the
//! cideldill forms of `POST`/`DELETE` are in `breakpoints.rs`, which calls into here.

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::breakpoints::hit_reports::HitReport;
use breakroom_debugger::breakpoints::record::{BreakpointPatch, BreakpointRecord, BreakpointSpec};
use breakroom_debugger::breakpoints::Follower;
use breakroom_debugger::interrupts::Interrupt;
use breakroom_debugger::users::Need;
use breakroom_debugger::{BreakpointSnapshot, Debugger};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::query;
use super::wire::{ErrorBody, OkStatus, StatusOk};
use crate::error::ApiError;
use crate::error::{ApiResult, JsonBody};

/// A breakpoint added or changed: `status` and the record (with its `id`).
#[derive(Serialize, ToSchema)]
pub struct BreakpointSaved {
    pub status: OkStatus,
    #[serde(flatten)]
    pub breakpoint: BreakpointRecord,
}

/// Breakpoints cleared.
#[derive(Serialize, ToSchema)]
pub struct BreakpointsCleared {
    pub status: OkStatus,
    pub removed: usize,
}

pub fn add(debugger: &Debugger, spec: &BreakpointSpec) -> ApiResult<BreakpointSaved> {
    let breakpoint = debugger.breakpoints().add_breakpoint_record(spec)?;
    Ok(Json(BreakpointSaved { status: OkStatus::Ok, breakpoint }))
}

#[utoipa::path(operation_id = "update_breakpoint", extensions(("x-breakroom-needs" = json!(Need::Debugger))), patch, path = "/api/breakpoints/{name}", tag = "breakpoints", request_body = BreakpointPatch,
    params(("name" = String, Path, description = "the breakpoint's id (`bp-N`)")),
    responses((status = 200, body = BreakpointSaved), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn update(
    State(debugger): State<Debugger>,
    Path(id): Path<String>,
    JsonBody(changes): JsonBody<BreakpointPatch>,
) -> ApiResult<BreakpointSaved> {
    let breakpoint = debugger.breakpoints().update_breakpoint_record(&id, &changes)?;
    Ok(Json(BreakpointSaved { status: OkStatus::Ok, breakpoint }))
}

#[utoipa::path(operation_id = "clear_breakpoints", extensions(("x-breakroom-needs" = json!(Need::Debugger))), delete, path = "/api/breakpoints", tag = "breakpoints",
    responses((status = 200, body = BreakpointsCleared)))]
pub async fn clear(State(debugger): State<Debugger>) -> ApiResult<BreakpointsCleared> {
    let removed = debugger.breakpoints().clear_breakpoints()?;
    Ok(Json(BreakpointsCleared { status: OkStatus::Ok, removed }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChangesQuery {
    /// The version the program has: the answer waits (up to 25 s) until there is another.
    /// Without it, the breakpoints are answered at once.
    #[param(value_type = Option<String>, pattern = "^[0-9]*$")]
    since: Option<String>,
    /// The program's pid and start time, both or neither: it follows the breakpoints (line
    /// breakpoints reach it).
    #[param(value_type = Option<String>, pattern = "^[0-9]+$")]
    process_pid: Option<String>,
    #[param(value_type = Option<String>, pattern = "^[0-9]+(\\.[0-9]*)?$")]
    process_start_time: Option<String>,
    /// The program's main thread ident: what an interrupt without a thread pauses.
    #[param(value_type = Option<String>, pattern = "^[0-9]+$")]
    main_thread: Option<String>,
    /// The program's process record (sent when it first asks): its host,
    /// `BREAKROOM_PROCESS_ID` when Breakroom launched it, and its argv as a JSON array.
    hostname: Option<String>,
    process_id: Option<String>,
    argv: Option<String>,
    /// Its parent pid (`os.getppid()`), and `helper` for a library's own process (issue 33).
    #[param(value_type = Option<String>, pattern = "^[0-9]+$")]
    parent_pid: Option<String>,
    role: Option<String>,
    /// Its labels as a JSON object (`{"service": "api"}`): breakpoints whose `where` they do
    /// not match are left out of the answer (issue 34).
    labels: Option<String>,
}

/// Every breakpoint at a version.
#[derive(Serialize, ToSchema)]
pub struct BreakpointChanges {
    pub version: u64,
    pub breakpoints: Vec<BreakpointRecord>,
    /// Pause orders for the program asking: each names a thread to pause at its next line.
    pub interrupts: Vec<Interrupt>,
    /// Task lists asked of the program (issue 51): it answers each on `POST /api/task-lists`.
    pub task_asks: Vec<String>,
    /// Orders for one task of the program (issue 51): it answers each on `POST /api/task-orders`.
    pub task_orders: Vec<breakroom_debugger::interrupts::TaskOrder>,
    /// The redaction rules and places not debugged: the program applies them before it sends
    /// anything (issue 50). A client that does not know this field ignores it.
    pub policy: breakroom_debugger::policy::PolicyWire,
}

#[utoipa::path(operation_id = "breakpoint_changes", extensions(("x-breakroom-needs" = json!(Need::Program))), get, path = "/api/breakpoint-changes", tag = "client", params(ChangesQuery),
    responses((status = 200, body = BreakpointChanges), (status = 400, body = ErrorBody)))]
pub async fn changes(State(debugger): State<Debugger>, Query(q): Query<ChangesQuery>) -> ApiResult<BreakpointChanges> {
    let since = query::count("since", q.since.as_deref())?.map(|n| n as u64);
    let pid = query::number::<i64>("process_pid", q.process_pid.as_deref())?;
    let start = query::number::<f64>("process_start_time", q.process_start_time.as_deref())?;
    if start.is_some_and(|s| !s.is_finite()) {
        return Err(ApiError::bad_request("invalid_process_identity", "process_start_time must be a finite number"));
    }
    if pid.is_some() != start.is_some() {
        return Err(ApiError::bad_request(
            "invalid_process_identity",
            "process_pid and process_start_time name a program together: give both, or neither",
        ));
    }
    let main_thread = query::number::<i64>("main_thread", q.main_thread.as_deref())?;
    let parent_pid = query::number::<i64>("parent_pid", q.parent_pid.as_deref())?;
    let argv = match q.argv.as_deref() {
        None => None,
        Some(text) => Some(serde_json::from_str::<Vec<String>>(text).map_err(|e| {
            crate::error::ApiError::bad_request("invalid_argv", format!("argv must be a JSON array of strings: {e}"))
        })?),
    };
    let labels = match q.labels.as_deref().filter(|l| !l.is_empty()) {
        None => None,
        Some(text) => Some(serde_json::from_str::<std::collections::BTreeMap<String, String>>(text).map_err(|e| {
            crate::error::ApiError::bad_request(
                "invalid_labels",
                format!("labels must be a JSON object of label → text: {e}"),
            )
        })?),
    };
    let follower = pid.zip(start).map(|(pid, start_time)| Follower {
        pid,
        start_time,
        main_thread,
        host: q.hostname.filter(|h| !h.is_empty()),
        process_id: q.process_id.filter(|p| !p.is_empty()),
        argv,
        parent_pid,
        role: q.role.as_deref().and_then(breakroom_debugger::processes::ProcessRole::reported),
        labels,
    });
    let BreakpointSnapshot { version, breakpoints, interrupts, task_asks, task_orders, policy } =
        debugger.calls().breakpoint_changes(since, follower).await;
    Ok(Json(BreakpointChanges { version, breakpoints, interrupts, task_asks, task_orders, policy }))
}

#[utoipa::path(operation_id = "report_breakpoint_hit", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/breakpoint-hits", tag = "client", request_body = HitReport,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody)))]
pub async fn report_hit(
    State(debugger): State<Debugger>,
    JsonBody(report): JsonBody<HitReport>,
) -> ApiResult<StatusOk> {
    debugger.calls().report_breakpoint_hit(report)?;
    Ok(Json(StatusOk::new()))
}
