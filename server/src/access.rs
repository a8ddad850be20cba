//! Credentials, what each operation needs, and the audit trail at the HTTP door (issue 48).
//! `guard.rs` checks the host and the origin first; then this module:
//!
//! 1. finds who is calling: the sign-in cookie, or a token (`Authorization: Bearer`, `Basic`
//!    with the token as password, the `breakroom_token` cookie, or `?token=`). `--token` is the
//!    owner's credential; users' and programs' tokens are verified against the store. Without
//!    any user and without `--token`, every caller is the owner, as before users existed.
//! 2. finds what the operation needs: REST operations declare it in their OpenAPI entry
//!    (`x-breakroom-needs`, next to the handler); the pages' server functions and MCP tools
//!    check their own declared need, so at this door they need a person (a viewer or more).
//! 3. refuses with 401 (`token_required`) or 403 (`not_allowed`, saying what is wanted), and
//!    rate-limits bad tokens per address (429 `too_many_attempts`).
//! 4. records in the audit trail every refusal and every operation that changes state.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use breakroom_debugger::audit::{AuditRecord, Door, Outcome};
use breakroom_debugger::users::{Holder, Identity, Need};
use breakroom_debugger::Debugger;
use serde_json::Value;

use crate::error::ApiError;

/// The OpenAPI extension each REST operation declares its need in.
pub const NEEDS_EXTENSION: &str = "x-breakroom-needs";
/// The header the command line, `breakroom mcp` and `breakroom dap` name their door with.
pub const DOOR_HEADER: &str = "x-breakroom-door";
/// The cookie `/login` sets.
pub const SESSION_COOKIE: &str = "breakroom_session";
pub use breakroom_debugger::audit::READ_ONLY_HEADER;

/// Bad tokens allowed per address per minute before 429.
const BAD_TOKENS_PER_MINUTE: u32 = 20;
/// The most of a request body an audit record keeps.
const DETAIL_LIMIT: usize = 64 * 1024;

/// What the door knows about a request once its credential is checked (a request extension).
#[derive(Clone, Debug)]
pub struct Caller {
    pub identity: Identity,
    pub door: Door,
    pub remote: String,
}

pub struct Access {
    /// `--token`: the owner's credential.
    owner_token: Option<String>,
    debugger: Debugger,
    max_body: usize,
    bad_tokens: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

impl Access {
    pub fn new(owner_token: Option<String>, debugger: Debugger, max_body: usize) -> Self {
        Access { owner_token, debugger, max_body, bad_tokens: Mutex::new(HashMap::new()) }
    }

    /// Who a request's credential stands for: `Ok(None)` when it has none and one is needed,
    /// `Err` when it carries one that is wrong.
    pub fn identify(&self, request: &Request) -> Result<Option<Identity>, ()> {
        if let Some(session) = cookie(request, SESSION_COOKIE) {
            if let Ok(Some(who)) = self.debugger.users().verify_session(&session) {
                return Ok(Some(who));
            }
        }
        match presented_token(request) {
            Some(token) => self.identify_token(&token).map(Some).ok_or(()),
            None if self.owner_token.is_none() && !self.debugger.users().configured() => Ok(Some(Identity::owner())),
            None => Ok(None),
        }
    }

    /// The identity of a token given outside HTTP too (DAP's `attach` arguments).
    pub fn identify_token(&self, token: &str) -> Option<Identity> {
        if let Some(owner) = &self.owner_token {
            if constant_time_eq(token.as_bytes(), owner.as_bytes()) {
                return Some(Identity { name: "token".into(), holder: Holder::Owner });
            }
        }
        // Stored tokens are compared by their SHA-256 in the database's index: what a timing
        // attack could learn is a hash prefix, which says nothing about the token.
        self.debugger.users().verify(token).ok().flatten()
    }

