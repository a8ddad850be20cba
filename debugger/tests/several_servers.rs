//! Several servers on one PostgreSQL database (issue 47): they count together (breakpoint ids are
//! handed out by the database, hits are added in place, so two servers never hand out one id
//! twice nor lose each other's hits), and asking each other at once does not stall them. Runs
//! with BREAKROOM_TEST_STORE=postgres (as scripts/test.sh does); on SQLite a data directory
//! serves one server, which has nothing to share.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use breakroom_debugger::breakpoints::record::{BreakpointOptions, BreakpointSpec};
use breakroom_debugger::calls::CallStart;
use breakroom_debugger::{for_tests, Config, Debugger};
use serde_json::json;

/// Two servers joined on one fresh database, each with a runtime of its own for its listener.
fn two_servers() -> Option<Vec<(tokio::runtime::Runtime, Debugger)>> {
    two_servers_on(|| tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap())
}

fn two_servers_on(runtime: impl Fn() -> tokio::runtime::Runtime) -> Option<Vec<(tokio::runtime::Runtime, Debugger)>> {
    if !for_tests::postgres_chosen() {
        return None;
    }
    let cluster = breakroom_debugger::store::test_postgres::shared().expect("the test cluster starts");
    let url = cluster.fresh_database().expect("a fresh database");
    let servers = (0..2)
        .map(|_| {
            let runtime = runtime();
            let debugger = Debugger::connect(Config::default(), &url).expect("a server starts");
            runtime.block_on(async { debugger.join_cluster(&url).expect("it joins the others") });
            (runtime, debugger)
        })
        .collect();
    Some(servers)
}

fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn forty_breakpoints_added_at_once_on_two_servers_get_forty_ids_listed_on_both() {
    let Some(servers) = two_servers() else { return };
    let ids: Vec<String> = std::thread::scope(|scope| {
        let adds: Vec<_> = (0..40)
            .map(|i| {
                let debugger = servers[i % 2].1.clone();
                scope.spawn(move || {
                    let spec = BreakpointSpec::line(format!("/srv/app_{i}.py"), 10);
                    debugger.breakpoints().add_breakpoint_record(&spec).expect("the add succeeds").id
                })
            })
            .collect();
        adds.into_iter().map(|add| add.join().expect("no panic")).collect()
    });
    let distinct: HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), 40, "ids handed out twice: {ids:?}");
    for (_, debugger) in &servers {
        wait_until("both servers to list all forty", || debugger.breakpoints().breakpoint_records().len() == 40);
        let listed: HashSet<String> = debugger.breakpoints().breakpoint_records().into_iter().map(|r| r.id).collect();
        assert_eq!(listed, ids.iter().cloned().collect::<HashSet<_>>());
    }
}

#[test]
fn hits_counted_on_two_servers_add_up_on_both() {
    let Some(servers) = two_servers() else { return };
    // Counted, never pausing: the hit condition is never met.
    let options = BreakpointOptions { hit_condition: Some(Some("== 100000".into())), ..Default::default() };
    let bp =
        servers[0].1.breakpoints().add_breakpoint_record(&BreakpointSpec::function("counted").with(options)).unwrap();
    wait_until("the other server to know the breakpoint", || {
        servers[1].1.breakpoints().breakpoint_records().iter().any(|r| r.id == bp.id)
    });
    std::thread::scope(|scope| {
        for (n, (_, debugger)) in servers.iter().enumerate() {
            scope.spawn(move || {
                for call in 0..300 {
                    let reply = debugger.calls().start_call(CallStart {
                        method_name: Some("counted".into()),
                        process_pid: Some(json!(4000 + n)),
                        process_start_time: Some(json!(1795331833.5)),
                        ..Default::default()
                    });
                    let action = serde_json::to_value(reply.expect("the call starts")).unwrap();
                    assert_eq!(action["action"], "continue", "call {call} did not run on: {action}");
                }
            });
        }
    });
    for (_, debugger) in &servers {
        let hits = debugger.breakpoints().breakpoint_records().into_iter().find(|r| r.id == bp.id).unwrap().hit_count;
        assert_eq!(hits, 600);
    }
}

