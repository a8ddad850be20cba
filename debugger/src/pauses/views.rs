//! Read-side views the pages and the API show: paused calls, call stacks, processes, call
//! trees and call records. Live pauses come from memory; everything else from the store.

use crate::calls::store::PauseRecord;
use crate::calls::CallRecord;
use crate::display::text_of;
use crate::error::Result;
use crate::model::{
    CallStackView, CallTreeNode, CallTreePage, PausedCall, ProcessSummary, SessionLink, CALL_TREE_NEWEST,
};
use serde_json::{json, Value};
use std::collections::HashMap;

use super::state::{PauseHost, PauseState};
use crate::host::Stored;

impl<H: PauseHost> super::methods::PauseService<'_, H> {
    /// Calls paused right now, oldest first.
    pub fn paused_calls(&self) -> Vec<PausedCall> {
        let elsewhere = self.pauses_elsewhere();
        let st = self.debugger.state();
        let mut calls: Vec<PausedCall> =
            st.pauses().in_order().filter(|p| p.is_shown()).map(|p| paused_call(&*st, &p.record)).collect();
        calls.extend(elsewhere.iter().map(|record| paused_call(&*st, record)));
        calls
    }

    /// The pauses other servers on the same database hold (issue 35), as stored.
    fn pauses_elsewhere(&self) -> Vec<PauseRecord> {
        self.debugger.pauses_elsewhere()
    }

    /// One pause, paused or resumed.
    pub fn pause(&self, pause_id: &str) -> Result<Option<PausedCall>> {
        let st = self.debugger.state();
        Ok(st.pause_record(pause_id)?.map(|record| paused_call(&*st, &record)))
    }

    /// One pause's call as its client sent it (frames, stop, thread), and whether it is paused
    /// now (the DAP adapter's view of a pause).
    pub fn pause_call(&self, pause_id: &str) -> Result<Option<(crate::calls::CallData, bool)>> {
        let st = self.debugger.state();
        let paused = st.pauses().get(pause_id).is_some_and(|p| p.is_paused());
        Ok(st.pause_record(pause_id)?.map(|record| (record.call, paused)))
    }

    /// Whether a pause is on now (not continued): memory first, then the store (a pause another
    /// server of the cluster holds).
    pub fn is_paused_now(&self, pause_id: &str) -> bool {
        let st = self.debugger.state();
        if let Some(pause) = st.pauses().get(pause_id) {
            return pause.is_paused();
        }
        st.pause_record(pause_id).ok().flatten().is_some_and(|record| record.resume.is_none())
    }

    /// The process of a pause live on this server (memory only: the door's ownership check runs
    /// on every poll of a program credential).
    pub fn live_pause_process(&self, pause_id: &str) -> Option<String> {
        self.debugger.state().pauses().get(pause_id).map(|p| p.record.call.process_key.clone())
    }

    /// `/api/paused` in the protocol's shape.
    pub fn paused_protocol_view(&self) -> Result<Vec<Value>> {
        let elsewhere = self.pauses_elsewhere();
        let st = self.debugger.state();
        let here = st.pauses().in_order().filter(|p| p.is_shown()).map(|p| &p.record);
        here.chain(elsewhere.iter())
            .map(|record| {
                let sessions = st.store().sessions_of_pause(&record.pause_id)?;
                let session_ids: Vec<String> = sessions.into_iter().map(|link| link.session_id).collect();
                // The process registry has its own lock and never waits for `State`'s.
                let process_id = self.debugger.process_id_for_key(&record.call.process_key);
                let stop = record.call.stop.as_ref();
                Ok(json!({
                    "id": record.pause_id,
                    "paused_at": record.paused_at,
                    "repl_sessions": session_ids,
                    "call_data": record.call,
                    "process_id": process_id,
                    "blocking": stop.is_some_and(|s| s.is_blocking()),
                    "blocking_reason": stop.filter(|s| s.is_blocking()).and_then(|s| s.blocking_reason.clone()),
                }))
            })
            .collect()
    }

    pub fn call_record(&self, call_id: &str) -> Result<Option<CallRecord>> {
        self.debugger.state().store().call(call_id)
    }

    /// The stack of a pause as it was when the call paused, with the pause's sessions.
    pub fn call_stack(&self, pause_id: &str) -> Result<Option<CallStackView>> {
        let st = self.debugger.state();
        let Some(record) = st.pause_record(pause_id)? else {
            return Ok(None);
        };
        let call = &record.call;
        let frames = call.stack_views();
        Ok(Some(CallStackView {
            pause_id: record.pause_id.clone(),
            call_id: call.call_id.clone(),
            function_name: call.method_name.clone(),
            reason: record.reason,
            pid: call.process_pid,
            process_key: call.process_key.clone(),
            paused_at: record.paused_at,
            still_paused: record.resume.is_none(),
            frames,
            sessions: st.store().sessions_of_pause(pause_id)?,
        }))
    }

    /// Every process that reported a call, most recently active first.
    pub fn process_summaries(&self) -> Result<Vec<ProcessSummary>> {
        let st = self.debugger.state();
        let mut all = vec![];
        for process in st.store().processes()? {
            all.push(summary(&*st, process)?);
        }
        all.sort_by(|a, b| b.last_call_at.total_cmp(&a.last_call_at));
        Ok(all)
    }

    /// One process's row of [`Self::process_summaries`], read alone (what a list shown already
    /// needs on that process's call or pause); None for a process that reported no call.
    pub fn process_summary(&self, process_key: &str) -> Result<Option<ProcessSummary>> {
        let st = self.debugger.state();
        let process = st.store().process(process_key)?;
        process.map(|process| summary(&*st, process)).transpose()
    }

    /// The calls of one process as a tree (depth-first), or None for an unknown process.
    pub fn call_tree(&self, process_key: &str) -> Result<Option<Vec<CallTreeNode>>> {
        Ok(self.call_tree_page(process_key, true)?.map(|page| page.nodes))
    }

    /// The call tree of one process as its page shows it: of its newest [`CALL_TREE_NEWEST`]
    /// calls, or of `all` of them; None for an unknown process. A call whose caller is older
    /// than the calls shown is at the top level.
    pub fn call_tree_page(&self, process_key: &str, all: bool) -> Result<Option<CallTreePage>> {
        // Read with the state held; the tree is built after it is let go: inferring callers
        // compares each call's stack with up to 2,000 earlier ones, and every eval, pause and
        // call of every program would wait for that.
        let (records, sessions, total) = {
            let st = self.debugger.state();
            let store = st.store();
            let records = if all {
                store.calls_of_process(process_key)?
            } else {
                store.newest_calls_of_process(process_key, CALL_TREE_NEWEST)?
            };
            let total = if all { records.len() as u64 } else { store.call_count_of_process(process_key)? };
            (records, store.sessions_of_process(process_key)?, total)
        };
        if records.is_empty() {
            return Ok(None);
        }
        let mut links: HashMap<String, Vec<SessionLink>> = HashMap::new();
        for (call_id, link) in sessions {
            links.entry(call_id.unwrap_or_default()).or_default().push(link);
        }
        let records: Vec<&CallRecord> = records.iter().collect();
        let nodes = crate::calls::tree::build(&records, |call_id| links.get(call_id).cloned().unwrap_or_default());
        Ok(Some(CallTreePage { nodes, total }))
    }

    /// Every call of one process, in the order they started.
    pub fn call_records(&self, process_key: &str) -> Result<Vec<CallRecord>> {
        self.debugger.state().store().calls_of_process(process_key)
    }
}