    pub fn too_many_bad_tokens(&self, from: Option<IpAddr>, failed_now: bool) -> bool {
        let Some(ip) = from else { return false };
        let mut bad = self.bad_tokens.lock().unwrap_or_else(|p| p.into_inner());
        let entry = bad.entry(ip).or_insert((0, Instant::now()));
        if entry.1.elapsed() > Duration::from_secs(60) {
            *entry = (0, Instant::now());
        }
        if failed_now {
            entry.0 += 1;
        }
        if bad.len() > 10_000 {
            bad.retain(|_, (_, at)| at.elapsed() <= Duration::from_secs(60));
        }
        bad.get(&ip).is_some_and(|(n, _)| *n > BAD_TOKENS_PER_MINUTE)
    }
}

/// A program credential may only drive the pauses of processes it reported for (issue 48): the
/// first credential to report for a process owns it. People and the owner are not limited here.
pub fn check_pause_owner(debugger: &Debugger, caller: Option<&Caller>, pause_id: &str) -> Result<(), ApiError> {
    let Some(caller) = caller.filter(|c| c.identity.holder == Holder::Program) else { return Ok(()) };
    let Some(process) = debugger.pauses().live_pause_process(pause_id) else { return Ok(()) };
    debugger.users().claim_process(&process, &caller.identity).map_err(|owner| {
        ApiError::NotAllowed(format!(
            "pause {pause_id} belongs to a process of the program credential {owner:?}; {} may only poll, \
             answer and resume its own processes' pauses",
            caller.identity.name
        ))
    })
}

/// A REST operation of the OpenAPI document: its declared need, and the body types it reads
/// (`guard.rs` accepts those).
pub(crate) struct Operation {
    method: Method,
    template: String,
    segments: Vec<String>,
    need: Need,
    pub(crate) body_types: Vec<String>,
}

impl Operation {
    pub(crate) fn matches(&self, method: &Method, path: &str) -> bool {
        let mut given = path.split('/');
        &self.method == method
            && self.segments.iter().all(|want| {
                let seg = given.next();
                seg.is_some_and(|seg| want == seg || (want.starts_with('{') && !seg.is_empty()))
            })
            && given.next().is_none()
    }

    /// The path's ids by their template names (`session_id` → `12-1700000000`).
    fn ids(&self, path: &str) -> BTreeMap<String, String> {
        self.segments
            .iter()
            .zip(path.split('/'))
            .filter_map(|(want, seg)| {
                let name = want.strip_prefix('{')?.strip_suffix('}')?;
                Some((name.to_string(), seg.to_string()))
            })
            .collect()
    }
}

/// Every REST operation, its need and its body types, read once from the document
/// `/api/openapi.json` serves, so an operation declares both in one place. An operation that
/// declares no need is refused to everyone but the owner (a test fails on it).
pub(crate) fn operations() -> &'static [Operation] {
    static TABLE: OnceLock<Vec<Operation>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let doc = serde_json::to_value(crate::api::openapi()).unwrap_or(Value::Null);
        let mut table = Vec::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            for (method, operation) in item.as_object().into_iter().flatten() {
                let Ok(method) = method.to_ascii_uppercase().parse::<Method>() else { continue };
                let need = operation[NEEDS_EXTENSION].as_str().and_then(Need::parse).unwrap_or(Need::Admin);
                let body_types = operation["requestBody"]["content"].as_object().into_iter().flatten();
                table.push(Operation {
                    template: format!("{method} {path}"),
                    method,
                    segments: path.split('/').map(str::to_string).collect(),
                    need,
                    body_types: body_types.map(|(content_type, _)| content_type.clone()).collect(),
                });
            }
        }
        table
    })
}

/// Files anyone may fetch: what the sign-in page itself loads (it needs no wasm).
fn is_open_file(path: &str) -> bool {
    path == "/pkg/breakroom.css" || path == "/favicon.svg"
}

/// `/repl/{session}/table/{handle}` and `/repl/{session}/view`.
fn is_table_page(path: &str) -> bool {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    matches!(parts.as_slice(), ["repl", _, "table", _] | ["repl", _, "view"])
}

/// What `method path` needs, and its REST operation if it is one.
fn need_of(method: &Method, path: &str) -> (Need, Option<&'static Operation>) {
    if let Some(op) = operations().iter().find(|op| op.matches(method, path)) {
        return (op.need, Some(op));
    }
    match path {
        "/login" | "/logout" | "/login/oidc" | crate::oidc::CALLBACK_PATH => (Need::Open, None),
        // A page of an `--allow-origin` origin loads the client as a program would.
        "/api/debug-client.js" => (Need::ProgramOrViewer, None),
        _ if is_open_file(path) => (Need::Open, None),
        // A table's page sorts and reads the live object in the paused program.
        _ if is_table_page(path) => (Need::Debugger, None),
        // Server functions and MCP tools check their own need; here they need a person.
        _ => (Need::Viewer, None),
    }
}

fn door_of(request: &Request) -> Door {
    let path = request.uri().path();
    if path.starts_with("/rpc/") || path == "/login" || path == "/logout" || path.starts_with("/login/oidc") {
        return Door::Page;
    }
    if path == crate::mcp::PATH {
        return Door::Mcp;
    }
    if path == "/api/dap" {
        return Door::Dap;
    }
    let named = request.headers().get(DOOR_HEADER).and_then(|v| v.to_str().ok()).and_then(Door::parse);
    match named {
        // A header cannot make a request look like it came through the pages.
        Some(Door::Page) | None => Door::Rest,
        Some(door) => door,
    }
}

