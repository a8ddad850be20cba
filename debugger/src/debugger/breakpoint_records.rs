//! Breakpoints of every kind by id (issue 18): add, change, remove, clear; the channel running
//! programs hold to learn of changes at once; the hits and logpoint messages they report; and
//! the options of function breakpoints decided here, for every client.

use indexmap::IndexMap;

use super::*;
use crate::breakpoint_spec::{BreakpointKind, BreakpointRecord, HitCondition};

/// What the server holds of breakpoints by id.
#[derive(Default)]
pub(super) struct Records {
    pub by_id: IndexMap<String, BreakpointRecord>,
    /// The next `bp-N` (never reused, so an id in an old event log means one breakpoint).
    pub next: u64,
}

/// What `breakpoint_changes` answers: the version and every breakpoint at that version.
#[derive(Clone, Debug, Serialize)]
pub struct BreakpointSnapshot {
    pub version: u64,
    pub breakpoints: Vec<BreakpointRecord>,
}

impl Debugger {
    pub fn breakpoint_records(&self) -> Vec<BreakpointRecord> {
        self.state().records.by_id.values().cloned().collect()
    }

    pub fn breakpoint_record(&self, id: &str) -> Result<BreakpointRecord> {
        self.state().records.by_id.get(id).cloned().ok_or_else(|| Error::BreakpointNotFound(id.to_string()))
    }

    /// `POST /api/breakpoints` with a `kind`. A function breakpoint also registers the name, so
    /// an unchanged cideldill client pauses there as before.
    pub fn add_breakpoint_record(&self, body: &Value) -> Result<BreakpointRecord> {
        let mut st = self.state();
        let position = st.records.next.max(1);
        let record = BreakpointRecord::from_body(format!("bp-{position}"), body, ids::now()).map_err(spec_error)?;
        st.records.next = position + 1;
        if let Some(name) = record.function_name.clone() {
            st.breakpoints.by_name.entry(name.clone()).or_default();
            st.save_breakpoint(&name)?;
        }
        st.store.put_breakpoint_record(position, &record)?;
        st.records.by_id.insert(record.id.clone(), record.clone());
        drop(st);
        self.breakpoints_changed();
        Ok(record)
    }

    /// `PATCH /api/breakpoints/{id}`: options only.
    pub fn update_breakpoint_record(&self, id: &str, changes: &Value) -> Result<BreakpointRecord> {
        let mut st = self.state();
        let current = st.records.by_id.get(id).ok_or_else(|| Error::BreakpointNotFound(id.to_string()))?;
        let mut next = current.patched(changes).map_err(spec_error)?;
        if next.hit_condition != current.hit_condition {
            next.hit_count = 0; // a new hit condition counts from the start
        }
        st.save_record(&next)?;
        st.records.by_id.insert(id.to_string(), next.clone());
        drop(st);
        self.breakpoints_changed();
        Ok(next)
    }

    /// `DELETE /api/breakpoints/{id}`. Removing the last breakpoint on a function name removes
    /// the name's breakpoint too (what cideldill's `DELETE /api/breakpoints/{name}` does).
    pub fn remove_breakpoint_record(&self, id: &str) -> Result<BreakpointRecord> {
        let mut st = self.state();
        let record = st.records.by_id.shift_remove(id).ok_or_else(|| Error::BreakpointNotFound(id.to_string()))?;
        st.store.delete_breakpoint_record(id)?;
        if let Some(name) = &record.function_name {
            if !st.records.by_id.values().any(|r| r.function_name.as_ref() == Some(name)) {
                st.breakpoints.by_name.remove(name);
                st.save_breakpoint(name)?;
            }
        }
        drop(st);
        self.breakpoints_changed();
        Ok(record)
    }

    /// `DELETE /api/breakpoints`: every breakpoint of every kind. Returns how many went.
    pub fn clear_breakpoints(&self) -> Result<usize> {
        let mut st = self.state();
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
        drop(st);
        self.breakpoints_changed();
        Ok(ids.len().max(names.len()))
    }

