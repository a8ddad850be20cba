//! Named checkpoints asked of a paused process (`POST /api/processes/{id}/checkpoints`), against
//! real Python processes: one whose program polls at its pause takes it; one whose program never
//! polls is refused with `not_polling` at once instead of after the 10 s wait for a fork.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestServer;
use serde_json::{json, Value};

/// A Python program against the test server; killed when dropped.
struct Program(Child);

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run(server: &TestServer, dir: &Path, source: &str, env: &[(&str, &str)]) -> Program {
    let script = dir.join("app.py");
    std::fs::write(&script, source).unwrap();
    let child = Command::new("python3")
        .arg(&script)
        .current_dir(dir)
        .env("PYTHONPATH", Path::new(env!("CARGO_MANIFEST_DIR")).join("../client"))
        .env("BREAKROOM_URL", &server.base)
        .env_remove("BREAKROOM_PROCESS_ID")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Program(child)
}

/// The process record of `pid` once its pause is listed: (process id, pause id).
async fn paused(server: &TestServer, program: &mut Program, function: &str) -> (String, String) {
    let pid = program.0.id() as i64;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, list) = server.get("/api/paused").await;
        let pause =
            list["paused"].as_array().into_iter().flatten().find(|p| {
                p["call_data"]["method_name"] == function && p["call_data"]["process_pid"].as_i64() == Some(pid)
            });
        let (_, processes) = server.get("/api/processes").await;
        let process = processes["processes"].as_array().into_iter().flatten().find(|p| p["pid"].as_i64() == Some(pid));
        if let (Some(pause), Some(process)) = (pause, process) {
            return (process["id"].as_str().unwrap().to_string(), pause["id"].as_str().unwrap().to_string());
        }
        assert!(program.0.try_wait().unwrap().is_none(), "the program of {function} ended before it paused");
        assert!(Instant::now() < deadline, "{function} never paused");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// Asks for a named checkpoint, giving up after 5 s (the server's own wait for a fork is 10 s).
async fn checkpoint(server: &TestServer, process_id: &str) -> (u16, Value) {
    let response = server
        .http
        .post(format!("{}/api/processes/{process_id}/checkpoints", server.base))
        .json(&json!({"label": "here"}))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .expect("an answer before the server's 10 s wait for a fork ran out");
    (response.status().as_u16(), response.json().await.unwrap())
}

/// A program speaking the client protocol itself: it reports a call with checkpoints on, is
/// told to poll, and never does.
const NEVER_POLLS: &str = r#"
import json, os, time, urllib.request

body = {
    "method_name": "never_polls", "args": [], "kwargs": {}, "signature": "()",
    "call_site": {"timestamp": time.time(), "stack_trace": []},
    "process_pid": os.getpid(), "process_start_time": time.time(), "hostname": os.uname().nodename,
    "checkpoints": {"refusal": None},
}
request = urllib.request.Request(
    os.environ["BREAKROOM_URL"] + "/api/call/start", data=json.dumps(body).encode(),
    headers={"Content-Type": "application/json"})
urllib.request.urlopen(request).read()
time.sleep(120)
"#;

const POLLS: &str = r#"
import time
import breakroom

@breakroom.breakpoint
def polls():
    return 1

polls()
time.sleep(120)
"#;

#[tokio::test]
async fn a_checkpoint_is_taken_by_a_polling_program_and_refused_at_once_to_one_that_never_polls() {
    let server = common::start().await;
    let dir = tempfile::tempdir().unwrap();
    server.post("/api/breakpoints", json!({"function_name": "never_polls", "signature": "()"})).await;
    let mut silent = run(&server, dir.path(), NEVER_POLLS, &[]);
    let (process_id, _) = paused(&server, &mut silent, "never_polls").await;
    let (status, body) = checkpoint(&server, &process_id).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("not_polling")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("not waiting"), "{body}");
    // Asked again, the same (nothing was left waiting for a poll).
    let (status, body) = checkpoint(&server, &process_id).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("not_polling")), "{body}");

    let other = tempfile::tempdir().unwrap();
    let mut polling = run(&server, other.path(), POLLS, &[("BREAKROOM_CHECKPOINTS", "1")]);
    let (process_id, pause_id) = paused(&server, &mut polling, "polls").await;
    let (status, body) = checkpoint(&server, &process_id).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["label"].as_str(), body["pause_id"].as_str()), (Some("here"), Some(pause_id.as_str())), "{body}");
    let (_, timeline) = server.get(&format!("/api/processes/{process_id}/timeline")).await;
    let labels: Vec<&str> =
        timeline["checkpoints"].as_array().unwrap().iter().filter_map(|c| c["label"].as_str()).collect();
    assert_eq!(labels, ["here"], "{timeline}");
    let (status, body) = server.post(&format!("/api/processes/{process_id}/stop"), json!({})).await;
    assert_eq!(status, 200, "{body}");
}
