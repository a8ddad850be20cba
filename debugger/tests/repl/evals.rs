//! Evals through the manager: queued to the paused client, answered, timed out, dropped on resume.

use std::time::Duration;

use breakroom_debugger::eval::EvalResult;
use breakroom_debugger::pauses::ResumeRequest;
use breakroom_debugger::{Config, Debugger};
use serde_json::json;

use super::{debugger, pause};

// ---- evals through the manager ----------------------------------------------------------

fn answer(d: &Debugger, pause_id: &str, output: &str) {
    let req = d.sessions().next_eval(pause_id).expect("an eval is waiting");
    d.sessions()
        .submit_eval_result(EvalResult {
            eval_id: Some(req.eval_id),
            pause_id: Some(pause_id.into()),
            session_id: Some(req.session_id),
            result: Some(output.into()),
            ..Default::default()
        })
        .unwrap();
}

#[tokio::test]
async fn eval_waits_for_the_clients_answer_and_records_it() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let s = d.sessions().start_session(&p).unwrap();
    let waiting = tokio::spawn({
        let d = d.clone();
        let s = s.clone();
        async move { d.sessions().eval(&s, "a * b").await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!waiting.is_finished(), "eval must wait for the client");
    answer(&d, &p, "42");
    let outcome = waiting.await.unwrap().unwrap();
    assert_eq!(outcome.output, "42");
    assert_eq!(d.sessions().session(&s).unwrap().unwrap().transcript[0].input, "a * b");
}

#[tokio::test]
async fn evals_on_one_pause_are_handed_out_one_at_a_time_in_order() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let s = d.sessions().start_session(&p).unwrap();
    let first = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.sessions().eval(&s, "first").await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let second = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.sessions().eval(&s, "second").await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let req = d.sessions().next_eval(&p).unwrap();
    assert_eq!(req.expr, "first");
    assert!(d.sessions().next_eval(&p).is_none(), "one eval in flight per pause");
    d.sessions()
        .submit_eval_result(EvalResult {
            eval_id: Some(req.eval_id),
            pause_id: Some(p.clone()),
            session_id: Some(s.clone()),
            result: Some("1".into()),
            ..Default::default()
        })
        .unwrap();
    answer(&d, &p, "2");
    assert_eq!(first.await.unwrap().unwrap().output, "1");
    assert_eq!(second.await.unwrap().unwrap().output, "2");
    let inputs: Vec<String> =
        d.sessions().session(&s).unwrap().unwrap().transcript.into_iter().map(|e| e.input).collect();
    assert_eq!(inputs, vec!["first", "second"]);
}

#[tokio::test]
async fn eval_times_out_when_the_client_never_answers() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let s = d.sessions().start_session(&p).unwrap();
    let err = d.sessions().eval(&s, "x").await.unwrap_err();
    assert_eq!(err.code(), "eval_timeout");
    assert!(d.sessions().session(&s).unwrap().unwrap().is_active(), "the session stays usable");
}

#[tokio::test]
async fn resume_while_eval_waits_answers_session_closed_and_drops_the_late_result() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let s = d.sessions().start_session(&p).unwrap();
    let waiting = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.sessions().eval(&s, "slow()").await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let req = d.sessions().next_eval(&p).unwrap();
    d.pauses().resume(&p, ResumeRequest::continue_()).unwrap();
    assert_eq!(waiting.await.unwrap().unwrap_err().code(), "session_closed");
    let late = d.sessions().submit_eval_result(EvalResult {
        eval_id: Some(req.eval_id),
        pause_id: Some(p),
        session_id: Some(s.clone()),
        result: Some("1".into()),
        ..Default::default()
    });
    assert_eq!(late.unwrap_err().code(), "session_closed");
    assert!(d.sessions().session(&s).unwrap().unwrap().transcript.is_empty());
}

#[tokio::test]
async fn long_poll_wakes_on_resume() {
    let d = Debugger::for_tests(Config {
        eval_timeout: Duration::from_secs(1),
        poll_hold: Duration::from_secs(5),
        ..Config::default()
    });
    let p = pause(&d, "f", 1);
    let polling = tokio::spawn({
        let (d, p) = (d.clone(), p.clone());
        async move { d.pauses().poll(&p, true).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let started = std::time::Instant::now();
    d.pauses().resume(&p, ResumeRequest::continue_()).unwrap();
    let reply = serde_json::to_value(polling.await.unwrap()).unwrap();
    assert!(started.elapsed() < Duration::from_millis(500));
    // Breakroom's client (it takes evals with its poll) is told the breakpoints' version too.
    assert_eq!(reply["breakpoints_version"], json!(d.breakpoints().breakpoint_changes(None, None).await.version));
    assert_eq!(reply["status"], "ready");
    assert_eq!(reply["action"], json!({"action": "continue"}));
}

#[tokio::test]
async fn long_poll_hands_over_a_queued_eval() {
    let d = Debugger::for_tests(Config {
        eval_timeout: Duration::from_secs(2),
        poll_hold: Duration::from_secs(5),
        ..Config::default()
    });
    let p = pause(&d, "f", 1);
    let s = d.sessions().start_session(&p).unwrap();
    let polling = tokio::spawn({
        let (d, p) = (d.clone(), p.clone());
        async move { d.pauses().poll(&p, true).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let eval = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.sessions().eval(&s, "1 + 1").await }
    });
    let reply = serde_json::to_value(polling.await.unwrap()).unwrap();
    assert_eq!(reply["status"], "waiting");
    assert_eq!(reply["eval"]["expr"], "1 + 1");
    assert_eq!(reply["eval"]["session_id"], json!(s));
    d.sessions()
        .submit_eval_result(EvalResult {
            eval_id: reply["eval"]["eval_id"].as_str().map(str::to_string),
            pause_id: Some(p),
            session_id: Some(s),
            result: Some("2".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(eval.await.unwrap().unwrap().output, "2");
}
