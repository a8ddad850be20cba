//! `/snapshots/{id}` (issue 34) as HTML: one snapshot's stack, the captured frames' locals as a
//! read-only tree, its watch expressions and where it came from. The page
//! (`crate::pages::snapshots`) shows it as it is: the tree is `<details>` elements, which open by
//! themselves, so the page's wasm has no code for it.
//!
//! Names, types, reprs and errors are the debugged program's own text: they only go through
//! maud's escaping, never `PreEscaped`.

use maud::{html, Markup};

use breakroom_debugger::snapshots::{CapturedValue, CapturedVariable, Snapshot, SnapshotFrame, WatchValue};

use super::encode;
use super::snapshots::{label_badges, place};
use crate::format::timestamp;

/// The page's content, titled.
pub fn snapshot_page(s: &Snapshot) -> String {
    let body = html! {
        header.page-header.snapshot-header data-snapshot-id=(s.snapshot_id) {
            h1 { "Snapshot " span.mono { (s.snapshot_id) } }
            @if s.truncated {
                span.badge.truncated title="something was left out to stay within the capture limits" { "truncated" }
            }
            p.snapshot-place { (place(s.file.as_deref(), s.line, s.function.as_deref())) }
        }
        (metadata(s))
        section.snapshot-watch {
            h2 { "Expressions" }
            @if s.expressions.is_empty() {
                p.hint { "No watch expressions." }
            } @else {
                ul.var-tree.watch-list { @for w in &s.expressions { (watch(w)) } }
            }
        }
        section.snapshot-stack {
            h2 { "Stack" }
            ol.snapshot-frames { @for (i, f) in s.frames.iter().enumerate() { (frame(f, i == 0)) } }
        }
    };
    super::titled(body, &format!("Snapshot · {}", s.snapshot_id))
}

fn metadata(s: &Snapshot) -> Markup {
    html! {
        dl.meta.snapshot-meta {
            dt { "breakpoint" }
            dd { a.mono href={ "/snapshots?breakpoint_id=" (encode(&s.breakpoint_id)) } { (s.breakpoint_id) } }
            dt { "process" }
            dd {
                @if let Some(id) = &s.process_id {
                    a.snapshot-process href={ "/process/" (encode(id)) } { (id) } " "
                }
                span.mono.hint { (s.process_key) }
            }
            dt { "thread" }
            dd {
                @match &s.thread {
                    Some(t) => {
                        (t.name.as_deref().unwrap_or("?"))
                        @if let Some(id) = t.id { span.hint { " (" (id) ")" } }
                    }
                    None => span.hint { "unknown" },
                }
            }
            dt { "taken" } dd { (timestamp(s.taken_at)) }
            dt { "received" } dd { (timestamp(s.received_at)) }
            dt { "capture time" }
            dd { @match s.capture_ms { Some(ms) => (format!("{ms:.2} ms")), None => span.hint { "not measured" } } }
            dt { "size" } dd { (s.size_bytes) " bytes" }
            dt { "truncated" } dd.snapshot-truncated { @if s.truncated { "yes" } @else { "no" } }
            @if let Some(n) = s.redacted { dt { "redacted" } dd.snapshot-redacted { (n) " values" } }
            dt { "labels" }
            dd {
                @if s.labels.is_empty() { span.hint { "none" } } @else { (label_badges(s.labels.iter())) }
            }
        }
    }
}

/// One frame: where it is, and its locals when it is one of the captured top frames (the
/// innermost open).
fn frame(f: &SnapshotFrame, innermost: bool) -> Markup {
    let place = html! {
        span.fn-name { (f.function) } " " span.mono.hint { (f.file) ":" (f.line) }
    };
    html! {
        li.snapshot-frame {
            @match &f.locals {
                Some(locals) => details open[innermost] {
                    summary { (place) span.hint { " · " (locals.len()) " locals" } }
                    @if locals.is_empty() {
                        p.hint { "No locals." }
                    } @else {
                        ul.var-tree { @for v in locals { (variable(&v.name, &v.value)) } }
                    }
                },
                None => div.frame-place { (place) },
            }
        }
    }
}

/// A watch expression: its value as a tree, or why there is none.
pub(super) fn watch(w: &WatchValue) -> Markup {
    match (&w.value, &w.error) {
        (_, Some(error)) => html! {
            li.var.watch data-expression=(w.expression) {
                code.var-name { (w.expression) } " " span.error.var-error { (error) }
            }
        },
        (Some(value), None) => variable(&w.expression, value),
        (None, None) => html! {
            li.var.watch { code.var-name { (w.expression) } " " span.hint { "no value" } }
        },
    }
}

