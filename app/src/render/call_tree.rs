//! `/call-tree` (the debugged processes) and `/call-tree/{process_key}` (one process's calls).

use maud::{html, Markup};

use breakroom_debugger::model::{CallTreePage, ProcessSummary, CALL_TREE_NEWEST};

use super::titled;
use crate::format::{thousands, timestamp};

/// The debugged processes, or a hint when no call was recorded yet.
pub fn processes(list: &[ProcessSummary]) -> String {
    let body = html! {
        h1 { "Call trees" }
        @if list.is_empty() {
            section.empty {
                p { "No calls recorded yet." }
                p.hint { "Every call a debugged program reports is recorded here, one tree per process." }
            }
        } @else {
            div.table-wrap {
                table.processes {
                    thead { tr {
                        th { "Process" } th { "PID" } th { "Calls" } th { "Paused" } th { "REPL sessions" }
                        th { "First call" } th { "Last call" }
                    } }
                    tbody { @for p in list { (process_row(p)) } }
                }
            }
        }
    };
    titled(body, "Call trees")
}

/// A process's row of the list: what `/call-tree` updates alone on that process's calls and
/// pauses (`crate::pages::call_tree`). The list is most recently active first, so the row says
/// when its last call started, in whole milliseconds (`data-last-ms`), for the page to move it.
pub fn process_row(p: &ProcessSummary) -> Markup {
    html! {
        tr data-process-key=(p.process_key) data-last-ms=(crate::transcript::millis(p.last_call_at)) {
            td.mono { a href={ "/call-tree/" (p.process_key) } { (p.process_key) } }
            td.pid { (p.pid) }
            td.num { (p.calls) }
            td.num { (p.paused) }
            td.num { (p.repl_sessions) }
            td { (timestamp(p.first_call_at)) }
            td { (timestamp(p.last_call_at)) }
        }
    }
}

/// One process's calls as a tree (callers first, `--depth` indents), `selected` marked: of its
/// newest calls, with a link to all of them, or of all. `process_id` is the tracked process of
/// `process_key`, linked from the header when known.
pub fn call_tree(process_key: &str, process_id: Option<&str>, tree: &CallTreePage, selected: &str) -> String {
    let nodes = &tree.nodes;
    let shown = nodes.len() as u64;
    let base = format!("/call-tree/{process_key}");
    let body = html! {
        h1 { "Call tree of process " span.mono { (process_key) } }
        p.hint.count {
            @if shown < tree.total {
                "The newest " (thousands(shown as usize)) " of " (thousands(tree.total as usize))
                    " calls; a call whose caller is older shows at the top level. "
                a.all-calls href={ (base) "?all=1" } { "Show all " (thousands(tree.total as usize)) " calls" }
            } @else if tree.total > CALL_TREE_NEWEST as u64 {
                (thousands(shown as usize)) " calls. " a.newest-calls href=(base) { "Show the newest " (thousands(CALL_TREE_NEWEST)) }
            } @else {
                (shown) " calls."
            }
        }
        p.hint {
            "Calls with REPL sessions carry a REPL badge."
            @if let Some(id) = process_id {
                " " a.process-link href={ "/process/" (id) } { "Process page" }
            }
        }
        ol.call-tree {
            @for node in nodes {
                @let outcome = match node.status.as_str() {
                    "running" => Some("running…".to_string()),
                    _ => node.result_text.as_ref().map(|r| format!("→ {r}")),
                };
                li class={ "call-node status-" (node.status) @if node.call_id == selected { " selected" } }
                    style={ "--depth: " (node.depth) } id={ "call-" (node.call_id) } data-call-id=(node.call_id)
                    data-pause-ids=(node.pause_ids.join(" ")) {
                    span.fn-name { (node.function_name) }
                    "(" span.args { (node.args_text.join(", ")) } ")"
                    @if let Some(outcome) = outcome {
                        span.result { " " (outcome) }
                    }
                    span.when.hint { (timestamp(node.started_at)) }
                    @if let Some(pause) = node.pause_ids.last() {
                        a.stack-link href={ "/callstack/" (pause) } { "stack" }
                    }
                    @for s in &node.repl_sessions {
                        a.badge.repl href={ "/repl/" (s.session_id) } title={ "REPL session " (s.session_id) } { "REPL" }
                    }
                }
            }
        }
    };
    titled(body, &format!("Call tree · process {process_key}"))
}
