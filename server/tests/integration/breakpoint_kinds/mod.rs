//! Breakpoints of every kind set through the REST API and carried into real Python programs
//! (issue 18): add each kind, pause on each kind, list, remove, clear, hit counts, conditions
//! that hold, do not hold or raise, hit conditions, logpoints, a line breakpoint added while the
//! program runs, disabled breakpoints, and an unchanged cideldill client's path.

mod in_programs;

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestServer;
use serde_json::{json, Value};

/// A Python program running our client against the test server; killed when dropped.
struct Program {
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Program {
    /// `python -m breakroom app.py` with `source` as app.py.
    fn run(server: &TestServer, source: &str) -> (Program, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("app.py");
        std::fs::write(&script, source).unwrap();
        let child = Command::new("python3")
            .args(["-m", "breakroom"])
            .arg(&script)
            .current_dir(dir.path())
            .env("PYTHONPATH", Path::new(env!("CARGO_MANIFEST_DIR")).join("../client"))
            .env("BREAKROOM_URL", &server.base)
            .env_remove("BREAKROOM_PROCESS_ID")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        (Program { child, _dir: dir }, script)
    }

    /// Waits for the program to exit; returns (exit code, stdout, stderr).
    fn finish(mut self) -> (i32, String, String) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the program did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut out = String::new();
        let mut err = String::new();
        use std::io::Read;
        self.child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        self.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (self.child.wait().unwrap().code().unwrap_or(-1), out, err)
    }
}

/// The line of `source` (from 1) that contains `marker`.
fn line_of(source: &str, marker: &str) -> u32 {
    source.lines().position(|l| l.contains(marker)).map(|i| i as u32 + 1).expect("marker in source")
}

async fn add(server: &TestServer, body: Value) -> Value {
    let (status, saved) = server.post("/api/breakpoints", body).await;
    assert_eq!(status, 200, "{saved}");
    assert!(saved["id"].as_str().is_some_and(|id| id.starts_with("bp-")), "{saved}");
    saved
}

async fn send(server: &TestServer, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request = server.http.request(method, format!("{}{path}", server.base));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn hit_count_of(server: &TestServer, id: &str) -> Option<Value> {
    items(server).await.iter().find(|b| b["id"] == id).map(|b| b["hit_count"].clone())
}

async fn items(server: &TestServer) -> Vec<Value> {
    let (_, list) = server.get("/api/breakpoints").await;
    list["items"].as_array().cloned().unwrap_or_default()
}

/// The first paused call, as `/api/paused` lists it (`id`, `call_data`); with its process's
/// stderr in the failure when none arrives.
async fn wait_paused(server: &TestServer, program: &mut Program) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, paused) = server.get("/api/paused").await;
        if let Some(p) = paused["paused"].as_array().and_then(|a| a.first()) {
            return p.clone();
        }
        if Instant::now() > deadline || program.child.try_wait().unwrap().is_some() {
            let _ = program.child.kill();
            let mut err = String::new();
            use std::io::Read;
            program.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("no pause arrived; the program said: {err}");
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// Evaluates `expr` in a pause through a REPL session; returns the output text.
async fn eval(server: &TestServer, pause_id: &str, expr: &str) -> String {
    let (status, session) = server.post("/api/repl/start", json!({"pause_id": pause_id})).await;
    assert_eq!(status, 200, "{session}");
    let session_id = session["session_id"].as_str().unwrap();
    let (status, out) = server.post(&format!("/api/repl/{session_id}/eval"), json!({"expr": expr})).await;
    assert_eq!(status, 200, "{out}");
    out["output"].as_str().unwrap_or_default().to_string()
}

async fn resume(server: &TestServer, pause_id: &str) {
    let (status, body) = server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "continue"})).await;
    assert_eq!(status, 200, "{body}");
}

async fn events(server: &TestServer, kind: &str) -> Vec<Value> {
    let (_, all) = server.get("/api/events?from_sequence=0").await;
    let list = all.get("events").and_then(Value::as_array).cloned().unwrap_or_default();
    list.into_iter().filter(|e| e["type"] == kind).collect()
}

