//! The cideldill client protocol (docs/src/protocol.md §4–§9): shapes and status codes an unchanged
//! client depends on.

use crate::common;

use serde_json::{json, Value};

const INT_1: &str = "gARLAS4=";

fn cid(data_b64: &str) -> String {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD.decode(data_b64).unwrap();
    breakroom_debugger::cid_store::cid_of(&bytes)
}

fn call(name: &str, args: Value) -> Value {
    json!({
        "method_name": name, "args": args, "kwargs": {},
        "call_site": {"timestamp": 1.0, "stack_trace": []}, "call_type": "proxy",
        "process_pid": 77, "process_start_time": 1795331833.7501566, "signature": "(a)",
    })
}

#[tokio::test]
async fn registration_endpoints_answer_status_ok() {
    let server = common::start().await;
    let (status, body) = server.get("/api/breakpoints").await;
    assert_eq!((status, &body["breakpoints"]), (200, &json!([])));
    let (_, body) =
        server.post("/api/breakpoints", json!({"function_name": "add", "timestamp": 1.0, "signature": "(a, b)"})).await;
    assert_eq!(body, json!({"status": "ok", "function_name": "add"}));
    let (_, body) = server
        .post("/api/functions", json!({"function_name": "add", "signature": "(a, b)", "function_client_ref": 1}))
        .await;
    assert_eq!(body["status"], "ok");
    let (_, body) = server.get("/api/breakpoints").await;
    assert_eq!(body["breakpoints"], json!(["add"]));
    assert_eq!(body["breakpoint_behaviors"], json!({"add": "yield"}));
    assert_eq!(body["breakpoint_after_behaviors"], json!({"add": "yield"}));
    assert_eq!(body["breakpoint_replacements"], json!({}));
    let (status, body) = server.post("/api/breakpoints", json!({"timestamp": 1.0})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("function_name required")));
    let (_, body) = server.get("/api/functions").await;
    assert_eq!(body["functions"], json!(["add"]));
    assert_eq!(body["function_signatures"], json!({"add": "(a, b)"}));
}

#[tokio::test]
async fn call_without_breakpoint_continues_and_completes() {
    let server = common::start().await;
    let (status, reply) = server
        .post("/api/call/start", call("free", json!([{"cid": cid(INT_1), "client_ref": 1, "data": INT_1}])))
        .await;
    assert_eq!(status, 200);
    assert_eq!(reply["action"], "continue");
    let call_id = reply["call_id"].as_str().unwrap();
    assert!(call_id.ends_with("-001"), "{call_id}");
    let (_, done) = server
        .post("/api/call/complete", json!({"call_id": call_id, "status": "success", "process_pid": 77, "process_start_time": 1.0, "result_cid": cid(INT_1)}))
        .await;
    assert_eq!(done, json!({"status": "ok"}));
    let record = server.debugger.pauses().call_record(call_id).unwrap().unwrap();
    assert_eq!(record.status, breakroom_debugger::model::CallStatus::Success);
    assert_eq!(record.pretty_result, Some(json!("1")), "plain pickles display as Python repr");
}

#[tokio::test]
async fn missing_process_identity_is_400() {
    let server = common::start().await;
    let mut body = call("f", json!([]));
    body.as_object_mut().unwrap().remove("process_pid");
    let (status, reply) = server.post("/api/call/start", body).await;
    assert_eq!((status, reply["error"].as_str()), (400, Some("missing_process_identity")));
    let mut body = call("f", json!([]));
    body["process_start_time"] = json!("yesterday");
    assert_eq!(server.post("/api/call/start", body).await.0, 400);
}

#[tokio::test]
async fn unknown_cids_without_data_get_the_cid_not_found_retry() {
    let server = common::start().await;
    let c = cid(INT_1);
    let first = call("f", json!([{"cid": c, "client_ref": 1}, {"cid": c, "client_ref": 1}]));
    let (status, reply) = server.post("/api/call/start", first).await;
    assert_eq!(status, 400);
    assert_eq!(reply["error"], "cid_not_found");
    assert_eq!(reply["missing_cids"], json!([c, c]));
    let retry = call("f", json!([{"cid": c, "client_ref": 1, "data": INT_1}, {"cid": c, "client_ref": 1}]));
    let (status, reply) = server.post("/api/call/start", retry).await;
    assert_eq!((status, reply["action"].as_str()), (200, Some("continue")));
    // Now stored: data may be left out.
    let again = call("f", json!([{"cid": c, "client_ref": 1}]));
    assert_eq!(server.post("/api/call/start", again).await.0, 200);
}

