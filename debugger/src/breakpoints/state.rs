//! What the breakpoints concept keeps under the one lock ([`BreakpointParts`]), and what it
//! asks of the owner of the state ([`BreakpointHost`]; see `crate::host`).

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use tokio::sync::watch;

use super::by_name::{Breakpoints, FunctionBreakpointService, RegisteredFunction};
use super::{BreakpointService, Records};
use crate::host::{Host, Ledger};
use crate::model::{Interrupt, TaskOrder};
use crate::policy::Policy;

/// The breakpoints' part of the state, borrowed from it for as long as the lock is held.
pub struct BreakpointParts<'a> {
    pub(crate) store: &'a Ledger,
    /// cideldill's breakpoints by function name.
    pub(crate) breakpoints: &'a mut Breakpoints,
    /// Breakpoints of every kind by id, and the programs following them.
    pub(crate) records: &'a mut Records,
    /// Functions clients registered.
    pub(crate) functions: &'a mut BTreeMap<String, RegisteredFunction>,
    /// Processes this server has seen: a line breakpoint names the running ones that do not
    /// follow it.
    pub(crate) seen_processes: &'a HashSet<String>,
}

/// What the owner's state gives the breakpoints concept. (Not to be confused with
/// `policy::BreakpointState`, one breakpoint's active or finished state.)
pub trait BreakpointsState {
    fn breakpoint_parts(&mut self) -> BreakpointParts<'_>;
}

/// What a running program is asked to do besides following the breakpoints: pause orders and
/// task orders (the interrupts concept keeps them), answered on the same channel.
#[derive(Default)]
pub struct ProgramOrders {
    pub interrupts: Vec<Interrupt>,
    pub task_asks: Vec<String>,
    pub task_orders: Vec<TaskOrder>,
}

pub trait BreakpointHost: Host<State: BreakpointsState> {
    /// Bumped on every change a following program must read: its held channel waits on it.
    fn breakpoint_version(&self) -> &watch::Sender<u64>;

    /// Redaction rules and places not debugged.
    fn policy(&self) -> &Policy;

    /// How long a program's held channel waits for a change.
    fn poll_hold(&self) -> Duration;

    /// Whether other servers share the database (they count hits too).
    fn in_cluster(&self) -> bool;

    /// Process keys of the processes running or paused now.
    fn running_process_keys(&self) -> HashSet<String>;

    /// The orders waiting for the program with this key.
    fn orders_for(&self, process_key: &str) -> ProgramOrders;

    /// Breakpoints by id, of every kind.
    fn breakpoints(&self) -> BreakpointService<'_, Self>
    where
        Self: Sized,
    {
        BreakpointService { debugger: self }
    }

    /// cideldill's breakpoints by function name.
    fn function_breakpoints(&self) -> FunctionBreakpointService<'_, Self>
    where
        Self: Sized,
    {
        FunctionBreakpointService { debugger: self }
    }
}
