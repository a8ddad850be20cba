//! Process tools: run a program under Breakroom (its client on the path, its output kept), see
//! how processes are doing, read a launched one's output, pause a running one, stop one.

use breakroom_debugger::processes::{LaunchRequest, OutputStream};
use breakroom_debugger::users::Need;
use serde_json::json;

use super::args::{Done, ToolError};
use super::tools::{count, object, ToolSpec};

const MAX_LINES: u64 = 10_000;
const DEFAULT_LINES: u64 = 1_000;

fn id_schema() -> serde_json::Value {
    object(json!({"process_id": {"type": "string"}}), &["process_id"])
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "process_run",
            Need::Admin,
            "Launches a program with Breakroom's client active (a Python program's breakpoints pause here); answers at once with its record (`id`). `command`: the program and its arguments.",
            object(
                json!({"command": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "name": {"type": "string"}, "cwd": {"type": "string"},
                    "env": {"type": "object", "additionalProperties": {"type": "string"}}}),
                &["command"],
            ),
            |d, a| {
                Box::pin(async move {
                    let request: LaunchRequest = a.parse(&[])?;
                    let process = d.processes().launch_process(request)?;
                    let text = format!("{} started ({})", process.id, json!(process.status));
                    Done::new(process, text)
                })
            },
        ),
        ToolSpec::new(
            "process_status",
            Need::Viewer,
            "One process with its pauses and REPL sessions (`process_id`), or the list of processes (active ones; `all` for finished ones too).",
            object(json!({"process_id": {"type": "string"}, "all": {"type": "boolean"}}), &[]),
            |d, a| {
                Box::pin(async move {
                    match a.str("process_id") {
                        Some(id) => {
                            let detail = d.processes().tracked_process(id).map_err(|e| ToolError::from(e).with("process_id", id))?;
                            let text = format!("{} {}", id, json!(detail.process.status));
                            Done::new(detail, text)
                        }
                        None => {
                            let processes = d.processes().tracked_processes(a.bool("all").unwrap_or(false));
                            let text = count(processes.len(), "process");
                            Done::new(json!({"processes": processes}), text)
                        }
                    }
                })
            },
        ),
        ToolSpec::new(
            "process_output",
            Need::Viewer,
            "A launched process's output lines from line `from` (default 0), at most `limit` (default 1000); `stream`: stdout or stderr (default both). `next` is where to read on.",
            object(
                json!({"process_id": {"type": "string"}, "stream": {"type": "string", "enum": ["stdout", "stderr"]},
                    "from": {"type": "integer", "minimum": 0}, "limit": {"type": "integer", "minimum": 1}}),
                &["process_id"],
            ),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("process_id");
                    let stream = match a.str("stream") {
                        None => None,
                        Some(name) => Some(OutputStream::parse(name).ok_or_else(|| {
                            ToolError::new("invalid_parameter", format!("stream must be stdout or stderr, not {name:?}"))
                                .with("parameter", "stream")
                        })?),
                    };
                    let limit = a.u64("limit").unwrap_or(DEFAULT_LINES).clamp(1, MAX_LINES) as usize;
                    let page = d
                        .processes().process_output(id, stream, a.u64("from").unwrap_or(0), limit)
                        .await
                        .map_err(|e| ToolError::from(e).with("process_id", id))?;
                    let text = count(page.lines.len(), "line");
                    Done::new(page, text)
                })
            },
        ),
        ToolSpec::new(
            "process_pause",
            Need::Debugger,
            "Pauses a running program (one running Breakroom's Python client) at the next line its thread reaches: `thread` (an ident, as a pause's `thread.id` says; default the main thread). The pause then shows in breakpoint_list_paused with stop kind `interrupt`.",
            object(json!({"process_id": {"type": "string"}, "thread": {"type": "integer"}}), &["process_id"]),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("process_id");
                    let thread = a.0.get("thread").and_then(serde_json::Value::as_i64);
                    let asked = d.interrupts().ask(id, thread).map_err(|e| ToolError::from(e).with("process_id", id))?;
                    let text = format!("{id}: asked to pause ({})", asked.interrupt_id);
                    Done::new(asked, text)
                })
            },
        ),
        ToolSpec::new(
            "list_tasks",
            Need::Viewer,
            "Every asyncio task of every event loop in a running program (one running Breakroom's Python client), read without stopping any loop: `id`, `name`, `state` (running, pending, paused by Breakroom, done, cancelled), `stack` (file, line, function; the task's coroutine first, then what it awaits), `awaiting`, `created_at_stack` (with the loop's debug mode) and `pause_id` when Breakroom paused it.",
            id_schema(),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("process_id");
                    let tasks = d.interrupts().list_tasks(id).await.map_err(|e| ToolError::from(e).with("process_id", id))?;
                    let paused = tasks.iter().filter(|t| t.pause_id.is_some()).count();
                    let text = format!("{}, {paused} paused by Breakroom", count(tasks.len(), "task"));
                    Done::new(json!({"tasks": tasks}), text)
                })
            },
        ),
        ToolSpec::new(
            "pause_task",
            Need::Debugger,
            "Pauses one asyncio task of a running program (its `id` from `list_tasks`) where it waits, while its event loop runs every other task on: the answer's `pause_id` is a pause like any other (evaluate, with `await`; continue; step). Refused with `loop_blocked` when the task's loop does not come round (its thread is paused or never yields).",
            object(
                json!({"process_id": {"type": "string"}, "task_id": {"type": "string", "description": "the task's `id` from list_tasks"}}),
                &["process_id", "task_id"],
            ),
            |d, a| {
                Box::pin(async move {
                    let (id, task) = (a.req("process_id"), a.req("task_id"));
                    let done = d
                        .interrupts()
                        .pause_task(id, task)
                        .await
                        .map_err(|e| ToolError::from(e).with("process_id", id).with("task_id", task))?;
                    let name = done.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
                    let text = format!("{task}{name}: paused where it waits ({})", done.pause_id.as_deref().unwrap_or(""));
                    Done::new(done, text)
                })
            },
        ),
        ToolSpec::new(
            "cancel_task",
            Need::Admin,
            "Cancels one asyncio task of a running program (its `id` from `list_tasks`): `task.cancel()` is called on the task's own loop, and the answer says whether it then finished (`cancelled`) or still runs (`cancelling`: it caught the cancellation). A task Breakroom paused is refused (`task_paused`): continue its pause instead.",
            object(
                json!({"process_id": {"type": "string"}, "task_id": {"type": "string", "description": "the task's `id` from list_tasks"}}),
                &["process_id", "task_id"],
            ),
            |d, a| {
                Box::pin(async move {
                    let (id, task) = (a.req("process_id"), a.req("task_id"));
                    let done = d
                        .interrupts()
                        .cancel_task(id, task)
                        .await
                        .map_err(|e| ToolError::from(e).with("process_id", id).with("task_id", task))?;
                    let name = done.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
                    let text = format!("{task}{name}: {}", json!(done.outcome).as_str().unwrap_or(""));
                    Done::new(done, text)
                })
            },
        ),
        ToolSpec::new(
            "process_attach",
            Need::Admin,
            "Attaches to a running Python 3.11+ process of the server's machine by pid (no restart): Breakroom's client is put into it and calls in; it is then a process like any other (line breakpoints, pauses, REPL), and the Python processes it starts follow unless `follow_children` is false. Answers the process record and how the client got in.",
            object(
                json!({"pid": {"type": "integer"}, "follow_children": {"type": "boolean"}, "timeout_s": {"type": "number"}}),
                &["pid"],
            ),
            |d, a| {
                Box::pin(async move {
                    let pid = a.0.get("pid").and_then(serde_json::Value::as_i64).unwrap_or(0);
                    let request = breakroom_debugger::attach::AttachRequest {
                        pid,
                        follow_children: a.0.get("follow_children").and_then(serde_json::Value::as_bool),
                        timeout_s: a.0.get("timeout_s").and_then(serde_json::Value::as_f64),
                    };
                    let attached = d.attach().process(request).await.map_err(|e| ToolError::from(e).with("pid", pid))?;
                    let text = format!("attached to {pid}: process {} ({})", attached.process_id, attached.method.as_str());
                    Done::new(attached, text)
                })
            },
        ),
        ToolSpec::new("process_stop", Need::Admin, "Stops a process (SIGTERM, then SIGKILL).", id_schema(), |d, a| {
            Box::pin(async move {
                let id = a.req("process_id");
                let process = d.processes().stop_process(id).map_err(|e| ToolError::from(e).with("process_id", id))?;
                let text = format!("{} {}", id, json!(process.status));
                Done::new(process, text)
            })
        }),
    ]
}
