//! `/snapshots` (issue 34) as HTML: what snapshot breakpoints captured, newest first, under a
//! header per snapshot breakpoint with its bounds and counts. The page (`crate::pages::snapshots`)
//! reads it whole once; on a hit it reads [`news_fragment`], what changed since its newest row.
//!
//! Everything here comes from debugged programs or agents (file names, expressions, reprs), so it
//! is only ever spliced into maud templates, which escape it.

use maud::{html, Markup};

use breakroom_debugger::breakpoints::policy::{BreakpointAction, BreakpointState};
use breakroom_debugger::breakpoints::record::BreakpointRecord;
use breakroom_debugger::snapshots::SnapshotSummary;

use crate::format::{duration, timestamp};

/// A value in a list row is cut after this many characters (the snapshot page has it whole).
const GLANCE_CHARS: usize = 80;

/// What the list shows: the breakpoint filtered on, and where the next page starts.
pub struct ListQuery<'a> {
    pub breakpoint_id: Option<&'a str>,
    pub process_id: Option<&'a str>,
    /// The page asked for (its `limit`): a full page links to the older ones.
    pub limit: usize,
}

impl ListQuery<'_> {
    /// The query string of this list with `extra` pairs after it (`before=…`).
    pub fn href(&self, path: &str, extra: &[(&str, &str)]) -> String {
        let pairs = [("breakpoint_id", self.breakpoint_id), ("process_id", self.process_id)];
        let query: Vec<String> = pairs
            .iter()
            .filter_map(|(k, v)| v.map(|v| (*k, v)))
            .chain(extra.iter().copied())
            .map(|(k, v)| format!("{k}={}", super::encode(v)))
            .collect();
        if query.is_empty() {
            path.to_string()
        } else {
            format!("{path}?{}", query.join("&"))
        }
    }
}

/// The whole `/snapshots` content, titled: the filter, then the list ([`list_fragment`]).
pub fn snapshots_page(
    records: &[BreakpointRecord],
    snapshots: &[SnapshotSummary],
    query: &ListQuery,
    now: f64,
) -> String {
    let choices: Vec<&BreakpointRecord> = records.iter().filter(|r| r.action == BreakpointAction::Snapshot).collect();
    let title = match query.breakpoint_id {
        Some(id) => format!("Snapshots · {id}"),
        None => "Snapshots".to_string(),
    };
    let body = html! {
        h1 { "Snapshots" }
        form.inline.snapshot-filter method="get" action="/snapshots" {
            label {
                "Breakpoint "
                select name="breakpoint_id" {
                    option value="" { "every breakpoint" }
                    @for r in &choices {
                        option value=(r.id) selected[query.breakpoint_id == Some(r.id.as_str())] {
                            (r.id) " · " (r.location())
                        }
                    }
                }
            }
            @if let Some(process) = query.process_id {
                input type="hidden" name="process_id" value=(process);
                " from process " a.mono href={ "/process/" (super::encode(process)) } { (process) }
            }
            " " button.small type="submit" { "Show" }
            @if query.breakpoint_id.is_some() || query.process_id.is_some() {
                " " a href="/snapshots" { "every snapshot" }
            }
        }
        div #snapshot-list aria-live="polite" {
            (list_fragment(records, snapshots, query, now))
        }
    };
    super::titled(body, &title)
}

/// The part of `/snapshots` that changes as snapshots arrive: the headers of the snapshot
/// breakpoints shown, and the snapshots' rows.
pub fn list_fragment(
    records: &[BreakpointRecord],
    snapshots: &[SnapshotSummary],
    query: &ListQuery,
    now: f64,
) -> Markup {
    let headers = shown_headers(records, query);
    html! {
        @if let (Some(id), true) = (query.breakpoint_id, headers.is_empty()) {
            p.hint.snapshot-bp-gone { "No breakpoint " (id) " (removed?): its snapshots are kept until they age out." }
        }
        @if !headers.is_empty() {
            div.table-wrap {
                table.snapshot-breakpoints {
                    thead { tr {
                        th { "Breakpoint" } th { "Where" } th { "Status" } th { "Captured" }
                        th title="hits past the process's time budget" { "Skipped (quota)" }
                        th title="hits past max_per_second" { "Skipped (rate)" }
                        th title="snapshots a program could not send" { "Dropped" }
                        th { "Max hits" } th { "Expires" } th { "Processes" }
                    } }
                    tbody { @for r in &headers { (breakpoint_header(r, now)) } }
                }
            }
        }
        @if snapshots.is_empty() {
            section.empty.snapshots-empty {
                p { "No snapshots yet." }
                p.hint {
                    "Add a breakpoint with the action " b { "snapshot" } " from the breakpoints panel on "
                    a href="/" { "Paused" } ": each time a program reaches it, its stack and locals show up "
                    "here, and the program does not stop."
                }
            }
        } @else {
            div.table-wrap {
                table.snapshots {
                    thead { tr {
                        th { "Snapshot" } th { "Taken" } th { "Process" } th { "Where" } th { "Expressions" } th {}
                    } }
                    tbody { @for s in snapshots { (snapshot_row(s)) } }
                }
            }
            @if snapshots.len() >= query.limit {
                @if let Some(last) = snapshots.last() {
                    p.older { a href=(query.href("/snapshots", &[("before", &last.snapshot_id)])) { "Older snapshots" } }
                }
            }
        }
    }
}

