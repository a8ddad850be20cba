//! A REPL session's transcript on its page (issue 45). It opens at the newest entries
//! (`crate::render::repl_transcript`); earlier ones load on demand. An eval's answer is appended
//! from the eval's own reply, and every other viewer's from the live event that carries it:
//! nothing refetches the transcript. Only a gap (the live stream was away) fetches what is
//! missing, and only that.
//!
//! New entries arrive as typed data ([`ShownEntry`]) and are rendered by the template the server
//! renders the transcript with ([`markup::entries`], maud, escaped by construction), then put at
//! the end or the start of the list. Entries already shown are never rendered again. What the
//! page holds is in the list itself: `data-first` and `data-next` (the indexes it spans), each
//! entry's `data-input` and `data-ms`.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use breakroom_debugger::model::Language;

use crate::api::repl_entries;
use crate::transcript::{markup, ShownEntry, TranscriptPage, PAGE_ENTRIES};

#[derive(Clone, Copy)]
pub struct TranscriptState {
    session_id: StoredValue<String>,
    /// Bumped by every entry appended (what keeps the newest one in view).
    pub appended: RwSignal<u64>,
    /// A fetch of missing or earlier entries is under way.
    fetching: RwSignal<bool>,
}

/// The list, once the page shows it.
fn list() -> Option<web_sys::Element> {
    document().query_selector(crate::parts::TRANSCRIPT).ok().flatten()
}

fn index_attribute(list: &web_sys::Element, name: &str) -> usize {
    list.get_attribute(name).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// The transcript's entries on the page, in order.
pub fn entries() -> Vec<web_sys::Element> {
    let Ok(found) = document().query_selector_all(crate::parts::TRANSCRIPT_ENTRIES) else { return vec![] };
    (0..found.length()).filter_map(|i| found.item(i)?.dyn_into().ok()).collect()
}

impl TranscriptState {
    pub fn new(session_id: String) -> Self {
        TranscriptState {
            session_id: StoredValue::new(session_id),
            appended: RwSignal::new(0),
            fetching: RwSignal::new(false),
        }
    }

    pub fn set_session(&self, session_id: String) {
        self.session_id.set_value(session_id);
    }

    /// A new entry, from the eval's reply or the live stream (whichever comes first; the other is
    /// the same entry). One past a gap fetches what the gap holds.
    pub fn add(&self, entry: ShownEntry) {
        let Some(list) = list() else { return };
        let next = index_attribute(&list, "data-next");
        if entry.index == next {
            put(&list, std::slice::from_ref(&entry), "beforeend");
            let _ = list.set_attribute("data-next", &(next + 1).to_string());
            self.appended.update(|n| *n += 1);
        } else if entry.index > next {
            self.catch_up();
        }
    }

    /// The entry a live `transcript_appended` event carries (its JSON text).
    pub fn add_event(&self, event: &str) {
        #[cfg(feature = "hydrate")]
        if let Some(entry) = crate::transcript::browser::appended(event, &self.session_id.get_value()) {
            self.add(entry);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = event;
    }

    /// Fetches every entry after the last one held (after a gap, or a reconnect of the stream).
    pub fn catch_up(&self) {
        let Some(list) = list() else { return };
        let state = *self;
        self.fetch(index_attribute(&list, "data-next"), usize::MAX, move |page| {
            for entry in page.entries {
                state.add(entry);
            }
        });
    }

    /// The [`PAGE_ENTRIES`] before the first one held (all of them with `all`), put in front.
    pub fn load_earlier(&self, all: bool, then: impl FnOnce() + 'static) {
        let Some(list) = list() else { return then() };
        let end = index_attribute(&list, "data-first");
        let start = if all { 0 } else { end.saturating_sub(PAGE_ENTRIES) };
        if start >= end {
            return then();
        }
        self.fetch(start, end, move |page| {
            if page.first_index + page.entries.len() == index_attribute(&list, "data-first") {
                put(&list, &page.entries, "afterbegin");
                let _ = list.set_attribute("data-first", &page.first_index.to_string());
                if let Ok(Some(button)) = document().query_selector(".transcript-earlier") {
                    match page.first_index {
                        0 => button.remove(),
                        n => button.set_text_content(Some(&format!("Show earlier entries ({n} more)"))),
                    }
                }
            }
            then();
        });
    }

    fn fetch(&self, start: usize, end: usize, done: impl FnOnce(TranscriptPage) + 'static) {
        if start >= end || self.fetching.get_untracked() {
            return;
        }
        self.fetching.set(true);
        let (state, session_id) = (*self, self.session_id.get_value());
        leptos::task::spawn_local(async move {
            let page = repl_entries(session_id, start, end).await;
            state.fetching.set(false);
            if let Ok(Some(page)) = page {
                done(page);
            }
        });
    }

    /// The inputs typed in the session, oldest first (what ↑/↓ walk).
    pub fn inputs(&self) -> Vec<String> {
        entries().iter().filter_map(|e| e.get_attribute("data-input")).filter(|i| !i.is_empty()).collect()
    }

    /// The session's start and each entry's time, in seconds (the replay's pace).
    pub fn times(&self) -> Vec<f64> {
        let millis = |e: Option<web_sys::Element>| {
            e.and_then(|e| e.get_attribute("data-ms")).and_then(|ms| ms.parse::<i64>().ok()).unwrap_or(0)
        };
        std::iter::once(millis(list()))
            .chain(entries().into_iter().map(|e| millis(Some(e))))
            .map(|ms| ms as f64 / 1000.0)
            .collect()
    }

    /// A click in the transcript's area: the button for earlier entries.
    pub fn on_click(&self, ev: &web_sys::MouseEvent) {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if target.closest(".transcript-earlier").ok().flatten().is_some() {
            self.load_earlier(false, || {});
        }
    }
}

/// Renders `entries` into the list at `position` (`insertAdjacentHTML`'s), in the list's language.
fn put(list: &web_sys::Element, entries: &[ShownEntry], position: &str) {
    let language = match list.get_attribute("data-language").as_deref() {
        Some("javascript") => Language::Javascript,
        _ => Language::Python,
    };
    let _ = list.insert_adjacent_html(position, &markup::entries(entries, language));
}