async fn wait_events(server: &TestServer, kind: &str, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let found = events(server, kind).await;
        if found.len() >= n {
            return found;
        }
        assert!(Instant::now() < deadline, "{n} {kind} events expected, got {found:?}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// A program that reports when it is ready, then runs `step(i)` for i in 0..n.
fn looping_program(n: u32, pace: &str) -> String {
    format!(
        "import time\n\
         def step(i):\n    total = i * 2  # the line\n    return total\n\n\
         print('ready', flush=True)\n\
         for i in range({n}):\n    step(i)\n    time.sleep({pace})\n\
         print('done', flush=True)\n"
    )
}

#[tokio::test]
async fn add_each_kind_returns_an_id_and_lists_it_with_its_options() {
    let server = common::start().await;
    let f = add(&server, json!({"kind": "function", "function_name": "compute", "hit_condition": ">= 2"})).await;
    let l = add(&server, json!({"kind": "line", "file": "app.py", "line": 12, "condition": "n > 3"})).await;
    let e = add(&server, json!({"kind": "error", "exception_types": ["ValueError"], "enabled": false})).await;
    assert_eq!((&f["kind"], &l["kind"], &e["kind"]), (&json!("function"), &json!("line"), &json!("error")));
    let listed = items(&server).await;
    let ids: Vec<&Value> = listed.iter().map(|b| &b["id"]).collect();
    assert_eq!(ids, [&f["id"], &l["id"], &e["id"]]);
    assert_eq!(listed[0]["hit_condition"], ">= 2");
    assert_eq!(
        (&listed[1]["file"], &listed[1]["line"], &listed[1]["condition"]),
        (&json!("app.py"), &json!(12), &json!("n > 3"))
    );
    assert_eq!((&listed[2]["exception_types"], &listed[2]["enabled"]), (&json!(["ValueError"]), &json!(false)));
    assert!(listed.iter().all(|b| b["hit_count"] == 0));
    // cideldill's view keeps its shape: the function breakpoint by name.
    let (_, list) = server.get("/api/breakpoints").await;
    assert_eq!(list["breakpoints"], json!(["compute"]));
    assert_eq!(list["breakpoint_behaviors"]["compute"], "yield");
}

#[tokio::test]
async fn bad_breakpoints_are_refused_with_the_field_named() {
    let server = common::start().await;
    let cases = [
        (json!({"kind": "line", "file": "app.py", "line": 0}), "invalid_line"),
        (json!({"kind": "line", "file": "", "line": 3}), "empty_file"),
        (json!({"kind": "function", "function_name": "f", "pattern": "(unclosed"}), "invalid_pattern"),
        (json!({"kind": "function", "function_name": "f", "hit_condition": "sometimes"}), "invalid_hit_condition"),
        (json!({"kind": "function", "function_name": "f", "hit_condition": "% 0"}), "invalid_hit_condition"),
        (json!({"kind": "watch"}), "invalid_kind"),
        (json!({"kind": "function"}), "missing_function_name"),
        (json!({"kind": "error", "exception_types": "ValueError"}), "invalid_exception_types"),
        (json!({"kind": "line", "file": "a.py", "line": 2, "enabled": "yes"}), "invalid_enabled"),
    ];
    for (body, code) in cases {
        let (status, err) = server.post("/api/breakpoints", body.clone()).await;
        assert_eq!((status, err["error"].as_str()), (400, Some(code)), "{body} → {err}");
        assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()), "{err}");
    }
    assert!(items(&server).await.is_empty());
    let bp = add(&server, json!({"kind": "line", "file": "app.py", "line": 3})).await;
    let path = format!("/api/breakpoints/{}", bp["id"].as_str().unwrap());
    let (status, err) = send(&server, reqwest::Method::PATCH, &path, Some(json!({"line": 4}))).await;
    assert_eq!((status, err["error"].as_str()), (400, Some("immutable_field")), "{err}");
    let (status, err) = send(&server, reqwest::Method::PATCH, &path, Some(json!({"hit_condition": "x"}))).await;
    assert_eq!((status, err["error"].as_str()), (400, Some("invalid_hit_condition")), "{err}");
    let (status, err) = send(&server, reqwest::Method::PATCH, "/api/breakpoints/bp-999", Some(json!({}))).await;
    assert_eq!((status, err["error"].as_str()), (404, Some("breakpoint_not_found")), "{err}");
}

