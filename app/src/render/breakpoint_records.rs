//! Every breakpoint of every kind on `/` (issue 18): where it is, its options as a form edited in
//! place, its hit count and latest hit (a condition's error, a logpoint's message), and a form to
//! add one. Controls carry `data-action` for the page's handlers (`crate::pages::paused`).

use std::fmt::Write;

use breakroom_debugger::breakpoint_spec::BreakpointRecord;
use serde_json::Value;

use super::esc;

const KINDS: &[(&str, &str)] = &[("function", "function"), ("line", "line"), ("error", "error")];

/// The option inputs of a breakpoint (`name`, label, placeholder).
const OPTIONS: &[(&str, &str, &str)] = &[
    ("condition", "if", "Python expression"),
    ("hit_condition", "hit", "5, >= 5, % 10"),
    ("pattern", "args match", "regex"),
    ("log_message", "log", "n={n}: logs instead of pausing"),
];

pub fn breakpoint_records(records: &[BreakpointRecord]) -> String {
    let mut out = String::from(r#"<div class="breakpoint-records">"#);
    if records.is_empty() {
        out.push_str(
            r#"<p class="hint">No breakpoints by id yet: add a function, line or error breakpoint below.</p>"#,
        );
    }
    for record in records {
        record_form(&mut out, record);
    }
    out.push_str(r#"<form class="record add-record" data-action="add-record"><select name="kind" aria-label="Kind">"#);
    for (value, label) in KINDS {
        let _ = write!(out, r#"<option value="{value}">{label}</option>"#);
    }
    out.push_str(concat!(
        r#"</select><input type="text" name="target" aria-label="Where" "#,
        r#"placeholder="function name | file.py:LINE | ValueError, KeyError (empty: any)">"#
    ));
    option_inputs(&mut out, None);
    out.push_str(r#"<button type="submit">Add</button></form></div>"#);
    out
}

fn record_form(out: &mut String, record: &BreakpointRecord) {
    let id = esc(&record.id);
    let disabled = if record.enabled { "" } else { " disabled-record" };
    let _ = write!(
        out,
        concat!(
            r#"<form class="record{disabled}" data-action="save-record" data-record="{id}">"#,
            r#"<span class="mono record-id">{id}</span> <span class="badge kind-{kind}">{kind}</span> "#,
            r#"<span class="fn-name record-where">{place}</span>"#
        ),
        disabled = disabled,
        id = id,
        kind = record.kind.as_str(),
        place = esc(&record.location()),
    );
    option_inputs(out, Some(record));
    let checked = if record.enabled { " checked" } else { "" };
    let _ = write!(
        out,
        concat!(
            r#"<label><input type="checkbox" name="enabled"{checked}> enabled</label>"#,
            r#"<span class="hit-count" title="hits">hits: {hits}</span>"#
        ),
        checked = checked,
        hits = record.hit_count,
    );
    if let Some(last) = &record.last_hit {
        let text = |key: &str| last.get(key).and_then(Value::as_str).map(str::to_string);
        if let Some(error) = text("error") {
            let _ = write!(out, r#"<span class="error record-error">condition raised {}</span>"#, esc(&error));
        } else if let Some(message) = text("message") {
            let _ = write!(out, r#"<span class="hint record-log">last log: {}</span>"#, esc(&message));
        }
    }
    for refusal in &record.refused_by {
        let _ = write!(
            out,
            r#"<span class="hint record-refused">{}: {}</span>"#,
            esc(&refusal.process_key),
            esc(&refusal.reason)
        );
    }
    out.push_str(concat!(
        r#"<button type="submit" class="small">Save</button>"#,
        r#"<button type="button" class="small" data-action="remove-record">Remove</button></form>"#
    ));
}

fn option_inputs(out: &mut String, record: Option<&BreakpointRecord>) {
    for (name, label, placeholder) in OPTIONS {
        let value = record.and_then(|r| match *name {
            "condition" => r.condition.clone(),
            "hit_condition" => r.hit_condition.clone(),
            "pattern" => r.pattern.clone(),
            _ => r.log_message.clone(),
        });
        let _ = write!(
            out,
            r#"<label>{label} <input type="text" name="{name}" value="{value}" placeholder="{placeholder}"></label>"#,
            value = esc(value.as_deref().unwrap_or("")),
        );
    }
}
