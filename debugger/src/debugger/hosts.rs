//! The owner's answers to what each concept asks of it ([`crate::host`]): where a concept's
//! shared parts are kept, and the wiring between concepts that goes against their order ("a
//! process that ended ends its checkpoints"), written here once.

use std::collections::HashSet;
use std::sync::{Arc, MutexGuard, OnceLock};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{broadcast, watch};

use super::{Debugger, State};
use crate::attach::{AttachHost, Attaching};
use crate::breakpoints::state::{BreakpointHost, BreakpointParts, BreakpointsState, ProgramOrders};
use crate::call_reports::state::{CallReportHost, CallReportParts, CallReportState};
use crate::calls::store::PauseRecord;
use crate::calls::Action;
use crate::checkpoints::state::{CheckpointHost, CheckpointParts, CheckpointState};
use crate::cluster::{Cluster, ClusterHost, Request};
use crate::error::{Error, Result};
use crate::eval::EvalResult;
use crate::host::{Host, Ledger, Stored};
use crate::interrupts::{InterruptHost, InterruptState, Interrupts};
use crate::model::LiveEvent;
use crate::pauses::methods::{close_pause, PauseCall};
use crate::pauses::state::{PauseHost, PauseParts, PauseState};
use crate::pauses::PauseBook;
use crate::policy::Policy;
use crate::processes::host::ProcessHost;
use crate::processes::{ProcessRegistry, ProcessStatus};
use crate::sessions::methods::{close_one_session, SessionCall};
use crate::sessions::state::{SessionHost, SessionParts, SessionState};
use crate::sessions::Sessions;
use crate::snapshots::methods::SnapshotHost;
use crate::steps::in_flight::StepsInFlight;
use crate::steps::methods::StepCall;
use crate::steps::state::{StepHost, StepParts, StepState};
use crate::users::Users;

impl Host for Debugger {
    type State = State;

    fn state(&self) -> MutexGuard<'_, State> {
        Debugger::state(self)
    }

    fn publish(&self, event: LiveEvent) {
        Debugger::publish(self, event)
    }

    fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        Debugger::subscribe(self)
    }
}

impl ProcessHost for Debugger {
    fn process_registry(&self) -> &ProcessRegistry {
        &self.inner.processes
    }

    fn users(&self) -> &Users {
        Debugger::users(self)
    }

    fn is_attaching(&self, pid: i64) -> bool {
        self.inner.attaching.is_attaching(pid)
    }

    fn paused_keys(&self) -> HashSet<String> {
        self.pauses().paused_keys()
    }

    fn close_pauses_of_keys(&self, keys: &HashSet<String>, reason: &str) {
        self.steps().close_pauses_of_keys(keys, reason)
    }

    fn checkpoint_line_ended(&self, process_id: &str, pid: Option<i64>) {
        self.checkpoints().checkpoint_line_ended(process_id, pid)
    }

    fn end_checkpoints_of(&self, process_id: &str) -> usize {
        self.checkpoints().end_checkpoints_of(process_id)
    }
}

impl AttachHost for Debugger {
    fn attaching(&self) -> &Attaching {
        &self.inner.attaching
    }
}

impl BreakpointHost for Debugger {
    fn breakpoint_version(&self) -> &watch::Sender<u64> {
        &self.inner.breakpoint_version
    }

    fn policy(&self) -> &Policy {
        &self.inner.config.policy
    }

    fn poll_hold(&self) -> Duration {
        self.inner.config.poll_hold
    }

    fn in_cluster(&self) -> bool {
        self.cluster().is_some()
    }

    fn running_process_keys(&self) -> HashSet<String> {
        let running = self.processes().registry().list(false, crate::ids::now()).into_iter();
        running
            .filter(|p| matches!(p.status, ProcessStatus::Running | ProcessStatus::Paused))
            .filter_map(|p| p.process_key)
            .collect()
    }

