//! Stopping the server gracefully (issue 32): on SIGTERM or SIGINT the programs it holds are
//! told to wait for the next server, and what only lives through this one ends with it.

use crate::ids;
use crate::processes::ProcessOrigin;

use super::Debugger;

impl Debugger {
    /// Held polls answer `stopping` (Breakroom's client waits and reconnects, and the next
    /// server gets its pause back), held breakpoint channels return, the processes this server
    /// launched are stopped (their output pipes end here), runtimes and checkpoint processes end.
    /// Every write was committed when it was acknowledged: nothing is left to flush.
    pub fn stop_serving(&self) {
        self.inner.stopping.send_replace(true);
        self.breakpoints().wake_breakpoint_channels();
        for process in self.processes().registry().list(false, ids::now()) {
            if process.origin == ProcessOrigin::Launched && process.status.is_alive() {
                let _ = self.processes().stop_process(&process.id);
            }
        }
        if let Ok(list) = self.runtimes().list() {
            for workspace in list.workspaces {
                let _ = self.runtimes().stop(&workspace.workspace);
            }
        }
        self.checkpoints().end_all_checkpoints();
    }

    /// Whether [`Debugger::stop_serving`] was called.
    pub fn is_stopping(&self) -> bool {
        *self.inner.stopping.borrow()
    }
}
