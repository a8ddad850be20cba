//! Every breakpoint of every kind on `/` (issue 18): where it is, its options as a form edited in
//! place, its hit count and latest hit (a condition's error, a logpoint's message), and a form to
//! add one. Controls carry `data-action` for the page's handlers (`crate::pages::paused`).
//!
//! A log or snapshot breakpoint (issue 34) also shows whether it still arms and what became of
//! its hits; a snapshot breakpoint links to its snapshots on `/snapshots`.

use maud::{html, Markup};

use breakroom_debugger::breakpoints::policy::BreakpointAction;
use breakroom_debugger::breakpoints::record::BreakpointRecord;
use serde_json::Value;

use super::encode;
use super::snapshots::{expiry, status_badge, where_labels};
use crate::controls::Control;

const KINDS: &[(&str, &str)] = &[("function", "function"), ("line", "line"), ("error", "error")];
const ACTIONS: &[(&str, &str)] = &[("pause", "pause"), ("log", "log"), ("snapshot", "snapshot")];

/// The add form's inputs for log and snapshot breakpoints (`name`, label, placeholder). Watch
/// expressions are separated by `;`, which no Python expression has outside its strings and
/// brackets (`crate::breakpoint_api` splits there only); a `,` could be a tuple's.
const BOUNDS: &[(&str, &str, &str)] = &[
    ("max_hits", "max hits", "snapshot: 1"),
    ("expires_in", "expires in", "90s, 30m, 1h, 2d (snapshot: 1d)"),
    ("where", "processes with", "labels: service=api, env=prod"),
];

/// The option inputs of a breakpoint (`name`, label, placeholder).
const OPTIONS: &[(&str, &str, &str)] = &[
    ("condition", "if", "Python expression"),
    ("hit_condition", "hit", "5, >= 5, % 10"),
    ("pattern", "args match", "regex"),
    ("log_message", "log", "n={n}: logs instead of pausing"),
];

/// The redaction rules and the places not debugged in force (issue 50), under the breakpoints:
/// what the programs replace by `[redacted]` before they send, and where nothing is debugged.
pub fn policy(policy: &breakroom_debugger::policy::PolicyWire) -> Markup {
    html! {
        details.policy {
            summary {
                "Redaction: " (policy.names.len()) " name rules, "
                (policy.values.len() + usize::from(policy.cards)) " value rules"
                @if !policy.no_debug.is_empty() { "; not debugged: " (policy.no_debug.join(", ")) }
            }
            ul.policy-rules {
                li { "names (any case, anywhere in the name): " code { (policy.names.join(", ")) } }
                li { "values (anywhere in text): " code { (policy.values.join("  ")) }
                    @if policy.cards { " and card numbers passing the Luhn check" } }
                @if !policy.no_debug.is_empty() {
                    li { "not debugged (--no-debug): " code { (policy.no_debug.join(", ")) } }
                }
            }
        }
    }
}

pub fn breakpoint_records(records: &[BreakpointRecord], now: f64) -> Markup {
    html! {
        div.breakpoint-records {
            p.hint.snapshots-link {
                "A " b { "log" } " or " b { "snapshot" } " breakpoint never stops the program; "
                a href="/snapshots" { "the snapshots" } " arrive live."
            }
            @for record in records { (record_form(record, now)) }
            form.record.add-record data-action=(Control::AddRecord.as_str()) {
                select name="kind" aria-label="Kind" {
                    @for (value, label) in KINDS { option value=(value) { (label) } }
                }
                input type="text" name="target" aria-label="Where"
                    placeholder="function name | file.py:LINE | ValueError, KeyError (empty: any)";
                (option_inputs(None))
                label { "action " select name="action" aria-label="Action" {
                    @for (value, label) in ACTIONS { option value=(value) { (label) } }
                } }
                label.watch-input.for-capture { "watch "
                    input type="text" name="expressions" aria-label="Watch expressions"
                        placeholder="snapshot: len(order.items); order.total";
                }
                @for (name, label, placeholder) in BOUNDS {
                    // Hits and expiry bound what a log or snapshot breakpoint records; `where` aims any.
                    label.for-capture[*name != "where"] { (label) " " input type="text" name=(name) placeholder=(placeholder); }
                }
                button type="submit" { "Add" }
            }
        }
    }
}