/// The snapshot breakpoints a list shows a header for: the one filtered on, or every one.
fn shown_headers<'a>(records: &'a [BreakpointRecord], query: &ListQuery) -> Vec<&'a BreakpointRecord> {
    records
        .iter()
        .filter(|r| match query.breakpoint_id {
            Some(id) => r.id == id,
            None => r.action == BreakpointAction::Snapshot,
        })
        .collect()
}

/// What changed in a shown list since its newest row, for the page to apply in place
/// (`crate::pages::snapshots`): the headers again (their counts moved), and the snapshots that
/// came since, newest first. The table says how many rows the list keeps (`data-limit`) and
/// where its "Older snapshots" link points, less the last row's id (`data-older`).
pub fn news_fragment(records: &[BreakpointRecord], news: &[SnapshotSummary], query: &ListQuery, now: f64) -> String {
    html! {
        table.snapshot-news data-limit=(query.limit) data-older=(query.href("/snapshots", &[("before", "")])) {
            tbody.headers { @for r in shown_headers(records, query) { (breakpoint_header(r, now)) } }
            tbody.rows { @for s in news { (snapshot_row(s)) } }
        }
    }
    .into_string()
}

/// One snapshot breakpoint: where, whether it still arms, and what became of its hits.
pub fn breakpoint_header(r: &BreakpointRecord, now: f64) -> Markup {
    html! {
        tr.snapshot-bp data-breakpoint-id=(r.id) {
            td { a.mono href={ "/snapshots?breakpoint_id=" (super::encode(&r.id)) } { (r.id) } }
            td.mono { (r.location()) }
            td { (status_badge(r.state)) }
            td.captured { (r.tally.captured) }
            td.skipped-quota { (r.tally.skipped_quota) }
            td.skipped-rate { (r.tally.skipped_rate) }
            td.dropped { (r.tally.dropped) }
            td { (r.limits.max_hits.map(|n| n.to_string()).unwrap_or_else(|| "—".into())) }
            td { (expiry(r.limits.expires_at, now)) }
            td { (where_labels(r)) }
        }
    }
}

/// A breakpoint's status as a badge.
pub fn status_badge(status: BreakpointState) -> Markup {
    html! { span class={ "badge bp-status " (status.as_str()) } { (status.as_str()) } }
}

/// When a breakpoint stops arming: "in 2 h 10 min" (the date as its title), or when it did.
pub fn expiry(expires_at: Option<f64>, now: f64) -> Markup {
    html! {
        @match expires_at {
            None => "never",
            Some(at) if at > now => span title=(timestamp(at)) { "in " (duration(at - now)) },
            Some(at) => span title=(timestamp(at)) { (duration(now - at)) " ago" },
        }
    }
}

/// The labels a process must carry (`where`), or "every process".
pub fn where_labels(r: &BreakpointRecord) -> Markup {
    html! {
        @if r.limits.where_labels.is_empty() {
            span.hint { "every process" }
        } @else {
            (label_badges(r.limits.where_labels.iter()))
        }
    }
}

/// `name=value` badges.
pub fn label_badges<'a>(labels: impl Iterator<Item = (&'a String, &'a String)>) -> Markup {
    html! { @for (k, v) in labels { span.badge.label { (k) "=" (v) } " " } }
}

