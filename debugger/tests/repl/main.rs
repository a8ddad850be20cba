//! REPL sessions in the session manager (`Debugger`): starting, listing and closing sessions,
//! evals handed to the paused client and answered, and the edge cases of session ids.

mod edge_cases;
mod evals;
mod sessions;

use std::time::Duration;

use breakroom_debugger::calls::CallStart;
use breakroom_debugger::{Config, Debugger};
use serde_json::json;

fn debugger() -> Debugger {
    Debugger::for_tests(Config {
        eval_timeout: Duration::from_millis(500),
        poll_hold: Duration::from_millis(200),
        ..Config::default()
    })
}

/// Pauses a call of `name` in process `pid`; returns the pause id.
fn pause(d: &Debugger, name: &str, pid: i64) -> String {
    d.function_breakpoints().add_breakpoint(name, Some("(a, b)".into()), None).unwrap();
    let reply = d
        .calls()
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
