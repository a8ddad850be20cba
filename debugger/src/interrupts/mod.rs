//! Pausing a running program at the next line it reaches (DAP's `pause`, issue 31). Only a
//! program holding the breakpoint channel (Breakroom's Python client) can be asked: the order
//! travels on that channel, the thread named arms it and pauses itself with `stop.kind =
//! "interrupt"`. The order stays here until that pause arrives (a channel that reconnects gets
//! it again; the client skips ids it armed already).

mod tasks;

use std::collections::HashMap;

use crate::breakpoints::state::{BreakpointHost, BreakpointsState};
use crate::error::{Error, Result};
use crate::host::Host;
use crate::ids;
use crate::processes::host::ProcessHost;
use crate::processes::ProcessStatus;

pub use crate::model::Interrupt;
pub use tasks::{
    TaskAction, TaskFrame, TaskOrder, TaskOrderDone, TaskOrderReport, TaskOutcome, TaskReport, TaskView, TASKS_WAIT,
    TASK_THREAD_PREFIX,
};

/// What the server holds: orders by the process key they go to, and each follower's main thread.
#[derive(Default)]
pub struct Interrupts {
    by_key: HashMap<String, Vec<Interrupt>>,
    /// What is asked of programs' asyncio tasks (issue 51), by the process key it goes to.
    pub(crate) tasks: tasks::TaskAsks,
}

impl Interrupts {
    /// The orders waiting for the program with this key.
    pub(crate) fn for_key(&self, key: &str) -> Vec<Interrupt> {
        self.by_key.get(key).cloned().unwrap_or_default()
    }

    /// A pause from `keys` (one process record's) stopped for an interrupt: its orders are done.
    pub(crate) fn answered(&mut self, keys: &[String]) {
        for key in keys {
            self.by_key.remove(key);
        }
    }
}

crate::host::service!(
    /// Pause orders for running programs: what the doors reach as `debugger.interrupts()`.
    InterruptService
);

/// What pause orders ask of the owner of the state: the processes they go to, the breakpoint
/// channel they travel on, and whether a pause is still paused.
pub trait InterruptHost: ProcessHost + BreakpointHost + Host<State: InterruptState> {
    /// Whether `pause_id` is paused now (a task list that names a continued pause is stale).
    fn is_paused_now(&self, pause_id: &str) -> bool;

    /// This concept's service.
    fn interrupts(&self) -> InterruptService<'_, Self>
    where
        Self: Sized,
    {
        InterruptService { debugger: self }
    }
}

/// What pause orders read and change under the one lock: the orders waiting (and, through
/// the breakpoints' part, which programs follow the breakpoint channel).
pub trait InterruptState: BreakpointsState {
    fn interrupts(&mut self) -> &mut Interrupts;
}

impl<H: InterruptHost> InterruptService<'_, H> {
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
        let followed: Vec<String> = keys.into_iter().filter(|k| st.breakpoint_parts().records.follows(k)).collect();
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
            st.interrupts().by_key.entry(key).or_default().push(interrupt.clone());
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
        let mut st = self.debugger.state();
        keys.iter().find_map(|k| st.breakpoint_parts().records.main_thread(k))
    }

    /// A pause arrived with `stop.kind = "interrupt"` from the program with `process_key`.
    pub(crate) fn answered(&self, process_key: &str) {
        let keys = match self.debugger.processes().process_id_for_key(process_key) {
            Some(id) => self.debugger.processes().registry().keys_of(&id),
            None => vec![process_key.to_string()],
        };
        self.debugger.state().interrupts().answered(&keys);
    }
}
