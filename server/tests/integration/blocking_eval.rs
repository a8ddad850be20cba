//! The blocking eval over HTTP, with a scripted client standing in for the paused program.

use crate::common;

use std::time::{Duration, Instant};

use breakroom_debugger::Config;
use serde_json::json;

#[tokio::test]
async fn browser_eval_blocks_until_the_paused_client_answers() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("compute", 6238).await;
    let session_id = server.start_session(&pause_id).await;

    let eval = tokio::spawn({
        let http = server.http.clone();
        let url = format!("{}/api/repl/{session_id}/eval", server.base);
        async move { http.post(url).json(&json!({"expr": "a * b"})).send().await.unwrap() }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!eval.is_finished(), "the eval must wait for the paused program");

    let req = server
        .answer_next_eval(&pause_id, |expr| {
            assert_eq!(expr, "a * b");
            json!({"result": "42", "stdout": "", "error": null, "result_cid": null, "result_data": null})
        })
        .await;
    assert_eq!(req["pause_id"], json!(pause_id));

    let response = eval.await.unwrap();
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        common::answer_without_time(body),
        json!({"output": "42", "stdout": "", "is_error": false, "result_cid": null, "index": 0})
    );

    let (_, session) = server.get(&format!("/api/repl/{session_id}")).await;
    assert_eq!(session["session"]["transcript"][0]["input"], "a * b");
    assert_eq!(session["session"]["transcript"][0]["output"], "42");
}

#[tokio::test]
async fn client_long_poll_wakes_within_milliseconds_of_a_resume() {
    let server = common::start_with(Config {
        eval_timeout: Duration::from_secs(5),
        poll_hold: Duration::from_secs(20),
        ..Config::default()
    })
    .await;
    let (_, pause_id) = server.pause_call("compute", 1).await;
    let poll = tokio::spawn({
        let http = server.http.clone();
        let url = format!("{}/api/poll/{pause_id}", server.base);
        async move { http.get(url).send().await.unwrap().json::<serde_json::Value>().await.unwrap() }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!poll.is_finished(), "the poll is held while nothing happens");
    let resumed_at = Instant::now();
    let (status, _) = server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "continue"})).await;
    assert_eq!(status, 200);
    let reply = poll.await.unwrap();
    assert!(resumed_at.elapsed() < Duration::from_millis(500), "woke after {:?}", resumed_at.elapsed());
    assert_eq!(reply, json!({"status": "ready", "action": {"action": "continue"}}));
}

#[tokio::test]
async fn long_poll_with_evals_hands_over_the_eval_and_wakes_when_a_session_closes() {
    // A long hold, so an early answer can only come from a wake-up.
    let server = common::start_with(Config {
        eval_timeout: Duration::from_secs(5),
        poll_hold: Duration::from_secs(20),
        ..Config::default()
    })
    .await;
    let (_, pause_id) = server.pause_call("compute", 6239).await;
    let session_id = server.start_session(&pause_id).await;
    let poll = format!("/api/poll/{pause_id}?evals=1");

    let eval = tokio::spawn({
        let http = server.http.clone();
        let url = format!("{}/api/repl/{session_id}/eval", server.base);
        async move { http.post(url).json(&json!({"expr": "a"})).send().await.unwrap().status() }
    });
    let started = Instant::now();
    let (_, reply) = server.get(&poll).await;
    assert!(started.elapsed() < Duration::from_secs(2), "the queued eval must end the poll at once");
    assert_eq!(reply["status"], "waiting");
    assert_eq!(reply["eval"]["expr"], "a");
    assert_eq!(reply["eval"]["timeout_s"], 5.0);
    assert_eq!(reply["sessions"], json!([session_id]));
    let answer = json!({"eval_id": reply["eval"]["eval_id"], "pause_id": pause_id, "session_id": session_id,
        "result": "6", "stdout": "", "error": null});
    assert_eq!(server.post("/api/call/repl-result", answer).await.0, 200);
    assert_eq!(eval.await.unwrap(), 200);

    let held = tokio::spawn({
        let http = server.http.clone();
        let url = format!("{}{poll}", server.base);
        async move { http.get(url).send().await.unwrap().json::<serde_json::Value>().await.unwrap() }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!held.is_finished(), "nothing happened: the poll is held");
    let started = Instant::now();
    assert_eq!(server.post(&format!("/api/repl/{session_id}/close"), json!({})).await.0, 200);
    let reply = held.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "closing a session must end the poll at once");
    assert_eq!(reply, json!({"status": "waiting", "sessions": []}));
}
