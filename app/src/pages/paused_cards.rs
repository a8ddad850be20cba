//! The paused calls on `/` follow pause and session events card by card (issue 45): a call that
//! paused has its card fetched alone (`paused_card_html`) and put after the card the server puts
//! before it; one that went on has its card taken out with no fetch; a session that started or
//! closed on a pause has that card fetched again (Open REPL or Go to open REPL). The whole list
//! is fetched only when a card cannot be placed alone: the first card of an empty list, or the
//! last one leaving it ("Nothing is paused" comes with the list).

use leptos::prelude::*;
use web_sys::Element;

use crate::api::{paused_card_html, paused_html};
use crate::live::{read, went_on, Live};

#[derive(Clone, PartialEq)]
enum CardChange {
    /// Fetch the card and put it in place (a new pause, or one whose sessions changed).
    Fetch(String),
    /// The call went on.
    Remove(String),
}

/// Follows `live.paused` (pauses and their sessions) on the list, and `live.processes` (a checkpoint or a
/// rewind: a card's Step back; a reconnect) with the whole list.
pub fn follow_cards(live: Live) {
    // A card waiting for its fetch shows the newest state when it is fetched.
    let fetch = |change: &CardChange| matches!(change, CardChange::Fetch(_));
    let push = super::one_at_a_time::follow(
        ".paused-calls .page-body",
        move || live.processes.track(),
        paused_html,
        fetch,
        |change: CardChange| async move { apply(change).await },
    );
    // Not on its first run: the last event may be from before the page opened.
    Effect::new(move |first: Option<()>| {
        let change = live.paused.get();
        let (Some(()), Some(event)) = (first, change) else { return };
        // A session that closed is found by its card's link; one that started names its pause.
        let closed = read(&event, "pause_id").is_none();
        let pause = match closed {
            true => read(&event, "session_id").and_then(|s| card_linking(&s)),
            false => read(&event, "pause_id"),
        };
        let Some(pause_id) = pause else { return };
        push(match went_on(&event) {
            true => CardChange::Remove(pause_id),
            false => CardChange::Fetch(pause_id),
        });
    });
}

/// Puts one change into the list; false when only a whole render can show it.
async fn apply(change: CardChange) -> bool {
    let pause_id = match change {
        CardChange::Remove(pause_id) => return remove(&pause_id),
        CardChange::Fetch(pause_id) => pause_id,
    };
    let Ok(reply) = paused_card_html(pause_id.clone()).await else { return false };
    // Not paused any more: its removal is on its way, or passed.
    let Some(html) = reply else { return remove(&pause_id) };
    if let Some(shown) = card(&pause_id) {
        // Patched, not replaced: a return value half typed in its Skip form stays.
        return super::patch::patch_element(&shown, &html);
    }
    let (Some(list), Some(new)) = (list(), super::patch::inert(html.as_str()).and_then(|f| f.first_element_child()))
    else {
        return false;
    };
    match new.get_attribute("data-after").unwrap_or_default() {
        after if after.is_empty() => list.prepend_with_node_1(&new).is_ok(),
        after => match card(&after) {
            Some(before) => before.after_with_node_1(&new).is_ok(),
            None => false,
        },
    }
}

/// Takes the card of `pause_id` out; false when the list is left empty.
fn remove(pause_id: &str) -> bool {
    let Some(shown) = card(pause_id) else { return true };
    shown.remove();
    list().is_some_and(|list| list.child_element_count() > 0)
}

/// The list of cards, once something is paused.
fn list() -> Option<Element> {
    document().query_selector(crate::parts::PAUSED_LIST).ok().flatten()
}

/// The card of `pause_id` (compared as text: an id needs no selector escaping then).
fn card(pause_id: &str) -> Option<Element> {
    cards().into_iter().find(|c| c.get_attribute(crate::parts::PAUSE_ID).as_deref() == Some(pause_id))
}

/// The pause whose card links to the REPL session `session_id`.
fn card_linking(session_id: &str) -> Option<String> {
    let href = format!("/repl/{session_id}");
    cards()
        .into_iter()
        .find(|c| {
            let links = c.query_selector_all("a[href]").ok();
            links.is_some_and(|links| {
                (0..links.length()).filter_map(|i| links.item(i)).any(|link| {
                    wasm_bindgen::JsCast::dyn_ref::<Element>(&link)
                        .and_then(|l| l.get_attribute("href"))
                        .is_some_and(|h| h == href)
                })
            })
        })
        .and_then(|c| c.get_attribute(crate::parts::PAUSE_ID))
}

fn cards() -> Vec<Element> {
    let Some(list) = list() else { return vec![] };
    let children = list.children();
    (0..children.length()).filter_map(|i| children.item(i)).collect()
}
