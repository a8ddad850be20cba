//! Bad input on every endpoint gets a 4xx JSON body naming the problem: never a 5xx, never a panic.

use crate::common;

use serde_json::{json, Value};

const POSTS: &[&str] = &[
    "/api/breakpoints",
    "/api/breakpoints/f/behavior",
    "/api/breakpoints/f/after_behavior",
    "/api/breakpoints/f/replacement",
    "/api/behavior",
    "/api/functions",
    "/api/call/start",
    "/api/call/complete",
    "/api/call/event",
    "/api/call/repl-result",
    "/api/report-com-error",
    "/api/paused/p/continue",
    "/api/repl/start",
    "/api/repl/1-1.000000/eval",
    "/api/repl/1-1.000000/close",
    "/api/processes",
    "/api/processes/x1/stop",
    "/api/runtimes/w1/exec",
    "/api/runtimes/w1/reset",
    "/api/runtimes/bad%20name/exec",
];

const BODIES: &[&str] = &[
    "{",
    "[]",
    "null",
    "42",
    "\"text\"",
    "{\"function_name\": 5, \"behavior\": [], \"pause_id\": {}, \"expr\": 7}",
    "{\"method_name\": \"f\", \"args\": {}, \"kwargs\": [], \"process_pid\": \"x\", \"process_start_time\": null}",
    "{\"method_name\": \"f\", \"args\": [{\"cid\": 1}], \"process_pid\": 1, \"process_start_time\": 1}",
    "{\"method_name\": \"f\", \"args\": [7], \"process_pid\": 1e400, \"process_start_time\": 1}",
    "{\"call_id\": [], \"status\": 3, \"result_cid\": \"a\", \"result_data\": \"%%%\"}",
    "{\"eval_id\": 1, \"session_id\": 2, \"pause_id\": 3}",
    "{\"action\": \"explode\", \"modified_args\": \"no\"}",
    "\u{0}\u{1}binary",
    "{\"command\": 5, \"language\": [], \"timeout_ms\": -1, \"idle_timeout_s\": \"x\"}",
    "{\"command\": \"true\", \"language\": \"perl\"}",
    "{\"command\": \"true\", \"timeout_ms\": 0}",
    "{\"command\": \"a\\u0000b\"}",
    "{\"command\": \"true\", \"idle_timeout_s\": -3}",
];

#[tokio::test]
async fn malformed_bodies_never_get_a_5xx() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("f", 1).await;
    for path in POSTS.iter().map(|p| p.replace("/p/", &format!("/{pause_id}/"))) {
        for body in BODIES {
            let (status, reply) = server.post_raw(&path, body).await;
            assert!(status < 500, "{path} with {body:?} gave {status}: {reply}");
            if status >= 400 {
                assert!(reply["error"].is_string(), "{path} with {body:?}: {status} without an error code: {reply}");
            }
        }
    }
}

#[test]
fn odd_paths_and_queries_never_get_a_5xx() {
    // One path is a page: in turn with the other tests that render.
    common::in_turn(odd_paths_and_queries())
}

async fn odd_paths_and_queries() {
    let server = common::start().await;
    let huge = "z".repeat(20_000);
    for path in [
        "/api/repl/sessions?page=99999999999999999999".to_string(),
        "/api/repl/sessions?per_page=0&search=%00%ff".to_string(),
        "/api/repl/sessions?search=ab%00cd".to_string(),
        format!("/api/repl/sessions?search={huge}"),
        "/api/repl/%E2%98%83".to_string(),
        format!("/api/poll/{huge}"),
        "/api/poll-repl/..%2f..".to_string(),
        "/api/breakpoints/x/history?limit=-4".to_string(),
        "/repl/does-not-exist".to_string(),
        "/api/processes?all=maybe".to_string(),
        "/api/processes/x1/output?from=-1&stream=stdin&limit=abc".to_string(),
        format!("/api/processes/{huge}/output?from=99999999999999999999999"),
        "/no/such/page".to_string(),
    ] {
        let r = server.http.get(format!("{}{path}", server.base)).send().await.unwrap();
        assert!(r.status().as_u16() < 500, "{path}: {}", r.status());
    }
}