pub fn record_form(record: &BreakpointRecord, now: f64) -> Markup {
    let last = |key: &str| record.last_hit.as_ref().and_then(|l| l.get(key)).and_then(Value::as_str);
    html! {
        form.record.disabled-record[!record.enabled] data-action=(Control::SaveRecord.as_str()) data-record=(record.id) {
            span.mono.record-id { (record.id) }
            " " span class={ "badge kind-" (record.kind.as_str()) } { (record.kind.as_str()) }
            @if record.action != BreakpointAction::Pause {
                " " span class={ "badge action-" (record.action.as_str()) } { (record.action.as_str()) }
            }
            " " span.fn-name.record-where { (record.location()) }
            (option_inputs(Some(record)))
            label { input type="checkbox" name="enabled" checked[record.enabled]; " enabled" }
            span.hit-count title="hits" { "hits: " (record.hit_count) }
            @if record.action.never_pauses() { (bounded(record, now)) }
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

/// What a log or snapshot breakpoint captures, whether it still arms and what became of its hits.
fn bounded(record: &BreakpointRecord, now: f64) -> Markup {
    let t = &record.tally;
    html! {
        span.record-tally {
            (status_badge(record.state))
            " captured " span.captured { (t.captured) }
            @if let Some(max) = record.limits.max_hits { " of " (max) }
            " · skipped_quota " span.skipped-quota { (t.skipped_quota) }
            " · skipped_rate " span.skipped-rate { (t.skipped_rate) }
            " · dropped " span.dropped { (t.dropped) }
            " · expires " (expiry(record.limits.expires_at, now))
            " · where " (where_labels(record))
        }
        @if !record.expressions.is_empty() {
            span.record-watch {
                "watch " @for e in &record.expressions { code { (e) } " " }
            }
        }
        @if record.action == BreakpointAction::Snapshot {
            a.record-snapshots href={ "/snapshots?breakpoint_id=" (encode(&record.id)) } { "Snapshots" }
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
            label class={ "opt-" (name) } { (label) " " input type="text" name=(name) value=(value.unwrap_or("")) placeholder=(placeholder); }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(body: Value) -> BreakpointRecord {
        let spec = serde_json::from_value(body).expect("a valid breakpoint");
        BreakpointRecord::from_spec("bp-1".into(), &spec, 1000.0).expect("a valid breakpoint")
    }

    #[test]
    fn a_snapshot_breakpoint_shows_its_counts_bounds_and_a_link_to_its_snapshots() {
        let mut r = record(json!({"kind": "line", "file": "a.py", "line": 3, "action": "snapshot",
            "expressions": ["x < 1", "'<script>'"], "max_hits": 3, "where": {"service": "<api>"}}));
        r.tally.captured = 2;
        r.tally.dropped = 1;
        let html = breakpoint_records(&[r], 1000.0).into_string();
        assert!(html.contains(r#"<span class="badge action-snapshot">snapshot</span>"#), "{html}");
        assert!(html.contains(r#"captured <span class="captured">2</span> of 3"#), "{html}");
        assert!(html.contains(r#"<span class="dropped">1</span>"#), "{html}");
        assert!(html.contains("in 24 h 0 min"), "{html}");
        assert!(html.contains("service=&lt;api&gt;") && html.contains("<code>x &lt; 1</code>"), "{html}");
        assert!(!html.contains("<script>") && !html.contains("<api>"), "{html}");
        assert!(html.contains(r#"href="/snapshots?breakpoint_id=bp-1""#), "{html}");
    }

    #[test]
    fn a_pausing_breakpoint_has_no_tally_and_the_add_form_offers_every_action() {
        let html =
            breakpoint_records(&[record(json!({"kind": "line", "file": "a.py", "line": 3}))], 1000.0).into_string();
        assert!(!html.contains("record-tally") && !html.contains("action-pause"), "{html}");
        for action in ["pause", "log", "snapshot"] {
            assert!(html.contains(&format!(r#"<option value="{action}">"#)), "{html}");
        }
        assert!(html.contains(r#"name="expressions" aria-label="Watch expressions""#), "{html}");
    }
}
