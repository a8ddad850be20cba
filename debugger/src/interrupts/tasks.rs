//! What Breakroom asks of a program's asyncio tasks (issue 51), on its breakpoint channel as pause
//! orders travel: their list (`GET /api/processes/{id}/tasks`), read without stopping any loop,
//! and orders for one task (`POST /api/processes/{id}/tasks/{task_id}/pause` and `…/cancel`). The program
//! answers each on a route of its own (`POST /api/task-lists`, `POST /api/task-orders`); the
//! caller waits for that answer, at most `TASKS_WAIT`.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::{InterruptService, InterruptState};
use crate::breakpoints::state::BreakpointsState;
use crate::error::{Error, Result};
use crate::ids;
pub use crate::model::{TaskAction, TaskOrder};
use crate::processes::ProcessStatus;

/// The name of the thread a task suspended alone waits on, before the task's name (the client's
/// `TASK_THREAD_PREFIX`): a pause whose thread is named so is in an asyncio task.
pub const TASK_THREAD_PREFIX: &str = "asyncio task ";

/// How often, and how far apart, a task list naming a continued pause is read again.
const SETTLE_TRIES: u32 = 10;
const SETTLE_EVERY: Duration = Duration::from_millis(20);

/// How long a task list or a task order waits for the program's answer.
pub const TASKS_WAIT: Duration = Duration::from_secs(5);

/// One frame of a task's coroutine stack, or of where the task was created.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskFrame {
    pub file: String,
    pub line: i64,
    pub function: String,
}

/// One asyncio task of a program, as its client read it without stopping its loop (issue 51).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskView {
    /// The task's id in the program (unique while it lives).
    pub id: String,
    pub name: String,
    /// `running`, `pending`, `paused` (by Breakroom, its task alone), `done` or `cancelled`.
    pub state: String,
    /// Its coroutine's stack, outermost first: the task's own coroutine, then what it awaits.
    #[serde(default)]
    pub stack: Vec<TaskFrame>,
    /// What it waits on: another task, a future, a sleep (text).
    #[serde(default)]
    pub awaiting: Option<String>,
    /// Where it was created, when the loop's debug mode recorded it.
    #[serde(default)]
    pub created_at_stack: Vec<TaskFrame>,
    /// The pause that suspends it, when Breakroom paused it.
    #[serde(default)]
    pub pause_id: Option<String>,
    /// Which loop it runs on (`loop-1`, … in the program), when it has several.
    #[serde(default)]
    pub loop_id: Option<String>,
}

/// `POST /api/task-lists`: a program's answer to a task-list ask.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Deserialize)]
pub struct TaskReport {
    pub ask_id: String,
    pub tasks: Vec<TaskView>,
}

/// The longest task id an order names (the Python client's are `task-` and 12 hex digits).
const MAX_TASK_ID: usize = 100;

/// How a task order went, as the program says.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// Cancelled, and the task has finished.
    Cancelled,
    /// Cancelled, but the task still runs (it caught the `CancelledError`, or is cleaning up).
    Cancelling,
    /// No task of the program has that id (it finished and was forgotten, or never was).
    NotFound,
    /// The task had already finished: nothing was done.
    Finished,
    /// Breakroom paused the task already (its pause id is given): a cancel waits for its pause
    /// to be continued, a pause is not taken twice.
    Paused,
    /// Paused: held where it waits, its loop running on (the pause id is given).
    Suspended,
    /// Its loop's thread did not come round in time (a pause that blocks the loop, or code that
    /// never yields): nothing was done.
    LoopBlocked,
    /// It waits nowhere it can be held from (not on a future, nor in its loop's ready queue).
    NotPausable,
}

/// `POST /api/task-orders`: a program's answer to a task order.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Deserialize)]
pub struct TaskOrderReport {
    pub order_id: String,
    pub outcome: TaskOutcome,
    /// The task's name, when it was found.
    #[serde(default)]
    pub name: Option<String>,
    /// The pause that holds it (`suspended`, `paused`).
    #[serde(default)]
    pub pause_id: Option<String>,
}

