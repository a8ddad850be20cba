//! Sessions: start, get, list and search, transcripts, closing, and concurrency.

use std::collections::HashSet;
use std::time::Duration;

use breakroom_debugger::model::{SessionQuery, SessionStatus};
use breakroom_debugger::pauses::ResumeRequest;
use breakroom_debugger::{Debugger, Error};

use super::{debugger, pause};

#[test]
fn start_session_creates_session_with_correct_fields() {
    let d = debugger();
    let p = pause(&d, "compute", 6238);
    let id = d.sessions().start_session(&p).unwrap();
    let s = d.sessions().session(&id).unwrap().unwrap();
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
fn start_session_returns_unique_session_id_format() {
    let d = debugger();
    let p = pause(&d, "f", 42);
    let ids: HashSet<String> = (0..20).map(|_| d.sessions().start_session(&p).unwrap()).collect();
    assert_eq!(ids.len(), 20);
    for id in ids {
        let (pid, ts) = id.split_once('-').unwrap();
        assert_eq!(pid, "42");
        assert_eq!(ts.split_once('.').unwrap().1.len(), 6, "{id}");
    }
}

#[test]
fn start_session_for_nonexistent_pause_id_raises_error() {
    let d = debugger();
    assert_eq!(d.sessions().start_session("nope"), Err(Error::PauseNotFound("nope".into())));
}

#[test]
fn start_session_session_id_contains_pid_and_timestamp() {
    let d = debugger();
    let p = pause(&d, "f", 31337);
    let id = d.sessions().start_session(&p).unwrap();
    let s = d.sessions().session(&id).unwrap().unwrap();
    assert_eq!(id, format!("31337-{:.6}", s.started_at));
}

#[test]
fn get_session_returns_correct_session() {
    let d = debugger();
    let a = d.sessions().start_session(&pause(&d, "a", 1)).unwrap();
    let b = d.sessions().start_session(&pause(&d, "b", 2)).unwrap();
    assert_eq!(d.sessions().session(&a).unwrap().unwrap().function_name, "a");
    assert_eq!(d.sessions().session(&b).unwrap().unwrap().function_name, "b");
}

#[test]
fn get_session_nonexistent_returns_none() {
    assert!(debugger().sessions().session("1-2.000000").unwrap().is_none());
}

#[test]
fn list_sessions_returns_all_sessions() {
    let d = debugger();
    for n in ["a", "b", "c"] {
        d.sessions().start_session(&pause(&d, n, 1)).unwrap();
    }
    let page = d.sessions().list_sessions(&SessionQuery::default()).unwrap();
    assert_eq!(page.total, 3);
    assert_eq!(page.sessions.len(), 3);
}

fn two_sessions_one_closed(d: &Debugger) -> (String, String) {
    let open = d.sessions().start_session(&pause(d, "open_fn", 1)).unwrap();
    let closed = d.sessions().start_session(&pause(d, "closed_fn", 1)).unwrap();
    d.sessions().close_session(&closed).unwrap();
    (open, closed)
}

#[test]
fn list_sessions_filter_by_active_status() {
    let d = debugger();
    let (open, _) = two_sessions_one_closed(&d);
    let page =
        d.sessions().list_sessions(&SessionQuery { status: SessionStatus::Active, ..Default::default() }).unwrap();
    assert_eq!(page.sessions.iter().map(|s| &s.session_id).collect::<Vec<_>>(), vec![&open]);
}

#[test]
fn list_sessions_filter_by_closed_status() {
    let d = debugger();
    let (_, closed) = two_sessions_one_closed(&d);
    let page =
        d.sessions().list_sessions(&SessionQuery { status: SessionStatus::Closed, ..Default::default() }).unwrap();
    assert_eq!(page.sessions.iter().map(|s| &s.session_id).collect::<Vec<_>>(), vec![&closed]);
}

#[test]
fn list_sessions_filter_by_timestamp_range() {
    let d = debugger();
    let first = d.sessions().start_session(&pause(&d, "first", 1)).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let second = d.sessions().start_session(&pause(&d, "second", 1)).unwrap();
    let t2 = d.sessions().session(&second).unwrap().unwrap().started_at;
    let t1 = d.sessions().session(&first).unwrap().unwrap().started_at;
    let only_second =
        d.sessions().list_sessions(&SessionQuery { from: Some(t2 - 0.005), ..Default::default() }).unwrap();
    assert_eq!(only_second.sessions.len(), 1);
    assert_eq!(only_second.sessions[0].session_id, second);
    let only_first = d.sessions().list_sessions(&SessionQuery { to: Some(t1 + 0.005), ..Default::default() }).unwrap();
    assert_eq!(only_first.sessions.len(), 1);
    assert_eq!(only_first.sessions[0].session_id, first);
}

#[test]
fn list_sessions_search_by_function_name() {
    let d = debugger();
    d.sessions().start_session(&pause(&d, "load_invoice", 1)).unwrap();
    d.sessions().start_session(&pause(&d, "send_email", 1)).unwrap();
    let page =
        d.sessions().list_sessions(&SessionQuery { search: Some("INVOICE".into()), ..Default::default() }).unwrap();
    assert_eq!(page.sessions.len(), 1);
    assert_eq!(page.sessions[0].function_name, "load_invoice");
}

#[test]
fn list_sessions_search_by_transcript_content() {
    let d = debugger();
    let a = d.sessions().start_session(&pause(&d, "a", 1)).unwrap();
    let b = d.sessions().start_session(&pause(&d, "b", 1)).unwrap();
    d.sessions().append_transcript(&a, "customer.balance", "1200", "", false, None).unwrap();
    d.sessions().append_transcript(&b, "x", "1", "printed zebra\n", false, None).unwrap();
    let by_input =
        d.sessions().list_sessions(&SessionQuery { search: Some("balance".into()), ..Default::default() }).unwrap();
    assert_eq!(by_input.sessions[0].session_id, a);
    let by_output =
        d.sessions().list_sessions(&SessionQuery { search: Some("1200".into()), ..Default::default() }).unwrap();
    assert_eq!(by_output.sessions[0].session_id, a);
    let by_stdout =
        d.sessions().list_sessions(&SessionQuery { search: Some("zebra".into()), ..Default::default() }).unwrap();
    assert_eq!(by_stdout.total, 1);
    assert_eq!(by_stdout.sessions[0].session_id, b);
}

#[test]
fn list_sessions_combined_filters() {
    let d = debugger();
    let (open, closed) = two_sessions_one_closed(&d);
    d.sessions().append_transcript(&open, "needle", "", "", false, None).unwrap();
    let _ = closed;
    let q = SessionQuery { search: Some("needle".into()), status: SessionStatus::Closed, ..Default::default() };
    assert_eq!(d.sessions().list_sessions(&q).unwrap().total, 0);
    let q = SessionQuery { search: Some("needle".into()), status: SessionStatus::Active, ..Default::default() };
    assert_eq!(d.sessions().list_sessions(&q).unwrap().sessions[0].session_id, open);
}

#[test]
fn list_sessions_empty_when_no_sessions() {
    let page = debugger().sessions().list_sessions(&SessionQuery::default()).unwrap();
    assert_eq!(page.total, 0);
    assert!(page.sessions.is_empty());
}

#[test]
fn append_transcript_adds_entry_with_correct_fields() {
    let d = debugger();
    let id = d.sessions().start_session(&pause(&d, "f", 1)).unwrap();
    let entry = d.sessions().append_transcript(&id, "a * b", "42", "hi\n", false, Some("abc".into())).unwrap();
    assert_eq!(entry.index, 0);
    assert_eq!(entry.input, "a * b");
    assert_eq!(entry.output, "42");
    assert_eq!(entry.stdout, "hi\n");
    assert!(!entry.is_error);
    assert_eq!(entry.result_cid.as_deref(), Some("abc"));
    assert!(entry.timestamp > 1.7e9);
    assert_eq!(d.sessions().session(&id).unwrap().unwrap().transcript, vec![entry]);
}

#[test]
fn append_transcript_entries_ordered_by_index() {
    let d = debugger();
    let id = d.sessions().start_session(&pause(&d, "f", 1)).unwrap();
    for i in 0..5 {
        d.sessions().append_transcript(&id, &format!("{i}"), &format!("{i}"), "", false, None).unwrap();
    }
    let t = d.sessions().session(&id).unwrap().unwrap().transcript;
    assert_eq!(t.iter().map(|e| e.index).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
    assert_eq!(t.iter().map(|e| e.input.as_str()).collect::<Vec<_>>(), vec!["0", "1", "2", "3", "4"]);
}

#[test]
fn append_transcript_to_nonexistent_session_raises_error() {
    let d = debugger();
    assert_eq!(
        d.sessions().append_transcript("9-1.000000", "x", "", "", false, None),
        Err(Error::SessionNotFound("9-1.000000".into()))
    );
}

#[test]
fn append_transcript_to_closed_session_raises_error() {
    let d = debugger();
    let id = d.sessions().start_session(&pause(&d, "f", 1)).unwrap();
    d.sessions().close_session(&id).unwrap();
    assert_eq!(d.sessions().append_transcript(&id, "x", "", "", false, None), Err(Error::SessionClosed(id.clone())));
    assert!(d.sessions().session(&id).unwrap().unwrap().transcript.is_empty());
}

#[test]
fn close_session_sets_closed_at() {
    let d = debugger();
    let id = d.sessions().start_session(&pause(&d, "f", 1)).unwrap();
    d.sessions().close_session(&id).unwrap();
    let s = d.sessions().session(&id).unwrap().unwrap();
    assert!(s.closed_at.unwrap() >= s.started_at);
}

#[test]
fn close_session_already_closed_is_idempotent() {
    let d = debugger();
    let id = d.sessions().start_session(&pause(&d, "f", 1)).unwrap();
    d.sessions().close_session(&id).unwrap();
    let first = d.sessions().session(&id).unwrap().unwrap().closed_at;
    d.sessions().close_session(&id).unwrap();
    assert_eq!(d.sessions().session(&id).unwrap().unwrap().closed_at, first);
}

#[test]
fn close_session_nonexistent_raises_error() {
    assert_eq!(debugger().sessions().close_session("1-1.000000"), Err(Error::SessionNotFound("1-1.000000".into())));
}

#[test]
fn auto_close_on_breakpoint_resume() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.sessions().start_session(&p).unwrap();
    let b = d.sessions().start_session(&p).unwrap();
    let other = d.sessions().start_session(&pause(&d, "g", 1)).unwrap();
    d.pauses().resume(&p, ResumeRequest::continue_()).unwrap();
    assert!(d.sessions().session(&a).unwrap().unwrap().closed_at.is_some());
    assert!(d.sessions().session(&b).unwrap().unwrap().closed_at.is_some());
    assert!(d.sessions().session(&other).unwrap().unwrap().closed_at.is_none());
    assert_eq!(d.sessions().start_session(&p), Err(Error::PauseResumed(p.clone())));
}

#[test]
fn get_sessions_for_pause_returns_matching_sessions() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.sessions().start_session(&p).unwrap();
    let b = d.sessions().start_session(&p).unwrap();
    d.sessions().start_session(&pause(&d, "g", 1)).unwrap();
    assert_eq!(d.sessions().sessions_for_pause(&p).unwrap(), vec![a, b]);
}

