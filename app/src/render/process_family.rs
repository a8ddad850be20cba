//! Process trees and attach (issue 33) on `/processes` and `/process/{id}`: the list ordered as
//! a tree (children under their parent), the "Python processes on this machine" table with its
//! Attach buttons, and a process's parent and children.

use std::collections::{HashMap, HashSet};

use maud::{html, Markup};

use breakroom_debugger::attach::local::LocalPythonProcesses;
use breakroom_debugger::processes::{ProcessRole, TrackedProcess};

use crate::controls::Control;

/// The list in tree order: each process followed by its children (oldest first), with its depth.
/// A child whose parent is not in the list is shown at the top level.
pub fn tree_order(list: &[TrackedProcess]) -> Vec<(&TrackedProcess, usize)> {
    let listed: HashSet<&str> = list.iter().map(|p| p.id.as_str()).collect();
    let mut children: HashMap<&str, Vec<&TrackedProcess>> = HashMap::new();
    for p in list {
        if let Some(parent) = p.parent_id.as_deref().filter(|id| listed.contains(id)) {
            children.entry(parent).or_default().push(p);
        }
    }
    let mut ordered = Vec::with_capacity(list.len());
    let mut stack: Vec<(&TrackedProcess, usize)> = list
        .iter()
        .rev()
        .filter(|p| p.parent_id.as_deref().is_none_or(|id| !listed.contains(id)))
        .map(|p| (p, 0))
        .collect();
    while let Some((p, depth)) = stack.pop() {
        ordered.push((p, depth));
        for child in children.get(p.id.as_str()).into_iter().flatten().rev() {
            stack.push((child, depth + 1));
        }
    }
    ordered
}

/// What the row says about a process's place in its tree: helper, attached, not followed.
pub fn role_badges(p: &TrackedProcess) -> Markup {
    html! {
        @if p.role == ProcessRole::Helper { " " span.badge.role.helper title="started by multiprocessing for itself" { "helper" } }
        @if p.origin == breakroom_debugger::processes::ProcessOrigin::Attached { " " span.badge.role.attached { "attached" } }
        @if let Some(why) = &p.not_followed { " " span.badge.role.not-followed title=(why) { "not followed" } }
    }
}

/// A process's labels (issue 34), each a link to the processes that carry it too.
pub fn label_badges(p: &TrackedProcess) -> Markup {
    html! {
        @for (k, v) in &p.labels {
            " "
            a.badge.label href={ "/processes?label=" (super::encode(&format!("{k}={v}"))) } title="processes with this label" {
                (k) "=" (v)
            }
        }
    }
}

/// Whether a process carries every label of `filter`: `service=api`, or `service` (any
/// value), several joined by commas.
pub fn has_labels(p: &TrackedProcess, filter: &str) -> bool {
    filter.split(',').map(str::trim).filter(|f| !f.is_empty()).all(|f| match f.split_once('=') {
        Some((k, v)) => p.labels.get(k.trim()).is_some_and(|have| have == v.trim()),
        None => p.labels.contains_key(f),
    })
}