#[tokio::test]
async fn data_that_does_not_match_its_cid_is_refused() {
    let server = common::start().await;
    let bad = call("f", json!([{"cid": "ab".repeat(64), "client_ref": 1, "data": INT_1}]));
    let (status, reply) = server.post("/api/call/start", bad).await;
    assert_eq!(status, 400);
    assert_eq!(reply["error"], "cid_mismatch");
    assert_eq!(reply["expected_cid"], json!(cid(INT_1)));
    let bad = call("f", json!([{"cid": "ab", "client_ref": 1, "data": "***"}]));
    assert_eq!(server.post("/api/call/start", bad).await.1["error"], "invalid_dill");
}

#[tokio::test]
async fn complete_accepts_unknown_cids_and_unknown_call_ids() {
    let server = common::start().await;
    let (status, body) =
        server.post("/api/call/complete", json!({"call_id": "nope", "status": "success", "result_cid": "ff"})).await;
    assert_eq!((status, body), (200, json!({"status": "ok"})));
    assert_eq!(server.post("/api/call/complete", json!({})).await, (200, json!({"status": "ok"})));
}

#[tokio::test]
async fn paused_list_has_the_protocol_shape() {
    let server = common::start().await;
    let (call_id, pause_id) = server.pause_call("compute", 6238).await;
    let (_, body) = server.get("/api/paused").await;
    let p = &body["paused"][0];
    assert_eq!(p["id"], json!(pause_id));
    assert!(p["paused_at"].is_f64());
    assert_eq!(p["repl_sessions"], json!([]));
    let cd = &p["call_data"];
    assert_eq!(cd["method_name"], "compute");
    assert_eq!(cd["call_id"], json!(call_id));
    assert_eq!(cd["pretty_args"], json!(["6"]));
    assert_eq!(cd["process_key"], "1795331833.750000+6238");
    assert_eq!(cd["pause_reason"], "breakpoint");
    assert_eq!(cd["preferred_format"], "dill");
    assert!(cd.get("pretty_result").is_none(), "a pre-call pause has no result");
}

#[tokio::test]
async fn resume_actions_reach_the_polling_client() {
    let server = common::start().await;
    let cases = [
        (json!({"action": "continue"}), json!({"action": "continue"})),
        (
            json!({"action": "raise", "exception_type": "ValueError", "exception_message": "boom"}),
            json!({"action": "raise", "exception_type": "ValueError", "exception_message": "boom"}),
        ),
        (
            json!({"action": "continue", "replacement_function": "mul"}),
            json!({"action": "replace", "function_name": "mul"}),
        ),
    ];
    for (request, expected) in cases {
        let (_, pause_id) = server.pause_call("compute", 1).await;
        let (status, body) = server.post(&format!("/api/paused/{pause_id}/continue"), request).await;
        assert_eq!((status, body["status"].as_str()), (200, Some("ok")));
        let (_, poll) = server.get(&format!("/api/poll/{pause_id}")).await;
        assert_eq!(poll, json!({"status": "ready", "action": expected}));
        // Peeked, not popped: a retry sees the same action.
        assert_eq!(server.get(&format!("/api/poll/{pause_id}")).await.1, poll);
    }
}

#[tokio::test]
async fn skip_and_modify_values_are_sent_as_pickles() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("compute", 1).await;
    server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "skip", "fake_result": 42})).await;
    let action = server.get(&format!("/api/poll/{pause_id}")).await.1["action"].clone();
    assert_eq!(action["fake_result"], 42);
    assert_eq!(action["fake_result_data"], "gARLKi4=");
    assert_eq!(action["fake_result_cid"], json!(cid("gARLKi4=")));

    let (_, pause_id) = server.pause_call("compute", 1).await;
    let known = json!({"cid": common::INT_6_CID});
    server
        .post(
            &format!("/api/paused/{pause_id}/continue"),
            json!({"action": "modify", "modified_args": [known, 10], "modified_kwargs": {"k": "s"}}),
        )
        .await;
    let action = server.get(&format!("/api/poll/{pause_id}")).await.1["action"].clone();
    assert_eq!(action["modified_args"][0], known, "items naming a CID pass through");
    assert_eq!(action["modified_args"][1]["data"], "gARLCi4=");
    assert_eq!(action["modified_kwargs"]["k"]["serialization_format"], "dill");
}

#[tokio::test]
async fn unknown_pause_polls_keep_waiting_and_resume_answers_ok() {
    let server = common::start().await;
    assert_eq!(server.get("/api/poll/not-a-pause").await, (200, json!({"status": "waiting"})));
    let (status, body) = server.post("/api/paused/not-a-pause/continue", json!({})).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));
}

