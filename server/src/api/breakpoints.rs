//! Breakpoints, behaviours and registered functions (docs/src/protocol.md §5.1–5.3, §9.1).

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::breakpoints::by_name::{
    behavior_field, lenient_behavior, AfterBehavior, Behavior, BehaviorName, FunctionRegistration, GlobalBehavior,
};
use breakroom_debugger::breakpoints::record::BreakpointSpec;
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::breakpoint_records::{self, BreakpointSaved};
use super::query;
use super::wire::{
    AfterBehaviorSet, BehaviorSet, BreakpointChanged, BreakpointHistory, BreakpointList, ErrorBody, FunctionList,
    FunctionRegistered, GlobalBehaviorSetting, OkStatus, ReplacementSet,
};
use crate::error::{ApiResult, JsonBody};

/// History records answered when the request names no `limit`.
const DEFAULT_HISTORY_LIMIT: usize = 50;

/// cideldill's lists by function name, plus `items`: every breakpoint of every kind by id.
#[utoipa::path(operation_id = "list_breakpoints", extensions(("x-breakroom-needs" = json!(Need::ProgramOrViewer))), get, path = "/api/breakpoints", tag = "breakpoints", responses((status = 200, body = BreakpointList)))]
pub async fn list(State(debugger): State<Debugger>) -> Json<BreakpointList> {
    let mut list = BreakpointList::from(debugger.function_breakpoints().breakpoints_view());
    list.items = debugger.breakpoints().breakpoint_records();
    Json(list)
}

#[derive(Deserialize, Serialize, ToSchema)]
pub struct NewBreakpoint {
    #[schema(value_type = String, required = true, pattern = "\\S")]
    #[serde(default)]
    function_name: Option<String>,
    /// Text, or a JavaScript function's arity as a number (cideldill's JS client).
    #[schema(value_type = Option<Value>)]
    #[serde(default, deserialize_with = "breakroom_debugger::client_shapes::signature")]
    signature: Option<String>,
    /// `stop`, `go` or `yield`; any other value (of any JSON type) is ignored, as the reference
    /// server does.
    #[schema(value_type = Option<Value>)]
    #[serde(default, deserialize_with = "lenient_behavior")]
    behavior: Option<Behavior>,
}

/// Either body: cideldill's (a function name) or, with `kind`, a breakpoint of any kind.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // read once per request
pub enum AddBreakpointBody {
    Named(NewBreakpoint),
    Kind(BreakpointSpec),
}

/// By the presence of `kind`, so a bad field of a breakpoint with one gets its own code.
impl<'de> Deserialize<'de> for AddBreakpointBody {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let body = Value::deserialize(de)?;
        if body.get("kind").is_some() {
            BreakpointSpec::deserialize(body).map(AddBreakpointBody::Kind).map_err(D::Error::custom)
        } else {
            NewBreakpoint::deserialize(body).map(AddBreakpointBody::Named).map_err(D::Error::custom)
        }
    }
}

/// cideldill's answer (`status`, `function_name`), or the new record with its `id`.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // built once per request
pub enum BreakpointAdded {
    Named(BreakpointChanged),
    Kind(BreakpointSaved),
}

#[utoipa::path(operation_id = "add_breakpoint", extensions(("x-breakroom-needs" = json!(Need::ProgramOrDebugger))), post, path = "/api/breakpoints", tag = "breakpoints", request_body = AddBreakpointBody,
    responses((status = 200, body = BreakpointAdded), (status = 400, body = ErrorBody)))]
pub async fn add(
    State(debugger): State<Debugger>,
    caller: Option<axum::Extension<crate::access::Caller>>,
    JsonBody(body): JsonBody<AddBreakpointBody>,
) -> ApiResult<BreakpointAdded> {
    let req = match body {
        AddBreakpointBody::Kind(spec) => {
            // With `kind` it is a person adding a breakpoint (issue 48); a bare function name is
            // a program registering one, which its program credential allows.
            if let Some(axum::Extension(caller)) = &caller {
                Need::Debugger.check(&caller.identity).map_err(crate::error::ApiError::NotAllowed)?;
            }
            let Json(saved) = breakpoint_records::add(&debugger, &spec)?;
            return Ok(Json(BreakpointAdded::Kind(saved)));
        }
        AddBreakpointBody::Named(req) => req,
    };
    let name = req.function_name.unwrap_or_default();
    debugger.function_breakpoints().add_breakpoint(&name, req.signature, req.behavior)?;
    Ok(Json(BreakpointAdded::Named(BreakpointChanged { status: OkStatus::Ok, function_name: name })))
}

