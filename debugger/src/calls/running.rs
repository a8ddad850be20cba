//! The calls of this server's programs that started and have not completed, and how many calls
//! there have been (the call ids' sequence). The answers to retried call/starts are the
//! service's (`call_reports::retries`), since an answer names breakpoints.

use std::collections::HashMap;

use super::CallData;

#[derive(Default)]
pub(crate) struct CallBook {
    /// By call id, with the pause its call/start made, if it made one.
    running: HashMap<String, (CallData, Option<String>)>,
    seq: u64,
}

impl CallBook {
    /// Continues the sequence after the calls the store already has (a restarted server).
    pub(crate) fn restore_count(&mut self, calls: u64) {
        self.seq = calls;
    }

    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    pub(crate) fn started(&mut self, call: CallData, pre_pause: Option<String>) {
        self.running.insert(call.call_id.clone(), (call, pre_pause));
    }

    pub(crate) fn completed(&mut self, call_id: &str) -> Option<(CallData, Option<String>)> {
        self.running.remove(call_id)
    }

    /// Whether `pause_id` is the pause a still-running call made at its start.
    pub(crate) fn paused_at_start(&self, call_id: &str, pause_id: &str) -> bool {
        self.running.get(call_id).is_some_and(|(_, pre)| pre.as_deref() == Some(pause_id))
    }
}
