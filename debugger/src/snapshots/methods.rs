//! The snapshot service's doors: a program sends one, pages and agents read them.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::{Snapshot, SnapshotFilter, SnapshotFrame, SnapshotSummary, SnapshotThread, WatchValue};
use crate::breakpoints::state::BreakpointsState;
use crate::error::{Error, Result};
use crate::ids;
use crate::model::LiveEvent;
use crate::processes::host::ProcessHost;
use crate::sessions::state::SessionHost;

/// `POST /api/snapshots` as a program sends it (see the book's "Snapshots" chapter for every
/// field). A body that is not one is `invalid_snapshot`; a start time that is not a number,
/// `missing_process_identity`; a pid that is not a whole number from 0 up, `invalid_process_identity`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self")]
pub struct SnapshotTaken {
    pub breakpoint_id: String,
    #[serde(deserialize_with = "process_pid")]
    /// A whole number from 0 (a browser page) to 2^32 - 1 (Windows' pids are unsigned).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 4_294_967_295_i64))]
    pub process_pid: i64,
    #[serde(deserialize_with = "process_start_time")]
    pub process_start_time: f64,
    #[serde(default)]
    pub hostname: Option<String>,
    #[serde(default)]
    pub argv: Option<Vec<String>>,
    #[serde(default)]
    pub process_id: Option<String>,
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    pub taken_at: f64,
    #[serde(default)]
    pub thread: Option<SnapshotThread>,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub function: Option<String>,
    pub frames: Vec<SnapshotFrame>,
    #[serde(default)]
    pub expressions: Vec<WatchValue>,
    #[serde(default)]
    pub truncated: bool,
    #[serde(default)]
    pub size_bytes: u64,
    #[serde(default)]
    pub capture_ms: Option<f64>,
    /// How many values the program replaced by `[redacted]` (issue 50). Absent: a client that
    /// does not redact, whose snapshot the server redacts before keeping it.
    #[serde(default)]
    pub redacted: Option<u64>,
}

/// The derived reader (`remote = "Self"`), with every error of its own `invalid_snapshot`.
impl<'de> Deserialize<'de> for SnapshotTaken {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let body = Value::deserialize(de)?;
        SnapshotTaken::deserialize(body).map_err(|e| crate::wire::whole(e, "invalid_snapshot", "not a snapshot"))
    }
}

fn process_pid<'de, D: serde::Deserializer<'de>>(de: D) -> Result<i64, D::Error> {
    let pid = Value::deserialize(de)?;
    let start = Some(Value::from(0.0));
    crate::ids::process_identity(&Some(pid), &start).map(|(pid, _)| pid).map_err(|e| crate::wire::refuse(e.code(), &e))
}

fn process_start_time<'de, D: serde::Deserializer<'de>>(de: D) -> Result<f64, D::Error> {
    let start = Value::deserialize(de)?;
    crate::ids::process_identity(&Some(Value::from(0)), &Some(start))
        .map(|(_, start)| start)
        .map_err(|e| crate::wire::refuse(e.code(), &e))
}

/// Every value's tables and pictures within the bounds of an eval's (a client's own bounds are
/// smaller), and none that claims a REPL table to page: a snapshot's program has moved on.
fn checked_outputs(frames: &mut [SnapshotFrame], expressions: &mut [WatchValue]) {
    fn value(v: &mut super::CapturedValue) {
        if !v.outputs.is_empty() {
            v.outputs = crate::outputs::checked(std::mem::take(&mut v.outputs));
            for output in &mut v.outputs {
                output.forget_table();
            }
        }
        v.children.iter_mut().for_each(|c| value(&mut c.value));
    }
    for frame in frames {
        frame.locals.iter_mut().flatten().for_each(|l| value(&mut l.value));
    }
    expressions.iter_mut().filter_map(|w| w.value.as_mut()).for_each(value);
}

/// What a program is told of its snapshot.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SnapshotKept {
    pub snapshot_id: String,
    /// The breakpoint kept its last snapshot with this one: programs disarm it.
    pub completed: bool,
}

crate::host::service!(
    /// Snapshot breakpoints' captures: what the doors reach as `debugger.snapshots()`.
    SnapshotService
);

/// What snapshots ask of the owner of the state: the processes that send them, their
/// breakpoints (a breakpoint whose last snapshot came is disarmed), and REPL sessions.
pub trait SnapshotHost: ProcessHost + SessionHost {
    /// How many snapshots are kept on disk, the newest.
    fn snapshots_kept(&self) -> usize;
}

impl<H: SnapshotHost> SnapshotService<'_, H> {
    /// A snapshot a program took. Kept while its breakpoint is active, so with `max_hits` N the
    /// first N to arrive from any process are kept and the rest are told `breakpoint_finished`.
    pub fn take(&self, sent: SnapshotTaken) -> Result<SnapshotKept> {
        if !sent.taken_at.is_finite() {
            return Err(Error::invalid("invalid_snapshot", "taken_at is a time in epoch seconds"));
        }
        let (pid, start_time) = (sent.process_pid, sent.process_start_time);
        let process_key = ids::process_key(pid, start_time);
        if sent.hostname.is_some() {
            self.debugger.processes().note_client(crate::processes::registry::ClientSeen {
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
        let mut sent = sent;
        checked_outputs(&mut sent.frames, &mut sent.expressions);
        let redacted = match sent.redacted {
            Some(n) => n,
            None => super::redact::snapshot(self.debugger.policy(), &mut sent.frames, &mut sent.expressions),
        };
        let snapshot = Snapshot {
            snapshot_id: String::new(),
            breakpoint_id: sent.breakpoint_id.clone(),
            process_id: self.debugger.processes().registry().id_for_key(&process_key),
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
            redacted: Some(redacted),
        };
        let keep = self.debugger.snapshots_kept();
        let mut guard = self.debugger.state();
        let id = sent.breakpoint_id;
        let mut st = guard.breakpoint_parts();
        st.records.check_snapshot_target(&id, now)?;
        let snapshot_id = st.store.put_snapshot(&snapshot, keep.max(1))?;
        let completed = st.count_snapshot_capture(&id, now)?;
        drop(guard);
        if completed {
            self.debugger.breakpoints().wake_breakpoint_channels(); // every program disarms it now
        }
        self.debugger.publish(LiveEvent::breakpoint_hit(&snapshot.process_key, vec![id]));
        Ok(SnapshotKept { snapshot_id, completed })
    }

    /// Newest first (at most `filter.limit`, up to 500).
    pub fn list(&self, filter: &SnapshotFilter) -> Result<Vec<SnapshotSummary>> {
        let filter = SnapshotFilter { limit: filter.limit.clamp(1, 500), ..filter.clone() };
        Ok(self.debugger.state().breakpoint_parts().store.snapshots(&filter)?.iter().map(Snapshot::summary).collect())
    }

    pub fn get(&self, snapshot_id: &str) -> Result<Snapshot> {
        self.debugger
            .state()
            .breakpoint_parts()
            .store
            .snapshot(snapshot_id)?
            .ok_or_else(|| Error::not_found("snapshot_not_found", format!("no snapshot {snapshot_id}")))
    }

    /// Snapshots a breakpoint has on disk (the panel's count; `captured` counts every one kept,
    /// including those retention has since removed).
    pub fn count(&self, breakpoint_id: &str) -> Result<u64> {
        self.debugger.state().breakpoint_parts().store.snapshot_count(breakpoint_id)
    }
}
