//! Who may call what. The REPL runs arbitrary code in debugged programs, and debug clients can be
//! handed forged evals, so every path is guarded alike: pages, static files, server functions,
//! the browser's API, the debug-client protocol, `/api/live` and the OpenAPI document. In order:
//!
//! 1. `Host` must be one this server answers to, or 403 `forbidden_host` (DNS rebinding: a page
//!    on a rebound name sends that name). Answered: `127.0.0.1`, `localhost`, `[::1]` and the
//!    bound address, each with the bound port; and every `--allow-host` name (`NAME` with any
//!    port, or exactly `NAME:PORT`).
//! 2. An `Origin` header, if present, must be this server's own (`http://` or `https://` followed
//!    by the request's `Host`), or 403 `forbidden_origin` (CSRF); `Origin: null` is foreign.
//!    Debug clients send no `Origin`; a browser sends it on every cross-origin request that could
//!    change something or read the answer.
//! 3. The credential, and what the operation needs of it (`access.rs`): 401 `token_required`
//!    without one where one is needed, 403 `not_allowed` when it may not. A token comes as
//!    `Authorization: Bearer T`, `Authorization: Basic` with password `T` (what `requests` sends
//!    for `http://user:T@host`, so an unchanged cideldill client can pass it), the
//!    `breakroom_token` cookie, or `?token=T` (which sets that cookie, for the browser); a
//!    browser signed in at `/login` carries the `breakroom_session` cookie.
//! 4. A request with a body must say it is of a type the endpoint reads, or 415
//!    `unsupported_media_type`: what its OpenAPI operation documents (JSON everywhere today);
//!    the pages' server functions (`/rpc/`) read URL-encoded forms or JSON; anything else JSON.
//!    `text/plain` and form bodies are what a page can send cross-site without a preflight.
//!
//! The one exception to rule 2: a page origin given with `--allow-origin` may use the
//! debug-client routes, with CORS headers (`cors.rs`); nothing else gets CORS headers. `OPTIONS`
//! passes the same rules and answers 204 with the path's `Allow`.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::cors::{self, AllowedOrigins};
use crate::error::ApiError;

const JSON: &str = "application/json";
const FORM: &str = "application/x-www-form-urlencoded";

#[derive(Clone, Debug)]
pub struct AccessPolicy {
    pub token: Option<String>,
    hosts: Vec<AllowedHost>,
    origins: AllowedOrigins,
}

/// One `Host` value this server answers to; `port: None` accepts any port (or none).
#[derive(Clone, Debug, PartialEq)]
struct AllowedHost {
    name: String,
    port: Option<u16>,
}

impl AccessPolicy {
    /// The policy of a server listening on `bound`: loopback names and the bound address with the
    /// bound port, plus `allowed` (`NAME` or `NAME:PORT`, as given with `--allow-host`).
    pub fn new(bound: SocketAddr, token: Option<String>, allowed: &[String]) -> Result<Self, String> {
        let port = Some(bound.port());
        let mut hosts: Vec<AllowedHost> =
            ["127.0.0.1", "localhost", "[::1]"].iter().map(|n| AllowedHost { name: n.to_string(), port }).collect();
        // 0.0.0.0 and :: are no name a client can use; those need --allow-host.
        if !bound.ip().is_unspecified() {
            let name = match bound.ip() {
                IpAddr::V4(ip) => ip.to_string(),
                IpAddr::V6(ip) => format!("[{ip}]"),
            };
            hosts.push(AllowedHost { name, port });
        }
        for given in allowed {
            let (name, port) = split_host(given).ok_or_else(|| {
                format!("--allow-host {given:?} is not a host name: give NAME or NAME:PORT, without a scheme or path")
            })?;
            hosts.push(AllowedHost { name, port });
        }
        Ok(AccessPolicy { token, hosts, origins: AllowedOrigins::default() })
    }

    /// Page origins (`--allow-origin`) whose scripts may use the debug-client routes.
    pub fn with_origins(mut self, origins: &[String]) -> Result<Self, String> {
        self.origins = AllowedOrigins::parse(origins)?;
        Ok(self)
    }

