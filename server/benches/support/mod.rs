//! What the benchmarks share: the real `breakroom` binary started on a free port, its resident
//! memory, and a scripted paused call with the client that answers its evals.
#![allow(dead_code)] // each benchmark uses its own part

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

/// SHA-512 of the protocol-4 pickle of int 6 (`gARLBi4=`).
pub const INT_6_CID: &str = "12d43901ed6aa2f0823ab23b98eaa65a21536ea1c6cb33d4f410a4f9c6d715173bdb44b77600995e5625248b122d580ccc263c62e95a0aea9113b5813a7eb94e";

/// A running server, killed when dropped.
pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `breakroom` (or `BREAKROOM_BIN`) with its data under a fresh directory of this process.
pub fn start_server() -> Server {
    start_server_in(&std::env::temp_dir().join(format!("breakroom-bench-{}", std::process::id())), &[])
}

/// `breakroom` with its home in `home` and `extra` arguments; its later output is drained so
/// it never blocks on a full pipe.
pub fn start_server_in(home: &Path, extra: &[&str]) -> Server {
    let bin = std::env::var("BREAKROOM_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_breakroom").to_string());
    let mut child = Command::new(bin)
        .args(["--port", "0"])
        .args(extra)
        .arg("--data-dir")
        .arg(home.join("data"))
        .env("CIDELDILL_HOME", home)
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
    std::thread::spawn(move || lines.for_each(drop));
    Server { child, base }
}

/// Resident memory of a process, MB.
pub fn rss_mb(pid: impl Into<i64>) -> f64 {
    let pid = pid.into();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

pub async fn post(http: &reqwest::Client, url: String, body: Value) -> Value {
    http.post(url).json(&body).send().await.expect("post").json().await.expect("json")
}

/// Starts a paused call for process `pid`; returns its pause id.
pub async fn pause(http: &reqwest::Client, base: &str, pid: u32) -> String {
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
pub fn spawn_client(http: reqwest::Client, base: String, pause_id: String) {
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
