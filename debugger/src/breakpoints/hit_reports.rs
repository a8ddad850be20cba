//! The hits, logpoint lines and counts programs report (`POST /api/breakpoint-hits`): counted
//! on their breakpoint and kept in the event log; a logpoint past its `max_hits` or expiry is
//! refused (issue 34).

use super::state::{BreakpointHost, BreakpointsState};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::breakpoints::policy::{BreakpointAction, BreakpointState, HitTally};
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{EventKind, LiveEvent};

/// `POST /api/breakpoint-hits`: a hit or a logpoint's line, or the counts a program kept. Read
/// by hand (`Deserialize` below) so each bad field gets the code it always had.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HitReport {
    Hit(BreakpointHit),
    /// `{"event": "hit_count", …}`.
    Counts(HitCounts),
}

/// Which event a hit report is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HitEvent {
    BreakpointHit,
    Log,
    HitCount,
}

/// A hit or a logpoint's line, as a program reports it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BreakpointHit {
    /// `breakpoint_hit` or `log`.
    pub event: HitEvent,
    pub breakpoint_id: String,
    /// A whole number from 0 (a browser page) to 2^32 - 1 (Windows' pids are unsigned).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 4_294_967_295_i64))]
    pub process_pid: i64,
    pub process_start_time: f64,
    /// The program's process record (Breakroom's client sends it): a program that only logs is
    /// a process too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// The program's own count of arrivals; none (an uncaught exception): one more hit.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 9_223_372_036_854_775_807_i64))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_count: Option<u64>,
    /// Everything the program sent but `event` (kind, action, reason, message, error, file,
    /// line, function…): kept as the breakpoint's `last_hit` and in the event log.
    #[serde(skip)]
    pub details: HitDetails,
}

/// A hit's fields as the program sent them: JSON the server keeps and shows, not reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HitDetails(pub Map<String, Value>);

/// Arrivals a program counted without a hit to report (its hit condition skipped them), and
/// the snapshot and logpoint hits it skipped or could not send, as increments.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HitCounts {
    /// `hit_count`.
    pub event: HitEvent,
    /// Breakpoint id → the program's count of arrivals.
    pub counts: BTreeMap<String, u64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_quota: BTreeMap<String, u64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_rate: BTreeMap<String, u64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub dropped: BTreeMap<String, u64>,
    /// The counting program (`process_pid` and `process_start_time`, when sent): its counts add
    /// to other programs'.
    #[serde(skip)]
    pub process_key: Option<String>,
}

impl<'de> Deserialize<'de> for HitReport {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> std::result::Result<Self, D::Error> {
        let report = Value::deserialize(de)?;
        HitReport::read(report).map_err(|e| crate::wire::refuse(e.code(), &e))
    }
}

impl HitReport {
    fn read(report: Value) -> Result<Self> {
        let event = match report.get("event").and_then(Value::as_str) {
            Some("hit_count") => return HitCounts::read(&report).map(HitReport::Counts),
            Some("breakpoint_hit") => HitEvent::BreakpointHit,
            Some("log") => HitEvent::Log,
            other => {
                return Err(Error::invalid(
                    "invalid_event",
                    format!("event must be \"breakpoint_hit\", \"log\" or \"hit_count\", not {other:?}"),
                ))
            }
        };
        let breakpoint_id = report
            .get("breakpoint_id")
            .and_then(Value::as_str)
            .ok_or(Error::MissingField { code: "missing_breakpoint_id", field: "breakpoint_id" })?
            .to_string();
        let (process_pid, process_start_time) = crate::ids::process_identity(
            &report.get("process_pid").cloned(),
            &report.get("process_start_time").cloned(),
        )?;
        check_detail_types(&report)?;
        let text = |key: &str| report.get(key).and_then(Value::as_str).map(str::to_string);
        let argv = report
            .get("argv")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<String>>());
        let mut details = match report.clone() {
            Value::Object(details) => details,
            _ => Map::new(),
        };
        details.remove("event");
        Ok(HitReport::Hit(BreakpointHit {
            event,
            breakpoint_id,
            process_pid,
            process_start_time,
            hostname: text("hostname"),
            process_id: text("process_id"),
            argv,
            hit_count: report.get("hit_count").and_then(count),
            details: HitDetails(details),
        }))
    }
}