    /// Also answer `127.0.0.1:PORT` (and the other loopback names): the loopback listener a
    /// TLS server keeps for the programs it starts (`tls.rs`).
    pub fn also_loopback_port(mut self, port: u16) -> Self {
        for name in ["127.0.0.1", "localhost", "[::1]"] {
            self.hosts.push(AllowedHost { name: name.into(), port: Some(port) });
        }
        self
    }

    /// The names a browser may use for a server on loopback `port`.
    pub fn loopback(port: u16, token: Option<String>) -> Self {
        AccessPolicy::new(SocketAddr::from(([127, 0, 0, 1], port)), token, &[]).expect("no names to parse")
    }

    fn answers_to(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else { return false };
        self.hosts.iter().any(|h| h.name == name && (h.port.is_none() || h.port == port))
    }
}

/// `name[:port]` → (lowercase name, port); IPv6 addresses in brackets. `None` for anything else
/// (a scheme, a path, user info, an empty name or port).
fn split_host(value: &str) -> Option<(String, Option<u16>)> {
    let value = value.trim();
    let (name, port) = if value.starts_with('[') {
        let end = value.find(']')?;
        let (name, rest) = value.split_at(end + 1);
        match rest {
            "" => (name, None),
            _ => (name, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match value.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (value, None),
        }
    };
    // Bracketed IPv6 addresses compare in their canonical form ([0:0:0:0:0:0:0:1] is [::1]).
    let name = match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        Some(ip) => format!("[{}]", ip.parse::<std::net::Ipv6Addr>().ok()?),
        None if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)) => {
            name.to_ascii_lowercase()
        }
        None => return None,
    };
    let port = match port {
        Some(p) if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) => return None,
        Some(p) => Some(p.parse().ok()?),
        None => None,
    };
    Some((name, port))
}

pub async fn check(State(policy): State<Arc<AccessPolicy>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    // An absolute-form request line (`GET http://name/...`) names a host too: it must pass as well.
    let authority_ok = request.uri().authority().is_none_or(|a| policy.answers_to(a.as_str()));
    let host = match request_host(&request) {
        Some(host) if authority_ok && policy.answers_to(host) => host.to_string(),
        host => {
            return ApiError::ForbiddenHost(format!(
                "Host {:?} is not a name this server answers to (loopback names, the bound address, \
                 and names given with --allow-host)",
                host.unwrap_or("")
            ))
            .into_response()
        }
    };
    let mut cross_origin = None;
    for origin in headers.get_all(header::ORIGIN) {
        let text = origin.to_str().unwrap_or("");
        let own = ["http://", "https://"].iter().any(|scheme| {
            text.get(..scheme.len()).is_some_and(|s| s.eq_ignore_ascii_case(scheme))
                && text.get(scheme.len()..).is_some_and(|h| h.eq_ignore_ascii_case(&host))
        });
        if own {
            continue;
        }
        // A preflight asks about the method the page is going to use.
        let asked = match request.method() {
            &Method::OPTIONS => headers
                .get(header::ACCESS_CONTROL_REQUEST_METHOD)
                .and_then(|m| m.to_str().ok())
                .and_then(|m| m.parse::<Method>().ok())
                .unwrap_or(Method::OPTIONS),
            other => other.clone(),
        };
        if policy.origins.allows(text, &asked, request.uri().path()) {
            cross_origin = Some(origin.clone());
            continue;
        }
        return ApiError::ForbiddenOrigin(format!(
            "requests from origin {text:?} are refused: only this server's own pages may call it \
             (and pages of a --allow-origin origin, on the debug-client routes)"
        ))
        .into_response();
    }
    if let Some(origin) = cross_origin {
        if request.method() == Method::OPTIONS {
            let allow = crate::preflight::allowed_methods(request.uri().path()).unwrap_or("OPTIONS");
            return cors::preflight(&origin, allow);
        }
        return cors::name_origin(next.run(request).await, &origin);
    }
    next.run(request).await
}