    /// Waits (up to the poll hold) until the breakpoints differ from version `since`, then
    /// answers all of them: what a running program's watcher holds open.
    pub async fn breakpoint_changes(&self, since: Option<u64>) -> BreakpointSnapshot {
        let mut watch = self.inner.breakpoint_version.subscribe();
        if let Some(since) = since {
            let changed = watch.wait_for(|version| *version != since);
            let _ = tokio::time::timeout(self.inner.config.poll_hold, changed).await;
        }
        let version = *watch.borrow();
        BreakpointSnapshot { version, breakpoints: self.breakpoint_records() }
    }

    pub(super) fn breakpoints_changed(&self) {
        self.inner.breakpoint_version.send_modify(|v| *v += 1);
        self.publish(LiveEvent::BreakpointsChanged);
    }

    /// A hit or logpoint message a program reports (`POST /api/breakpoints/hits`): counted on its
    /// breakpoint and appended to the event log as `breakpoint_hit` or `log`.
    pub fn report_breakpoint_hit(&self, report: &Value) -> Result<()> {
        let kind = match report.get("event").and_then(Value::as_str) {
            Some("breakpoint_hit") => EventKind::BreakpointHit,
            Some("log") => EventKind::Log,
            other => {
                return Err(Error::invalid(
                    "invalid_event",
                    format!("event must be \"breakpoint_hit\" or \"log\", not {other:?}"),
                ))
            }
        };
        let id = report
            .get("breakpoint_id")
            .and_then(Value::as_str)
            .ok_or(Error::MissingField { code: "missing_breakpoint_id", field: "breakpoint_id" })?;
        let (pid, start_time) =
            calls::process_identity(&report.get("process_pid").cloned(), &report.get("process_start_time").cloned())?;
        let process_key = ids::process_key(pid, start_time);
        let hit_count = report.get("hit_count").and_then(Value::as_u64);
        let mut data = report.clone();
        if let Some(obj) = data.as_object_mut() {
            obj.remove("event");
        }
        let mut st = self.state();
        let known = st.records.by_id.get_mut(id).map(|record| {
            // The program counts its own arrivals (it decides the hit condition with them).
            if let Some(count) = hit_count {
                record.hit_count = count;
            }
            record.last_hit = Some(data.clone());
            record.clone()
        });
        if let Some(record) = known {
            st.save_record(&record)?;
        }
        st.log(ids::now(), kind, &process_key, None, data)?;
        drop(st);
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(())
    }
}

impl State {
    fn save_record(&self, record: &BreakpointRecord) -> Result<()> {
        let position = record.id.strip_prefix("bp-").and_then(|n| n.parse().ok()).unwrap_or(0);
        self.store.put_breakpoint_record(position, record)
    }

    /// cideldill's `POST /api/breakpoints {function_name}`: the name gets a function record too,
    /// so every breakpoint has an id.
    pub(super) fn ensure_function_record(&mut self, name: &str, now: f64) -> Result<()> {
        if self.records.by_id.values().any(|r| r.function_name.as_deref() == Some(name)) {
            return Ok(());
        }
        let position = self.records.next.max(1);
        let body = json!({"kind": "function", "function_name": name});
        let record = BreakpointRecord::from_body(format!("bp-{position}"), &body, now).map_err(spec_error)?;
        self.records.next = position + 1;
        self.store.put_breakpoint_record(position, &record)?;
        self.records.by_id.insert(record.id.clone(), record);
        Ok(())
    }