    fn orders_for(&self, process_key: &str) -> ProgramOrders {
        let st = self.state();
        ProgramOrders {
            interrupts: st.interrupts.for_key(process_key),
            task_asks: st.interrupts.tasks.lists_for(process_key),
            task_orders: st.interrupts.tasks.orders_for(process_key),
        }
    }
}

impl BreakpointsState for State {
    fn breakpoint_parts(&mut self) -> BreakpointParts<'_> {
        BreakpointParts {
            store: &self.store,
            breakpoints: &mut self.breakpoints,
            records: &mut self.records,
            functions: &mut self.functions,
            seen_processes: &self.seen_processes,
        }
    }
}

impl InterruptHost for Debugger {
    fn is_paused_now(&self, pause_id: &str) -> bool {
        self.pauses().is_paused_now(pause_id)
    }
}

impl InterruptState for State {
    fn interrupts(&mut self) -> &mut Interrupts {
        &mut self.interrupts
    }
}

impl SnapshotHost for Debugger {
    fn snapshots_kept(&self) -> usize {
        self.inner.config.snapshots_kept
    }
}

impl ClusterHost for Debugger {
    fn cluster_slot(&self) -> &OnceLock<Arc<Cluster>> {
        &self.inner.cluster
    }

    fn subscribe_for_peers(&self) -> broadcast::Receiver<LiveEvent> {
        self.inner.to_peers.subscribe()
    }

    fn publish_from_peer(&self, event: LiveEvent) {
        let _ = self.inner.live.send(event);
    }

    fn reload_configuration(&self) -> Result<()> {
        self.state().breakpoint_parts().load_breakpoint_configuration()?;
        self.inner.breakpoint_version.send_modify(|v| *v += 1);
        Ok(())
    }

    fn held_pauses(&self) -> Vec<LiveEvent> {
        let st = self.state();
        st.pauses.in_order().map(|p| LiveEvent::pause_added(&p.record.pause_id, &p.record.call.process_key)).collect()
    }

    fn let_go_of_everything(&self, reason: &str) -> Result<()> {
        let now = crate::ids::now();
        let mut st = self.state();
        let held: Vec<String> = st.pauses.in_order().map(|p| p.record.pause_id.clone()).collect();
        for pause_id in held {
            close_pause(&mut *st, &pause_id, Action::Continue, now, Some(reason))?;
        }
        for session_id in st.sessions.open_ids() {
            close_one_session(&mut st.session_parts(), &session_id, now, Some(reason))?;
        }
        Ok(())
    }

    async fn run_for_peer(&self, request: Request) -> Result<Value> {
        fn json<T: Serialize>(value: T) -> Result<Value> {
            serde_json::to_value(value).map_err(|e| Error::storage_caused("", e))
        }
        match request {
            Request::Session(SessionCall::StartSession { pause_id }) => json(self.sessions().start_session(&pause_id)?),
            Request::Session(SessionCall::Eval { session_id, expr, frame }) => {
                json(self.sessions().eval_in_frame(&session_id, &expr, frame).await?)
            }
            Request::Session(SessionCall::CloseSession { session_id }) => {
                json(self.sessions().close_session(&session_id)?)
            }
            Request::Pause(PauseCall::Resume { pause_id, request }) => json(self.pauses().resume(&pause_id, request)?),
            Request::Step(StepCall::Step { pause_id, request }) => json(self.steps().step(&pause_id, request).await?),
        }
    }
}

impl Stored for State {
    fn store(&self) -> &Ledger {
        &self.store
    }
}

impl PauseHost for Debugger {
    fn stopping(&self) -> watch::Receiver<bool> {
        self.inner.stopping.subscribe()
    }

    fn pause_held_elsewhere(&self, pause_id: &str) -> Result<Option<String>> {
        Debugger::pause_held_elsewhere(self, pause_id)
    }

    fn ask_pause_holder_now<T: DeserializeOwned>(&self, holder: &str, call: PauseCall) -> Result<T> {
        self.ask_holder_now(holder, call)
    }

