//! `/process/{id}/tasks` (issue 51) as typed data: a program's asyncio tasks as a tree of who
//! awaits whom, built on the server (`build`) and shown by `crate::pages::tasks`'s components.
//! Everything in it is the program's text, which the components show as text.

use serde::{Deserialize, Serialize};

/// The page's data: whose tasks, how many, and the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskTree {
    pub process_name: String,
    pub process_id: String,
    /// The keys its calls carry (one per line of the process): the page reads the tasks again
    /// when a call of one of them pauses or goes on, not for another program's.
    pub process_keys: Vec<String>,
    /// Tasks in the program, and how many of them Breakroom paused.
    pub count: u64,
    pub paused: u64,
    /// The tasks no other task awaits.
    pub roots: Vec<TaskNode>,
}

/// One task, with the tasks awaiting it under it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskNode {
    pub id: String,
    pub name: String,
    /// `running`, `pending`, `paused`, `done` or `cancelled`; `resuming` when the program still
    /// said `paused` but its pause was already continued.
    pub state: String,
    /// The pause that suspends it, when Breakroom paused it.
    pub pause_id: Option<String>,
    /// What it waits on (text).
    pub awaiting: Option<String>,
    /// Its coroutine's stack, outermost first, one `file:line in function` a frame.
    pub stack: Vec<String>,
    pub awaited_by: Vec<TaskNode>,
}

/// The JSON keys of the types above, as the browser reads them (`browser`). A test holds them to
/// what serde writes.
#[cfg(any(feature = "hydrate", test))]
mod keys {
    pub const PROCESS_NAME: &str = "process_name";
    pub const PROCESS_ID: &str = "process_id";
    pub const PROCESS_KEYS: &str = "process_keys";
    pub const COUNT: &str = "count";
    pub const PAUSED: &str = "paused";
    pub const ROOTS: &str = "roots";
    pub const ID: &str = "id";
    pub const NAME: &str = "name";
    pub const STATE: &str = "state";
    pub const PAUSE_ID: &str = "pause_id";
    pub const AWAITING: &str = "awaiting";
    pub const STACK: &str = "stack";
    pub const AWAITED_BY: &str = "awaited_by";
    #[cfg(test)]
    pub const ALL: &[&str] = &[
        PROCESS_NAME,
        PROCESS_ID,
        PROCESS_KEYS,
        COUNT,
        PAUSED,
        ROOTS,
        ID,
        NAME,
        STATE,
        PAUSE_ID,
        AWAITING,
        STACK,
        AWAITED_BY,
    ];
}

#[cfg(feature = "ssr")]
pub use server::build;

#[cfg(feature = "ssr")]
mod server {
    use std::collections::{BTreeMap, HashSet};

    use breakroom_debugger::interrupts::TaskView;

    use super::{TaskNode, TaskTree};

    /// How deep the tree goes (a cycle of awaits, or a long chain, stops here).
    const MAX_DEPTH: usize = 32;

    /// The tree of `tasks`: a task under the task it awaits (`awaiting` names it `task NAME`);
    /// one awaiting no known task, or itself, at the top. `still_paused` says whether a pause is
    /// still on: a list read just after a Continue can still report the task paused (the program
    /// learns of the Continue after the live event that makes the page read it again).
    pub fn build(
        process_name: &str,
        process_id: &str,
        tasks: &[TaskView],
        still_paused: impl Fn(&str) -> bool,
    ) -> TaskTree {
        let tasks: Vec<TaskView> = tasks
            .iter()
            .cloned()
            .map(|mut task| {
                if task.pause_id.as_deref().is_some_and(|pause| !still_paused(pause)) {
                    task.pause_id = None;
                    task.state = "resuming".into();
                }
                task
            })
            .collect();
        let tasks = tasks.as_slice();
        let names: HashSet<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
        let mut awaited_by: BTreeMap<&str, Vec<&TaskView>> = BTreeMap::new();
        let mut roots = vec![];
        for task in tasks {
            match task.awaiting.as_deref().and_then(|a| a.strip_prefix("task ")).filter(|n| names.contains(n)) {
                Some(parent) if parent != task.name => awaited_by.entry(parent).or_default().push(task),
                _ => roots.push(task),
            }
        }
        TaskTree {
            process_name: process_name.to_string(),
            process_id: process_id.to_string(),
            process_keys: vec![],
            count: tasks.len() as u64,
            paused: tasks.iter().filter(|t| t.pause_id.is_some()).count() as u64,
            roots: roots.into_iter().map(|t| node(t, &awaited_by, 0)).collect(),
        }
    }

