//! Breakpoints of every kind by id (issue 18): add, change, remove, clear; the channel running
//! programs hold to learn of changes at once; the hits and logpoint messages they report; and
//! the options of function breakpoints decided here, for every client.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::json;

use crate::calls::CallData;
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{EventKind, LiveEvent};

use indexmap::IndexMap;

use super::gates::interpolate;
use super::state::{BreakpointHost, BreakpointParts, BreakpointsState, ProgramOrders};

use crate::breakpoints::policy::{BreakpointAction, BreakpointState, HitTally};
use crate::breakpoints::record::{BreakpointPatch, BreakpointRecord, BreakpointSpec, HitCondition, Refusal};

/// What the server holds of breakpoints by id.
#[derive(Default)]
pub(crate) struct Records {
    pub(super) by_id: IndexMap<String, BreakpointRecord>,
    /// The labels of each program following the breakpoints, by process key: which of them a
    /// breakpoint's `where` arms in (issue 34).
    pub(super) follower_labels: std::collections::HashMap<String, BTreeMap<String, String>>,
    /// Processes holding the breakpoint channel (Breakroom's client): line breakpoints reach
    /// them; other debug clients (cideldill's) only know function breakpoints.
    /// By process key, with the program's main thread ident when it said it.
    pub(super) followers: std::collections::HashMap<String, Option<i64>>,
}

impl Records {
    /// Whether the program with this key holds the breakpoint channel.
    pub(crate) fn follows(&self, process_key: &str) -> bool {
        self.followers.contains_key(process_key)
    }

    /// The main thread's ident a following program said it has.
    pub(crate) fn main_thread(&self, process_key: &str) -> Option<i64> {
        self.followers.get(process_key).copied().flatten()
    }

    /// Refuses a snapshot for a breakpoint that is not a snapshot breakpoint, or that no longer
    /// arms.
    pub(crate) fn check_snapshot_target(&self, id: &str, now: f64) -> Result<()> {
        let record = self.by_id.get(id).ok_or_else(|| Error::BreakpointNotFound(id.to_string()))?;
        if record.action != BreakpointAction::Snapshot {
            return Err(Error::conflict(
                "not_a_snapshot_breakpoint",
                format!("{id} is a {} breakpoint, not a snapshot breakpoint", record.action.as_str()),
            ));
        }
        finished(id, record.limits.state(&record.tally, now))
    }

