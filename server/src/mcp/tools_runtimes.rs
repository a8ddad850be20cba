//! Runtime tools (issue 19): a long-lived bash and Python process per workspace: run a command
//! in one, read the workspace's state, reset it, read its command history.

use breakroom_debugger::runtimes::ExecRequest;
use breakroom_debugger::users::Need;
use serde_json::json;

use super::args::{Done, ToolError};
use super::tools::{count, object, ToolSpec};

/// Commands answered when the call names no `limit`, as the REST default.
const DEFAULT_HISTORY: u64 = 20;

fn workspace() -> serde_json::Value {
    json!({"type": "string", "description": "the workspace's name: letters, digits, `-`, `_`"})
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "runtime_exec",
            Need::Admin,
            "Runs a command in a workspace's bash (default) or Python runtime; variables, the directory and imports stay for the next command. Answers stdout, stderr, success, exit code.",
            object(
                json!({"workspace": workspace(), "command": {"type": "string"},
                    "language": {"type": "string", "enum": ["bash", "python"]},
                    "timeout_ms": {"type": "integer", "minimum": 1}, "idle_timeout_s": {"type": "number"}}),
                &["workspace", "command"],
            ),
            |d, a| {
                Box::pin(async move {
                    let ws = a.req("workspace");
                    let request: ExecRequest = a.parse(&["workspace"])?;
                    let result = d.runtimes().exec(ws, request).await.map_err(|e| ToolError::from(e).with("workspace", ws))?;
                    let mut text = result.stdout.clone();
                    text.push_str(&result.stderr);
                    if text.is_empty() {
                        text = if result.success { "ok".into() } else { "failed".into() };
                    }
                    Done::new(result, text)
                })
            },
        ),
        ToolSpec::new(
            "runtime_state",
            Need::Admin,
            "A workspace's state: bash's directory and variables, Python's names and their types.",
            object(json!({"workspace": workspace()}), &["workspace"]),
            |d, a| {
                Box::pin(async move {
                    let ws = a.req("workspace");
                    let state = d.runtimes().state(ws).await.map_err(|e| ToolError::from(e).with("workspace", ws))?;
                    Done::new(state, format!("state of {ws}"))
                })
            },
        ),
        ToolSpec::new(
            "runtime_reset",
            Need::Admin,
            "Restarts a workspace's runtimes with nothing defined (its history stays).",
            object(json!({"workspace": workspace()}), &["workspace"]),
            |d, a| {
                Box::pin(async move {
                    let ws = a.req("workspace");
                    let summary = d.runtimes().reset(ws).await.map_err(|e| ToolError::from(e).with("workspace", ws))?;
                    Done::new(summary, format!("{ws} reset"))
                })
            },
        ),
        ToolSpec::new(
            "runtime_history",
            Need::Admin,
            "A workspace's commands and their results, newest first, at most `limit` (default 20).",
            object(json!({"workspace": workspace(), "limit": {"type": "integer", "minimum": 1}}), &["workspace"]),
            |d, a| {
                Box::pin(async move {
                    let ws = a.req("workspace");
                    let limit = usize::try_from(a.u64("limit").unwrap_or(DEFAULT_HISTORY)).unwrap_or(usize::MAX);
                    let page = d.runtimes().history(ws, limit).map_err(|e| ToolError::from(e).with("workspace", ws))?;
                    let text = count(page.history.len(), "command");
                    Done::new(page, text)
                })
            },
        ),
    ]
}
