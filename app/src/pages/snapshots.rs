//! `/snapshots` (the list, following the live stream) and `/snapshots/{id}` (one snapshot), issue
//! 34. Rendered by the server (`crate::render::snapshots`, `crate::render::snapshot`): the data
//! is the debugged programs' text, which maud escapes.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::ServerHtml;
use crate::snapshot_api::{snapshot_html, snapshots_html};

#[component]
pub fn SnapshotsPage() -> impl IntoView {
    let query = use_query_map();
    let param = move |name: &str| query.read().get(name).unwrap_or_default();
    let filter = move || (param("breakpoint_id"), param("process_id"), param("before"), param("limit"));
    let live = use_live();
    // A snapshot's arrival is a hit (its breakpoint's counts changed); a reconnect or a lagged
    // stream bumps `breakpoints`, as every signal.
    let hits = live.hits();
    let list = server_resource(
        move || (filter(), live.breakpoints.get(), hits.get()),
        |((breakpoint_id, process_id, before, limit), ..)| snapshots_html(breakpoint_id, process_id, before, limit),
    );
    view! {
        <div class="snapshots-page"><ServerHtml html=list/></div>
    }
}

#[component]
pub fn SnapshotPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("snapshot_id").unwrap_or_default();
    // A snapshot never changes once taken.
    let snapshot = server_resource(id, snapshot_html);
    view! { <ServerHtml html=snapshot/> }
}
