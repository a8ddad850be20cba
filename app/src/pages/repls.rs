//! `/repls`: every REPL session, searchable. The filters live in the URL, so a search can be
//! bookmarked and shared, and the page works as a plain GET form without wasm. Rendered by the
//! server (`crate::render::sessions`).

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;

use crate::api::sessions_html;
use crate::encoding::server_resource;
use crate::pages::ServerHtml;

/// `/repls`'s filters as its URL says them: search, status, from, to, page.
fn filters(q: &ParamsMap) -> (String, String, String, String, usize) {
    let get = |k: &str| q.get(k).unwrap_or_default();
    let page: usize = get("page").parse().unwrap_or(1);
    (get("search"), get("status"), get("from"), get("to"), page.max(1))
}

/// Read whole for its filters; then a session's new entry moves its row's count on in place
/// (`crate::live` does it on every page), a listed session that closes has its row read alone
/// (`session_row`), and the page reads itself again, one read at a time, for what changes which
/// sessions it lists: a session started or moved by a step, time travel, a session closing while
/// the list is of active or closed ones, an entry of a session it does not list while it searches
/// (the entry may match), and a reconnect.
#[component]
pub fn SessionsPage() -> impl IntoView {
    let query = use_query_map();
    let sessions = server_resource(
        move || query.with(filters),
        |(search, status, from, to, page)| sessions_html(search, status, from, to, page),
    );
    #[cfg(feature = "hydrate")]
    rows::follow(crate::live::use_live(), query);
    view! {
        <h1>"REPL Sessions"</h1>
        <div class="sessions-page"><ServerHtml html=sessions/></div>
    }
}

#[cfg(feature = "hydrate")]
mod rows {
    use leptos::prelude::*;
    use leptos_router::params::ParamsMap;

    use crate::api::{session_row, sessions_html};
    use crate::live::{Event, Live};

    pub fn follow(live: Live, query: Memo<ParamsMap>) {
        let whole = RwSignal::new(0u64);
        let push = crate::pages::one_at_a_time::follow(
            ".sessions-page .page-body",
            move || {
                live.reconnects.track();
                whole.track();
            },
            move || {
                let (search, status, from, to, page) = query.with_untracked(super::filters);
                sessions_html(search, status, from, to, page)
            },
            |_| true,
            |id: String| async move { update(&id).await },
        );
        live.each(move |event| {
            let (search, status, ..) = query.with_untracked(super::filters);
            match on_event(event, !search.trim().is_empty(), status.trim()) {
                Change::Row(id) => push(id),
                Change::Whole => whole.update(|n| *n += 1),
                Change::None => {}
            }
        });
    }

    enum Change {
        Row(String),
        Whole,
        None,
    }

    /// What an event changes on a list of sessions searched for a term or not, of `status`.
    fn on_event(event: &Event, searching: bool, status: &str) -> Change {
        use breakroom_debugger::model::LiveEventKind::*;
        match event.kind {
            Some(SessionStarted | StepStopped | Rewind | BranchSwitched) => Change::Whole,
            // A list of active or closed sessions gains or loses one (and the pages after it move).
            Some(SessionClosed) if matches!(status, "active" | "closed") => Change::Whole,
            Some(SessionClosed) => match event.text("session_id") {
                Some(id) if event.lists_session() => Change::Row(id),
                _ => Change::None,
            },
            // A listed session's count moved on already (`crate::live` does it on every page).
            Some(TranscriptAppended) if searching && !event.lists_session() => Change::Whole,
            _ => Change::None,
        }
    }

    /// Fetches session `id`'s row and patches it in; false when only the whole list can show it.
    async fn update(id: &str) -> bool {
        let Ok(Some(html)) = session_row(id.to_string()).await else { return false };
        let Some(row) = row(id) else { return false };
        crate::pages::patch::patch_element(&row, &html)
    }

    /// The list's row of session `id` (compared as text: an id needs no selector escaping then).
    fn row(id: &str) -> Option<web_sys::Element> {
        use wasm_bindgen::JsCast;
        let rows = document().query_selector_all(".sessions-page tr[data-session-id]").ok()?;
        (0..rows.length())
            .filter_map(|i| rows.item(i)?.dyn_into::<web_sys::Element>().ok())
            .find(|row| row.get_attribute(crate::parts::SESSION_ID).as_deref() == Some(id))
    }
}