#[tokio::test]
async fn after_behaviour_stop_pauses_after_the_call_and_only_continue_ends_it() {
    let server = common::start().await;
    let (call_id, pause_id) = server.pause_call("compute", 1).await;
    let (status, _) = server.post("/api/breakpoints/compute/after_behavior", json!({"behavior": "stop"})).await;
    assert_eq!(status, 200);
    server.post(&format!("/api/paused/{pause_id}/continue"), json!({})).await;
    let (_, reply) = server
        .post(
            "/api/call/complete",
            json!({"call_id": call_id, "status": "success", "result_cid": cid(INT_1), "result_data": INT_1}),
        )
        .await;
    assert_eq!(reply["action"], "poll");
    assert!(reply.get("call_id").is_none());
    let after = reply["poll_url"].as_str().unwrap().trim_start_matches("/api/poll/").to_string();
    let (_, paused) = server.get("/api/paused").await;
    assert_eq!(paused["paused"][0]["call_data"]["pretty_result"], "1");
    let (status, body) =
        server.post(&format!("/api/paused/{after}/continue"), json!({"action": "skip", "fake_result": 1})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("unsupported_post_completion_action")));
    server.post(&format!("/api/paused/{after}/continue"), json!({"action": "continue"})).await;
    assert_eq!(server.get(&format!("/api/poll/{after}")).await.1["action"], json!({"action": "continue"}));
}

#[tokio::test]
async fn default_breakpoint_pauses_once_before_the_call() {
    let server = common::start().await;
    let (call_id, pause_id) = server.pause_call("compute", 1).await;
    server.post(&format!("/api/paused/{pause_id}/continue"), json!({})).await;
    let (_, reply) = server.post("/api/call/complete", json!({"call_id": call_id, "status": "success"})).await;
    assert_eq!(reply, json!({"status": "ok"}));
    assert_eq!(server.get("/api/paused").await.1, json!({"paused": []}));
}

#[tokio::test]
async fn behaviours_validate_and_normalise() {
    let server = common::start().await;
    server.post("/api/breakpoints", json!({"function_name": "f"})).await;
    let (_, body) = server.post("/api/breakpoints/f/behavior", json!({"behavior": "continue"})).await;
    assert_eq!(body, json!({"status": "ok", "function_name": "f", "behavior": "go"}));
    let (status, _) = server.post("/api/breakpoints/f/behavior", json!({"behavior": "sometimes"})).await;
    assert_eq!(status, 400);
    let (status, body) = server.post("/api/breakpoints/nope/behavior", json!({"behavior": "stop"})).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("breakpoint_not_found")));
    let (_, body) = server.post("/api/breakpoints/f/after_behavior", json!({"behavior": "both"})).await;
    assert_eq!(body["behavior"], "stop_exception");
    assert_eq!(server.get("/api/behavior").await.1, json!({"behavior": "stop"}));
    let (status, _) = server.post("/api/behavior", json!({"behavior": "yield"})).await;
    assert_eq!(status, 400);
    assert_eq!(
        server.post("/api/behavior", json!({"behavior": "go"})).await.1,
        json!({"status": "ok", "behavior": "go"})
    );
    let body = server
        .http
        .delete(format!("{}/api/breakpoints/f", server.base))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(body, json!({"status": "ok", "function_name": "f"}));
}

#[tokio::test]
async fn replacement_needs_matching_signatures() {
    let server = common::start().await;
    server.post("/api/breakpoints", json!({"function_name": "add", "signature": "(a, b)"})).await;
    server.post("/api/functions", json!({"function_name": "mul", "signature": "(a, b)"})).await;
    server.post("/api/functions", json!({"function_name": "neg", "signature": "(a)"})).await;
    let (status, body) = server.post("/api/breakpoints/add/replacement", json!({"replacement_function": "neg"})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("signature_mismatch")));
    let (status, _) = server.post("/api/breakpoints/add/replacement", json!({"replacement_function": "mul"})).await;
    assert_eq!(status, 200);
    assert_eq!(server.get("/api/breakpoints").await.1["breakpoint_replacements"], json!({"add": "mul"}));
    server.post("/api/breakpoints/add/behavior", json!({"behavior": "go"})).await;
    let (_, reply) = server.post("/api/call/start", call("add", json!([]))).await;
    assert_eq!((reply["action"].as_str(), reply["function_name"].as_str()), (Some("replace"), Some("mul")));
}

#[tokio::test]
async fn events_and_com_errors_are_accepted() {
    let server = common::start().await;
    let event = json!({"method_name": "with_debug.register", "status": "registered", "timestamp": 1.0,
        "call_site": {}, "process_pid": 1, "process_start_time": 2.0, "pretty_args": [], "pretty_kwargs": {}});
    assert_eq!(server.post("/api/call/event", event).await, (200, json!({"status": "ok"})));
    let (status, body) = server.post("/api/call/event", json!({"method_name": "x"})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("missing_process_identity")));
    assert_eq!(server.post("/api/report-com-error", json!({"summary": "boom"})).await.1, json!({"status": "ok"}));
    let (_, body) = server.get("/api/com-errors").await;
    assert_eq!(body["errors"][0]["summary"], "boom");
    assert!(body["errors"][0]["received_at"].is_f64());
}
