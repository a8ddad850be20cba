//! ReplManager: REPL sessions in the session manager.

use std::collections::HashSet;
use std::time::Duration;

use breakroom_debugger::call::CallStart;
use breakroom_debugger::eval::EvalResult;
use breakroom_debugger::model::{SessionQuery, SessionStatus};
use breakroom_debugger::pause::ResumeRequest;
use breakroom_debugger::{Config, Debugger, Error};
use serde_json::json;

fn debugger() -> Debugger {
    Debugger::new(Config {
        eval_timeout: Duration::from_millis(500),
        poll_hold: Duration::from_millis(200),
        ..Config::default()
    })
}

/// Pauses a call of `name` in process `pid`; returns the pause id.
fn pause(d: &Debugger, name: &str, pid: i64) -> String {
    d.add_breakpoint(name, Some("(a, b)".into()), None).unwrap();
    let reply = d
        .start_call(CallStart {
            method_name: Some(name.into()),
            process_pid: Some(json!(pid)),
            process_start_time: Some(json!(1795331833.75)),
            ..Default::default()
        })
        .unwrap();
    let v = serde_json::to_value(&reply).unwrap();
    v["poll_url"].as_str().unwrap().rsplit('/').next().unwrap().to_string()
}

#[test]
fn test_start_session_creates_session_with_correct_fields() {
    let d = debugger();
    let p = pause(&d, "compute", 6238);
    let id = d.start_session(&p).unwrap();
    let s = d.session(&id).unwrap().unwrap();
    assert_eq!(s.session_id, id);
    assert_eq!(s.pause_id, p);
    assert_eq!(s.pid, 6238);
    assert_eq!(s.function_name, "compute");
    assert_eq!(s.process_key, "1795331833.750000+6238");
    assert!(s.call_id.is_some());
    assert!(s.closed_at.is_none());
    assert!(s.transcript.is_empty());
    assert!(s.started_at > 1.7e9);
}

#[test]
fn test_start_session_returns_unique_session_id_format() {
    let d = debugger();
    let p = pause(&d, "f", 42);
    let ids: HashSet<String> = (0..20).map(|_| d.start_session(&p).unwrap()).collect();
    assert_eq!(ids.len(), 20);
    for id in ids {
        let (pid, ts) = id.split_once('-').unwrap();
        assert_eq!(pid, "42");
        assert_eq!(ts.split_once('.').unwrap().1.len(), 6, "{id}");
    }
}

#[test]
fn test_start_session_for_nonexistent_pause_id_raises_error() {
    let d = debugger();
    assert_eq!(d.start_session("nope"), Err(Error::PauseNotFound("nope".into())));
}

#[test]
fn test_start_session_session_id_contains_pid_and_timestamp() {
    let d = debugger();
    let p = pause(&d, "f", 31337);
    let id = d.start_session(&p).unwrap();
    let s = d.session(&id).unwrap().unwrap();
    assert_eq!(id, format!("31337-{:.6}", s.started_at));
}

#[test]
fn test_get_session_returns_correct_session() {
    let d = debugger();
    let a = d.start_session(&pause(&d, "a", 1)).unwrap();
    let b = d.start_session(&pause(&d, "b", 2)).unwrap();
    assert_eq!(d.session(&a).unwrap().unwrap().function_name, "a");
    assert_eq!(d.session(&b).unwrap().unwrap().function_name, "b");
}

#[test]
fn test_get_session_nonexistent_returns_none() {
    assert!(debugger().session("1-2.000000").unwrap().is_none());
}

#[test]
fn test_list_sessions_returns_all_sessions() {
    let d = debugger();
    for n in ["a", "b", "c"] {
        d.start_session(&pause(&d, n, 1)).unwrap();
    }
    let page = d.list_sessions(&SessionQuery::default()).unwrap();
    assert_eq!(page.total, 3);
    assert_eq!(page.sessions.len(), 3);
}

fn two_sessions_one_closed(d: &Debugger) -> (String, String) {
    let open = d.start_session(&pause(d, "open_fn", 1)).unwrap();
    let closed = d.start_session(&pause(d, "closed_fn", 1)).unwrap();
    d.close_session(&closed).unwrap();
    (open, closed)
}

