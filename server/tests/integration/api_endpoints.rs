//! API Endpoints (Server): the REPL endpoints over real HTTP, with a
//! scripted client standing in for the paused program.

use crate::common;

use std::time::Duration;

use breakroom_debugger::Config;
use common::TestServer;
use serde_json::{json, Value};

async fn paused_session(server: &TestServer) -> (String, String) {
    let (_, pause_id) = server.pause_call("compute", 6238).await;
    let session_id = server.start_session(&pause_id).await;
    (pause_id, session_id)
}

/// Sends an eval in the background; the caller answers it as the client.
fn eval_in_background(server: &TestServer, session_id: &str, expr: &str) -> tokio::task::JoinHandle<(u16, Value)> {
    let http = server.http.clone();
    let url = format!("{}/api/repl/{session_id}/eval", server.base);
    let body = json!({"expr": expr});
    tokio::spawn(async move {
        let r = http.post(url).json(&body).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    })
}

#[tokio::test]
async fn post_repl_start_creates_session_returns_session_id() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("compute", 6238).await;
    let (status, body) = server.post("/api/repl/start", json!({"pause_id": pause_id})).await;
    assert_eq!(status, 200);
    let id = body["session_id"].as_str().unwrap();
    assert!(id.starts_with("6238-"), "{id}");
    assert_eq!(server.get(&format!("/api/repl/{id}")).await.0, 200);
}

#[tokio::test]
async fn post_repl_start_missing_pause_id_returns_400() {
    let server = common::start().await;
    let (status, body) = server.post("/api/repl/start", json!({})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("missing_pause_id")));
}

#[tokio::test]
async fn post_repl_start_invalid_pause_id_returns_404() {
    let server = common::start().await;
    let (status, body) = server.post("/api/repl/start", json!({"pause_id": "no-such-pause"})).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("pause_not_found")));
}

#[tokio::test]
async fn post_repl_start_pause_already_resumed_returns_409() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("compute", 1).await;
    server.post(&format!("/api/paused/{pause_id}/continue"), json!({})).await;
    let (status, body) = server.post("/api/repl/start", json!({"pause_id": pause_id})).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("pause_resumed")));
}

#[tokio::test]
async fn get_repl_session_returns_metadata_and_transcript() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "a");
    server.answer_next_eval(&pause_id, |_| json!({"result": "6", "stdout": "", "error": null})).await;
    eval.await.unwrap();
    let (status, body) = server.get(&format!("/api/repl/{session_id}")).await;
    assert_eq!(status, 200);
    let s = &body["session"];
    assert_eq!(s["session_id"], json!(session_id));
    assert_eq!(s["pause_id"], json!(pause_id));
    assert_eq!(s["pid"], 6238);
    assert_eq!(s["function_name"], "compute");
    assert_eq!(s["process_key"], "1795331833.750000+6238");
    assert_eq!(s["pretty_args"], json!(["6"]));
    assert_eq!(s["signature"], "(a)");
    assert!(s["closed_at"].is_null());
    assert_eq!(s["transcript"].as_array().unwrap().len(), 1);
    assert_eq!(s["transcript"][0]["index"], 0);
}

#[tokio::test]
async fn get_repl_session_nonexistent_returns_404() {
    let server = common::start().await;
    let (status, body) = server.get("/api/repl/1-1.000000").await;
    assert_eq!((status, body["error"].as_str()), (404, Some("session_not_found")));
}

#[tokio::test]
async fn post_repl_eval_queues_expression_and_returns_result() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "a * 7");
    let req = server.answer_next_eval(&pause_id, |_| json!({"result": "42", "stdout": "", "error": null})).await;
    assert_eq!(req["expr"], "a * 7");
    assert_eq!(req["session_id"], json!(session_id));
    let (status, body) = eval.await.unwrap();
    assert_eq!((status, body["output"].as_str()), (200, Some("42")));
}

#[tokio::test]
async fn post_repl_eval_missing_expr_returns_400() {
    let server = common::start().await;
    let (_, session_id) = paused_session(&server).await;
    let (status, body) = server.post(&format!("/api/repl/{session_id}/eval"), json!({})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("missing_expr")));
}

#[tokio::test]
async fn post_repl_eval_empty_expr_returns_400() {
    let server = common::start().await;
    let (_, session_id) = paused_session(&server).await;
    let (status, body) = server.post(&format!("/api/repl/{session_id}/eval"), json!({"expr": "   \n"})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("missing_expr")));
}

#[tokio::test]
async fn post_repl_eval_on_closed_session_returns_409() {
    let server = common::start().await;
    let (_, session_id) = paused_session(&server).await;
    server.post(&format!("/api/repl/{session_id}/close"), json!({})).await;
    let (status, body) = server.post(&format!("/api/repl/{session_id}/eval"), json!({"expr": "1"})).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("session_closed")));
}

