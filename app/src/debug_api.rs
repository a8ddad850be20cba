//! The debug page's server side (issue 30): its controls (`crate::render::debug`) and the source
//! it shows.

use crate::rpc::TextRpc;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// A Python file's lines, when this server can read it (the program runs on this host): the
/// debug page then shows more than the lines the client sent.
#[cfg(feature = "ssr")]
pub(crate) fn readable_source(path: &str) -> Option<Vec<String>> {
    if !path.ends_with(".py") || std::fs::metadata(path).ok()?.len() > 1_000_000 {
        return None;
    }
    Some(std::fs::read_to_string(path).ok()?.lines().map(str::to_string).collect())
}

/// How long the debug page waits for a program's task list (the list itself takes about 2 ms).
#[cfg(feature = "ssr")]
const PAGE_TASKS_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// The program's asyncio tasks as a tree, for the sidebar of a pause in a task (its task
/// suspended alone, or its loop's thread stopped); empty for any other pause, or a program that
/// does not answer within `PAGE_TASKS_WAIT`.
#[cfg(feature = "ssr")]
pub(crate) async fn tasks_markup(debugger: &breakroom_debugger::Debugger, pause_id: &str) -> maud::Markup {
    use breakroom_debugger::interrupts::TASK_THREAD_PREFIX;
    let Ok(Some((call, true))) = debugger.pauses().pause_call(pause_id) else { return maud::html! {} };
    let in_task = call.thread.as_ref().is_some_and(|t| t.name.starts_with(TASK_THREAD_PREFIX))
        || call.stop.as_ref().is_some_and(|s| s.is_blocking());
    let Some(process_id) = debugger.processes().process_id_for_key(&call.process_key).filter(|_| in_task) else {
        return maud::html! {};
    };
    let Ok(tasks) = debugger.interrupts().list_tasks_within(&process_id, PAGE_TASKS_WAIT).await else {
        return maud::html! {};
    };
    let paused: std::collections::HashSet<String> =
        debugger.pauses().paused_calls().into_iter().map(|call| call.pause_id).collect();
    let tree = crate::task_tree::build("", &process_id, &tasks, |pause| paused.contains(pause));
    crate::render::debug::debug_tasks(&tree, pause_id)
}

/// The debug panel of a session's page and its stack, for the page's sidebar (both empty when
/// its pause has no frames: cideldill's clients send none). `step_back`: the checkpoint a Step
/// back goes to, if any.
#[cfg(feature = "ssr")]
pub(crate) fn debug_markup(
    debugger: &breakroom_debugger::Debugger,
    session_id: &str,
    step_back: Option<&str>,
) -> Result<(maud::Markup, maud::Markup), ServerFnError> {
    let Some(state) = debugger.steps().debug_state(session_id).map_err(failed)?.filter(|s| !s.frames.is_empty()) else {
        return Ok((maud::html! {}, maud::html! {}));
    };
    let breakpoints = debugger.breakpoints().breakpoint_records();
    let file = state.frames.get(state.selected).map(|f| f.filename.clone()).unwrap_or_default();
    let view = crate::render::debug::DebugView {
        frames: &state.frames,
        selected: state.selected,
        stop: state.stop.as_ref(),
        running: state.running,
        step_back,
        file_lines: readable_source(&file),
        breakpoints: &breakpoints,
    };
    Ok((crate::render::debug::debug_panel(&view), crate::render::debug::debug_stack(&view)))
}

/// The debug page's controls (`crate::render::debug`): `action` is a control's `data-action`,
/// `arg` its `data-arg`. Steps wait for the stop (up to 2 s); the page follows live events.
#[server(prefix = "/rpc", endpoint = "debug_action", protocol = TextRpc)]
pub async fn debug_action(session_id: String, action: String, arg: String) -> Result<(), ServerFnError> {
    use crate::controls::Control;
    use breakroom_debugger::steps::{StepKind, StepRequest};
    let debugger = debugger(Need::Debugger)?;
    let Some(state) = debugger.steps().debug_state(&session_id).map_err(failed)? else {
        return Err(failed(breakroom_debugger::Error::SessionClosed(session_id)));
    };
    let number = || arg.parse::<usize>().map_err(|_| ServerFnError::new(format!("not a number: {arg:?}")));
    match Control::parse(&action) {
        Some(Control::Continue) => {
            use breakroom_debugger::pauses::ResumeRequest;
            let id = state.pause_id.clone();
            let resume =
                move |d: &breakroom_debugger::Debugger| d.pauses().continue_pause(&id, ResumeRequest::continue_());
            debugger.off_workers(resume).await.map(|_| ()).map_err(failed)
        }
        Some(Control::StepOver) => {
            debugger.steps().step(&state.pause_id, StepRequest::new(StepKind::Over)).await.map(|_| ()).map_err(failed)
        }
        Some(Control::StepInto) => {
            debugger.steps().step(&state.pause_id, StepRequest::new(StepKind::Into)).await.map(|_| ()).map_err(failed)
        }
        Some(Control::StepOut) => {
            debugger.steps().step(&state.pause_id, StepRequest::new(StepKind::Out)).await.map(|_| ()).map_err(failed)
        }
        // The session follows the program back (see `Debugger::step_back`).
        Some(Control::StepBack) => {
            debugger.checkpoints().step_back(&state.pause_id, Default::default()).await.map(|_| ()).map_err(failed)
        }
        Some(Control::SelectFrame) => debugger
            .sessions()
            .select_frame(&session_id, breakroom_debugger::steps::FrameIndex(number()?))
            .map_err(failed),
        Some(Control::ToggleLine) => {
            let line = u32::try_from(number()?).map_err(|_| ServerFnError::new("line out of range"))?;
            let file = state.frames.get(state.selected).map(|f| f.filename.clone()).unwrap_or_default();
            debugger.breakpoints().toggle_line_breakpoint(&file, line).map(|_| ()).map_err(failed)
        }
        _ => Err(ServerFnError::new(format!("not a debug control: {action:?}"))),
    }
}