    fn pauses_elsewhere(&self) -> Vec<PauseRecord> {
        // A listing shows what this server has when the database cannot be asked.
        self.cluster().map(|c| c.pauses_held_elsewhere().unwrap_or_default()).unwrap_or_default()
    }

    fn submit_eval_result(&self, result: EvalResult) -> Result<()> {
        self.sessions().submit_eval_result(result)
    }

    fn process_id_for_key(&self, process_key: &str) -> Option<String> {
        self.processes().process_id_for_key(process_key)
    }
}

impl PauseState for State {
    fn pauses(&self) -> &PauseBook {
        &self.pauses
    }

    fn pause_parts(&mut self) -> PauseParts<'_> {
        PauseParts { store: &self.store, pauses: &mut self.pauses }
    }

    fn open_sessions_of(&self, pause_id: &str) -> Vec<String> {
        self.sessions.open_for_pause(pause_id)
    }

    fn pause_closing(&mut self, pause_id: &str, now: f64, reason: Option<&str>) -> Result<Vec<(String, f64)>> {
        let mut closed = vec![];
        // A step's sessions stay open: they move to the pause where it stops.
        if !self.steps.is_stepping(pause_id) {
            for session_id in self.sessions.open_for_pause(pause_id) {
                if close_one_session(&mut self.session_parts(), &session_id, now, reason)? {
                    closed.push((session_id, now));
                }
            }
        }
        self.checkpoints.pause_closed(pause_id);
        Ok(closed)
    }

    fn take_named_checkpoint(&mut self, pause_id: &str) -> Option<String> {
        self.checkpoints.take_named(pause_id)
    }
}

impl SessionHost for Debugger {
    fn eval_timeout(&self) -> Duration {
        self.inner.config.eval_timeout
    }

    fn session_held_elsewhere(&self, session_id: &str) -> Result<Option<String>> {
        Debugger::session_held_elsewhere(self, session_id)
    }

    fn ask_session_holder_now<T: DeserializeOwned>(&self, holder: &str, call: SessionCall) -> Result<T> {
        self.ask_holder_now(holder, call)
    }

    async fn ask_session_holder<T: DeserializeOwned + Send>(&self, holder: &str, call: SessionCall) -> Result<T> {
        self.ask_holder(holder, call).await
    }
}

impl SessionState for State {
    fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    fn session_parts(&mut self) -> SessionParts<'_> {
        SessionParts { store: &self.store, sessions: &mut self.sessions, pauses: &mut self.pauses }
    }

    fn is_stepping(&self, pause_id: &str) -> bool {
        self.steps.is_stepping(pause_id)
    }
}

impl StepHost for Debugger {
    async fn ask_step_holder<T: DeserializeOwned + Send>(&self, holder: &str, call: StepCall) -> Result<T> {
        self.ask_holder(holder, call).await
    }
}

impl StepState for State {
    fn steps(&self) -> &StepsInFlight {
        &self.steps
    }

    fn step_parts(&mut self) -> StepParts<'_> {
        StepParts {
            store: &self.store,
            steps: &mut self.steps,
            sessions: &mut self.sessions,
            pauses: &mut self.pauses,
            calls: &self.calls,
        }
    }
}

impl CheckpointHost for Debugger {}

impl CheckpointState for State {
    fn checkpoint_parts(&mut self) -> CheckpointParts<'_> {
        CheckpointParts {
            store: &self.store,
            checkpoints: &mut self.checkpoints,
            steps: &mut self.steps,
            sessions: &mut self.sessions,
            pauses: &mut self.pauses,
        }
    }
}

impl CallReportHost for Debugger {
    fn history_per_breakpoint(&self) -> usize {
        self.inner.config.history_per_breakpoint
    }
}

impl CallReportState for State {
    fn call_report_parts(&mut self) -> CallReportParts<'_> {
        CallReportParts {
            store: &self.store,
            calls: &mut self.calls,
            start_replies: &mut self.start_replies,
            seen_processes: &mut self.seen_processes,
        }
    }
}
