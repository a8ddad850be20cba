//! The server's live events as DAP events: every new pause is `stopped` (whichever page, agent
//! or editor caused it), a resume elsewhere `continued`, programs' threads come and go as
//! `thread`, their output is `output`, breakpoints set on the pages are `breakpoint`.

use breakroom_debugger::model::LiveEvent;
use breakroom_debugger::processes::OutputStream;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::session::Dap;

impl Dap {
    pub async fn forward_events(self) {
        let mut events = self.debugger().subscribe();
        self.remember_records();
        loop {
            match events.recv().await {
                Ok(event) => self.forward(event),
                // Missed events: catch up from the state.
                Err(RecvError::Lagged(_)) => {
                    for paused in self.debugger().pauses().paused_calls() {
                        self.announce(&paused.pause_id);
                    }
                }
                Err(RecvError::Closed) => return,
            }
        }
    }

    fn forward(&self, event: LiveEvent) {
        match event {
            LiveEvent::PauseAdded { pause_id, .. } => self.announce(&pause_id),
            LiveEvent::PauseResumed { pause_id, .. } => {
                let thread = self.state().thread_of_pause(&pause_id);
                let ours = thread.is_some_and(|t| self.state().in_flight.contains(&t));
                self.state().announced.remove(&pause_id);
                if let (Some(thread), false) = (thread, ours) {
                    self.state().resumed(&pause_id);
                    self.event("continued", json!({"threadId": thread, "allThreadsContinued": false}));
                }
            }
            LiveEvent::ProcessExited { process } => {
                for thread in self.state().forget_process(&process.id) {
                    self.event("thread", json!({"reason": "exited", "threadId": thread}));
                }
            }
            LiveEvent::ProcessOutput { lines, .. } => {
                for line in lines {
                    let category = match line.stream {
                        OutputStream::Stdout => "stdout",
                        OutputStream::Stderr => "stderr",
                    };
                    self.event("output", json!({"category": category, "output": format!("{}\n", line.text)}));
                }
            }
            // A logpoint's message: the debug console, as the editor's own logpoints are.
            LiveEvent::Logged { message, .. } => {
                self.event("output", json!({"category": "console", "output": format!("{message}\n")}));
            }
            LiveEvent::BreakpointsChanged { .. } => self.breakpoints_changed(),
            // A program started or began following the breakpoints: a thread to pause.
            LiveEvent::ProcessStarted { .. } => self.running_threads(),
            // Published at every call start: looked at once per program that can be paused.
            LiveEvent::CallsChanged { process_key } => {
                if !self.state().running_checked.contains(&process_key) {
                    let process = self.debugger().processes().process_id_for_key(&process_key);
                    if process.is_some_and(|p| self.debugger().interrupts().main_thread_of(&p).is_some()) {
                        self.state().running_checked.insert(process_key);
                        self.running_threads();
                    }
                }
            }
            _ => {}
        }
    }
}
