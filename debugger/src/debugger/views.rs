//! Read-side views the pages and the API show: paused calls, call stacks, processes, call
//! trees and call records.

use super::*;

impl Debugger {
    /// Calls paused right now, oldest first.
    pub fn paused_calls(&self) -> Vec<PausedCall> {
        let st = self.state();
        st.pause_order
            .iter()
            .filter_map(|id| st.pauses.get(id))
            .filter(|p| p.is_paused())
            .map(|p| paused_call(&st, p))
            .collect()
    }

    /// One pause, paused or resumed.
    pub fn pause(&self, pause_id: &str) -> Option<PausedCall> {
        let st = self.state();
        st.pauses.get(pause_id).map(|p| paused_call(&st, p))
    }

    pub fn pause_call_data(&self, pause_id: &str) -> Option<CallData> {
        self.state().pauses.get(pause_id).map(|p| p.record.call.clone())
    }

    /// `/api/paused` in the protocol's shape.
    pub fn paused_protocol_view(&self) -> Vec<Value> {
        let st = self.state();
        st.pause_order
            .iter()
            .filter_map(|id| st.pauses.get(id))
            .filter(|p| p.is_paused())
            .map(|p| {
                json!({
                    "id": p.record.pause_id,
                    "paused_at": p.record.paused_at,
                    "repl_sessions": st.sessions.for_pause(&p.record.pause_id),
                    "call_data": p.record.call,
                })
            })
            .collect()
    }

    pub fn call_record(&self, call_id: &str) -> Option<CallRecord> {
        self.state().records.get(call_id).cloned()
    }

    /// Sessions for index pages: the same filters and pages, without transcripts.
    pub fn session_summaries(&self, query: &SessionQuery) -> SessionPage<SessionSummary> {
        let page = self.list_sessions(query);
        SessionPage {
            sessions: page.sessions.iter().map(SessionSummary::of).collect(),
            total: page.total,
            page: page.page,
            per_page: page.per_page,
        }
    }

    /// The stack of a pause as it was when the call paused, with the pause's sessions.
    pub fn call_stack(&self, pause_id: &str) -> Option<CallStackView> {
        let st = self.state();
        let pause = st.pauses.get(pause_id)?;
        let call = &pause.record.call;
        let frames = match &call.frames {
            Some(rich) => rich.iter().map(frame_view).collect(),
            None => call
                .stack()
                .into_iter()
                .map(|f| FrameView {
                    filename: f.filename,
                    lineno: f.lineno,
                    function: f.function,
                    code_context: f.code_context,
                    source_start: 0,
                    source_lines: vec![],
                    locals: vec![],
                })
                .collect(),
        };
        Some(CallStackView {
            pause_id: pause.record.pause_id.clone(),
            call_id: call.call_id.clone(),
            function_name: call.method_name.clone(),
            reason: pause.record.reason,
            pid: call.process_pid,
            process_key: call.process_key.clone(),
            paused_at: pause.record.paused_at,
            still_paused: pause.is_paused(),
            frames,
            sessions: session_links(&st, st.sessions.for_pause(pause_id)),
        })
    }

    /// Every process that reported a call, most recently active first.
    pub fn processes(&self) -> Vec<ProcessSummary> {
        let st = self.state();
        let mut by_key: BTreeMap<&str, ProcessSummary> = BTreeMap::new();
        for record in st.record_order.iter().filter_map(|id| st.records.get(id)) {
            let entry = by_key.entry(&record.process_key).or_insert_with(|| ProcessSummary {
                process_key: record.process_key.clone(),
                pid: record.process_key.rsplit('+').next().and_then(|p| p.parse().ok()).unwrap_or(0),
                first_call_at: record.started_at,
                last_call_at: record.started_at,
                calls: 0,
                paused: 0,
                repl_sessions: 0,
            });
            entry.calls += 1;
            entry.last_call_at = entry.last_call_at.max(record.started_at);
            entry.repl_sessions += record.repl_sessions.len();
            entry.paused +=
                record.pause_ids.iter().filter(|id| st.pauses.get(*id).is_some_and(Pause::is_paused)).count();
        }
        let mut all: Vec<ProcessSummary> = by_key.into_values().collect();
        all.sort_by(|a, b| b.last_call_at.total_cmp(&a.last_call_at));
        all
    }

    /// The calls of one process as a tree (depth-first), or None for an unknown process.
    pub fn call_tree(&self, process_key: &str) -> Option<Vec<CallTreeNode>> {
        let st = self.state();
        let records: Vec<&CallRecord> = st
            .record_order
            .iter()
            .filter_map(|id| st.records.get(id))
            .filter(|r| r.process_key == process_key)
            .collect();
        if records.is_empty() {
            return None;
        }
        Some(call_tree::build(&records, |call_id| session_links(&st, st.sessions.for_call(call_id))))
    }

    /// Every call of one process, in the order they started.
    pub fn call_records(&self, process_key: &str) -> Vec<CallRecord> {
        let st = self.state();
        st.record_order
            .iter()
            .filter_map(|id| st.records.get(id))
            .filter(|r| r.process_key == process_key)
            .cloned()
            .collect()
    }
}

pub(super) fn session_links(st: &State, ids: Vec<String>) -> Vec<SessionLink> {
    ids.into_iter()
        .filter_map(|id| st.sessions.get(&id))
        .map(|s| SessionLink { session_id: s.session_id.clone(), active: s.is_active(), entries: s.transcript.len() })
        .collect()
}

/// A client's rich frame (`frames` extension) for the call stack page.
pub(super) fn frame_view(raw: &Value) -> FrameView {
    let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_string);
    let strings = |key: &str| -> Vec<String> {
        raw.get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    FrameView {
        filename: text("filename").unwrap_or_else(|| "?".into()),
        lineno: raw.get("lineno").and_then(Value::as_i64).unwrap_or(0),
        function: text("function").unwrap_or_else(|| "?".into()),
        code_context: text("code_context"),
        source_start: raw.get("source_start").and_then(Value::as_i64).unwrap_or(0),
        source_lines: strings("source_lines"),
        locals: strings("locals"),
    }
}

pub(super) fn paused_call(st: &State, pause: &Pause) -> PausedCall {
    let call = &pause.record.call;
    let mut args_text: Vec<String> = call.pretty_args.iter().map(text_of).collect();
    args_text.extend(call.pretty_kwargs.iter().map(|(k, v)| format!("{k}={}", text_of(v))));
    let active_sessions = st
        .sessions
        .for_pause(&pause.record.pause_id)
        .into_iter()
        .filter(|id| st.sessions.get(id).is_some_and(ReplSession::is_active))
        .collect();
    PausedCall {
        pause_id: pause.record.pause_id.clone(),
        call_id: call.call_id.clone(),
        function_name: call.method_name.clone(),
        reason: pause.record.reason,
        args_text,
        result_text: call.pretty_result.as_ref().map(text_of),
        pid: call.process_pid,
        process_key: call.process_key.clone(),
        paused_at: pause.record.paused_at,
        active_sessions,
    }
}