#[tokio::test]
async fn post_repl_eval_timeout_when_client_disconnected_returns_504() {
    let server = common::start_with(Config {
        eval_timeout: Duration::from_millis(300),
        poll_hold: Duration::from_secs(1),
        ..Config::default()
    })
    .await;
    let (_, session_id) = paused_session(&server).await;
    let (status, body) = server.post(&format!("/api/repl/{session_id}/eval"), json!({"expr": "1"})).await;
    assert_eq!((status, body["error"].as_str()), (504, Some("eval_timeout")));
    // The session is still usable and can be closed.
    let (status, _) = server.post(&format!("/api/repl/{session_id}/close"), json!({})).await;
    assert_eq!(status, 200);
}

async fn three_sessions(server: &TestServer) -> Vec<String> {
    let mut ids = vec![];
    for name in ["alpha", "beta", "gamma"] {
        let (_, pause_id) = server.pause_call(name, 1).await;
        ids.push(server.start_session(&pause_id).await);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.post(&format!("/api/repl/{}/close", ids[1]), json!({})).await;
    ids
}

fn ids_of(body: &Value) -> Vec<String> {
    body["sessions"].as_array().unwrap().iter().map(|s| s["session_id"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn get_repl_sessions_returns_all_sessions() {
    let server = common::start().await;
    let ids = three_sessions(&server).await;
    let (status, body) = server.get("/api/repl/sessions").await;
    assert_eq!(status, 200);
    assert_eq!(body["total"], 3);
    // Newest first.
    assert_eq!(ids_of(&body), vec![ids[2].clone(), ids[1].clone(), ids[0].clone()]);
}

#[tokio::test]
async fn get_repl_sessions_filter_by_status() {
    let server = common::start().await;
    let ids = three_sessions(&server).await;
    let (_, closed) = server.get("/api/repl/sessions?status=closed").await;
    assert_eq!(ids_of(&closed), vec![ids[1].clone()]);
    let (_, active) = server.get("/api/repl/sessions?status=active").await;
    assert_eq!(ids_of(&active), vec![ids[2].clone(), ids[0].clone()]);
    let (status, body) = server.get("/api/repl/sessions?status=sleeping").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_status")));
}

#[tokio::test]
async fn get_repl_sessions_filter_by_timestamp_range() {
    let server = common::start().await;
    let ids = three_sessions(&server).await;
    let started = |id: &str| id.split_once('-').unwrap().1.parse::<f64>().unwrap();
    let (from, to) = (started(&ids[1]) - 0.0005, started(&ids[1]) + 0.0005);
    let (_, body) = server.get(&format!("/api/repl/sessions?from={from}&to={to}")).await;
    assert_eq!(ids_of(&body), vec![ids[1].clone()]);
    let (status, body) = server.get("/api/repl/sessions?from=yesterday").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_timestamp")));
}

#[tokio::test]
async fn get_repl_sessions_search_parameter() {
    let server = common::start().await;
    let ids = three_sessions(&server).await;
    let (_, body) = server.get("/api/repl/sessions?search=GAM").await;
    assert_eq!(ids_of(&body), vec![ids[2].clone()]);
}

#[tokio::test]
async fn get_repl_sessions_pagination() {
    let server = common::start().await;
    let ids = three_sessions(&server).await;
    let (_, first) = server.get("/api/repl/sessions?per_page=2&page=1").await;
    let (_, second) = server.get("/api/repl/sessions?per_page=2&page=2").await;
    assert_eq!(first["total"], 3);
    assert_eq!(ids_of(&first), vec![ids[2].clone(), ids[1].clone()]);
    assert_eq!(ids_of(&second), vec![ids[0].clone()]);
    let (status, _) = server.get("/api/repl/sessions?page=-1").await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn post_repl_close_closes_session() {
    let server = common::start().await;
    let (_, session_id) = paused_session(&server).await;
    let (status, body) = server.post(&format!("/api/repl/{session_id}/close"), json!({})).await;
    assert_eq!((status, body), (200, json!({"status": "ok"})));
    let (_, body) = server.get(&format!("/api/repl/{session_id}")).await;
    assert!(body["session"]["closed_at"].is_f64());
}

#[tokio::test]
async fn post_repl_close_nonexistent_returns_404() {
    let server = common::start().await;
    let (status, body) = server.post("/api/repl/1-1.000000/close", json!({})).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("session_not_found")));
}

#[tokio::test]
async fn poll_repl_returns_pending_eval_request_with_eval_id() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let _eval = eval_in_background(&server, &session_id, "x");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, body) = server.get(&format!("/api/poll-repl/{pause_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(body["eval_id"].as_str().unwrap().len(), 36);
    assert_eq!(body["session_id"], json!(session_id));
    assert_eq!(body["pause_id"], json!(pause_id));
    assert_eq!(body["expr"], "x");
}

#[tokio::test]
async fn poll_repl_returns_null_eval_id_when_no_requests() {
    let server = common::start().await;
    let (pause_id, _) = paused_session(&server).await;
    assert_eq!(server.get(&format!("/api/poll-repl/{pause_id}")).await, (200, json!({"eval_id": null})));
    assert_eq!(server.get("/api/poll-repl/unknown").await, (200, json!({"eval_id": null})));
}

#[tokio::test]
async fn call_repl_result_posts_result_with_stdout_and_cid() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let cid = breakroom_debugger::cid_store::cid_of(&[0x80, 4, b'K', 42, b'.']);
    let eval = eval_in_background(&server, &session_id, "print('x'); 42");
    let cid2 = cid.clone();
    server
        .answer_next_eval(&pause_id, move |_| {
            json!({"result": "42", "stdout": "x\n", "error": null, "result_cid": cid2, "result_data": "gARLKi4="})
        })
        .await;
    let (_, body) = eval.await.unwrap();
    assert_eq!(
        common::answer_without_time(body),
        json!({"output": "42", "stdout": "x\n", "is_error": false, "result_cid": cid, "index": 0})
    );
}

#[tokio::test]
async fn call_repl_result_includes_result_data_base64() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let cid = breakroom_debugger::cid_store::cid_of(&[0x80, 4, b'K', 42, b'.']);
    let eval = eval_in_background(&server, &session_id, "42");
    let c = cid.clone();
    server
        .answer_next_eval(&pause_id, move |_| json!({"result": "42", "result_cid": c, "result_data": "gARLKi4="}))
        .await;
    eval.await.unwrap();
    let stored = server
        .debugger
        .function_breakpoints()
        .object(&cid)
        .unwrap()
        .expect("the result's data is stored under its CID");
    assert_eq!(stored.bytes, vec![0x80, 4, b'K', 42, b'.']);
    // Data that does not hash to its CID is refused.
    let eval = eval_in_background(&server, &session_id, "43");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, req) = server.get(&format!("/api/poll-repl/{pause_id}")).await;
    let (status, body) = server
        .post(
            "/api/call/repl-result",
            json!({"eval_id": req["eval_id"], "pause_id": pause_id, "session_id": session_id,
                   "result": "43", "result_cid": cid, "result_data": "gARLKy4="}),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("cid_mismatch")));
    eval.abort();
}

