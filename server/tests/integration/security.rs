//! Who may call what: Host, Origin and body-type checks (on every route: the walk over all of them
//! is every_route_guarded.rs), the access token, `--allow-host`, body limits.

use crate::common;

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
    assert_eq!(server.debugger.pauses().paused_calls().len(), 1);
}

#[tokio::test]
async fn client_protocol_endpoints_refuse_what_a_web_page_sends() {
    // Issue 14's findings, replayed: each got a 200 before.
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("compute", 1).await;
    let port = server.base.rsplit(':').next().unwrap().to_string();
    for path in [
        "/api/paused".to_string(),
        "/api/breakpoints".into(),
        "/api/functions".into(),
        format!("/api/poll-repl/{pause_id}"),
    ] {
        let r = server.http.get(format!("{}{path}", server.base)).header("Host", "evil.example").send().await.unwrap();
        assert_eq!(r.status(), 403, "{path}");
        assert!(r.headers().get("access-control-allow-origin").is_none(), "{path}");
        let text = r.text().await.unwrap();
        assert!(text.contains("forbidden_host") && !text.contains(&pause_id), "{path}: {text}");
        let r = server
            .http
            .get(format!("{}{path}", server.base))
            .header("Host", format!("evil.example:{port}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{path} with the right port");
    }
    // A "simple" cross-site POST (no preflight): refused for its Origin, and for its type alone.
    let add = format!("{}/api/breakpoints", server.base);
    let body = r#"{"function_name": "planted"}"#;
    let r = server
        .http
        .post(&add)
        .header("Origin", "http://evil.example")
        .header("Content-Type", "text/plain")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["error"], "forbidden_origin");
    let r = server.http.post(&add).header("Content-Type", "text/plain").body(body).send().await.unwrap();
    assert_eq!(r.status(), 415);
    let reply = r.json::<serde_json::Value>().await.unwrap();
    assert_eq!(reply["error"], "unsupported_media_type");
    assert!(reply["message"].as_str().unwrap().contains("application/json"), "{reply}");
    let r = server
        .http
        .post(format!("{}/api/call/repl-result", server.base))
        .header("Origin", "null")
        .json(&json!({"eval_id": "e", "pause_id": pause_id, "session_id": "s", "result": "forged"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403, "a sandboxed page's Origin: null is foreign too");
    assert!(!server
        .debugger
        .function_breakpoints()
        .breakpoints_view()
        .breakpoints
        .iter()
        .any(|b| b.function_name == "planted"));
    // The same POST as a debug client sends it gets through.
    let (status, _) = server.post("/api/breakpoints", json!({"function_name": "planted"})).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn no_cors_headers_and_preflights_follow_the_same_rules() {
    let server = common::start().await;
    let options = |origin: Option<&str>| {
        let mut r = server.http.request(reqwest::Method::OPTIONS, format!("{}/api/call/start", server.base));
        if let Some(origin) = origin {
            r = r.header("Origin", origin).header("Access-Control-Request-Method", "POST");
        }
        r.send()
    };
    let r = options(Some("http://page.example")).await.unwrap();
    assert_eq!(r.status(), 403, "a cross-origin preflight fails, so the browser never sends the request");
    assert!(r.headers().get("access-control-allow-origin").is_none());
    let r = options(None).await.unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["allow"], "POST, OPTIONS", "the route's own methods");
    assert!(r.headers().get("access-control-allow-origin").is_none());
    let r =
        server.http.request(reqwest::Method::OPTIONS, format!("{}/api/breakpoints", server.base)).send().await.unwrap();
    assert_eq!(
        (r.status().as_u16(), r.headers()["allow"].to_str().unwrap()),
        (204, "GET, POST, DELETE, OPTIONS"),
        "only what the path takes"
    );
    let r = server.http.request(reqwest::Method::OPTIONS, format!("{}/api/nowhere", server.base)).send().await.unwrap();
    assert_eq!(r.status(), 404, "an unknown path is not a resource");
    let r = options(Some(&server.base)).await.unwrap();
    assert_eq!(r.status(), 204);
    for path in ["/api/breakpoints", "/api/paused", "/api/openapi.json"] {
        let r = server.http.get(format!("{}{path}", server.base)).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert!(r.headers().get("access-control-allow-origin").is_none(), "{path}");
    }
}

/// What an unchanged cideldill client sends: `requests` to `http://localhost:PORT` (its default
/// name), so `Host: localhost:PORT`, no `Origin`, JSON bodies; the browser's side alongside.
#[tokio::test]
async fn an_unchanged_client_still_works() {
    let server = common::start().await;
    let port = server.base.rsplit(':').next().unwrap().to_string();
    let host = format!("localhost:{port}");
    let client = |method: reqwest::Method, path: &str| {
        server.http.request(method, format!("{}{path}", server.base)).header("Host", host.as_str())
    };
    let send = |r: reqwest::RequestBuilder| async move {
        let r = r.send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json::<serde_json::Value>().await.unwrap())
    };
    let get = |path: String| send(client(reqwest::Method::GET, &path));
    let post = |path: &str, body: serde_json::Value| send(client(reqwest::Method::POST, path).json(&body));

    assert_eq!(get("/api/breakpoints".into()).await.0, 200);
    let (status, _) = post("/api/breakpoints", json!({"function_name": "compute", "timestamp": 1.0})).await;
    assert_eq!(status, 200);
    let (status, start) = post(
        "/api/call/start",
        json!({"method_name": "compute", "args": [{"cid": common::INT_6_CID, "client_ref": 1, "data": "gARLBi4="}],
               "kwargs": {}, "call_site": {"timestamp": 1.0, "stack_trace": []},
               "process_pid": 4242, "process_start_time": 1795331833.75}),
    )
    .await;
    assert_eq!((status, start["action"].as_str()), (200, Some("poll")), "{start}");
    let poll_url = start["poll_url"].as_str().unwrap().to_string();
    let pause_id = poll_url.trim_start_matches("/api/poll/").to_string();
    assert_eq!(get(poll_url.clone()).await, (200, json!({"status": "waiting"})));

    // The browser, same-origin, asks for an eval; the client polls for it and answers.
    let session = server.start_session(&pause_id).await;
    let eval = tokio::spawn({
        let (http, url, origin) =
            (server.http.clone(), format!("{}/api/repl/{session}/eval", server.base), server.base.clone());
        async move {
            let r = http.post(url).header("Origin", origin).json(&json!({"expr": "a * 7"})).send().await.unwrap();
            (r.status().as_u16(), r.json::<serde_json::Value>().await.unwrap())
        }
    });
    let mut request = json!({"eval_id": null});
    for _ in 0..200 {
        request = get(format!("/api/poll-repl/{pause_id}")).await.1;
        if request["eval_id"].is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(request["expr"], "a * 7", "{request}");
    let (status, _) = post(
        "/api/call/repl-result",
        json!({"eval_id": request["eval_id"], "pause_id": pause_id, "session_id": session,
               "result": "42", "stdout": "", "error": null, "result_cid": null, "result_data": null}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, answer) = eval.await.unwrap();
    assert_eq!((status, answer["output"].as_str()), (200, Some("42")), "{answer}");

    let r = server
        .http
        .post(format!("{}/api/paused/{pause_id}/continue", server.base))
        .header("Origin", server.base.clone())
        .json(&json!({"action": "continue"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(get(poll_url).await, (200, json!({"status": "ready", "action": {"action": "continue"}})));
    let (status, done) =
        post("/api/call/complete", json!({"call_id": start["call_id"], "status": "success", "process_pid": 4242}))
            .await;
    assert_eq!((status, done), (200, json!({"status": "ok"})));
    assert_eq!(post("/api/report-com-error", json!({"summary": "x"})).await.0, 200);
}

#[tokio::test]
async fn with_a_token_every_request_needs_it() {
    let config =
        Config { eval_timeout: Duration::from_secs(1), poll_hold: Duration::from_secs(1), ..Config::default() };
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
async fn with_a_token_the_client_protocol_needs_it_too() {
    let config =
        Config { eval_timeout: Duration::from_secs(1), poll_hold: Duration::from_secs(1), ..Config::default() };
    let server = common::start_full(config, Some("s3cret")).await;
    let url = |path: &str| format!("{}{path}", server.base);
    let start = json!({"method_name": "f", "args": [], "kwargs": {}, "process_pid": 7, "process_start_time": 1.0});
    let r = server.http.post(url("/api/call/start")).json(&start).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(server.http.get(url("/api/poll/x1")).send().await.unwrap().status(), 401);
    let r = server.http.post(url("/api/call/start")).bearer_auth("s3cret").json(&start).send().await.unwrap();
    assert_eq!(r.status(), 200);
    // An unchanged cideldill client given `http://breakroom:s3cret@localhost:PORT` (or a
    // ~/.netrc entry) sends the token as Basic credentials: any user name, the token as password.
    let basic =
        |user: &str, password: Option<&str>| server.http.get(url("/api/breakpoints")).basic_auth(user, password);
    assert_eq!(basic("breakroom", Some("s3cret")).send().await.unwrap().status(), 200);
    assert_eq!(basic("anyone", Some("s3cret")).send().await.unwrap().status(), 200);
    assert_eq!(basic("s3cret", None).send().await.unwrap().status(), 401, "the user name is not the token");
    assert_eq!(basic("breakroom", Some("wrong")).send().await.unwrap().status(), 401);
    for garbage in ["Basic %%%", "Basic", "Bearer", "Token s3cret", "s3cret"] {
        let r = server.http.get(url("/api/breakpoints")).header("Authorization", garbage).send().await.unwrap();
        assert_eq!(r.status(), 401, "{garbage}");
    }
    // The token does not stand in for the Host and Origin checks.
    let r =
        server.http.get(url("/api/paused")).bearer_auth("s3cret").header("Host", "evil.example").send().await.unwrap();
    assert_eq!(r.status(), 403);
    let r = server.http.get(url("/api/paused")).bearer_auth("s3cret").header("Origin", "null").send().await.unwrap();
    assert_eq!(r.status(), 403);
}

/// The real binary with `--allow-host` and a bound address that is not a loopback name.
struct Binary(std::process::Child, String);

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run_binary(args: &[&str]) -> Result<Binary, String> {
    use std::io::{BufRead, BufReader};
    let home = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_breakroom"))
        .args(["--memory", "--port", "0"])
        .args(args)
        .env("CIDELDILL_PORT_FILE", home.path().join("port"))
        .env_remove("BREAKROOM_TOKEN")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    for line in stdout.lines().map_while(Result::ok) {
        if let Some(url) = line.strip_prefix("Server running on ") {
            return Ok(Binary(child, url.trim().to_string()));
        }
    }
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    Err(format!("exit {:?}: {err}", child.wait().unwrap().code()))
}

#[tokio::test]
async fn allow_host_and_the_bound_address_are_answered_and_nothing_else() {
    // 127.0.0.2 is loopback on Linux but not one of the loopback names: only the bound address
    // rule lets it in.
    let server =
        run_binary(&["--host", "127.0.0.2", "--allow-host", "debug.example", "--allow-host", "proxy.example:8443"])
            .expect("breakroom starts");
    let port = server.1.rsplit(':').next().unwrap().to_string();
    let http = reqwest::Client::new();
    let status = |host: String| {
        let request = http.get(format!("{}/api/breakpoints", server.1)).header("Host", host);
        async move { request.send().await.unwrap().status().as_u16() }
    };
    for ok in [
        format!("127.0.0.2:{port}"),
        format!("localhost:{port}"),
        "debug.example".into(),
        "debug.example:80".into(),
        "proxy.example:8443".into(),
    ] {
        assert_eq!(status(ok.clone()).await, 200, "{ok}");
    }
    for refused in [
        format!("127.0.0.3:{port}"),
        format!("127.0.0.2:{}", port.parse::<u16>().unwrap() ^ 1),
        "proxy.example".into(),
        "evil.example".into(),
        format!("debug.example.evil.example:{port}"),
    ] {
        assert_eq!(status(refused.clone()).await, 403, "{refused}");
    }
    // An allowed name's own pages may post; another name's may not.
    let r = http
        .post(format!("{}/api/breakpoints", server.1))
        .header("Host", "debug.example")
        .header("Origin", "https://debug.example")
        .json(&json!({"function_name": "f"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = http
        .post(format!("{}/api/breakpoints", server.1))
        .header("Host", "debug.example")
        .header("Origin", "https://proxy.example:8443")
        .json(&json!({"function_name": "f"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    let refused = run_binary(&["--allow-host", "http://debug.example/"]).err().expect("a URL is not a host name");
    assert!(refused.contains("exit Some(1)") && refused.contains("--allow-host"), "{refused}");
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
