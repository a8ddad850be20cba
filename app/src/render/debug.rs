//! The debug part of `/repl/{id}` (issue 30), rendered by the server: the toolbar (Continue,
//! Step over/into/out with VS Code's keys), where the program stopped and the selected frame's
//! source with the current line marked and the breakpoints in its gutter (a click toggles one),
//! in the page's main column; the stack (a click selects a frame) in its sidebar. The page's
//! click handlers send each control's `data-action` (and `data-arg`) to `debug_action`.

use maud::{html, Markup};

use breakroom_debugger::breakpoints::record::BreakpointRecord;
use breakroom_debugger::steps::{FrameView, PauseStop};

use crate::controls::Control;
use crate::task_tree::{TaskNode, TaskTree};

/// Lines shown either side of the current one (the view is centred on it: no scrolling).
const AROUND: i64 = 12;

/// What the panel shows.
pub struct DebugView<'a> {
    pub frames: &'a [FrameView],
    pub selected: usize,
    pub stop: Option<&'a PauseStop>,
    /// The program runs a step: no controls until it stops.
    pub running: bool,
    /// The checkpoint Step back goes to (none: no Step back button).
    pub step_back: Option<&'a str>,
    /// The selected frame's whole file when the server can read it, else the frame's lines.
    pub file_lines: Option<Vec<String>>,
    pub breakpoints: &'a [BreakpointRecord],
}

fn control(action: Control, label: &str, keys: &str) -> Markup {
    html! {
        button.debug-control type="button" data-action=(action.as_str()) title={ (label) " (" (keys) ")" } {
            (label) " " kbd { (keys) }
        }
    }
}

pub fn debug_panel(view: &DebugView) -> Markup {
    let frame = view.frames.get(view.selected).or(view.frames.first());
    html! {
        section.debug {
            div.debug-toolbar {
                @if view.running {
                    span.debug-running { "Running a step… the page follows it when it stops." }
                } @else {
                    (control(Control::Continue, "Continue", "F5"))
                    (control(Control::StepOver, "Step over", "F10"))
                    (control(Control::StepInto, "Step into", "F11"))
                    (control(Control::StepOut, "Step out", "Shift+F11"))
                    @if let Some(checkpoint) = view.step_back {
                        button.debug-control type="button" data-action=(Control::StepBack.as_str())
                            title={ "Back to " (checkpoint) " (the program's memory as it was then; files and sockets are not rewound)" } {
                            "Step back"
                        }
                    }
                }
            }
            @if let Some(stop) = view.stop {
                p.debug-where { (stop.describe()) }
            }
            @if !view.running {
                p.hint {
                    "Keys: F5 continue · F10 step over · F11 step into · Shift+F11 step out. Step back shows once a checkpoint is before this pause (checkpoints on). "
                    "Click a frame in the stack to evaluate in it; click a line number to set or remove a breakpoint."
                }
            }
            @if let Some(frame) = frame {
                (source(frame, view.file_lines.as_deref(), view.breakpoints))
            }
        }
    }
}

/// The stack, for the page's sidebar (issue 45): the main column keeps its width for the source.
pub fn debug_stack(view: &DebugView) -> Markup {
    html! {
        section.debug-frames aria-label="Stack" {
            h2 { "Stack" }
            ol.debug-stack {
                @for f in view.frames {
                    li.stack-frame.selected[f.index == view.selected] {
                        button.debug-control type="button" data-action=(Control::SelectFrame.as_str()) data-arg=(f.index) {
                            span.fn-name { (f.function) }
                            " " span.where { (basename(&f.filename)) ":" (f.lineno) }
                        }
                    }
                }
            }
        }
    }
}

/// The most tasks the sidebar lists (a service can run thousands; the Tasks page lists them all).
const SIDEBAR_TASKS: usize = 40;

/// The program's asyncio tasks as a tree of who awaits whom (issue 51), in the sidebar under the
/// stack when the pause is in a task; this pause's task is marked. Names are the program's text.
pub fn debug_tasks(tree: &TaskTree, pause_id: &str) -> Markup {
    let mut budget = SIDEBAR_TASKS;
    let counts = format!("{} asyncio tasks, {} paused by Breakroom: who awaits whom", tree.count, tree.paused);
    html! {
        section.debug-tasks aria-label="Tasks" {
            h2 { "Tasks" }
            p.hint { (counts) }
            ul.task-tree { @for node in &tree.roots { (task_node(node, pause_id, &mut budget)) } }
            @if tree.count as usize > SIDEBAR_TASKS { p.hint { (format!("The first {SIDEBAR_TASKS} shown.")) } }
            a.button href=(format!("/process/{}/tasks", tree.process_id)) { "All tasks" }
        }
    }
}

