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
    let live = use_live();
    let tree = server_resource(
        move || (process_key(), selected(), live.calls.get(), live.sessions.get()),
        |(key, selected, _, _)| call_tree_html(key, selected),
    );
    view! { <ServerHtml html=tree/> }
}