fn remote_of(request: &Request) -> (Option<IpAddr>, String) {
    match request.extensions().get::<ConnectInfo<SocketAddr>>() {
        Some(ConnectInfo(addr)) => (Some(addr.ip()), addr.to_string()),
        None => (None, "unknown".into()),
    }
}

/// Whether a finished operation goes into the audit trail (refusals always do).
fn audited(method: &Method, path: &str, need: Need, who: &Identity) -> bool {
    if path == crate::mcp::PATH {
        // MCP tools record themselves, one record per tool call.
        return false;
    }
    if path.starts_with("/rpc/") {
        return true;
    }
    if method == Method::GET || method == Method::HEAD || method == Method::OPTIONS {
        return false;
    }
    match need {
        Need::Debugger | Need::Admin => true,
        Need::ProgramOrDebugger => who.holder != Holder::Program,
        _ => false,
    }
}

/// Rule 3 and 4 of `guard.rs`'s list: the credential, then the request, then its audit record.
pub async fn admit(access: &Access, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let (need, operation) = need_of(&method, &path);
    let door = door_of(&request);
    let (ip, remote) = remote_of(&request);
    let action = operation.map_or_else(|| format!("{method} {path}"), |op| op.template.clone());
    let target = operation.map(|op| op.ids(&path)).unwrap_or_default();
    let refuse = |who: Option<&Identity>, error: ApiError| {
        let response = error.into_response();
        access.debugger.audit().record(AuditRecord {
            id: 0,
            time: breakroom_debugger::ids::now(),
            actor: who.map_or("anonymous".into(), |w| w.name.clone()),
            role: who.map_or("none", |w| w.holder.label()).to_string(),
            door,
            remote: remote.clone(),
            action: action.clone(),
            target: target.clone(),
            detail: Value::Null,
            outcome: Outcome::Refused,
            status: response.status().as_u16(),
        });
        response
    };
    let identity = match access.identify(&request) {
        Ok(identity) => identity,
        // Only bad tokens count, and only they are refused past the limit: a good one from the
        // same address (people behind one proxy) still passes.
        Err(()) if access.too_many_bad_tokens(ip, true) => {
            return refuse(
                None,
                ApiError::TooManyAttempts("too many bad tokens from this address: wait a minute".into()),
            );
        }
        Err(()) => None,
    };
    let Some(identity) = identity else {
        if need == Need::Open {
            return next.run(request).await;
        }
        if method == Method::GET && wants_html(&request) && !path.starts_with("/api/") {
            return sign_in_first(&path);
        }
        return refuse(
            None,
            ApiError::TokenRequired(
                "this server needs a credential: Authorization: Bearer TOKEN (or Basic, the token as password), \
                 or sign in at /login",
            ),
        );
    };
    if let Err(why) = need.check(&identity) {
        return refuse(Some(&identity), ApiError::NotAllowed(why));
    }
    let caller = Caller { identity, door, remote };
    let mut request = request;
    // The identity alone too: the pages' server functions (another crate) read it.
    request.extensions_mut().insert(caller.identity.clone());
    if !audited(&method, &path, need, &caller.identity) {
        request.extensions_mut().insert(caller);
        let mut response = next.run(request).await;
        response.headers_mut().remove(READ_ONLY_HEADER);
        return response;
    }
    // Audited: the body is what was asked (an eval's code, a resume's action), so it is kept.
    let (mut parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, access.max_body).await {
        Ok(bytes) => bytes,
        Err(_) => return ApiError::PayloadTooLarge.into_response(),
    };
    let mut detail = detail_of(&parts.headers, &bytes);
    // The record keeps no secret (issue 50): a card number typed into an eval, a password field.
    access.debugger.config().policy.redact_json(&mut detail);
    parts.extensions.insert(caller.clone());
    let mut response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    let read_only = response.headers_mut().remove(READ_ONLY_HEADER).is_some();
    if read_only {
        return response;
    }
    let status = response.status();
    let mut target = target;
    for key in ["pause_id", "session_id", "process_id", "process_key", "id", "checkpoint_id", "workspace"] {
        if let Some(value) = detail.get(key).and_then(Value::as_str) {
            target.entry(key.to_string()).or_insert_with(|| value.to_string());
        }
    }
    access.debugger.audit().record(AuditRecord {
        id: 0,
        time: breakroom_debugger::ids::now(),
        actor: caller.identity.name.clone(),
        role: caller.identity.holder.label().to_string(),
        door: caller.door,
        remote: caller.remote,
        action,
        target,
        detail,
        outcome: match status {
            s if s.is_success() || s.is_redirection() => Outcome::Done,
            // A server function refuses a role too low itself (its need is declared in it).
            StatusCode::FORBIDDEN if path.starts_with("/rpc/") => Outcome::Refused,
            _ => Outcome::Failed,
        },
        status: status.as_u16(),
    });
    response
}

