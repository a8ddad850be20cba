//! A debugged call from start to completion (docs/src/protocol.md §5.4–5.8), and the client's
//! diagnostic events and communication errors.

use super::CallStartReply;
use crate::breakpoints::by_name::StartDecision;
use crate::calls::{Action, CallComplete, CallData, CallRecord, CallStart, ClientEvent, ComErrorReport};
use crate::cid_store::{SerializationFormat, SerializedItem};
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{EventKind, LiveEvent, PauseReason};
use crate::pauses::methods::{add_pause, close_pause};
use crate::pauses::state::PauseState;
use crate::steps::state::StepState;
use serde_json::{json, Value};
use std::collections::HashSet;

use crate::breakpoints::state::BreakpointsState;
use crate::call_reports::state::{CallReportHost, CallReportParts, CallReportState};
use crate::checkpoints::state::CheckpointState;
use crate::host::{Ledger, Stored};
use crate::model::{CallStatus, Language};

/// How many communication errors and client events are kept (the newest; on disk).
const MAX_COM_ERRORS: usize = 500;
const MAX_EVENTS: usize = 10_000;

/// This host's name for a client that reports none (cideldill's) when it is provably here: it
/// connected over loopback and its pid is alive in this pid namespace at first contact. Its pid
/// then tells when it dies, as for our own client. (A client tunnelled in from another machine
/// also connects over loopback, but its pid is almost never alive here, so it is not judged.)
/// Pid 0 is a web page (cideldill's JS client): no process of this host.
fn local_host_of_hostless_client(req: &CallStart, pid: i64) -> Option<String> {
    (req.from_loopback && pid > 0 && crate::processes::liveness::pid_is_alive(pid))
        .then(crate::processes::liveness::hostname)
}

crate::host::service!(
    /// Calls as clients report them, and their records: what the doors reach as `debugger.calls()`.
    CallService
);

