//! REPL sessions on paused calls and the evals that run in them: queued for the paused
//! program, answered, and recorded (one commit per answered eval).

use crate::calls::CallData;
use crate::cid_store::{SerializationFormat, VerifiedObject};
use crate::error::{Error, Result};
use crate::eval::{EvalRequest, EvalResult, PendingEval, Reply, RequestKind};
use crate::ids;
use crate::model::FrameIndex;
use crate::model::{EvalOutcome, EventKind, LiveEvent, ReplSession, TranscriptEntry};
use crate::store::Store;
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::host::Stored;
use crate::pauses::state::PauseState;
use crate::sessions::helpers;
use crate::sessions::state::{SessionHost, SessionParts, SessionState};
use crate::sessions::store::AnsweredEval;

/// A door's call on a pause or a session another server holds, sent to that server to run (`cluster`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum SessionCall {
    StartSession { pause_id: String },
    Eval { session_id: String, expr: String, frame: Option<FrameIndex> },
    CloseSession { session_id: String },
}

crate::host::service!(
    /// REPL sessions, their evals and the REPL's helper requests: what the doors reach as `debugger.sessions()`.
    SessionService
);

impl<H: SessionHost> SessionService<'_, H> {
    pub fn start_session(&self, pause_id: &str) -> Result<String> {
        if pause_id.trim().is_empty() {
            return Err(Error::MissingField { code: "missing_pause_id", field: "pause_id" });
        }
        if let Some(holder) = self.debugger.pause_held_elsewhere(pause_id)? {
            let request = SessionCall::StartSession { pause_id: pause_id.to_string() };
            return self.debugger.ask_session_holder_now(&holder, request);
        }
        let now = ids::now();
        let mut guard = self.debugger.state();
        let st = guard.session_parts();
        let Some(pause) = st.pauses.get(pause_id) else {
            // Resumed pauses are only in the store.
            return Err(match st.store.pause(pause_id)? {
                Some(_) => Error::PauseResumed(pause_id.to_string()),
                None => Error::PauseNotFound(pause_id.to_string()),
            });
        };
        let call = &pause.record.call;
        let session = ReplSession {
            session_id: String::new(),
            pause_id: pause_id.to_string(),
            pid: call.process_pid,
            started_at: now,
            closed_at: None,
            closed_reason: None,
            function_name: call.method_name.clone(),
            call_id: Some(call.call_id.clone()),
            process_key: call.process_key.clone(),
            args: call.args.iter().map(|a| serde_json::to_value(a).unwrap_or(Value::Null)).collect(),
            kwargs: call
                .kwargs
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
                .collect(),
            pretty_args: call.pretty_args.clone(),
            pretty_kwargs: call.pretty_kwargs.clone().into_iter().collect(),
            signature: call.signature.clone(),
            transcript: vec![],
            language: call.language,
        };
        let call_id = call.call_id.clone();
        let (process_key, function_name) = (call.process_key.clone(), call.method_name.clone());
        let store = st.store;
        let session_id = st.sessions.insert(session, |id| store.has_session(id))?;
        if let Some(session) = st.sessions.get(&session_id) {
            st.store.put_session(session)?;
        }
        st.store.update_record(&call_id, |record| record.repl_sessions.push(session_id.clone()))?;
        st.store.log(
            now,
            EventKind::SessionStart,
            &process_key,
            Some(&session_id),
            json!({"session_id": session_id, "pause_id": pause_id, "call_id": call_id, "function_name": function_name}),
        )?;
        drop(guard);
        self.debugger
            .publish(LiveEvent::SessionStarted { session_id: session_id.clone(), pause_id: pause_id.to_string() });
        Ok(session_id)
    }

    /// pdb's up/down: the frame this session's evals, completion and variables run in from now
    /// on (0 = innermost), until it is changed or the session follows a step.
    pub fn select_frame(&self, session_id: &str, frame: FrameIndex) -> Result<()> {
        let mut st = self.debugger.state();
        let pause_id = st.open_session(session_id)?.pause_id.clone();
        let frame = checked_frame(&*st, &pause_id, frame.get())?;
        st.session_parts().sessions.select_frame(session_id, frame);
        Ok(())
    }

    /// A session with its transcript, open or closed.
    pub fn session(&self, session_id: &str) -> Result<Option<ReplSession>> {
        self.debugger.state().session(session_id)
    }

    /// The sessions of a pause, oldest first.
    pub fn sessions_for_pause(&self, pause_id: &str) -> Result<Vec<String>> {
        let links = self.debugger.state().store().sessions_of_pause(pause_id)?;
        Ok(links.into_iter().map(|link| link.session_id).collect())
    }

    /// The sessions of a call, oldest first.
    pub fn sessions_for_call(&self, call_id: &str) -> Result<Vec<String>> {
        let links = self.debugger.state().store().sessions_of_call(call_id)?;
        Ok(links.into_iter().map(|link| link.session_id).collect())
    }

    /// Closes a session (idempotent); its waiting evals answer "session closed".
    pub fn close_session(&self, session_id: &str) -> Result<()> {
        if let Some(holder) = self.debugger.session_held_elsewhere(session_id)? {
            let request = SessionCall::CloseSession { session_id: session_id.to_string() };
            return self.debugger.ask_session_holder_now(&holder, request);
        }
        let now = ids::now();
        let mut st = self.debugger.state();
        match st.open_session(session_id) {
            Ok(_) => {}
            Err(Error::SessionClosed(_)) => return Ok(()),
            Err(e) => return Err(e),
        }
        let pause_id = st.sessions().get(session_id).map(|s| s.pause_id.clone()).unwrap_or_default();
        let process_key = st.session_process_key(session_id)?;
        let parts = st.session_parts();
        let cancelled = parts.pauses.get_mut(&pause_id).map(|pause| {
            pause.wake.notify_waiters();
            pause.evals.cancel_session(session_id)
        });
        parts.store.log_unanswered(&process_key, cancelled.into_iter().flatten())?;
        close_one_session(&mut st.session_parts(), session_id, now, None)?;
        drop(st);
        self.debugger.publish(LiveEvent::SessionClosed { session_id: session_id.to_string(), closed_at: now });
        Ok(())
    }

    /// Runs `expr` in the paused program and waits for its answer, which is also appended to
    /// the transcript.
    pub async fn eval(self, session_id: &str, expr: &str) -> Result<EvalOutcome> {
        self.eval_in_frame(session_id, expr, None).await
    }

    /// [`Debugger::eval`] in a frame of the pause's stack (0 = innermost); without one, in the
    /// session's selected frame ([`Debugger::select_frame`]).
    pub async fn eval_in_frame(self, session_id: &str, expr: &str, frame: Option<FrameIndex>) -> Result<EvalOutcome> {
        if expr.trim().is_empty() {
            return Err(Error::MissingField { code: "missing_expr", field: "expr" });
        }
        if let Some(holder) = self.debugger.session_held_elsewhere(session_id)? {
            let request = SessionCall::Eval { session_id: session_id.to_string(), expr: expr.to_string(), frame };
            return self.debugger.ask_session_holder(&holder, request).await;
        }
        let (reply, answer) = oneshot::channel();
        let eval_id = ids::new_uuid();
        let pause_id = {
            let mut st = self.debugger.state();
            let (pause_id, frame) = session_target(&*st, session_id, frame)?;
            if st.is_stepping(&pause_id) {
                return Err(Error::conflict(
                    "program_running",
                    "the program is running a step: evaluate once it stops (a step_stopped live event)",
                ));
            }
            if !st.pauses().get(&pause_id).ok_or(Error::InvalidPause)?.is_paused() {
                return Err(Error::SessionClosed(session_id.to_string()));
            }
            let pause = st.pause_parts().pauses.get_mut(&pause_id).ok_or(Error::InvalidPause)?;
            let request = EvalRequest {
                eval_id: eval_id.clone(),
                session_id: session_id.to_string(),
                pause_id: pause_id.clone(),
                expr: expr.to_string(),
                timeout_s: self.debugger.eval_timeout().as_secs_f64(),
                kind: RequestKind::Eval,
                args: None,
                frame,
            };
            pause.evals.push(PendingEval { request, reply: Reply::Transcript(reply), requested_at: ids::now() });
            pause.wake.notify_waiters();
            pause_id
        };
        match tokio::time::timeout(self.debugger.eval_timeout(), answer).await {
            Ok(Ok(Ok(entry))) => Ok(EvalOutcome::from(&entry)),
            Ok(Ok(Err(refused))) => Err(refused),
            Ok(Err(_closed)) => Err(Error::SessionClosed(session_id.to_string())),
            Err(_elapsed) => {
                let mut st = self.debugger.state();
                let process_key = st.session_process_key(session_id)?;
                let parts = st.pause_parts();
                let unanswered = parts.pauses.get_mut(&pause_id).and_then(|pause| {
                    pause.wake.notify_waiters();
                    pause.evals.give_up(&eval_id)
                });
                parts.store.log_unanswered(&process_key, unanswered.into_iter())?;
                Err(Error::EvalTimeout(self.debugger.eval_timeout().as_secs()))
            }
        }
    }

    /// `poll-repl`: the next eval for the paused client, if one is ready.
    pub fn next_eval(&self, pause_id: &str) -> Option<EvalRequest> {
        self.debugger.state().pause_parts().pauses.get_mut(pause_id)?.evals.take_next()
    }

    /// The client's answer to an eval: appended to the transcript and handed to the waiter.
    /// A `loop_blocked` refusal is handed to the waiter as a 409 and not recorded.
    pub fn submit_eval_result(&self, result: EvalResult) -> Result<()> {
        let (Some(eval_id), Some(session_id), Some(pause_id)) =
            (result.eval_id.as_deref(), result.session_id.as_deref(), result.pause_id.as_deref())
        else {
            return Err(Error::MissingField { code: "missing_fields", field: "eval_id, session_id and pause_id" });
        };
        let now = ids::now();
        let mut guard = self.debugger.state();
        if session_id.starts_with(helpers::UNRECORDED_SESSION_PREFIX) {
            // A condition check: answered to its waiter only, if it is one.
            let pauses = guard.pause_parts().pauses;
            let pause = pauses.get_mut(pause_id).ok_or_else(|| Error::EvalNotFound(eval_id.to_string()))?;
            let pending = pause.evals.finish(eval_id);
            pause.wake.notify_waiters();
            drop(guard);
            return match pending.map(|p| p.reply) {
                Some(Reply::Raw(raw)) => {
                    let _ = raw.send(result);
                    Ok(())
                }
                _ => Err(Error::EvalNotFound(eval_id.to_string())),
            };
        }
        if let Err(closed) = guard.open_session(session_id).map(|_| ()) {
            // Nobody waits for this answer any more, but the client is done with the eval and
            // may take the next one.
            if let Some(pause) = guard.pause_parts().pauses.get_mut(pause_id) {
                pause.evals.finish(eval_id);
                pause.wake.notify_waiters();
            }
            return Err(closed);
        }
        let process_key = guard.session_process_key(session_id)?;
        let st = guard.session_parts();
        let new_object = match (&result.result_cid, &result.result_data) {
            (Some(cid), Some(data)) => {
                Some(VerifiedObject::from_pair(cid, data, result.result_serialization_format.as_deref(), now)?)
            }
            _ => None,
        };
        let pause = st.pauses.get_mut(pause_id).ok_or_else(|| Error::EvalNotFound(eval_id.to_string()))?;
        let Some(peeked) = pause.evals.peek(eval_id) else {
            // The server gave up on it: the client is free to take the next one now.
            pause.evals.finish(eval_id);
            pause.wake.notify_waiters();
            return Err(Error::EvalNotFound(eval_id.to_string()));
        };
        if matches!(peeked.reply, Reply::Raw(_)) {
            // A helper request (completion, variables): its waiter reads the answer; nothing is
            // recorded.
            let pending = pause.evals.finish(eval_id);
            pause.wake.notify_waiters();
            drop(guard);
            if let Some(PendingEval { reply: Reply::Raw(raw), .. }) = pending {
                let _ = raw.send(result);
            }
            return Ok(());
        }
        if result.refused.as_deref() == Some(crate::error::LOOP_BLOCKED) {
            // Not run (issue 51): the eval awaits and its loop's thread is the one paused. Its
            // caller is answered 409 with why; the transcript is left as it was.
            let pending = pause.evals.finish(eval_id);
            pause.wake.notify_waiters();
            drop(guard);
            if let Some(PendingEval { reply: Reply::Transcript(reply), .. }) = pending {
                let why = result.error.unwrap_or_default();
                let why = why.strip_prefix("loop_blocked: ").unwrap_or(&why).to_string();
                let _ = reply.send(Err(Error::conflict(crate::error::LOOP_BLOCKED, why)));
            }
            return Ok(());
        }
        let (request, requested_at) = (peeked.request.clone(), peeked.requested_at);
        let is_error = result.error.is_some();
        let output = match (result.error, result.result) {
            (Some(error), _) => error,
            (None, Some(repr)) => repr,
            // A JS client sends the value as JSON text and no repr: the text is its display.
            (None, None) => match (&new_object, &result.result_data) {
                (Some(object), Some(data)) if object.object.format == SerializationFormat::Json => data.clone(),
                _ => String::new(),
            },
        };
        // The value rules again (issue 50), whoever the client is: a cideldill client's answer
        // is redacted only here. Redacted text means the pickled value held the secret too: it
        // is not kept.
        let policy = self.debugger.policy();
        let (output, hidden) = policy.redact_text(&output);
        let stdout = policy.redact_text(&result.stdout.unwrap_or_default()).0;
        let (result_cid, new_object) =
            if hidden > 0 || is_error { (None, None) } else { (result.result_cid, new_object) };
        let mut entry =
            st.sessions.next_entry(session_id, request.expr.clone(), output, stdout, is_error, result_cid, now)?;
        entry.outputs = crate::outputs::checked(result.outputs.unwrap_or_default());
        for output in &mut entry.outputs {
            output.redact(policy);
            output.link_table(session_id);
        }
        // Durable before the browser hears of it, in one commit. Until it is, the eval stays
        // where it was: a failed store is an error the client retries (it is handed the eval
        // again and answers from its record), never a waiter dropped as "session closed".
        persist_answer(st.store, &process_key, &request, requested_at, new_object.as_ref(), &entry, now)?;
        st.sessions.push(session_id, entry.clone());
        let pending = st.pauses.get_mut(pause_id).and_then(|pause| {
            pause.wake.notify_waiters();
            pause.evals.finish(eval_id)
        });
        drop(guard);
        if let Some(PendingEval { reply: Reply::Transcript(reply), .. }) = pending {
            let _ = reply.send(Ok(entry.clone()));
        }
        self.debugger.publish(LiveEvent::TranscriptAppended { session_id: session_id.to_string(), entry });
        Ok(())
    }

    /// Appends an entry directly (used by tests and tools that replay transcripts).
    pub fn append_transcript(
        &self,
        session_id: &str,
        input: &str,
        output: &str,
        stdout: &str,
        is_error: bool,
        result_cid: Option<String>,
    ) -> Result<TranscriptEntry> {
        let now = ids::now();
        let mut guard = self.debugger.state();
        let process_key = guard.session_process_key(session_id)?;
        guard.open_session(session_id)?;
        let st = guard.session_parts();
        let entry = st.sessions.next_entry(
            session_id,
            input.to_string(),
            output.to_string(),
            stdout.to_string(),
            is_error,
            result_cid,
            now,
        )?;
        st.store.atomically(|store| persist_entry(store, &process_key, session_id, "", &entry, now))?;
        st.sessions.push(session_id, entry.clone());
        drop(guard);
        self.debugger
            .publish(LiveEvent::TranscriptAppended { session_id: session_id.to_string(), entry: entry.clone() });
        Ok(entry)
    }
}

