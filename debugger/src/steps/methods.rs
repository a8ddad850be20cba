//! Stepping from a pause, the stop where a step lands, a pause's frames, and reverse-continue.

use std::time::Duration;

use tokio::sync::oneshot;

use crate::calls::CallBook;
use crate::calls::{Action, CallData};
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{Language, LiveEvent, PauseReason};
use crate::pauses::methods::close_pause;
use crate::pauses::state::PauseState;
use crate::sessions::methods::close_one_session;
use crate::sessions::methods::follow;
use crate::sessions::state::SessionState;
use crate::steps::in_flight::InFlight;
use crate::steps::state::{StepHost, StepParts, StepState};
use crate::steps::{FrameView, StepKind, StepReply, StepRequest, StopKind};

/// A door's call on a pause another server holds, sent to that server to run (`cluster`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum StepCall {
    Step { pause_id: String, request: StepRequest },
}

/// How long `POST /api/paused/{id}/step` waits for the stop before answering `running`.
pub const STEP_ANSWER_WAIT: Duration = Duration::from_secs(2);

/// A step order, checked.
struct Order {
    kind: StepKind,
    file: Option<String>,
    line: Option<i64>,
}

/// A step built in Rust (DAP, the pages) is checked as a body is: `to_line` needs its place.
fn order(req: StepRequest) -> Result<Order> {
    if req.kind != StepKind::ToLine {
        return Ok(Order { kind: req.kind, file: None, line: None });
    }
    let file = req.file.filter(|f| !f.trim().is_empty());
    let file = file.ok_or_else(|| Error::invalid("missing_file", "to_line needs file: the file to run to"))?;
    let line = req.line.filter(|line| *line >= 1);
    let line = line.ok_or_else(|| Error::invalid("invalid_line", "to_line needs line: a line number from 1"))?;
    Ok(Order { kind: req.kind, file: Some(file), line: Some(line) })
}

/// Why a pause cannot step, if it cannot.
fn refusal(calls: &CallBook, pause_id: &str, call: &CallData, reason: PauseReason) -> Option<Error> {
    let post_mortem = call.stop.as_ref().is_some_and(|s| s.kind == StopKind::Exception)
        || (reason == PauseReason::Exception && calls.paused_at_start(&call.call_id, pause_id));
    if post_mortem {
        return Some(Error::conflict(
            "cannot_step_post_mortem",
            "a post-mortem pause cannot step: the frame has already ended with its exception. Continue instead",
        ));
    }
    if !call.can_step {
        let client = match call.language {
            Language::Javascript => "this JavaScript client",
            Language::Python => "this Python client (cideldill's, or a Breakroom client older than stepping)",
        };
        return Some(Error::conflict(
            "stepping_unsupported",
            format!("{client} cannot step; only Breakroom's Python client steps. Continue instead"),
        ));
    }
    None
}

crate::host::service!(
    /// Stepping from a pause to the next line: what the doors reach as `debugger.steps()`.
    StepService
);

impl<H: StepHost> StepService<'_, H> {
    /// `POST /api/paused/{pause_id}/step`: sends the step and waits up to 2 s for the program to
    /// stop again. The pause's REPL sessions stay open and move to the new pause.
    pub async fn step(self, pause_id: &str, req: StepRequest) -> Result<StepReply> {
        if let Some(holder) = self.debugger.pause_held_elsewhere(pause_id)? {
            order(req.clone())?;
            let request = StepCall::Step { pause_id: pause_id.to_string(), request: req };
            return self.debugger.ask_step_holder(&holder, request).await;
        }
        let order = order(req)?;
        let now = ids::now();
        let (answer, closed, process_key) = {
            let mut guard = self.debugger.state();
            let st = guard.step_parts();
            let Some(pause) = st.pauses.get(pause_id) else {
                return Err(match st.store.pause(pause_id)? {
                    Some(_) => Error::PauseResumed(pause_id.to_string()),
                    None => Error::PauseNotFound(pause_id.to_string()),
                });
            };
            let (call, reason) = (pause.record.call.clone(), pause.record.reason);
            if let Some(error) = refusal(st.calls, pause_id, &call, reason) {
                return Err(error);
            }
            let (waiter, answer) = oneshot::channel();
            let sessions = st.sessions.open_for_pause(pause_id);
            st.steps
                .start(pause_id, InFlight { sessions, process_key: call.process_key.clone(), waiter: Some(waiter) });
            let action = Action::Step { step: order.kind, file: order.file, line: order.line };
            match close_pause(&mut *guard, pause_id, action, now, None) {
                Ok(closed) => (answer, closed, call.process_key),
                Err(e) => {
                    guard.step_parts().steps.land(pause_id);
                    return Err(e);
                }
            }
        };
        self.debugger.publish(LiveEvent::pause_resumed(pause_id, &process_key));
        self.debugger.pauses().publish_closed(closed);
        match tokio::time::timeout(STEP_ANSWER_WAIT, answer).await {
            Ok(Ok(stopped)) => Ok(stopped),
            _ => Ok(StepReply::Running { previous_pause_id: pause_id.to_string() }),
        }
    }

    /// `GET /api/paused/{pause_id}/frames`: the pause's stack, innermost first (resumed pauses
    /// too: the stack is kept with them).
    pub fn frames(&self, pause_id: &str) -> Result<Vec<FrameView>> {
        let record =
            self.debugger.state().pause_record(pause_id)?.ok_or_else(|| Error::PauseNotFound(pause_id.to_string()))?;
        Ok(frame_views(&record.call))
    }
}

