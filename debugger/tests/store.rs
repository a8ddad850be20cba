//! Durable history: what a debugger opened on a data directory finds there again.

use std::time::Duration;

use breakroom_debugger::calls::{CallComplete, CallStart};
use breakroom_debugger::cid_store::cid_of;
use breakroom_debugger::for_tests;
use breakroom_debugger::model::{AfterBehavior, GlobalBehavior, SessionQuery};
use breakroom_debugger::pauses::ResumeRequest;
use breakroom_debugger::store::{EventSelection, Location, Store};
use breakroom_debugger::{Config, Debugger};
use serde_json::json;

fn config() -> Config {
    Config { eval_timeout: Duration::from_millis(500), poll_hold: Duration::from_millis(200), ..Config::default() }
}

/// A debugger on a location the test opens again: the data directory, or (with
/// BREAKROOM_TEST_STORE=postgres) a fresh PostgreSQL database.
fn open(at: &Location) -> Debugger {
    Debugger::open_location(config(), at).expect("open the store")
}

/// Pauses a call of `name` with one dill argument; returns (pause id, the argument's CID).
fn pause(d: &Debugger, name: &str) -> (String, String) {
    d.function_breakpoints().add_breakpoint(name, Some("(a)".into()), None).unwrap();
    let cid = cid_of(&[0x80, 0x04, 0x4B, 0x06, 0x2E]); // pickle of 6
    let reply = d
        .calls()
        .start_call(CallStart {
            method_name: Some(name.into()),
            process_pid: Some(json!(77)),
            process_start_time: Some(json!(1795331833.5)),
            args: vec![serde_json::from_value(json!({"cid": cid, "data": "gARLBi4="})).unwrap()],
            ..Default::default()
        })
        .unwrap();
    let v = serde_json::to_value(&reply).unwrap();
    (v["poll_url"].as_str().unwrap().rsplit('/').next().unwrap().to_string(), cid)
}

#[test]
fn history_survives_reopening_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let at = for_tests::location(dir.path());
    let (session_id, cid) = {
        let d = open(&at);
        let (pause_id, cid) = pause(&d, "compute");
        d.function_breakpoints().set_after_behavior("compute", AfterBehavior::Stop).unwrap();
        d.function_breakpoints().set_global_behavior(GlobalBehavior::StopException).unwrap();
        let session_id = d.sessions().start_session(&pause_id).unwrap();
        d.sessions().append_transcript(&session_id, "a * 7", "42", "", false, None).unwrap();
        d.sessions().append_transcript(&session_id, "print('x')", "", "x\n", false, None).unwrap();
        d.pauses().resume(&pause_id, ResumeRequest::continue_()).unwrap();
        (session_id, cid)
    };
    let d = open(&at);
    let session = d.sessions().session(&session_id).unwrap().unwrap();
    assert_eq!(session.transcript.iter().map(|e| e.input.as_str()).collect::<Vec<_>>(), ["a * 7", "print('x')"]);
    assert_eq!(session.transcript[1].stdout, "x\n");
    assert!(session.closed_at.is_some());
    assert_eq!(session.closed_reason, None, "closed by its resume, not by the restart");
    assert_eq!(d.function_breakpoints().stored_value(&cid).unwrap().display, "6");
    assert_eq!(d.function_breakpoints().breakpoints()["compute"].after_behavior.as_str(), "stop");
    assert_eq!(d.function_breakpoints().global_behavior().as_str(), "stop_exception");
    assert!(d.function_breakpoints().functions().contains_key("compute"));
    let found =
        d.sessions().list_sessions(&SessionQuery { search: Some("PRINT(".into()), ..Default::default() }).unwrap();
    assert_eq!(found.total, 1);
    assert_eq!(d.pauses().call_records("1795331833.500000+77").unwrap().len(), 1);
}

