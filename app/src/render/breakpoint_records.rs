//! Every breakpoint of every kind on `/` (issue 18): where it is, its options as a form edited in
//! place, its hit count and latest hit (a condition's error, a logpoint's message), and a form to
//! add one. Controls carry `data-action` for the page's handlers (`crate::pages::paused`).

use maud::{html, Markup};

use breakroom_debugger::breakpoints::record::BreakpointRecord;
use serde_json::Value;

use crate::controls::Control;

const KINDS: &[(&str, &str)] = &[("function", "function"), ("line", "line"), ("error", "error")];

/// The option inputs of a breakpoint (`name`, label, placeholder).
const OPTIONS: &[(&str, &str, &str)] = &[
    ("condition", "if", "Python expression"),
    ("hit_condition", "hit", "5, >= 5, % 10"),
    ("pattern", "args match", "regex"),
    ("log_message", "log", "n={n}: logs instead of pausing"),
];

pub fn breakpoint_records(records: &[BreakpointRecord]) -> Markup {
    html! {
        div.breakpoint-records {
            @if records.is_empty() {
                p.hint { "No breakpoints by id yet: add a function, line or error breakpoint below." }
            }
            @for record in records { (record_form(record)) }
            form.record.add-record data-action=(Control::AddRecord.as_str()) {
                select name="kind" aria-label="Kind" {
                    @for (value, label) in KINDS { option value=(value) { (label) } }
                }
                input type="text" name="target" aria-label="Where"
                    placeholder="function name | file.py:LINE | ValueError, KeyError (empty: any)";
                (option_inputs(None))
                button type="submit" { "Add" }
            }
        }
    }
}

fn record_form(record: &BreakpointRecord) -> Markup {
    let last = |key: &str| record.last_hit.as_ref().and_then(|l| l.get(key)).and_then(Value::as_str);
    html! {
        form.record.disabled-record[!record.enabled] data-action=(Control::SaveRecord.as_str()) data-record=(record.id) {
            span.mono.record-id { (record.id) }
            " " span class={ "badge kind-" (record.kind.as_str()) } { (record.kind.as_str()) }
            " " span.fn-name.record-where { (record.location()) }
            (option_inputs(Some(record)))
            label { input type="checkbox" name="enabled" checked[record.enabled]; " enabled" }
            span.hit-count title="hits" { "hits: " (record.hit_count) }
            @if let Some(error) = last("error") {
                span.error.record-error { "condition raised " (error) }
            } @else if let Some(message) = last("message") {
                span.hint.record-log { "last log: " (message) }
            }
            @for refusal in &record.refused_by {
                span.hint.record-refused { (refusal.process_key) ": " (refusal.reason) }
            }
            button.small type="submit" { "Save" }
            button.small type="button" data-action=(Control::RemoveRecord.as_str()) { "Remove" }
        }
    }
}

fn option_inputs(record: Option<&BreakpointRecord>) -> Markup {
    html! {
        @for (name, label, placeholder) in OPTIONS {
            @let value = record.and_then(|r| match *name {
                "condition" => r.condition.as_deref(),
                "hit_condition" => r.hit_condition.as_deref(),
                "pattern" => r.pattern.as_deref(),
                _ => r.log_message.as_deref(),
            });
            label { (label) " " input type="text" name=(name) value=(value.unwrap_or("")) placeholder=(placeholder); }
        }
    }
}