/// A breakpoint's id removes that breakpoint (answering its record); any other name is a
/// function name, as cideldill sends it (always 200).
#[utoipa::path(operation_id = "remove_breakpoint", extensions(("x-breakroom-needs" = json!(Need::Debugger))), delete, path = "/api/breakpoints/{name}", tag = "breakpoints",
    params(("name" = String, Path, description = "a breakpoint's id (`bp-N`), or a function name")),
    responses((status = 200, body = BreakpointAdded)))]
pub async fn remove(State(debugger): State<Debugger>, Path(name): Path<String>) -> ApiResult<BreakpointAdded> {
    if let Ok(record) = debugger.breakpoints().breakpoint_record(&name) {
        let breakpoint = debugger.breakpoints().remove_breakpoint_record(&record.id)?;
        return Ok(Json(BreakpointAdded::Kind(BreakpointSaved { status: OkStatus::Ok, breakpoint })));
    }
    debugger.function_breakpoints().remove_breakpoint(&name)?;
    Ok(Json(BreakpointAdded::Named(BreakpointChanged { status: OkStatus::Ok, function_name: name })))
}

/// A breakpoint's before-call behaviour.
#[derive(Deserialize, ToSchema)]
pub struct BehaviorBody {
    #[schema(value_type = String, required = true, pattern = "^(stop|go|continue|yield)$")]
    #[serde(default, deserialize_with = "behavior_field")]
    behavior: Option<Behavior>,
}

/// A breakpoint's after-call behaviour.
#[derive(Deserialize, ToSchema)]
pub struct AfterBehaviorBody {
    #[schema(
        value_type = String,
        required = true,
        pattern = "^(stop|breakpoints|stop_at_breakpoints|go|continue|yield|defer|default|exception|exceptions|stop_at_exceptions|stop_exception|breakpoints_and_exceptions|stop_at_breakpoints_and_exceptions|both)$"
    )]
    #[serde(default, deserialize_with = "behavior_field")]
    behavior: Option<AfterBehavior>,
}

/// The behaviour of calls without a breakpoint of their own.
#[derive(Deserialize, ToSchema)]
pub struct GlobalBehaviorBody {
    #[schema(
        value_type = String,
        required = true,
        pattern = "^(stop|breakpoints|stop_at_breakpoints|go|continue|exception|exceptions|stop_at_exceptions|stop_exception|breakpoints_and_exceptions|stop_at_breakpoints_and_exceptions|both)$"
    )]
    #[serde(default, deserialize_with = "behavior_field")]
    behavior: Option<GlobalBehavior>,
}

/// The behaviour a body names; none is `invalid_behavior`, as a name that is none.
fn given<B: BehaviorName>(behavior: Option<B>) -> Result<B, breakroom_debugger::Error> {
    behavior.map_or_else(|| B::parse(""), Ok)
}

