//! REPL sessions on paused calls and the evals that run in them: queued for the paused
//! program, answered, and recorded (one commit per answered eval).

use super::*;

impl Debugger {
    pub fn start_session(&self, pause_id: &str) -> Result<String> {
        if pause_id.trim().is_empty() {
            return Err(Error::MissingField { code: "missing_pause_id", field: "pause_id" });
        }
        let now = ids::now();
        let mut st = self.state();
        let pause = st.pauses.get(pause_id).ok_or_else(|| Error::PauseNotFound(pause_id.to_string()))?;
        if !pause.is_paused() {
            return Err(Error::PauseResumed(pause_id.to_string()));
        }
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
        };
        let call_id = call.call_id.clone();
        let (process_key, function_name) = (call.process_key.clone(), call.method_name.clone());
        let session_id = st.sessions.insert(session);
        if let Some(record) = st.records.get_mut(&call_id) {
            record.repl_sessions.push(session_id.clone());
        }
        st.save_session(&session_id)?;
        st.save_call(&call_id)?;
        st.log(
            now,
            EventKind::SessionStart,
            &process_key,
            Some(&session_id),
            json!({"session_id": session_id, "pause_id": pause_id, "call_id": call_id, "function_name": function_name}),
        )?;
        drop(st);
        self.publish(LiveEvent::SessionStarted { session_id: session_id.clone(), pause_id: pause_id.to_string() });
        Ok(session_id)
    }

    pub fn session(&self, session_id: &str) -> Option<ReplSession> {
        self.state().sessions.get(session_id).cloned()
    }

    pub fn list_sessions(&self, query: &SessionQuery) -> SessionPage<ReplSession> {
        self.state().sessions.list(query)
    }

    pub fn sessions_for_pause(&self, pause_id: &str) -> Vec<String> {
        self.state().sessions.for_pause(pause_id)
    }

    pub fn sessions_for_call(&self, call_id: &str) -> Vec<String> {
        self.state().sessions.for_call(call_id)
    }

    /// Closes a session (idempotent); its waiting evals answer "session closed".
    pub fn close_session(&self, session_id: &str) -> Result<()> {
        let now = ids::now();
        let mut st = self.state();
        match st.sessions.open_mut(session_id) {
            Ok(_) => {}
            Err(Error::SessionClosed(_)) => return Ok(()),
            Err(e) => return Err(e),
        }
        let pause_id = st.sessions.get(session_id).map(|s| s.pause_id.clone()).unwrap_or_default();
        let cancelled = st.pauses.get_mut(&pause_id).map(|pause| {
            pause.wake.notify_waiters();
            pause.evals.cancel_session(session_id)
        });
        st.log_unanswered(cancelled.into_iter().flatten())?;
        close_one_session(&mut st, session_id, now, None)?;
        drop(st);
        self.publish(LiveEvent::SessionClosed { session_id: session_id.to_string(), closed_at: now });
        Ok(())
    }

    /// Runs `expr` in the paused program and waits for its answer, which is also appended to
    /// the transcript.
    pub async fn eval(&self, session_id: &str, expr: &str) -> Result<EvalOutcome> {
        if expr.trim().is_empty() {
            return Err(Error::MissingField { code: "missing_expr", field: "expr" });
        }
        let (reply, answer) = oneshot::channel();
        let eval_id = ids::new_uuid();
        let pause_id = {
            let mut st = self.state();
            let session = st.sessions.open_mut(session_id)?;
            let pause_id = session.pause_id.clone();
            if !st.pauses.get(&pause_id).ok_or(Error::InvalidPause)?.is_paused() {
                return Err(Error::SessionClosed(session_id.to_string()));
            }
            let pause = st.pauses.get_mut(&pause_id).ok_or(Error::InvalidPause)?;
            let request = EvalRequest {
                eval_id: eval_id.clone(),
                session_id: session_id.to_string(),
                pause_id: pause_id.clone(),
                expr: expr.to_string(),
                timeout_s: self.inner.config.eval_timeout.as_secs_f64(),
            };
            pause.evals.push(PendingEval { request, reply, requested_at: ids::now() });
            pause.wake.notify_waiters();
            pause_id
        };
        match tokio::time::timeout(self.inner.config.eval_timeout, answer).await {
            Ok(Ok(entry)) => Ok(EvalOutcome::from(&entry)),
            Ok(Err(_closed)) => Err(Error::SessionClosed(session_id.to_string())),
            Err(_elapsed) => {
                let mut st = self.state();
                let unanswered = st.pauses.get_mut(&pause_id).and_then(|pause| {
                    pause.wake.notify_waiters();
                    pause.evals.give_up(&eval_id)
                });
                st.log_unanswered(unanswered.into_iter())?;
                Err(Error::EvalTimeout(self.inner.config.eval_timeout.as_secs()))
            }
        }
    }

    /// `poll-repl`: the next eval for the paused client, if one is ready.
    pub fn next_eval(&self, pause_id: &str) -> Option<EvalRequest> {
        self.state().pauses.get_mut(pause_id)?.evals.take_next()
    }

    /// The client's answer to an eval: appended to the transcript and handed to the waiter.
    pub fn submit_eval_result(&self, result: EvalResult) -> Result<()> {
        let (Some(eval_id), Some(session_id), Some(pause_id)) =
            (result.eval_id.as_deref(), result.session_id.as_deref(), result.pause_id.as_deref())
        else {
            return Err(Error::MissingField { code: "missing_fields", field: "eval_id, session_id and pause_id" });
        };
        let now = ids::now();
        let mut st = self.state();
        if let Err(closed) = st.sessions.open_mut(session_id) {
            // Nobody waits for this answer any more, but the client is done with the eval and
            // may take the next one.
            if let Some(pause) = st.pauses.get_mut(pause_id) {
                pause.evals.finish(eval_id);
                pause.wake.notify_waiters();
            }
            return Err(closed);
        }
        let new_object = match (&result.result_cid, &result.result_data) {
            (Some(cid), Some(data)) => st.cids.store_pair(cid, data, None, now)?,
            _ => None,
        };
        let pause = st.pauses.get_mut(pause_id).ok_or_else(|| Error::EvalNotFound(eval_id.to_string()))?;
        let pending = pause.evals.finish(eval_id);
        // Also when the server gave up on it: the client is free to take the next one now.
        pause.wake.notify_waiters();
        let pending = pending.ok_or_else(|| Error::EvalNotFound(eval_id.to_string()))?;
        let is_error = result.error.is_some();
        let output = match (result.error, result.result) {
            (Some(error), _) => error,
            (None, Some(repr)) => repr,
            (None, None) => String::new(),
        };
        let entry = st.sessions.append(
            session_id,
            pending.request.expr.clone(),
            output,
            result.stdout.unwrap_or_default(),
            is_error,
            if is_error { None } else { result.result_cid },
            now,
        )?;
        // Durable before the browser hears of it, in one commit.
        persist_answer(&st, &pending, new_object.as_deref(), &entry, now)?;
        drop(st);
        let _ = pending.reply.send(entry.clone());
        self.publish(LiveEvent::TranscriptAppended { session_id: session_id.to_string(), entry });
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
        let mut st = self.state();
        let entry = st.sessions.append(
            session_id,
            input.to_string(),
            output.to_string(),
            stdout.to_string(),
            is_error,
            result_cid,
            now,
        )?;
        st.store.atomically(|store| {
            persist_entry(store, &st.session_process_key(session_id), session_id, "", &entry, now)
        })?;
        drop(st);
        self.publish(LiveEvent::TranscriptAppended { session_id: session_id.to_string(), entry: entry.clone() });
        Ok(entry)
    }
}