#[test]
fn test_list_sessions_filter_by_active_status() {
    let d = debugger();
    let (open, _) = two_sessions_one_closed(&d);
    let page = d.list_sessions(&SessionQuery { status: SessionStatus::Active, ..Default::default() }).unwrap();
    assert_eq!(page.sessions.iter().map(|s| &s.session_id).collect::<Vec<_>>(), vec![&open]);
}

#[test]
fn test_list_sessions_filter_by_closed_status() {
    let d = debugger();
    let (_, closed) = two_sessions_one_closed(&d);
    let page = d.list_sessions(&SessionQuery { status: SessionStatus::Closed, ..Default::default() }).unwrap();
    assert_eq!(page.sessions.iter().map(|s| &s.session_id).collect::<Vec<_>>(), vec![&closed]);
}

#[test]
fn test_list_sessions_filter_by_timestamp_range() {
    let d = debugger();
    let first = d.start_session(&pause(&d, "first", 1)).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let second = d.start_session(&pause(&d, "second", 1)).unwrap();
    let t2 = d.session(&second).unwrap().unwrap().started_at;
    let t1 = d.session(&first).unwrap().unwrap().started_at;
    let only_second = d.list_sessions(&SessionQuery { from: Some(t2 - 0.005), ..Default::default() }).unwrap();
    assert_eq!(only_second.sessions.len(), 1);
    assert_eq!(only_second.sessions[0].session_id, second);
    let only_first = d.list_sessions(&SessionQuery { to: Some(t1 + 0.005), ..Default::default() }).unwrap();
    assert_eq!(only_first.sessions.len(), 1);
    assert_eq!(only_first.sessions[0].session_id, first);
}

#[test]
fn test_list_sessions_search_by_function_name() {
    let d = debugger();
    d.start_session(&pause(&d, "load_invoice", 1)).unwrap();
    d.start_session(&pause(&d, "send_email", 1)).unwrap();
    let page = d.list_sessions(&SessionQuery { search: Some("INVOICE".into()), ..Default::default() }).unwrap();
    assert_eq!(page.sessions.len(), 1);
    assert_eq!(page.sessions[0].function_name, "load_invoice");
}

#[test]
fn test_list_sessions_search_by_transcript_content() {
    let d = debugger();
    let a = d.start_session(&pause(&d, "a", 1)).unwrap();
    let b = d.start_session(&pause(&d, "b", 1)).unwrap();
    d.append_transcript(&a, "customer.balance", "1200", "", false, None).unwrap();
    d.append_transcript(&b, "x", "1", "printed zebra\n", false, None).unwrap();
    let by_input = d.list_sessions(&SessionQuery { search: Some("balance".into()), ..Default::default() }).unwrap();
    assert_eq!(by_input.sessions[0].session_id, a);
    let by_output = d.list_sessions(&SessionQuery { search: Some("1200".into()), ..Default::default() }).unwrap();
    assert_eq!(by_output.sessions[0].session_id, a);
    let by_stdout = d.list_sessions(&SessionQuery { search: Some("zebra".into()), ..Default::default() }).unwrap();
    assert_eq!(by_stdout.total, 1);
    assert_eq!(by_stdout.sessions[0].session_id, b);
}

#[test]
fn test_list_sessions_combined_filters() {
    let d = debugger();
    let (open, closed) = two_sessions_one_closed(&d);
    d.append_transcript(&open, "needle", "", "", false, None).unwrap();
    let _ = closed;
    let q = SessionQuery { search: Some("needle".into()), status: SessionStatus::Closed, ..Default::default() };
    assert_eq!(d.list_sessions(&q).unwrap().total, 0);
    let q = SessionQuery { search: Some("needle".into()), status: SessionStatus::Active, ..Default::default() };
    assert_eq!(d.list_sessions(&q).unwrap().sessions[0].session_id, open);
}

#[test]
fn test_list_sessions_empty_when_no_sessions() {
    let page = debugger().list_sessions(&SessionQuery::default()).unwrap();
    assert_eq!(page.total, 0);
    assert!(page.sessions.is_empty());
}

