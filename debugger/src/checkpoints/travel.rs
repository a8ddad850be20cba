//! Time travel joined with pauses and processes (issue 20): clients report the checkpoints they
//! fork, checkpoint processes hold a poll until woken, and a step back, rewind, branch or switch
//! wakes one and waits for the new line's pause.

use nix::sys::signal::Signal;

use crate::error::{Error, Result};
use crate::ids;
use crate::model::{EventKind, LiveEvent};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;

use crate::checkpoints::book::DEFAULT_CAP;
use crate::checkpoints::memory::{parent_pid, pinned_bytes};
use crate::checkpoints::model::{
    BranchDiff, BranchSide, Checkpoint, CheckpointReport, CheckpointStatus, DiffCall, DiffEntry, HoldReply,
    StepBackRequest, Timeline, Travel, NOT_REWOUND,
};
use crate::checkpoints::state::{CheckpointHost, CheckpointState};
use crate::processes::{launch, liveness};
use crate::sessions::methods::follow;
use crate::steps::in_flight::InFlight;

/// How long a wake waits for the new line's pause, and a named checkpoint for its fork.
const WAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Nobody at the pause will take a checkpoint: its program is not polling there.
fn not_polling(process_id: &str) -> Error {
    Error::conflict(
        "not_polling",
        format!(
            "process {process_id} is paused but its program is not waiting there (no poll from Breakroom's client): \
             only a program polling at its pause takes a checkpoint"
        ),
    )
}

/// What happens to the line a travel leaves.
#[derive(Clone, Copy, PartialEq)]
enum Leave {
    Kill,
    Keep,
}

fn no_checkpoint(pause_id: &str) -> Error {
    Error::conflict(
        "no_checkpoint",
        format!(
            "no checkpoint before pause {pause_id} on its line: a checkpoint is taken when a pause is continued \
             with checkpoints on (breakroom.checkpoints(True), BREAKROOM_CHECKPOINTS=1 or breakroom run --checkpoints)"
        ),
    )
}

fn kill(pid: i64) {
    if pid > 0 && liveness::pid_is_alive(pid) {
        launch::signal_process(pid, Signal::SIGKILL);
    }
}

crate::host::service!(
    /// Time travel: checkpoints, branches and the jumps between them; what the doors reach as `debugger.checkpoints()`.
    CheckpointService
);