/// A request body as an audit record keeps it: JSON as JSON, a form as an object, else text.
fn detail_of(headers: &axum::http::HeaderMap, bytes: &[u8]) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    let kept = &bytes[..bytes.len().min(DETAIL_LIMIT)];
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/x-www-form-urlencoded"));
    if form {
        let fields: serde_json::Map<String, Value> =
            form_urlencoded::parse(kept).map(|(k, v)| (k.into_owned(), Value::String(v.into_owned()))).collect();
        return Value::Object(fields);
    }
    serde_json::from_slice(kept).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(kept).into_owned()))
}

fn wants_html(request: &Request) -> bool {
    request.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("text/html"))
}

/// A browser without a credential is sent to the sign-in page, which brings it back.
fn sign_in_first(path: &str) -> Response {
    let next: String = form_urlencoded::byte_serialize(path.as_bytes()).collect();
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/login?next={next}")) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

pub fn cookie(request: &Request, name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|cookies| cookies.split(';').find_map(|c| c.trim().strip_prefix(prefix.as_str()).map(str::to_string)))
}

/// The token a request carries, wherever it carries it.
pub fn presented_token(request: &Request) -> Option<String> {
    let headers = request.headers();
    if let Some(auth) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        let (scheme, credentials) = auth.trim().split_once(' ').unwrap_or((auth, ""));
        if scheme.eq_ignore_ascii_case("bearer") {
            return Some(credentials.trim().to_string());
        }
        if scheme.eq_ignore_ascii_case("basic") {
            use base64::Engine;
            // `user:password`; the password is the token, the user name is anything.
            let decoded = base64::engine::general_purpose::STANDARD.decode(credentials.trim()).ok()?;
            let decoded = String::from_utf8(decoded).ok()?;
            return decoded.split_once(':').map(|(_, password)| password.to_string());
        }
    }
    if let Some(token) = cookie(request, "breakroom_token") {
        return Some(token);
    }
    let query = request.uri().query()?;
    query.split('&').find_map(|pair| pair.strip_prefix("token=").map(str::to_string))
}

pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rest_operation_declares_a_need() {
        let doc = serde_json::to_value(crate::api::openapi()).unwrap();
        let mut missing = vec![];
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if operation[NEEDS_EXTENSION].as_str().and_then(Need::parse).is_none() {
                    missing.push(format!("{method} {path}"));
                }
            }
        }
        assert!(missing.is_empty(), "operations without {NEEDS_EXTENSION}: {missing:?}");
    }

    #[test]
    fn pages_and_unknown_paths_need_a_person_and_only_the_sign_in_page_and_files_are_open() {
        assert_eq!(need_of(&Method::GET, "/").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/repl/1-2.5").0, Need::Viewer);
        assert_eq!(need_of(&Method::POST, "/rpc/eval_form").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/api/nothing-here").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/login").0, Need::Open);
        assert_eq!(need_of(&Method::GET, "/login/oidc").0, Need::Open);
        assert_eq!(need_of(&Method::GET, "/login/oidc/callback").0, Need::Open);
        assert_eq!(need_of(&Method::GET, "/login/oidc/other").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/pkg/breakroom.css").0, Need::Open);
        assert_eq!(need_of(&Method::GET, "/pkg/breakroom.wasm").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/snapshots").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/snapshots/snap-1").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/process/p-1/timeline").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/process/p-1/tasks").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/api/openapi.json").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/api/debug-client.js").0, Need::ProgramOrViewer);
    }

    #[test]
    fn a_tables_page_and_route_need_a_debugger_they_run_code_in_the_program() {
        assert_eq!(need_of(&Method::GET, "/repl/1-2.5/table/t1").0, Need::Debugger);
        assert_eq!(need_of(&Method::GET, "/api/repl/1-2.5/table/t1").0, Need::Debugger);
        assert_eq!(need_of(&Method::GET, "/repl/1-2.5/table").0, Need::Viewer);
        assert_eq!(need_of(&Method::GET, "/repl/1-2.5/view").0, Need::Debugger);
        assert_eq!(need_of(&Method::POST, "/api/repl/1-2.5/variables/view").0, Need::Debugger);
    }
}