/// One name and its value: a `<details>` when it has items, opened by a click.
fn variable(name: &str, value: &CapturedValue) -> Markup {
    let line = html! {
        span.var-name { (name) } " " span.var-type { (value.type_name) }
        @if let Some(n) = value.length { " " span.var-count { "(" (n) ")" } }
        " "
        @match &value.error {
            Some(error) => span.error.var-error { "could not read: " (error) },
            // A table or a picture shows the value better than its repr (a DataFrame's is many lines).
            None if crate::transcript::shows_the_value(&value.outputs) => {}
            None => code.var-repr { (value.repr) },
        }
        @if value.truncated { " " span.badge.truncated title="cut at the capture limits" { "cut" } }
    };
    // A DataFrame's or an array's table and picture, as the REPL shows them (issue 52).
    let rich = html! {
        @if !value.outputs.is_empty() { div.snapshot-outputs { (super::outputs::rich_outputs(&value.outputs, None)) } }
    };
    let shown = value.children.len() as u64;
    let more = value.length.map_or(0, |n| n.saturating_sub(shown));
    html! {
        li.var data-name=(name) {
            @if value.children.is_empty() {
                (line)
            } @else {
                details {
                    summary { (line) }
                    ul.var-tree {
                        @for child in &value.children { (child_variable(child)) }
                        @if more > 0 { li.hint.var-more { "… " (more) " more" } }
                    }
                }
            }
            (rich)
        }
    }
}

fn child_variable(v: &CapturedVariable) -> Markup {
    variable(&v.name, &v.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snapshot() -> Snapshot {
        serde_json::from_value(json!({
            "snapshot_id": "snap-1", "breakpoint_id": "bp-1", "process_key": "k<x>", "process_id": "p-1",
            "taken_at": 1000.0, "received_at": 1000.5, "file": "/srv/a.py", "line": 7, "function": "handle",
            "thread": {"id": 140, "name": "<b>Main</b>"}, "labels": {"service": "<api>"},
            "frames": [
                {"file": "/srv/a.py", "line": 7, "function": "handle", "locals": [
                    {"name": "page", "value": {"type": "str", "repr": "'<script>alert(1)</script>'"}},
                    {"name": "items", "value": {"type": "list", "repr": "[1, 2]", "length": 5,
                        "children": [{"name": "0", "value": {"type": "int", "repr": "1"}},
                                     {"name": "1", "value": {"type": "int", "repr": "2"}}]}},
                    {"name": "obj", "value": {"type": "Weird", "repr": "", "error": "<i>repr raised</i>"}}]},
                {"file": "/srv/main.py", "line": 9, "function": "<module>"}],
            "expressions": [{"expression": "len(items) < 9", "value": {"type": "bool", "repr": "True"}},
                            {"expression": "o.p", "error": "would run O.p (<a.py>:12)"}],
            "truncated": true, "size_bytes": 812, "capture_ms": 0.21
        }))
        .expect("a snapshot")
    }

    #[test]
    fn program_data_in_a_snapshot_never_becomes_markup() {
        let html = snapshot_page(&snapshot());
        for raw in ["<script>", "<b>Main", "<i>repr", "<api>", "<a.py>", "<module>", "k<x>"] {
            assert!(!html.contains(raw), "{raw} in {html}");
        }
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert!(html.contains("&lt;module&gt;"), "{html}");
    }

    #[test]
    fn a_container_shows_its_items_and_how_many_more_were_left_out() {
        let html = snapshot_page(&snapshot());
        assert!(html.contains(r#"<span class="var-count">(5)</span>"#), "{html}");
        assert!(html.contains("… 3 more"), "{html}");
        assert!(html.contains("could not read: &lt;i&gt;repr raised"), "{html}");
    }

    #[test]
    fn expressions_show_their_value_or_their_error() {
        let html = snapshot_page(&snapshot());
        assert!(html.contains(r#"<span class="var-name">len(items) &lt; 9</span>"#), "{html}");
        assert!(html.contains("would run O.p"), "{html}");
    }

    #[test]
    fn a_data_value_shows_its_table_and_picture_after_its_line_with_cells_as_text() {
        let mut snap = snapshot();
        let value = &mut snap.frames[0].locals.as_mut().expect("locals")[1].value;
        value.outputs = serde_json::from_value(json!([{"output_type": "execute_result", "data": {
            "text/plain": "[1, 2]", "image/png": "iVBORw0KGgo=",
            "application/vnd.breakroom.table+json": {"columns": ["<th>"], "index": ["0"], "rows": [["<td onclick=x>"]],
                                                       "row_count": 5, "column_count": 1}},
            "metadata": {"breakroom": {"table": {"handle": "t1", "rows": 5}}}}]))
        .expect("outputs");
        let html = snapshot_page(&snap);
        assert!(html.contains(r#"<div class="snapshot-outputs">"#), "{html}");
        assert!(html.contains(r#"src="data:image/png;base64,iVBORw0KGgo=""#), "{html}");
        assert!(html.contains("&lt;td onclick=x&gt;") && !html.contains("<td onclick"), "{html}");
        assert!(!html.contains("/table/t1"), "a snapshot's table has no live pages: {html}");
        let (line, outputs) = (html.find("var-count\">(5)").expect("the line"), html.find("snapshot-outputs"));
        assert!(outputs.is_some_and(|at| at > line), "the forms come after the value's line");
    }

    #[test]
    fn only_captured_frames_have_a_locals_tree_and_the_innermost_is_open() {
        let html = snapshot_page(&snapshot());
        assert_eq!(html.matches("<details open").count(), 1, "{html}");
        assert!(html.contains(r#"<div class="frame-place">"#), "{html}");
        assert!(html.contains(r#"href="/process/p-1""#) && html.contains(r#"href="/snapshots?breakpoint_id=bp-1""#));
    }
}
