//! The server function of `/process/{id}/tasks` (issue 51).

use crate::rpc::TextRpc;
use crate::task_tree::TaskTree;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// A program's asyncio tasks as a tree (`crate::task_tree`), read without stopping its loop (it
/// answers within `interrupts::TASKS_WAIT`); None for an unknown process.
#[server(prefix = "/rpc", endpoint = "tasks_of", protocol = TextRpc)]
pub async fn tasks_of(process_id: String) -> Result<Option<TaskTree>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let detail = match debugger.processes().tracked_process(&process_id) {
        Ok(detail) => detail,
        Err(e) if e.kind() == breakroom_debugger::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(failed(e)),
    };
    let tasks = debugger.interrupts().list_tasks(&process_id).await.map_err(failed)?;
    let paused: std::collections::HashSet<String> =
        debugger.pauses().paused_calls().into_iter().map(|call| call.pause_id).collect();
    let mut tree = crate::task_tree::build(&detail.process.name, &process_id, &tasks, |pause| paused.contains(pause));
    tree.process_keys = debugger.processes().keys_of(&process_id);
    Ok(Some(tree))
}

/// One task order from the page (issue 51): `pause` holds the task where it waits (a debugger's),
/// otherwise it is cancelled, `task.cancel()` on its own loop (an admin's). What happened, as a
/// sentence for the page (the task's name is the program's text, shown as text).
#[server(prefix = "/rpc", endpoint = "order_task", protocol = TextRpc)]
pub async fn order_task(process_id: String, task_id: String, pause: bool) -> Result<String, ServerFnError> {
    use breakroom_debugger::interrupts::TaskOutcome;
    if pause {
        let done = debugger(Need::Debugger)?.interrupts().pause_task(&process_id, &task_id).await.map_err(failed)?;
        let name = done.name.unwrap_or(done.task_id);
        return Ok(format!("{name}: paused where it waits, its loop running on"));
    }
    let done = debugger(Need::Admin)?.interrupts().cancel_task(&process_id, &task_id).await.map_err(failed)?;
    let name = done.name.unwrap_or(done.task_id);
    Ok(match done.outcome {
        TaskOutcome::Cancelling => format!("{name}: cancelled, and it still runs (it caught the cancellation)"),
        _ => format!("{name}: cancelled"),
    })
}
