//! The hits, logpoint lines and counts programs report (`POST /api/breakpoint-hits`): counted
//! on their breakpoint and kept in the event log; a logpoint past its `max_hits` or expiry is
//! refused (issue 34).

use serde_json::Value;

use crate::debugger::Debugger;
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{EventKind, LiveEvent};
use crate::snapshots::policy::{BreakpointAction, BreakpointState};

impl Debugger {
    /// A hit or logpoint message a program reports (`POST /api/breakpoints/hits`): counted on its
    /// breakpoint and appended to the event log as `breakpoint_hit` or `log`.
    pub fn report_breakpoint_hit(&self, report: &Value) -> Result<()> {
        let kind = match report.get("event").and_then(Value::as_str) {
            Some("hit_count") => return self.report_hit_counts(report),
            Some("breakpoint_hit") => EventKind::BreakpointHit,
            Some("log") => EventKind::Log,
            other => {
                return Err(Error::invalid(
                    "invalid_event",
                    format!("event must be \"breakpoint_hit\", \"log\" or \"hit_count\", not {other:?}"),
                ))
            }
        };
        let id = report
            .get("breakpoint_id")
            .and_then(Value::as_str)
            .ok_or(Error::MissingField { code: "missing_breakpoint_id", field: "breakpoint_id" })?;
        let (pid, start_time) = crate::calls::methods::process_identity(
            &report.get("process_pid").cloned(),
            &report.get("process_start_time").cloned(),
        )?;
        let process_key = ids::process_key(pid, start_time);
        // Our client sends its process record: a program that only logs is a process too.
        if let Some(host) = report.get("hostname").and_then(Value::as_str) {
            let text = |key: &str| report.get(key).and_then(Value::as_str).map(str::to_string);
            let argv = report
                .get("argv")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<String>>());
            self.note_client(crate::processes::registry::ClientSeen {
                process_key: process_key.clone(),
                pid,
                process_id: text("process_id"),
                host: Some(host.to_string()),
                argv,
                ..Default::default()
            });
        }
        let hit_count = report.get("hit_count").and_then(Value::as_u64);
        let mut data = report.clone();
        if let Some(obj) = data.as_object_mut() {
            obj.remove("event");
        }
        let now = ids::now();
        let mut st = self.state();
        let mut completed = false;
        if let Some(record) =
            st.records.by_id.get(id).filter(|r| kind == EventKind::Log && r.action == BreakpointAction::Log)
        {
            // A logpoint's lines are bounded like snapshots: past max_hits or its expiry, none.
            crate::snapshots::methods::finished(id, record.limits.state(&record.tally, now))?;
        }
        let known = st.records.by_id.get_mut(id).map(|record| {
            // The program counts its own arrivals (it decides the hit condition with them); a
            // report without a count (an uncaught exception) is one more hit.
            record.hit_count = hit_count.unwrap_or(record.hit_count + 1);
            record.last_hit = Some(data.clone());
            if kind == EventKind::Log && record.action == BreakpointAction::Log {
                record.tally.captured += 1;
                completed = record.limits.state(&record.tally, now) != BreakpointState::Active;
            }
            record.clone()
        });
        if let Some(record) = known {
            st.save_record(&record)?;
        }
        st.log(now, kind, &process_key, None, data)?;
        drop(st);
        if completed {
            self.breakpoints_changed();
        } else {
            self.publish(LiveEvent::BreakpointsChanged);
        }
        Ok(())
    }

    /// `{"event": "hit_count", "counts": {id: n}}`: arrivals a program counted without a hit to
    /// report (its hit condition skipped them). Not an event of the log: only the counts change.
    fn report_hit_counts(&self, report: &Value) -> Result<()> {
        let counts = report
            .get("counts")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::invalid("invalid_counts", "\"counts\" is an object of breakpoint id → hit count"))?;
        let mut st = self.state();
        for (id, count) in counts {
            let Some(count) = count.as_u64() else {
                return Err(Error::invalid("invalid_counts", format!("the hit count of {id} is not a count: {count}")));
            };
            let updated = st.records.by_id.get_mut(id).map(|record| {
                record.hit_count = count;
                record.clone()
            });
            if let Some(record) = updated {
                st.save_record(&record)?;
            }
        }
        // Snapshot and logpoint hits a program skipped or could not send, as increments.
        for field in ["skipped_quota", "skipped_rate", "dropped"] {
            let Some(increments) = report.get(field) else { continue };
            let increments = increments.as_object().ok_or_else(|| {
                Error::invalid("invalid_counts", format!("{field:?} is an object of breakpoint id → count"))
            })?;
            for (id, n) in increments {
                let n = n.as_u64().ok_or_else(|| {
                    Error::invalid("invalid_counts", format!("the {field} count of {id} is not a count: {n}"))
                })?;
                let Some(record) = st.records.by_id.get_mut(id) else { continue };
                let tally = &mut record.tally;
                let slot = match field {
                    "skipped_quota" => &mut tally.skipped_quota,
                    "skipped_rate" => &mut tally.skipped_rate,
                    _ => &mut tally.dropped,
                };
                *slot = slot.saturating_add(n);
                let record = record.clone();
                st.save_record(&record)?;
            }
        }
        drop(st);
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(())
    }
}
