//! Breakpoints of every kind in real running programs: lines armed while they run or before
//! they start, conditions, hit conditions, logpoints, disabled ones, function and error
//! breakpoints, and an unchanged cideldill client's path.

use crate::common;
use serde_json::{json, Value};
use std::time::Duration;

use super::{add, eval, events, items, line_of, looping_program, resume, send, wait_events, wait_paused, Program};

#[tokio::test]
async fn line_breakpoint_added_while_the_program_runs_pauses_it_there() {
    let server = common::start().await;
    let source = looping_program(400, "0.05");
    let (mut program, script) = Program::run(&server, &source);
    // Read off the runtime's thread: the server in this process must answer the program meanwhile.
    let stdout = program.child.stdout.take().unwrap();
    let (ready, stdout) = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        (line, reader.into_inner())
    })
    .await
    .unwrap();
    assert_eq!(ready.trim(), "ready");
    program.child.stdout = Some(stdout);
    let line = line_of(&source, "# the line");
    let bp = add(&server, json!({"kind": "line", "file": script.to_str().unwrap(), "line": line})).await;
    let pause = wait_paused(&server, &mut program).await;
    assert_eq!(pause["call_data"]["method_name"], "step", "{pause}");
    let pause_id = pause["id"].as_str().unwrap();
    let i: i64 = eval(&server, pause_id, "i").await.parse().unwrap();
    assert!(i > 0, "the loop was running before the breakpoint was set: i={i}");
    let hits = wait_events(&server, "breakpoint_hit", 1).await;
    assert_eq!(hits[0]["data"]["breakpoint_id"], bp["id"]);
    assert_eq!((&hits[0]["data"]["kind"], &hits[0]["data"]["hit_count"]), (&json!("line"), &json!(1)), "{hits:?}");
    let listed = items(&server).await;
    assert_eq!(listed[0]["hit_count"], 1, "{listed:?}");
    // Removed: the program runs on to its end.
    send(&server, reqwest::Method::DELETE, "/api/breakpoints", None).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    resume(&server, pause_id).await;
    let (code, out, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done"), "{out}");
}

