//! People, program credentials and the audit trail, for admins (issue 48). The command line
//! (`breakroom user`, `breakroom token`, `breakroom audit`) does the same in the store directly.

use axum::extract::{Path, Query, State};
use axum::{Extension, Json};
use breakroom_debugger::audit::{AuditQuery, AuditRecord};
use breakroom_debugger::users::{Holder, Identity, Need, Role, UserRow};
use breakroom_debugger::{Debugger, Error};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::wire::{ErrorBody, StatusOk};
use crate::access::Caller;
use crate::error::{ApiResult, JsonBody};

#[derive(Serialize, ToSchema)]
pub struct UserList {
    pub users: Vec<UserRow>,
}

#[derive(Deserialize, ToSchema)]
pub struct AddUser {
    pub name: String,
    /// `viewer`, `debugger`, `admin`, or `program` for a program credential.
    pub role: String,
}

#[derive(Serialize, ToSchema)]
pub struct NewToken {
    pub name: String,
    pub role: String,
    /// Shown once: only its SHA-256 is kept.
    pub token: String,
}

#[derive(Deserialize, ToSchema)]
pub struct SetRole {
    pub role: String,
}

/// Who a request's credential stands for.
#[derive(Serialize, ToSchema)]
pub struct WhoAmI {
    pub name: String,
    /// `viewer`, `debugger`, `admin`, `program`, or `owner` (a server without users, or `--token`).
    pub role: String,
}

#[derive(Serialize, ToSchema)]
pub struct AuditList {
    pub records: Vec<AuditRecord>,
}

fn holder(role: &str) -> Result<Holder, Error> {
    match role {
        "program" => Ok(Holder::Program),
        role => Role::parse(role).map(Holder::Person),
    }
}

#[utoipa::path(operation_id = "list_users", extensions(("x-breakroom-needs" = json!(Need::Admin))), get, path = "/api/users", tag = "access",
    responses((status = 200, body = UserList), (status = 403, body = ErrorBody)))]
pub async fn list(State(debugger): State<Debugger>) -> ApiResult<UserList> {
    Ok(Json(UserList { users: debugger.users().list()? }))
}

#[utoipa::path(operation_id = "add_user", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/users", tag = "access", request_body = AddUser,
    responses((status = 200, body = NewToken), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody, description = "the name is taken")))]
pub async fn add(State(debugger): State<Debugger>, JsonBody(body): JsonBody<AddUser>) -> ApiResult<NewToken> {
    let holder = holder(&body.role)?;
    let token = debugger.users().add(&body.name, holder)?;
    Ok(Json(NewToken { name: body.name, role: holder.label().into(), token }))
}

#[utoipa::path(operation_id = "remove_user", extensions(("x-breakroom-needs" = json!(Need::Admin))), delete, path = "/api/users/{name}", tag = "access",
    params(("name" = String, Path)), responses((status = 200, body = StatusOk), (status = 404, body = ErrorBody)))]
pub async fn remove(State(debugger): State<Debugger>, Path(name): Path<String>) -> ApiResult<StatusOk> {
    debugger.users().remove(&name)?;
    Ok(Json(StatusOk::new()))
}

#[utoipa::path(operation_id = "set_user_role", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/users/{name}/role", tag = "access",
    params(("name" = String, Path)), request_body = SetRole,
    responses((status = 200, body = StatusOk), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn set_role(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<SetRole>,
) -> ApiResult<StatusOk> {
    debugger.users().set_role(&name, Role::parse(&body.role)?)?;
    Ok(Json(StatusOk::new()))
}

#[utoipa::path(operation_id = "rotate_user_token", extensions(("x-breakroom-needs" = json!(Need::Admin))), post, path = "/api/users/{name}/rotate", tag = "access",
    params(("name" = String, Path)), responses((status = 200, body = NewToken), (status = 404, body = ErrorBody)))]
pub async fn rotate(State(debugger): State<Debugger>, Path(name): Path<String>) -> ApiResult<NewToken> {
    let token = debugger.users().rotate(&name)?;
    let role = debugger.users().list()?.into_iter().find(|u| u.name == name).map(|u| u.role).unwrap_or_default();
    Ok(Json(NewToken { name, role, token }))
}

#[utoipa::path(operation_id = "list_audit", extensions(("x-breakroom-needs" = json!(Need::Admin))), get, path = "/api/audit", tag = "access",
    params(AuditQuery), responses((status = 200, body = AuditList), (status = 400, body = ErrorBody)))]
pub async fn audit(State(debugger): State<Debugger>, Query(query): Query<AuditQuery>) -> ApiResult<AuditList> {
    if let Some(limit) = query.limit.filter(|l| !(1..=10_000).contains(l)) {
        return Err(crate::error::ApiError::bad_request(
            "invalid_limit",
            format!("limit must be from 1 to 10000, not {limit}"),
        ));
    }
    if let Some(since) = query.since.filter(|s| !s.is_finite()) {
        return Err(crate::error::ApiError::bad_request(
            "invalid_since",
            format!("since must be a Unix time in seconds, not {since}"),
        ));
    }
    let records = tokio::task::spawn_blocking(move || debugger.audit().read(&query))
        .await
        .map_err(|e| Error::storage(format!("the audit read failed: {e}")))??;
    Ok(Json(AuditList { records }))
}

#[utoipa::path(operation_id = "who_am_i", extensions(("x-breakroom-needs" = json!(Need::ProgramOrViewer))), get, path = "/api/whoami", tag = "access",
    responses((status = 200, body = WhoAmI), (status = 401, body = ErrorBody)))]
pub async fn whoami(caller: Option<Extension<Caller>>) -> ApiResult<WhoAmI> {
    let who = caller.map_or_else(Identity::owner, |Extension(c)| c.identity);
    Ok(Json(WhoAmI { role: who.holder.label().into(), name: who.name }))
}