#[tokio::test]
async fn call_repl_result_posts_error_back() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "1/0");
    server
        .answer_next_eval(
            &pause_id,
            |_| json!({"result": "", "stdout": "", "error": "ZeroDivisionError: division by zero"}),
        )
        .await;
    let (status, body) = eval.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(body["output"], "ZeroDivisionError: division by zero");
    assert_eq!(body["is_error"], true);
}

#[tokio::test]
async fn call_repl_result_maps_error_to_output_and_is_error() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "boom()");
    server
        .answer_next_eval(
            &pause_id,
            |_| json!({"result": "ignored", "stdout": "partial\n", "error": "ValueError: boom"}),
        )
        .await;
    eval.await.unwrap();
    let (_, body) = server.get(&format!("/api/repl/{session_id}")).await;
    let entry = &body["session"]["transcript"][0];
    assert_eq!(entry["output"], "ValueError: boom");
    assert_eq!(entry["stdout"], "partial\n");
    assert_eq!(entry["is_error"], true);
    assert!(entry["result_cid"].is_null());
}

#[tokio::test]
async fn call_repl_result_maps_result_to_output_when_no_error() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "[1, 2]");
    server.answer_next_eval(&pause_id, |_| json!({"result": "[1, 2]", "stdout": "", "error": null})).await;
    eval.await.unwrap();
    let (_, body) = server.get(&format!("/api/repl/{session_id}")).await;
    let entry = &body["session"]["transcript"][0];
    assert_eq!((entry["output"].as_str(), entry["is_error"].as_bool()), (Some("[1, 2]"), Some(false)));
}

#[tokio::test]
async fn call_repl_result_unblocks_waiting_eval_request() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "1");
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(!eval.is_finished());
    server.answer_next_eval(&pause_id, |_| json!({"result": "1"})).await;
    let (status, _) = tokio::time::timeout(Duration::from_secs(2), eval).await.unwrap().unwrap();
    assert_eq!(status, 200);
}

