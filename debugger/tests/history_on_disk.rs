//! History lives on disk: a data directory from the previous schema upgrades with its history
//! intact, and what clients report on the side is kept across restarts, bounded.

use std::path::Path;
use std::time::Duration;

use breakroom_debugger::cid_store::cid_of;
use breakroom_debugger::model::SessionQuery;
use breakroom_debugger::store::sql::SqlValue;
use breakroom_debugger::store::Store;
use breakroom_debugger::{Config, Debugger, PollReply};
use serde_json::{json, Value};

/// Row values as an older Breakroom wrote them.
macro_rules! v {
    ($($x:expr),* $(,)?) => { &[$(SqlValue::from($x.clone())),*] };
}

fn config() -> Config {
    Config { eval_timeout: Duration::from_millis(500), poll_hold: Duration::from_millis(200), ..Config::default() }
}

const PROCESS: &str = "1795331833.500000+77";

fn call_data(call_id: &str, function: &str) -> Value {
    json!({
        "method_name": function, "call_id": call_id, "target": null, "pretty_target": null,
        "args": [], "kwargs": {}, "pretty_args": ["6"], "pretty_kwargs": {}, "signature": "(a)",
        "call_site": {}, "page_url": null, "preferred_format": "dill", "process_pid": 77,
        "process_start_time": 1795331833.5, "process_key": PROCESS, "call_type": null,
        "pause_reason": "breakpoint",
    })
}

fn call_record(call_id: &str, function: &str, started_at: f64, pause_id: &str, session_id: &str) -> Value {
    json!({
        "call_id": call_id, "method_name": function, "process_key": PROCESS, "started_at": started_at,
        "completed_at": null, "status": "running", "pretty_args": ["6"], "pretty_kwargs": {},
        "pretty_result": null, "exception": null, "call_site": {}, "pause_ids": [pause_id],
        "repl_sessions": [session_id],
    })
}

fn session_header(
    session_id: &str,
    pause_id: &str,
    call_id: &str,
    function: &str,
    started_at: f64,
    closed_at: Option<f64>,
) -> Value {
    json!({
        "session_id": session_id, "pause_id": pause_id, "pid": 77, "started_at": started_at,
        "closed_at": closed_at, "function_name": function, "call_id": call_id, "process_key": PROCESS,
        "args": [], "kwargs": {}, "pretty_args": ["6"], "pretty_kwargs": {}, "signature": "(a)",
    })
}

fn entry(index: usize, input: &str, output: &str, stdout: &str, timestamp: f64) -> Value {
    json!({"index": index, "input": input, "output": output, "stdout": stdout, "is_error": false,
           "result_cid": null, "timestamp": timestamp})
}

/// Writes, row by row as Breakroom with schema 2 did: one call resumed with a closed session,
/// one call still paused with an open session (the server was killed), a stored value.
fn write_version_2(dir: &Path) -> String {
    let store = Store::open_at_version_for_tests(dir, 2).unwrap();
    assert_eq!(store.schema_version().unwrap(), 2);
    let sql = |query: &str, values: &[SqlValue]| store.execute_for_tests(query, values).unwrap();
    let (t1, t2) = (1795331840.0, 1795331900.0);
    for (call_id, function, t, pause_id, session_id) in [
        ("c1", "compute_total", t1, "p1", "77-1795331841.000000"),
        ("c2", "apply_discount", t2, "p2", "77-1795331901.000000"),
    ] {
        let record = call_record(call_id, function, t, pause_id, session_id).to_string();
        sql(
            "INSERT INTO calls (call_id, process_key, started_at, data) VALUES (?1, ?2, ?3, ?4)",
            v![call_id, PROCESS, t, record],
        );
    }
    let resumed = json!({"pause_id": "p1", "call": call_data("c1", "compute_total"), "reason": "breakpoint",
                         "paused_at": t1, "resume": {"action": "continue"}, "resumed_at": t1 + 30.0});
    let open = json!({"pause_id": "p2", "call": call_data("c2", "apply_discount"), "reason": "breakpoint",
                      "paused_at": t2, "resume": null, "resumed_at": null});
    for (pause_id, t, data) in [("p1", t1, resumed), ("p2", t2, open)] {
        sql("INSERT INTO pauses (pause_id, paused_at, data) VALUES (?1, ?2, ?3)", v![pause_id, t, data.to_string()]);
    }
    let closed = session_header("77-1795331841.000000", "p1", "c1", "compute_total", t1 + 1.0, Some(t1 + 30.0));
    let left_open = session_header("77-1795331901.000000", "p2", "c2", "apply_discount", t2 + 1.0, None);
    for (id, t, data) in [("77-1795331841.000000", t1 + 1.0, closed), ("77-1795331901.000000", t2 + 1.0, left_open)] {
        sql("INSERT INTO sessions (session_id, started_at, data) VALUES (?1, ?2, ?3)", v![id, t, data.to_string()]);
    }
    let entries = [
        ("77-1795331841.000000", 0, entry(0, "Order.Total * 2", "84", "", t1 + 2.0)),
        ("77-1795331841.000000", 1, entry(1, "print('Checked')", "", "Checked\n", t1 + 3.0)),
        ("77-1795331901.000000", 0, entry(0, "rate", "0.25", "", t2 + 2.0)),
    ];
    for (id, idx, data) in entries {
        sql("INSERT INTO transcript (session_id, idx, data) VALUES (?1, ?2, ?3)", v![id, idx, data.to_string()]);
    }
    let bytes = vec![0x80, 0x04, 0x4B, 0x06, 0x2E]; // pickle of 6
    let cid = cid_of(&bytes);
    sql("INSERT INTO objects (cid, format, bytes, created_at) VALUES (?1, 'dill', ?2, ?3)", v![cid, bytes, t1]);
    sql(
        "INSERT INTO events (timestamp, type, process_key, session_id, data) VALUES (?1, 'process_seen', ?2, NULL, '{}')",
        v![t1, PROCESS],
    );
    cid
}

