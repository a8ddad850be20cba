//! Pausing a running program at the next line it reaches (DAP's `pause`, issue 31). Only a
//! program holding the breakpoint channel (Breakroom's Python client) can be asked: the order
//! travels on that channel, the thread named arms it and pauses itself with `stop.kind =
//! "interrupt"`. The order stays here until that pause arrives (a channel that reconnects gets
//! it again; the client skips ids it armed already).

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::debugger::Debugger;
use crate::error::{Error, Result};
use crate::ids;
use crate::processes::ProcessStatus;

pub use crate::model::Interrupt;

/// How long `GET /api/processes/{id}/tasks` waits for the program's list (issue 51).
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

/// What the server holds: orders by the process key they go to, and each follower's main thread.
#[derive(Default)]
pub(crate) struct Interrupts {
    by_key: HashMap<String, Vec<Interrupt>>,
    /// Task-list asks by the process key they go to (issue 51), and their waiters by ask id.
    task_asks: HashMap<String, Vec<String>>,
    task_waiters: HashMap<String, oneshot::Sender<Vec<TaskView>>>,
}

impl Interrupts {
    /// The orders waiting for the program with this key.
    pub(crate) fn for_key(&self, key: &str) -> Vec<Interrupt> {
        self.by_key.get(key).cloned().unwrap_or_default()
    }

    /// The task-list asks waiting for the program with this key.
    pub(crate) fn task_asks_for(&self, key: &str) -> Vec<String> {
        self.task_asks.get(key).cloned().unwrap_or_default()
    }

    fn forget_task_ask(&mut self, ask_id: &str) -> Option<oneshot::Sender<Vec<TaskView>>> {
        self.task_asks.retain(|_, asks| {
            asks.retain(|a| a != ask_id);
            !asks.is_empty()
        });
        self.task_waiters.remove(ask_id)
    }

    /// A pause from `keys` (one process record's) stopped for an interrupt: its orders are done.
    pub(crate) fn answered(&mut self, keys: &[String]) {
        for key in keys {
            self.by_key.remove(key);
        }
    }
}

/// Pause orders for running programs: what the doors reach as `debugger.interrupts()`.
#[derive(Clone, Copy)]
pub struct InterruptService<'a> {
    pub(crate) debugger: &'a Debugger,
}

impl InterruptService<'_> {
    /// `POST /api/processes/{id}/interrupt`: asks a running program to pause `thread` (none: its
    /// main thread) at the next line it runs. The pause arrives as any other does (a `pause`
    /// live event, `stop.kind = "interrupt"`); a thread blocked in a system call pauses when the
    /// call returns.
    pub fn ask(&self, process_id: &str, thread: Option<i64>) -> Result<Interrupt> {
        let process = self.debugger.processes().registry().get(process_id, ids::now())?;
        if !matches!(process.status, ProcessStatus::Running | ProcessStatus::Paused) {
            return Err(Error::ProcessEnded(process_id.to_string()));
        }
        let keys = self.debugger.processes().registry().keys_of(process_id);
        let mut st = self.debugger.state();
        let followed: Vec<String> = keys.into_iter().filter(|k| st.records.follows(k)).collect();
        if followed.is_empty() {
            return Err(Error::conflict(
                "cannot_interrupt",
                "this program does not hold Breakroom's breakpoint channel (an unchanged cideldill client, or a \
                 client started with BREAKROOM_NO_BREAKPOINT_CHANNEL): it can only pause at its breakpoints",
            ));
        }
        // Unique across server restarts too: a program skips the ids it has armed.
        let interrupt = Interrupt {
            interrupt_id: format!("int-{}", ids::new_uuid()),
            process_id: process_id.to_string(),
            thread,
            requested_at: ids::now(),
        };
        for key in followed {
            st.interrupts.by_key.entry(key).or_default().push(interrupt.clone());
        }
        drop(st);
        // Wakes the held channels at once; the breakpoints themselves did not change.
        self.debugger.breakpoints().wake_breakpoint_channels();
        Ok(interrupt)
    }

    /// The main thread's ident of a program holding the breakpoint channel (it says so when it
    /// asks): the thread an interrupt without one stops, and the DAP thread of a running program.
    pub fn main_thread_of(&self, process_id: &str) -> Option<i64> {
        let keys = self.debugger.processes().registry().keys_of(process_id);
        let st = self.debugger.state();
        keys.iter().find_map(|k| st.records.main_thread(k))
    }

    /// `GET /api/processes/{id}/tasks` (issue 51): every asyncio task of every loop of a running
    /// program, read by its breakpoint channel's thread without stopping any loop. The ask
    /// travels on the channel as interrupts do; the program answers on `POST /api/task-lists`.
    pub async fn list_tasks(self, process_id: &str) -> Result<Vec<TaskView>> {
        let process = self.debugger.processes().registry().get(process_id, ids::now())?;
        if !matches!(process.status, ProcessStatus::Running | ProcessStatus::Paused) {
            return Err(Error::ProcessEnded(process_id.to_string()));
        }
        let keys = self.debugger.processes().registry().keys_of(process_id);
        let ask_id = format!("tasks-{}", ids::new_uuid());
        let (reply, answer) = oneshot::channel();
        {
            let mut st = self.debugger.state();
            let followed: Vec<String> = keys.into_iter().filter(|k| st.records.follows(k)).collect();
            if followed.is_empty() {
                return Err(Error::conflict(
                    "cannot_list_tasks",
                    "this program does not hold Breakroom's breakpoint channel (an unchanged cideldill client, or \
                     a client started with BREAKROOM_NO_BREAKPOINT_CHANNEL): its tasks cannot be read",
                ));
            }
            for key in followed {
                st.interrupts.task_asks.entry(key).or_default().push(ask_id.clone());
            }
            st.interrupts.task_waiters.insert(ask_id.clone(), reply);
        }
        self.debugger.breakpoints().wake_breakpoint_channels();
        let answered = tokio::time::timeout(TASKS_WAIT, answer).await;
        self.debugger.state().interrupts.forget_task_ask(&ask_id);
        match answered {
            Ok(Ok(tasks)) => Ok(tasks),
            _ => Err(Error::conflict(
                "program_not_answering",
                format!("the program did not send its task list within {} s", TASKS_WAIT.as_secs()),
            )),
        }
    }

    /// `POST /api/task-lists`: a program's task list, handed to whoever asked for it.
    pub fn report_tasks(&self, report: TaskReport) -> Result<()> {
        let waiter = self.debugger.state().interrupts.forget_task_ask(&report.ask_id);
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(report.tasks);
                Ok(())
            }
            None => Err(Error::conflict("unknown_task_ask", format!("no task list was asked as {}", report.ask_id))),
        }
    }

    /// A pause arrived with `stop.kind = "interrupt"` from the program with `process_key`.
    pub(crate) fn answered(&self, process_key: &str) {
        let keys = match self.debugger.processes().process_id_for_key(process_key) {
            Some(id) => self.debugger.processes().registry().keys_of(&id),
            None => vec![process_key.to_string()],
        };
        self.debugger.state().interrupts.answered(&keys);
    }
}