/// Rule 3 (`access.rs`): the credential, what the operation needs, and the audit record. A
/// token given as `?token=` that was accepted is kept in a cookie, for the browser.
pub async fn credentials(State(access): State<Arc<crate::access::Access>>, request: Request, next: Next) -> Response {
    let from_query = request
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|pair| pair.strip_prefix("token=").map(str::to_string)));
    let mut response = crate::access::admit(&access, request, next).await;
    let accepted = !matches!(response.status(), StatusCode::UNAUTHORIZED | StatusCode::TOO_MANY_REQUESTS);
    if let Some(token) = from_query.filter(|t| accepted && !t.is_empty()) {
        let cookie = format!("breakroom_token={token}; Path=/; HttpOnly; SameSite=Strict");
        if let Ok(cookie) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, cookie);
        }
    }
    response
}

/// Rule 4, and `OPTIONS` on the API, after the credential: then the request itself.
pub async fn body_rules(request: Request, next: Next) -> Response {
    let headers = request.headers();
    if has_body(headers) {
        let accepted = accepted_body_types(request.method(), request.uri().path());
        let given = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let media = given.split(';').next().unwrap_or("").trim();
        if !accepted.iter().any(|a| a.eq_ignore_ascii_case(media)) {
            return ApiError::UnsupportedMediaType(format!(
                "a body of type {given:?} is refused here: send Content-Type: {}",
                accepted.join(" or ")
            ))
            .into_response();
        }
    }
    if request.method() == Method::OPTIONS && request.uri().path().starts_with("/api/") {
        if let Some(allow) = crate::preflight::allowed_methods(request.uri().path()) {
            let mut response = StatusCode::NO_CONTENT.into_response();
            response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
            return response;
        }
    }
    next.run(request).await
}

/// The `Host` header (exactly one), or the authority of an HTTP/2 request's URI.
fn request_host(request: &Request) -> Option<&str> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (Some(host), None) => host.to_str().ok(),
        (None, _) => request.uri().authority().map(|a| a.as_str()),
        _ => None,
    }
}

fn has_body(headers: &HeaderMap) -> bool {
    let length = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).map(str::trim);
    headers.contains_key(header::TRANSFER_ENCODING) || length.is_some_and(|l| l != "0")
}

/// The content types a request body may have on `method path`: what its OpenAPI operation
/// documents (`access::operations`), so an endpoint that documents another body type is accepted
/// with it without touching this file.
fn accepted_body_types(method: &Method, path: &str) -> Vec<&'static str> {
    let documented =
        crate::access::operations().iter().find(|op| !op.body_types.is_empty() && op.matches(method, path));
    if let Some(op) = documented {
        return op.body_types.iter().map(String::as_str).collect();
    }
    if path.starts_with("/rpc/") || path == "/login" {
        return vec![FORM, JSON];
    }
    vec![JSON]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_values_parse_strictly() {
        assert_eq!(split_host("LocalHost:5174"), Some(("localhost".into(), Some(5174))));
        assert_eq!(split_host("[::1]:80"), Some(("[::1]".into(), Some(80))));
        assert_eq!(split_host("[0:0:0:0:0:0:0:1]"), Some(("[::1]".into(), None)));
        assert_eq!(split_host("debug.example"), Some(("debug.example".into(), None)));
        for bad in
            ["", ":80", "a:", "a:b", "a:99999", "http://a", "a/b", "u@a", "::1", "[::1]x", "a b", "[evil]:80", "a[b"]
        {
            assert_eq!(split_host(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn policy_answers_to_loopback_bound_and_allowed_names() {
        let bound = SocketAddr::from(([192, 168, 1, 5], 5174));
        let policy = AccessPolicy::new(bound, None, &["debug.example".into(), "proxy.example:443".into()]).unwrap();
        for ok in [
            "127.0.0.1:5174",
            "localhost:5174",
            "[::1]:5174",
            "192.168.1.5:5174",
            "debug.example",
            "DEBUG.example:8080",
            "proxy.example:443",
        ] {
            assert!(policy.answers_to(ok), "{ok}");
        }
        for no in ["127.0.0.1:5175", "localhost", "evil.example:5174", "proxy.example", "0.0.0.0:5174", ""] {
            assert!(!policy.answers_to(no), "{no}");
        }
        assert!(AccessPolicy::new(bound, None, &["http://x".into()]).is_err());
    }
}
