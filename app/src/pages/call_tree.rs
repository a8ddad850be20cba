//! `/call-tree` (the debugged processes) and `/call-tree/{process_key}` (one process's calls as
//! a tree, with REPL badges on calls that had sessions). Rendered by the server
//! (`crate::render::processes`, `crate::render::call_tree`).

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::{call_tree_html, processes_html};
use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::ServerHtml;

#[component]
pub fn ProcessesPage() -> impl IntoView {
    let live = use_live();
    let processes = server_resource(move || live.calls.get(), |_| processes_html());
    view! { <ServerHtml html=processes/> }
}

#[component]
pub fn CallTreePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let process_key = move || params.read().get("process_key").unwrap_or_default();
    let selected = move || query.read().get("selected").unwrap_or_default();
    // `?all=1`: every call, not only the newest (`CALL_TREE_NEWEST`).
    let all = move || matches!(query.read().get("all").as_deref(), Some("1" | "true"));
    let live = use_live();
    // Another process's calls and pauses, and every transcript entry, cost the page nothing.
    let own = live.follow(Box::new(move |event| {
        on_event(event, &params.with_untracked(|p| p.get("process_key").unwrap_or_default()))
    }));
    let tree = server_resource(
        move || (process_key(), selected(), all(), own.get(), live.reconnects.get()),
        |(key, selected, all, ..)| call_tree_html(key, selected, all),
    );
    view! { <ServerHtml html=tree/> }
}

/// Whether an event changes the call tree of process `process_key`: its calls started, ended,
/// paused or went on, a REPL session started on one of its pauses (a call's badge, which stays
/// when the session closes), or time travel moved the live line.
fn on_event(event: &crate::live::Event, process_key: &str) -> bool {
    use breakroom_debugger::model::LiveEventKind::*;
    match event.kind {
        Some(CallsChanged | PauseAdded | PauseResumed | StepStopped) => event.names("process_key", process_key),
        Some(SessionStarted) => event.text("pause_id").is_some_and(|pause| shows_pause(&pause)),
        Some(Rewind | BranchSwitched) => true,
        _ => false,
    }
}

/// Whether a call of the tree paused at `pause_id` (its node's `data-pause-ids`).
fn shows_pause(pause_id: &str) -> bool {
    use wasm_bindgen::JsCast;
    let Ok(nodes) = document().query_selector_all(crate::parts::CALL_TREE_PAUSED) else { return false };
    (0..nodes.length()).filter_map(|i| nodes.item(i)?.dyn_into::<web_sys::Element>().ok()).any(|node| {
        node.get_attribute(crate::parts::PAUSE_IDS).is_some_and(|ids| ids.split(' ').any(|id| id == pause_id))
    })
}