impl<H: CallReportHost> CallService<'_, H> {
    pub fn start_call(&self, mut req: CallStart) -> Result<CallStartReply> {
        crate::calls::redact::call_start(self.debugger.policy(), &mut req);
        let (pid, start_time) = ids::process_identity(&req.process_pid, &req.process_start_time)?;
        let method_name = req
            .method_name
            .clone()
            .filter(|m| !m.trim().is_empty())
            .ok_or(Error::MissingField { code: "missing_method_name", field: "method_name" })?;
        let preferred_format = preferred_format(req.preferred_format.as_deref())?;
        let retry_of = req.request_id.clone().filter(|r| !r.is_empty()).map(|r| (ids::process_key(pid, start_time), r));
        if let Some((key, request)) = &retry_of {
            if let Some(reply) = self.debugger.state().call_report_parts().start_replies.get(key, request) {
                return Ok(reply);
            }
        }
        let mut forced = forced_pause(req.pause.as_deref())?;
        let wake = req.checkpoint_wake.clone().filter(|t| !t.is_empty());
        if wake.is_some() {
            // A line woken from a checkpoint pauses again where the snapshot was taken.
            forced = forced.or(Some(PauseReason::Breakpoint));
        }
        let checkpoint_mode = req
            .checkpoints
            .as_ref()
            .filter(|v| v.is_object())
            .map(|v| v.get("refusal").and_then(Value::as_str).filter(|r| !r.is_empty()).map(str::to_string));
        let client = crate::processes::registry::ClientSeen {
            process_key: ids::process_key(pid, start_time),
            pid,
            process_id: req.process_id.clone(),
            host: req.hostname.clone().or_else(|| local_host_of_hostless_client(&req, pid)),
            argv: req.argv.clone(),
            parent_pid: req.parent_pid,
            role: req.role.as_deref().and_then(crate::processes::ProcessRole::reported),
            woken: wake.is_some(),
            ..Default::default()
        };
        // Before the pause exists, so the process is listed `paused` the moment the pause is.
        self.debugger.processes().note_client(client);
        let process_id = self.debugger.processes().registry().id_for_key(&ids::process_key(pid, start_time));
        let now = ids::now();
        let mut st = self.debugger.state();
        let mut calls = st.call_report_parts();
        calls.store_call_items(&req, now)?;
        let call_id = ids::call_id(now, calls.calls.next_seq());
        let call = call_data(calls.store, req, method_name, call_id.clone(), preferred_format, (pid, start_time))?;
        calls.record_call_start(&call, now)?;

        // Breakpoints whose condition the paused call evaluates before anyone sees the pause.
        let mut conditions = vec![];
        let mut snapshots = vec![];
        let decision = match forced {
            Some(_) => StartDecision::Pause,
            None => match st.breakpoint_parts().breakpoints.decide_start(&call.method_name) {
                // The options of the name's breakpoints say whether this call pauses.
                StartDecision::Pause => match st.breakpoint_parts().function_gate(&call, now)? {
                    Some(gate) if !gate.pause && gate.conditions.is_empty() => {
                        snapshots = gate.snapshots;
                        StartDecision::Continue
                    }
                    Some(gate) if !gate.pause => {
                        conditions = gate.conditions;
                        StartDecision::Pause
                    }
                    _ => StartDecision::Pause,
                },
                other => other,
            },
        };
        let condition_call = (!conditions.is_empty()).then(|| call.clone());
        let process_key = call.process_key.clone();
        let interrupted = call.stop.as_ref().is_some_and(|s| s.kind == crate::kinds::StopKind::Interrupt);
        let mut stepped = vec![];
        let (action, pause_id) = match decision {
            StartDecision::Continue => (Action::Continue, None),
            StartDecision::Replace(function_name) => (Action::Replace { function_name }, None),
            StartDecision::Pause => {
                let reason = forced.unwrap_or(PauseReason::Breakpoint);
                let mut paused = call.clone();
                paused.pause_reason = Some(reason.into());
                let pause_id = add_pause(&mut st.pause_parts(), paused, reason, now)?;
                if let Some(pause) = st.pause_parts().pauses.get_mut(&pause_id) {
                    pause.deciding = !conditions.is_empty();
                }
                stepped = crate::steps::methods::land(&mut st.step_parts(), &pause_id, &call, now)?;
                if let (Some(process_id), true) = (&process_id, checkpoint_mode.is_some() || wake.is_some()) {
                    let key = ids::process_key(pid, start_time);
                    let refusal = checkpoint_mode.clone().flatten();
                    st.checkpoint_parts().checkpoints.note_pause(
                        process_id,
                        &key,
                        pid,
                        &pause_id,
                        refusal,
                        wake.as_deref(),
                        now,
                    );
                }
                (Action::poll(&pause_id, call.preferred_format), Some(pause_id))
            }
        };
        let calls = st.call_report_parts();
        calls.calls.started(call, pause_id.clone());
        let reply = CallStartReply { call_id, action, snapshots };
        if let Some((key, request)) = &retry_of {
            calls.start_replies.remember(key, request, &reply);
        }
        drop(st);
        if interrupted {
            self.debugger.interrupts().answered(&process_key);
        }
        self.debugger.publish(LiveEvent::CallsChanged { process_key: process_key.clone() });
        for event in stepped {
            self.debugger.publish(event);
        }
        if let Some(pause_id) = pause_id {
            match condition_call {
                // Shown only once a condition holds (`decide_conditions`).
                Some(call) => self.debugger.sessions().check_conditions(pause_id, conditions, call),
                None => self.debugger.publish(LiveEvent::pause_added(&pause_id, &process_key)),
            }
        }
        Ok(reply)
    }

    /// Returns a post-completion pause's poll action when the call pauses again.
    pub fn complete_call(&self, mut req: CallComplete) -> Result<Option<Action>> {
        crate::calls::redact::call_complete(self.debugger.policy(), &mut req);
        let now = ids::now();
        // A bad format is refused even without data, so a client learns of it at once.
        SerializationFormat::parse(req.result_serialization_format.as_deref())?;
        SerializationFormat::parse(req.exception_serialization_format.as_deref())?;
        let mut st = self.debugger.state();
        if let (Some(cid), Some(data)) = (&req.result_cid, &req.result_data) {
            st.store().store_pair(cid, data, req.result_serialization_format.as_deref(), now)?;
        }
        if let (Some(cid), Some(data)) = (&req.exception_cid, &req.exception_data) {
            st.store().store_pair(cid, data, req.exception_serialization_format.as_deref(), now)?;
        }
        let Some(call_id) = req.call_id.as_deref() else {
            return Ok(None);
        };
        let Some((mut call, pre_pause)) = st.call_report_parts().calls.completed(call_id) else {
            // A call that started before a restart: its record still learns how it ended.
            let store = st.store();
            if store.call(call_id)?.is_some_and(|r| r.status == CallStatus::Running) {
                let (status, pretty_result, exception) = call_outcome(&req, store)?;
                store.finish_record(call_id, req.timestamp.unwrap_or(now), status, pretty_result, exception)?;
            }
            return Ok(None);
        };
        // A post-mortem pause (the client paused where an uncaught exception was raised) was
        // the error's stop already: the client decided its error breakpoints.
        let post_mortem = match &pre_pause {
            Some(pause_id) => st.pause_record(pause_id)?.is_some_and(|p| p.reason == PauseReason::Exception),
            None => false,
        };
        // A client that completes without waiting for a resume has moved on: close its REPLs.
        let mut closed = vec![];
        if let Some(pause_id) = pre_pause {
            closed = close_pause(&mut *st, &pause_id, Action::Continue, now, None)?;
        }

        let store = st.store();
        let (status, pretty_result, exception) = call_outcome(&req, store)?;
        let raised = status == CallStatus::Exception;
        store.finish_record(call_id, req.timestamp.unwrap_or(now), status, pretty_result.clone(), exception.clone())?;
        store.log(
            now,
            EventKind::CallComplete,
            &call.process_key,
            None,
            json!({
                "call_id": call_id, "function_name": call.method_name, "status": status,
                "pretty_result": pretty_result, "exception": exception,
            }),
        )?;
        call.pretty_result = pretty_result.clone().or(Some(Value::Null));
        call.exception = exception.clone();
        let method = call.method_name.clone();
        if st.breakpoint_parts().breakpoints.has(&method) {
            let mut call_data = serde_json::to_value(&call).unwrap_or(Value::Null);
            if let Some(obj) = call_data.as_object_mut() {
                obj.insert("status".into(), json!(status));
            }
            let entry =
                json!({"id": ids::new_uuid(), "function_name": method, "completed_at": now, "call_data": call_data});
            let keep = self.debugger.history_per_breakpoint();
            st.store().put_history(&method, &entry, keep)?;
        }

        let process_key = call.process_key.clone();
        let format = call.preferred_format;
        let mut pause_added = None;
        let type_name = exception.as_ref().and_then(|e| e.get("type_name")).and_then(Value::as_str).unwrap_or("");
        let error_hit = raised && !post_mortem && st.breakpoint_parts().error_gate(&call, type_name, now)?;
        if error_hit || st.breakpoint_parts().breakpoints.pauses_after(&method, raised) {
            let reason = if raised { PauseReason::Exception } else { PauseReason::After };
            call.pause_reason = Some(reason.into());
            let pause_id = add_pause(&mut st.pause_parts(), call, reason, now)?;
            pause_added = Some(pause_id);
        }
        drop(st);
        self.debugger.pauses().publish_closed(closed);
        self.debugger.publish(LiveEvent::CallsChanged { process_key: process_key.clone() });
        Ok(pause_added.map(|pause_id| {
            self.debugger.publish(LiveEvent::pause_added(&pause_id, &process_key));
            Action::poll(&pause_id, format)
        }))
    }

    /// `/api/call/event`: a diagnostic event of the client. It must name its process; values
    /// sent with it (`result_cid`/`result_data`, `exception_cid`/`exception_data`) are checked
    /// and stored before the event is kept (on disk, the newest `MAX_EVENTS`).
    pub fn record_event(&self, event: ClientEvent) -> Result<()> {
        let now = ids::now();
        let st = self.debugger.state();
        for value in event.values() {
            st.store().store_pair(value.cid, value.data, value.format, now)?;
        }
        st.store().put_client_event(now, &event, MAX_EVENTS)
    }

    /// Keeps a communication error a client reported (on disk, the newest `MAX_COM_ERRORS`).
    pub fn report_com_error(&self, report: ComErrorReport) -> Result<()> {
        let ComErrorReport(mut report) = report;
        let now = ids::now();
        report.insert("received_at".into(), json!(now));
        report.entry("timestamp").or_insert(json!(now));
        self.debugger.state().store().put_com_error(&ComErrorReport(report), MAX_COM_ERRORS)
    }

    /// The kept communication errors, oldest first.
    pub fn com_errors(&self) -> Result<Vec<Value>> {
        self.debugger.state().store().com_errors()
    }
}