/// Closes and records one session; false when it was already closed.
pub(super) fn close_one_session(st: &mut State, session_id: &str, now: f64, reason: Option<&str>) -> Result<bool> {
    if !st.sessions.close(session_id, now)? {
        return Ok(false);
    }
    if let Some(reason) = reason {
        st.sessions.set_closed_reason(session_id, reason);
    }
    st.save_session(session_id)?;
    let process_key = st.session_process_key(session_id);
    st.log(
        now,
        EventKind::SessionClose,
        &process_key,
        Some(session_id),
        json!({"session_id": session_id, "reason": reason}),
    )?;
    Ok(true)
}

/// A transcript entry and its event.
pub(super) fn persist_entry(
    store: &Store,
    process_key: &str,
    session_id: &str,
    eval_id: &str,
    entry: &TranscriptEntry,
    now: f64,
) -> Result<()> {
    let event = json!({
        "eval_id": eval_id, "index": entry.index, "input": entry.input, "output": entry.output,
        "stdout": entry.stdout, "is_error": entry.is_error, "result_cid": entry.result_cid,
    });
    store.append_entry(session_id, entry)?;
    store.append_event(now, EventKind::EvalResult, Some(process_key), Some(session_id), &event).map(|_| ())
}

/// Everything an answered eval leaves behind, in one commit: its request, the value it
/// returned (if new), the transcript entry and its event.
pub(super) fn persist_answer(
    st: &State,
    pending: &PendingEval,
    new_object: Option<&str>,
    entry: &TranscriptEntry,
    now: f64,
) -> Result<()> {
    let request = &pending.request;
    let process_key = st.session_process_key(&request.session_id);
    st.store.atomically(|store| {
        store.append_event(
            pending.requested_at,
            EventKind::EvalRequest,
            Some(&process_key),
            Some(&request.session_id),
            &request_event(request),
        )?;
        if let Some((cid, obj)) = new_object.and_then(|cid| st.cids.get(cid).map(|obj| (cid, obj))) {
            store.put_object(cid, obj)?;
        }
        persist_entry(store, &process_key, &request.session_id, &request.eval_id, entry, now)
    })
}

pub(super) fn request_event(request: &EvalRequest) -> Value {
    json!({"eval_id": request.eval_id, "expr": request.expr})
}
