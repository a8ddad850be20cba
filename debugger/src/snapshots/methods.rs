//! The `Debugger`'s snapshot doors: a program sends one, pages and agents read them.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::policy::{BreakpointAction, BreakpointState};
use super::{Snapshot, SnapshotFilter, SnapshotFrame, SnapshotSummary, SnapshotThread, WatchValue};
use crate::debugger::Debugger;
use crate::error::{Error, Result};
use crate::ids;
use crate::model::LiveEvent;

/// `POST /api/snapshots` as a program sends it.
#[derive(Deserialize)]
struct SnapshotSent {
    breakpoint_id: String,
    process_pid: Value,
    process_start_time: Value,
    #[serde(default)]
    hostname: Option<String>,
    #[serde(default)]
    argv: Option<Vec<String>>,
    #[serde(default)]
    process_id: Option<String>,
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
    taken_at: f64,
    #[serde(default)]
    thread: Option<SnapshotThread>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<u32>,
    #[serde(default)]
    function: Option<String>,
    frames: Vec<SnapshotFrame>,
    #[serde(default)]
    expressions: Vec<WatchValue>,
    #[serde(default)]
    truncated: bool,
    #[serde(default)]
    size_bytes: u64,
    #[serde(default)]
    capture_ms: Option<f64>,
}

/// What a program is told of its snapshot.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SnapshotKept {
    pub snapshot_id: String,
    /// The breakpoint kept its last snapshot with this one: programs disarm it.
    pub completed: bool,
}

impl Debugger {
    /// A snapshot a program took. Kept while its breakpoint is active, so with `max_hits` N the
    /// first N to arrive from any process are kept and the rest are told `breakpoint_finished`.
    pub fn take_snapshot(&self, body: &Value) -> Result<SnapshotKept> {
        let sent: SnapshotSent = serde_json::from_value(body.clone())
            .map_err(|e| Error::invalid("invalid_snapshot", format!("not a snapshot: {e}")))?;
        if !sent.taken_at.is_finite() {
            return Err(Error::invalid("invalid_snapshot", "taken_at is a time in epoch seconds"));
        }
        let (pid, start_time) = crate::calls::methods::process_identity(
            &Some(sent.process_pid.clone()),
            &Some(sent.process_start_time.clone()),
        )?;
        let process_key = ids::process_key(pid, start_time);
        if sent.hostname.is_some() {
            self.note_client(crate::processes::registry::ClientSeen {
                process_key: process_key.clone(),
                pid,
                process_id: sent.process_id.clone(),
                host: sent.hostname.clone(),
                argv: sent.argv.clone(),
                labels: sent.labels.clone(),
                ..Default::default()
            });
        }
        let now = ids::now();
        let snapshot = Snapshot {
            snapshot_id: String::new(),
            breakpoint_id: sent.breakpoint_id.clone(),
            process_id: self.registry().id_for_key(&process_key),
            process_key,
            taken_at: sent.taken_at,
            received_at: now,
            file: sent.file,
            line: sent.line,
            function: sent.function,
            thread: sent.thread,
            labels: sent.labels.unwrap_or_default(),
            frames: sent.frames,
            expressions: sent.expressions,
            truncated: sent.truncated,
            size_bytes: sent.size_bytes,
            capture_ms: sent.capture_ms.filter(|ms| ms.is_finite()),
        };
        let keep = self.inner.config.snapshots_kept;
        let mut st = self.state();
        let id = sent.breakpoint_id;
        let record = st.records.by_id.get(&id).ok_or_else(|| Error::BreakpointNotFound(id.clone()))?;
        if record.action != BreakpointAction::Snapshot {
            return Err(Error::conflict(
                "not_a_snapshot_breakpoint",
                format!("{id} is a {} breakpoint, not a snapshot breakpoint", record.action.as_str()),
            ));
        }
        finished(&id, record.limits.state(&record.tally, now))?;
        let snapshot_id = st.store.put_snapshot(&snapshot, keep.max(1))?;
        let Some(record) = st.records.by_id.get_mut(&id) else { return Err(Error::BreakpointNotFound(id)) };
        record.tally.captured += 1;
        let completed = record.limits.state(&record.tally, now) != BreakpointState::Active;
        let record = record.clone();
        st.save_record(&record)?;
        drop(st);
        if completed {
            self.breakpoints_changed(); // every program disarms it now
        } else {
            self.publish(LiveEvent::BreakpointsChanged);
        }
        Ok(SnapshotKept { snapshot_id, completed })
    }

    /// Newest first (at most `filter.limit`, up to 500).
    pub fn snapshots(&self, filter: &SnapshotFilter) -> Result<Vec<SnapshotSummary>> {
        let filter = SnapshotFilter { limit: filter.limit.clamp(1, 500), ..filter.clone() };
        Ok(self.state().store.snapshots(&filter)?.iter().map(Snapshot::summary).collect())
    }

    pub fn snapshot(&self, snapshot_id: &str) -> Result<Snapshot> {
        self.state()
            .store
            .snapshot(snapshot_id)?
            .ok_or_else(|| Error::not_found("snapshot_not_found", format!("no snapshot {snapshot_id}")))
    }

    /// Snapshots a breakpoint has on disk (the panel's count; `captured` counts every one kept,
    /// including those retention has since removed).
    pub fn snapshot_count(&self, breakpoint_id: &str) -> Result<u64> {
        self.state().store.snapshot_count(breakpoint_id)
    }
}

/// Refuses a hit of a breakpoint that no longer arms.
pub(crate) fn finished(id: &str, status: BreakpointState) -> Result<()> {
    match status {
        BreakpointState::Active => Ok(()),
        BreakpointState::Completed => {
            Err(Error::conflict("breakpoint_finished", format!("{id} is completed: it kept its max_hits already")))
        }
        BreakpointState::Expired => Err(Error::conflict("breakpoint_finished", format!("{id} has expired"))),
    }
}