impl<H: CheckpointHost> CheckpointService<'_, H> {
    /// What a Continue's answer says about the checkpoint (None: checkpoints are off there).
    pub fn checkpoint_on_continue(&self, pause_id: &str) -> Option<Value> {
        self.debugger.state().checkpoint_parts().checkpoints.pause_mode(pause_id).map(|refusal| match refusal {
            None => json!({"status": "snapshot"}),
            Some(reason) => json!({"status": "refused", "reason": reason}),
        })
    }

    /// What a live pause's card shows of time travel; None when it has no part in it.
    pub fn pause_travel(&self, pause_id: &str) -> Option<crate::checkpoints::model::PauseTravel> {
        let mut guard = self.debugger.state();
        let st = guard.checkpoint_parts();
        let key = &st.pauses.get(pause_id)?.record.call.process_key;
        let before = st.checkpoints.before(key, pause_id);
        let refusal = st.checkpoints.pause_mode(pause_id).flatten();
        (before.is_some() || refusal.is_some())
            .then_some(crate::checkpoints::model::PauseTravel { checkpoint_before: before, refusal })
    }

    /// `POST /api/checkpoints`: a client forked a checkpoint at a pause, or says why it did not.
    pub fn report_checkpoint(&self, report: CheckpointReport) -> Result<Value> {
        let now = ids::now();
        let pause_id = report
            .pause_id
            .clone()
            .filter(|p| !p.is_empty())
            .ok_or(Error::MissingField { code: "missing_pause_id", field: "pause_id" })?;
        let mut guard = self.debugger.state();
        let st = guard.checkpoint_parts();
        let record = st.pause_record(&pause_id)?.ok_or_else(|| Error::PauseNotFound(pause_id.clone()))?;
        let key = record.call.process_key.clone();
        let process_id = self.debugger.processes().registry().id_for_key(&key).ok_or_else(|| {
            Error::invalid("process_unknown", format!("pause {pause_id} belongs to no tracked process"))
        })?;
        if let Some(reason) = report.refused.filter(|r| !r.trim().is_empty()) {
            st.checkpoints.refuse(&process_id, &pause_id, &reason, now);
            let data = json!({"pause_id": pause_id, "refused": reason});
            st.store.log(now, EventKind::Checkpoint, &key, None, data.clone())?;
            drop(guard);
            self.debugger.publish(LiveEvent::Checkpoint { process_id, data });
            return Ok(json!({"status": "refused"}));
        }
        let pid = report.pid.filter(|p| *p > 0).ok_or(Error::MissingField { code: "missing_pid", field: "pid" })?;
        // The server kills checkpoint processes later: only a child of the paused program is taken as one.
        if parent_pid(pid) != Some(record.call.process_pid) {
            return Err(Error::invalid(
                "invalid_pid",
                format!("process {pid} is not a child of the paused program (pid {})", record.call.process_pid),
            ));
        }
        let label = report.label.or_else(|| report.token.as_deref().and_then(|t| st.checkpoints.named_label(t)));
        let call = &record.call;
        let (cp, dropped) = st.checkpoints.add(
            &process_id,
            &key,
            &pause_id,
            &call.call_id,
            &call.method_name,
            pid,
            label,
            report.cap,
            now,
        );
        if let Some(token) = &report.token {
            st.checkpoints.named_done(token, &cp.id);
        }
        let data = json!({
            "checkpoint_id": cp.id, "pause_id": pause_id, "branch": cp.branch, "label": cp.label,
            "function_name": cp.function_name, "dropped_pids": dropped,
        });
        st.store.log(now, EventKind::Checkpoint, &key, None, data.clone())?;
        drop(guard);
        dropped.into_iter().for_each(kill);
        self.debugger.publish(LiveEvent::Checkpoint { process_id, data });
        Ok(json!({"checkpoint_id": cp.id}))
    }

    /// A checkpoint process's held poll: a wake order, or `wake: null` after the hold. A dropped
    /// or ended checkpoint answers an error: its process exits.
    pub async fn hold_checkpoint(self, id: &str) -> Result<HoldReply> {
        let deadline = tokio::time::Instant::now() + self.debugger.poll_hold();
        loop {
            let notify = self.debugger.state().checkpoint_parts().checkpoints.slot_notify(id)?;
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(order) = self.debugger.state().checkpoint_parts().checkpoints.take_order(id)? {
                return Ok(HoldReply { wake: Some(order) });
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(HoldReply { wake: None });
            }
        }
    }

    /// `POST /api/paused/{pause_id}/step-back`: to the newest checkpoint before this pause on
    /// its line; `keep` branches instead of killing the line left.
    pub async fn step_back(self, pause_id: &str, req: StepBackRequest) -> Result<Travel> {
        let cp_id = {
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            let record = st.pause_record(pause_id)?.ok_or_else(|| Error::PauseNotFound(pause_id.to_string()))?;
            st.checkpoints.before(&record.call.process_key, pause_id).ok_or_else(|| no_checkpoint(pause_id))?
        };
        if req.keep == Some(true) {
            self.branch_at(&cp_id, req.name.as_deref()).await
        } else {
            self.rewind(&cp_id).await
        }
    }

    /// `POST /api/paused/{pause_id}/reverse-continue`: back to the newest checkpoint before this
    /// pause that was taken at a breakpoint's pause (not a step's) on its line.
    pub async fn reverse_continue(self, pause_id: &str) -> Result<Travel> {
        let cp_id = {
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            let record = st.pause_record(pause_id)?.ok_or_else(|| Error::PauseNotFound(pause_id.to_string()))?;
            let mut at = st.checkpoints.before(&record.call.process_key, pause_id);
            let mut found = None;
            while let Some(id) = at {
                let Some(cp) = st.checkpoints.checkpoint(&id) else { break };
                let at_step = st
                    .pause_record(&cp.pause_id)?
                    .is_some_and(|p| p.call.stop.as_ref().is_some_and(|s| s.kind == crate::kinds::StopKind::Step));
                if cp.status == CheckpointStatus::Held && cp.pause_id != pause_id && !at_step {
                    found = Some(id);
                    break;
                }
                at = cp.parent.clone();
            }
            found.ok_or_else(|| {
                Error::conflict(
                    "no_breakpoint_checkpoint",
                    format!(
                        "no checkpoint of an earlier breakpoint pause before pause {pause_id}: turn checkpoints on \
                         (breakroom.checkpoints()) and continue from a breakpoint first"
                    ),
                )
            })?
        };
        self.rewind(&cp_id).await
    }

    /// Back to a checkpoint on its branch; the live line is killed.
    pub async fn rewind(self, cp_id: &str) -> Result<Travel> {
        let (process_id, branch) = {
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            let cp = st.checkpoints.held(cp_id)?;
            (cp.process_id.clone(), cp.branch.clone())
        };
        self.travel(&process_id, cp_id, branch, Leave::Kill, EventKind::Rewind).await
    }

    /// A new branch at a checkpoint, live; the line left is kept.
    pub async fn branch_at(self, cp_id: &str, name: Option<&str>) -> Result<Travel> {
        let (process_id, branch) = {
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            let process_id = st.checkpoints.held(cp_id)?.process_id.clone();
            let branch = st.checkpoints.create_branch(&process_id, name, cp_id, ids::now())?;
            (process_id, branch)
        };
        self.travel(&process_id, cp_id, branch, Leave::Keep, EventKind::BranchCreated).await
    }

    /// The live line moves to `name`: its kept pause if it has one, else its newest checkpoint.
    pub async fn switch_branch(self, process_id: &str, name: &str) -> Result<Travel> {
        let (kept, newest) = {
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            if !st.checkpoints.has_branch(process_id, name) {
                return Err(Error::not_found(
                    "branch_not_found",
                    format!("process {process_id} has no branch {name:?}"),
                ));
            }
            (st.checkpoints.kept_on(process_id, name), st.checkpoints.newest_on(process_id, name))
        };
        if let Some(key) = kept {
            let now = ids::now();
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            let old = st.checkpoints.live_line(process_id);
            let line = st.checkpoints.make_live(&key).ok_or_else(|| no_checkpoint(name))?;
            let data = json!({"branch": name, "pause_id": line.pause, "pid": line.pid});
            st.store.log(now, EventKind::BranchSwitched, &key, None, data.clone())?;
            drop(guard);
            let _ = self.debugger.processes().registry().relive(process_id, line.pid);
            self.debugger.publish(LiveEvent::BranchSwitched { process_id: process_id.to_string(), data });
            return Ok(Travel {
                process_id: process_id.to_string(),
                checkpoint_id: None,
                branch: name.to_string(),
                pause_id: line.pause.unwrap_or_default(),
                pid: line.pid,
                abandoned_pid: old.map(|(_, l)| l.pid),
                abandoned_kept: true,
            });
        }
        let cp_id = newest.ok_or_else(|| {
            Error::conflict("branch_empty", format!("branch {name:?} has no checkpoint and no paused line to go to"))
        })?;
        self.travel(process_id, &cp_id, name.to_string(), Leave::Keep, EventKind::BranchSwitched).await
    }

    /// Wakes `cp_id` as the live line on `branch` and waits for its pause; the line that was
    /// live is killed or kept.
    async fn travel(
        self,
        process_id: &str,
        cp_id: &str,
        branch: String,
        leave: Leave,
        kind: EventKind,
    ) -> Result<Travel> {
        let token = ids::new_uuid();
        let (receiver, old, parked) = {
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            let old = st.checkpoints.live_line(process_id);
            let receiver = st.checkpoints.begin_wake(cp_id, &branch, token.clone())?;
            // The REPL sessions on the line killed follow it back, as they follow a step: parked
            // (kept open when their pause closes) until the woken pause is there.
            let parked = old
                .as_ref()
                .and_then(|(_, line)| line.pause.clone())
                .filter(|pause| leave == Leave::Kill && !st.steps.is_stepping(pause));
            if let Some(pause) = &parked {
                let sessions = st.sessions.open_for_pause(pause);
                st.steps.start(pause, InFlight { sessions, process_key: String::new(), waiter: None });
            }
            (receiver, old, parked)
        };
        let woken = match tokio::time::timeout(WAKE_TIMEOUT, receiver).await {
            Ok(Ok(woken)) => woken,
            _ => {
                let mut guard = self.debugger.state();
                let st = guard.checkpoint_parts();
                st.checkpoints.cancel_wake(cp_id, &token);
                if let Some(pause) = &parked {
                    st.steps.land(pause);
                }
                drop(guard);
                return Err(Error::conflict(
                    "snapshot_silent",
                    format!("the fork of {cp_id} did not come back paused within {} s", WAKE_TIMEOUT.as_secs()),
                ));
            }
        };
        if let Ok(process) = self.debugger.processes().registry().relive(process_id, woken.pid) {
            self.debugger.publish(LiveEvent::ProcessStarted { process: self.debugger.processes().shown(process) });
        }
        let old = old.filter(|(key, _)| *key != woken.process_key);
        let abandoned_pid = old.as_ref().map(|(_, line)| line.pid);
        if let (Leave::Kill, Some((old_key, line))) = (leave, &old) {
            self.debugger.state().checkpoint_parts().checkpoints.line_ended(old_key);
            let keys = HashSet::from([old_key.clone()]);
            self.debugger.steps().close_pauses_of_keys(&keys, &format!("rewound to {cp_id}"));
            kill(line.pid);
        }
        if let Some(pause) = &parked {
            self.follow_back(pause, &woken.pause_id)?;
        }
        let data = json!({
            "checkpoint_id": cp_id, "branch": branch, "pause_id": woken.pause_id, "pid": woken.pid,
            "abandoned_pid": abandoned_pid, "abandoned_kept": leave == Leave::Keep,
        });
        self.debugger.state().checkpoint_parts().store.log(ids::now(), kind, &woken.process_key, None, data.clone())?;
        let process_id = process_id.to_string();
        self.debugger.publish(match kind {
            EventKind::Rewind => LiveEvent::Rewind { process_id: process_id.clone(), data },
            EventKind::BranchCreated => LiveEvent::BranchCreated { process_id: process_id.clone(), data },
            _ => LiveEvent::BranchSwitched { process_id: process_id.clone(), data },
        });
        Ok(Travel {
            process_id,
            checkpoint_id: Some(cp_id.to_string()),
            branch,
            pause_id: woken.pause_id,
            pid: woken.pid,
            abandoned_pid,
            abandoned_kept: leave == Leave::Keep && abandoned_pid.is_some(),
        })
    }

    /// The sessions parked on `from_pause` move to the woken pause, each transcript marked
    /// `← back to prog.py:12 in checkout`.
    fn follow_back(&self, from_pause: &str, woken_pause: &str) -> Result<()> {
        let now = ids::now();
        let events = {
            let mut guard = self.debugger.state();
            let mut st = guard.checkpoint_parts();
            let Some(flight) = st.steps.land(from_pause) else { return Ok(()) };
            let Some(record) = st.pause_record(woken_pause)? else { return Ok(()) };
            let call = record.call;
            let place = call.stop.as_ref().and_then(|s| s.place()).unwrap_or_else(|| call.method_name.clone());
            follow(&mut st.sessions(), flight.sessions, woken_pause, &call, &format!("← back to {place}"), now)?.0
        };
        for event in events {
            self.debugger.publish(event);
        }
        Ok(())
    }

    /// `POST /api/processes/{id}/checkpoints`: the paused live line forks a checkpoint now, under `label`.
    pub async fn create_checkpoint(self, process_id: &str, label: Option<String>) -> Result<Checkpoint> {
        self.debugger.processes().registry().get(process_id, 0.0)?;
        let label = label.filter(|l| !l.trim().is_empty()).unwrap_or_else(|| "checkpoint".to_string());
        let (pause_id, token, receiver) = {
            let mut guard = self.debugger.state();
            let st = guard.checkpoint_parts();
            let (_, line) = st.checkpoints.live_line(process_id).ok_or_else(|| {
                Error::conflict(
                    "checkpoints_off",
                    format!("process {process_id} has no paused call with checkpoints on (breakroom.checkpoints(True) or BREAKROOM_CHECKPOINTS=1)"),
                )
            })?;
            let pause_id = line.pause.filter(|p| st.pauses.get(p).is_some_and(|p| p.is_paused())).ok_or_else(|| {
                Error::conflict(
                    "not_paused",
                    format!("process {process_id} is not paused: a checkpoint is taken at a pause (each Continue takes one)"),
                )
            })?;
            if let Some(Some(reason)) = st.checkpoints.pause_mode(&pause_id) {
                return Err(Error::conflict("checkpoint_refused", reason));
            }
            if !st.pauses.get(&pause_id).is_some_and(|p| p.client_is_there()) {
                return Err(not_polling(process_id));
            }
            let (token, receiver) = st.checkpoints.request_named(&pause_id, label);
            if let Some(pause) = st.pauses.get(&pause_id) {
                pause.wake.notify_waiters();
            }
            (pause_id, token, receiver)
        };
        // Until the client takes the request with a poll, it may turn out nobody will: a program
        // that never polls, or that stopped, is answered then instead of after WAKE_TIMEOUT.
        let waited = async {
            let mut receiver = std::pin::pin!(receiver);
            loop {
                tokio::select! {
                    taken = &mut receiver => return Some(taken),
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                }
                let mut guard = self.debugger.state();
                let st = guard.checkpoint_parts();
                let there = st.pauses.get(&pause_id).is_some_and(|p| p.client_is_there());
                if st.checkpoints.named_waiting(&pause_id, &token) && !there {
                    return None;
                }
            }
        };
        let taken = match tokio::time::timeout(WAKE_TIMEOUT, waited).await {
            Ok(None) => {
                self.debugger.state().checkpoint_parts().checkpoints.cancel_named(&pause_id, &token);
                return Err(not_polling(process_id));
            }
            Ok(Some(taken)) => Ok(taken),
            Err(elapsed) => Err(elapsed),
        };
        match taken {
            Ok(Ok(id)) => self
                .debugger
                .state()
                .checkpoint_parts()
                .checkpoints
                .checkpoint(&id)
                .cloned()
                .ok_or_else(|| Error::not_found("checkpoint_not_found", format!("no checkpoint {id}"))),
            _ => {
                self.debugger.state().checkpoint_parts().checkpoints.cancel_named(&pause_id, &token);
                Err(Error::conflict(
                    "snapshot_silent",
                    format!("the paused program took no checkpoint within {} s", WAKE_TIMEOUT.as_secs()),
                ))
            }
        }
    }

    /// A process's checkpoints, branches and live position, with the memory each checkpoint pins.
    pub fn timeline(&self, process_id: &str) -> Result<Timeline> {
        self.debugger.processes().registry().get(process_id, 0.0)?;
        let mut guard = self.debugger.state();
        let st = guard.checkpoint_parts();
        Ok(st.checkpoints.timeline(process_id, pinned_bytes).unwrap_or_else(|| Timeline {
            process_id: process_id.to_string(),
            checkpoints: vec![],
            branches: vec![],
            live: None,
            cap: DEFAULT_CAP,
            memory_bytes: 0,
            refusals: vec![],
            not_rewound: NOT_REWOUND.to_string(),
        }))
    }

    /// The process whose newest checkpoint is the newest of all (the CLI's default process).
    pub fn newest_process_with_checkpoints(&self) -> Result<String> {
        self.debugger.state().checkpoint_parts().checkpoints.newest_process().ok_or_else(|| {
            Error::NotFound(
                "no_checkpoints",
                "no process has checkpoints (run it with `breakroom run --checkpoints` or BREAKROOM_CHECKPOINTS=1)"
                    .into(),
            )
        })
    }

    /// Where two branches part and what each recorded after: calls and REPL transcripts.
    pub fn branch_diff(&self, process_id: &str, a: &str, b: &str) -> Result<BranchDiff> {
        self.debugger.processes().registry().get(process_id, 0.0)?;
        let mut guard = self.debugger.state();
        let st = guard.checkpoint_parts();
        let mut forks = vec![];
        for name in [a, b] {
            let branch = st.checkpoints.branch(process_id, name).ok_or_else(|| {
                Error::not_found("branch_not_found", format!("process {process_id} has no branch {name:?}"))
            })?;
            forks.extend(branch.fork_point.clone());
        }
        // The later fork point: before it, both branches share their history.
        let fork = forks
            .iter()
            .filter_map(|id| st.checkpoints.checkpoint(id))
            .max_by(|x, y| x.taken_at.total_cmp(&y.taken_at))
            .cloned();
        let fork_time = fork.as_ref().map_or(0.0, |c| c.taken_at);
        let side = |name: &str| -> Result<BranchSide> {
            let mut calls = vec![];
            let mut transcript = vec![];
            for key in st.checkpoints.keys_on_branch(process_id, name) {
                for call in st.store.calls_of_process(&key)? {
                    if call.started_at < fork_time {
                        continue;
                    }
                    for pause_id in &call.pause_ids {
                        for header in st.store.session_headers_of_pause(pause_id)? {
                            if let Some(session) = st.store.session(&header.session_id)? {
                                transcript.extend(session.transcript.into_iter().map(|e| DiffEntry {
                                    session_id: header.session_id.clone(),
                                    input: e.input,
                                    output: e.output,
                                }));
                            }
                        }
                    }
                    calls.push(DiffCall {
                        call_id: call.call_id,
                        function_name: call.method_name,
                        started_at: call.started_at,
                        args: call.pretty_args,
                        result: call.pretty_result,
                    });
                }
            }
            calls.sort_by(|x, y| x.started_at.total_cmp(&y.started_at));
            Ok(BranchSide { branch: name.to_string(), calls, transcript })
        };
        Ok(BranchDiff { fork_point: fork.map(|c| c.id), fork_time, a: side(a)?, b: side(b)? })
    }

    /// Kills a process's checkpoints and kept lines (it was stopped or forgotten); how many.
    pub fn end_checkpoints_of(&self, process_id: &str) -> usize {
        let pids = self.debugger.state().checkpoint_parts().checkpoints.end_process(process_id);
        pids.iter().copied().for_each(kill);
        pids.len()
    }

    /// Kills every checkpoint process (the server is stopping).
    pub fn end_all_checkpoints(&self) {
        let pids = self.debugger.state().checkpoint_parts().checkpoints.end_all();
        pids.into_iter().for_each(kill);
    }

    /// A line of `process_id` with this pid ended.
    pub(crate) fn checkpoint_line_ended(&self, process_id: &str, pid: Option<i64>) {
        if let Some(pid) = pid {
            self.debugger.state().checkpoint_parts().checkpoints.pid_ended(process_id, pid);
        }
    }
}