/// What the debug page shows of an open session's pause.
pub struct DebugState {
    pub pause_id: String,
    pub frames: Vec<FrameView>,
    pub selected: usize,
    pub stop: Option<crate::steps::PauseStop>,
    /// A step from the pause runs: the session waits for its stop.
    pub running: bool,
}

impl<H: StepHost> StepService<'_, H> {
    /// Resumes (continue) the open pauses of these process keys (lines of a process), closes
    /// their REPL sessions and drops their steps, with `reason`.
    pub(crate) fn close_pauses_of_keys(&self, keys: &std::collections::HashSet<String>, reason: &str) {
        if keys.is_empty() {
            return;
        }
        let now = ids::now();
        let mut st = self.debugger.state();
        let open: Vec<(String, String)> = st
            .pauses()
            .in_order()
            .filter(|p| p.is_paused() && keys.contains(&p.record.call.process_key))
            .map(|p| (p.record.pause_id.clone(), p.record.call.process_key.clone()))
            .collect();
        let mut resumed = vec![];
        let mut closed = vec![];
        // Steps of ended processes will never stop: their sessions close.
        let abandoned = st.step_parts().steps.abandon(keys);
        for step in abandoned {
            for session_id in step.sessions {
                if let Ok(true) = close_one_session(&mut st.session_parts(), &session_id, now, Some(reason)) {
                    closed.push((session_id, now));
                }
            }
        }
        for (pause_id, process_key) in open {
            match close_pause(&mut *st, &pause_id, Action::Continue, now, Some(reason)) {
                Ok(sessions) => {
                    closed.extend(sessions);
                    resumed.push(LiveEvent::pause_resumed(&pause_id, &process_key));
                }
                Err(e) => eprintln!("breakroom: cannot close pause {pause_id}: {e}"),
            }
        }
        drop(st);
        for event in resumed {
            self.debugger.publish(event);
        }
        self.debugger.pauses().publish_closed(closed);
    }

    /// The debug page's view of an open session (None when it is closed).
    pub fn debug_state(&self, session_id: &str) -> Result<Option<DebugState>> {
        let st = self.debugger.state();
        let Some(session) = st.sessions().get(session_id) else { return Ok(None) };
        let pause_id = session.pause_id.clone();
        let Some(record) = st.pause_record(&pause_id)? else { return Ok(None) };
        Ok(Some(DebugState {
            frames: frame_views(&record.call),
            selected: st.sessions().frame_of(session_id).unwrap_or(0),
            stop: record.call.stop.clone(),
            running: st.steps().is_stepping(&pause_id),
            pause_id,
        }))
    }
}

/// A pause's frames as the client reported them, numbered as evals name them.
pub(crate) fn frame_views(call: &CallData) -> Vec<FrameView> {
    call.stack_views()
        .into_iter()
        .enumerate()
        .map(|(index, f)| FrameView {
            index,
            filename: f.filename,
            lineno: f.lineno,
            function: f.function,
            code_context: f.code_context,
            source_start: f.source_start,
            source_lines: f.source_lines,
            locals: f.locals,
        })
        .collect()
}

/// A new pause: when a step stopped there, its sessions move to it (each transcript marks the
/// step: `→ prog.py:12 in checkout`) and the step's request gets its answer. Returns the live
/// events to publish once the state is released.
pub(crate) fn land(st: &mut StepParts<'_>, pause_id: &str, call: &CallData, now: f64) -> Result<Vec<LiveEvent>> {
    let Some(stop) = &call.stop else { return Ok(vec![]) };
    let Some(previous) = stop.previous_pause_id.as_deref() else { return Ok(vec![]) };
    let Some(mut flight) = st.steps.land(previous) else { return Ok(vec![]) };
    let marker = format!("→ {}", stop.place().unwrap_or_else(|| call.method_name.clone()));
    let (mut events, moved) =
        follow(&mut st.sessions(), std::mem::take(&mut flight.sessions), pause_id, call, &marker, now)?;
    let (file, line, function) = (
        stop.file.clone().unwrap_or_default(),
        stop.line.unwrap_or(0),
        stop.function.clone().unwrap_or_else(|| call.method_name.clone()),
    );
    if let Some(waiter) = flight.waiter.take() {
        let _ = waiter.send(StepReply::Stopped {
            pause_id: pause_id.to_string(),
            previous_pause_id: previous.to_string(),
            file: file.clone(),
            line,
            function: function.clone(),
            session_id: moved.first().cloned(),
            session_ids: moved.clone(),
            how: stop.how.clone(),
        });
    }
    events.push(LiveEvent::StepStopped {
        pause_id: pause_id.to_string(),
        previous_pause_id: previous.to_string(),
        reason: "step".into(),
        file,
        line,
        function,
        session_ids: moved,
        process_key: call.process_key.clone(),
    });
    Ok(events)
}
