//! `/processes` (the tracked processes, and a form to launch one) and `/process/{id}` (one
//! process: status, exit or crash banner, pauses, sessions, Stop, and its output following live).
//! Rendered by the server (`crate::render::processes`, `crate::output`); the controls, and
//! following the output, are handled here.

use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::ServerHtml;
#[cfg(feature = "hydrate")]
use crate::process_api::process_output_after;
use crate::process_api::{
    attach_process, launch_process, process_html, process_output_html, stop_process, tracked_processes_html,
};

#[component]
pub fn ProcessListPage() -> impl IntoView {
    let query = use_query_map();
    let all = move || matches!(query.read().get("all").as_deref(), Some("1" | "true"));
    #[cfg(feature = "hydrate")]
    let live = use_live();
    // `?label=service=api` (issue 34) is read by the server function itself, not passed from here.
    // Rendered for each `?all`; then a process's own events change its row alone, and a reconnect
    // the whole list, one change at a time (`process_rows`).
    let list = server_resource(all, tracked_processes_html);
    #[cfg(feature = "hydrate")]
    super::process_rows::follow_rows(live, move || {
        matches!(query.read_untracked().get("all").as_deref(), Some("1" | "true"))
    });
    // A finished row's "leaves the list in …"; the server's `process_left_list` then removes it.
    super::count_down();
    let navigate = use_navigate();
    let attach_navigate = navigate.clone();
    let (command, name, cwd) = (NodeRef::new(), NodeRef::new(), NodeRef::new());
    let error = RwSignal::new(None::<String>);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let value = |input: NodeRef<leptos::html::Input>| input.get().map(|i| i.value()).unwrap_or_default();
        let (command_text, name_text, cwd_text) = (value(command), value(name), value(cwd));
        if command_text.trim().is_empty() {
            error.set(Some("Type a command to run, e.g. python3 app.py".into()));
            return;
        }
        error.set(None);
        let navigate = navigate.clone();
        leptos::task::spawn_local(async move {
            match launch_process(command_text, name_text, cwd_text).await {
                Ok(id) => navigate(&format!("/process/{id}"), Default::default()),
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };
    // An Attach button of the local Python processes: the page of the process once it is in.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let Some(button) = target.closest(crate::controls::ATTACH_SELECTOR).ok().flatten() else { return };
        let Some(pid) = button.get_attribute("data-arg").and_then(|p| p.parse::<i64>().ok()) else { return };
        let _ = button.set_attribute("disabled", "");
        let scope = button.closest(".local-python").ok().flatten();
        let navigate = attach_navigate.clone();
        leptos::task::spawn_local(async move {
            match attach_process(pid).await {
                Ok(id) => navigate(&format!("/process/{id}"), Default::default()),
                Err(e) => {
                    let _ = button.remove_attribute("disabled");
                    if let Some(line) = scope.and_then(|s| s.query_selector(".attach-error").ok().flatten()) {
                        line.set_text_content(Some(&e.to_string()));
                        let _ = line.remove_attribute("hidden");
                    }
                }
            }
        });
    };
    view! {
        <h1>"Processes"</h1>
        <div class="process-list" on:click=on_click><ServerHtml html=list/></div>
        <section class="launch">
            <h2>"Launch a process"</h2>
            <form class="launch-form" on:submit=on_submit>
                <label>"Command " <input type="text" name="command" class="mono" placeholder="python3 app.py --port 8000" aria-label="Command" node_ref=command/></label>
                <label>"Name " <input type="text" name="name" placeholder="(the program's name)" aria-label="Name" node_ref=name/></label>
                <label>"Directory " <input type="text" name="cwd" class="mono" placeholder="(the server's)" aria-label="Directory" node_ref=cwd/></label>
                <button type="submit">"Launch"</button>
            </form>
            <p class="hint">"It runs with " <code>"BREAKROOM_URL"</code> " and the client on its path: "
                <code>"breakpoint()"</code> " pauses it here."</p>
            {move || error.get().map(|e| view! { <p class="error launch-error">{e}</p> })}
        </section>
    }
}

#[component]
pub fn ProcessPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let id = move || params.read().get("process_id").unwrap_or_default();
    let layout = move || query.read().get("view").unwrap_or_default();
    let live = use_live();
    // The output is not part of this: it is fetched once, then followed (`follow_output`).
    // A process event refetches this only when it is of this process or one of its children; a
    // pause event only when a call of this process paused or went on; a breakpoint event only
    // when this process hit, logged or counted (its logpoint lines): what the page shows of
    // breakpoints is that.
    let mine = live.records_of(id);
    // Its own checkpoints and branches, not another program's; a reconnect may have missed any.
    let travelled = live.time_travel_of(move || params.with_untracked(|p| p.get("process_id").unwrap_or_default()));
    // Its header names its key once the program called in; until then (or while the header is
    // not there yet) every pause and hit counts (`Live::of_process`).
    let ours = live.of_process(|| {
        let header = document().query_selector(crate::parts::PROCESS_HEADER).ok().flatten()?;
        header.get_attribute(crate::parts::PROCESS_KEY)
    });
    let page = server_resource(
        move || (id(), travelled.get(), live.reconnects.get(), mine.get(), ours.get()),
        |(id, ..)| process_html(id),
    );
    let output = server_resource(move || (id(), layout()), |(id, view)| process_output_html(id, view));
    #[cfg(feature = "hydrate")]
    follow_output(live, output, move || params.read_untracked().get("process_id").unwrap_or_default());
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let Some(button) = target.closest(crate::controls::STOP_SELECTOR).ok().flatten() else { return };
        let _ = button.set_attribute("disabled", "");
        let scope = button.closest(".page-body").ok().flatten();
        let id = params.read_untracked().get("process_id").unwrap_or_default();
        leptos::task::spawn_local(async move {
            if let Err(e) = stop_process(id).await {
                let _ = button.remove_attribute("disabled");
                if let Some(line) = scope.and_then(|s| s.query_selector(".error").ok().flatten()) {
                    line.set_text_content(Some(&e.to_string()));
                    let _ = line.remove_attribute("hidden");
                }
            }
        });
    };
    view! {
        <div on:click=on_click>
            <ServerHtml html=page/>
        </div>
        <ServerHtml html=output/>
    }
}