#[tokio::test]
async fn call_repl_result_for_closed_session_returns_409() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "slow()");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, req) = server.get(&format!("/api/poll-repl/{pause_id}")).await;
    server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "continue"})).await;
    let (status, body) = eval.await.unwrap();
    assert_eq!((status, body["error"].as_str()), (409, Some("session_closed")));
    let (status, body) = server
        .post(
            "/api/call/repl-result",
            json!({"eval_id": req["eval_id"], "pause_id": pause_id, "session_id": session_id, "result": "1"}),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("session_closed")));
    let (_, body) = server.get(&format!("/api/repl/{session_id}")).await;
    assert_eq!(body["session"]["transcript"], json!([]));
}

#[tokio::test]
async fn post_repl_eval_blocks_until_client_responds() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let eval = eval_in_background(&server, &session_id, "1");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!eval.is_finished(), "the eval returned before the client answered");
    server.answer_next_eval(&pause_id, |_| json!({"result": "1"})).await;
    assert_eq!(eval.await.unwrap().0, 200);
}

#[tokio::test]
async fn post_repl_eval_returns_stdout_and_result_cid() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let cid = breakroom_debugger::cid_store::cid_of(b"\x80\x04K\x01.");
    let eval = eval_in_background(&server, &session_id, "print('out'); 1");
    let c = cid.clone();
    server
        .answer_next_eval(
            &pause_id,
            move |_| json!({"result": "1", "stdout": "out\n", "result_cid": c, "result_data": "gARLAS4="}),
        )
        .await;
    let (_, body) = eval.await.unwrap();
    assert_eq!(body["stdout"], "out\n");
    assert_eq!(body["result_cid"], json!(cid));
}

#[tokio::test]
async fn concurrent_evals_serialized_in_order() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let first = eval_in_background(&server, &session_id, "first");
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = eval_in_background(&server, &session_id, "second");
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (_, req) = server.get(&format!("/api/poll-repl/{pause_id}")).await;
    assert_eq!(req["expr"], "first");
    let (_, none) = server.get(&format!("/api/poll-repl/{pause_id}")).await;
    assert!(none["eval_id"].is_null(), "the second eval waits while the first is in flight");
    server
        .post(
            "/api/call/repl-result",
            json!({"eval_id": req["eval_id"], "pause_id": pause_id, "session_id": session_id, "result": "1"}),
        )
        .await;
    server.answer_next_eval(&pause_id, |expr| json!({"result": expr})).await;
    assert_eq!(first.await.unwrap().1["output"], "1");
    assert_eq!(second.await.unwrap().1["output"], "second");
    let (_, body) = server.get(&format!("/api/repl/{session_id}")).await;
    let inputs: Vec<&str> =
        body["session"]["transcript"].as_array().unwrap().iter().map(|e| e["input"].as_str().unwrap()).collect();
    assert_eq!(inputs, vec!["first", "second"]);
}

#[tokio::test]
async fn get_events_returns_a_sessions_recording_as_json_and_json_lines() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let (status, _) = server.post(&format!("/api/repl/{session_id}/close"), json!({})).await;
    assert_eq!(status, 200);
    let (status, body) = server.get(&format!("/api/events?session_id={session_id}")).await;
    assert_eq!(status, 200, "{body}");
    let kinds: Vec<&str> = body["events"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["session_start", "session_close"]);
    assert_eq!(body["events"][0]["data"]["pause_id"], pause_id.as_str());

    let response = server
        .http
        .get(format!("{}/api/events?session_id={session_id}&format=jsonl", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/x-ndjson; charset=utf-8");
    let text = response.text().await.unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines, body["events"].as_array().unwrap().clone());

    let first = body["events"][1]["sequence"].as_i64().unwrap();
    let (_, later) = server.get(&format!("/api/events?session_id={session_id}&from_sequence={first}")).await;
    assert_eq!(later["events"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn get_events_rejects_a_bad_sequence_or_format() {
    let server = common::start().await;
    let (status, body) = server.get("/api/events?from_sequence=soon").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_sequence")));
    let (status, body) = server.get("/api/events?format=xml").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_format")));
}

#[tokio::test]
async fn replace_without_a_replacement_function_is_refused_naming_what_is_missing() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("replace_me", 4711).await;
    let (status, body) = server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "replace"})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], "missing_replacement_function", "{body}");
    let (status, body) = server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "swap"})).await;
    assert_eq!((status, body["error"].clone()), (400, json!("invalid_action")), "{body}");
}

#[tokio::test]
async fn the_newest_process_with_checkpoints_is_a_404_naming_why_when_there_is_none() {
    let server = common::start().await;
    let (status, body) = server.get("/api/checkpoints/newest-process").await;
    assert_eq!((status, body["error"].clone()), (404, json!("no_checkpoints")), "{body}");
}
