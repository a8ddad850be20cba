//! Completion and the variables panel, answered by real paused Python programs: Breakroom's
//! own client (its `complete`/`variables`/`expand` requests) and an eval-only client (the
//! completion snippet evaluated by plain `eval`). Neither leaves a trace in the transcript.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestServer;
use serde_json::{json, Value};

/// A paused program with an object whose property has a side effect (a marker file).
const PROGRAM: &str = r#"
import os, sys
class Point:
    def __init__(self):
        self.field = 1
        self.other = [1, 2, 3]
    @property
    def boom(self):
        open(sys.argv[1], "w").write("getter ran")
        return 0
p = Point()
config = {"alpha": 1, "beta": 2}
breakpoint()
"#;

struct Program(Child);

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_program(server: &TestServer, marker: &Path) -> Program {
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("../client");
    let child = Command::new("python3")
        .args(["-c", PROGRAM])
        .arg(marker)
        .env("PYTHONPATH", client)
        .env("BREAKROOM_URL", &server.base)
        .env("PYTHONBREAKPOINT", "breakroom.set_trace")
        .env_remove("BREAKROOM_PROCESS_ID")
        .stdout(Stdio::null())
        .spawn()
        .expect("python3");
    Program(child)
}

async fn paused_session(server: &TestServer) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, paused) = server.get("/api/paused").await;
        if let Some(pause_id) = paused["paused"][0]["id"].as_str() {
            return server.start_session(pause_id).await;
        }
        assert!(Instant::now() < deadline, "no pause arrived: {paused}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn marker() -> PathBuf {
    tempfile::tempdir().expect("temp dir").keep().join("getter-ran")
}

