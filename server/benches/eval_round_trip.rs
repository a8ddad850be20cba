//! Eval round trip over HTTP: a browser-side caller posts `/api/repl/{id}/eval`, a scripted
//! paused client takes it with its long-poll and posts the result, the caller gets its answer.
//! Measured against the real `breakroom` binary, alone and with 1,000 other pauses held open
//! (each with a client long-polling), and the server's RSS after each.
//!
//!     cargo bench -p breakroom --bench eval_round_trip
//!
//! Prints figures; it asserts nothing (targets: p50 ≤ 0.5 ms, p99 ≤ 2 ms, RSS ≤ 100 MB).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const SAMPLES: usize = 2_000;
const HELD_PAUSES: usize = 1_000;
const INT_6_CID: &str = "12d43901ed6aa2f0823ab23b98eaa65a21536ea1c6cb33d4f410a4f9c6d715173bdb44b77600995e5625248b122d580ccc263c62e95a0aea9113b5813a7eb94e";

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server() -> Server {
    let bin = std::env::var("BREAKROOM_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_breakroom").to_string());
    let home = std::env::temp_dir().join(format!("breakroom-bench-{}", std::process::id()));
    let mut child = Command::new(bin)
        .args(["--port", "0", "--data-dir"])
        .arg(home.join("data"))
        .env("CIDELDILL_HOME", &home)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start breakroom");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let base = loop {
        let line = lines.next().expect("breakroom exited").expect("read stdout");
        if let Some(url) = line.split("Server running on ").nth(1) {
            break url.trim().to_string();
        }
    };
    Server { child, base }
}

fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

async fn post(http: &reqwest::Client, url: String, body: Value) -> Value {
    http.post(url).json(&body).send().await.expect("post").json().await.expect("json")
}

/// Starts a paused call for process `pid`; returns its pause id.
async fn pause(http: &reqwest::Client, base: &str, pid: u32) -> String {
    let reply = post(
        http,
        format!("{base}/api/call/start"),
        json!({
            "method_name": "handler",
            "args": [{"cid": INT_6_CID, "client_ref": 1, "data": "gARLBi4=", "repr": "6"}],
            "kwargs": {},
            "call_site": {"timestamp": 1.0, "stack_trace": []},
            "process_pid": pid,
            "process_start_time": 1_795_331_833.75,
        }),
    )
    .await;
    reply["poll_url"].as_str().expect("a poll action").trim_start_matches("/api/poll/").to_string()
}

/// The paused program's side, as Breakroom's client does it: long-polls with `?evals=1` and
/// answers each eval with its next poll (`POST /api/poll/{id}`), one round trip per eval.
fn spawn_client(http: reqwest::Client, base: String, pause_id: String) {
    tokio::spawn(async move {
        let url = format!("{base}/api/poll/{pause_id}?evals=1");
        let mut answer: Option<Value> = None;
        loop {
            let request = match answer.take() {
                Some(body) => http.post(&url).json(&body),
                None => http.get(&url),
            };
            let Ok(resp) = request.send().await else { return };
            let Ok(reply) = resp.json::<Value>().await else { return };
            if reply["status"] == "ready" {
                return;
            }
            if let Some(eval) = reply.get("eval") {
                answer = Some(json!({
                    "eval_id": eval["eval_id"], "pause_id": pause_id, "session_id": eval["session_id"],
                    "result": "42", "stdout": "", "error": null, "result_cid": null, "result_data": null,
                }));
            }
        }
    });
}

async fn measure(http: &reqwest::Client, base: &str, session_id: &str) -> Vec<Duration> {
    let url = format!("{base}/api/repl/{session_id}/eval");
    for _ in 0..100 {
        post(http, url.clone(), json!({"expr": "a * b"})).await; // warm-up
    }
    let mut times = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let started = Instant::now();
        let outcome = post(http, url.clone(), json!({"expr": "a * b"})).await;
        times.push(started.elapsed());
        assert_eq!(outcome["output"], "42", "{outcome}");
    }
    times.sort();
    times
}

fn report(label: &str, times: &[Duration], rss: f64) {
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)].as_secs_f64() * 1000.0;
    println!(
        "{label:<34} n={:<5} p50={:.3} ms  p90={:.3} ms  p99={:.3} ms  max={:.3} ms  server RSS={rss:.1} MB",
        times.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0)
    );
}

#[tokio::main]
async fn main() {
    let server = start_server();
    let base = server.base.clone();
    let pid = server.child.id();
    let caller = reqwest::Client::new();
    let clients = reqwest::Client::builder().pool_max_idle_per_host(HELD_PAUSES + 10).build().expect("client");

    post(&caller, format!("{base}/api/breakpoints"), json!({"function_name": "handler"})).await;
    let pause_id = pause(&caller, &base, 1).await;
    spawn_client(clients.clone(), base.clone(), pause_id.clone());
    let session = post(&caller, format!("{base}/api/repl/start"), json!({"pause_id": pause_id})).await;
    let session_id = session["session_id"].as_str().expect("session id").to_string();
    println!("eval round trip over HTTP, {SAMPLES} evals each, release server at {base}");
    report("1 pause", &measure(&caller, &base, &session_id).await, rss_mb(pid));

    for i in 0..HELD_PAUSES {
        let other = pause(&caller, &base, 10_000 + i as u32).await;
        spawn_client(clients.clone(), base.clone(), other);
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // let every client's poll arrive
    report(
        &format!("with {HELD_PAUSES} more pauses held open"),
        &measure(&caller, &base, &session_id).await,
        rss_mb(pid),
    );
}