/// How a call ended, as records and pages show it: (status, result text, exception).
pub(crate) fn call_outcome(req: &CallComplete, store: &Ledger) -> Result<(CallStatus, Option<Value>, Option<Value>)> {
    let raised = req.exception_cid.is_some() || !matches!(req.status.as_deref(), None | Some("success"));
    if raised {
        // cideldill's JS client names the error only in its JSON data: `{name, message, stack}`.
        let json_error = match (&req.exception_data, req.exception_serialization_format.as_deref()) {
            (Some(data), Some("json")) => serde_json::from_str::<Value>(data).ok(),
            _ => None,
        };
        let from_json = |field: &str| json_error.as_ref().and_then(|e| e.get(field)).and_then(Value::as_str);
        let type_name = req
            .exception_type
            .clone()
            .or_else(|| from_json("name").map(str::to_string))
            .unwrap_or_else(|| "Exception".into());
        let message =
            req.exception_message.clone().or_else(|| from_json("message").map(str::to_string)).unwrap_or_default();
        let exception = json!({
            "summary": format!("{type_name}: {message}"),
            "type_name": type_name,
            "message": message,
            "traceback": req.exception_traceback,
        });
        return Ok((CallStatus::Exception, None, Some(exception)));
    }
    let result = match (&req.result_repr, &req.result_cid) {
        (Some(repr), _) => Value::String(repr.clone()),
        (None, Some(cid)) => store.pretty(&SerializedItem { cid: Some(cid.clone()), ..Default::default() })?,
        (None, None) => Value::String("None".into()),
    };
    Ok((CallStatus::Success, Some(result), None))
}