/// `/processes`: the Python processes of this machine, each with Attach or why not.
pub fn local_python_table(local: &LocalPythonProcesses) -> Markup {
    html! {
        section.local-python {
            h2 { "Python processes on this machine" }
            @if !local.attach_allowed {
                p.hint { "Attach is off: this server listens beyond loopback (start it with --allow-attach)." }
            }
            @if local.processes.is_empty() {
                p.hint { "None found." }
            } @else {
                div.table-wrap {
                    table.processes.local {
                        thead { tr { th { "pid" } th { "User" } th { "Python" } th { "Command" } th {} } }
                        tbody {
                            @for p in &local.processes {
                                tr data-pid=(p.pid) {
                                    td.pid { (p.pid) }
                                    td { (p.user) }
                                    td { (p.version.as_deref().unwrap_or("?")) }
                                    td.mono { (p.argv.join(" ")) }
                                    td {
                                        @if let Some(id) = &p.process_id {
                                            a href={ "/process/" (id) } { "debugged" }
                                        } @else if let Some(why) = &p.why_not {
                                            span.hint { (why) }
                                        } @else {
                                            button type="button" data-action=(Control::Attach.as_str()) data-arg=(p.pid) { "Attach" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                p.error.attach-error hidden {}
            }
        }
    }
}

/// `/process/{id}`: where the process sits in its tree. `names`: id → name of the records named.
pub fn family(p: &TrackedProcess, names: &HashMap<String, String>) -> Markup {
    let name = |id: &str| names.get(id).cloned().unwrap_or_else(|| id.to_string());
    html! {
        @if let Some(why) = &p.not_followed {
            p.exit-banner.not-followed role="status" { "Not followed: " (why) }
        }
        @if p.parent_id.is_some() || !p.children.is_empty() {
            section.process-family {
                h2 { "Process tree" }
                dl.meta {
                    @if let Some(parent) = &p.parent_id {
                        dt { "started by" } dd { a href={ "/process/" (parent) } { (name(parent)) } " · " (p.role.as_str()) }
                    }
                    @if !p.children.is_empty() {
                        dt { "started" }
                        dd {
                            ul.children {
                                @for child in &p.children { li { a href={ "/process/" (child) } { (name(child)) } } }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A blank record with this id and parent, its name the id as markup.
    pub(in crate::render) fn process(id: &str, parent: Option<&str>) -> TrackedProcess {
        let mut p = breakroom_debugger::processes::registry::blank(0.0);
        p.id = id.into();
        p.name = format!("<{id}>");
        p.parent_id = parent.map(str::to_string);
        p
    }

    #[test]
    fn children_come_right_after_their_parent_indented() {
        let list = [
            process("a", None),
            process("b", None),
            process("c", Some("a")),
            process("d", Some("c")),
            process("e", Some("gone")),
        ];
        let order: Vec<(&str, usize)> = tree_order(&list).into_iter().map(|(p, d)| (p.id.as_str(), d)).collect();
        assert_eq!(order, [("a", 0), ("c", 1), ("d", 2), ("b", 0), ("e", 0)]);
    }

    #[test]
    fn what_a_process_says_reaches_the_page_as_text() {
        let local = LocalPythonProcesses {
            attach_allowed: true,
            processes: vec![breakroom_debugger::attach::local::LocalPythonProcess {
                pid: 7,
                user: "<b>".into(),
                version: Some("3.12.1".into()),
                argv: vec!["python".into(), "<script>alert(1)</script>".into()],
                attachable: true,
                why_not: None,
                process_id: None,
            }],
        };
        let html = local_python_table(&local).into_string();
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>"), "{html}");
        assert!(html.contains(r#"data-action="attach" data-arg="7""#), "{html}");
        let mut child = process("c", Some("a"));
        child.not_followed = Some("<i>env=</i>".into());
        let html = family(&child, &HashMap::from([("a".to_string(), "<a>".to_string())])).into_string();
        assert!(
            html.contains("&lt;i&gt;env=&lt;/i&gt;") && html.contains("&lt;a&gt;") && !html.contains("<i>"),
            "{html}"
        );
    }

    #[test]
    fn a_label_is_an_escaped_badge_linking_to_the_processes_that_carry_it() {
        let mut p = process("a", None);
        p.labels.insert("service".into(), "<api>&x".into());
        let html = label_badges(&p).into_string();
        assert!(html.contains(r#"href="/processes?label=service%3D%3Capi%3E%26x""#), "{html}");
        assert!(html.contains("service=&lt;api&gt;&amp;x") && !html.contains("<api>"), "{html}");
    }

    #[test]
    fn the_label_filter_needs_every_label_named() {
        let mut p = process("a", None);
        p.labels.insert("service".into(), "api".into());
        p.labels.insert("env".into(), "prod".into());
        assert!(has_labels(&p, "service=api"));
        assert!(has_labels(&p, " service = api , env"));
        assert!(!has_labels(&p, "service=web"));
        assert!(!has_labels(&p, "service=api,zone"));
        assert!(!has_labels(&process("b", None), "service=api"));
    }
}
