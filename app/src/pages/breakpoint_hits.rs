//! The breakpoints on `/` follow hits form by form (issue 45): a hit, a logpoint's line, a
//! snapshot or a hit count names the breakpoints whose counts moved, and each of their forms is
//! fetched alone (`breakpoint_record_html`) and patched in place, so what the reader is typing
//! in another form, or in that one, stays. A hot logpoint costs one form's fetch at a time: hits
//! that come while it is fetched wait as one, and the fetch after them shows the newest counts.

use leptos::prelude::*;
use web_sys::Element;

use crate::breakpoint_api::{breakpoint_record_html, breakpoints_html};
use crate::live::{breakpoint_ids, Live};

/// Follows `live.hit` on the list, and `live.breakpoints` (a change of the breakpoints
/// themselves, or a reconnect) with the whole list.
pub fn follow_hits(live: Live) {
    // A form waiting for its fetch shows the newest counts when it is fetched.
    let push = super::one_at_a_time::follow(
        "section.breakpoints .page-body",
        move || live.breakpoints.track(),
        breakpoints_html,
        |_| true,
        |id: String| async move { update(&id).await },
    );
    // Not on its first run: the last hit may be from before the page opened.
    Effect::new(move |first: Option<()>| {
        let ids = live.hit.with(|hit| hit.as_deref().map(breakpoint_ids).unwrap_or_default());
        if first.is_none() {
            return;
        }
        // A breakpoint this list does not show (a by-name one shows no count) has nothing to update.
        for id in ids.into_iter().filter(|id| form(id).is_some()) {
            push(id);
        }
    });
}

/// Fetches breakpoint `id`'s form and patches it in; false when only the whole list can show it.
async fn update(id: &str) -> bool {
    let Ok(Some(html)) = breakpoint_record_html(id.to_string()).await else { return false };
    // Removed meanwhile: its removal fetched the list.
    let Some(shown) = form(id) else { return true };
    super::patch::patch_element(&shown, &html)
}

/// The form of breakpoint `id` (compared as text: an id needs no selector escaping then).
fn form(id: &str) -> Option<Element> {
    let forms = document().query_selector_all(crate::parts::RECORD_FORMS).ok()?;
    (0..forms.length())
        .filter_map(|i| forms.item(i))
        .filter_map(|node| wasm_bindgen::JsCast::dyn_into::<Element>(node).ok())
        .find(|form| form.get_attribute(crate::parts::RECORD).as_deref() == Some(id))
}