/// The fields a hit's details are shown by (the pages, `breakroom replay`, the event log): each
/// of them, when sent, is of the type the clients send, or the report is refused naming it.
const TEXT_DETAILS: &[&str] =
    &["kind", "action", "reason", "message", "error", "file", "function", "hostname", "process_id"];
const COUNT_DETAILS: &[&str] = &["hit_count", "line"];

/// A count as the stores keep it: a whole number that fits their signed 64-bit columns.
fn count(value: &Value) -> Option<u64> {
    value.as_u64().filter(|n| i64::try_from(*n).is_ok())
}

fn check_detail_types(report: &Value) -> Result<()> {
    let sent = |key: &str| report.get(key).filter(|v| !v.is_null());
    for key in TEXT_DETAILS {
        if let Some(value) = sent(key).filter(|v| !v.is_string()) {
            return Err(Error::invalid("invalid_hit", format!("{key} must be a string, not {value}")));
        }
    }
    for key in COUNT_DETAILS {
        if let Some(value) = sent(key).filter(|v| count(v).is_none()) {
            return Err(Error::invalid(
                "invalid_hit",
                format!("{key} must be a whole number from 0 to 2^63 - 1, not {value}"),
            ));
        }
    }
    if let Some(argv) = sent("argv") {
        if !argv.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
            return Err(Error::invalid("invalid_hit", format!("argv must be a list of strings, not {argv}")));
        }
    }
    Ok(())
}

impl HitCounts {
    fn read(report: &Value) -> Result<Self> {
        let counts = report
            .get("counts")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::invalid("invalid_counts", "\"counts\" is an object of breakpoint id → hit count"))?;
        let counts = counts
            .iter()
            .map(|(id, sent)| match count(sent) {
                Some(n) => Ok((id.clone(), n)),
                None => Err(Error::invalid(
                    "invalid_counts",
                    format!("the hit count of {id} is not a count from 0 to 2^63 - 1: {sent}"),
                )),
            })
            .collect::<Result<_>>()?;
        let increments = |field: &str| -> Result<BTreeMap<String, u64>> {
            let Some(increments) = report.get(field) else { return Ok(BTreeMap::new()) };
            let increments = increments.as_object().ok_or_else(|| {
                Error::invalid("invalid_counts", format!("{field:?} is an object of breakpoint id → count"))
            })?;
            increments
                .iter()
                .map(|(id, n)| match count(n) {
                    Some(n) => Ok((id.clone(), n)),
                    None => {
                        Err(Error::invalid("invalid_counts", format!("the {field} count of {id} is not a count: {n}")))
                    }
                })
                .collect()
        };
        // Optional (a count is counted without it), but a pid or start time sent must be good.
        let (pid, start) = (report.get("process_pid").cloned(), report.get("process_start_time").cloned());
        let sent = |v: &Option<Value>| v.as_ref().is_some_and(|v| !v.is_null());
        let process_key = if sent(&pid) || sent(&start) {
            let (pid, start) = crate::ids::process_identity(&pid, &start)?;
            Some(ids::process_key(pid, start))
        } else {
            None
        };
        Ok(HitCounts {
            event: HitEvent::HitCount,
            process_key,
            counts,
            skipped_quota: increments("skipped_quota")?,
            skipped_rate: increments("skipped_rate")?,
            dropped: increments("dropped")?,
        })
    }
}