    /// cideldill's `DELETE /api/breakpoints/{name}`: its function records go with it.
    pub(super) fn remove_function_records(&mut self, name: &str) -> Result<()> {
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
    pub(super) fn restore_records(&mut self) -> Result<()> {
        for (position, record) in self.store.breakpoint_records()? {
            self.records.next = self.records.next.max(position + 1);
            self.records.by_id.insert(record.id.clone(), record);
        }
        Ok(())
    }

    /// The function breakpoints' options at a call of `call.method_name`, decided here for every
    /// client: disabled ones and those whose pattern or hit condition does not hold let the call
    /// run; a logpoint logs; the rest pause. Returns whether any enabled record wants a pause,
    /// or None when the name has no record with options (the behaviours decide, as before).
    pub(super) fn function_gate(&mut self, call: &CallData, now: f64) -> Result<Option<Gate>> {
        let ids: Vec<String> = self
            .records
            .by_id
            .values()
            .filter(|r| r.kind == BreakpointKind::Function && r.function_name.as_deref() == Some(&call.method_name))
            .map(|r| r.id.clone())
            .collect();
        if ids.is_empty() {
            return Ok(None);
        }
        let args_text = arguments_text(call);
        let mut gate = Gate::default();
        for id in ids {
            let Some(record) = self.records.by_id.get_mut(&id) else { continue };
            if !record.enabled {
                continue;
            }
            if let Some(pattern) = &record.pattern {
                // Checked when it was set: a pattern that does not compile now matches nothing.
                if !regex::Regex::new(pattern).is_ok_and(|re| re.is_match(&args_text)) {
                    continue;
                }
            }
            if record.condition.is_some() {
                // Evaluated in the paused call (pauses.rs): the hit is counted only if it holds.
                gate.conditions.push(id.clone());
                continue;
            }
            record.hit_count += 1;
            let count = record.hit_count;
            if let Some(hit) = record.hit_condition.as_deref().and_then(|h| HitCondition::parse(h).ok()) {
                if !hit.holds(count) {
                    let record = record.clone();
                    self.save_record(&record)?;
                    continue;
                }
            }
            let reason = hit_reason(record, &args_text);
            let mut data = json!({
                "breakpoint_id": id, "kind": "function", "hit_count": count, "reason": reason,
                "function": call.method_name, "call_id": call.call_id,
            });
            let event = match &record.log_message {
                Some(message) => {
                    data["message"] = json!(interpolate(message, call));
                    data["action"] = json!("log");
                    EventKind::Log
                }
                None => {
                    data["action"] = json!("pause");
                    gate.pause = true;
                    EventKind::BreakpointHit
                }
            };
            record.last_hit = Some(data.clone());
            // A plain function breakpoint (no option) pauses as it always did: its `pause` event
            // says it all, and logs of wrapped-function programs stay as they were.
            let plain = record.pattern.is_none() && record.hit_condition.is_none() && record.log_message.is_none();
            let record = record.clone();
            self.save_record(&record)?;
            if !plain {
                self.log(now, event, &call.process_key, None, data)?;
            }
        }
        Ok(Some(gate))
    }
}

impl State {
    /// Error breakpoints at a call that raised `type_name` (reported by the call's wrapper):
    /// whether one pauses after it. Logpoints log; options are decided as for function ones.
    pub(super) fn error_gate(&mut self, call: &CallData, type_name: &str, now: f64) -> Result<bool> {
        let bare = type_name.rsplit('.').next().unwrap_or(type_name);
        let ids: Vec<String> = self
            .records
            .by_id
            .values()
            .filter(|r| r.kind == BreakpointKind::Error && r.enabled)
            .filter(|r| r.exception_types.is_empty() || r.exception_types.iter().any(|t| t == type_name || t == bare))
            .map(|r| r.id.clone())
            .collect();
        let args_text = arguments_text(call);
        let mut pause = false;
        for id in ids {
            let Some(record) = self.records.by_id.get_mut(&id) else { continue };
            if let Some(pattern) = &record.pattern {
                if !regex::Regex::new(pattern).is_ok_and(|re| re.is_match(&args_text)) {
                    continue;
                }
            }
            record.hit_count += 1;
            let count = record.hit_count;
            let held = record
                .hit_condition
                .as_deref()
                .and_then(|h| HitCondition::parse(h).ok())
                .is_none_or(|h| h.holds(count));
            let mut data = json!({
                "breakpoint_id": id, "kind": "error", "hit_count": count,
                "reason": format!("{} raised {type_name}", call.method_name),
                "function": call.method_name, "call_id": call.call_id, "exception_type": type_name,
            });
            let event = if !held {
                None
            } else if let Some(message) = &record.log_message {
                data["message"] = json!(interpolate(message, call));
                data["action"] = json!("log");
                Some(EventKind::Log)
            } else {
                data["action"] = json!("pause");
                pause = true;
                Some(EventKind::BreakpointHit)
            };
            if event.is_some() {
                record.last_hit = Some(data.clone());
            }
            let record = record.clone();
            self.save_record(&record)?;
            if let Some(event) = event {
                self.log(now, event, &call.process_key, None, data)?;
            }
        }
        Ok(pause)
    }
}

/// What the function breakpoints of one call decided.
#[derive(Default)]
pub(super) struct Gate {
    /// A breakpoint without a condition matched: pause.
    pub pause: bool,
    /// Breakpoints whose condition the paused call must evaluate first.
    pub conditions: Vec<String>,
}

fn hit_reason(record: &BreakpointRecord, args_text: &str) -> String {
    let mut why = vec![format!("call of {}", record.function_name.as_deref().unwrap_or("?"))];
    if let Some(p) = &record.pattern {
        why.push(format!("arguments {args_text:?} match {p:?}"));
    }
    if let Some(h) = &record.hit_condition {
        why.push(format!("hit {} meets {h:?}", record.hit_count));
    }
    why.join("; ")
}

/// `name=repr, …` of a call's arguments: what a pattern is matched against (the Python client
/// builds the same text from a frame).
fn arguments_text(call: &CallData) -> String {
    let params = parameter_names(&call.signature);
    let mut parts = vec![];
    for (i, arg) in call.pretty_args.iter().enumerate() {
        let text = value_text(arg);
        match params.get(i) {
            Some(name) => parts.push(format!("{name}={text}")),
            None => parts.push(text),
        }
    }
    for (name, value) in &call.pretty_kwargs {
        parts.push(format!("{name}={}", value_text(value)));
    }
    parts.join(", ")
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `(a, b=2, *rest)` → `a`, `b`, `rest`: the names positional arguments bind to.
fn parameter_names(signature: &str) -> Vec<String> {
    let inner = signature.trim().trim_start_matches('(');
    let inner = inner.split(')').next().unwrap_or("");
    inner
        .split(',')
        .map(|p| p.split(['=', ':']).next().unwrap_or("").trim().trim_start_matches('*').to_string())
        .filter(|p| !p.is_empty() && p != "/")
        .collect()
}

/// A logpoint's `{name}` parts from the call's arguments by name; other `{…}` stay as written
/// (the server has no frame to evaluate them in).
fn interpolate(message: &str, call: &CallData) -> String {
    let params = parameter_names(&call.signature);
    let mut values: std::collections::HashMap<String, String> =
        call.pretty_kwargs.iter().map(|(k, v)| (k.clone(), value_text(v))).collect();
    for (name, value) in params.iter().zip(&call.pretty_args) {
        values.insert(name.clone(), value_text(value));
    }
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if values.contains_key(after[..close].trim()) => {
                out.push_str(&values[after[..close].trim()]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn spec_error(e: crate::breakpoint_spec::SpecError) -> Error {
    Error::invalid(e.code, e.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_come_from_the_signature() {
        assert_eq!(parameter_names("(a, b=2, *rest, c: int = 3)"), ["a", "b", "rest", "c"]);
        assert_eq!(parameter_names(""), Vec::<String>::new());
    }
}