/// `frame` when the pause's stack has it.
/// An open session's pause, and the frame a request to it runs in: the one asked for (checked
/// against the pause's stack), else the session's selected frame.
pub(crate) fn session_target<S: SessionState + ?Sized>(
    st: &S,
    session_id: &str,
    frame: Option<FrameIndex>,
) -> Result<(String, Option<FrameIndex>)> {
    let pause_id = st.open_session(session_id)?.pause_id.clone();
    let frame = match frame {
        Some(frame) => Some(checked_frame(st, &pause_id, frame.get())?),
        None => st.sessions().frame_of(session_id),
    };
    Ok((pause_id, frame.map(FrameIndex)))
}

pub(crate) fn checked_frame<S: PauseState + ?Sized>(st: &S, pause_id: &str, frame: usize) -> Result<usize> {
    let record = st.pause_record(pause_id)?.ok_or_else(|| Error::PauseNotFound(pause_id.to_string()))?;
    let count = record.call.stack_views().len().max(1);
    if frame >= count {
        return Err(Error::invalid(
            "invalid_frame",
            format!("no frame {frame}: the pause's stack has {count} (0 = innermost)"),
        ));
    }
    Ok(frame)
}

/// Closes and records one open session (it leaves memory); false when it was not open.
pub(crate) fn close_one_session(
    st: &mut SessionParts<'_>,
    session_id: &str,
    now: f64,
    reason: Option<&str>,
) -> Result<bool> {
    let Some(open) = st.sessions.get(session_id) else {
        return Ok(false);
    };
    let mut closed = open.clone();
    closed.closed_at = Some(now);
    closed.closed_reason = reason.map(str::to_string);
    // Stored (header and search text) before it leaves memory, so it is never in neither.
    st.store.put_closed_session(&closed)?;
    st.sessions.close(session_id, now, reason);
    st.store.log(
        now,
        EventKind::SessionClose,
        &closed.process_key,
        Some(session_id),
        json!({"session_id": session_id, "reason": reason}),
    )?;
    Ok(true)
}

