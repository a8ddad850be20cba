//! The server function of `/process/{id}/tasks` (issue 51).

use crate::api::PlainText;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// A program's asyncio tasks as HTML (`crate::render::tasks`), read without stopping its loop
/// (it answers within `interrupts::TASKS_WAIT`); None for an unknown process.
#[server(prefix = "/rpc", endpoint = "tasks_html", output = PlainText)]
pub async fn tasks_html(process_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let detail = match debugger.processes().tracked_process(&process_id) {
        Ok(detail) => detail,
        Err(e) if e.kind() == breakroom_debugger::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(failed(e)),
    };
    let tasks = debugger.interrupts().list_tasks(&process_id).await.map_err(failed)?;
    Ok(Some(crate::render::tasks::tasks_page(&detail.process.name, &process_id, &tasks)))
}