    /// Counts a snapshot kept, with the tally the database has after it (`counted`; none: this
    /// server's own count): the record as it is now, and whether that was its last one.
    pub(crate) fn count_capture(
        &mut self,
        id: &str,
        counted: Option<HitTally>,
        now: f64,
    ) -> Result<(BreakpointRecord, bool)> {
        let Some(record) = self.by_id.get_mut(id) else { return Err(Error::BreakpointNotFound(id.to_string())) };
        match counted {
            Some(tally) => record.tally = tally,
            None => record.tally.captured += 1,
        }
        let completed = record.limits.state(&record.tally, now) != BreakpointState::Active;
        Ok((record.clone(), completed))
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

/// What `breakpoint_changes` answers: the version and every breakpoint at that version.
#[derive(Clone, Debug, Serialize)]
pub struct BreakpointSnapshot {
    pub version: u64,
    pub breakpoints: Vec<BreakpointRecord>,
    /// Pause orders for the program asking (`Debugger::interrupt`).
    pub interrupts: Vec<crate::model::Interrupt>,
    /// Task lists asked of the program asking (issue 51): it answers each on `POST /api/task-lists`.
    pub task_asks: Vec<String>,
    /// Orders for one task of the program asking (issue 51): it answers each on
    /// `POST /api/task-orders`.
    pub task_orders: Vec<crate::model::TaskOrder>,
    /// The redaction rules and places not debugged, which the program applies (issue 50).
    pub policy: crate::policy::PolicyWire,
}

/// A program holding the breakpoint channel: who it is, its main thread's ident, and (when it
/// first asks) its process record, so a program that has not paused yet is a process too.
#[derive(Clone, Debug, Default)]
pub struct Follower {
    pub pid: i64,
    pub start_time: f64,
    pub main_thread: Option<i64>,
    pub host: Option<String>,
    pub process_id: Option<String>,
    pub argv: Option<Vec<String>>,
    /// Its parent pid, and `helper` when it says it is one (issue 33).
    pub parent_pid: Option<i64>,
    pub role: Option<crate::process_records::ProcessRole>,
    /// Its labels, which breakpoints' `where` match (issue 34).
    pub labels: Option<BTreeMap<String, String>>,
}

crate::host::service!(
    /// Breakpoints by id, of every kind, and the channel programs follow them on: what the doors reach
    /// as `debugger.breakpoints()`.
    BreakpointService
);

impl<H: BreakpointHost> BreakpointService<'_, H> {
    /// Every breakpoint, with the running processes a line breakpoint cannot reach.
    pub fn breakpoint_records(&self) -> Vec<BreakpointRecord> {
        let now = ids::now();
        // Other servers on the database count hits and tallies too: the database has the totals.
        // (A store that cannot be read leaves this server's own counts.)
        let counted: std::collections::HashMap<String, (u64, HitTally)> = match self.debugger.in_cluster() {
            true => {
                let counts = self.debugger.state().breakpoint_parts().store.breakpoint_counts().unwrap_or_default();
                counts.into_iter().map(|(id, hits, tally)| (id, (hits, tally))).collect()
            }
            false => Default::default(),
        };
        let (mut records, unreachable) = {
            let mut guard = self.debugger.state();
            let st = guard.breakpoint_parts();
            let records: Vec<BreakpointRecord> = st
                .records
                .by_id
                .values()
                .map(|r| {
                    let mut r = r.clone();
                    if let Some((hits, tally)) = counted.get(&r.id) {
                        (r.hit_count, r.tally) = (*hits, *tally);
                    }
                    r.state = r.limits.state(&r.tally, now);
                    r.armed_in = armed_in(&r, &st.records.follower_labels, &st.records.followers);
                    r
                })
                .collect();
            let has_lines = records.iter().any(|r| r.kind == crate::breakpoints::record::BreakpointKind::Line);
            let candidates: Vec<String> = if has_lines {
                st.seen_processes.iter().filter(|k| !st.records.follows(k)).cloned().collect()
            } else {
                vec![]
            };
            (records, candidates)
        };
        if unreachable.is_empty() {
            return records;
        }
        let running = self.debugger.running_process_keys();
        let refusals: Vec<Refusal> = unreachable
            .into_iter()
            .filter(|k| running.contains(k))
            .map(|process_key| Refusal {
                process_key,
                reason: "this debug client does not follow Breakroom's breakpoints (an unchanged cideldill client \
                         knows only function breakpoints): line breakpoints cannot reach it"
                    .into(),
            })
            .collect();
        for record in records.iter_mut().filter(|r| r.kind == crate::breakpoints::record::BreakpointKind::Line) {
            record.refused_by = refusals.clone();
        }
        records
    }

    pub fn breakpoint_record(&self, id: &str) -> Result<BreakpointRecord> {
        self.debugger
            .state()
            .breakpoint_parts()
            .records
            .by_id
            .get(id)
            .cloned()
            .ok_or_else(|| Error::BreakpointNotFound(id.to_string()))
    }

    /// `POST /api/breakpoints` with a `kind`. A function breakpoint also registers the name, so
    /// an unchanged cideldill client pauses there as before.
    pub fn add_breakpoint_record(&self, spec: &BreakpointSpec) -> Result<BreakpointRecord> {
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let mut record = BreakpointRecord::from_spec(String::new(), spec, ids::now()).map_err(spec_error)?;
        super::read_only::check_record(&record).map_err(spec_error)?;
        // Places that are not debugged (`--no-debug`): refused, naming the rule.
        let policy = &self.debugger.policy();
        for place in [record.file.as_deref(), record.function_name.as_deref()].into_iter().flatten() {
            policy.check_location(place)?;
        }
        // Handed out by the database: two servers adding at once get two ids.
        let position = st.store.next_breakpoint_position()?;
        record.id = format!("bp-{position}");
        let id = record.id.clone();
        if let Some(name) = record.function_name.clone() {
            st.breakpoints.by_name.entry(name.clone()).or_default();
            st.save_breakpoint(&name)?;
        }
        st.store.put_breakpoint_record(position, &record)?;
        st.records.by_id.insert(record.id.clone(), record);
        drop(guard);
        self.breakpoints_changed();
        // As listed: with the processes it cannot reach.
        self.breakpoint_records().into_iter().find(|r| r.id == id).ok_or(Error::BreakpointNotFound(id))
    }

    /// A click on a source line: removes the line breakpoints there, or adds one when there is
    /// none. The added one, if any.
    pub fn toggle_line_breakpoint(&self, file: &str, line: u32) -> Result<Option<BreakpointRecord>> {
        let there: Vec<String> = self
            .debugger
            .state()
            .breakpoint_parts()
            .records
            .by_id
            .values()
            .filter(|r| r.is_line_at(file, line))
            .map(|r| r.id.clone())
            .collect();
        if there.is_empty() {
            return self.add_breakpoint_record(&BreakpointSpec::line(file, line)).map(Some);
        }
        for id in there {
            self.remove_breakpoint_record(&id)?;
        }
        Ok(None)
    }

    /// `PATCH /api/breakpoints/{id}`: options only.
    pub fn update_breakpoint_record(&self, id: &str, changes: &BreakpointPatch) -> Result<BreakpointRecord> {
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let current = st.records.by_id.get(id).ok_or_else(|| Error::BreakpointNotFound(id.to_string()))?;
        let mut next = current.patched(changes, ids::now()).map_err(spec_error)?;
        super::read_only::check_record(&next).map_err(spec_error)?;
        let recount = next.hit_condition != current.hit_condition;
        if recount {
            next.hit_count = 0; // a new hit condition counts from the start
        }
        st.save_record(&next)?;
        if recount {
            st.store.set_breakpoint_hits(id, 0)?;
        }
        st.records.by_id.insert(id.to_string(), next.clone());
        drop(guard);
        self.breakpoints_changed();
        self.breakpoint_records().into_iter().find(|r| r.id == id).ok_or_else(|| Error::BreakpointNotFound(id.into()))
    }

    /// `DELETE /api/breakpoints/{id}`. Removing the last breakpoint on a function name removes
    /// the name's breakpoint too (what cideldill's `DELETE /api/breakpoints/{name}` does).
    pub fn remove_breakpoint_record(&self, id: &str) -> Result<BreakpointRecord> {
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let record = st.records.by_id.shift_remove(id).ok_or_else(|| Error::BreakpointNotFound(id.to_string()))?;
        st.store.delete_breakpoint_record(id)?;
        if let Some(name) = &record.function_name {
            if !st.records.by_id.values().any(|r| r.function_name.as_ref() == Some(name)) {
                st.breakpoints.by_name.remove(name);
                st.save_breakpoint(name)?;
            }
        }
        drop(guard);
        self.breakpoints_changed();
        Ok(record)
    }

    /// `DELETE /api/breakpoints`: every breakpoint of every kind. Returns how many went.
    pub fn clear_breakpoints(&self) -> Result<usize> {
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let ids: Vec<String> = st.records.by_id.keys().cloned().collect();
        let names: Vec<String> = st.breakpoints.by_name.keys().cloned().collect();
        st.store.atomically(|store| {
            for id in &ids {
                store.delete_breakpoint_record(id)?;
            }
            for name in &names {
                store.delete_breakpoint(name)?;
            }
            Ok(())
        })?;
        st.records.by_id.clear();
        st.breakpoints.by_name.clear();
        drop(guard);
        self.breakpoints_changed();
        Ok(ids.len().max(names.len()))
    }

    /// Waits (up to the poll hold) until the breakpoints differ from version `since`, then
    /// answers all of them: what a running program's watcher holds open. The doors call it
    /// through `debugger.calls()`, which first notes the follower's process.
    pub async fn breakpoint_changes(self, since: Option<u64>, follower: Option<Follower>) -> BreakpointSnapshot {
        let key = follower.map(|f| {
            let key = ids::process_key(f.pid, f.start_time);
            let mut guard = self.debugger.state();
            let st = guard.breakpoint_parts();
            if let Some(labels) = f.labels {
                st.records.follower_labels.insert(key.clone(), labels);
            }
            let known = st.records.followers.entry(key.clone()).or_default();
            let first = known.is_none() && f.main_thread.is_some();
            *known = f.main_thread.or(*known);
            drop(guard);
            if first {
                // It can be paused from now on (DAP lists it as a thread).
                self.debugger.publish(LiveEvent::CallsChanged { process_key: key.clone() });
            }
            key
        });
        let mut watch = self.debugger.breakpoint_version().subscribe();
        if let Some(since) = since {
            let changed = watch.wait_for(|version| *version != since);
            let _ = tokio::time::timeout(self.debugger.poll_hold(), changed).await;
        }
        let version = *watch.borrow();
        let ProgramOrders { interrupts, task_asks, task_orders } =
            key.as_ref().map(|k| self.debugger.orders_for(k)).unwrap_or_default();
        // What this program arms: active breakpoints whose `where` its labels match.
        let labels = key
            .and_then(|k| self.debugger.state().breakpoint_parts().records.follower_labels.get(&k).cloned())
            .unwrap_or_default();
        let breakpoints = self
            .breakpoint_records()
            .into_iter()
            .filter(|r| r.state == BreakpointState::Active && r.limits.arms_in(&labels))
            .collect();
        let policy = self.debugger.policy().wire();
        BreakpointSnapshot { version, breakpoints, interrupts, task_asks, task_orders, policy }
    }

    pub(crate) fn breakpoints_changed(&self) {
        self.wake_breakpoint_channels();
        self.debugger.publish(LiveEvent::BREAKPOINTS_CHANGED);
    }

    /// Answers every held `breakpoint-changes` request now (a new version): for a change of the
    /// breakpoints, a pause order, or a shutdown.
    pub(crate) fn wake_breakpoint_channels(&self) {
        self.debugger.breakpoint_version().send_modify(|v| *v += 1);
    }
}

impl<H: BreakpointHost> BreakpointService<'_, H> {
    /// A function breakpoint's condition (None: it has none, or it is gone).
    pub(crate) fn condition_of(&self, id: &str) -> Option<String> {
        self.debugger.state().breakpoint_parts().records.by_id.get(id).and_then(|r| r.condition.clone())
    }