#[test]
fn test_append_transcript_adds_entry_with_correct_fields() {
    let d = debugger();
    let id = d.start_session(&pause(&d, "f", 1)).unwrap();
    let entry = d.append_transcript(&id, "a * b", "42", "hi\n", false, Some("abc".into())).unwrap();
    assert_eq!(entry.index, 0);
    assert_eq!(entry.input, "a * b");
    assert_eq!(entry.output, "42");
    assert_eq!(entry.stdout, "hi\n");
    assert!(!entry.is_error);
    assert_eq!(entry.result_cid.as_deref(), Some("abc"));
    assert!(entry.timestamp > 1.7e9);
    assert_eq!(d.session(&id).unwrap().unwrap().transcript, vec![entry]);
}

#[test]
fn test_append_transcript_entries_ordered_by_index() {
    let d = debugger();
    let id = d.start_session(&pause(&d, "f", 1)).unwrap();
    for i in 0..5 {
        d.append_transcript(&id, &format!("{i}"), &format!("{i}"), "", false, None).unwrap();
    }
    let t = d.session(&id).unwrap().unwrap().transcript;
    assert_eq!(t.iter().map(|e| e.index).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
    assert_eq!(t.iter().map(|e| e.input.as_str()).collect::<Vec<_>>(), vec!["0", "1", "2", "3", "4"]);
}

#[test]
fn test_append_transcript_to_nonexistent_session_raises_error() {
    let d = debugger();
    assert_eq!(
        d.append_transcript("9-1.000000", "x", "", "", false, None),
        Err(Error::SessionNotFound("9-1.000000".into()))
    );
}

#[test]
fn test_append_transcript_to_closed_session_raises_error() {
    let d = debugger();
    let id = d.start_session(&pause(&d, "f", 1)).unwrap();
    d.close_session(&id).unwrap();
    assert_eq!(d.append_transcript(&id, "x", "", "", false, None), Err(Error::SessionClosed(id.clone())));
    assert!(d.session(&id).unwrap().unwrap().transcript.is_empty());
}

#[test]
fn test_close_session_sets_closed_at() {
    let d = debugger();
    let id = d.start_session(&pause(&d, "f", 1)).unwrap();
    d.close_session(&id).unwrap();
    let s = d.session(&id).unwrap().unwrap();
    assert!(s.closed_at.unwrap() >= s.started_at);
}

#[test]
fn test_close_session_already_closed_is_idempotent() {
    let d = debugger();
    let id = d.start_session(&pause(&d, "f", 1)).unwrap();
    d.close_session(&id).unwrap();
    let first = d.session(&id).unwrap().unwrap().closed_at;
    d.close_session(&id).unwrap();
    assert_eq!(d.session(&id).unwrap().unwrap().closed_at, first);
}

#[test]
fn test_close_session_nonexistent_raises_error() {
    assert_eq!(debugger().close_session("1-1.000000"), Err(Error::SessionNotFound("1-1.000000".into())));
}

#[test]
fn test_auto_close_on_breakpoint_resume() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.start_session(&p).unwrap();
    let b = d.start_session(&p).unwrap();
    let other = d.start_session(&pause(&d, "g", 1)).unwrap();
    d.resume(&p, ResumeRequest::continue_()).unwrap();
    assert!(d.session(&a).unwrap().unwrap().closed_at.is_some());
    assert!(d.session(&b).unwrap().unwrap().closed_at.is_some());
    assert!(d.session(&other).unwrap().unwrap().closed_at.is_none());
    assert_eq!(d.start_session(&p), Err(Error::PauseResumed(p.clone())));
}

#[test]
fn test_get_sessions_for_pause_returns_matching_sessions() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.start_session(&p).unwrap();
    let b = d.start_session(&p).unwrap();
    d.start_session(&pause(&d, "g", 1)).unwrap();
    assert_eq!(d.sessions_for_pause(&p).unwrap(), vec![a, b]);
}

