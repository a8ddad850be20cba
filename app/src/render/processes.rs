//! `/processes` and `/process/{id}` as HTML: the tracked processes, and one process with its
//! output, its pauses and its REPL sessions. Controls carry `data-action` for the page's handlers
//! (`crate::pages::processes`).

use maud::{html, Markup};

use breakroom_debugger::model::{EventKind, RecordedEvent};
use breakroom_debugger::processes::{ProcessDetail, ProcessStatus, TrackedProcess};

use super::process_family::{family, label_badges, local_python_table, role_badges, tree_order};
use super::titled;
use crate::controls::Control;
use crate::format::{duration, timestamp};
use breakroom_debugger::attach::local::LocalPythonProcesses;

fn status_badge(status: ProcessStatus) -> Markup {
    let name = match status {
        ProcessStatus::Running => "running",
        ProcessStatus::Paused => "paused",
        ProcessStatus::Exited => "exited",
        ProcessStatus::Crashed => "crashed",
        ProcessStatus::Killed => "killed",
        ProcessStatus::Lost => "lost",
    };
    html! { span class={ "badge process-status " (name) } { (name) } }
}

fn command_text(command: &[String]) -> String {
    command.join(" ")
}

/// How the process ended, in one line, or None while it runs.
fn ending(p: &TrackedProcess) -> Option<String> {
    if p.status.is_alive() {
        return None;
    }
    Some(match (&p.reason, p.exit_code, &p.signal) {
        (Some(reason), _, _) => reason.clone(),
        (None, Some(code), _) => format!("exit code {code}"),
        (None, None, Some(signal)) => format!("killed by {signal}"),
        (None, None, None) => "ended".to_string(),
    })
}

/// The process list: running and paused ones, recently finished ones (with when they leave the
/// list), or every recorded one with `all`; `label` is the filter the list went through (issue
/// 34), shown with a way out of it.
pub fn process_list(
    list: &[TrackedProcess],
    all: bool,
    label: Option<&str>,
    now: f64,
    local: Option<&LocalPythonProcesses>,
) -> String {
    let body = html! {
        p.hint.list-scope {
            @if all {
                a href="/processes" { "Show only the active list" }
            } @else {
                a href="/processes?all=1" { "Show every recorded process" }
            }
            @if let Some(label) = label {
                " · " span.label-filter { "with the label " code { (label) } } " · "
                a href=(if all { "/processes?all=1" } else { "/processes" }) { "any label" }
            }
        }
        @if list.is_empty() {
            section.empty {
                p { @if label.is_some() { "No processes with this label." } @else { "No processes." } }
                p.hint {
                    "Launch one below, or run " code { "breakroom run -- python3 app.py" }
                    "; programs that connect on their own show up too."
                }
            }
        } @else {
            div.table-wrap {
                table.processes.tracked {
                    thead { tr {
                        th { "Process" } th { "Status" } th { "pid" } th { "Command" } th { "Started" }
                        th { "Uptime" } th { "Ended" }
                    } }
                    tbody {
                        @for (p, depth) in tree_order(list) { (process_row(p, depth, all, now, None)) }
                    }
                }
            }
        }
        @if let Some(local) = local { (local_python_table(local)) }
    };
    titled(body, if all { "Processes · all" } else { "Processes" })
}

/// Process `id`'s row as [`process_list`] renders it, with `data-after`: the id of the row before
/// it (empty for the first), where the page puts it when it is new. None when `list` lacks it.
pub fn process_row_in(list: &[TrackedProcess], id: &str, all: bool, now: f64) -> Option<String> {
    let ordered = tree_order(list);
    let at = ordered.iter().position(|(p, _)| p.id == id)?;
    let after = at.checked_sub(1).map_or("", |before| ordered[before].0.id.as_str());
    let (p, depth) = ordered[at];
    Some(process_row(p, depth, all, now, Some(after)).into_string())
}