#[tokio::test]
async fn line_breakpoint_set_before_start_with_condition_and_hit_condition() {
    let server = common::start().await;
    let source = looping_program(10, "0");
    let dir_marker = "app.py";
    let line = line_of(&source, "# the line");
    // The condition holds for i = 2, 4, 6, 8 (i = 0 fails: 0 is falsy); the 3rd of those pauses.
    add(&server, json!({"kind": "line", "file": dir_marker, "line": line, "condition": "i % 2 == 0 and i", "hit_condition": "3"})).await;
    let (mut program, _) = Program::run(&server, &source);
    let pause = wait_paused(&server, &mut program).await;
    let pause_id = pause["id"].as_str().unwrap();
    assert_eq!(eval(&server, pause_id, "i").await, "6");
    resume(&server, pause_id).await;
    let (code, _, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    // The 4th (i = 8) was skipped by the hit condition: the program sends that count at exit.
    assert_eq!(items(&server).await[0]["hit_count"], 4, "i = 2, 4, 6, 8 passed the condition");
    assert_eq!(events(&server, "breakpoint_hit").await.len(), 1);
}

#[tokio::test]
async fn a_condition_that_raises_pauses_and_shows_the_error() {
    let server = common::start().await;
    let source = looping_program(3, "0");
    let line = line_of(&source, "# the line");
    add(&server, json!({"kind": "line", "file": "app.py", "line": line, "condition": "undefined_name > 1"})).await;
    let (mut program, _) = Program::run(&server, &source);
    let pause = wait_paused(&server, &mut program).await;
    let pause_id = pause["id"].as_str().unwrap();
    assert!(eval(&server, pause_id, "condition_error").await.contains("NameError"));
    let hits = wait_events(&server, "breakpoint_hit", 1).await;
    assert_eq!(hits[0]["data"]["action"], "condition_error", "{hits:?}");
    assert!(hits[0]["data"]["error"].as_str().is_some_and(|e| e.contains("NameError")), "{hits:?}");
    let listed = items(&server).await;
    assert!(listed[0]["last_hit"]["error"].as_str().is_some_and(|e| e.contains("undefined_name")), "{listed:?}");
    send(&server, reqwest::Method::DELETE, "/api/breakpoints", None).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    resume(&server, pause_id).await;
    let (code, _, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
}

#[tokio::test]
async fn logpoint_records_its_messages_without_pausing() {
    let server = common::start().await;
    let source = looping_program(3, "0");
    let line = line_of(&source, "# the line");
    let bp = add(&server, json!({"kind": "line", "file": "app.py", "line": line, "log_message": "i={i} half={i / 2}"}))
        .await;
    let (program, _) = Program::run(&server, &source);
    let (code, out, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done"));
    let logs = wait_events(&server, "log", 3).await;
    let messages: Vec<&Value> = logs.iter().map(|e| &e["data"]["message"]).collect();
    assert_eq!(messages, [&json!("i=0 half=0.0"), &json!("i=1 half=0.5"), &json!("i=2 half=1.0")]);
    assert!(logs.iter().all(|e| e["data"]["breakpoint_id"] == bp["id"]));
    let (_, paused) = server.get("/api/paused").await;
    assert_eq!(paused["paused"], json!([]));
    // The process's page has them too.
    let (_, list) = server.get("/api/processes?all=1").await;
    let id = list["processes"][0]["id"].as_str().unwrap().to_string();
    let (_, detail) = server.get(&format!("/api/processes/{id}")).await;
    let shown: Vec<&Value> =
        detail["breakpoint_events"].as_array().unwrap().iter().map(|e| &e["data"]["message"]).collect();
    assert_eq!(shown, messages, "{detail}");
}

#[tokio::test]
async fn disabled_breakpoints_do_not_pause() {
    let server = common::start().await;
    let source = looping_program(3, "0");
    let line = line_of(&source, "# the line");
    add(&server, json!({"kind": "line", "file": "app.py", "line": line, "enabled": false})).await;
    add(&server, json!({"kind": "error", "enabled": false})).await;
    let (program, _) = Program::run(&server, &source);
    let (code, out, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done"));
    assert!(events(&server, "breakpoint_hit").await.is_empty());
    assert_eq!(items(&server).await[0]["hit_count"], 0);
}

const WRAPPED: &str = "import breakroom\n\
@breakroom.breakpoint\n\
def compute(n, label):\n    if n == 4:\n        raise ValueError('four')\n    return n\n\n\
for n in range(6):\n    try:\n        compute(n, label='item-%d' % n)\n    except ValueError:\n        pass\n\
print('done', flush=True)\n";

#[tokio::test]
async fn function_breakpoint_with_hit_condition_and_pattern_pauses_on_the_matching_call() {
    let server = common::start().await;
    // `% 2` of the calls whose arguments match item-[1-5]: the 2nd (n=2) and the 4th (n=4).
    add(
        &server,
        json!({"kind": "function", "function_name": "compute", "pattern": "item-[1-5]", "hit_condition": "% 2"}),
    )
    .await;
    let (mut program, _) = Program::run(&server, WRAPPED);
    let mut seen = vec![];
    for _ in 0..2 {
        let pause = wait_paused(&server, &mut program).await;
        seen.push(pause["call_data"]["pretty_kwargs"]["label"].clone());
        resume(&server, pause["id"].as_str().unwrap()).await;
    }
    let (code, out, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done"));
    assert!(seen[0].to_string().contains("item-2") && seen[1].to_string().contains("item-4"), "{seen:?}");
    let listed = items(&server).await;
    assert_eq!(listed[0]["hit_count"], 5, "{listed:?}");
    let hits = events(&server, "breakpoint_hit").await;
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[1]["data"]["hit_count"], 4);
}

#[tokio::test]
async fn error_breakpoint_pauses_after_the_call_that_raised() {
    let server = common::start().await;
    // Calls pause only on the error: the function's own breakpoint is turned off.
    server.post("/api/breakpoints", json!({"function_name": "compute", "behavior": "go"})).await;
    let bp = add(&server, json!({"kind": "error", "exception_types": ["ValueError"]})).await;
    let (mut program, _) = Program::run(&server, WRAPPED);
    let pause = wait_paused(&server, &mut program).await;
    let call = &pause["call_data"];
    assert_eq!((&call["method_name"], &call["pause_reason"]), (&json!("compute"), &json!("exception")), "{pause}");
    resume(&server, pause["id"].as_str().unwrap()).await;
    let (code, _, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    let hits = events(&server, "breakpoint_hit").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(
        (&hits[0]["data"]["breakpoint_id"], &hits[0]["data"]["exception_type"]),
        (&bp["id"], &json!("ValueError"))
    );
}

#[tokio::test]
async fn function_logpoint_interpolates_arguments_without_pausing() {
    let server = common::start().await;
    add(&server, json!({"kind": "function", "function_name": "compute", "log_message": "n={n} label={label}"})).await;
    let (program, _) = Program::run(&server, WRAPPED);
    let (code, _, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    let logs = events(&server, "log").await;
    assert_eq!(logs.len(), 6, "{logs:?}");
    assert_eq!(logs[1]["data"]["message"], "n=1 label='item-1'");
}

#[tokio::test]
async fn function_condition_pauses_only_the_call_where_it_holds() {
    let server = common::start().await;
    add(&server, json!({"kind": "function", "function_name": "compute", "condition": "n == 3"})).await;
    let (mut program, _) = Program::run(&server, WRAPPED);
    let pause = wait_paused(&server, &mut program).await;
    let pause_id = pause["id"].as_str().unwrap();
    assert_eq!(eval(&server, pause_id, "n").await, "3");
    resume(&server, pause_id).await;
    let (code, out, err) = tokio::task::spawn_blocking(move || program.finish()).await.unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done"));
    let hits = events(&server, "breakpoint_hit").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(items(&server).await[0]["hit_count"], 1);
}

/// An unchanged cideldill client: it registers by name, starts calls and answers evals through
/// `/api/poll-repl`; the server evaluates the condition through the pause.
#[tokio::test]
async fn cideldill_client_condition_false_continues_true_pauses_raising_pauses_with_the_error() {
    let server = common::start().await;
    let bp = add(&server, json!({"kind": "function", "function_name": "compute", "condition": "a > 6"})).await;
    let answers = [
        json!({"result": "False", "stdout": "", "error": null}),
        json!({"result": "True", "stdout": "", "error": null}),
        json!({"result": null, "stdout": "", "error": "NameError: name 'a' is not defined"}),
    ];
    let mut paused_ids = vec![];
    for (pid, answer) in (7001..).zip(answers) {
        let (_, pause_id) = server.pause_call("compute", pid).await;
        let (_, listed) = server.get("/api/paused").await;
        let shown = listed["paused"].as_array().unwrap().iter().any(|p| p["id"] == pause_id.as_str());
        assert!(!shown, "a call held for its condition is not shown as paused before it holds: {listed}");
        let asked = server.answer_next_eval(&pause_id, |_| answer.clone()).await;
        assert_eq!(asked["expr"], "bool(a > 6)");
        let (_, poll) = server.get(&format!("/api/poll/{pause_id}")).await;
        paused_ids.push((pause_id, poll["status"].clone()));
    }
    let (_, listed) = server.get("/api/paused").await;
    let shown: Vec<&Value> = listed["paused"].as_array().unwrap().iter().map(|p| &p["id"]).collect();
    assert_eq!(shown, [&json!(paused_ids[1].0), &json!(paused_ids[2].0)], "shown once the condition held or raised");
    let (_, sessions) = server.get("/api/repl/sessions").await;
    assert_eq!(sessions["total"], 0, "checking a condition records no REPL session: {sessions}");
    let statuses: Vec<&Value> = paused_ids.iter().map(|(_, s)| s).collect();
    assert_eq!(
        statuses,
        [&json!("ready"), &json!("waiting"), &json!("waiting")],
        "false continues; true and raising stay paused"
    );
    let hits = events(&server, "breakpoint_hit").await;
    let actions: Vec<&Value> = hits.iter().map(|h| &h["data"]["action"]).collect();
    assert_eq!(actions, [&json!("pause"), &json!("condition_error")]);
    assert!(hits.iter().all(|h| h["data"]["breakpoint_id"] == bp["id"]));
    let listed = items(&server).await;
    assert_eq!(listed[0]["hit_count"], 2);
    assert!(listed[0]["last_hit"]["error"].as_str().is_some_and(|e| e.contains("NameError")));
}

#[tokio::test]
async fn line_breakpoints_say_which_running_cideldill_client_they_cannot_reach() {
    let server = common::start().await;
    let pid = std::process::id() as i64; // alive, so the connected process stays running
    server.pause_call("compute", pid).await;
    let line = add(&server, json!({"kind": "line", "file": "app.py", "line": 3})).await;
    let refused = line["refused_by"].as_array().cloned().unwrap_or_default();
    assert_eq!(refused.len(), 1, "{line}");
    assert!(refused[0]["process_key"].as_str().is_some_and(|k| k.ends_with(&format!("+{pid}"))), "{line}");
    assert!(refused[0]["reason"].as_str().is_some_and(|r| r.contains("only function breakpoints")), "{line}");
    let function = add(&server, json!({"kind": "function", "function_name": "other"})).await;
    assert!(function.get("refused_by").is_none(), "{function}");
}
