//! `--allow-origin URL`: a page of that origin (one that loads `/api/debug-client.js`) may use
//! the debug-client routes, with CORS preflights and headers; nothing else, and only when given.

use crate::common;

use reqwest::{Method, StatusCode};
use serde_json::json;

const PAGE: &str = "http://127.0.0.1:8123";

async fn send(
    server: &common::TestServer,
    method: Method,
    path: &str,
    origin: &str,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = server.http.request(method.clone(), format!("{}{path}", server.base)).header("origin", origin);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    if method == Method::POST {
        request = request.json(&json!({}));
    }
    request.send().await.unwrap()
}

fn allowed_origin(response: &reqwest::Response) -> Option<String> {
    response.headers().get("access-control-allow-origin").map(|v| v.to_str().unwrap().to_string())
}

#[tokio::test]
async fn without_allow_origin_a_page_of_another_origin_is_refused_everywhere() {
    let server = common::start().await;
    for (method, path) in [(Method::POST, "/api/call/start"), (Method::GET, "/api/debug-client.js")] {
        let response = send(&server, method, path, PAGE, &[]).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
        assert_eq!(allowed_origin(&response), None);
    }
    let preflight =
        send(&server, Method::OPTIONS, "/api/call/start", PAGE, &[("access-control-request-method", "POST")]).await;
    assert_eq!(preflight.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn an_allowed_origin_gets_preflights_and_answers_on_the_client_routes() {
    let server = common::start_with_origins(&[PAGE], None).await;
    let preflight = send(
        &server,
        Method::OPTIONS,
        "/api/call/start",
        PAGE,
        &[("access-control-request-method", "POST"), ("access-control-request-headers", "content-type")],
    )
    .await;
    assert_eq!(preflight.status(), StatusCode::NO_CONTENT);
    assert_eq!(allowed_origin(&preflight).as_deref(), Some(PAGE));
    let headers = preflight.headers();
    assert!(headers["access-control-allow-methods"].to_str().unwrap().contains("POST"));
    assert!(headers["access-control-allow-headers"].to_str().unwrap().contains("content-type"));

    let script = send(&server, Method::GET, "/api/debug-client.js", PAGE, &[]).await;
    assert_eq!(script.status(), StatusCode::OK);
    assert_eq!(allowed_origin(&script).as_deref(), Some(PAGE));
    let poll = send(&server, Method::GET, "/api/poll-repl/p-none", PAGE, &[]).await;
    assert_eq!((poll.status(), allowed_origin(&poll).as_deref()), (StatusCode::OK, Some(PAGE)));
    // A refusal past the origin rule is readable by the page too.
    let bad = send(&server, Method::POST, "/api/call/start", PAGE, &[]).await;
    assert_eq!((bad.status(), allowed_origin(&bad).as_deref()), (StatusCode::BAD_REQUEST, Some(PAGE)));
}

#[tokio::test]
async fn an_allowed_origin_stays_refused_off_the_client_routes_and_other_origins_everywhere() {
    let server = common::start_with_origins(&[PAGE], None).await;
    for (method, path) in
        [(Method::POST, "/api/repl/start"), (Method::POST, "/api/paused/p-1/continue"), (Method::GET, "/api/paused")]
    {
        let response = send(&server, method, path, PAGE, &[]).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
        assert_eq!(allowed_origin(&response), None, "{path}");
    }
    let preflight =
        send(&server, Method::OPTIONS, "/api/repl/x/eval", PAGE, &[("access-control-request-method", "POST")]).await;
    assert_eq!(preflight.status(), StatusCode::FORBIDDEN);
    let other = send(&server, Method::POST, "/api/call/start", "http://127.0.0.1:8124", &[]).await;
    assert_eq!(other.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn with_a_token_the_preflight_passes_and_the_request_still_needs_the_token() {
    let server = common::start_with_origins(&[PAGE], Some("s3cret")).await;
    let preflight =
        send(&server, Method::OPTIONS, "/api/call/start", PAGE, &[("access-control-request-method", "POST")]).await;
    assert_eq!(preflight.status(), StatusCode::NO_CONTENT);
    let refused = send(&server, Method::GET, "/api/debug-client.js", PAGE, &[]).await;
    assert_eq!((refused.status(), allowed_origin(&refused).as_deref()), (StatusCode::UNAUTHORIZED, Some(PAGE)));
    let with_token =
        send(&server, Method::GET, "/api/debug-client.js", PAGE, &[("authorization", "Bearer s3cret")]).await;
    assert_eq!(with_token.status(), StatusCode::OK);
}