/// A transcript entry and its event.
pub(crate) fn persist_entry(
    store: &Store,
    process_key: &str,
    session_id: &str,
    eval_id: &str,
    entry: &TranscriptEntry,
    now: f64,
) -> Result<()> {
    store.append_entry(session_id, entry)?;
    let event = result_event(eval_id, entry);
    store.append_event(now, EventKind::EvalResult, Some(process_key), Some(session_id), &event).map(|_| ())
}

/// The `eval_result` event of a transcript entry.
fn result_event(eval_id: &str, entry: &TranscriptEntry) -> Value {
    json!({
        "eval_id": eval_id, "index": entry.index, "input": entry.input, "output": entry.output,
        "stdout": entry.stdout, "is_error": entry.is_error, "result_cid": entry.result_cid,
    })
}

/// Everything an answered eval leaves behind, in one commit: its request, the value it
/// returned (if new), the transcript entry and its event.
pub(crate) fn persist_answer(
    store: &Store,
    process_key: &str,
    request: &EvalRequest,
    requested_at: f64,
    new_object: Option<&VerifiedObject>,
    entry: &TranscriptEntry,
    now: f64,
) -> Result<()> {
    store.put_answered_eval(&AnsweredEval {
        process_key,
        session_id: &request.session_id,
        requested_at,
        request_event: &request.event(),
        new_object,
        entry,
        answered_at: now,
        result_event: &result_event(&request.eval_id, entry),
    })
}

