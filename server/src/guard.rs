//! Who may call what. The REPL runs arbitrary code in debugged programs, so:
//! - with a token (required off loopback), every request must carry it: `Authorization: Bearer`,
//!   the `breakroom_token` cookie, or `?token=` once (which sets the cookie for the browser);
//! - browser-facing routes (pages, server functions, REPL, resume, breakpoint edits) refuse a
//!   foreign `Host` (DNS rebinding) or `Origin` (CSRF), and send no CORS headers;
//! - client-facing routes (what a debug client calls) answer any origin, with the CORS headers
//!   of PROTOCOL.md §1, so unchanged clients keep working.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

#[derive(Clone, Debug)]
pub struct AccessPolicy {
    pub token: Option<String>,
    /// `Host` values browser-facing routes accept; empty accepts any (with a token, off loopback).
    pub hosts: Vec<String>,
}

impl AccessPolicy {
    /// The names a browser may use for a server on loopback `port`.
    pub fn loopback(port: u16, token: Option<String>) -> Self {
        let hosts = ["127.0.0.1", "localhost", "[::1]"].iter().map(|h| format!("{h}:{port}")).collect();
        AccessPolicy { token, hosts }
    }
}

/// Routes a debug client calls; everything else is the browser's.
fn is_client_facing(method: &Method, path: &str) -> bool {
    let get = method == Method::GET;
    let post = method == Method::POST;
    match path {
        "/api/breakpoints" | "/api/functions" => get || post,
        "/api/call/start"
        | "/api/call/complete"
        | "/api/call/event"
        | "/api/call/repl-result"
        | "/api/report-com-error" => post,
        "/api/paused" | "/api/openapi.json" | "/openapi.json" => get,
        _ => get && (path.starts_with("/api/poll/") || path.starts_with("/api/poll-repl/")),
    }
}

pub async fn check(State(policy): State<Arc<AccessPolicy>>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    let is_api = path.starts_with("/api/");
    if request.method() == Method::OPTIONS && is_api {
        let mut response = StatusCode::NO_CONTENT.into_response();
        add_cors(response.headers_mut());
        return response;
    }
    let client_facing = is_client_facing(request.method(), &path);
    let mut set_cookie = None;
    if let Some(token) = &policy.token {
        match presented_token(&request) {
            Some((given, from_query)) if constant_time_eq(given.as_bytes(), token.as_bytes()) => {
                if from_query {
                    set_cookie = Some(format!("breakroom_token={token}; Path=/; HttpOnly; SameSite=Strict"));
                }
            }
            _ => {
                return ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "token_required",
                    "this server needs its access token (Authorization: Bearer, or ?token= once in the browser)",
                )
                .into_response()
            }
        }
    }
    if !client_facing {
        if let Err(refusal) = same_site(request.headers(), &policy) {
            return refusal.into_response();
        }
    }
    let mut response = next.run(request).await;
    if client_facing && is_api {
        add_cors(response.headers_mut());
    }
    if let Some(cookie) = set_cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

fn same_site(headers: &HeaderMap, policy: &AccessPolicy) -> Result<(), ApiError> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !policy.hosts.is_empty() && !policy.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            format!("Host {host:?} is not this server's; open it as http://{}", policy.hosts[0]),
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        let own = ["http://", "https://"].iter().any(|scheme| origin.eq_ignore_ascii_case(&format!("{scheme}{host}")));
        if !own {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                format!("requests from {origin} may not use this endpoint"),
            ));
        }
    }
    Ok(())
}

fn presented_token(request: &Request) -> Option<(String, bool)> {
    let headers = request.headers();
    if let Some(bearer) =
        headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "))
    {
        return Some((bearer.trim().to_string(), false));
    }
    let cookie = headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).find_map(|cookies| {
        cookies.split(';').find_map(|c| c.trim().strip_prefix("breakroom_token=").map(str::to_string))
    });
    if let Some(cookie) = cookie {
        return Some((cookie, false));
    }
    let query = request.uri().query()?;
    query.split('&').find_map(|pair| pair.strip_prefix("token=").map(|t| (t.to_string(), true)))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn add_cors(headers: &mut HeaderMap) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Content-Type"));
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, PUT, PATCH, DELETE, OPTIONS"),
    );
}
