//! `/call-tree` (the debugged processes) and `/call-tree/{process_key}` (one process's calls as
//! a tree, with REPL badges on calls that had sessions). Rendered by the server
//! (`crate::render::processes`, `crate::render::call_tree`).

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::{call_tree_html, processes_html};
use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::ServerHtml;

/// `/call-tree`: read whole once; then a process's calls and pauses update its row alone
/// (`call_tree_process_row`), which moves up when its last call is the newest. The list is read
/// whole again for a process it does not show yet, a session (its count; the event names the
/// pause, not the process), time travel, and a reconnect. Every call of every program reached
/// this page, which read every process's summary again for each one.
#[component]
pub fn ProcessesPage() -> impl IntoView {
    let processes = server_resource(|| (), |_| processes_html());
    #[cfg(feature = "hydrate")]
    rows::follow(use_live());
    view! { <div class="call-tree-processes"><ServerHtml html=processes/></div> }
}

#[cfg(feature = "hydrate")]
mod rows {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::Element;

    use crate::api::{call_tree_process_row, processes_html};
    use crate::live::Live;

    pub fn follow(live: Live) {
        let whole = RwSignal::new(0u64);
        let push = crate::pages::one_at_a_time::follow(
            ".call-tree-processes .page-body",
            move || {
                live.reconnects.track();
                whole.track();
            },
            processes_html,
            |_| true,
            |key: String| async move { update(&key).await },
        );
        live.each(move |event| {
            use breakroom_debugger::model::LiveEventKind::*;
            match event.kind {
                Some(CallsChanged | PauseAdded | PauseResumed | StepStopped) => {
                    match event.text("process_key").filter(|key| !key.is_empty()) {
                        Some(key) => push(key),
                        None => whole.update(|n| *n += 1),
                    }
                }
                Some(SessionStarted | Rewind | BranchSwitched) => whole.update(|n| *n += 1),
                _ => {}
            }
        });
    }

    /// Fetches process `key`'s row and patches it in, moved up past rows less recently active;
    /// false when only the whole list can show it (a process it does not show yet).
    async fn update(key: &str) -> bool {
        let Ok(Some(html)) = call_tree_process_row(key.to_string()).await else { return false };
        let Some(row) = row(key) else { return false };
        if !crate::pages::patch::patch_element(&row, &html) {
            return false;
        }
        let last = |row: &Element| row.get_attribute("data-last-ms").and_then(|ms| ms.parse::<u64>().ok()).unwrap_or(0);
        let mine = last(&row);
        let mut before = row.previous_element_sibling();
        let mut place = None;
        while let Some(other) = before {
            if last(&other) >= mine {
                break;
            }
            before = other.previous_element_sibling();
            place = Some(other);
        }
        if let (Some(place), Some(list)) = (place, row.parent_node()) {
            return list.insert_before(&row, Some(&place)).is_ok();
        }
        true
    }

    /// The row of process `key` (compared as text: a key needs no selector escaping then).
    fn row(key: &str) -> Option<Element> {
        let rows = document().query_selector_all(".call-tree-processes tr[data-process-key]").ok()?;
        (0..rows.length())
            .filter_map(|i| rows.item(i)?.dyn_into::<Element>().ok())
            .find(|row| row.get_attribute("data-process-key").as_deref() == Some(key))
    }
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
    // Read once per process (and `selected`, `all`); then again on its events and a reconnect,
    // one read at a time, however fast its calls come.
    let tree = server_resource(
        move || (process_key(), selected(), all()),
        |(key, selected, all)| call_tree_html(key, selected, all),
    );
    #[cfg(feature = "hydrate")]
    crate::pages::one_at_a_time::follow_whole(
        ".call-tree-page .page-body",
        move || {
            own.track();
            live.reconnects.track();
        },
        move || {
            let (key, selected, all) = untrack(|| (process_key(), selected(), all()));
            call_tree_html(key, selected, all)
        },
    );
    #[cfg(not(feature = "hydrate"))]
    let _ = own;
    view! { <div class="call-tree-page"><ServerHtml html=tree/></div> }
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