impl<H: BreakpointHost> super::BreakpointService<'_, H> {
    /// A hit or logpoint message a program reports (`POST /api/breakpoint-hits`): counted on its
    /// breakpoint and appended to the event log as `breakpoint_hit` or `log`. The doors call it
    /// through `debugger.calls()`, which first notes the reporting process.
    pub fn report_breakpoint_hit(&self, report: HitReport) -> Result<()> {
        let hit = match report {
            HitReport::Counts(counts) => return self.report_hit_counts(counts),
            HitReport::Hit(hit) => hit,
        };
        let kind = if hit.event == HitEvent::Log { EventKind::Log } else { EventKind::BreakpointHit };
        let id = hit.breakpoint_id.as_str();
        let (pid, start_time) = (hit.process_pid, hit.process_start_time);
        let process_key = ids::process_key(pid, start_time);
        let hit_count = hit.hit_count;
        let mut data = Value::Object(hit.details.0);
        // A logpoint's message from a client that does not redact (issue 50); idempotent on ours.
        self.debugger.policy().redact_json(&mut data);
        let now = ids::now();
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let mut completed = false;
        if let Some(record) =
            st.records.by_id.get(id).filter(|r| kind == EventKind::Log && r.action == BreakpointAction::Log)
        {
            // A logpoint's lines are bounded like snapshots: past max_hits or its expiry, none.
            super::by_id::finished(id, record.limits.state(&record.tally, now))?;
        }
        // The program counts its own arrivals (it decides the hit condition with them); a report
        // without a count (an uncaught exception) is one more hit, counted in the database.
        let counted = match hit_count {
            Some(n) if st.records.by_id.contains_key(id) => st.store.program_counted_hits(id, &process_key, n)?,
            Some(n) => Some(n),
            None => st.store.count_breakpoint_hits(id, 1)?,
        };
        let logged =
            st.records.by_id.get(id).is_some_and(|r| kind == EventKind::Log && r.action == BreakpointAction::Log);
        // A log line is counted in the database too: every server's lines go to one max_hits.
        let tally = match logged {
            true => st.store.count_tally(id, &HitTally { captured: 1, ..Default::default() })?,
            false => None,
        };
        let known = st.records.by_id.get_mut(id).map(|record| {
            record.hit_count = counted.unwrap_or(record.hit_count + 1);
            record.last_hit = Some(data.clone());
            if logged {
                match tally {
                    Some(tally) => record.tally = tally,
                    None => record.tally.captured += 1,
                }
                completed = record.limits.state(&record.tally, now) != BreakpointState::Active;
            }
            record.clone()
        });
        if let Some(record) = known {
            st.save_record(&record)?;
        }
        st.store.log(now, kind, &process_key, None, data)?;
        drop(guard);
        // Every program disarms a breakpoint that completed; the page of the process shows its hit.
        if completed {
            self.wake_breakpoint_channels();
        }
        self.debugger.publish(LiveEvent::breakpoint_hit(&process_key, vec![id.to_string()]));
        Ok(())
    }

    /// `{"event": "hit_count", "counts": {id: n}}`: arrivals a program counted without a hit to
    /// report (its hit condition skipped them). Not an event of the log: only the counts change.
    fn report_hit_counts(&self, report: HitCounts) -> Result<()> {
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let process_key = report.process_key.as_deref().unwrap_or("");
        // Only a count that moved is news for the pages (a program's first report says 0).
        let mut changed = std::collections::BTreeSet::new();
        for (id, count) in &report.counts {
            if !st.records.by_id.contains_key(id) {
                continue;
            }
            let total = st.store.program_counted_hits(id, process_key, *count)?;
            let updated = st.records.by_id.get_mut(id).map(|record| {
                let before = record.hit_count;
                record.hit_count = total.unwrap_or(record.hit_count);
                if record.hit_count != before {
                    changed.insert(id.clone());
                }
                record.clone()
            });
            if let Some(record) = updated {
                st.save_record(&record)?;
            }
        }
        // Snapshot and logpoint hits a program skipped or could not send, as increments, added in
        // the database (other servers add theirs).
        let mut increments: BTreeMap<&String, HitTally> = BTreeMap::new();
        for (id, n) in &report.skipped_quota {
            increments.entry(id).or_default().skipped_quota = *n;
        }
        for (id, n) in &report.skipped_rate {
            increments.entry(id).or_default().skipped_rate = *n;
        }
        for (id, n) in &report.dropped {
            increments.entry(id).or_default().dropped = *n;
        }
        for (id, add) in increments {
            if !st.records.by_id.contains_key(id) {
                continue;
            }
            let counted = st.store.count_tally(id, &add)?;
            let Some(record) = st.records.by_id.get_mut(id) else { continue };
            let t = &mut record.tally;
            let before = *t;
            *t = counted.unwrap_or(HitTally {
                captured: t.captured,
                skipped_quota: t.skipped_quota.saturating_add(add.skipped_quota),
                skipped_rate: t.skipped_rate.saturating_add(add.skipped_rate),
                dropped: t.dropped.saturating_add(add.dropped),
            });
            if *t != before {
                changed.insert(id.clone());
            }
            let record = record.clone();
            st.save_record(&record)?;
        }
        drop(guard);
        if !changed.is_empty() {
            self.debugger.publish(LiveEvent::breakpoint_hit(process_key, changed.into_iter().collect()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::breakpoints::record::{BreakpointOptions, BreakpointSpec};
    use crate::model::LiveEvent;
    use crate::{Config, Debugger};

    fn report(debugger: &Debugger, report: serde_json::Value) {
        let report = serde_json::from_value(report).expect("a report");
        debugger.breakpoints().report_breakpoint_hit(report).expect("the report is taken");
    }

    #[test]
    fn a_hit_names_its_process_and_breakpoint_and_a_count_that_moved_nothing_is_not_news() {
        let debugger = Debugger::for_tests(Config::default());
        let bp = debugger.breakpoints().add_breakpoint_record(&BreakpointSpec::line("/srv/app.py", 3)).unwrap();
        let still = debugger.breakpoints().add_breakpoint_record(&BreakpointSpec::line("/srv/app.py", 9)).unwrap();
        let mut events = debugger.subscribe();
        let (pid, start) = (4242, 1795331833.5);
        let key = crate::ids::process_key(pid, start);
        // A program's first report of a breakpoint it armed says 0: nothing changed.
        report(
            &debugger,
            json!({"event": "hit_count", "counts": {bp.id.clone(): 0}, "process_pid": pid, "process_start_time": start}),
        );
        report(
            &debugger,
            json!({"event": "log", "breakpoint_id": bp.id, "message": "n=1", "hit_count": 1,
                                 "process_pid": pid, "process_start_time": start}),
        );
        report(
            &debugger,
            json!({"event": "hit_count", "counts": {bp.id.clone(): 5, still.id.clone(): 0},
                   "process_pid": pid, "process_start_time": start}),
        );
        let mut seen = vec![];
        while let Ok(event) = events.try_recv() {
            if matches!(event, LiveEvent::BreakpointsChanged { .. }) {
                seen.push(event);
            }
        }
        // Only the breakpoint whose count moved is named: a list of breakpoints updates that one.
        let hit = LiveEvent::breakpoint_hit(&key, vec![bp.id.clone()]);
        assert_eq!(seen, [hit.clone(), hit]);
    }

    #[test]
    fn a_condition_that_held_on_a_hit_its_hit_condition_skips_is_counted_and_told() {
        let debugger = Debugger::for_tests(Config::default());
        let options = BreakpointOptions {
            condition: Some(Some("x > 0".into())),
            hit_condition: Some(Some(">= 2".into())),
            ..Default::default()
        };
        let bp =
            debugger.breakpoints().add_breakpoint_record(&BreakpointSpec::function("settle").with(options)).unwrap();
        let key = crate::ids::process_key(4242, 1795331833.5);
        let call: crate::calls::CallData = serde_json::from_value(json!({
            "method_name": "settle", "call_id": "c-1", "pretty_target": null, "args": [], "kwargs": {},
            "pretty_args": [], "pretty_kwargs": {}, "signature": "(x)", "call_site": {}, "preferred_format": "dill",
            "process_pid": 4242, "process_start_time": 1795331833.5, "process_key": key,
        }))
        .expect("a call");
        let mut events = debugger.subscribe();
        // The first hit is skipped by `>= 2`: no pause, but the count moved and the pages hear it.
        assert!(!debugger.breakpoints().condition_hit(&bp.id, "x > 0", None, &call).unwrap());
        assert_eq!(debugger.breakpoints().breakpoint_record(&bp.id).unwrap().hit_count, 1);
        assert_eq!(events.try_recv().ok(), Some(LiveEvent::breakpoint_hit(&key, vec![bp.id.clone()])));
        // The second one holds: it pauses, and is told too.
        assert!(debugger.breakpoints().condition_hit(&bp.id, "x > 0", None, &call).unwrap());
        assert_eq!(events.try_recv().ok(), Some(LiveEvent::breakpoint_hit(&key, vec![bp.id.clone()])));
    }
}