impl CallReportParts<'_> {
    /// Checks and stores the serialized target and arguments of a call. A CID the client
    /// believes the server has, and the server does not, is refused with the list to resend.
    fn store_call_items(&mut self, req: &CallStart, now: f64) -> Result<()> {
        let items = || req.target.iter().chain(req.args.iter()).chain(req.kwargs.values());
        for item in items() {
            SerializationFormat::parse(item.serialization_format.as_deref())?;
        }
        // A CID sent with data anywhere in this request counts as known for the other items.
        let sent: HashSet<&str> = items().filter(|i| i.data.is_some()).filter_map(|i| i.cid.as_deref()).collect();
        let mut missing: Vec<String> = vec![];
        for item in items().filter(|i| !i.cid.as_deref().is_some_and(|c| sent.contains(c))) {
            if let (true, Some(cid)) = (self.store.is_missing(item)?, &item.cid) {
                missing.push(cid.clone());
            }
        }
        if !missing.is_empty() {
            return Err(Error::CidNotFound { missing });
        }
        for item in items() {
            self.store.store_item(item, now)?;
        }
        Ok(())
    }

    /// The call's record, its process (announced the first time it is seen) and its
    /// `call_start` event.
    fn record_call_start(&mut self, call: &CallData, now: f64) -> Result<()> {
        let call_id = &call.call_id;
        self.store.put_call(&CallRecord {
            call_id: call_id.clone(),
            method_name: call.method_name.clone(),
            process_key: call.process_key.clone(),
            started_at: now,
            completed_at: None,
            status: CallStatus::Running,
            pretty_args: call.pretty_args.clone(),
            pretty_kwargs: call.pretty_kwargs.clone(),
            pretty_result: None,
            exception: None,
            call_site: call.call_site.clone(),
            pause_ids: vec![],
            repl_sessions: vec![],
        })?;
        // Announced once per process, across restarts too.
        if self.seen_processes.insert(call.process_key.clone()) && !self.store.has_process(&call.process_key)? {
            let identity = json!({"pid": call.process_pid, "process_start_time": call.process_start_time});
            self.store.log(now, EventKind::ProcessSeen, &call.process_key, None, identity)?;
        }
        self.store.log(
            now,
            EventKind::CallStart,
            &call.process_key,
            None,
            json!({
                "call_id": call_id, "function_name": call.method_name,
                "pretty_args": call.pretty_args, "pretty_kwargs": call.pretty_kwargs,
            }),
        )
    }
}

