//! Who may call what: Host and Origin checks on browser-facing routes, CORS on client-facing
//! ones, the access token, body limits.

mod common;

use std::time::Duration;

use breakroom_debugger::Config;
use serde_json::json;

#[tokio::test]
async fn browser_facing_endpoints_refuse_foreign_origins_and_hosts() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("compute", 1).await;
    let url = format!("{}/api/repl/start", server.base);
    let r = server
        .http
        .post(&url)
        .header("Origin", "http://evil.example")
        .json(&json!({"pause_id": pause_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["error"], "forbidden_origin");
    let r = server
        .http
        .post(&url)
        .header("Host", "evil.example:5174")
        .json(&json!({"pause_id": pause_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    let r = server.http.get(format!("{}/", server.base)).header("Host", "rebound.example").send().await.unwrap();
    assert_eq!(r.status(), 403, "pages refuse DNS-rebound hosts too");
    // Same origin works.
    let r = server
        .http
        .post(&url)
        .header("Origin", server.base.clone())
        .json(&json!({"pause_id": pause_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // The pause is still paused: nothing foreign got through.
    assert_eq!(server.debugger.paused_calls().len(), 1);
}

#[tokio::test]
async fn client_facing_endpoints_answer_any_origin_with_cors_headers() {
    let server = common::start().await;
    let r = server
        .http
        .get(format!("{}/api/breakpoints", server.base))
        .header("Origin", "http://page.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    assert_eq!(r.headers()["access-control-allow-headers"], "Content-Type");
    let r =
        server.http.request(reqwest::Method::OPTIONS, format!("{}/api/call/start", server.base)).send().await.unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["access-control-allow-methods"], "GET, POST, PUT, PATCH, DELETE, OPTIONS");
}

#[tokio::test]
async fn with_a_token_every_request_needs_it() {
    let config = Config { eval_timeout: Duration::from_secs(1), poll_hold: Duration::from_secs(1) };
    let server = common::start_full(config, Some("s3cret")).await;
    let url = format!("{}/api/breakpoints", server.base);
    let r = server.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["error"], "token_required");
    assert_eq!(server.http.get(&url).bearer_auth("wrong").send().await.unwrap().status(), 401);
    assert_eq!(server.http.get(&url).bearer_auth("s3cret").send().await.unwrap().status(), 200);
    // The browser brings it once in the address and keeps it as a cookie.
    let r = server.http.get(format!("{}/api/repl/sessions?token=s3cret", server.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.starts_with("breakroom_token=s3cret;") && cookie.contains("HttpOnly"), "{cookie}");
    let r = server
        .http
        .get(format!("{}/api/repl/sessions", server.base))
        .header("Cookie", "breakroom_token=s3cret")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn oversized_bodies_get_413_json() {
    let server = common::start().await;
    let huge = "x".repeat(2 * 1024 * 1024);
    let r = server
        .http
        .post(format!("{}/api/call/event", server.base))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["error"], "payload_too_large");
}
