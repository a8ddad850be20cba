//! MCP tool call round trip over Streamable HTTP (`/mcp`) against the real `breakroom` binary:
//! `breakpoint_list_paused`, and `breakpoint_repl_eval` beside the REST eval it wraps
//! (`POST /api/repl/{id}/eval`) on the same session, answered by a scripted paused client.
//! The MCP side speaks JSON-RPC as an agent's HTTP transport does: initialize (keeping the
//! session id), `notifications/initialized`, then one POST per tool call, read from its event stream.
//!
//!     cargo bench -p breakroom --bench mcp_round_trip
//!
//! Prints figures; it asserts nothing (goals: list_paused p50 <= 5 ms; repl_eval p50 within
//! 1 ms of the REST eval's).

#[path = "support/paused.rs"]
mod paused;
mod support;

use std::time::{Duration, Instant};

use paused::{pause, post, spawn_client};
use serde_json::{json, Value};
use support::rss_mb;

const SAMPLES: usize = 1_000;

/// An MCP session over Streamable HTTP.
struct Mcp {
    http: reqwest::Client,
    url: String,
    session: String,
    next_id: u64,
}

impl Mcp {
    async fn connect(http: reqwest::Client, base: &str) -> Mcp {
        let url = format!("{base}/mcp");
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}});
        let response = Self::send(&http, &url, None, &init).await;
        let session = response.headers().get("mcp-session-id").expect("a session id").to_str().unwrap().to_string();
        let answer = last_message(&response.text().await.expect("body"));
        assert!(answer["result"]["serverInfo"]["name"] == "breakroom", "{answer}");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        Self::send(&http, &url, Some(&session), &initialized).await;
        Mcp { http, url, session, next_id: 1 }
    }

    async fn send(http: &reqwest::Client, url: &str, session: Option<&str>, body: &Value) -> reqwest::Response {
        let mut request = http
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
        }
        request.send().await.expect("post")
    }

    /// A tool call's structured content.
    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        let response = Self::send(&self.http, &self.url, Some(&self.session), &body).await;
        let answer = last_message(&response.text().await.expect("body"));
        assert!(answer["result"]["isError"] == false, "{answer}");
        answer["result"]["structuredContent"].clone()
    }
}

/// The last JSON message of an answer: a JSON body, or the last `data:` of an event stream.
fn last_message(text: &str) -> Value {
    if let Ok(value) = serde_json::from_str(text) {
        return value;
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .last()
        .unwrap_or(Value::Null)
}

/// Runs `$once` (an async block) 100 times to warm up, then SAMPLES times timed; sorted times.
macro_rules! timed {
    ($once:expr) => {{
        for _ in 0..100 {
            $once.await;
        }
        let mut times = Vec::with_capacity(SAMPLES);
        for _ in 0..SAMPLES {
            let started = Instant::now();
            $once.await;
            times.push(started.elapsed());
        }
        times.sort();
        times
    }};
}

fn pct(times: &[Duration], p: f64) -> f64 {
    times[((times.len() as f64 * p) as usize).min(times.len() - 1)].as_secs_f64() * 1000.0
}

fn report(label: &str, times: &[Duration]) {
    println!(
        "{label:<40} n={:<5} p50={:.3} ms  p90={:.3} ms  p99={:.3} ms  max={:.3} ms",
        times.len(),
        pct(times, 0.5),
        pct(times, 0.9),
        pct(times, 0.99),
        pct(times, 1.0)
    );
}

#[tokio::main]
async fn main() {
    let server = support::start_server_in(&support::bench_home("mcp"), &[]);
    let base = server.base.clone();
    let caller = reqwest::Client::new();

    post(&caller, format!("{base}/api/breakpoints"), json!({"function_name": "handler"})).await;
    let pause_id = pause(&caller, &base, 1).await;
    spawn_client(reqwest::Client::new(), base.clone(), pause_id.clone());
    let session = post(&caller, format!("{base}/api/repl/start"), json!({"pause_id": pause_id})).await;
    let session_id = session["session_id"].as_str().expect("session id").to_string();
    let mut mcp = Mcp::connect(reqwest::Client::new(), &base).await;
    println!("MCP tool calls over Streamable HTTP, {SAMPLES} calls each, release server at {base}, 1 pause");

    let listed: Vec<Duration> = timed!(async {
        let paused = mcp.call("breakpoint_list_paused", json!({})).await;
        assert_eq!(paused["paused"].as_array().map(Vec::len), Some(1), "{paused}");
    });
    report("MCP breakpoint_list_paused", &listed);

    let rest_url = format!("{base}/api/repl/{session_id}/eval");
    let rest: Vec<Duration> = timed!(async {
        let outcome = post(&caller, rest_url.clone(), json!({"expr": "a * b"})).await;
        assert_eq!(outcome["output"], "42", "{outcome}");
    });
    report("REST POST /api/repl/{id}/eval", &rest);

    let arguments = json!({"pause_id": pause_id, "session_id": session_id, "expression": "a * b"});
    let evals: Vec<Duration> = timed!(async {
        let outcome = mcp.call("breakpoint_repl_eval", arguments.clone()).await;
        assert_eq!(outcome["output"], "42", "{outcome}");
    });
    report("MCP breakpoint_repl_eval", &evals);
    println!(
        "breakpoint_repl_eval - REST eval: p50 {:+.3} ms, p99 {:+.3} ms",
        pct(&evals, 0.5) - pct(&rest, 0.5),
        pct(&evals, 0.99) - pct(&rest, 0.99)
    );
    println!("server RSS={:.1} MB", rss_mb(server.child.id()));
}
