//! `/process/{id}/tasks` (issue 51): a program's asyncio tasks as a tree of who awaits whom,
//! each with its state, pause and coroutine stack. Everything shown is the program's text,
//! escaped by maud.

use std::collections::{BTreeMap, HashSet};

use breakroom_debugger::interrupts::TaskView;
use maud::{html, Markup};

/// How deep the tree goes (a cycle of awaits, or a long chain, stops here).
const MAX_DEPTH: usize = 32;

/// `/process/{id}/tasks`'s content, titled.
pub fn tasks_page(process_name: &str, process_id: &str, tasks: &[TaskView]) -> String {
    super::titled(tasks_panel(process_name, process_id, tasks), &format!("Tasks · {process_name}"))
}

/// The Tasks panel: the tasks awaited by no other task at the top, each with the tasks awaiting
/// it under it.
fn tasks_panel(process_name: &str, process_id: &str, tasks: &[TaskView]) -> Markup {
    // `awaiting` names another task as `task NAME`.
    let mut awaited_by: BTreeMap<&str, Vec<&TaskView>> = BTreeMap::new();
    let names: HashSet<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
    let mut roots = vec![];
    for task in tasks {
        match task.awaiting.as_deref().and_then(|a| a.strip_prefix("task ")).filter(|n| names.contains(n)) {
            Some(parent) if parent != task.name => awaited_by.entry(parent).or_default().push(task),
            _ => roots.push(task),
        }
    }
    let paused = tasks.iter().filter(|t| t.pause_id.is_some()).count();
    html! {
        header.page-header {
            h1 { "Tasks · " (process_name) }
            p.hint { (tasks.len()) " asyncio tasks, " (paused) " paused by Breakroom (read without stopping the loop)" }
            nav.links { a.button href={ "/process/" (super::encode(process_id)) } { "Process" } }
        }
        section.tasks {
            @if tasks.is_empty() {
                p.empty { "No asyncio task runs in this program." }
            } @else {
                ul.task-tree { @for task in roots { (task_item(task, &awaited_by, 0)) } }
            }
        }
    }
}

fn task_item(task: &TaskView, awaited_by: &BTreeMap<&str, Vec<&TaskView>>, depth: usize) -> Markup {
    let children = awaited_by.get(task.name.as_str()).filter(|_| depth < MAX_DEPTH);
    html! {
        li class={ "task state-" (task.state) } data-task-id=(task.id) {
            span.task-name { (task.name) } " "
            span.task-state { (task.state) }
            @if let Some(pause) = &task.pause_id {
                " " a.button href={ "/callstack/" (pause) } { "Paused: call stack" }
            }
            @if let Some(awaiting) = &task.awaiting {
                " " span.awaiting { "awaits " (awaiting) }
            }
            @if !task.stack.is_empty() {
                ol.task-stack {
                    @for frame in &task.stack {
                        li.mono { (frame.file) ":" (frame.line) " in " (frame.function) }
                    }
                }
            }
            @if let Some(children) = children {
                ul.task-tree { @for child in children { (task_item(child, awaited_by, depth + 1)) } }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use breakroom_debugger::interrupts::TaskFrame;

    fn task(name: &str, awaiting: Option<&str>) -> TaskView {
        TaskView {
            id: format!("task-{name}"),
            name: name.into(),
            state: "pending".into(),
            stack: vec![TaskFrame { file: "/srv/<app>.py".into(), line: 3, function: "work<script>".into() }],
            awaiting: awaiting.map(Into::into),
            created_at_stack: vec![],
            pause_id: None,
            loop_id: None,
        }
    }

    #[test]
    fn the_tree_nests_a_task_under_the_task_it_awaits_and_escapes_the_programs_text() {
        let tasks = vec![task("main", None), task("child<b>", Some("task main")), task("loop", Some("task loop"))];
        let out = tasks_page("svc", "p-1", &tasks);
        assert!(!out.contains("<script>") && !out.contains("<b>") && !out.contains("<app>"), "{out}");
        assert!(out.contains("/srv/&lt;app&gt;.py:3 in work&lt;script&gt;"), "{out}");
        // child<b> is under main (after main's own stack), and a task awaiting itself is a root.
        let main = out.find("data-task-id=\"task-main\"").unwrap_or(usize::MAX);
        let child = out.find("data-task-id=\"task-child&lt;b&gt;\"").unwrap_or(0);
        assert!(main < child, "{out}");
        assert!(out.contains("3 asyncio tasks, 0 paused"), "{out}");
    }
}
