//! The clients' protocol constants against the server's own enums. The Python client keeps the
//! wire's values in `client/breakroom/protocol/constants.py`, the JavaScript client in
//! `client-js/lib/protocol.mjs`; each value a constant names is here serialized from the Rust
//! type it mirrors, with serde, so a constant that drifts from the server (or a variant renamed
//! on this side) fails here rather than in a program that no longer pauses.

use std::collections::BTreeMap;

use breakroom_debugger::breakpoints::policy::{BreakpointAction, BreakpointState};
use breakroom_debugger::breakpoints::record::BreakpointKind;
use breakroom_debugger::calls::Action;
use breakroom_debugger::cid_store::SerializationFormat;
use breakroom_debugger::eval::RequestKind;
use breakroom_debugger::interrupts::{TaskAction, TaskOutcome};
use breakroom_debugger::kinds::CallStatus;
use breakroom_debugger::model::{EventKind, PauseReason};
use breakroom_debugger::outputs::{self, OutputType};
use breakroom_debugger::steps::{StepKind, StopKind};
use breakroom_debugger::{Error, PollReply};
use serde::Serialize;
use serde_json::Value;

const PYTHON: &str = include_str!("../../client/breakroom/protocol/constants.py");
const JAVASCRIPT: &str = include_str!("../../client-js/lib/protocol.mjs");

/// Constants whose value no Rust enum of this crate spells: read as text by the server
/// (`pause: "always"`, a step's `how`, a hit report's `event` and counters) or answered by the
/// router for a route an older server lacks. The integration tests of the clients cover them.
const WITHOUT_AN_ENUM: &[&str] = &[
    "PAUSE_ALWAYS",
    "STEPPED_LINE",
    "STEPPED_RETURN",
    "STEPPED_EXCEPTION",
    "EVENT_HIT_COUNT",
    "COUNT_SKIPPED_QUOTA",
    "COUNT_SKIPPED_RATE",
    "COUNT_DROPPED",
    "ERROR_NOT_FOUND",
    "ERROR_METHOD_NOT_ALLOWED",
];

/// A unit-like value's serde name.
fn name_of(value: impl Serialize) -> String {
    match serde_json::to_value(value).expect("serializes") {
        Value::String(name) => name,
        other => panic!("not a name: {other}"),
    }
}

/// One field of an internally tagged value: `{"action": "continue"}` -> "continue".
fn tag_of(value: impl Serialize, tag: &str) -> String {
    let value = serde_json::to_value(value).expect("serializes");
    value[tag].as_str().unwrap_or_else(|| panic!("no {tag} in {value}")).to_string()
}

