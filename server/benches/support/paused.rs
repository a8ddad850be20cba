//! A scripted paused call and the client that answers its evals, for the benchmarks that
//! time evals (`#[path]`-included beside `support`).

use serde_json::{json, Value};

/// SHA-512 of the protocol-4 pickle of int 6 (`gARLBi4=`).
pub const INT_6_CID: &str = "12d43901ed6aa2f0823ab23b98eaa65a21536ea1c6cb33d4f410a4f9c6d715173bdb44b77600995e5625248b122d580ccc263c62e95a0aea9113b5813a7eb94e";

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