#[test]
fn hits_programs_count_on_two_servers_add_up_on_both() {
    use breakroom_debugger::breakpoints::hit_reports::HitReport;
    let Some(servers) = two_servers() else { return };
    let bp = servers[0].1.breakpoints().add_breakpoint_record(&BreakpointSpec::line("/srv/app.py", 3)).unwrap();
    wait_until("the other server to know the breakpoint", || {
        servers[1].1.breakpoints().breakpoint_records().iter().any(|r| r.id == bp.id)
    });
    // Each program counts its own arrivals at a line and reports its count to its server.
    for (n, (_, debugger)) in servers.iter().enumerate() {
        for count in [100, 300] {
            let report = json!({"event": "hit_count", "counts": {bp.id.clone(): count},
                                "process_pid": 5000 + n, "process_start_time": 1795331833.5});
            let report: HitReport = serde_json::from_value(report).expect("a hit count report");
            debugger.breakpoints().report_breakpoint_hit(report).expect("the counts are taken");
        }
    }
    for (_, debugger) in &servers {
        wait_until("both programs' counts on both servers", || {
            debugger.breakpoints().breakpoint_records().into_iter().find(|r| r.id == bp.id).unwrap().hit_count == 600
        });
    }
}

/// A call of `name` paused on `debugger` (a by-name breakpoint): its pause id.
fn paused(debugger: &Debugger, name: &str, pid: i64) -> String {
    debugger.function_breakpoints().add_breakpoint(name, None, None).expect("the breakpoint is added");
    let reply = debugger
        .calls()
        .start_call(CallStart {
            method_name: Some(name.into()),
            process_pid: Some(json!(pid)),
            process_start_time: Some(json!(1795331833.5)),
            ..Default::default()
        })
        .expect("the call starts");
    let reply = serde_json::to_value(reply).unwrap();
    let poll_url = reply["poll_url"].as_str().unwrap_or_else(|| panic!("{name} did not pause: {reply}"));
    poll_url.rsplit('/').next().unwrap().to_string()
}

#[test]
fn two_servers_asking_each_other_at_once_with_every_worker_busy_both_get_answers() {
    let Some(servers) = two_servers() else { return };
    let (a, b) = (&servers[0], &servers[1]);
    let on_a = paused(&a.1, "held_by_a", 5001);
    let on_b = paused(&b.1, "held_by_b", 5002);
    // Each runtime has one worker, and each asks from it: the other's request must still run.
    for _ in 0..3 {
        let (from_a, to_b) = (a.1.clone(), on_b.clone());
        let asked_by_a = a.0.spawn(async move { from_a.sessions().start_session(&to_b) });
        let (from_b, to_a) = (b.1.clone(), on_a.clone());
        let asked_by_b = b.0.spawn(async move { from_b.sessions().start_session(&to_a) });
        let session_on_b = a.0.block_on(asked_by_a).expect("no panic");
        let session_on_a = b.0.block_on(asked_by_b).expect("no panic");
        assert!(session_on_b.is_ok(), "A asking B: {session_on_b:?}");
        assert!(session_on_a.is_ok(), "B asking A: {session_on_a:?}");
    }
}

#[test]
fn a_sign_in_through_an_identity_provider_on_one_server_is_known_on_the_other_until_it_ends_there() {
    use breakroom_debugger::users::{Holder, Role};
    let Some(servers) = two_servers() else { return };
    let (one, two) = (&servers[0].1, &servers[1].1);
    let (session, who) =
        one.users().sign_in_person("ada.lovelace", Role::Admin, "https://idp", Some("id.token")).unwrap();
    assert_eq!(two.users().verify_session(&session).unwrap(), Some(who));
    // A token sign-in next to it still takes the role from `users` (a NULL role in `sign_ins`).
    let token = one.users().add("dan", Holder::Person(Role::Debugger)).unwrap();
    let (token_session, _) = one.users().sign_in(&token).unwrap().unwrap();
    assert_eq!(two.users().verify_session(&token_session).unwrap().unwrap().holder, Holder::Person(Role::Debugger));
    let ended = two.users().sign_out(&session).unwrap().unwrap();
    assert_eq!((ended.via.as_str(), ended.end_hint.as_deref()), ("https://idp", Some("id.token")));
    assert_eq!(two.users().sign_out(&token_session).unwrap(), None);
    wait_until("the other server forgets the sign-in", || one.users().verify_session(&session).unwrap().is_none());
}

/// As the doors ask (`off_workers`): the wait for the other server is off the runtime's threads.
/// Each server here has one thread in all, which must run the other's request meanwhile; a wait
/// on it would hold both until the requests time out, and the sessions would not start.
#[test]
fn two_servers_of_one_thread_each_asking_each_other_at_once_both_get_answers() {
    let one_thread = || tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let Some(servers) = two_servers_on(one_thread) else { return };
    let (a, b) = (&servers[0], &servers[1]);
    let on_a = paused(&a.1, "held_by_a", 5011);
    let on_b = paused(&b.1, "held_by_b", 5012);
    for _ in 0..3 {
        let answered = std::sync::atomic::AtomicUsize::new(0);
        let (started_on_b, started_on_a) = std::thread::scope(|scope| {
            let (to_b, to_a, answered) = (on_b.clone(), on_a.clone(), &answered);
            let by_a = scope.spawn(move || ask_off_workers(a, to_b, answered));
            let by_b = scope.spawn(move || ask_off_workers(b, to_a, answered));
            (by_a.join().expect("no panic"), by_b.join().expect("no panic"))
        });
        assert!(started_on_b.is_ok(), "A asking B: {started_on_b:?}");
        assert!(started_on_a.is_ok(), "B asking A: {started_on_a:?}");
    }
}

