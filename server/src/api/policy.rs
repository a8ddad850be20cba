//! `GET /api/policy`: the redaction rules and the places not debugged that are in force
//! (issue 50), for viewers and above, and for programs: the Python client receives the same on
//! its breakpoint channel, the JavaScript client (which has none) reads it here.

use axum::extract::State;
use axum::Json;
use breakroom_debugger::policy::PolicyWire;
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;

use super::wire::ErrorBody;
use crate::error::ApiResult;

#[utoipa::path(operation_id = "get_policy", extensions(("x-breakroom-needs" = json!(Need::ProgramOrViewer))), get, path = "/api/policy", tag = "browser",
    responses((status = 200, body = PolicyWire), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn get(State(debugger): State<Debugger>) -> ApiResult<PolicyWire> {
    Ok(Json(debugger.config().policy.wire()))
}