/// What is kept of a started call, with its arguments rendered for the pages.
fn call_data(
    store: &Ledger,
    req: CallStart,
    method_name: String,
    call_id: String,
    preferred_format: SerializationFormat,
    (pid, start_time): (i64, f64),
) -> Result<CallData> {
    let language = language(req.language.as_deref(), preferred_format, pid)?;
    let stop = match req.stop {
        None | Some(Value::Null) => None,
        Some(value) => Some(serde_json::from_value::<crate::model::PauseStop>(value).map_err(|e| {
            Error::invalid("invalid_stop", format!("stop must be {{kind, file, line, function, …}}: {e}"))
        })?),
    };
    let thread = match req.thread {
        None | Some(Value::Null) => None,
        Some(value) => Some(serde_json::from_value::<crate::calls::CallThread>(value).map_err(|e| {
            Error::invalid("invalid_thread", format!("thread must be {{\"id\": integer, \"name\": text}}: {e}"))
        })?),
    };
    Ok(CallData {
        can_step: req.can_step == Some(true),
        stop,
        thread,
        method_name,
        call_id,
        pretty_target: req.target.as_ref().map(|t| store.pretty(t)).transpose()?.unwrap_or(Value::Null),
        pretty_args: req.args.iter().map(|a| store.pretty(a)).collect::<Result<_>>()?,
        pretty_kwargs: req.kwargs.iter().map(|(k, v)| Ok((k.clone(), store.pretty(v)?))).collect::<Result<_>>()?,
        target: req.target,
        args: req.args,
        kwargs: req.kwargs,
        signature: req.signature.unwrap_or_default(),
        call_site: req.call_site.unwrap_or_else(|| json!({})),
        page_url: req.page_url,
        preferred_format,
        process_pid: pid,
        process_start_time: start_time,
        process_key: ids::process_key(pid, start_time),
        call_type: req.call_type,
        language,
        pause_reason: None,
        pretty_result: None,
        exception: None,
        frames: req.frames,
    })
}

fn preferred_format(requested: Option<&str>) -> Result<SerializationFormat> {
    match requested {
        None | Some("dill") => Ok(SerializationFormat::Dill),
        Some("json") => Ok(SerializationFormat::Json),
        Some(other) => Err(Error::invalid(
            "invalid_preferred_format",
            format!("preferred_format must be 'dill' or 'json', not {other:?}"),
        )),
    }
}

/// The call's `language`; without one, cideldill's JS client (JSON values, pid 0: a page has
/// no pid) is JavaScript and everything else Python.
fn language(requested: Option<&str>, format: SerializationFormat, pid: i64) -> Result<Language> {
    match requested {
        Some("python") => Ok(Language::Python),
        Some("javascript") => Ok(Language::Javascript),
        None if format == SerializationFormat::Json && pid == 0 => Ok(Language::Javascript),
        None => Ok(Language::Python),
        Some(other) => {
            Err(Error::invalid("invalid_language", format!("language must be 'python' or 'javascript', not {other:?}")))
        }
    }
}

/// Breakroom's `pause` field: pause whatever the breakpoints say (set_trace, post-mortem).
fn forced_pause(requested: Option<&str>) -> Result<Option<PauseReason>> {
    match requested {
        None => Ok(None),
        Some("always") => Ok(Some(PauseReason::Breakpoint)),
        Some("exception") => Ok(Some(PauseReason::Exception)),
        Some(other) => {
            Err(Error::invalid("invalid_pause_kind", format!("pause must be 'always' or 'exception', not {other:?}")))
        }
    }
}