fn matches(reply: &Value) -> Vec<&str> {
    reply["matches"].as_array().map(|m| m.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

#[tokio::test]
async fn completion_reaches_the_paused_frame_and_runs_no_getter() {
    let server = common::start().await;
    let marker = marker();
    let _program = spawn_program(&server, &marker);
    let session = paused_session(&server).await;
    let url = format!("/api/repl/{session}/complete");

    let (status, reply) = server.post(&url, json!({"code": "p.fi", "cursor_pos": 4})).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(matches(&reply), ["field"]);
    assert_eq!((reply["cursor_start"].as_u64(), reply["cursor_end"].as_u64()), (Some(2), Some(4)));

    let (_, reply) = server.post(&url, json!({"code": "p.", "cursor_pos": 2})).await;
    let listed = matches(&reply);
    let boom = listed.iter().position(|m| *m == "boom").unwrap_or_else(|| panic!("boom listed: {reply}"));
    assert_eq!(reply["metadata"]["types"][boom], "property", "{reply}");
    assert!(!marker.exists(), "completion ran the property's getter");

    let (_, reply) = server.post(&url, json!({"code": "config[\"", "cursor_pos": 8})).await;
    assert_eq!(matches(&reply), ["alpha\"]", "beta\"]"], "{reply}");
    let (_, reply) = server.post(&url, json!({"code": "conf"})).await;
    assert!(matches(&reply).contains(&"config"), "the cursor defaults to the end: {reply}");

    // Names the session assigns complete too; the helpers left the transcript with this eval only.
    let (status, _) = server.post(&format!("/api/repl/{session}/eval"), json!({"expr": "session_name = 5"})).await;
    assert_eq!(status, 200);
    let (_, reply) = server.post(&url, json!({"code": "session_n"})).await;
    assert_eq!(matches(&reply), ["session_name"]);
    let (_, body) = server.get(&format!("/api/repl/{session}")).await;
    let inputs: Vec<&str> =
        body["session"]["transcript"].as_array().unwrap().iter().filter_map(|e| e["input"].as_str()).collect();
    assert_eq!(inputs, ["session_name = 5"]);
    let (_, events) = server.get(&format!("/api/events?session_id={session}")).await;
    let requests = events["events"].as_array().unwrap().iter().filter(|e| e["type"] == "eval_request").count();
    assert_eq!(requests, 1, "only the eval is in the history: {events}");
}

#[tokio::test]
async fn completion_refuses_bad_input_with_4xx() {
    let server = common::start().await;
    let marker = marker();
    let _program = spawn_program(&server, &marker);
    let session = paused_session(&server).await;
    let url = format!("/api/repl/{session}/complete");
    let cases = [
        (url.as_str(), json!({"code": "abc", "cursor_pos": 4}), 400, "cursor_out_of_range"),
        (url.as_str(), json!({"code": "ü", "cursor_pos": 2}), 400, "cursor_out_of_range"),
        (url.as_str(), json!({"cursor_pos": 0}), 400, "missing_code"),
        (url.as_str(), json!({"code": "a", "cursor_pos": -1}), 400, "invalid_json"),
        ("/api/repl/no-such-session/complete", json!({"code": "a"}), 404, "session_not_found"),
    ];
    for (path, body, status, code) in cases {
        let (got, reply) = server.post(path, body.clone()).await;
        assert_eq!((got, reply["error"].as_str()), (status, Some(code)), "{body}: {reply}");
    }
    // Code points, not bytes: the cursor after "ü" is 1.
    let (status, reply) = server.post(&url, json!({"code": "ü", "cursor_pos": 1})).await;
    assert_eq!(status, 200, "{reply}");
    server.post(&format!("/api/repl/{session}/close"), json!({})).await;
    let (status, reply) = server.post(&url, json!({"code": "a"})).await;
    assert_eq!((status, reply["error"].as_str()), (409, Some("session_closed")));
}

#[tokio::test]
async fn the_variables_panel_lists_locals_and_expands_one_level_statically() {
    let server = common::start().await;
    let marker = marker();
    let _program = spawn_program(&server, &marker);
    let session = paused_session(&server).await;
    server.post(&format!("/api/repl/{session}/eval"), json!({"expr": "mine = 'x' * 1000"})).await;

    let (status, reply) = server.get(&format!("/api/repl/{session}/variables")).await;
    assert_eq!(status, 200, "{reply}");
    let rows = reply["variables"].as_array().unwrap();
    let row =
        |name: &str| rows.iter().find(|r| r["name"] == name).cloned().unwrap_or_else(|| panic!("{name}: {reply}"));
    assert_eq!((row("config")["type"].as_str(), row("config")["scope"].as_str()), (Some("dict"), Some("local")));
    assert_eq!(row("p")["type"], "__main__.Point");
    assert_eq!(row("p")["expandable"], true);
    assert_eq!(row("mine")["scope"], "session");
    assert!(row("mine")["repr"].as_str().unwrap().chars().count() <= 200, "the repr is bounded: {}", row("mine"));

    let expand = format!("/api/repl/{session}/variables/expand");
    let (status, reply) = server.post(&expand, json!({"path": row("p")["path"]})).await;
    assert_eq!(status, 200, "{reply}");
    let children: Vec<(&str, &str)> = reply["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["type"].as_str().unwrap()))
        .collect();
    assert!(children.contains(&("field", "int")) && children.contains(&("boom", "property")), "{reply}");
    assert!(!marker.exists(), "expanding ran the property's getter");

    let (status, reply) = server.post(&expand, json!({"path": [["var", "p"], ["attr", "other"]]})).await;
    assert_eq!((status, reply["count"].as_u64()), (200, Some(3)), "{reply}");
    for (path, code) in [
        (json!([["var", "nothing_here"]]), "invalid_path"),
        (json!([["attr", "x"]]), "invalid_path"),
        (json!("p"), "invalid_path"),
    ] {
        let (status, reply) = server.post(&expand, json!({"path": path})).await;
        assert_eq!((status, reply["error"].as_str()), (400, Some(code)), "{path}: {reply}");
    }
}

/// What an unchanged cideldill client does with any eval: `repr(eval(expr, namespace))`.
fn eval_only_client(expr: &str) -> Value {
    let script =
        "import sys\nns = {'config': {'alpha': 1}, 'counter': 3}\nprint(repr(eval(sys.stdin.read(), ns)), end='')";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write;
    child.stdin.take().expect("stdin").write_all(expr.as_bytes()).expect("write");
    let output = child.wait_with_output().expect("python3 output");
    json!({"result": String::from_utf8_lossy(&output.stdout), "stdout": "", "error": null})
}

#[tokio::test]
async fn an_eval_only_client_completes_through_the_snippet() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("compute", 4242).await;
    let session = server.start_session(&pause_id).await;
    for (code, expected) in [("conf", vec!["config"]), ("config['", vec!["alpha']"]), ("count", vec!["counter"])] {
        let asking = {
            let (http, url) = (server.http.clone(), format!("{}/api/repl/{session}/complete", server.base));
            tokio::spawn(async move {
                http.post(url).json(&json!({"code": code})).send().await.unwrap().json::<Value>().await
            })
        };
        let request = server.answer_next_eval(&pause_id, eval_only_client).await;
        assert_eq!(request["kind"], "complete", "{request}");
        let reply = asking.await.unwrap().unwrap();
        assert_eq!(matches(&reply), expected, "{reply}");
    }
    let (_, body) = server.get(&format!("/api/repl/{session}")).await;
    assert_eq!(body["session"]["transcript"], json!([]), "completions are not in the transcript");
}
