//! What the options of function and error breakpoints decide at a call (issue 18), for every
//! client: disabled ones, patterns and hit conditions that do not hold let the call run; a
//! logpoint logs; the rest pause. Conditions need the call's frame: see `check_conditions`.

use serde_json::{json, Value};

use super::state::BreakpointParts;
use crate::calls::CallData;
use crate::error::Result;
use crate::model::EventKind;

use crate::breakpoints::policy::{BreakpointAction, BreakpointState};
use crate::breakpoints::record::{BreakpointKind, BreakpointRecord, HitCondition};

impl BreakpointParts<'_> {
    /// The function breakpoints' options at a call of `call.method_name`, decided here for every
    /// client: disabled ones and those whose pattern or hit condition does not hold let the call
    /// run; a logpoint logs; the rest pause. Returns whether any enabled record wants a pause,
    /// or None when the name has no record with options (the behaviours decide, as before).
    pub(crate) fn function_gate(&mut self, call: &CallData, now: f64) -> Result<Option<Gate>> {
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
                if !crate::breakpoints::record::pattern_matches(pattern, &args_text) {
                    continue;
                }
            }
            if record.action == BreakpointAction::Snapshot {
                let none = std::collections::BTreeMap::new();
                let labels = self.records.follower_labels.get(&call.process_key).unwrap_or(&none);
                let active = record.limits.state(&record.tally, now) == BreakpointState::Active;
                if active && record.limits.arms_in(labels) {
                    gate.snapshots.push(record.clone());
                }
                continue;
            }
            if record.condition.is_some() {
                // Evaluated in the paused call (pauses.rs): the hit is counted only if it holds.
                gate.conditions.push(id.clone());
                continue;
            }
            // Counted in the database: servers sharing it count one breakpoint together.
            record.hit_count = self.store.count_breakpoint_hits(&id, 1)?.unwrap_or(record.hit_count + 1);
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
                self.store.log(now, event, &call.process_key, None, data)?;
            }
        }
        Ok(Some(gate))
    }
}

impl BreakpointParts<'_> {
    /// Error breakpoints at a call that raised `type_name` (reported by the call's wrapper):
    /// whether one pauses after it. Logpoints log; options are decided as for function ones.
    pub(crate) fn error_gate(&mut self, call: &CallData, type_name: &str, now: f64) -> Result<bool> {
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
                if !crate::breakpoints::record::pattern_matches(pattern, &args_text) {
                    continue;
                }
            }
            // Counted in the database: servers sharing it count one breakpoint together.
            record.hit_count = self.store.count_breakpoint_hits(&id, 1)?.unwrap_or(record.hit_count + 1);
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
                self.store.log(now, event, &call.process_key, None, data)?;
            }
        }
        Ok(pause)
    }
}

/// What the function breakpoints of one call decided.
#[derive(Default)]
pub(crate) struct Gate {
    /// A breakpoint without a condition matched: pause.
    pub pause: bool,
    /// Breakpoints whose condition the paused call must evaluate first.
    pub conditions: Vec<String>,
    /// Snapshot breakpoints the program captures this call for, without pausing (issue 34): it
    /// decides their conditions, rates and budget itself, read-only.
    pub snapshots: Vec<BreakpointRecord>,
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
pub(crate) fn interpolate(message: &str, call: &CallData) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_come_from_the_signature() {
        assert_eq!(parameter_names("(a, b=2, *rest, c: int = 3)"), ["a", "b", "rest", "c"]);
        assert_eq!(parameter_names(""), Vec::<String>::new());
    }
}