/// What a task order answers, when the program carried it out.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskOrderDone {
    pub process_id: String,
    pub task_id: String,
    pub name: Option<String>,
    pub action: TaskAction,
    /// `cancelled` or `cancelling` (cancel), `suspended` (pause).
    pub outcome: TaskOutcome,
    /// The pause that now holds the task (pause): continue it as any pause.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_id: Option<String>,
}

/// Asks waiting for programs, by the process key they go to, and their callers by ask id.
#[derive(Default)]
pub(crate) struct TaskAsks {
    lists: HashMap<String, Vec<String>>,
    list_waiters: HashMap<String, oneshot::Sender<Vec<TaskView>>>,
    orders: HashMap<String, Vec<TaskOrder>>,
    order_waiters: HashMap<String, oneshot::Sender<TaskOrderReport>>,
}

impl TaskAsks {
    /// The task-list asks waiting for the program with this key.
    pub(crate) fn lists_for(&self, key: &str) -> Vec<String> {
        self.lists.get(key).cloned().unwrap_or_default()
    }

    /// The task orders waiting for the program with this key.
    pub(crate) fn orders_for(&self, key: &str) -> Vec<TaskOrder> {
        self.orders.get(key).cloned().unwrap_or_default()
    }

    fn forget_list(&mut self, ask_id: &str) -> Option<oneshot::Sender<Vec<TaskView>>> {
        self.lists.retain(|_, asks| {
            asks.retain(|a| a != ask_id);
            !asks.is_empty()
        });
        self.list_waiters.remove(ask_id)
    }

    fn forget_order(&mut self, order_id: &str) -> Option<oneshot::Sender<TaskOrderReport>> {
        self.orders.retain(|_, orders| {
            orders.retain(|o| o.order_id != order_id);
            !orders.is_empty()
        });
        self.order_waiters.remove(order_id)
    }
}

