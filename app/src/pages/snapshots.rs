//! `/snapshots` (the list, following the live stream) and `/snapshots/{id}` (one snapshot), issue
//! 34. Rendered by the server (`crate::render::snapshots`, `crate::render::snapshot`): the data
//! is the debugged programs' text, which maud escapes.
//!
//! The list is read whole once per filter; then it follows hits part by part (issue 45). A hit of
//! a snapshot breakpoint it shows fetches only what changed since its newest row
//! (`snapshot_list_news`): the headers, whose counts moved, and the snapshots that came since,
//! which go on top while the oldest rows past the page's size leave at the bottom. A hit of
//! anything else (a logpoint, another breakpoint's count) costs it nothing. It reads itself whole
//! only when the breakpoints change, after a reconnect, and when a change cannot be placed alone
//! (the first snapshot of an empty list).

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::encoding::server_resource;
use crate::pages::ServerHtml;
use crate::snapshot_api::{snapshot_html, snapshots_html};

/// A list's filter, as its query says: breakpoint, process, page (`before`) and size (`limit`).
type Filter = (String, String, String, String);

#[component]
pub fn SnapshotsPage() -> impl IntoView {
    let query = use_query_map();
    let filter = move || -> Filter {
        let param = |name: &str| query.read().get(name).unwrap_or_default();
        (param("breakpoint_id"), param("process_id"), param("before"), param("limit"))
    };
    let list = server_resource(filter, |(breakpoint_id, process_id, before, limit)| {
        snapshots_html(breakpoint_id, process_id, before, limit)
    });
    #[cfg(feature = "hydrate")]
    follow::follow_hits(crate::live::use_live(), move || untrack(filter));
    view! {
        <div class="snapshots-page"><ServerHtml html=list/></div>
    }
}

#[cfg(feature = "hydrate")]
mod follow {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::Element;

    use super::Filter;
    use crate::live::{breakpoint_ids, Live};
    use crate::snapshot_api::{snapshot_list_news, snapshots_html};

    /// Follows `live.hit` (snapshots taken, hits counted) part by part, and `live.breakpoints`
    /// (the breakpoints changed, or the stream reopened) with the whole list.
    pub fn follow_hits(live: Live, filter: impl Fn() -> Filter + Copy + Send + Sync + 'static) {
        let push = crate::pages::one_at_a_time::follow(
            ".snapshots-page .page-body",
            move || live.breakpoints.track(),
            move || {
                let (breakpoint_id, process_id, before, limit) = filter();
                snapshots_html(breakpoint_id, process_id, before, limit)
            },
            |_| true,
            move |()| async move { apply(filter()).await },
        );
        // Not on its first run: the last hit may be from before the page opened.
        Effect::new(move |first: Option<()>| {
            let ids = live.hit.with(|hit| hit.as_deref().map(breakpoint_ids).unwrap_or_default());
            if first.is_some() && ids.iter().any(|id| header(id).is_some()) {
                push(());
            }
        });
    }

    /// Applies what changed since the newest row shown; false when only the whole list can show
    /// it (no rows yet, other headers than the server's).
    async fn apply((breakpoint_id, process_id, before, limit): Filter) -> bool {
        let Some(rows) = shown("table.snapshots tbody") else { return false };
        let Some(newest) = rows.first_element_child().and_then(|row| row.get_attribute("data-snapshot-id")) else {
            return false;
        };
        let Ok(Some(html)) = snapshot_list_news(breakpoint_id, process_id, before, limit, newest.clone()).await else {
            return false;
        };
        let Some(news) = crate::pages::patch::inert(&html).and_then(|f| f.first_element_child()) else { return false };
        // The list may have changed while this was fetched (a whole render): this answer is for
        // the list it was asked of, or for none.
        let (Some(rows), Some(headers)) = (shown("table.snapshots tbody"), shown("table.snapshot-breakpoints tbody"))
        else {
            return false;
        };
        if rows.first_element_child().and_then(|row| row.get_attribute("data-snapshot-id")) != Some(newest) {
            return false;
        }
        let (Some(fresh_headers), Some(fresh_rows)) = (child(&news, "tbody.headers"), child(&news, "tbody.rows"))
        else {
            return false;
        };
        if fresh_headers.child_element_count() != headers.child_element_count() {
            return false;
        }
        crate::pages::patch::patch(&headers, &fresh_headers.inner_html());
        // The new rows go on top, newest first, as they came.
        let top = rows.first_child();
        while let Some(row) = fresh_rows.first_child() {
            if rows.insert_before(&row, top.as_ref()).is_err() {
                return false;
            }
        }
        trim(&rows, &news)
    }

    /// Takes the rows past the page's size off the bottom, and points "Older snapshots" before
    /// the last row kept; false when the list grew past its size and has no such link yet.
    fn trim(rows: &Element, news: &Element) -> bool {
        let limit = news.get_attribute("data-limit").and_then(|n| n.parse::<u32>().ok()).unwrap_or(u32::MAX);
        if rows.child_element_count() <= limit {
            return true;
        }
        while rows.child_element_count() > limit {
            if let Some(last) = rows.last_element_child() {
                last.remove();
            }
        }
        let (Some(link), Some(older), Some(last)) = (
            shown("p.older a"),
            news.get_attribute("data-older"),
            rows.last_element_child().and_then(|row| row.get_attribute("data-snapshot-id")),
        ) else {
            return false;
        };
        let last: String = web_sys::js_sys::encode_uri_component(&last).into();
        link.set_attribute("href", &format!("{older}{last}")).is_ok()
    }

    /// The header of breakpoint `id` on the list (compared as text: an id needs no escaping).
    fn header(id: &str) -> Option<Element> {
        let headers = document().query_selector_all("tr.snapshot-bp").ok()?;
        (0..headers.length())
            .filter_map(|i| headers.item(i))
            .filter_map(|node| node.dyn_into::<Element>().ok())
            .find(|row| row.get_attribute("data-breakpoint-id").as_deref() == Some(id))
    }

    fn shown(selector: &str) -> Option<Element> {
        document().query_selector(&format!("#snapshot-list {selector}")).ok().flatten()
    }

    fn child(parent: &Element, selector: &str) -> Option<Element> {
        parent.query_selector(selector).ok().flatten()
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