/// A row of the list. `data-depth` tells the page that a row has children under it (deeper rows
/// right after it); `after` is [`process_row_in`]'s.
fn process_row(p: &TrackedProcess, depth: usize, all: bool, now: f64, after: Option<&str>) -> Markup {
    // The page counts `data-left-ms` down between live updates (`pages::processes`).
    let leaves = p.leaves_list_at.filter(|at| !all && *at > now);
    html! {
        tr class={ "process-row " @if p.status == ProcessStatus::Crashed { "crashed" } } data-process-id=(p.id)
            data-process-key=[p.process_key.as_deref()] data-depth=(depth) data-pid=[p.pid] data-after=[after] {
            td.tree-name style={ "padding-left:" (0.6 + 1.2 * depth.min(8) as f64) "rem" } {
                @if depth > 0 { span.hint { "└ " } }
                a href={ "/process/" (p.id) } { (p.name) }
                (role_badges(p))
                (label_badges(p))
            }
            td { (status_badge(p.status)) }
            td.pid { (p.pid.map(|pid| pid.to_string()).unwrap_or_default()) }
            td.mono { (command_text(&p.command)) }
            td { (timestamp(p.started_at)) }
            td { (duration(p.uptime_s)) }
            td.reason {
                (ending(p).unwrap_or_default())
                @if let Some(at) = leaves {
                    span.hint.leaves data-left-ms=(((at - now) * 1000.0).round() as i64) {
                        " · leaves the list in " span.left { (duration(at - now)) }
                    }
                }
            }
        }
    }
}

/// One process: header, the exit or crash banner, Stop, its family, its logpoints, pauses and
/// REPL sessions. Its output is a section of its own (`crate::output`), followed live.
pub fn process_page(detail: &ProcessDetail, names: &std::collections::HashMap<String, String>) -> String {
    let p = &detail.process;
    let body = html! {
        header.page-header.process-header data-process-id=(p.id) data-process-key=[p.process_key.as_deref()] {
            h1 { (p.name) }
            (status_badge(p.status))
            (role_badges(p))
            (label_badges(p))
            dl.meta {
                dt { "command" } dd.mono { (command_text(&p.command)) }
                dt { "pid" } dd.pid { (p.pid.map(|pid| pid.to_string()).unwrap_or_default()) }
                dt { "host" } dd { (p.host) }
                dt { "cwd" } dd.mono { (p.cwd.as_deref().unwrap_or("")) }
                dt { "started" } dd { (timestamp(p.started_at)) }
                dt { "uptime" } dd.uptime { (duration(p.uptime_s)) }
            }
            nav.links {
                a.button href={ "/process/" (super::encode(&p.id)) "/timeline" } { "Timeline" }
                " " a.button href={ "/snapshots?process_id=" (super::encode(&p.id)) } { "Snapshots" }
                " " a.button href={ "/process/" (super::encode(&p.id)) "/tasks" } { "Tasks" }
            }
        }
        @match ending(p) {
            Some(ended) => p class={ "exit-banner " @if p.status == ProcessStatus::Exited { "clean" } @else { "crash" } } role="status" { (ended) },
            None => {
                p.controls { button type="button" data-action=(Control::Stop.as_str()) { "Stop" } }
                p.error hidden {}
            }
        }
        (family(p, names))
        (breakpoint_events(&detail.breakpoint_events))
        (pauses_and_sessions(detail))
    };
    titled(body, &format!("Process · {}", p.name))
}

/// Logpoint messages and breakpoint hits of the process, newest last (issue 18).
fn breakpoint_events(events: &[RecordedEvent]) -> Markup {
    html! {
        @if !events.is_empty() {
            section.process-breakpoints {
                h2 { "Logpoints and breakpoint hits" }
                ol.breakpoint-events {
                    @for event in events {
                        @let text = |key: &str| event.data.get(key).and_then(|v| v.as_str()).unwrap_or("").to_string();
                        @let (class, body) = match event.kind {
                            EventKind::Log => ("log", text("message")),
                            _ => ("hit", format!("{} · {}", text("action"), text("reason"))),
                        };
                        li class=(class) {
                            span.hint {
                                (timestamp(event.timestamp)) " " (text("breakpoint_id"))
                                @if let Some(n) = event.data.get("hit_count").and_then(|v| v.as_u64()) { " · hit " (n) }
                            }
                            " " code { (body) }
                        }
                    }
                }
            }
        }
    }
}