impl<H: super::InterruptHost> InterruptService<'_, H> {
    /// The keys of a running process's programs that hold the breakpoint channel (the only way
    /// to ask anything of its tasks); `refused` says why not when none does.
    fn task_channel_keys(&self, process_id: &str, refused: (&'static str, &str)) -> Result<Vec<String>> {
        let process = self.debugger.processes().registry().get(process_id, ids::now())?;
        if !matches!(process.status, ProcessStatus::Running | ProcessStatus::Paused) {
            return Err(Error::ProcessEnded(process_id.to_string()));
        }
        let keys = self.debugger.processes().registry().keys_of(process_id);
        let mut st = self.debugger.state();
        let followed: Vec<String> = keys.into_iter().filter(|k| st.breakpoint_parts().records.follows(k)).collect();
        if followed.is_empty() {
            let (code, what) = refused;
            return Err(Error::conflict(
                code,
                format!(
                    "this program does not hold Breakroom's breakpoint channel (an unchanged cideldill client, or a \
                     client started with BREAKROOM_NO_BREAKPOINT_CHANNEL): {what}"
                ),
            ));
        }
        Ok(followed)
    }

    fn not_answering(what: &str) -> Error {
        Error::conflict(
            "program_not_answering",
            format!("the program did not answer {what} within {} s", TASKS_WAIT.as_secs()),
        )
    }

    /// `GET /api/processes/{id}/tasks` (issue 51): every asyncio task of every loop of a running
    /// program, read by its breakpoint channel's thread without stopping any loop. The ask
    /// travels on the channel as interrupts do; the program answers on `POST /api/task-lists`.
    pub async fn list_tasks(self, process_id: &str) -> Result<Vec<TaskView>> {
        self.list_tasks_within(process_id, TASKS_WAIT).await
    }

    /// The same list, waiting at most `wait` for the program (a page that shows it beside other
    /// things does not wait the whole `TASKS_WAIT`). A list that names a pause already continued
    /// is read again, up to `SETTLE_TRIES` times: the program learns of a continue on its own
    /// poll, a moment after the live event that makes a page ask, and would still say `paused`.
    pub async fn list_tasks_within(self, process_id: &str, wait: Duration) -> Result<Vec<TaskView>> {
        let keys = self.task_channel_keys(process_id, ("cannot_list_tasks", "its tasks cannot be read"))?;
        let deadline = tokio::time::Instant::now() + wait;
        let mut tries = 0;
        loop {
            let tasks = self.ask_for_tasks(&keys, deadline).await?;
            let continued = |pause: &str| !self.debugger.is_paused_now(pause);
            let stale = tasks.iter().any(|t| t.pause_id.as_deref().is_some_and(continued));
            if !stale || tries >= SETTLE_TRIES || tokio::time::Instant::now() + SETTLE_EVERY >= deadline {
                return Ok(tasks);
            }
            tries += 1;
            tokio::time::sleep(SETTLE_EVERY).await;
        }
    }

    async fn ask_for_tasks(&self, keys: &[String], deadline: tokio::time::Instant) -> Result<Vec<TaskView>> {
        let ask_id = format!("tasks-{}", ids::new_uuid());
        let (reply, answer) = oneshot::channel();
        {
            let mut st = self.debugger.state();
            for key in keys {
                st.interrupts().tasks.lists.entry(key.clone()).or_default().push(ask_id.clone());
            }
            st.interrupts().tasks.list_waiters.insert(ask_id.clone(), reply);
        }
        self.debugger.breakpoints().wake_breakpoint_channels();
        let answered = tokio::time::timeout_at(deadline, answer).await;
        self.debugger.state().interrupts().tasks.forget_list(&ask_id);
        match answered {
            Ok(Ok(tasks)) => Ok(tasks),
            _ => Err(Self::not_answering("with its task list")),
        }
    }

    /// `POST /api/task-lists`: a program's task list, handed to whoever asked for it.
    pub fn report_tasks(&self, report: TaskReport) -> Result<()> {
        let waiter = self.debugger.state().interrupts().tasks.forget_list(&report.ask_id);
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(report.tasks);
                Ok(())
            }
            None => Err(Error::conflict("unknown_task_ask", format!("no task list was asked as {}", report.ask_id))),
        }
    }

    /// `POST /api/processes/{id}/tasks/{task_id}/cancel` (issue 51, an admin's): the program
    /// calls `cancel()` on that task from its own loop and says how it went, waiting a moment
    /// for the task to finish. A task Breakroom paused is refused (`task_paused`): continue it,
    /// or stop the process.
    pub async fn cancel_task(self, process_id: &str, task_id: &str) -> Result<TaskOrderDone> {
        let (report, name) = self.order_task(process_id, task_id, TaskAction::Cancel).await?;
        match report.outcome {
            TaskOutcome::Cancelled | TaskOutcome::Cancelling => {
                Ok(Self::done(process_id, task_id, TaskAction::Cancel, report))
            }
            TaskOutcome::Paused => Err(Error::conflict(
                "task_paused",
                format!("task {task_id}{name} is paused by Breakroom: continue its pause, or stop the process"),
            )),
            _ => Err(Self::refused(process_id, task_id, &name, &report)),
        }
    }

    /// `POST /api/processes/{id}/tasks/{task_id}/pause` (issue 51, a debugger's): the program
    /// holds that task where it waits, on its own loop's thread between two steps of other tasks,
    /// and pauses in its innermost frame (`stop.kind = "task"`); the loop runs on. The answer
    /// names the pause, which is continued, stepped and evaluated as any other.
    pub async fn pause_task(self, process_id: &str, task_id: &str) -> Result<TaskOrderDone> {
        let (report, name) = self.order_task(process_id, task_id, TaskAction::Pause).await?;
        match report.outcome {
            TaskOutcome::Suspended if report.pause_id.is_some() => {
                Ok(Self::done(process_id, task_id, TaskAction::Pause, report))
            }
            TaskOutcome::Paused => {
                let pause = report.pause_id.as_deref().map(|p| format!(" ({p})")).unwrap_or_default();
                Err(Error::conflict("task_paused", format!("task {task_id}{name} is paused already{pause}")))
            }
            TaskOutcome::LoopBlocked => Err(Error::conflict(
                "loop_blocked",
                format!(
                    "the event loop of task {task_id}{name} did not come round within 3 s (its thread is paused, or \
                     runs code that never awaits): the task was not paused"
                ),
            )),
            TaskOutcome::NotPausable => Err(Error::conflict(
                "task_not_pausable",
                format!(
                    "task {task_id}{name} waits nowhere it can be held from (not on a future, nor scheduled on asyncio's \
                     own loop); a line breakpoint in its code pauses it"
                ),
            )),
            _ => Err(Self::refused(process_id, task_id, &name, &report)),
        }
    }

    fn done(process_id: &str, task_id: &str, action: TaskAction, report: TaskOrderReport) -> TaskOrderDone {
        TaskOrderDone {
            process_id: process_id.to_string(),
            task_id: task_id.to_string(),
            name: report.name,
            action,
            outcome: report.outcome,
            pause_id: report.pause_id,
        }
    }

    /// The refusals every order shares (and an outcome that does not fit the order).
    fn refused(process_id: &str, task_id: &str, name: &str, report: &TaskOrderReport) -> Error {
        match report.outcome {
            TaskOutcome::NotFound => Error::not_found(
                "task_not_found",
                format!("process {process_id} has no asyncio task {task_id} (finished, or never was)"),
            ),
            TaskOutcome::Finished => {
                Error::conflict("task_finished", format!("task {task_id}{name} had already finished"))
            }
            other => Error::conflict(
                "program_not_answering",
                format!(
                    "the program answered the order for task {task_id}{name} with {other:?}, which does not fit it"
                ),
            ),
        }
    }

    /// Gives one task order to the program and waits for its answer: the report, and the task's
    /// name as refusals show it (` (name)`).
    async fn order_task(
        &self,
        process_id: &str,
        task_id: &str,
        action: TaskAction,
    ) -> Result<(TaskOrderReport, String)> {
        let task_id = task_id.trim();
        if task_id.is_empty() {
            return Err(Error::invalid("missing_task_id", "which task: its id, as the task list gives it"));
        }
        let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':');
        if task_id.len() > MAX_TASK_ID || !task_id.chars().all(fits) {
            return Err(Error::invalid(
                "invalid_task_id",
                format!("a task id is at most {MAX_TASK_ID} letters, digits, '-', '_', '.' or ':' (as the task list gives it)"),
            ));
        }
        let refused = match action {
            TaskAction::Cancel => ("cannot_cancel_tasks", "its tasks cannot be cancelled"),
            TaskAction::Pause => ("cannot_pause_tasks", "its tasks cannot be paused one by one"),
        };
        let keys = self.task_channel_keys(process_id, refused)?;
        let order =
            TaskOrder { order_id: format!("task-order-{}", ids::new_uuid()), task_id: task_id.to_string(), action };
        let (reply, answer) = oneshot::channel();
        {
            let mut st = self.debugger.state();
            for key in keys {
                st.interrupts().tasks.orders.entry(key).or_default().push(order.clone());
            }
            st.interrupts().tasks.order_waiters.insert(order.order_id.clone(), reply);
        }
        self.debugger.breakpoints().wake_breakpoint_channels();
        let answered = tokio::time::timeout(TASKS_WAIT, answer).await;
        self.debugger.state().interrupts().tasks.forget_order(&order.order_id);
        let what = match action {
            TaskAction::Cancel => format!("the cancel of {task_id}"),
            TaskAction::Pause => format!("the pause of {task_id}"),
        };
        let report = match answered {
            Ok(Ok(report)) => report,
            _ => return Err(Self::not_answering(&what)),
        };
        let name = report.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
        Ok((report, name))
    }

    /// `POST /api/task-orders`: a program's answer to a task order, handed to whoever gave it.
    pub fn report_task_order(&self, report: TaskOrderReport) -> Result<()> {
        let waiter = self.debugger.state().interrupts().tasks.forget_order(&report.order_id);
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(report);
                Ok(())
            }
            None => {
                Err(Error::conflict("unknown_task_order", format!("no task order was given as {}", report.order_id)))
            }
        }
    }
}
