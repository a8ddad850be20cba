//! Orders for running programs: a pause order, and an order for one asyncio task.

use serde::{Deserialize, Serialize};

/// One pause order for a running program.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interrupt {
    pub interrupt_id: String,
    /// The process record asked.
    pub process_id: String,
    /// The thread's ident (`threading.get_ident()`); none: the program's main thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<i64>,
    pub requested_at: f64,
}

/// What can be done to one task from outside its program.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskAction {
    /// `task.cancel()`, called on the task's own loop: `CancelledError` is raised where it waits.
    Cancel,
    /// Held where it waits, its loop running on: a pause in its innermost frame (`stop.kind =
    /// "task"`) until it is continued.
    Pause,
}

/// An order for one asyncio task of a program (issue 51), as the breakpoint channel carries it
/// (`interrupts::tasks` gives and answers them; here beside `Interrupt`, which travels the same way).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskOrder {
    pub order_id: String,
    /// The task's id, as the task list gives it.
    pub task_id: String,
    pub action: TaskAction,
}
