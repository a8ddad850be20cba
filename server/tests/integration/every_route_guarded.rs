//! Every door is guarded. The doors are read from the running server, not listed here: every
//! operation of `/api/openapi.json`, every registered server function, plus the pages, the live
//! stream, the OpenAPI document and static files. A new endpoint is walked without editing this
//! file. Each door is knocked on with a foreign `Host`, a foreign `Origin`, `Origin: null` and a
//! body that is not of the endpoint's type, and must refuse; the same request with the server's
//! own headers must get through the guard (so the refusal is the guard's, not a 404 or a 400).

use crate::common;

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

/// One method on one path, with the body types it documents (empty: it reads no body).
#[derive(Debug)]
pub(crate) struct Door {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) body_types: Vec<String>,
}

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// Path parameters get a value of the right shape that names nothing.
fn fill(template: &str) -> String {
    template.split('/').map(|seg| if seg.starts_with('{') { "x1" } else { seg }).collect::<Vec<_>>().join("/")
}

/// Every door of the running server. `token`: what the server needs to hand out its document.
pub(crate) async fn doors(server: &common::TestServer, token: Option<&str>) -> Vec<Door> {
    let mut request = server.http.get(format!("{}/api/openapi.json", server.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let doc: Value = response.json().await.unwrap();
    let mut doors = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if !METHODS.contains(&method.as_str()) {
                continue;
            }
            let body_types = op["requestBody"]["content"].as_object().map(|c| c.keys().cloned().collect());
            doors.push(Door {
                method: method.to_uppercase().parse().unwrap(),
                path: fill(path),
                body_types: body_types.unwrap_or_default(),
            });
        }
    }
    // The document was really read: the client protocol's doors are among them.
    for (method, path) in [("POST", "/api/call/start"), ("GET", "/api/poll-repl/x1"), ("POST", "/api/call/repl-result")]
    {
        assert!(doors.iter().any(|d| d.method == method && d.path == path), "{method} {path} missing: {doors:?}");
    }
    for (path, method) in leptos::server_fn::axum::server_fn_paths() {
        // Server functions read URL-encoded forms (Leptos's default encoding) or JSON.
        let body_types = vec!["application/x-www-form-urlencoded".to_string(), "application/json".to_string()];
        doors.push(Door { method: method.as_str().parse().unwrap(), path: path.to_string(), body_types });
    }
    assert!(doors.iter().filter(|d| d.path.starts_with("/rpc/")).count() >= 10, "server functions missing");
    // MCP for agents (Streamable HTTP): JSON-RPC posts, the server's event stream, session end.
    doors.push(Door { method: Method::POST, path: "/mcp".into(), body_types: vec!["application/json".into()] });
    for method in [Method::GET, Method::DELETE] {
        doors.push(Door { method, path: "/mcp".into(), body_types: vec![] });
    }
    for path in ["/api/openapi.json", "/", "/repls", "/repl/1-1.000000", "/pkg/breakroom.js", "/pkg/breakroom.wasm"] {
        doors.push(Door { method: Method::GET, path: path.to_string(), body_types: vec![] });
    }
    doors
}