fn pauses_and_sessions(detail: &ProcessDetail) -> Markup {
    html! {
        section.process-pauses {
            h2 { "Pauses" }
            @if detail.pauses.is_empty() {
                p.hint { "No call of this process has paused." }
            } @else {
                ul.pause-links {
                    @for pause in &detail.pauses {
                        li {
                            a.fn-name href={ "/callstack/" (pause.pause_id) } { (pause.function_name) }
                            " "
                            @match (&pause.resumed_at, &pause.resumed_reason) {
                                (None, _) => span.badge.paused { "Paused" },
                                (Some(_), Some(reason)) => { span.badge.resumed { "Resumed" } " " span.hint { (reason) } },
                                (Some(_), None) => span.badge.resumed { "Resumed" },
                            }
                            " " span.hint { (timestamp(pause.paused_at)) }
                        }
                    }
                }
            }
        }
        section.process-sessions {
            h2 { "REPL sessions" }
            @if detail.sessions.is_empty() {
                p.hint { "No REPL session was opened in this process." }
            } @else {
                ul.session-links {
                    @for s in &detail.sessions {
                        @let (class, status) = if s.closed_at.is_none() { ("active", "Active") } else { ("closed", "Closed") };
                        li {
                            a.mono href={ "/repl/" (s.session_id) } { (s.session_id) }
                            " " span.fn-name { (s.function_name) }
                            " " span class={ "badge " (class) } { (status) }
                            @if let Some(reason) = &s.closed_reason { " " span.hint { (reason) } }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::process_family::tests::process;
    use super::*;

    #[test]
    fn a_row_alone_names_the_row_before_it_in_the_tree() {
        let list = [process("a", None), process("b", None), process("c", Some("a"))];
        let row = |id| process_row_in(&list, id, false, 0.0);
        let child = row("c").unwrap();
        assert!(child.contains(r#"data-process-id="c" data-depth="1""#), "{child}");
        assert!(child.contains(r#"data-after="a""#), "{child}");
        assert!(child.contains("&lt;c&gt;") && !child.contains("<c>"), "{child}");
        assert!(row("a").unwrap().contains(r#"data-after="""#));
        assert!(row("b").unwrap().contains(r#"data-after="c""#));
        assert_eq!(row("gone"), None);
        // The whole list's rows carry no `data-after`: only a row fetched alone is placed by it.
        assert!(!process_list(&list, false, None, 0.0, None).contains("data-after"));
    }

    #[test]
    fn durations_read_in_the_largest_sensible_unit() {
        assert_eq!(duration(5.2), "5 s");
        assert_eq!(duration(125.0), "2 min 5 s");
        assert_eq!(duration(7_300.0), "2 h 1 min");
    }

    #[test]
    fn logpoint_messages_are_listed_escaped_with_their_breakpoint() {
        let event = |kind, data: serde_json::Value| RecordedEvent {
            sequence: 1,
            timestamp: 0.0,
            kind,
            process_key: None,
            session_id: None,
            data,
        };
        let events = [
            event(EventKind::Log, serde_json::json!({"breakpoint_id": "bp-2", "message": "n=<3>", "hit_count": 4})),
            event(
                EventKind::BreakpointHit,
                serde_json::json!({"breakpoint_id": "bp-1", "action": "pause", "reason": "line"}),
            ),
        ];
        let out = breakpoint_events(&events).into_string();
        assert!(
            out.contains(r#"<li class="log">"#)
                && out.contains("bp-2 · hit 4")
                && out.contains("<code>n=&lt;3&gt;</code>"),
            "{out}"
        );
        assert!(out.contains("<code>pause · line</code>"), "{out}");
    }
}
