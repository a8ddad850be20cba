//! Breakroom's JavaScript client (`client-js/breakroom.mjs`) in real Node programs: a call pauses
//! and the REPL evaluates JavaScript in the program (arguments by name, names kept for the
//! session, console output captured, errors as `Name: message`), reassigned arguments are what
//! the call runs with, and modify, skip and raise from the UI, async functions, thrown errors,
//! `breakroom.pause(locals)`, the offline fallback and the script the server serves.

use crate::common;

use common::node::{breakroom_client, NodeProgram};
use common::TestServer;
use serde_json::{json, Value};

const ADD: &str = r#"
import { withDebug } from 'CLIENT';
const add = withDebug(function add(a, b) { console.log('add ran'); return a + b; });
try {
  console.log('RESULT', JSON.stringify(await add(2, 3)));
} catch (err) {
  console.log('CAUGHT', `${err.name}: ${err.message}`);
}
"#;

async fn paused(server: &TestServer, source: &str, function: &str) -> (NodeProgram, String) {
    server.add_breakpoint(function).await;
    let program = NodeProgram::run(server, &breakroom_client(), source);
    let pause = server.wait_for_pause(function).await;
    (program, pause["id"].as_str().unwrap().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_node_call_evaluates_javascript_with_its_arguments_and_runs_with_the_reassigned_ones() {
    let server = common::start().await;
    let (program, pause_id) = paused(&server, ADD, "add").await;
    let (_, list) = server.get("/api/paused").await;
    assert_eq!(list["paused"][0]["call_data"]["language"], "javascript", "{list}");
    assert_eq!(list["paused"][0]["call_data"]["pretty_args"], json!(["2", "3"]));
    let session = server.start_session(&pause_id).await;

    let product = server.eval_in(&session, "a * b").await;
    assert_eq!((product["output"].as_str(), product["is_error"].as_bool()), (Some("6"), Some(false)), "{product}");
    let printed = server.eval_in(&session, "console.log('hi', a, {k: [1]}); `${a}-${b}`").await;
    assert_eq!(printed["output"], "\"2-3\"");
    assert_eq!(printed["stdout"], "hi 2 {k: [1]}\n");
    server.eval_in(&session, "let kept = 40").await;
    assert_eq!(server.eval_in(&session, "kept + a").await["output"], "42");
    assert_eq!(server.eval_in(&session, "typeof process.pid").await["output"], "\"number\"");

    let missing = server.eval_in(&session, "nowhere + 1").await;
    assert_eq!(missing["output"], "ReferenceError: nowhere is not defined");
    assert_eq!(missing["is_error"], true);
    let thrown = server.eval_in(&session, "throw new TypeError('bad input')").await;
    assert_eq!((thrown["output"].as_str(), thrown["is_error"].as_bool()), (Some("TypeError: bad input"), Some(true)));
    let syntax = server.eval_in(&session, "a +* 2").await;
    assert!(syntax["output"].as_str().unwrap().starts_with("SyntaxError"), "{syntax}");

    let (status, panel) = server.get(&format!("/api/repl/{session}/variables")).await;
    assert_eq!(status, 200, "{panel}");
    let rows: Vec<(String, String, String)> = panel["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().into(),
                r["repr"].as_str().unwrap().into(),
                r["scope"].as_str().unwrap().into(),
            )
        })
        .collect();
    for row in [("a", "2", "local"), ("b", "3", "local"), ("kept", "40", "session")] {
        assert!(rows.contains(&(row.0.into(), row.1.into(), row.2.into())), "{row:?} in {rows:?}");
    }
    let (status, names) = server.post(&format!("/api/repl/{session}/complete"), json!({"code": "ke"})).await;
    assert_eq!((status, &names["matches"][0], &names["cursor_start"]), (200, &json!("kept"), &json!(0)), "{names}");
    let (_, members) = server.post(&format!("/api/repl/{session}/complete"), json!({"code": "Math.flo"})).await;
    assert_eq!((&members["matches"], &members["cursor_start"]), (&json!(["floor"]), &json!(5)), "{members}");

    // No read-only guard to run watch expressions under: each says so instead of a value.
    let (status, watched) =
        server.post(&format!("/api/repl/{session}/watch"), json!({"expressions": ["a", "b * 2"]})).await;
    assert_eq!(status, 200, "{watched}");
    for watch in watched["expressions"].as_array().unwrap() {
        assert!(watch["value"].is_null(), "{watched}");
        assert!(watch["error"].as_str().unwrap().contains("Python client only"), "{watched}");
    }

    server.eval_in(&session, "a = 10").await;
    server.resume(&pause_id, json!({"action": "continue"})).await;
    let (code, out, err) = program.finish();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("add ran") && out.contains("RESULT 13"), "{out}");

    let (_, reply) = server.get(&format!("/api/repl/{session}")).await;
    assert_eq!(reply["session"]["language"], "javascript");
    let (_, history) = server.get("/api/breakpoints/add/history").await;
    assert_eq!(history["history"][0]["call_data"]["status"], "success", "{history}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modify_skip_and_raise_from_the_ui_reach_the_node_program() {
    let server = common::start().await;
    let (program, pause_id) = paused(&server, ADD, "add").await;
    server.resume(&pause_id, json!({"action": "modify", "modified_args": [10, 20]})).await;
    let (_, out, err) = program.finish();
    assert!(out.contains("RESULT 30"), "{out}{err}");

    let (program, pause_id) = paused(&server, ADD, "add").await;
    server.resume(&pause_id, json!({"action": "skip", "fake_result": {"fake": [1, 2]}})).await;
    let (_, out, err) = program.finish();
    assert!(out.contains(r#"RESULT {"fake":[1,2]}"#) && !out.contains("add ran"), "{out}{err}");

    let (program, pause_id) = paused(&server, ADD, "add").await;
    server
        .resume(&pause_id, json!({"action": "raise", "exception_type": "RangeError", "exception_message": "too big"}))
        .await;
    let (_, out, err) = program.finish();
    assert!(out.contains("CAUGHT RangeError: too big") && !out.contains("add ran"), "{out}{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_functions_pause_evaluate_promises_and_report_thrown_errors() {
    let server = common::start().await;
    let source = r#"
import { withDebug, debugCall } from 'CLIENT';
// Evals see the call's locals and the globals (a module's own bindings are out of reach).
const later = (globalThis.later = (v) => new Promise((resolve) => setTimeout(() => resolve(v), 5)));
const double = withDebug(async function double(x) { return (await later(x)) * 2; });
console.log('DOUBLE', await double(4));
async function explode(why) { await later(0); throw new Error(`boom: ${why}`); }
try { await debugCall('explode', explode, 'fuse'); } catch (err) { console.log('CAUGHT', err.message); }
"#;
    let (program, pause_id) = paused(&server, source, "double").await;
    server.add_breakpoint("explode").await;
    let session = server.start_session(&pause_id).await;
    assert_eq!(server.eval_in(&session, "later(x + 1)").await["output"], "5");
    let rejected = server.eval_in(&session, "Promise.reject(new Error('no'))").await;
    assert_eq!((rejected["output"].as_str(), rejected["is_error"].as_bool()), (Some("Error: no"), Some(true)));
    server.resume(&pause_id, json!({})).await;

    let explode = server.wait_for_pause("explode").await;
    assert_eq!(explode["call_data"]["pretty_args"], json!(["\"fuse\""]));
    server.resume(explode["id"].as_str().unwrap(), json!({})).await;
    let (code, out, err) = program.finish();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("DOUBLE 8") && out.contains("CAUGHT boom: fuse"), "{out}");
    let (_, history) = server.get("/api/breakpoints/explode/history").await;
    let record = &history["history"][0]["call_data"];
    assert_eq!(record["status"], "exception", "{history}");
    assert!(record.to_string().contains("boom: fuse"), "{record}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_stops_with_the_locals_given_and_hands_back_what_the_repl_assigned() {
    let server = common::start().await;
    let source = r#"
import breakroom from 'CLIENT';
async function checkout(cart) {
  let total = cart.length * 10;
  ({ total } = await breakroom.pause({ total, cart }));
  return total;
}
console.log('TOTAL', await checkout(['a', 'b']));
"#;
    let program = NodeProgram::run(&server, &breakroom_client(), source);
    let pause = server.wait_for_pause("checkout").await;
    let pause_id = pause["id"].as_str().unwrap();
    let frames = &pause["call_data"]["frames"];
    assert_eq!(frames[0]["function"], "checkout", "{frames}");
    assert!(frames[0]["filename"].as_str().unwrap().ends_with("app.mjs"), "{frames}");
    let session = server.start_session(pause_id).await;
    assert_eq!(server.eval_in(&session, "cart.join('+') + total").await["output"], "\"a+b20\"");
    server.eval_in(&session, "total = total + 1").await;
    server.resume(pause_id, json!({})).await;
    let (code, out, err) = program.finish();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("TOTAL 21"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_server_the_program_prints_one_line_and_runs_without_pausing() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let source = r#"
import { withDebug, pause } from 'CLIENT';
const add = withDebug(function add(a, b) { return a + b; });
console.log('RESULT', await add(1, 2), await add(3, 4), (await pause({ n: 5 })).n);
"#;
    let (code, out, err) = NodeProgram::run_at(&url, &breakroom_client(), source).finish();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("RESULT 3 7 5"), "{out}");
    assert_eq!(err.lines().filter(|l| l.contains("cannot reach the Breakroom server")).count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_serves_its_javascript_client() {
    let server = common::start().await;
    let response = server.http.get(format!("{}/api/debug-client.js", server.base)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"].to_str().unwrap().to_string();
    assert_eq!(kind, "text/javascript; charset=utf-8");
    let text = response.text().await.unwrap();
    assert_eq!(text, std::fs::read_to_string(breakroom_client()).unwrap());
    assert!(text.contains("export function withDebug") && text.contains("export async function debugCall"));
}

#[test]
fn breakroom_js_client_prints_the_client() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_breakroom")).arg("js-client").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), std::fs::read_to_string(breakroom_client()).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_condition_on_a_javascript_call_is_evaluated_as_javascript() {
    let server = common::start().await;
    let (status, saved) = server
        .post("/api/breakpoints", json!({"kind": "function", "function_name": "add", "condition": "a > 2"}))
        .await;
    assert_eq!(status, 200, "{saved}");
    let source = r#"
import { withDebug } from 'CLIENT';
const add = withDebug(function add(a, b) { return a + b; });
console.log('FIRST', await add(1, 1));
console.log('SECOND', await add(5, 1));
"#;
    let program = NodeProgram::run(&server, &breakroom_client(), source);
    // The first call is paused while its condition is evaluated, then let go without anyone
    // resuming it: only the second one stays paused.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let pause = loop {
        let (_, list) = server.get("/api/paused").await;
        let second = list["paused"]
            .as_array()
            .and_then(|l| l.iter().find(|p| p["call_data"]["pretty_args"] == json!(["5", "1"])).cloned());
        if let Some(pause) = second {
            break pause;
        }
        assert!(std::time::Instant::now() < deadline, "the second call did not pause: {list}");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    server.resume(pause["id"].as_str().unwrap(), json!({})).await;
    let (_, out, err) = program.finish();
    assert!(out.contains("FIRST 2") && out.contains("SECOND 6"), "{out}{err}");
    let _: Value = saved;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_imported_from_its_modules_on_disk_pauses_evaluates_and_hides_its_own_frames() {
    let server = common::start().await;
    server.add_breakpoint("add").await;
    let program = NodeProgram::run(&server, &common::node::breakroom_client_modules(), ADD);
    let pause = server.wait_for_pause("add").await;
    let frames = pause["call_data"]["frames"].as_array().cloned().unwrap_or_default();
    assert!(!frames.is_empty(), "{pause}");
    for frame in &frames {
        let file = frame["filename"].as_str().unwrap_or_default();
        assert!(!file.contains("client-js/"), "the client's own frame is shown: {file}");
    }
    let pause_id = pause["id"].as_str().unwrap();
    let session = server.start_session(pause_id).await;
    assert_eq!(server.eval_in(&session, "a * b").await["output"], "6");
    server.resume(pause_id, json!({})).await;
    let (code, out, err) = program.finish();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("RESULT 5"), "{out}");
}