pub(super) fn paused_call<S: PauseState + ?Sized>(st: &S, pause: &PauseRecord) -> PausedCall {
    let call = &pause.call;
    let mut args_text: Vec<String> = call.pretty_args.iter().map(text_of).collect();
    args_text.extend(call.pretty_kwargs.iter().map(|(k, v)| format!("{k}={}", text_of(v))));
    // Only a live pause has open sessions, and open sessions are all in memory.
    let active_sessions = st.open_sessions_of(&pause.pause_id);
    PausedCall {
        pause_id: pause.pause_id.clone(),
        call_id: call.call_id.clone(),
        function_name: call.method_name.clone(),
        reason: pause.reason,
        args_text,
        result_text: call.pretty_result.as_ref().map(text_of),
        pid: call.process_pid,
        process_key: call.process_key.clone(),
        paused_at: pause.paused_at,
        active_sessions,
        language: call.language,
        blocking: call.stop.as_ref().is_some_and(|s| s.is_blocking()),
        blocking_reason: call.stop.as_ref().filter(|s| s.is_blocking()).and_then(|s| s.blocking_reason.clone()),
        stop: call.stop.clone(),
    }
}

/// A process's summary: its calls as the store counts them, its shown pauses, its sessions.
fn summary(st: &impl PauseState, process: crate::calls::store::ProcessCalls) -> Result<ProcessSummary> {
    let paused =
        st.pauses().in_order().filter(|p| p.is_shown() && p.record.call.process_key == process.process_key).count();
    Ok(ProcessSummary {
        pid: process.process_key.rsplit('+').next().and_then(|p| p.parse().ok()).unwrap_or(0),
        first_call_at: process.first_call_at,
        last_call_at: process.last_call_at,
        calls: process.calls,
        paused,
        repl_sessions: st.store().session_count_of_process(&process.process_key)?,
        process_key: process.process_key,
    })
}