#[test]
fn open_pauses_and_sessions_come_back_closed_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let at = for_tests::location(dir.path());
    let (pause_id, session_id) = {
        let d = open(&at);
        let (pause_id, _) = pause(&d, "compute");
        let session_id = d.sessions().start_session(&pause_id).unwrap();
        d.sessions().append_transcript(&session_id, "1 + 1", "2", "", false, None).unwrap();
        (pause_id, session_id)
    };
    let d = open(&at);
    let session = d.sessions().session(&session_id).unwrap().unwrap();
    assert!(session.closed_at.is_some());
    assert_eq!(session.closed_reason.as_deref(), Some("server restarted"));
    assert_eq!(session.transcript.len(), 1);
    assert!(d.pauses().paused_calls().is_empty());
    assert!(d.pauses().call_stack(&pause_id).unwrap().is_some(), "the pause's stack stays readable");
    assert_eq!(d.eval_blocking_closed(&session_id), "session_closed");
    // The restart is part of the record.
    let events = d.events(&EventSelection { session_id: Some(session_id.clone()), ..Default::default() }).unwrap();
    let last = events.last().unwrap();
    assert_eq!((last.kind.as_str(), last.data["reason"].as_str()), ("session_close", Some("server restarted")));
    drop(d);
    // Opening again changes nothing more: the close is not recorded twice.
    let d = open(&at);
    let again = d.events(&EventSelection { session_id: Some(session_id), ..Default::default() }).unwrap();
    assert_eq!(again.len(), events.len());
}

trait EvalClosed {
    fn eval_blocking_closed(&self, session_id: &str) -> String;
}

impl EvalClosed for Debugger {
    fn eval_blocking_closed(&self, session_id: &str) -> String {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(self.sessions().eval(session_id, "1")).unwrap_err().code().to_string()
    }
}

#[test]
fn event_log_records_a_call_from_start_to_completion_in_order() {
    let d = Debugger::for_tests(config());
    let (pause_id, _) = pause(&d, "compute");
    let session_id = d.sessions().start_session(&pause_id).unwrap();
    d.sessions().append_transcript(&session_id, "a", "6", "", false, None).unwrap();
    d.sessions().close_session(&session_id).unwrap();
    d.pauses().resume(&pause_id, ResumeRequest::continue_()).unwrap();
    let call_id = d.pauses().call_records("1795331833.500000+77").unwrap()[0].call_id.clone();
    d.calls()
        .complete_call(CallComplete { call_id: Some(call_id), result_repr: Some("7".into()), ..Default::default() })
        .unwrap();
    let events = d.events(&EventSelection::default()).unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "process_seen",
            "call_start",
            "pause",
            "session_start",
            "eval_result",
            "session_close",
            "resume",
            "call_complete"
        ]
    );
    assert!(events.windows(2).all(|w| w[0].sequence < w[1].sequence && w[0].timestamp <= w[1].timestamp));
    assert_eq!(events[7].data["pretty_result"], "7");
    let from = d.events(&EventSelection { from_sequence: events[4].sequence, ..Default::default() }).unwrap();
    assert_eq!(from.len(), 4);
}

#[test]
fn schema_version_is_recorded_and_a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let at = for_tests::location(dir.path());
    let version = Store::at(&at).unwrap().schema_version().unwrap();
    assert!(version >= 1);
    Store::at(&at).unwrap().set_schema_version_for_tests(version + 1).unwrap();
    let err = Debugger::open_location(config(), &at).err().expect("a newer schema is refused");
    assert!(err.to_string().contains("newer than this Breakroom knows"), "{err}");
}

#[test]
fn one_data_directory_serves_one_debugger_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let first = Debugger::open(config(), dir.path()).unwrap();
    let err = Debugger::open(config(), dir.path()).err().expect("the directory is taken");
    assert!(err.to_string().contains("in use by another Breakroom server"), "{err}");
    // Readers still read while it is held.
    assert!(Store::open(dir.path()).unwrap().events(&EventSelection::default()).is_ok());
    drop(first);
    Debugger::open(config(), dir.path()).unwrap();
}

#[test]
fn a_data_directory_that_cannot_be_created_is_a_clear_error() {
    let file = tempfile::NamedTempFile::new().unwrap();
    let err = Debugger::open(config(), &file.path().join("sub")).err().expect("not a directory");
    assert_eq!(err.code(), "storage_unavailable");
    assert!(err.to_string().contains("cannot create data directory"), "{err}");
}