#[utoipa::path(operation_id = "set_breakpoint_behavior", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/breakpoints/{name}/behavior", tag = "breakpoints", request_body = BehaviorBody,
    params(("name" = String, Path, description = "function name")),
    responses((status = 200, body = BehaviorSet), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn set_behavior(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<BehaviorBody>,
) -> ApiResult<BehaviorSet> {
    let behavior = given(body.behavior)?;
    debugger.function_breakpoints().set_behavior(&name, behavior)?;
    Ok(Json(BehaviorSet { status: OkStatus::Ok, function_name: name, behavior }))
}

#[utoipa::path(operation_id = "set_breakpoint_after_behavior", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/breakpoints/{name}/after_behavior", tag = "breakpoints", request_body = AfterBehaviorBody,
    params(("name" = String, Path, description = "function name")),
    responses((status = 200, body = AfterBehaviorSet), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn set_after_behavior(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<AfterBehaviorBody>,
) -> ApiResult<AfterBehaviorSet> {
    let behavior = given(body.behavior)?;
    debugger.function_breakpoints().set_after_behavior(&name, behavior)?;
    Ok(Json(AfterBehaviorSet { status: OkStatus::Ok, function_name: name, behavior }))
}

#[derive(Deserialize, ToSchema)]
pub struct ReplacementBody {
    /// A registered function with a compatible signature; empty or the breakpoint's own name clears it.
    #[serde(default)]
    replacement_function: Option<String>,
}

#[utoipa::path(operation_id = "set_breakpoint_replacement", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/breakpoints/{name}/replacement", tag = "breakpoints", request_body = Option<ReplacementBody>,
    params(("name" = String, Path, description = "function name")),
    responses((status = 200, body = ReplacementSet), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn set_replacement(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<ReplacementBody>,
) -> ApiResult<ReplacementSet> {
    let replacement =
        debugger.function_breakpoints().set_replacement(&name, body.replacement_function.as_deref().unwrap_or(""))?;
    Ok(Json(ReplacementSet { status: OkStatus::Ok, function_name: name, replacement_function: replacement }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// At most this many records (default 50).
    #[param(value_type = Option<String>, pattern = "^[0-9]*$")]
    #[serde(default)]
    limit: Option<String>,
}

#[utoipa::path(operation_id = "breakpoint_history", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/breakpoints/{name}/history", tag = "breakpoints",
    params(("name" = String, Path, description = "function name"), HistoryQuery),
    responses((status = 200, body = BreakpointHistory), (status = 400, body = ErrorBody)))]
pub async fn history(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    Query(q): Query<HistoryQuery>,
) -> ApiResult<BreakpointHistory> {
    let limit = query::count("limit", q.limit.as_deref())?.unwrap_or(DEFAULT_HISTORY_LIMIT);
    let history = debugger.function_breakpoints().breakpoint_history(&name, limit)?;
    Ok(Json(BreakpointHistory { function_name: name, history }))
}

#[utoipa::path(operation_id = "get_global_behavior", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/behavior", tag = "breakpoints", responses((status = 200, body = GlobalBehaviorSetting)))]
pub async fn global_behavior(State(debugger): State<Debugger>) -> Json<GlobalBehaviorSetting> {
    Json(GlobalBehaviorSetting { status: None, behavior: debugger.function_breakpoints().global_behavior() })
}

#[utoipa::path(operation_id = "set_global_behavior", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/behavior", tag = "breakpoints", request_body = GlobalBehaviorBody,
    responses((status = 200, body = GlobalBehaviorSetting), (status = 400, body = ErrorBody)))]
pub async fn set_global_behavior(
    State(debugger): State<Debugger>,
    JsonBody(body): JsonBody<GlobalBehaviorBody>,
) -> ApiResult<GlobalBehaviorSetting> {
    let behavior = given(body.behavior)?;
    debugger.function_breakpoints().set_global_behavior(behavior)?;
    Ok(Json(GlobalBehaviorSetting { status: Some(OkStatus::Ok), behavior }))
}

#[utoipa::path(operation_id = "register_function", extensions(("x-breakroom-needs" = json!(Need::Program))), post, path = "/api/functions", tag = "breakpoints", request_body = FunctionRegistration,
    responses((status = 200, body = FunctionRegistered), (status = 400, body = ErrorBody)))]
pub async fn register_function(
    State(debugger): State<Debugger>,
    JsonBody(req): JsonBody<FunctionRegistration>,
) -> ApiResult<FunctionRegistered> {
    let (function_name, signature) = (req.function_name.clone().unwrap_or_default(), req.signature.clone());
    debugger.function_breakpoints().register_function(req)?;
    Ok(Json(FunctionRegistered { status: OkStatus::Ok, function_name, signature }))
}

#[utoipa::path(operation_id = "list_functions", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/functions", tag = "breakpoints", responses((status = 200, body = FunctionList)))]
pub async fn functions(State(debugger): State<Debugger>) -> Json<FunctionList> {
    Json(debugger.function_breakpoints().functions().into())
}