#[test]
fn unknown_pages_are_real_404s() {
    // It renders pages: in turn with the other tests that do.
    common::in_turn(unknown_pages_are_real_404s_in_turn())
}

async fn unknown_pages_are_real_404s_in_turn() {
    let server = common::start().await;
    for path in
        ["/no/such/page", "/repl/1-1.000000", "/snapshots/snap-999999", "/process/nope/timeline", "/process/nope/tasks"]
    {
        let r = server.http.get(format!("{}{path}", server.base)).send().await.unwrap();
        assert_eq!(r.status(), 404, "{path}");
        let html = r.text().await.unwrap();
        assert!(html.contains("Not found"), "{path}: {html}");
    }
    let _: Option<Value> = None;
}

#[tokio::test]
async fn malformed_query_strings_paths_and_methods_answer_json_errors() {
    let server = common::start().await;
    let (status, body) = server.get("/api/breakpoints/compute/history?limit=-1").await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| m.contains("limit")), "{body}");
    // Rejected by axum's own query extractor, in plain text until made JSON.
    let (status, body) = server.get("/api/poll/p?evals=1&evals=2").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_request")), "{body}");

    let (status, body) = server.get("/api/repl/%FF%FE").await;
    assert!(status == 400 || status == 404, "{status}");
    assert!(body["error"].is_string(), "{body}");

    let response = server.http.put(format!("{}/api/call/start", server.base)).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 405);
    assert!(response.headers().get("allow").is_some());
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"], "method_not_allowed");

    let (status, body) = server.get("/api/no-such-endpoint").await;
    assert_eq!((status, body["error"].as_str()), (404, Some("not_found")), "{body}");
}

/// A page's server function sent arguments it cannot read answers 400 naming the problem, not
/// server_fn's own 500; a function's answer to arguments it reads is untouched.
#[tokio::test]
async fn a_server_function_s_unreadable_arguments_are_a_400_naming_them() {
    let server = common::start().await;
    for (form, named) in [
        (&[("id", "p-1"), ("from", "abc")][..], "invalid digit"),
        (&[("id", "p-1"), ("from", "-1")][..], "invalid digit"),
        (&[("id", "p-1")][..], "from"),
    ] {
        let (status, body) = server.server_function("process_output_after", form).await;
        let body: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        assert_eq!((status, body["error"].as_str()), (400, Some("invalid_arguments")), "{form:?}: {body}");
        assert!(body["message"].as_str().is_some_and(|m| m.contains(named)), "{form:?}: {body}");
    }
    // Read, and an unknown process: the function's own answer (nothing to show).
    let (status, body) = server.server_function("process_output_after", &[("id", "p-1"), ("from", "0")]).await;
    assert_eq!((status, body.as_str()), (200, "-"));
}