#[test]
fn a_version_2_data_directory_upgrades_and_keeps_its_history() {
    let dir = tempfile::tempdir().unwrap();
    let cid = write_version_2(dir.path());
    let d = Debugger::open(config(), dir.path()).unwrap();
    assert_eq!(Store::open(dir.path()).unwrap().schema_version().unwrap(), 13);

    let closed = d.sessions().session("77-1795331841.000000").unwrap().expect("the closed session is kept");
    let inputs: Vec<&str> = closed.transcript.iter().map(|e| e.input.as_str()).collect();
    assert_eq!(inputs, ["Order.Total * 2", "print('Checked')"]);
    assert_eq!(closed.closed_reason, None);
    let left_open = d.sessions().session("77-1795331901.000000").unwrap().unwrap();
    assert_eq!(left_open.closed_reason.as_deref(), Some("server restarted"));
    assert_eq!(left_open.transcript.len(), 1);

    // Both are found by search: the old one through the index migration 3 built, the one the
    // restart closed through the index it was added to when it closed.
    let found = |term: &str| -> Vec<String> {
        let page =
            d.sessions().list_sessions(&SessionQuery { search: Some(term.into()), ..Default::default() }).unwrap();
        page.sessions.into_iter().map(|s| s.session_id).collect()
    };
    assert_eq!(found("order.total"), ["77-1795331841.000000"]);
    assert_eq!(found("CHECKED"), ["77-1795331841.000000"]);
    assert_eq!(found("84"), ["77-1795331841.000000"], "a short term, through the grams migration 5 indexed");
    assert_eq!(found("*"), ["77-1795331841.000000"]);
    assert!(found("4*").is_empty(), "a short term matches inside one field only");
    assert_eq!(found("discount"), ["77-1795331901.000000"], "by function name");
    assert_eq!(found("0.25"), ["77-1795331901.000000"]);
    assert_eq!(found("0.2").len(), 1);
    assert!(found("nowhere").is_empty());
    assert_eq!(d.sessions().list_sessions(&SessionQuery::default()).unwrap().total, 2);

    assert!(d.pauses().paused_calls().is_empty(), "the open pause came back resumed");
    let stack = d.pauses().call_stack("p2").unwrap().unwrap();
    assert!(!stack.still_paused);
    assert_eq!(stack.sessions.len(), 1);
    assert_eq!(d.pauses().call_records(PROCESS).unwrap().len(), 2);
    let process = &d.pauses().process_summaries().unwrap()[0];
    assert_eq!((process.calls, process.repl_sessions, process.paused), (2, 2, 0));
    assert_eq!(d.pauses().process_summary(PROCESS).unwrap().as_ref(), Some(process), "one row read alone");
    assert_eq!(d.pauses().process_summary("1.0+1").unwrap(), None);
    assert_eq!(d.pauses().call_tree(PROCESS).unwrap().unwrap().len(), 2);
    assert_eq!(d.function_breakpoints().stored_value(&cid).unwrap().display, "6");

    // A cideldill client still polling the pause it was left at is told to continue; Breakroom's
    // client (it takes evals with its poll) is told the server does not hold it, and tells the
    // pause again (issue 32). Unknown pauses: the same, at once.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let reply = rt.block_on(d.pauses().poll("p2", false));
    assert_eq!(serde_json::to_value(&reply).unwrap(), json!({"status": "ready", "action": {"action": "continue"}}));
    assert_eq!(serde_json::to_value(rt.block_on(d.pauses().poll("p2", true))).unwrap(), json!({"status": "unknown"}));
    assert!(matches!(rt.block_on(d.pauses().poll("never-seen", false)), PollReply::Waiting { .. }));
    assert_eq!(rt.block_on(d.pauses().poll("never-seen", true)), PollReply::Unknown);
    // A server stopping answers held polls `stopping` (Breakroom's client waits for the next).
    d.stop_serving();
    assert!(d.is_stopping());
    assert_eq!(rt.block_on(d.pauses().poll("never-seen", true)), PollReply::Stopping);
}

#[test]
fn communication_errors_and_client_events_are_kept_across_restarts_newest_first_bounded() {
    let dir = tempfile::tempdir().unwrap();
    {
        let d = Debugger::open(config(), dir.path()).unwrap();
        for i in 0..505 {
            d.calls()
                .report_com_error(serde_json::from_value(json!({"error": format!("refused {i}")})).unwrap())
                .unwrap();
        }
        d.calls()
            .record_event(
                serde_json::from_value(
                    json!({"event": "started", "n": 1, "process_pid": 7, "process_start_time": 1.0}),
                )
                .unwrap(),
            )
            .unwrap();
        d.calls()
            .record_event(
                serde_json::from_value(
                    json!({"event": "finished", "n": 2, "process_pid": 7, "process_start_time": 1.0}),
                )
                .unwrap(),
            )
            .unwrap();
    }
    let d = Debugger::open(config(), dir.path()).unwrap();
    let errors = d.calls().com_errors().unwrap();
    assert_eq!(errors.len(), 500, "only the newest 500 are kept");
    assert_eq!(errors[0]["error"], "refused 5");
    assert_eq!(errors[499]["error"], "refused 504");
    assert!(errors[0]["received_at"].as_f64().is_some());
    drop(d);
    let events = Store::open(dir.path()).unwrap().client_events().unwrap();
    assert_eq!(events.iter().map(|e| e["n"].clone()).collect::<Vec<_>>(), [json!(1), json!(2)]);
}