    /// A condition held (or raised) at a call: counts the hit and logs it; whether it pauses.
    pub(crate) fn condition_hit(
        &self,
        id: &str,
        condition: &str,
        error: Option<String>,
        call: &CallData,
    ) -> Result<bool> {
        let now = ids::now();
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let Some(record) = st.records.by_id.get_mut(id) else { return Ok(false) };
        // Counted in the database: servers sharing it count one breakpoint together.
        record.hit_count = st.store.count_breakpoint_hits(id, 1)?.unwrap_or(record.hit_count + 1);
        let count = record.hit_count;
        let holds =
            record.hit_condition.as_deref().and_then(|h| HitCondition::parse(h).ok()).is_none_or(|h| h.holds(count));
        if !holds && error.is_none() {
            // Counted, not logged: the pages show the new count.
            let record = record.clone();
            st.save_record(&record)?;
            drop(guard);
            self.debugger.publish(LiveEvent::breakpoint_hit(&call.process_key, vec![id.to_string()]));
            return Ok(false);
        }
        let mut data = json!({
            "breakpoint_id": id, "kind": "function", "hit_count": count,
            "function": call.method_name, "call_id": call.call_id,
        });
        let (event, pauses) = match (&error, &record.log_message) {
            (Some(error), _) => {
                data["action"] = json!("condition_error");
                data["error"] = json!(error);
                data["reason"] = json!(format!("condition {condition:?} raised"));
                (EventKind::BreakpointHit, true)
            }
            (None, Some(message)) => {
                data["action"] = json!("log");
                data["message"] = json!(interpolate(message, call));
                data["reason"] = json!(format!("condition {condition:?} held"));
                (EventKind::Log, false)
            }
            (None, None) => {
                data["action"] = json!("pause");
                data["reason"] = json!(format!("condition {condition:?} held"));
                (EventKind::BreakpointHit, true)
            }
        };
        record.last_hit = Some(data.clone());
        let record = record.clone();
        st.save_record(&record)?;
        st.store.log(now, event, &call.process_key, None, data)?;
        drop(guard);
        self.debugger.publish(LiveEvent::breakpoint_hit(&call.process_key, vec![id.to_string()]));
        Ok(pauses)
    }
}