/// Starts a session on `pause` (held by the other server) from this server's runtime, as a door.
fn ask_off_workers(
    (runtime, debugger): &(tokio::runtime::Runtime, Debugger),
    pause: String,
    answered: &std::sync::atomic::AtomicUsize,
) -> breakroom_debugger::error::Result<String> {
    use std::sync::atomic::Ordering::SeqCst;
    let debugger = debugger.clone();
    runtime.block_on(async move {
        let asked = debugger.off_workers(move |d| d.sessions().start_session(&pause)).await;
        // A runtime of one thread runs the other server's request only while that thread is in
        // here: a server keeps running until both have their answer, as a serving one would.
        answered.fetch_add(1, SeqCst);
        while answered.load(SeqCst) < 2 {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        asked
    })
}

#[test]
fn snapshot_and_logpoint_tallies_counted_on_two_servers_add_up_on_both() {
    use breakroom_debugger::breakpoints::hit_reports::HitReport;
    use breakroom_debugger::breakpoints::policy::{BreakpointAction, PolicyChanges};
    use breakroom_debugger::snapshots::methods::SnapshotTaken;
    let Some(servers) = two_servers() else { return };
    let kept = |action| BreakpointOptions {
        log_message: (action == BreakpointAction::Log).then(|| Some("at {i}".to_string())),
        policy: PolicyChanges { action: Some(Some(action)), max_hits: Some(Some(1000)), ..Default::default() },
        ..Default::default()
    };
    let add = |file: &str, action| {
        servers[0].1.breakpoints().add_breakpoint_record(&BreakpointSpec::line(file, 3).with(kept(action))).unwrap()
    };
    let (snap, log) = (add("/srv/snap.py", BreakpointAction::Snapshot), add("/srv/log.py", BreakpointAction::Log));
    wait_until("the other server to know both breakpoints", || {
        servers[1].1.breakpoints().breakpoint_records().iter().filter(|r| r.id == snap.id || r.id == log.id).count()
            == 2
    });
    // Both servers at once, as two programs' reports would reach them: 100 snapshots, 100 log
    // lines and 100 reports of skipped and dropped hits each.
    std::thread::scope(|scope| {
        for (n, (_, debugger)) in servers.iter().enumerate() {
            let (snap, log) = (&snap.id, &log.id);
            scope.spawn(move || {
                let me = json!({"process_pid": 6000 + n, "process_start_time": 1795331833.5});
                for _ in 0..100 {
                    let taken = json!({"breakpoint_id": snap, "taken_at": 1795331900.0, "frames": []});
                    let taken: SnapshotTaken = serde_json::from_value(merged(&taken, &me)).unwrap();
                    debugger.snapshots().take(taken).expect("the snapshot is kept");
                    let line = json!({"event": "log", "breakpoint_id": log, "message": "at 1"});
                    let line: HitReport = serde_json::from_value(merged(&line, &me)).unwrap();
                    debugger.breakpoints().report_breakpoint_hit(line).expect("the line is kept");
                    let skipped = json!({"event": "hit_count", "counts": {},
                        "skipped_rate": {snap: 2, log: 1}, "skipped_quota": {snap: 1}, "dropped": {snap: 3}});
                    let skipped: HitReport = serde_json::from_value(merged(&skipped, &me)).unwrap();
                    debugger.breakpoints().report_breakpoint_hit(skipped).expect("the counts are taken");
                }
            });
        }
    });
    for (_, debugger) in &servers {
        let records = debugger.breakpoints().breakpoint_records();
        let tally = |id: &str| records.iter().find(|r| r.id == id).unwrap().tally;
        let (s, l) = (tally(&snap.id), tally(&log.id));
        assert_eq!((s.captured, s.skipped_rate, s.skipped_quota, s.dropped), (200, 400, 200, 600), "{s:?}");
        assert_eq!((l.captured, l.skipped_rate, l.skipped_quota, l.dropped), (200, 200, 0, 0), "{l:?}");
    }
}

/// `a` with `b`'s fields added.
fn merged(a: &serde_json::Value, b: &serde_json::Value) -> serde_json::Value {
    let mut out = a.clone();
    for (k, v) in b.as_object().unwrap() {
        out[k] = v.clone();
    }
    out
}