#[test]
fn breakpoint_history_keeps_the_newest_entries_in_memory_and_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let at = for_tests::location(dir.path());
    let keep = Config { history_per_breakpoint: 3, ..config() };
    {
        let d = Debugger::open_location(keep.clone(), &at).unwrap();
        for i in 0..5 {
            let (pause_id, _) = pause(&d, "compute");
            d.pauses().resume(&pause_id, ResumeRequest::continue_()).unwrap();
            let call_id = d.pauses().call_records("1795331833.500000+77").unwrap()[i].call_id.clone();
            let done = CallComplete { call_id: Some(call_id), result_repr: Some(format!("{i}")), ..Default::default() };
            d.calls().complete_call(done).unwrap();
        }
        let shown: Vec<_> = d
            .function_breakpoints()
            .breakpoint_history("compute", 10)
            .unwrap()
            .iter()
            .map(|h| h["call_data"]["call_id"].clone())
            .collect();
        let newest: Vec<_> = d
            .pauses()
            .call_records("1795331833.500000+77")
            .unwrap()
            .iter()
            .rev()
            .take(3)
            .map(|r| json!(r.call_id))
            .collect();
        assert_eq!(shown, newest, "newest first, three kept");
    }
    let reopened = Debugger::open_location(keep, &at).unwrap();
    assert_eq!(
        reopened.function_breakpoints().breakpoint_history("compute", 10).unwrap().len(),
        3,
        "older entries were deleted from disk too"
    );
}

/// Servers started together on a fresh PostgreSQL database (the README's set-up, and
/// docker-compose's) all start: every schema statement runs under the advisory lock. Twenty
/// rounds of five, each on a database of its own. (On SQLite a data directory serves one
/// debugger, which `one_data_directory_serves_one_debugger_at_a_time` checks.)
#[test]
fn five_servers_starting_together_on_a_fresh_database_all_start() {
    if !for_tests::postgres_chosen() {
        return;
    }
    let cluster = breakroom_debugger::store::test_postgres::shared().expect("the test cluster starts");
    for round in 0..20 {
        let url = cluster.fresh_database().expect("a fresh database");
        let together = std::sync::Arc::new(std::sync::Barrier::new(5));
        let servers: Vec<_> = (0..5)
            .map(|_| {
                let (url, together) = (url.clone(), together.clone());
                std::thread::spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
                    together.wait();
                    runtime
                        .block_on(async {
                            let debugger = Debugger::connect(config(), &url).map_err(|e| e.to_string())?;
                            debugger.join_cluster(&url).map(drop).map_err(|e| e.to_string())
                        })
                        .map_err(std::io::Error::other)
                })
            })
            .collect();
        for server in servers {
            if let Err(e) = server.join().expect("a starting server does not panic") {
                panic!("round {round}: a server failed to start: {e}");
            }
        }
        // A dropped debugger's connections outlive it in this process (a server's go with its
        // process): end them, so twenty rounds stay within the cluster's connection limit.
        let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("an admin connection");
        admin
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .expect("the round's connections end");
    }
}

/// A closed session as the server leaves one: its transcript, then the header with its text.
fn closed_session(store: &Store, i: usize, input: &str) {
    use breakroom_debugger::model::{ReplSession, TranscriptEntry};
    let started_at = 1_790_000_000.0 + i as f64;
    let session = ReplSession {
        session_id: format!("77-{started_at:.6}"),
        pause_id: format!("pause-{i}"),
        pid: 77,
        started_at,
        closed_at: Some(started_at + 0.5),
        closed_reason: None,
        function_name: "handle".into(),
        call_id: Some(format!("call-{i}")),
        process_key: "1795331833.500000+77".into(),
        args: vec![],
        kwargs: Default::default(),
        pretty_args: vec![],
        pretty_kwargs: Default::default(),
        signature: "(request)".into(),
        language: Default::default(),
        transcript: vec![TranscriptEntry {
            index: 0,
            input: input.into(),
            output: "None".into(),
            stdout: String::new(),
            is_error: false,
            result_cid: None,
            timestamp: started_at,
            outputs: vec![],
        }],
    };
    store.append_entry(&session.session_id, &session.transcript[0]).unwrap();
    store.put_closed_session(&session).unwrap();
}