/// Each constant's name, with the value the server's type gives it.
fn server_values() -> BTreeMap<&'static str, String> {
    let action = |a: Action| tag_of(a, "action");
    let poll = |p: PollReply| tag_of(p, "status");
    let skip = Action::Skip {
        fake_result: None,
        fake_result_cid: None,
        fake_result_data: None,
        fake_result_serialization_format: None,
    };
    BTreeMap::from([
        ("ACTION_CONTINUE", action(Action::Continue)),
        ("ACTION_POLL", action(Action::Poll { poll_url: String::new(), poll_interval_ms: 0, timeout_ms: 0 })),
        ("ACTION_STEP", action(Action::Step { step: StepKind::Over, file: None, line: None })),
        ("ACTION_SKIP", action(skip)),
        ("ACTION_RAISE", action(Action::Raise { exception_type: String::new(), exception_message: String::new() })),
        ("ACTION_MODIFY", action(Action::Modify { modified_args: vec![], modified_kwargs: serde_json::Map::new() })),
        ("ACTION_REPLACE", action(Action::Replace { function_name: String::new() })),
        ("POLL_WAITING", poll(PollReply::Waiting { eval: None, sessions: None, checkpoint: None })),
        ("POLL_READY", poll(PollReply::Ready { action: Action::Continue, breakpoints_version: None })),
        ("POLL_UNKNOWN", poll(PollReply::Unknown)),
        ("POLL_STOPPING", poll(PollReply::Stopping)),
        ("STEP_OVER", name_of(StepKind::Over)),
        ("STEP_INTO", name_of(StepKind::Into)),
        ("STEP_OUT", name_of(StepKind::Out)),
        ("STEP_TO_LINE", name_of(StepKind::ToLine)),
        ("STOP_CALL", name_of(StopKind::Call)),
        ("STOP_LINE", name_of(StopKind::Line)),
        ("STOP_SET_TRACE", name_of(StopKind::SetTrace)),
        ("STOP_STEP", name_of(StopKind::Step)),
        ("STOP_EXCEPTION", name_of(StopKind::Exception)),
        ("STOP_INTERRUPT", name_of(StopKind::Interrupt)),
        ("STOP_ENTRY", name_of(StopKind::Entry)),
        ("STOP_TASK", name_of(StopKind::Task)),
        ("CALL_SUCCESS", name_of(CallStatus::Success)),
        ("CALL_EXCEPTION", name_of(CallStatus::Exception)),
        ("PAUSE_EXCEPTION", name_of(PauseReason::Exception)),
        ("BREAKPOINT_FUNCTION", name_of(BreakpointKind::Function)),
        ("BREAKPOINT_LINE", name_of(BreakpointKind::Line)),
        ("BREAKPOINT_ERROR", name_of(BreakpointKind::Error)),
        ("BREAKPOINT_PAUSE", name_of(BreakpointAction::Pause)),
        ("BREAKPOINT_LOG", name_of(BreakpointAction::Log)),
        ("BREAKPOINT_SNAPSHOT", name_of(BreakpointAction::Snapshot)),
        ("BREAKPOINT_COMPLETED", name_of(BreakpointState::Completed)),
        ("BREAKPOINT_EXPIRED", name_of(BreakpointState::Expired)),
        ("EVENT_BREAKPOINT_HIT", name_of(EventKind::BreakpointHit)),
        ("EVENT_LOG", name_of(EventKind::Log)),
        ("REQUEST_EVAL", name_of(RequestKind::Eval)),
        ("REQUEST_COMPLETE", name_of(RequestKind::Complete)),
        ("REQUEST_VARIABLES", name_of(RequestKind::Variables)),
        ("REQUEST_EXPAND", name_of(RequestKind::Expand)),
        ("REQUEST_TABLE", name_of(RequestKind::Table)),
        ("REQUEST_VIEW", name_of(RequestKind::View)),
        ("REQUEST_WATCH", name_of(RequestKind::Watch)),
        ("TASK_CANCEL", name_of(TaskAction::Cancel)),
        ("TASK_CANCELLED", name_of(TaskOutcome::Cancelled)),
        ("TASK_CANCELLING", name_of(TaskOutcome::Cancelling)),
        ("TASK_NOT_FOUND", name_of(TaskOutcome::NotFound)),
        ("TASK_FINISHED", name_of(TaskOutcome::Finished)),
        ("TASK_PAUSED", name_of(TaskOutcome::Paused)),
        ("TASK_PAUSE", name_of(TaskAction::Pause)),
        ("TASK_SUSPENDED", name_of(TaskOutcome::Suspended)),
        ("TASK_LOOP_BLOCKED", name_of(TaskOutcome::LoopBlocked)),
        ("TASK_NOT_PAUSABLE", name_of(TaskOutcome::NotPausable)),
        ("TASK_THREAD_PREFIX", breakroom_debugger::interrupts::TASK_THREAD_PREFIX.to_string()),
        ("FORMAT_JSON", name_of(SerializationFormat::Json)),
        ("ERROR_CID_NOT_FOUND", Error::CidNotFound { missing: vec![] }.code().to_string()),
        ("ERROR_EVAL_NOT_FOUND", Error::EvalNotFound(String::new()).code().to_string()),
        ("ERROR_LOOP_BLOCKED", Error::conflict(breakroom_debugger::error::LOOP_BLOCKED, "").code().to_string()),
        ("OUTPUT_EXECUTE_RESULT", name_of(OutputType::ExecuteResult)),
        ("OUTPUT_DISPLAY_DATA", name_of(OutputType::DisplayData)),
        ("MIME_PLAIN", outputs::MIME_PLAIN.into()),
        ("MIME_HTML", outputs::MIME_HTML.into()),
        ("MIME_MARKDOWN", outputs::MIME_MARKDOWN.into()),
        ("MIME_LATEX", outputs::MIME_LATEX.into()),
        ("MIME_PNG", outputs::MIME_PNG.into()),
        ("MIME_JPEG", outputs::MIME_JPEG.into()),
        ("MIME_SVG", outputs::MIME_SVG.into()),
        ("MIME_JSON", outputs::MIME_JSON.into()),
        ("MIME_TABLE", outputs::MIME_TABLE.into()),
        ("MAX_IMAGE_BYTES", outputs::MAX_IMAGE_BYTES.to_string()),
        ("MAX_HTML_BYTES", outputs::MAX_HTML_BYTES.to_string()),
        ("MAX_ANSWER_BYTES", outputs::MAX_ANSWER_BYTES.to_string()),
    ])
}