impl BreakpointParts<'_> {
    /// Counts one snapshot kept for the snapshot breakpoint `id` and saves its record; whether
    /// that was its last one.
    pub(crate) fn count_snapshot_capture(&mut self, id: &str, now: f64) -> Result<bool> {
        let one = crate::breakpoints::policy::HitTally { captured: 1, ..Default::default() };
        let counted = self.store.count_tally(id, &one)?;
        let (record, completed) = self.records.count_capture(id, counted, now)?;
        self.save_record(&record)?;
        Ok(completed)
    }

    pub(crate) fn save_record(&self, record: &BreakpointRecord) -> Result<()> {
        let position = record.id.strip_prefix("bp-").and_then(|n| n.parse().ok()).unwrap_or(0);
        self.store.put_breakpoint_record(position, record)
    }

    /// cideldill's `POST /api/breakpoints {function_name}`: the name gets a function record too,
    /// so every breakpoint has an id.
    pub(crate) fn ensure_function_record(&mut self, name: &str, now: f64) -> Result<()> {
        if self.records.by_id.values().any(|r| r.function_name.as_deref() == Some(name)) {
            return Ok(());
        }
        let spec = BreakpointSpec::function(name);
        let mut record = BreakpointRecord::from_spec(String::new(), &spec, now).map_err(spec_error)?;
        let position = self.store.next_breakpoint_position()?;
        record.id = format!("bp-{position}");
        self.store.put_breakpoint_record(position, &record)?;
        self.records.by_id.insert(record.id.clone(), record);
        Ok(())
    }

    /// cideldill's `DELETE /api/breakpoints/{name}`: its function records go with it.
    pub(crate) fn remove_function_records(&mut self, name: &str) -> Result<()> {
        let ids: Vec<String> = self
            .records
            .by_id
            .values()
            .filter(|r| r.function_name.as_deref() == Some(name))
            .map(|r| r.id.clone())
            .collect();
        for id in ids {
            self.records.by_id.shift_remove(&id);
            self.store.delete_breakpoint_record(&id)?;
        }
        Ok(())
    }

    /// Reads the records back at start.
    /// Reads the breakpoints (by name and by id), the global behaviour and the registered
    /// functions from the store in place of what memory has: at start, and when another server
    /// changed them.
    pub(crate) fn load_breakpoint_configuration(&mut self) -> Result<()> {
        let settings = self.store.settings()?;
        self.breakpoints.by_name = settings.breakpoints.into_iter().collect();
        if let Some(global) = settings.global {
            self.breakpoints.global = global;
        }
        for (name, data) in settings.functions {
            if let Ok(f) = serde_json::from_value::<super::by_name::RegisteredFunction>(data) {
                self.functions.insert(name, f);
            }
        }
        self.records.by_id.clear();
        for (_, record) in self.store.breakpoint_records()? {
            self.records.by_id.insert(record.id.clone(), record);
        }
        Ok(())
    }
}

/// The followers whose labels match a breakpoint's `where` (none listed for a breakpoint without
/// one: every follower arms it).
fn armed_in(
    record: &BreakpointRecord,
    labels: &std::collections::HashMap<String, BTreeMap<String, String>>,
    followers: &std::collections::HashMap<String, Option<i64>>,
) -> Vec<String> {
    if record.limits.where_labels.is_empty() {
        return vec![];
    }
    let none = BTreeMap::new();
    let mut keys: Vec<String> =
        followers.keys().filter(|k| record.limits.arms_in(labels.get(*k).unwrap_or(&none))).cloned().collect();
    keys.sort();
    keys
}

pub(crate) fn spec_error(e: crate::breakpoints::record::SpecError) -> Error {
    Error::invalid(e.code, e.message)
}
