//! Edge cases of the session manager: unusual pids and start times in session ids.

use std::collections::HashSet;

use breakroom_debugger::calls::CallStart;
use breakroom_debugger::model::{SessionQuery, SessionStatus};
use breakroom_debugger::pauses::ResumeRequest;
use breakroom_debugger::{Debugger, Error};
use serde_json::json;

use super::{debugger, pause};

// ---- Edge cases: the session manager's ones ----------------------------------

fn pause_in(d: &Debugger, name: &str, pid: i64, start_time: f64) -> String {
    d.function_breakpoints().add_breakpoint(name, None, None).unwrap();
    let reply = d
        .calls()
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
fn session_id_with_large_pid() {
    let d = debugger();
    let p = pause(&d, "f", 4_194_304_123);
    let id = d.sessions().start_session(&p).unwrap();
    assert!(id.starts_with("4194304123-"), "{id}");
    assert_eq!(d.sessions().session(&id).unwrap().unwrap().pid, 4_194_304_123);
}

#[test]
fn session_id_with_high_precision_timestamp() {
    let d = debugger();
    let p = pause(&d, "f", 7);
    let id = d.sessions().start_session(&p).unwrap();
    let session = d.sessions().session(&id).unwrap().unwrap();
    // Six decimals, and the id's time is the session's start time to the microsecond.
    let ts = id.split_once('-').unwrap().1;
    assert_eq!(ts.split_once('.').unwrap().1.len(), 6);
    assert!((ts.parse::<f64>().unwrap() - session.started_at).abs() < 1e-6);
}

#[test]
fn start_session_race_condition_same_pid_timestamp() {
    let d = debugger();
    let p = pause(&d, "f", 8);
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16).map(|_| scope.spawn(|| d.sessions().start_session(&p).unwrap())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 16, "{ids:?}");
}

#[test]
fn start_session_collision_retries_with_1ms_bump() {
    let d = debugger();
    let p = pause(&d, "f", 9);
    let template = d.sessions().session(&d.sessions().start_session(&p).unwrap()).unwrap().unwrap();
    // Two sessions of one process starting in the same microsecond.
    let mut sessions = breakroom_debugger::sessions::Sessions::default();
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
fn multiple_clients_same_pid_different_start_time() {
    let d = debugger();
    let first = pause_in(&d, "f", 77, 1_795_331_833.75);
    let second = pause_in(&d, "f", 77, 1_795_331_999.25);
    let (a, b) = (d.sessions().start_session(&first).unwrap(), d.sessions().start_session(&second).unwrap());
    assert_ne!(
        d.sessions().session(&a).unwrap().unwrap().process_key,
        d.sessions().session(&b).unwrap().unwrap().process_key
    );
    assert_eq!(d.sessions().sessions_for_pause(&first).unwrap(), vec![a]);
    assert_eq!(d.sessions().sessions_for_pause(&second).unwrap(), vec![b]);
}

#[test]
fn start_repl_on_already_resumed_breakpoint_returns_409() {
    let d = debugger();
    let p = pause(&d, "f", 10);
    d.pauses().resume(&p, ResumeRequest::continue_()).unwrap();
    let err = d.sessions().start_session(&p).unwrap_err();
    assert!(matches!(err, Error::PauseResumed(_)), "{err:?}");
    assert_eq!(err.kind(), breakroom_debugger::ErrorKind::Conflict);
}

#[test]
fn transcript_with_hundreds_of_entries_performance() {
    let d = debugger();
    let p = pause(&d, "f", 11);
    let id = d.sessions().start_session(&p).unwrap();
    for i in 0..500 {
        d.sessions().append_transcript(&id, &format!("x{i}"), &format!("{i}"), "", false, None).unwrap();
    }
    let session = d.sessions().session(&id).unwrap().unwrap();
    assert_eq!(session.transcript.len(), 500);
    assert_eq!(session.transcript.iter().map(|e| e.index).collect::<Vec<_>>(), (0..500).collect::<Vec<_>>());
    let page = d.sessions().list_sessions(&SessionQuery { search: Some("x499".into()), ..Default::default() }).unwrap();
    assert_eq!(page.total, 1);
}

#[test]
fn repls_page_with_hundreds_of_sessions_performance() {
    let d = debugger();
    let p = pause(&d, "f", 12);
    for _ in 0..300 {
        d.sessions().start_session(&p).unwrap();
    }
    let page = d
        .sessions()
        .session_summaries(&SessionQuery { status: SessionStatus::Active, page: 6, ..Default::default() })
        .unwrap();
    assert_eq!((page.total, page.sessions.len(), page.per_page), (300, 50, 50));
    assert!(page.sessions.windows(2).all(|w| w[0].started_at > w[1].started_at));
}

#[test]
fn a_session_count_is_exact_up_to_a_thousand_then_a_lower_bound() {
    let d = debugger();
    let p = pause(&d, "count_me", 13);
    for _ in 0..1_000 {
        d.sessions().start_session(&p).unwrap();
    }
    let all = SessionQuery { status: SessionStatus::Active, ..Default::default() };
    let searched = SessionQuery { search: Some("count_me".into()), ..all.clone() };
    for query in [&all, &searched] {
        let page = d.sessions().session_summaries(query).unwrap();
        assert_eq!((page.total, page.total_is_lower_bound), (1_000, false));
    }
    d.sessions().start_session(&p).unwrap();
    for query in [&all, &searched] {
        let page = d.sessions().session_summaries(query).unwrap();
        assert_eq!((page.total, page.total_is_lower_bound, page.sessions.len()), (1_000, true, 50));
    }
    // The pages past the count still list what is there.
    let last = d.sessions().session_summaries(&SessionQuery { page: 21, ..searched.clone() }).unwrap();
    assert_eq!((last.total, last.total_is_lower_bound, last.sessions.len()), (1_000, true, 1));
    let past = d.sessions().session_summaries(&SessionQuery { page: 22, ..searched }).unwrap();
    assert_eq!((past.total, past.total_is_lower_bound, past.sessions.len()), (1_000, true, 0));
}