/// What the API describes as numbers is refused when it is not one (the fuzzer found these
/// accepted): a limit past the 64-bit range, a program's blank or partial identity.
#[tokio::test]
async fn numbers_past_their_range_or_blank_are_refused_with_their_code() {
    let server = common::start().await;
    for (path, code) in [
        ("/api/breakpoints/compute/history?limit=99999999999999999999", "invalid_pagination"),
        ("/api/repl/sessions?page=99999999999999999999", "invalid_pagination"),
        ("/api/breakpoint-changes?process_pid=7&process_start_time=", "invalid_process_identity"),
        ("/api/breakpoint-changes?process_pid=7", "invalid_process_identity"),
        ("/api/breakpoint-changes?process_pid=x&process_start_time=1.5", "invalid_process_identity"),
        ("/api/breakpoint-changes?process_pid=7&process_start_time=1.5&main_thread=", "invalid_process_identity"),
    ] {
        let (status, body) = server.get(path).await;
        assert_eq!((status, body["error"].as_str()), (400, Some(code)), "{path}: {body}");
    }
    let (status, body) = server.get("/api/breakpoint-changes?process_pid=7&process_start_time=1.5").await;
    assert_eq!(status, 200, "{body}");
    // A limit outside its range was cut to it: the caller got fewer lines than it asked for.
    for limit in ["0", "10001", "99999999999"] {
        let path = format!("/api/processes/x1/output?limit={limit}");
        let (status, body) = server.get(&path).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("invalid_limit")), "{path}: {body}");
        assert!(body["message"].as_str().unwrap().contains("from 1 to 10000"), "{body}");
    }
    let (status, body) = server.get("/api/processes/x1/output?limit=10000").await;
    assert_eq!((status, body["error"].as_str()), (404, Some("process_not_found")), "{body}");
    // Past what the stores hold (a signed 64-bit line number): refused, not wrapped around.
    for from in ["9223372036854775808", "18446744073709551615", "-1"] {
        let path = format!("/api/processes/x1/output?from={from}");
        let (status, body) = server.get(&path).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("invalid_from")), "{path}: {body}");
    }
    let (status, body) = server.get("/api/processes/x1/output?from=9223372036854775807").await;
    assert_eq!((status, body["error"].as_str()), (404, Some("process_not_found")), "{body}");
}

/// A hit report's pid was cut to a whole number (1.5, 1e30, -5 kept), and a count report's bad
/// pid was dropped without a word (found by the fuzzer).
#[tokio::test]
async fn a_hit_report_with_a_pid_that_is_no_pid_is_refused_naming_it() {
    let server = common::start().await;
    let hit =
        |pid: Value| json!({"event": "log", "breakpoint_id": "bp-1", "process_pid": pid, "process_start_time": 1.5});
    let counts = |pid: Value| json!({"event": "hit_count", "counts": {"bp-1": 1}, "process_pid": pid, "process_start_time": 1.5});
    for pid in [json!(-5), json!(1.5), json!(1e30), json!("7"), json!(4_294_967_296u64), json!([7])] {
        for body in [hit(pid.clone()), counts(pid.clone())] {
            let (status, reply) = server.post("/api/breakpoint-hits", body.clone()).await;
            assert_eq!((status, reply["error"].as_str()), (400, Some("invalid_process_identity")), "{body}: {reply}");
            assert!(reply["message"].as_str().unwrap().contains("process_pid"), "{reply}");
        }
    }
    // A count names its program with both, or with neither.
    let half = json!({"event": "hit_count", "counts": {"bp-1": 1}, "process_pid": 7});
    let (status, reply) = server.post("/api/breakpoint-hits", half).await;
    assert_eq!((status, reply["error"].as_str()), (400, Some("missing_process_identity")), "{reply}");
    // A browser page's pid is 0; Windows' go up to 2^32 - 1; some writers send 7.0.
    for pid in [json!(0), json!(4_294_967_295u64), json!(7.0)] {
        for body in [hit(pid.clone()), counts(pid.clone())] {
            let (status, reply) = server.post("/api/breakpoint-hits", body.clone()).await;
            assert_eq!(status, 200, "{body}: {reply}");
        }
    }
    let bare = json!({"event": "hit_count", "counts": {"bp-1": 1}});
    assert_eq!(server.post("/api/breakpoint-hits", bare).await.0, 200);
}

