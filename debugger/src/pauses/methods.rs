//! Paused calls: the client's long-poll, resuming, and what closing a pause closes.

use crate::calls::{Action, CallData};
use crate::error::{Error, Result};
use crate::eval::{EvalRequest, EvalResult};
use crate::ids;
use crate::model::{EventKind, LiveEvent, PauseReason};
use crate::pauses::{Pause, ResumeRequest};
use serde::Serialize;
use serde_json::json;

use super::state::{PauseHost, PauseParts, PauseState};
use crate::host::Stored;

/// A door's call on a pause another server holds, sent to that server to run (`cluster`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum PauseCall {
    Resume { pause_id: String, request: ResumeRequest },
}

/// The answer to a client's poll.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum PollReply {
    Waiting {
        /// Only when the client asked to take evals with its poll (Breakroom's own client).
        #[serde(skip_serializing_if = "Option::is_none")]
        eval: Option<EvalRequest>,
        /// With evals: the pause's open REPL sessions, so the client can drop the namespaces
        /// of closed ones. The poll also returns early when this changes.
        #[serde(skip_serializing_if = "Option::is_none")]
        sessions: Option<Vec<String>>,
        /// Time travel: snapshot now, answering `POST /api/checkpoints` with this token (a
        /// named checkpoint asked for while the call is paused).
        #[serde(skip_serializing_if = "Option::is_none")]
        checkpoint: Option<String>,
    },
    /// Breakroom's client: this server does not hold the pause (it restarted, or it is another
    /// server): report the call again.
    Unknown,
    /// Breakroom's client: the server is shutting down. Wait and reconnect: the next server
    /// gets the pause back.
    Stopping,
    Ready {
        action: Action,
        /// Breakroom's client: the breakpoints' version as the pause ends. A client that has
        /// not seen it yet catches up before running on, so a breakpoint removed just before a
        /// Continue does not stop the program once more.
        #[serde(skip_serializing_if = "Option::is_none")]
        breakpoints_version: Option<u64>,
    },
}

/// What a Continue did ([`Debugger::continue_pause`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continued {
    Resumed,
    /// The pause had been resumed before: nothing changed.
    AlreadyResumed,
}

crate::host::service!(
    /// Paused calls, the client's held poll and resuming: what the doors reach as `debugger.pauses()`.
    PauseService
);

/// A poll of Breakroom's client held at a pause, for as long as it is held (also when the
/// request is dropped): what tells a checkpoint request whether anyone will take it.
struct HeldPoll<'a, H: PauseHost> {
    debugger: &'a H,
    pause_id: &'a str,
}

impl<H: PauseHost> PauseService<'_, H> {
    /// Process keys with a call paused now (the ones lists show).
    pub(crate) fn paused_keys(&self) -> std::collections::HashSet<String> {
        let st = self.debugger.state();
        st.pauses().in_order().filter(|p| p.is_shown()).map(|p| p.record.call.process_key.clone()).collect()
    }
}

impl<'a, H: PauseHost> HeldPoll<'a, H> {
    fn begin(debugger: &'a H, pause_id: &'a str) -> Self {
        if let Some(pause) = debugger.state().pause_parts().pauses.get_mut(pause_id) {
            pause.poll_began();
        }
        HeldPoll { debugger, pause_id }
    }
}

impl<H: PauseHost> Drop for HeldPoll<'_, H> {
    fn drop(&mut self) {
        if let Some(pause) = self.debugger.state().pause_parts().pauses.get_mut(self.pause_id) {
            pause.poll_ended();
        }
    }
}