/// `file:line function` of a hit.
pub fn place(file: Option<&str>, line: Option<u32>, function: Option<&str>) -> Markup {
    html! {
        span.mono { (file.unwrap_or("?")) @if let Some(line) = line { ":" (line) } }
        @if let Some(function) = function { " " span.fn-name { (function) } }
    }
}

fn snapshot_row(s: &SnapshotSummary) -> Markup {
    html! {
        tr.snapshot-row data-snapshot-id=(s.snapshot_id) {
            td { a.mono href={ "/snapshots/" (super::encode(&s.snapshot_id)) } { (s.snapshot_id) } }
            td { (timestamp(s.taken_at)) }
            td {
                @match &s.process_id {
                    Some(id) => a href={ "/process/" (super::encode(id)) } { (id) },
                    None => span.mono.hint { (s.process_key) },
                }
            }
            td { (place(s.file.as_deref(), s.line, s.function.as_deref())) }
            td.glance {
                @for (expression, value) in &s.expressions {
                    span.watch { code { (expression) } " = " code.watch-value { (cut(value, GLANCE_CHARS)) } }
                    " "
                }
            }
            td { @if s.truncated { span.badge.truncated title="something was left out to stay within the capture limits" { "truncated" } } }
        }
    }
}

/// `text`, cut after `max` characters with an ellipsis.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn record(body: serde_json::Value) -> BreakpointRecord {
        let spec = serde_json::from_value(body).expect("a valid breakpoint");
        BreakpointRecord::from_spec("bp-1".into(), &spec, 1000.0).expect("a valid breakpoint")
    }

    fn summary() -> SnapshotSummary {
        SnapshotSummary {
            snapshot_id: "snap-1".into(),
            breakpoint_id: "bp-1".into(),
            process_key: "<key>".into(),
            process_id: Some("p-1\"><script>".into()),
            taken_at: 1000.0,
            file: Some("<img src=x onerror=alert(1)>.py".into()),
            line: Some(7),
            function: Some("<b>f</b>".into()),
            frames: 2,
            expressions: vec![("x < 1".into(), "'<script>alert(1)</script>'".into())],
            truncated: true,
        }
    }

    fn query(limit: usize) -> ListQuery<'static> {
        ListQuery { breakpoint_id: None, process_id: None, limit }
    }

    #[test]
    fn program_data_in_the_snapshot_list_never_becomes_markup() {
        let bp = record(json!({"kind": "line", "file": "<i>a.py", "line": 3, "action": "snapshot",
            "where": {"service": "<svg onload=x>"}}));
        let html = snapshots_page(&[bp], &[summary()], &query(100), 1000.0);
        for raw in ["<script>alert", "<img", "<b>f", "<i>a.py", "<svg", "\"><script>"] {
            assert!(!html.contains(raw), "{raw} in {html}");
        }
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert!(html.contains(r#"href="/process/p-1%22%3E%3Cscript%3E""#), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert_eq!(crate::pages::title_in(&html).as_deref(), Some("Snapshots"));
    }

    #[test]
    fn a_snapshot_breakpoint_header_shows_its_counts_and_expiry() {
        let mut bp = record(json!({"kind": "line", "file": "a.py", "line": 3, "action": "snapshot",
            "max_hits": 5, "expires_in": "1h"}));
        bp.tally.captured = 2;
        bp.tally.skipped_rate = 4;
        let html = list_fragment(&[bp], &[], &query(100), 1000.0).into_string();
        assert!(html.contains(r#"<td class="captured">2</td>"#), "{html}");
        assert!(html.contains(r#"<td class="skipped-rate">4</td>"#), "{html}");
        assert!(html.contains("in 1 h 0 min"), "{html}");
        assert!(html.contains("every process"), "{html}");
        assert!(html.contains("No snapshots yet."), "{html}");
    }

    #[test]
    fn a_full_page_links_to_the_older_snapshots_with_the_same_filter() {
        let q = ListQuery { breakpoint_id: Some("bp 1&x"), process_id: None, limit: 1 };
        let html = list_fragment(&[], &[summary()], &q, 1000.0).into_string();
        assert!(html.contains(r#"href="/snapshots?breakpoint_id=bp%201%26x&amp;before=snap-1""#), "{html}");
        assert!(html.contains("No breakpoint bp 1&amp;x"), "{html}");
    }

    #[test]
    fn a_long_value_is_cut_at_a_character_boundary() {
        assert_eq!(cut("ééé", 2), "éé…");
        assert_eq!(cut("ab", 2), "ab");
    }
}
