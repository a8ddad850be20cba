//! A real Breakroom server on a free loopback port, and a small JSON client for it.

pub mod binary;
pub mod node;

use std::net::SocketAddr;
use std::time::Duration;

use breakroom_debugger::{Config, Debugger};
use breakroom_server::guard::AccessPolicy;
use breakroom_server::{router, serve, site, ServerOptions};
use serde_json::{json, Value};

pub struct TestServer {
    pub base: String,
    pub debugger: Debugger,
    pub http: reqwest::Client,
}

pub async fn start_with(config: Config) -> TestServer {
    start_full(config, None).await
}

pub async fn start_full(config: Config, token: Option<&str>) -> TestServer {
    start_on(Debugger::for_tests(config), token).await
}

/// A server on an existing debugger (e.g. one opened on a data directory).
pub async fn start_on(debugger: Debugger, token: Option<&str>) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let access = AccessPolicy::loopback(addr.port(), token.map(str::to_string));
    let options =
        ServerOptions { max_body: 1024 * 1024, site: site::leptos_options(addr), access, local_url: None, oidc: None };
    let app = router(debugger.clone(), options);
    tokio::spawn(serve(listener, app));
    TestServer { base: format!("http://{addr}"), debugger, http: reqwest::Client::new() }
}

/// A server that lets pages of `origins` use the debug-client routes (`--allow-origin`).
pub async fn start_with_origins(origins: &[&str], token: Option<&str>) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let origins: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
    let access = AccessPolicy::loopback(addr.port(), token.map(str::to_string)).with_origins(&origins).unwrap();
    let options =
        ServerOptions { max_body: 1024 * 1024, site: site::leptos_options(addr), access, local_url: None, oidc: None };
    let debugger = Debugger::for_tests(Config::default());
    tokio::spawn(serve(listener, router(debugger.clone(), options)));
    TestServer { base: format!("http://{addr}"), debugger, http: reqwest::Client::new() }
}

pub async fn start() -> TestServer {
    start_with(Config { eval_timeout: Duration::from_secs(5), poll_hold: Duration::from_secs(2), ..Config::default() })
        .await
}

impl TestServer {
    /// Posts the page's server function `name` a URL-encoded form, as the page does; answers
    /// the status and the body.
    pub async fn server_function(&self, name: &str, form: &[(&str, &str)]) -> (u16, String) {
        let path = leptos::server_fn::axum::server_fn_paths()
            .map(|(path, _)| path)
            // Each server function's endpoint is its name (`add_breakpoint`, not `add_breakpoint_record`).
            .find(|path| path.strip_prefix("/rpc/") == Some(name))
            .unwrap_or_else(|| panic!("no server function {name}"));
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Origin", &self.base)
            .form(form)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap_or_default())
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(format!("{}{path}", self.base)).send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self.http.post(format!("{}{path}", self.base)).json(&body).send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post_raw(&self, path: &str, body: &'static str) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// Registers a breakpoint on `name` and starts a call of it; returns (call_id, pause_id).
    pub async fn pause_call(&self, name: &str, pid: i64) -> (String, String) {
        let (status, _) = self.post("/api/breakpoints", json!({"function_name": name, "timestamp": 1.0})).await;
        assert_eq!(status, 200);
        let (status, reply) = self
            .post(
                "/api/call/start",
                json!({
                    "method_name": name,
                    "args": [{"cid": INT_6_CID, "client_ref": 1, "data": "gARLBi4=", "repr": "6"}],
                    "kwargs": {},
                    "call_site": {"timestamp": 1.0, "stack_trace": [
                        {"filename": "/app/main.py", "lineno": 12, "function": "handler", "code_context": "compute(6, 7)"}
                    ]},
                    "process_pid": pid,
                    "process_start_time": 1795331833.75,
                    "signature": "(a)",
                }),
            )
            .await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["action"], "poll");
        let pause_id = reply["poll_url"].as_str().unwrap().trim_start_matches("/api/poll/").to_string();
        (reply["call_id"].as_str().unwrap().to_string(), pause_id)
    }

    pub async fn start_session(&self, pause_id: &str) -> String {
        let (status, body) = self.post("/api/repl/start", json!({"pause_id": pause_id})).await;
        assert_eq!(status, 200, "{body}");
        body["session_id"].as_str().unwrap().to_string()
    }

    /// Plays the paused client once: takes the next eval and answers it with `answer(expr)`.
    pub async fn answer_next_eval(&self, pause_id: &str, answer: impl Fn(&str) -> Value) -> Value {
        for _ in 0..200 {
            let (_, req) = self.get(&format!("/api/poll-repl/{pause_id}")).await;
            if let Some(eval_id) = req["eval_id"].as_str() {
                let mut body = answer(req["expr"].as_str().unwrap());
                body["eval_id"] = json!(eval_id);
                body["pause_id"] = json!(pause_id);
                body["session_id"] = req["session_id"].clone();
                let (status, reply) = self.post("/api/call/repl-result", body).await;
                assert_eq!(status, 200, "{reply}");
                return req;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("no eval arrived for pause {pause_id}");
    }
}

/// SHA-512 of the protocol-4 pickle of int 6 (`gARLBi4=`).
pub const INT_6_CID: &str = "12d43901ed6aa2f0823ab23b98eaa65a21536ea1c6cb33d4f410a4f9c6d715173bdb44b77600995e5625248b122d580ccc263c62e95a0aea9113b5813a7eb94e";

/// Tests that render pages take turns: several servers rendering pages at once in one test
/// process now and then stall a render (Leptos keeps process-wide SSR state); one server under
/// 840 concurrent page loads did not, so only the tests are serialized.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A test that renders pages, in its turn, on the one runtime those tests share.
pub fn on_shared_runtime(test: impl std::future::Future<Output = ()>) {
    static RUNTIME: std::sync::LazyLock<tokio::runtime::Runtime> = std::sync::LazyLock::new(|| {
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
    });
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    RUNTIME.block_on(test)
}

/// A test that renders pages, in its turn, on a runtime of its own: its server ends with it, as
/// a `#[tokio::test]`'s does (a server left on the shared runtime keeps its database
/// connections, and PostgreSQL's are counted).
pub fn in_turn(test: impl std::future::Future<Output = ()>) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime").block_on(test)
}

/// An eval's answer without its `timestamp` (checked to be a time), to compare with what the
/// protocol promises: cideldill's four fields, `index` and, when any, `outputs`.
pub fn answer_without_time(mut answer: serde_json::Value) -> serde_json::Value {
    let time = answer.as_object_mut().and_then(|a| a.remove("timestamp"));
    assert!(time.as_ref().and_then(serde_json::Value::as_f64).is_some_and(|t| t > 1.0e9), "no timestamp in {answer}");
    answer
}

/// Waits, up to 20 s, until `done` says so; fails naming `what` after that.
pub async fn wait_until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !done().await {
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