/// `NAME = "value"` or `NAME = 123` (Python) or `export const NAME = 'value';` (JavaScript)
/// lines: name -> value.
/// Any other line that assigns an upper-case name is refused, so a constant cannot hide from
/// this test by being written another way.
fn constants(source: &str, file: &str) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for line in source.lines() {
        let line = line.trim();
        let Some((name, value)) = line.strip_prefix("export const ").unwrap_or(line).split_once(" = ") else {
            continue;
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') {
            continue;
        }
        let value = value.trim_end_matches(';');
        let quoted = value.len() >= 2
            && (value.starts_with('"') && value.ends_with('"') || value.starts_with('\'') && value.ends_with('\''));
        let number = !value.is_empty() && value.chars().all(|c| c.is_ascii_digit());
        assert!(quoted || number, "{file}: {name} is not one plain string or whole number: {line}");
        let value = if quoted { &value[1..value.len() - 1] } else { value };
        assert!(found.insert(name.to_string(), value.to_string()).is_none(), "{file}: {name} twice");
    }
    assert!(!found.is_empty(), "{file}: no constants read");
    found
}

/// What is wrong with a client's constants, one line each.
fn drift(file: &str, source: &str) -> Vec<String> {
    let server = server_values();
    let mut wrong = Vec::new();
    for (name, value) in constants(source, file) {
        match server.get(name.as_str()) {
            Some(expected) if *expected != value => {
                wrong.push(format!("{file}: {name} = {value:?}, the server says {expected:?}"))
            }
            Some(_) => {}
            None if WITHOUT_AN_ENUM.contains(&name.as_str()) => {}
            None => wrong.push(format!("{file}: {name} is checked against nothing: map it to its enum here")),
        }
    }
    wrong
}

#[test]
fn the_python_clients_protocol_constants_are_the_servers_values() {
    let wrong = drift("constants.py", PYTHON);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_javascript_clients_protocol_constants_are_the_servers_values() {
    let wrong = drift("protocol.mjs", JAVASCRIPT);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_value_checked_here_is_a_constant_of_a_client() {
    let defined: Vec<String> = constants(PYTHON, "constants.py")
        .into_keys()
        .chain(constants(JAVASCRIPT, "protocol.mjs").into_keys())
        .collect();
    for name in server_values().keys().chain(WITHOUT_AN_ENUM) {
        assert!(defined.iter().any(|d| d == name), "{name} is checked here but no client defines it");
    }
}

#[test]
fn a_constant_that_drifted_or_is_unmapped_is_reported() {
    let source = "ACTION_CONTINUE = \"go_on\"\nACTION_POLL = \"poll\"\nACTION_NEW = \"new\"\n";
    assert_eq!(
        drift("x.py", source),
        vec![
            "x.py: ACTION_CONTINUE = \"go_on\", the server says \"continue\"".to_string(),
            "x.py: ACTION_NEW is checked against nothing: map it to its enum here".to_string(),
        ]
    );
}
