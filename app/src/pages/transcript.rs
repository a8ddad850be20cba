//! A REPL session's transcript on its page (issue 45). It opens at the newest [`PAGE_ENTRIES`];
//! earlier ones load on demand. An eval's answer is appended from the eval's own reply, and
//! every other viewer's from the live event that carries it: nothing refetches the transcript.
//! Only a gap (the live stream was away) fetches what is missing, and only that.
//!
//! Entries arrive as typed data ([`ShownEntry`]) and are rendered by the one template the server
//! renders them with ([`markup::entry`], maud, escaped by construction), then put at the end or
//! the start of the list. Entries already shown are never rendered again.

use leptos::prelude::*;

use breakroom_debugger::model::Language;

use crate::api::repl_entries;
use crate::transcript::{markup, ShownEntry, TranscriptPage, PAGE_ENTRIES};

/// What the page holds of a transcript: entries `first_index..next_index`, in `list`.
#[derive(Clone, Copy)]
pub struct TranscriptState {
    session_id: StoredValue<String>,
    language: StoredValue<Language>,
    started_ms: StoredValue<i64>,
    list: NodeRef<leptos::html::Ol>,
    pub first_index: RwSignal<usize>,
    /// The index the next entry will have.
    pub next_index: RwSignal<usize>,
    /// Each held entry's input ("" for a step's mark) and time (epoch ms), oldest first.
    inputs: StoredValue<Vec<(String, i64)>>,
    /// A fetch of missing or earlier entries is under way.
    fetching: RwSignal<bool>,
}

impl TranscriptState {
    pub fn new() -> Self {
        TranscriptState {
            session_id: StoredValue::new(String::new()),
            language: StoredValue::new(Language::Python),
            started_ms: StoredValue::new(0),
            list: NodeRef::new(),
            first_index: RwSignal::new(0),
            next_index: RwSignal::new(0),
            inputs: StoredValue::new(vec![]),
            fetching: RwSignal::new(false),
        }
    }

    /// What the page opened with.
    fn load(&self, session_id: &str, page: &TranscriptPage) {
        self.session_id.set_value(session_id.to_string());
        self.language.set_value(page.language);
        self.started_ms.set_value(page.started_ms);
        self.inputs.set_value(page.entries.iter().map(|e| (e.input.clone(), e.ms)).collect());
        self.first_index.set(page.first_index);
        self.next_index.set(page.first_index + page.entries.len());
    }

    /// A new entry, from the eval's reply or the live stream (whichever comes first; the other is
    /// the same entry). One past a gap fetches what the gap holds.
    pub fn add(&self, entry: ShownEntry) {
        let next = self.next_index.get_untracked();
        if entry.index == next {
            self.put(std::slice::from_ref(&entry), "beforeend");
            self.inputs.update_value(|inputs| inputs.push((entry.input, entry.ms)));
            self.next_index.set(next + 1);
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
        let state = *self;
        self.fetch(self.next_index.get_untracked(), usize::MAX, move |page| {
            for entry in page.entries {
                state.add(entry);
            }
        });
    }

    /// The [`PAGE_ENTRIES`] before the first one held (all of them with `all`), put in front.
    pub fn load_earlier(&self, all: bool, then: impl FnOnce() + 'static) {
        let state = *self;
        let end = self.first_index.get_untracked();
        let start = if all { 0 } else { end.saturating_sub(PAGE_ENTRIES) };
        self.fetch(start, end, move |page| {
            if page.first_index + page.entries.len() == state.first_index.get_untracked() {
                state.put(&page.entries, "afterbegin");
                state.inputs.update_value(|inputs| {
                    let earlier = page.entries.iter().map(|e| (e.input.clone(), e.ms));
                    *inputs = earlier.chain(inputs.drain(..)).collect();
                });
                state.first_index.set(page.first_index);
            }
            then();
        });
    }

    /// Renders `entries` into the list at `position` (`insertAdjacentHTML`'s).
    fn put(&self, entries: &[ShownEntry], position: &str) {
        if let Some(list) = self.list.get_untracked() {
            let _ = list.insert_adjacent_html(position, &markup::entries(entries, self.language.get_value()));
        }
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
        self.inputs.with_value(|inputs| {
            inputs.iter().filter(|(input, _)| !input.is_empty()).map(|(input, _)| input.clone()).collect()
        })
    }

    /// The session's start and each entry's time, in seconds (the replay's pace).
    pub fn times(&self) -> Vec<f64> {
        let start = self.started_ms.get_value();
        let times = self.inputs.with_value(|inputs| inputs.iter().map(|(_, ms)| *ms).collect::<Vec<_>>());
        std::iter::once(start).chain(times).map(|ms| ms as f64 / 1000.0).collect()
    }
}

/// The transcript: a button for earlier entries when there are any, a hint while there are
/// none, then the entries.
#[component]
pub fn Transcript(
    page: TranscriptPage,
    session_id: String,
    state: TranscriptState,
    active: Signal<bool>,
) -> impl IntoView {
    state.load(&session_id, &page);
    let html = markup::entries(&page.entries, page.language);
    let language = page.language;
    let earlier = move || {
        let first = state.first_index.get();
        (first > 0).then(|| {
            view! {
                <button class="transcript-earlier" disabled=move || state.fetching.get()
                    on:click=move |_| state.load_earlier(false, || {})>
                    {format!("Show earlier entries ({first} more)")}
                </button>
            }
        })
    };
    let hint = move || {
        (state.next_index.get() == 0).then(|| {
            let text = match (active.get(), language) {
                (true, Language::Python) => {
                    "Type Python below: it runs inside the paused program, with the call's variables in scope."
                }
                (true, Language::Javascript) => {
                    "Type JavaScript below: it runs inside the paused program, with the call's arguments in scope."
                }
                (false, _) => "This session ended without any input.",
            };
            view! { <p class="hint">{text}</p> }
        })
    };
    view! {
        <div class="transcript-area">
            {earlier}
            {hint}
            <ol class="transcript" data-ms=page.started_ms node_ref=state.list inner_html=html></ol>
        </div>
    }
}