#[tokio::test]
async fn patch_remove_and_clear_breakpoints() {
    let server = common::start().await;
    let a = add(&server, json!({"kind": "line", "file": "app.py", "line": 3})).await;
    let b = add(&server, json!({"kind": "function", "function_name": "g"})).await;
    add(&server, json!({"kind": "error"})).await;
    let a_path = format!("/api/breakpoints/{}", a["id"].as_str().unwrap());
    let (status, patched) =
        send(&server, reqwest::Method::PATCH, &a_path, Some(json!({"condition": "x > 1", "enabled": false}))).await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(
        (&patched["condition"], &patched["enabled"], &patched["line"]),
        (&json!("x > 1"), &json!(false), &json!(3))
    );
    let (status, _) = send(&server, reqwest::Method::DELETE, &a_path, None).await;
    assert_eq!(status, 200);
    let (status, _) = send(&server, reqwest::Method::DELETE, &a_path, None).await;
    assert_eq!(status, 200, "an unknown id reads as a cideldill function name: always 200");
    let left: Vec<Value> = items(&server).await.iter().map(|i| i["id"].clone()).collect();
    assert_eq!(left.len(), 2);
    assert!(left.contains(&b["id"]));
    let (status, cleared) = send(&server, reqwest::Method::DELETE, "/api/breakpoints", None).await;
    assert_eq!((status, &cleared["removed"]), (200, &json!(2)), "{cleared}");
    assert!(items(&server).await.is_empty());
    let (_, list) = server.get("/api/breakpoints").await;
    assert_eq!(list["breakpoints"], json!([]));
}

/// Line breakpoints are counted in the programs: each reports its own count, a hit with its
/// count after it or its counts alone, and what two programs counted adds up.
#[tokio::test]
async fn hits_two_programs_count_add_up_instead_of_overwriting_each_other() {
    let server = common::start().await;
    let bp = add(&server, json!({"kind": "line", "file": "app.py", "line": 3, "hit_condition": "== 100000"})).await;
    let id = bp["id"].as_str().unwrap();
    for (pid, counted) in [(4101, 300), (4102, 250)] {
        let identity = json!({"process_pid": pid, "process_start_time": 1795331833.5});
        let mut hit = json!({"event": "breakpoint_hit", "breakpoint_id": id, "hit_count": 120, "reason": "hit 120"});
        hit.as_object_mut().unwrap().extend(identity.as_object().unwrap().clone());
        let (status, reply) = server.post("/api/breakpoint-hits", hit).await;
        assert_eq!(status, 200, "{reply}");
        let mut counts = json!({"event": "hit_count", "counts": {id: counted}});
        counts.as_object_mut().unwrap().extend(identity.as_object().unwrap().clone());
        let (status, reply) = server.post("/api/breakpoint-hits", counts.clone()).await;
        assert_eq!(status, 200, "{reply}");
        // The same count sent again (a retry) adds nothing.
        let (status, reply) = server.post("/api/breakpoint-hits", counts).await;
        assert_eq!(status, 200, "{reply}");
    }
    assert_eq!(hit_count_of(&server, id).await, Some(json!(550)));
    // A new hit condition counts from the start: then only what each program counts after it.
    let path = format!("/api/breakpoints/{id}");
    let (status, _) = send(&server, reqwest::Method::PATCH, &path, Some(json!({"hit_condition": ">= 5"}))).await;
    assert_eq!(status, 200);
    assert_eq!(hit_count_of(&server, id).await, Some(json!(0)));
    let counts = json!({"event": "hit_count", "counts": {id: 7}, "process_pid": 4103, "process_start_time": 1.5});
    assert_eq!(server.post("/api/breakpoint-hits", counts).await.0, 200);
    assert_eq!(hit_count_of(&server, id).await, Some(json!(7)));
}

#[tokio::test]
async fn breakpoints_persist_across_a_restart_with_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    let config = breakroom_debugger::Config::default();
    let first = breakroom_debugger::Debugger::open(config.clone(), dir.path()).unwrap();
    let added = first
        .breakpoints()
        .add_breakpoint_record(
            &serde_json::from_value(json!({"kind": "line", "file": "a.py", "line": 7, "log_message": "x={x}"}))
                .unwrap(),
        )
        .unwrap();
    drop(first);
    let again = breakroom_debugger::Debugger::open(config, dir.path()).unwrap();
    let records = again.breakpoints().breakpoint_records();
    assert_eq!(records, vec![added.clone()]);
    let next =
        again.breakpoints().add_breakpoint_record(&serde_json::from_value(json!({"kind": "error"})).unwrap()).unwrap();
    assert_ne!(next.id, added.id, "ids are not reused after a restart");
}
