//! `/repls`: every REPL session, searchable. The filters live in the URL, so a search can be
//! bookmarked and shared, and the page works as a plain GET form without wasm. Rendered by the
//! server (`crate::render::sessions`).

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::api::sessions_html;
use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::ServerHtml;

#[component]
pub fn SessionsPage() -> impl IntoView {
    let query = use_query_map();
    let filters = move || {
        let q = query.read();
        let get = |k: &str| q.get(k).unwrap_or_default();
        let page: usize = get("page").parse().unwrap_or(1);
        (get("search"), get("status"), get("from"), get("to"), page.max(1))
    };
    let live = use_live();
    let sessions = server_resource(
        move || (filters(), live.sessions.get()),
        |((search, status, from, to, page), _)| sessions_html(search, status, from, to, page),
    );
    view! {
        <h1>"REPL Sessions"</h1>
        <ServerHtml html=sessions/>
    }
}
