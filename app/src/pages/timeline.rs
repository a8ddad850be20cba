//! `/process/{id}/timeline` (issue 20): a process's branches and checkpoints, rendered by the
//! server (`crate::render::time_travel`). Its forms (Rewind, Branch, Switch) are sent to their
//! server functions from here, and the page follows the checkpoints as they are taken.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::controls::Control;
use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::{field, ServerHtml};
use crate::time_travel_api::{branch_form, rewind_form, switch_form, timeline_html};

#[component]
pub fn TimelinePage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("process_id").unwrap_or_default();
    let live = use_live();
    // This process's checkpoints, branches, rewinds and switches (another program's are not
    // this page's); a pause or a Continue of one of this process's lines is read here (a refused
    // checkpoint names its pause), another program's is not; the process's end is one of its own
    // record's changes; a reconnect may have missed any of them.
    let mine = live.records_of(id);
    let travelled = live.time_travel_of(move || params.with_untracked(|p| p.get("process_id").unwrap_or_default()));
    let sent = RwSignal::new(0u64);
    let paused_here = RwSignal::new(0u64);
    Effect::new(move |first: Option<()>| {
        let key = live.paused.with(|event| event.as_deref().and_then(|e| crate::live::read(e, "process_key")));
        let Some(key) = key.filter(|_| first.is_some()) else { return };
        let header = document().query_selector(crate::parts::TIMELINE_HEADER).ok().flatten();
        let keys = header.and_then(|h| h.get_attribute(crate::parts::PROCESS_KEYS)).unwrap_or_default();
        if keys.split(' ').any(|k| k == key) {
            paused_here.update(|n| *n += 1);
        }
    });
    let timeline = server_resource(
        move || (id(), travelled.get(), live.reconnects.get(), sent.get(), paused_here.get(), mine.get()),
        |(id, ..)| timeline_html(id),
    );
    let error = RwSignal::new(None::<String>);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        let Some(form) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let Some(action) = form.get_attribute("data-action").and_then(|a| Control::parse(&a)) else { return };
        ev.prevent_default();
        let (checkpoint, name) = (field(&form, "checkpoint_id"), field(&form, "name"));
        let (process, branch) = (field(&form, "process_id"), field(&form, "branch"));
        let _ = form.set_attribute("inert", "");
        leptos::task::spawn_local(async move {
            let done = match action {
                Control::Rewind => rewind_form(checkpoint).await,
                Control::Branch => branch_form(checkpoint, name).await,
                Control::SwitchBranch => switch_form(process, branch).await,
                _ => Ok(()),
            };
            let _ = form.remove_attribute("inert");
            error.set(done.err().map(|e| e.to_string()));
            // The live stream says so too; this is for a page whose stream is down.
            sent.update(|n| *n += 1);
        });
    };
    view! {
        {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
        <div on:submit=on_submit><ServerHtml html=timeline/></div>
    }
}