    fn node(task: &TaskView, awaited_by: &BTreeMap<&str, Vec<&TaskView>>, depth: usize) -> TaskNode {
        let children = awaited_by.get(task.name.as_str()).filter(|_| depth < MAX_DEPTH);
        TaskNode {
            id: task.id.clone(),
            name: task.name.clone(),
            state: task.state.clone(),
            pause_id: task.pause_id.clone(),
            awaiting: task.awaiting.clone(),
            stack: task.stack.iter().map(|f| format!("{}:{} in {}", f.file, f.line, f.function)).collect(),
            awaited_by: children.into_iter().flatten().map(|c| node(c, awaited_by, depth + 1)).collect(),
        }
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use wasm_bindgen::JsValue;

    use super::keys::*;
    use super::{TaskNode, TaskTree};
    use crate::browser_json::{get, list, string, strings, whole, FromJs};

    impl FromJs for TaskTree {
        fn from_js(value: &JsValue) -> Option<Self> {
            Some(TaskTree {
                process_name: string(value, PROCESS_NAME)?,
                process_id: string(value, PROCESS_ID)?,
                process_keys: strings(list(value, PROCESS_KEYS)),
                count: whole(value, COUNT)?,
                paused: whole(value, PAUSED)?,
                roots: list(value, ROOTS).iter().map(TaskNode::from_js).collect::<Option<_>>()?,
            })
        }
    }

    impl FromJs for TaskNode {
        fn from_js(value: &JsValue) -> Option<Self> {
            Some(TaskNode {
                id: string(value, ID)?,
                name: string(value, NAME)?,
                state: string(value, STATE)?,
                pause_id: get(value, PAUSE_ID).and_then(|v| v.as_string()),
                awaiting: get(value, AWAITING).and_then(|v| v.as_string()),
                stack: strings(list(value, STACK)),
                awaited_by: list(value, AWAITED_BY).iter().map(TaskNode::from_js).collect::<Option<_>>()?,
            })
        }
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use breakroom_debugger::interrupts::{TaskFrame, TaskView};

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
    fn a_task_is_under_the_task_it_awaits_and_one_awaiting_itself_is_at_the_top() {
        let tasks = vec![task("main", None), task("child<b>", Some("task main")), task("loop", Some("task loop"))];
        let tree = build("svc", "p-1", &tasks, |_| true);
        let roots: Vec<&str> = tree.roots.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(roots, ["main", "loop"]);
        assert_eq!(tree.roots[0].awaited_by[0].name, "child<b>");
        assert_eq!(tree.roots[0].stack, ["/srv/<app>.py:3 in work<script>"]);
        assert_eq!((tree.count, tree.paused), (3, 0));
    }

    #[test]
    fn a_task_whose_pause_was_continued_is_resuming_not_paused() {
        let mut paused = task("main", None);
        paused.pause_id = Some("pause-1".into());
        paused.state = "paused".into();
        let tree = build("svc", "p-1", &[paused.clone()], |pause| pause == "pause-1");
        assert_eq!((tree.roots[0].state.as_str(), tree.paused), ("paused", 1));
        let tree = build("svc", "p-1", &[paused], |_| false);
        assert_eq!(
            (tree.roots[0].state.as_str(), tree.roots[0].pause_id.as_deref(), tree.paused),
            ("resuming", None, 0)
        );
    }

    #[test]
    fn tasks_awaiting_each_other_in_a_cycle_are_left_out_and_nothing_loops() {
        let tasks = vec![task("root", None), task("a", Some("task b")), task("b", Some("task a"))];
        // Neither a nor b is a root: only the root shows, and nothing loops forever.
        assert_eq!(build("svc", "p-1", &tasks, |_| true).roots.len(), 1);
    }

    #[test]
    fn the_browser_reads_the_keys_the_server_writes() {
        let mut paused = task("main", None);
        paused.pause_id = Some("pause-1".into());
        let tree = build("svc", "p-1", &[paused, task("child", Some("task main"))], |_| true);
        let written = crate::encoding::json_keys(&serde_json::to_value(&tree).expect("JSON"));
        let read: std::collections::BTreeSet<String> = keys::ALL.iter().map(|k| k.to_string()).collect();
        assert_eq!(written, read);
    }
}