#[test]
fn test_get_sessions_for_pause_returns_empty_for_no_sessions() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    assert!(d.sessions_for_pause(&p).unwrap().is_empty());
    assert!(d.sessions_for_pause("unknown").unwrap().is_empty());
}

#[test]
fn test_get_sessions_for_call_returns_matching_sessions() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.start_session(&p).unwrap();
    let call_id = d.session(&a).unwrap().unwrap().call_id.unwrap();
    d.start_session(&pause(&d, "g", 1)).unwrap();
    assert_eq!(d.sessions_for_call(&call_id).unwrap(), vec![a.clone()]);
    assert_eq!(d.call_record(&call_id).unwrap().unwrap().repl_sessions, vec![a]);
}

#[test]
fn test_thread_safety_concurrent_session_starts() {
    let d = debugger();
    let p = pause(&d, "f", 7);
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let d = d.clone();
            let p = p.clone();
            std::thread::spawn(move || (0..25).map(|_| d.start_session(&p).unwrap()).collect::<Vec<_>>())
        })
        .collect();
    let ids: HashSet<String> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    assert_eq!(ids.len(), 200);
    assert_eq!(d.sessions_for_pause(&p).unwrap().len(), 200);
}

#[test]
fn test_thread_safety_concurrent_transcript_appends() {
    let d = debugger();
    let id = d.start_session(&pause(&d, "f", 1)).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let d = d.clone();
            let id = id.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    d.append_transcript(&id, &format!("{t}:{i}"), "", "", false, None).unwrap();
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    let t = d.session(&id).unwrap().unwrap().transcript;
    assert_eq!(t.len(), 400);
    assert!(t.iter().enumerate().all(|(i, e)| e.index == i));
    let inputs: HashSet<&str> = t.iter().map(|e| e.input.as_str()).collect();
    assert_eq!(inputs.len(), 400);
}

#[test]
fn test_multiple_sessions_for_same_pause_id() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.start_session(&p).unwrap();
    let b = d.start_session(&p).unwrap();
    assert_ne!(a, b);
    d.append_transcript(&a, "only in a", "", "", false, None).unwrap();
    assert_eq!(d.session(&a).unwrap().unwrap().transcript.len(), 1);
    assert!(d.session(&b).unwrap().unwrap().transcript.is_empty());
    assert_eq!(d.paused_calls()[0].active_sessions, vec![a, b]);
}

// ---- evals through the manager ----------------------------------------------------------