#[test]
fn get_sessions_for_pause_returns_empty_for_no_sessions() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    assert!(d.sessions().sessions_for_pause(&p).unwrap().is_empty());
    assert!(d.sessions().sessions_for_pause("unknown").unwrap().is_empty());
}

#[test]
fn get_sessions_for_call_returns_matching_sessions() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.sessions().start_session(&p).unwrap();
    let call_id = d.sessions().session(&a).unwrap().unwrap().call_id.unwrap();
    d.sessions().start_session(&pause(&d, "g", 1)).unwrap();
    assert_eq!(d.sessions().sessions_for_call(&call_id).unwrap(), vec![a.clone()]);
    assert_eq!(d.pauses().call_record(&call_id).unwrap().unwrap().repl_sessions, vec![a]);
}

#[test]
fn thread_safety_concurrent_session_starts() {
    let d = debugger();
    let p = pause(&d, "f", 7);
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let d = d.clone();
            let p = p.clone();
            std::thread::spawn(move || (0..25).map(|_| d.sessions().start_session(&p).unwrap()).collect::<Vec<_>>())
        })
        .collect();
    let ids: HashSet<String> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    assert_eq!(ids.len(), 200);
    assert_eq!(d.sessions().sessions_for_pause(&p).unwrap().len(), 200);
}