#[test]
fn a_search_counts_closed_sessions_exactly_up_to_a_thousand_and_lists_the_newest_matches() {
    let dir = tempfile::tempdir().unwrap();
    let at = for_tests::location(dir.path());
    {
        let store = Store::at(&at).unwrap();
        store.begin().unwrap();
        // 1,300 sessions: every one has "order_total", every third "third_kind", one "only_once".
        for i in 0..1_300 {
            let third = if i % 3 == 0 { " + third_kind" } else { "" };
            let once = if i == 700 { " + only_once" } else { "" };
            closed_session(&store, i, &format!("order_total{third}{once}"));
        }
        store.commit().unwrap();
    }
    let d = open(&at);
    let search = |term: &str, page: usize| {
        let query = SessionQuery { search: Some(term.into()), page, per_page: 50, ..Default::default() };
        d.sessions().session_summaries(&query).unwrap()
    };
    let newest_first = |page: &breakroom_debugger::model::SessionPage<_>| {
        page.sessions.iter().map(|s: &breakroom_debugger::model::SessionSummary| s.started_at).collect::<Vec<_>>()
    };
    // Found in every session: the count stops at the cap, the page is still the newest ones.
    let every = search("order_total", 1);
    assert_eq!((every.total, every.total_is_lower_bound, every.sessions.len()), (1_000, true, 50));
    let expected: Vec<f64> = (0..50).map(|k| 1_790_000_000.0 + (1_299 - k) as f64).collect();
    assert_eq!(newest_first(&every), expected);
    let third_page = search("order_total", 3);
    assert_eq!(newest_first(&third_page)[0], 1_790_000_000.0 + 1_199.0);
    // Under the cap: exact, and only matching sessions, newest first.
    let thirds = search("third_kind", 2);
    assert_eq!((thirds.total, thirds.total_is_lower_bound, thirds.sessions.len()), (434, false, 50));
    let times = newest_first(&thirds);
    assert!(times.iter().all(|t| (*t as i64 - 1_790_000_000) % 3 == 0), "{times:?}");
    assert_eq!(times[0], 1_790_000_000.0 + (1_299 - 50 * 3) as f64);
    let once = search("only_once", 1);
    assert_eq!((once.total, once.total_is_lower_bound, newest_first(&once)), (1, false, vec![1_790_000_700.0]));
    let none = search("not_there", 1);
    assert_eq!((none.total, none.total_is_lower_bound, none.sessions.len()), (0, false, 0));
}

#[test]
fn a_closed_sessions_summary_read_alone_is_its_row_of_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let at = for_tests::location(dir.path());
    {
        let store = Store::at(&at).unwrap();
        for i in 0..3 {
            closed_session(&store, i, &format!("total_{i}"));
        }
    }
    let d = open(&at);
    let listed = d.sessions().session_summaries(&SessionQuery { per_page: 50, ..Default::default() }).unwrap();
    assert_eq!(listed.sessions.len(), 3);
    for row in &listed.sessions {
        let alone = d.sessions().session_summary(&row.session_id).unwrap();
        assert_eq!(alone.as_ref(), Some(row));
        assert_eq!(row.transcript_len, 1);
    }
    assert_eq!(d.sessions().session_summary("repl-not-there").unwrap(), None);
}

/// The server holds several connections to one SQLite database (the debugger's, the output
/// writer's, the audit trail's). A transaction that read before it writes, as counting a
/// program's hits does, waits its turn while another connection writes, instead of failing with
/// "database is locked" (a hot logpoint's hits were lost that way).
#[test]
fn a_transaction_that_read_first_still_writes_while_another_connection_writes() {
    if for_tests::postgres_chosen() {
        return; // PostgreSQL has no such lock: its own tests cover its transactions.
    }
    let dir = tempfile::tempdir().unwrap();
    let at = Location::Directory(dir.path().to_path_buf());
    let first = Store::at(&at).unwrap();
    first.execute_for_tests("CREATE TABLE counted (n INTEGER)", &[]).unwrap();
    let other = first
        .atomically(|store| {
            store.schema_version()?; // a read: the transaction holds a snapshot from here
            let at = at.clone();
            let other = std::thread::spawn(move || {
                let second = Store::at(&at)?;
                second.atomically(|s| s.execute_for_tests("INSERT INTO counted VALUES (2)", &[]))
            });
            // Time for the other connection to try its write meanwhile.
            std::thread::sleep(Duration::from_millis(200));
            store.execute_for_tests("INSERT INTO counted VALUES (1)", &[])?;
            Ok(other)
        })
        .expect("the transaction that read first writes");
    other.join().unwrap().expect("the other connection writes after it");
}
