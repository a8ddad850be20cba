//! What the processes concept asks of the owner ([`crate::host`]): the registry it keeps there,
//! the people and credentials, and the concepts later in the order that a process's end
//! reaches (its pauses, its checkpoints, an attach in flight).

use std::collections::HashSet;

use crate::host::{Host, Stored};
use crate::processes::{ProcessRegistry, ProcessService};
use crate::users::Users;

pub trait ProcessHost: Host<State: Stored> {
    /// Launched and connected processes, their lines and output.
    fn process_registry(&self) -> &ProcessRegistry;

    /// People and program credentials: a launched program gets one of its own.
    fn users(&self) -> &Users;

    /// Whether a client calling in from `pid` on this host was put there by an attach.
    fn is_attaching(&self, pid: i64) -> bool;

    /// Process keys with a call paused now (the ones lists show).
    fn paused_keys(&self) -> HashSet<String>;

    /// Resumes (continue) the open pauses of these lines, closes their REPL sessions and drops
    /// their steps, with `reason`: they ended.
    fn close_pauses_of_keys(&self, keys: &HashSet<String>, reason: &str);

    /// A line of a process ended (it exited, or a line woken from a checkpoint took over).
    fn checkpoint_line_ended(&self, process_id: &str, pid: Option<i64>);

    /// Ends a process's checkpoints (it is stopped or forgotten); how many there were.
    fn end_checkpoints_of(&self, process_id: &str) -> usize;

    /// This concept's service, for the owner's other concepts and for its own tasks.
    fn processes(&self) -> ProcessService<'_, Self>
    where
        Self: Sized,
    {
        ProcessService { debugger: self }
    }
}