/// Follows the output of the page's process (issue 45): when a process prints, and after the live
/// stream reopens, the lines after the last one the section holds are fetched, and only those,
/// and put at the end of their columns (`crate::output::browser::append`). One fetch at a time;
/// events meanwhile make one more when it is back.
#[cfg(feature = "hydrate")]
fn follow_output(
    live: crate::live::Live,
    output: Resource<crate::encoding::PageHtml, crate::encoding::PageCodec>,
    id: impl Fn() -> String + Copy + Send + Sync + 'static,
) {
    use crate::output::browser::{append, next, section};
    let (fetching, again) = (StoredValue::new(false), StoredValue::new(false));
    let catch_up = move || {
        if fetching.get_value() {
            again.set_value(true);
            return;
        }
        fetching.set_value(true);
        leptos::task::spawn_local(async move {
            loop {
                again.set_value(false);
                // Without the section (still loading), its render brings the lines.
                let Some(from) = section().map(|s| next(&s)) else { break };
                if let (Ok(Some(reply)), Some(section)) = (process_output_after(id(), from).await, section()) {
                    append(&section, &reply);
                }
                if !again.get_value() {
                    break;
                }
            }
            fetching.set_value(false);
        });
    };
    Effect::new(move |first: Option<()>| {
        live.reconnects.track();
        output.track();
        // Not on its first run: the section the page was hydrated with is as new as the server's
        // render, and the stream's opening (a reconnect) catches up on what came after it.
        if first.is_some() {
            // After the section is in the page: a resource's new HTML is put in by a task that
            // runs after this effect, a zero timeout runs after both.
            set_timeout(catch_up, std::time::Duration::ZERO);
        }
    });
    // Another process's output is not this page's.
    Effect::new(move |_| {
        if live.output.with(|p| p.as_ref().is_some_and(|p| *p == id())) {
            catch_up();
        }
    });
}
