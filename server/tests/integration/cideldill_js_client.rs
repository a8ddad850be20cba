//! What cideldill's JavaScript client sends, sent by our driver of it
//! (`tests/fixtures/cideldill_js_driver.mjs`, after docs/src/js-protocol.md) in real Node programs
//! against Breakroom: functions registered with a numeric signature, evals answered with JSON
//! values and `{name, message}` errors, modified arguments and skip results read as JSON items,
//! and its calls shown as JavaScript.

use crate::common;

use common::node::{cideldill_driver, NodeProgram};
use serde_json::json;

const PROGRAM: &str = r#"
import cideldill from 'CLIENT';
cideldill.configure({ serverUrl: process.env.SERVER_URL });
cideldill.withDebug('ON');
function add(a, b) { console.log('add ran'); return a + b; }
async function fails(why) { await new Promise((r) => setTimeout(r, 5)); throw new Error(`failed: ${why}`); }
try {
  console.log('RESULT', JSON.stringify(await cideldill.debugCall('add', add, 2, 3)));
} catch (err) {
  console.log('CAUGHT', err.message);
}
try { await cideldill.debugCall('fails', fails, 'why'); } catch (err) { console.log('CAUGHT', err.message); }
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cideldills_js_client_registers_pauses_evaluates_and_continues() {
    let server = common::start().await;
    server.add_breakpoint("add").await;
    let program = NodeProgram::run(&server, &cideldill_driver(), PROGRAM);
    let pause = server.wait_for_pause("add").await;
    assert_eq!(pause["call_data"]["language"], "javascript", "{pause}");
    assert_eq!(pause["call_data"]["pretty_args"], json!([2, 3]));
    let (_, functions) = server.get("/api/functions").await;
    assert_eq!(functions["function_signatures"]["add"], "2", "the arity, as text: {functions}");

    let pause_id = pause["id"].as_str().unwrap();
    let session = server.start_session(pause_id).await;
    let sum = server.eval_in(&session, "a + b").await;
    assert_eq!((sum["output"].as_str(), sum["is_error"].as_bool()), (Some("5"), Some(false)), "{sum}");
    assert!(sum["result_cid"].as_str().is_some_and(|c| c.len() == 128), "{sum}");
    assert_eq!(server.eval_in(&session, "({x: [a, b]})").await["output"], r#"{"x":[2,3]}"#);
    let missing = server.eval_in(&session, "nowhere").await;
    assert_eq!(missing["output"], "ReferenceError: nowhere is not defined");
    assert_eq!(missing["is_error"], true);

    server.resume(pause_id, json!({})).await;
    let (code, out, err) = program.finish();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("RESULT 5"), "{out}");
    assert!(out.contains("CAUGHT failed: why"), "an async function's error is thrown on: {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cideldills_js_client_applies_modify_skip_and_raise() {
    let server = common::start().await;
    server.add_breakpoint("add").await;
    for (resume, expected) in [
        (json!({"action": "modify", "modified_args": [40, 2]}), "RESULT 42"),
        (json!({"action": "skip", "fake_result": "faked"}), "RESULT \"faked\""),
        (json!({"action": "raise", "exception_type": "ValueError", "exception_message": "refused"}), "CAUGHT refused"),
    ] {
        let program = NodeProgram::run(&server, &cideldill_driver(), PROGRAM);
        let pause = server.wait_for_pause("add").await;
        server.resume(pause["id"].as_str().unwrap(), resume.clone()).await;
        let (_, out, err) = program.finish();
        assert!(out.contains(expected), "{resume}: {out}{err}");
        assert_eq!(out.contains("add ran"), expected == "RESULT 42", "{resume}: {out}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cideldills_js_client_reports_a_thrown_error_as_the_calls_exception() {
    let server = common::start().await;
    server.add_breakpoint("fails").await;
    let program = NodeProgram::run(&server, &cideldill_driver(), PROGRAM);
    let pause = server.wait_for_pause("fails").await;
    server.resume(pause["id"].as_str().unwrap(), json!({})).await;
    let (_, out, err) = program.finish();
    assert!(out.contains("RESULT 5") && out.contains("CAUGHT failed: why"), "{out}{err}");
    let (_, history) = server.get("/api/breakpoints/fails/history").await;
    let call = &history["history"][0]["call_data"];
    assert_eq!(call["status"], "exception", "{history}");
    assert_eq!(call["exception"]["summary"], "Error: failed: why", "{history}");
}