#[tokio::test]
async fn a_function_registered_with_a_malformed_cid_is_refused() {
    let server = common::start().await;
    let (status, body) =
        server.post("/api/functions", serde_json::json!({"function_name": "f", "function_cid": ""})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_cid")), "{body}");
    let (status, _) =
        server.post("/api/functions", serde_json::json!({"function_name": "f", "function_cid": "a".repeat(128)})).await;
    assert_eq!(status, 200);
}

/// The typed requests keep each field's code: a body is read into its type at the door, before
/// the session manager looks for the pause, session or breakpoint it names.
#[tokio::test]
async fn typed_request_bodies_name_the_bad_field_with_its_code() {
    let server = common::start().await;
    let cases = [
        ("/api/paused/nope/step", json!({}), "missing_kind"),
        ("/api/paused/nope/step", json!({"kind": "sideways"}), "invalid_step_kind"),
        ("/api/paused/nope/step", json!({"kind": "to_line", "line": 3}), "missing_file"),
        ("/api/paused/nope/step", json!({"kind": "to_line", "file": "a.py", "line": 0}), "invalid_line"),
        ("/api/paused/nope/continue", json!({"action": 7}), "invalid_action"),
        ("/api/repl/1-2/eval", json!({"expr": "x", "frame": -1}), "invalid_frame"),
        ("/api/repl/1-2/frame", json!({"frame": "top"}), "invalid_frame"),
        ("/api/repl/1-2/variables/expand", json!({"path": [["attr", "x"]]}), "invalid_path"),
        ("/api/breakpoints/f/behavior", json!({"behavior": 3}), "invalid_behavior"),
        ("/api/behavior", json!({}), "invalid_behavior"),
        ("/api/breakpoint-hits", json!({"event": "seen"}), "invalid_event"),
        (
            "/api/breakpoint-hits",
            json!({"event": "log", "process_pid": 1, "process_start_time": 1}),
            "missing_breakpoint_id",
        ),
        ("/api/breakpoint-hits", json!({"event": "hit_count", "counts": {"bp-1": "x"}}), "invalid_counts"),
        (
            "/api/breakpoint-hits",
            json!({"event": "breakpoint_hit", "breakpoint_id": "bp-1", "process_pid": 1, "process_start_time": 1, "reason": 5}),
            "invalid_hit",
        ),
        (
            "/api/breakpoint-hits",
            json!({"event": "log", "breakpoint_id": "bp-1", "process_pid": 1, "process_start_time": 1, "hit_count": -1}),
            "invalid_hit",
        ),
        (
            "/api/breakpoint-hits",
            json!({"event": "log", "breakpoint_id": "bp-1", "process_pid": 1, "process_start_time": 1,
                   "hit_count": 9_223_372_036_854_775_808_u64}),
            "invalid_hit",
        ),
        ("/api/breakpoint-hits", json!({"event": "hit_count", "counts": {"bp-1": u64::MAX}}), "invalid_counts"),
        ("/api/snapshots", json!({}), "invalid_snapshot"),
        (
            "/api/snapshots",
            json!({"breakpoint_id": "bp-1", "process_pid": "x", "process_start_time": 1, "taken_at": 1, "frames": []}),
            "invalid_process_identity",
        ),
        ("/api/call/event", json!({"event": "x"}), "missing_process_identity"),
        ("/api/call/event", json!({"process_pid": 1, "process_start_time": 1, "result_cid": 5}), "invalid_payload"),
        ("/api/breakpoints", json!({"kind": "line", "file": "a.py", "line": 2, "max_hits": 0}), "invalid_max_hits"),
    ];
    for (path, body, code) in cases {
        let (status, reply) = server.post(path, body.clone()).await;
        assert_eq!((status, reply["error"].as_str()), (400, Some(code)), "{path} {body} -> {reply}");
        let message = reply["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty() && !message.starts_with('['), "the code is not left in the message: {reply}");
    }
    let patch = server.http.patch(format!("{}/api/breakpoints/bp-1", server.base)).json(&json!({"line": 3}));
    let response = patch.send().await.expect("an answer");
    let status = response.status().as_u16();
    let reply: Value = response.json().await.expect("a JSON error");
    assert_eq!((status, reply["error"].as_str()), (400, Some("immutable_field")), "{reply}");
}
