//! `/callstack/{pause_id}`: the stack at the moment a call paused, and the REPL sessions on it.
//! Rendered by the server in two parts (`crate::render::callstack`), each read again on its own
//! events only: the header and sessions when the pause goes on or its sessions change; the frames,
//! which never change, only for the marks of line breakpoints. A frame the reader opened stays
//! open, and its source is not fetched again for a session.
//! A click on a source line's number sets or removes a line breakpoint there.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::api::{call_stack_frames_html, call_stack_html};
use crate::breakpoint_api::toggle_line_breakpoint;
use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::ServerHtml;

#[component]
pub fn CallStackPage() -> impl IntoView {
    let params = use_params_map();
    let pause_id = move || params.read().get("pause_id").unwrap_or_default();
    let live = use_live();
    // The header and sessions change when this pause goes on and its sessions start or close
    // (their entry counts move on in place); the frames only with the marks of line breakpoints.
    // Another pause's events, and other sessions' entries, cost the page nothing.
    let own = live.follow(Box::new(move |event| {
        on_event(event, &params.with_untracked(|p| p.get("pause_id").unwrap_or_default()))
    }));
    let head = server_resource(move || (pause_id(), own.get(), live.reconnects.get()), |(id, ..)| call_stack_html(id));
    let frames = server_resource(move || (pause_id(), live.breakpoints.get()), |(id, _)| call_stack_frames_html(id));
    let error = RwSignal::new(None::<String>);
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        if !target.class_list().contains("lineno") {
            return;
        }
        let line = target.closest("[data-line]").ok().flatten().and_then(|l| l.get_attribute("data-line"));
        let file = target.closest("[data-file]").ok().flatten().and_then(|s| s.get_attribute("data-file"));
        let (Some(Ok(line)), Some(file)) = (line.map(|l| l.parse::<u32>()), file) else { return };
        leptos::task::spawn_local(async move {
            match toggle_line_breakpoint(file, line).await {
                Ok(()) => error.set(None),
                Err(e) => error.set(Some(e.to_string())),
            }
            // The live stream says so too; this is for a page whose stream is down.
            live.breakpoints.update(|v| *v += 1);
        });
    };
    view! {
        {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
        <div on:click=on_click>
            <ServerHtml html=head/>
            <ServerHtml html=frames/>
        </div>
    }
}

/// Whether an event changes what the page shows of pause `pause_id` (see `CallStackPage`).
fn on_event(event: &crate::live::Event, pause_id: &str) -> bool {
    use breakroom_debugger::model::LiveEventKind::*;
    match event.kind {
        Some(PauseAdded | PauseResumed | SessionStarted) => event.names("pause_id", pause_id),
        // Its sessions moved on with the step.
        Some(StepStopped) => event.names("previous_pause_id", pause_id),
        Some(SessionClosed) => event.lists_session(),
        Some(Rewind | BranchSwitched) => true,
        _ => false,
    }
}