/// Moves REPL sessions to the pause `pause_id` of `call` (a step's stop, or the pause a step back
/// woke), each transcript marked with `marker`. Returns the live events and the sessions moved.
pub(crate) fn follow(
    st: &mut SessionParts<'_>,
    sessions: Vec<String>,
    pause_id: &str,
    call: &CallData,
    marker: &str,
    now: f64,
) -> Result<(Vec<LiveEvent>, Vec<String>)> {
    let mut events = vec![];
    let mut moved = vec![];
    for session_id in sessions {
        if !st.sessions.move_to_pause(&session_id, pause_id, &call.call_id, &call.method_name) {
            continue;
        }
        if let Some(session) = st.sessions.get(&session_id) {
            st.store.put_session(session)?;
        }
        st.store.update_record(&call.call_id, |record| record.repl_sessions.push(session_id.clone()))?;
        let entry =
            st.sessions.next_entry(&session_id, String::new(), marker.to_string(), String::new(), false, None, now)?;
        st.store.atomically(|store| persist_entry(store, &call.process_key, &session_id, "", &entry, now))?;
        st.sessions.push(&session_id, entry.clone());
        events.push(LiveEvent::TranscriptAppended { session_id: session_id.clone(), entry });
        moved.push(session_id);
    }
    Ok((events, moved))
}