fn answer(d: &Debugger, pause_id: &str, output: &str) {
    let req = d.next_eval(pause_id).expect("an eval is waiting");
    d.submit_eval_result(EvalResult {
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
    let s = d.start_session(&p).unwrap();
    let waiting = tokio::spawn({
        let d = d.clone();
        let s = s.clone();
        async move { d.eval(&s, "a * b").await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!waiting.is_finished(), "eval must wait for the client");
    answer(&d, &p, "42");
    let outcome = waiting.await.unwrap().unwrap();
    assert_eq!(outcome.output, "42");
    assert_eq!(d.session(&s).unwrap().unwrap().transcript[0].input, "a * b");
}

#[tokio::test]
async fn evals_on_one_pause_are_handed_out_one_at_a_time_in_order() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let s = d.start_session(&p).unwrap();
    let first = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.eval(&s, "first").await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let second = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.eval(&s, "second").await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let req = d.next_eval(&p).unwrap();
    assert_eq!(req.expr, "first");
    assert!(d.next_eval(&p).is_none(), "one eval in flight per pause");
    d.submit_eval_result(EvalResult {
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
    let inputs: Vec<String> = d.session(&s).unwrap().unwrap().transcript.into_iter().map(|e| e.input).collect();
    assert_eq!(inputs, vec!["first", "second"]);
}

#[tokio::test]
async fn eval_times_out_when_the_client_never_answers() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let s = d.start_session(&p).unwrap();
    let err = d.eval(&s, "x").await.unwrap_err();
    assert_eq!(err.code(), "eval_timeout");
    assert!(d.session(&s).unwrap().unwrap().is_active(), "the session stays usable");
}

#[tokio::test]
async fn resume_while_eval_waits_answers_session_closed_and_drops_the_late_result() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let s = d.start_session(&p).unwrap();
    let waiting = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.eval(&s, "slow()").await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let req = d.next_eval(&p).unwrap();
    d.resume(&p, ResumeRequest::continue_()).unwrap();
    assert_eq!(waiting.await.unwrap().unwrap_err().code(), "session_closed");
    let late = d.submit_eval_result(EvalResult {
        eval_id: Some(req.eval_id),
        pause_id: Some(p),
        session_id: Some(s.clone()),
        result: Some("1".into()),
        ..Default::default()
    });
    assert_eq!(late.unwrap_err().code(), "session_closed");
    assert!(d.session(&s).unwrap().unwrap().transcript.is_empty());
}

#[tokio::test]
async fn long_poll_wakes_on_resume() {
    let d = Debugger::new(Config {
        eval_timeout: Duration::from_secs(1),
        poll_hold: Duration::from_secs(5),
        ..Config::default()
    });
    let p = pause(&d, "f", 1);
    let polling = tokio::spawn({
        let (d, p) = (d.clone(), p.clone());
        async move { d.poll(&p, true).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let started = std::time::Instant::now();
    d.resume(&p, ResumeRequest::continue_()).unwrap();
    let reply = serde_json::to_value(polling.await.unwrap()).unwrap();
    assert!(started.elapsed() < Duration::from_millis(500));
    assert_eq!(reply, json!({"status": "ready", "action": {"action": "continue"}}));
}

#[tokio::test]
async fn long_poll_hands_over_a_queued_eval() {
    let d = Debugger::new(Config {
        eval_timeout: Duration::from_secs(2),
        poll_hold: Duration::from_secs(5),
        ..Config::default()
    });
    let p = pause(&d, "f", 1);
    let s = d.start_session(&p).unwrap();
    let polling = tokio::spawn({
        let (d, p) = (d.clone(), p.clone());
        async move { d.poll(&p, true).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let eval = tokio::spawn({
        let (d, s) = (d.clone(), s.clone());
        async move { d.eval(&s, "1 + 1").await }
    });
    let reply = serde_json::to_value(polling.await.unwrap()).unwrap();
    assert_eq!(reply["status"], "waiting");
    assert_eq!(reply["eval"]["expr"], "1 + 1");
    assert_eq!(reply["eval"]["session_id"], json!(s));
    d.submit_eval_result(EvalResult {
        eval_id: reply["eval"]["eval_id"].as_str().map(str::to_string),
        pause_id: Some(p),
        session_id: Some(s),
        result: Some("2".into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(eval.await.unwrap().unwrap().output, "2");
}

// ---- Edge cases: the session manager's ones ----------------------------------

fn pause_in(d: &Debugger, name: &str, pid: i64, start_time: f64) -> String {
    d.add_breakpoint(name, None, None).unwrap();
    let reply = d
        .start_call(CallStart {
            method_name: Some(name.into()),
            process_pid: Some(json!(pid)),
            process_start_time: Some(json!(start_time)),
            ..Default::default()
        })
        .unwrap();
    serde_json::to_value(&reply).unwrap()["poll_url"].as_str().unwrap().rsplit('/').next().unwrap().to_string()
}

#[test]
fn test_session_id_with_large_pid() {
    let d = debugger();
    let p = pause(&d, "f", 4_194_304_123);
    let id = d.start_session(&p).unwrap();
    assert!(id.starts_with("4194304123-"), "{id}");
    assert_eq!(d.session(&id).unwrap().unwrap().pid, 4_194_304_123);
}

#[test]
fn test_session_id_with_high_precision_timestamp() {
    let d = debugger();
    let p = pause(&d, "f", 7);
    let id = d.start_session(&p).unwrap();
    let session = d.session(&id).unwrap().unwrap();
    // Six decimals, and the id's time is the session's start time to the microsecond.
    let ts = id.split_once('-').unwrap().1;
    assert_eq!(ts.split_once('.').unwrap().1.len(), 6);
    assert!((ts.parse::<f64>().unwrap() - session.started_at).abs() < 1e-6);
}

#[test]
fn test_start_session_race_condition_same_pid_timestamp() {
    let d = debugger();
    let p = pause(&d, "f", 8);
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16).map(|_| scope.spawn(|| d.start_session(&p).unwrap())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 16, "{ids:?}");
}

#[test]
fn test_start_session_collision_retries_with_1ms_bump() {
    let d = debugger();
    let p = pause(&d, "f", 9);
    let template = d.session(&d.start_session(&p).unwrap()).unwrap().unwrap();
    // Two sessions of one process starting in the same microsecond.
    let mut sessions = breakroom_debugger::session::Sessions::default();
    let none_closed = |_: &str| Ok(false);
    let first = sessions.insert(template.clone(), none_closed).unwrap();
    let second = sessions.insert(template.clone(), none_closed).unwrap();
    let time = |id: &str| id.split_once('-').unwrap().1.parse::<f64>().unwrap();
    // A closed session (in the store, not in memory) holds the next slot, 1 ms after the second
    // (matched by time, not by formatting a sum: `t + 0.002` and `t + 0.001 + 0.001` can print
    // a microsecond apart, which made this test fail now and then).
    let third_closed = |id: &str| Ok((time(id) - time(&second) - 0.001).abs() < 5e-4);
    let third = sessions.insert(template.clone(), third_closed).unwrap();
    assert_eq!(first, format!("9-{:.6}", template.started_at));
    assert!((time(&second) - time(&first) - 0.001).abs() < 3e-6, "{first} {second}");
    assert!((time(&third) - time(&second) - 0.002).abs() < 3e-6, "{second} {third}");
    assert!((sessions.get(&second).unwrap().started_at - template.started_at - 0.001).abs() < 1e-6);
}

#[test]
fn test_multiple_clients_same_pid_different_start_time() {
    let d = debugger();
    let first = pause_in(&d, "f", 77, 1_795_331_833.75);
    let second = pause_in(&d, "f", 77, 1_795_331_999.25);
    let (a, b) = (d.start_session(&first).unwrap(), d.start_session(&second).unwrap());
    assert_ne!(d.session(&a).unwrap().unwrap().process_key, d.session(&b).unwrap().unwrap().process_key);
    assert_eq!(d.sessions_for_pause(&first).unwrap(), vec![a]);
    assert_eq!(d.sessions_for_pause(&second).unwrap(), vec![b]);
}

#[test]
fn test_start_repl_on_already_resumed_breakpoint_returns_409() {
    let d = debugger();
    let p = pause(&d, "f", 10);
    d.resume(&p, ResumeRequest::continue_()).unwrap();
    let err = d.start_session(&p).unwrap_err();
    assert!(matches!(err, Error::PauseResumed(_)), "{err:?}");
    assert_eq!(err.kind(), breakroom_debugger::ErrorKind::Conflict);
}

#[test]
fn test_transcript_with_hundreds_of_entries_performance() {
    let d = debugger();
    let p = pause(&d, "f", 11);
    let id = d.start_session(&p).unwrap();
    for i in 0..500 {
        d.append_transcript(&id, &format!("x{i}"), &format!("{i}"), "", false, None).unwrap();
    }
    let session = d.session(&id).unwrap().unwrap();
    assert_eq!(session.transcript.len(), 500);
    assert_eq!(session.transcript.iter().map(|e| e.index).collect::<Vec<_>>(), (0..500).collect::<Vec<_>>());
    let page = d.list_sessions(&SessionQuery { search: Some("x499".into()), ..Default::default() }).unwrap();
    assert_eq!(page.total, 1);
}

#[test]
fn test_repls_page_with_hundreds_of_sessions_performance() {
    let d = debugger();
    let p = pause(&d, "f", 12);
    for _ in 0..300 {
        d.start_session(&p).unwrap();
    }
    let page =
        d.session_summaries(&SessionQuery { status: SessionStatus::Active, page: 6, ..Default::default() }).unwrap();
    assert_eq!((page.total, page.sessions.len(), page.per_page), (300, 50, 50));
    assert!(page.sessions.windows(2).all(|w| w[0].started_at > w[1].started_at));
}