/// `(status, error code)` of one request.
pub(crate) async fn knock(
    server: &common::TestServer,
    door: &Door,
    headers: &[(&str, &str)],
    body: Option<(&str, &str)>,
) -> (u16, String) {
    let mut request = server.http.request(door.method.clone(), format!("{}{}", server.base, door.path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some((content_type, text)) = body {
        if !content_type.is_empty() {
            request = request.header("content-type", content_type);
        }
        request = request.body(text.to_string());
    }
    let response = request.send().await.unwrap_or_else(|e| panic!("{door:?}: {e}"));
    let status = response.status().as_u16();
    if door.path == "/api/live" && status == 200 {
        return (status, String::new()); // an endless stream: the status is the answer
    }
    let body: Value = response.json().await.unwrap_or(Value::Null);
    (status, body["error"].as_str().unwrap_or("").to_string())
}

const GUARD_CODES: &[&str] = &["forbidden_host", "forbidden_origin", "unsupported_media_type", "token_required"];

/// Whether a request the guard should let through was refused (by the guard, or as if the route
/// were not there). API answers must also stay 4xx; a server function's own argument errors are
/// Leptos's business.
fn refused(door: &Door, (status, code): &(u16, String)) -> bool {
    GUARD_CODES.contains(&code.as_str()) || *status == 405 || (*status >= 500 && door.path.starts_with("/api/"))
}

/// The door's own kind of body, for the control request.
pub(crate) fn good_body(door: &Door) -> Option<(&str, &'static str)> {
    match door.body_types.first().map(String::as_str) {
        Some("application/x-www-form-urlencoded") => Some(("application/x-www-form-urlencoded", "unused=1")),
        Some(json) => Some((json, "{}")),
        None => None,
    }
}

#[test]
fn every_route_refuses_foreign_hosts_origins_and_body_types() {
    crate::common::on_shared_runtime(every_route_refuses_foreign_hosts_origins_and_body_types_on_the_shared_runtime())
}

async fn every_route_refuses_foreign_hosts_origins_and_body_types_on_the_shared_runtime() {
    let mut server = common::start().await;
    server.http = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let own_origin = server.base.clone();
    let port = server.base.rsplit(':').next().unwrap().to_string();
    let evil_host = format!("evil.example:{port}");
    let mut failures = Vec::new();
    let doors = doors(&server, None).await;
    for door in &doors {
        let body = good_body(door);
        let mut expect = |what: &str, got: (u16, String), want: (u16, &str)| {
            if (got.0, got.1.as_str()) != want {
                failures.push(format!("{} {} {what}: got {got:?}, want {want:?}", door.method, door.path));
            }
        };
        // A DNS-rebinding page: right address, its own name.
        expect("foreign Host", knock(&server, door, &[("host", &evil_host)], body).await, (403, "forbidden_host"));
        let got = knock(&server, door, &[("host", "127.0.0.1")], body).await;
        expect("Host without the port", got, (403, "forbidden_host"));
        let got = knock(&server, door, &[("origin", "http://evil.example")], body).await;
        expect("foreign Origin", got, (403, "forbidden_origin"));
        expect("Origin: null", knock(&server, door, &[("origin", "null")], body).await, (403, "forbidden_origin"));
        let got = knock(&server, door, &[("origin", &format!("http://evil.example:{port}"))], body).await;
        expect("Origin on another name, same port", got, (403, "forbidden_origin"));
        // Bodies a page can send cross-site without a preflight, and a body with no type at all.
        let mut wrong = vec!["text/plain", "multipart/form-data; boundary=x", ""];
        if !door.body_types.iter().any(|t| t == "application/x-www-form-urlencoded") {
            wrong.push("application/x-www-form-urlencoded");
        }
        for content_type in wrong {
            let got = knock(&server, door, &[], Some((content_type, "{}"))).await;
            expect(&format!("body of type {content_type:?}"), got, (415, "unsupported_media_type"));
        }
        // Control: the server's own page (or a debug client, without Origin) gets past the guard.
        let controls: [&[(&str, &str)]; 2] = [&[("origin", own_origin.as_str())], &[]];
        for headers in controls {
            let got = knock(&server, door, headers, body).await;
            if refused(door, &got) {
                failures.push(format!("{} {} with {headers:?}: refused {got:?}", door.method, door.path));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} doors:\n{}", failures.len(), doors.len(), failures.join("\n"));
}

#[test]
fn with_a_token_every_route_requires_it() {
    crate::common::on_shared_runtime(with_a_token_every_route_requires_it_on_the_shared_runtime())
}

async fn with_a_token_every_route_requires_it_on_the_shared_runtime() {
    let config = breakroom_debugger::Config {
        eval_timeout: Duration::from_secs(2),
        poll_hold: Duration::from_secs(1),
        ..breakroom_debugger::Config::default()
    };
    let mut server = common::start_full(config, Some("s3cret")).await;
    server.http = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let doors = doors(&server, Some("s3cret")).await;
    let mut failures = Vec::new();
    for door in &doors {
        let body = good_body(door);
        let wrongs: [&[(&str, &str)]; 3] =
            [&[], &[("authorization", "Bearer wrong")], &[("cookie", "breakroom_token=wrong")]];
        for wrong in wrongs {
            let got = knock(&server, door, wrong, body).await;
            // Past 20 bad tokens a minute from one address the answer is 429 (access.rs).
            let refusal = matches!((got.0, got.1.as_str()), (401, "token_required") | (429, "too_many_attempts"));
            if !refusal || (wrong.is_empty() && got.0 != 401) {
                failures.push(format!("{} {} with {wrong:?}: {got:?}", door.method, door.path));
            }
        }
        let got = knock(&server, door, &[("authorization", "Bearer s3cret")], body).await;
        if refused(door, &got) {
            failures.push(format!("{} {} with the token: refused {got:?}", door.method, door.path));
        }
    }
    assert!(failures.is_empty(), "{} of {} doors:\n{}", failures.len(), doors.len(), failures.join("\n"));
}
