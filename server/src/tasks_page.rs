//! `/process/{id}/tasks` (issue 51): the program's asyncio tasks as a tree of who awaits whom,
//! served as plain HTML. Reading them asks the program (up to `interrupts::TASKS_WAIT`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use breakroom_debugger::Debugger;

use breakroom_app::render::{shell, tasks};

pub async fn page(
    State(debugger): State<Debugger>,
    caller: Option<axum::Extension<crate::access::Caller>>,
    Path(id): Path<String>,
) -> Response {
    let role = caller.map(|axum::Extension(c)| c.identity.holder.label());
    let listed = match debugger.processes().tracked_process(&id) {
        Ok(detail) => debugger.interrupts().list_tasks(&id).await.map(|list| (detail, list)),
        Err(e) => Err(e),
    };
    let (status, title, main) = match listed {
        Ok((detail, list)) => (
            StatusCode::OK,
            format!("Tasks · {}", detail.process.name),
            tasks::tasks_panel(&detail.process.name, &id, &list),
        ),
        Err(e) => (
            StatusCode::from_u16(e.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "Tasks".to_string(),
            shell::empty(&e.to_string()),
        ),
    };
    (status, Html(shell::page_for(role, &title, "tasks-page", main))).into_response()
}