impl<H: PauseHost> PauseService<'_, H> {
    fn version_for(&self, take_eval: bool) -> Option<u64> {
        take_eval.then(|| *self.debugger.breakpoint_version().borrow())
    }

    /// Waits (up to the configured hold) until the pause is resumed or an eval is ready for
    /// the client (taken with the poll when `take_eval`, Breakroom's client; announced as
    /// `waiting` for a cideldill client, which then takes it with `poll-repl`).
    ///
    /// The client never waits between polls (`poll_interval_ms: 0`), so this hold is what keeps
    /// an idle paused client from spinning: every answer that is not `ready` must be earned by
    /// something the client can act on. Breakroom's client is told at once of a pause this
    /// server does not hold (`unknown`: it tells the pause again) and of a shutdown
    /// (`stopping`: it waits for the next server); a cideldill client, which would die on
    /// either, is held and answered `waiting`.
    pub async fn poll(self, pause_id: &str, take_eval: bool) -> PollReply {
        let _held = take_eval.then(|| HeldPoll::begin(self.debugger, pause_id));
        let deadline = tokio::time::Instant::now() + self.debugger.poll_hold();
        let unknown = || PollReply::Waiting { eval: None, sessions: take_eval.then(Vec::new), checkpoint: None };
        let mut seen_sessions = None;
        let mut stopping = self.debugger.stopping();
        loop {
            if *stopping.borrow_and_update() {
                return if take_eval { PollReply::Stopping } else { unknown() };
            }
            let live = self.debugger.state().pauses().get(pause_id).map(|p| p.wake.clone());
            let Some(wake) = live else {
                // A resumed pause is only in the store: its client is told the action again. (A
                // store that cannot be read is a pause not known: the client polls again.)
                let stored = self.debugger.state().store().pause(pause_id);
                if let Ok(Some(record)) = stored {
                    // Closed because the server restarted: Breakroom's client tells it again.
                    // Or by a server that woke after its lease ran out (its programs moved on).
                    let lost = matches!(
                        record.resumed_reason.as_deref(),
                        Some(super::RESTART_REASON | super::LEASE_LOST_REASON)
                    );
                    if take_eval && lost {
                        return PollReply::Unknown;
                    }
                    if let Some(action) = record.resume {
                        return PollReply::Ready { action, breakpoints_version: self.version_for(take_eval) };
                    }
                }
                if take_eval {
                    return PollReply::Unknown;
                }
                // A cideldill client would die on an error: it is held, and polls again.
                tokio::time::sleep_until(deadline).await;
                return unknown();
            };
            // Registered before the state is read, so a wake-up in between is not lost.
            let notified = wake.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let mut wait_until = deadline;
            let sessions = {
                let mut st = self.debugger.state();
                let sessions = take_eval.then(|| st.open_sessions_of(pause_id));
                if take_eval && st.pauses().get(pause_id).is_some_and(|p| p.is_paused()) {
                    if let Some(token) = st.take_named_checkpoint(pause_id) {
                        return PollReply::Waiting { eval: None, sessions, checkpoint: Some(token) };
                    }
                }
                let Some(pause) = st.pause_parts().pauses.get_mut(pause_id) else {
                    // Resumed in between: it left memory, the next turn reads its action.
                    continue;
                };
                if let Some(action) = &pause.record.resume {
                    return PollReply::Ready {
                        action: action.clone(),
                        breakpoints_version: self.version_for(take_eval),
                    };
                }
                if take_eval {
                    if let Some(lost) = pause.evals.in_flight_request() {
                        return PollReply::Waiting { eval: Some(lost), sessions, checkpoint: None };
                    }
                }
                if pause.evals.has_ready() {
                    if take_eval {
                        return PollReply::Waiting { eval: pause.evals.take_next(), sessions, checkpoint: None };
                    }
                    // A cideldill client still running an eval the server gave up on skips
                    // `poll-repl`: announcing the next one now would only make it spin.
                    match pause.evals.client_busy_until(std::time::Instant::now()) {
                        None => return PollReply::Waiting { eval: None, sessions, checkpoint: None },
                        Some(busy) => {
                            let busy = tokio::time::Instant::from_std(busy);
                            wait_until = wait_until.min(busy);
                        }
                    }
                }
                if seen_sessions.is_some() && seen_sessions != sessions {
                    return PollReply::Waiting { eval: None, sessions, checkpoint: None };
                }
                sessions
            };
            seen_sessions = sessions;
            tokio::select! {
                woken = tokio::time::timeout_at(wait_until, notified) => {
                    if woken.is_err() && wait_until == deadline {
                        return PollReply::Waiting { eval: None, sessions: seen_sessions, checkpoint: None };
                    }
                }
                // The server is stopping: the top of the loop answers.
                _ = stopping.changed() => {}
            }
        }
    }

    /// The client's answer to an eval, carried by its next poll (Breakroom's client): one round
    /// trip per eval instead of a `repl-result` post and then a poll. The answer is recorded
    /// exactly as `repl-result` records it; an answer that is refused fails the whole request,
    /// and the client polls again without it.
    pub async fn answer_and_poll(self, pause_id: &str, mut result: EvalResult, take_eval: bool) -> Result<PollReply> {
        match result.pause_id.as_deref() {
            None => result.pause_id = Some(pause_id.to_string()),
            Some(id) if id == pause_id => {}
            Some(id) => {
                return Err(Error::Invalid("pause_mismatch", format!("the answer is for pause {id}, not {pause_id}")))
            }
        }
        self.debugger.submit_eval_result(result)?;
        Ok(self.poll(pause_id, take_eval).await)
    }

    /// Resumes a paused call; its REPL sessions close and waiting evals fail. Returns false
    /// for an unknown pause (which the protocol answers with success).
    pub fn resume(&self, pause_id: &str, request: ResumeRequest) -> Result<bool> {
        if let Some(holder) = self.debugger.pause_held_elsewhere(pause_id)? {
            let request = PauseCall::Resume { pause_id: pause_id.to_string(), request };
            return self.debugger.ask_pause_holder_now(&holder, request);
        }
        let now = ids::now();
        let mut st = self.debugger.state();
        let Some(pause) = st.pauses().get(pause_id) else {
            // Resumed pauses are only in the store.
            return match st.store().pause(pause_id)? {
                Some(_) => Err(Error::PauseResumed(pause_id.to_string())),
                None => Ok(false),
            };
        };
        let action = request.into_action(pause.is_post_completion(), pause.record.call.preferred_format)?;
        let process_key = pause.record.call.process_key.clone();
        let closed = close_pause(&mut *st, pause_id, action, now, None)?;
        drop(st);
        self.debugger.publish(LiveEvent::pause_resumed(pause_id, &process_key));
        self.publish_closed(closed);
        Ok(true)
    }

    /// Continue (or skip, raise, modify, replace) from a door: the one policy every door follows.
    /// A pause already resumed is not an error: a second click, or a client that moved on, is
    /// harmless, and every door answers it as such. A pause that never was is `PauseNotFound`
    /// (the debug-client protocol's REST door answers that with success, as the reference
    /// server does).
    pub fn continue_pause(&self, pause_id: &str, request: ResumeRequest) -> Result<Continued> {
        match self.resume(pause_id, request) {
            Ok(true) => Ok(Continued::Resumed),
            Ok(false) => Err(Error::PauseNotFound(pause_id.to_string())),
            Err(Error::PauseResumed(_)) => Ok(Continued::AlreadyResumed),
            Err(e) => Err(e),
        }
    }

    pub(crate) fn publish_closed(&self, closed: Vec<(String, f64)>) {
        for (session_id, closed_at) in closed {
            self.debugger.publish(LiveEvent::SessionClosed { session_id, closed_at });
        }
    }
}

