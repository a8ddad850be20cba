//! `POST /api/poll/{pause_id}`: Breakroom's client sends an eval's answer with its next poll,
//! so an eval costs the paused program one round trip. The answer is recorded exactly as
//! `/api/call/repl-result` records it, in one commit with its request.

use crate::common;

use std::time::Duration;

use breakroom_debugger::Config;
use common::TestServer;
use serde_json::{json, Value};

async fn paused_session(server: &TestServer) -> (String, String) {
    let (_, pause_id) = server.pause_call("compute", 1).await;
    let session_id = server.start_session(&pause_id).await;
    (pause_id, session_id)
}

/// Starts a browser eval in the background; returns its handle once the client has it.
async fn eval_taken_by_client(
    server: &TestServer,
    pause_id: &str,
    session_id: &str,
    expr: &str,
) -> (tokio::task::JoinHandle<(u16, Value)>, Value) {
    let http = server.http.clone();
    let url = format!("{}/api/repl/{session_id}/eval", server.base);
    let body = json!({"expr": expr});
    let browser = tokio::spawn(async move {
        let r = http.post(url).json(&body).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    });
    let (_, reply) = server.get(&format!("/api/poll/{pause_id}?evals=1")).await;
    assert_eq!(reply["status"], "waiting", "{reply}");
    let eval = reply["eval"].clone();
    assert_eq!(eval["expr"], expr, "{reply}");
    (browser, eval)
}

fn answer(eval: &Value, result: &str) -> Value {
    json!({"eval_id": eval["eval_id"], "session_id": eval["session_id"], "result": result, "stdout": "", "error": null})
}

#[tokio::test]
async fn answer_with_poll_records_the_entry_and_hands_out_the_next_eval_in_the_same_reply() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let (first, eval) = eval_taken_by_client(&server, &pause_id, &session_id, "a * 7").await;

    // The second eval is queued while the first runs; answering the first hands it out.
    let http = server.http.clone();
    let url = format!("{}/api/repl/{session_id}/eval", server.base);
    let second = tokio::spawn(async move { http.post(url).json(&json!({"expr": "a + 1"})).send().await.unwrap() });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, reply) = server.post(&format!("/api/poll/{pause_id}?evals=1"), answer(&eval, "42")).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["eval"]["expr"], "a + 1", "{reply}");
    let (status, first) = first.await.unwrap();
    assert_eq!(
        (status, common::answer_without_time(first)),
        (200, json!({"output": "42", "stdout": "", "is_error": false, "result_cid": null, "index": 0}))
    );

    let (status, _) = server.post(&format!("/api/poll/{pause_id}?evals=1"), answer(&reply["eval"], "7")).await;
    assert_eq!(status, 200);
    assert_eq!(second.await.unwrap().status(), 200);
    let (_, body) = server.get(&format!("/api/repl/{session_id}")).await;
    let transcript = body["session"]["transcript"].as_array().unwrap().clone();
    let pairs: Vec<(&str, &str)> =
        transcript.iter().map(|e| (e["input"].as_str().unwrap(), e["output"].as_str().unwrap())).collect();
    assert_eq!(pairs, vec![("a * 7", "42"), ("a + 1", "7")]);
}

#[tokio::test]
async fn each_eval_is_recorded_as_its_request_then_its_result() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    for (expr, result) in [("1 + 1", "2"), ("2 * 3", "6")] {
        let (browser, eval) = eval_taken_by_client(&server, &pause_id, &session_id, expr).await;
        let (status, reply) = server
            .post("/api/call/repl-result", {
                let mut body = answer(&eval, result);
                body["pause_id"] = json!(pause_id);
                body
            })
            .await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(browser.await.unwrap().0, 200);
    }
    let (_, events) = server.get(&format!("/api/events?session_id={session_id}")).await;
    let kinds: Vec<(String, Value)> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["type"].as_str().unwrap().to_string(), e["data"]["expr"].clone()))
        .collect();
    let kinds: Vec<(&str, &Value)> = kinds.iter().map(|(k, e)| (k.as_str(), e)).collect();
    assert_eq!(
        kinds,
        vec![
            ("session_start", &Value::Null),
            ("eval_request", &json!("1 + 1")),
            ("eval_result", &Value::Null),
            ("eval_request", &json!("2 * 3")),
            ("eval_result", &Value::Null),
        ]
    );
}

#[tokio::test]
async fn evals_that_get_no_answer_are_still_recorded_before_the_session_closes() {
    let server = common::start_with(Config {
        eval_timeout: Duration::from_millis(300),
        poll_hold: Duration::from_secs(1),
        ..Config::default()
    })
    .await;
    let (pause_id, session_id) = paused_session(&server).await;
    let (status, _) = server.post(&format!("/api/repl/{session_id}/eval"), json!({"expr": "slow()"})).await;
    assert_eq!(status, 504);
    let (taken, _) = eval_taken_by_client(&server, &pause_id, &session_id, "never()").await;
    let (status, _) = server.post(&format!("/api/repl/{session_id}/close"), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(taken.await.unwrap().0, 409);
    let (_, events) = server.get(&format!("/api/events?session_id={session_id}")).await;
    let kinds: Vec<String> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {}", e["type"].as_str().unwrap(), e["data"]["expr"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(kinds, vec!["session_start ", "eval_request slow()", "eval_request never()", "session_close "]);
}

#[tokio::test]
async fn answer_for_a_closed_session_is_refused_and_the_poll_is_not_held() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let (browser, eval) = eval_taken_by_client(&server, &pause_id, &session_id, "a").await;
    server.post(&format!("/api/repl/{session_id}/close"), json!({})).await;
    assert_eq!(browser.await.unwrap().0, 409);
    let (status, body) = server.post(&format!("/api/poll/{pause_id}?evals=1"), answer(&eval, "6")).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("session_closed")), "{body}");
    let (_, session) = server.get(&format!("/api/repl/{session_id}")).await;
    assert_eq!(session["session"]["transcript"], json!([]));
}

#[tokio::test]
async fn answer_naming_another_pause_is_a_bad_request() {
    let server = common::start().await;
    let (pause_id, session_id) = paused_session(&server).await;
    let (browser, eval) = eval_taken_by_client(&server, &pause_id, &session_id, "a").await;
    let mut body = answer(&eval, "6");
    body["pause_id"] = json!("some-other-pause");
    let (status, reply) = server.post(&format!("/api/poll/{pause_id}?evals=1"), body).await;
    assert_eq!((status, reply["error"].as_str()), (400, Some("pause_mismatch")), "{reply}");
    // The eval is still the client's to answer.
    let (status, _) = server.post(&format!("/api/poll/{pause_id}?evals=1"), answer(&eval, "6")).await;
    assert_eq!(status, 200);
    assert_eq!(browser.await.unwrap().1["output"], "6");
}