#[test]
fn thread_safety_concurrent_transcript_appends() {
    let d = debugger();
    let id = d.sessions().start_session(&pause(&d, "f", 1)).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let d = d.clone();
            let id = id.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    d.sessions().append_transcript(&id, &format!("{t}:{i}"), "", "", false, None).unwrap();
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    let t = d.sessions().session(&id).unwrap().unwrap().transcript;
    assert_eq!(t.len(), 400);
    assert!(t.iter().enumerate().all(|(i, e)| e.index == i));
    let inputs: HashSet<&str> = t.iter().map(|e| e.input.as_str()).collect();
    assert_eq!(inputs.len(), 400);
}

#[test]
fn multiple_sessions_for_same_pause_id() {
    let d = debugger();
    let p = pause(&d, "f", 1);
    let a = d.sessions().start_session(&p).unwrap();
    let b = d.sessions().start_session(&p).unwrap();
    assert_ne!(a, b);
    d.sessions().append_transcript(&a, "only in a", "", "", false, None).unwrap();
    assert_eq!(d.sessions().session(&a).unwrap().unwrap().transcript.len(), 1);
    assert!(d.sessions().session(&b).unwrap().unwrap().transcript.is_empty());
    assert_eq!(d.pauses().paused_calls()[0].active_sessions, vec![a, b]);
}