pub(crate) fn add_pause(st: &mut PauseParts<'_>, call: CallData, reason: PauseReason, now: f64) -> Result<String> {
    let pause_id = ids::new_uuid();
    let (call_id, process_key, function_name) =
        (call.call_id.clone(), call.process_key.clone(), call.method_name.clone());
    st.store.update_record(&call_id, |record| record.pause_ids.push(pause_id.clone()))?;
    st.pauses.add(Pause::new(pause_id.clone(), call, reason, now));
    st.save_pause(&pause_id)?;
    st.store.log(
        now,
        EventKind::Pause,
        &process_key,
        None,
        json!({"pause_id": pause_id, "call_id": call_id, "function_name": function_name, "reason": reason}),
    )?;
    Ok(pause_id)
}

/// Marks a pause resumed, closes its sessions and fails their evals; the pause leaves memory
/// (the store has it). Returns the sessions closed. `reason` is set when no user resumed it (a
/// restart). A pause not live here is left as it is.
pub(crate) fn close_pause<S: PauseState + ?Sized>(
    st: &mut S,
    pause_id: &str,
    action: Action,
    now: f64,
    reason: Option<&str>,
) -> Result<Vec<(String, f64)>> {
    let mut resumed = None;
    let mut cancelled = vec![];
    let mut process_key = String::new();
    let parts = st.pause_parts();
    if let Some(pause) = parts.pauses.get_mut(pause_id) {
        process_key = pause.record.call.process_key.clone();
        if pause.record.resume.is_none() {
            pause.record.resume = Some(action.clone());
            pause.record.resumed_at = Some(now);
            pause.record.resumed_reason = reason.map(str::to_string);
            resumed = Some(pause.record.call.call_id.clone());
        }
        cancelled = pause.evals.cancel_all();
        pause.wake.notify_waiters();
    }
    parts.store.log_unanswered(&process_key, cancelled.into_iter())?;
    if let Some(call_id) = resumed {
        parts.save_pause(pause_id)?;
        parts.store.log(
            now,
            EventKind::Resume,
            &process_key,
            None,
            json!({"pause_id": pause_id, "call_id": call_id, "action": action, "reason": reason}),
        )?;
    }
    let closed = st.pause_closing(pause_id, now, reason)?;
    st.pause_parts().pauses.take(pause_id);
    Ok(closed)
}
