//! Cross-origin access for debug clients that run in web pages (`--allow-origin URL`). A page
//! that loads `/api/debug-client.js` talks to Breakroom from its own origin, which the guard
//! refuses (CSRF) unless that origin was given, and then only on the routes a debug client uses:
//! the pages, the browser's API, REPL sessions and runtimes stay same-origin only. For those the
//! preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered here, before the token
//! check (a browser sends no credentials with it), and every answer names the origin.

use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};

/// Origins given with `--allow-origin`, as browsers write them: `scheme://host[:port]`,
/// lowercase, without a default port.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AllowedOrigins(Vec<String>);

impl AllowedOrigins {
    pub fn parse(given: &[String]) -> Result<Self, String> {
        given.iter().map(|g| normalize(g)).collect::<Result<_, _>>().map(AllowedOrigins)
    }

    /// Whether a page of `origin` may make this request: the origin was given and the route is
    /// a debug client's. For a preflight, `method` is the one it asks about.
    pub fn allows(&self, origin: &str, method: &Method, path: &str) -> bool {
        normalize(origin).is_ok_and(|o| self.0.contains(&o)) && is_client_route(method, path)
    }
}

/// `http(s)://host[:port]` (a trailing `/` is dropped) in the form a browser's `Origin` has.
fn normalize(given: &str) -> Result<String, String> {
    let refuse =
        || format!("--allow-origin {given:?} is not an origin: give http://HOST[:PORT] or https://HOST[:PORT]");
    let lower = given.trim().trim_end_matches('/').to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://").ok_or_else(refuse)?;
    let default_port = match scheme {
        "http" => "80",
        "https" => "443",
        _ => return Err(refuse()),
    };
    let valid_char = |c: char| c.is_ascii_alphanumeric() || "-._[]:".contains(c);
    if rest.is_empty() || !rest.chars().all(valid_char) {
        return Err(refuse());
    }
    let host = match rest.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            if port.is_empty() || port.parse::<u16>().is_err() {
                return Err(refuse());
            }
            if port == default_port {
                host.to_string()
            } else {
                rest.to_string()
            }
        }
        _ => rest.to_string(),
    };
    if host.is_empty() {
        return Err(refuse());
    }
    Ok(format!("{scheme}://{host}"))
}

/// The routes of the debug-client protocol (docs/src/protocol.md §5, §6) and the client script itself.
pub fn is_client_route(method: &Method, path: &str) -> bool {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (get, post) = (method == Method::GET, method == Method::POST);
    match segments.as_slice() {
        ["api", "call", "start" | "complete" | "event" | "repl-result"] | ["api", "report-com-error"] => post,
        ["api", "poll", id] if !id.is_empty() => get || post,
        ["api", "poll-repl", id] if !id.is_empty() => get,
        ["api", "functions"] => get || post,
        ["api", "debug-client.js"] => get,
        _ => false,
    }
}

/// The answer to an allowed preflight.
pub fn preflight(origin: &HeaderValue, allow: &'static str) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(header::ALLOW, HeaderValue::from_static(allow));
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(allow));
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("content-type, authorization"));
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    name_origin(response, origin)
}

/// Lets the page read this answer (errors included, so it sees why it was refused).
pub fn name_origin(mut response: Response, origin: &HeaderValue) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_read_as_browsers_send_them() {
        assert_eq!(normalize("HTTP://Page.example:8080/").unwrap(), "http://page.example:8080");
        assert_eq!(normalize("http://127.0.0.1:80").unwrap(), "http://127.0.0.1");
        assert_eq!(normalize("https://x.example:443").unwrap(), "https://x.example");
        assert_eq!(normalize("http://[::1]:3000").unwrap(), "http://[::1]:3000");
        for bad in ["", "page.example", "ftp://x", "http://", "http://x/path", "http://x:99999", "http://u@x", "null"] {
            assert!(normalize(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_debug_client_routes_are_open_to_an_allowed_origin() {
        let origins = AllowedOrigins::parse(&["http://127.0.0.1:8000".into()]).unwrap();
        let page = "http://127.0.0.1:8000";
        assert!(origins.allows(page, &Method::POST, "/api/call/start"));
        assert!(origins.allows(page, &Method::GET, "/api/poll/p-1"));
        assert!(origins.allows(page, &Method::GET, "/api/debug-client.js"));
        assert!(!origins.allows(page, &Method::POST, "/api/repl/start"));
        assert!(!origins.allows(page, &Method::POST, "/api/paused/p-1/continue"));
        assert!(!origins.allows(page, &Method::GET, "/"));
        assert!(!origins.allows(page, &Method::DELETE, "/api/functions"));
        assert!(!origins.allows("http://127.0.0.1:8001", &Method::POST, "/api/call/start"));
        assert!(!AllowedOrigins::default().allows(page, &Method::POST, "/api/call/start"));
    }
}
