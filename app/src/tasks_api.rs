//! The server function of `/process/{id}/tasks` (issue 51).

use crate::encoding::PlainText;
use crate::task_tree::TaskTree;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// A program's asyncio tasks as a tree (`crate::task_tree`), read without stopping its loop (it
/// answers within `interrupts::TASKS_WAIT`); None for an unknown process.
#[server(prefix = "/rpc", endpoint = "tasks_of", output = PlainText)]
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
    Ok(Some(crate::task_tree::build(&detail.process.name, &process_id, &tasks, |pause| paused.contains(pause))))
}