fn task_node(node: &TaskNode, pause_id: &str, budget: &mut usize) -> Markup {
    if *budget == 0 {
        return html! {};
    }
    *budget -= 1;
    let here = node.pause_id.as_deref() == Some(pause_id);
    let class = format!("task state-{}{}", node.state, if here { " this-pause" } else { "" });
    let where_ = node.stack.last().map(|f| basename(f).to_string());
    html! {
        li class=(class) title=(node.stack.join("\n")) {
            span.task-name { (node.name) } " "
            span.task-state { (if here { "this pause" } else { node.state.as_str() }) }
            @if let Some(where_) = where_ { " " span.where { (where_) } }
            @if !node.awaited_by.is_empty() {
                ul.task-tree { @for child in &node.awaited_by { (task_node(child, pause_id, budget)) } }
            }
        }
    }
}

fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The frame's source around its line: the whole file's lines when known, else the few the
/// client sent.
fn source(frame: &FrameView, file_lines: Option<&[String]>, breakpoints: &[BreakpointRecord]) -> Markup {
    let (start, lines): (i64, &[String]) = match file_lines {
        Some(lines) => (1, lines),
        None => (frame.source_start, &frame.source_lines),
    };
    let first = (frame.lineno - AROUND).max(start);
    let last = frame.lineno + AROUND;
    html! {
        pre.debug-source data-file=(frame.filename) {
            @for (i, text) in lines.iter().enumerate() {
                @let n = start + i as i64;
                @if n >= first && n <= last {
                    @let set = u32::try_from(n).is_ok_and(|n| breakpoints.iter().any(|b| b.is_line_at(&frame.filename, n)));
                    span.line.current[n == frame.lineno].bp[set] data-line=(n) {
                        button.lineno.debug-control type="button" data-action=(Control::ToggleLine.as_str()) data-arg=(n)
                            title=(if set { "Remove the line breakpoint" } else { "Set a line breakpoint" }) { (format!("{n:>5}")) }
                        " " (text) "\n"
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use breakroom_debugger::steps::StopKind;

    #[test]
    fn the_panel_shows_program_text_as_text() {
        let frames = vec![FrameView {
            index: 0,
            filename: "/tmp/<evil>.py".into(),
            lineno: 2,
            function: "f<script>".into(),
            code_context: None,
            source_start: 1,
            source_lines: vec!["</pre><script>1</script>".into(), "x = '<b>'".into()],
            locals: vec![],
        }];
        let stop = PauseStop {
            kind: StopKind::Line,
            file: Some("/tmp/<evil>.py".into()),
            line: Some(2),
            function: Some("f<script>".into()),
            breakpoint_id: Some("bp-<1>".into()),
            step: None,
            how: None,
            previous_pause_id: None,
            exception: None,
            reconnected_from: None,
            blocking: Some(true),
            blocking_reason: Some("<sync> frame".into()),
        };
        let view = DebugView {
            frames: &frames,
            selected: 0,
            stop: Some(&stop),
            running: false,
            step_back: Some("cp-<2>"),
            file_lines: None,
            breakpoints: &[],
        };
        let out = debug_panel(&view).into_string();
        assert!(
            !out.contains("<script>") && !out.contains("<b>") && !out.contains("<evil>") && !out.contains("<2>"),
            "{out}"
        );
        assert!(
            out.contains("&lt;evil&gt;.py:2 in f&lt;script&gt; — line breakpoint bp-&lt;1&gt;, blocking the event loop (&lt;sync&gt; frame)"),
            "{out}"
        );
        assert!(out.contains(r#"<span class="line current" data-line="2">"#), "{out}");
        let stack = debug_stack(&view).into_string();
        assert!(stack.contains("f&lt;script&gt;") && stack.contains("&lt;evil&gt;.py:2"), "{stack}");
        assert!(!stack.contains("<script>") && !stack.contains("<evil>"), "{stack}");
    }

    #[test]
    fn the_task_tree_marks_this_pause_s_task_and_shows_names_as_text() {
        let node = |id: &str, name: &str, state: &str, pause: Option<&str>, under: Vec<TaskNode>| TaskNode {
            id: id.into(),
            name: name.into(),
            state: state.into(),
            pause_id: pause.map(Into::into),
            awaiting: None,
            stack: vec![format!("/srv/<app>.py:3 in {name}")],
            awaited_by: under,
        };
        let outer = node("task-1", "<img src=x>", "pending", None, vec![]);
        let inner = node("task-2", "inner <b>", "paused", Some("p-1"), vec![outer]);
        let tree = TaskTree {
            process_name: String::new(),
            process_id: "7f<0>".into(),
            process_keys: vec![],
            count: 2,
            paused: 1,
            roots: vec![inner],
        };
        let out = debug_tasks(&tree, "p-1").into_string();
        assert!(!out.contains("<b>") && !out.contains("<img") && !out.contains("<app>"), "{out}");
        assert!(out.contains(r#"<li class="task state-paused this-pause""#), "{out}");
        assert!(out.contains("inner &lt;b&gt;</span> <span class=\"task-state\">this pause</span>"), "{out}");
        // The task awaiting the paused one is listed inside its item.
        let (start, end) = (out.find("this-pause").unwrap_or(0), out.rfind("</li>").unwrap_or(0));
        assert!(out[start..end].contains("&lt;img src=x&gt;"), "{out}");
        assert!(out.contains(r#"href="/process/7f&lt;0&gt;/tasks""#), "{out}");
    }
}
