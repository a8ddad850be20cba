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
    // A session's new entry moves its row's count on in place; the page reads itself again for
    // sessions that start, close or move, and, while it searches, for an entry of a session it
    // does not list (the entry may match).
    let own = live.follow(Box::new(move |event| {
        on_event(event, query.with_untracked(|q| q.get("search").is_some_and(|s| !s.trim().is_empty())))
    }));
    let sessions = server_resource(
        move || (filters(), own.get(), live.reconnects.get()),
        |((search, status, from, to, page), ..)| sessions_html(search, status, from, to, page),
    );
    view! {
        <h1>"REPL Sessions"</h1>
        <ServerHtml html=sessions/>
    }
}

/// Whether an event changes which sessions the page lists, or how (see `SessionsPage`).
fn on_event(event: &crate::live::Event, searching: bool) -> bool {
    use breakroom_debugger::model::LiveEventKind::*;
    match event.kind {
        Some(SessionStarted | SessionClosed | StepStopped | Rewind | BranchSwitched) => true,
        // A listed session's count moved on already (`crate::live` does it on every page).
        Some(TranscriptAppended) => searching && !event.lists_session(),
        _ => false,
    }
}
