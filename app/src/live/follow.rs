//! Pages that follow their own part of the events (`Live::follow`): each event, parsed once
//! with its kind typed, goes to the page's own rules; and the entry counts of listed REPL
//! sessions, which the stream moves on in place on every page.

use leptos::prelude::*;

use super::Live;
#[cfg(feature = "hydrate")]
use crate::browser_json::get;
use crate::browser_json::string;

/// A live event as the browser parsed it, for a page's filter (`Live::follow`).
pub struct Event {
    /// None for a kind this build does not know.
    pub kind: Option<breakroom_debugger::model::LiveEventKind>,
    json: wasm_bindgen::JsValue,
}

impl Event {
    fn parse(data: &str) -> Option<Event> {
        let json = web_sys::js_sys::JSON::parse(data).ok()?;
        let kind = string(&json, "type")?;
        Some(Event { kind: breakroom_debugger::model::LiveEventKind::parse(&kind), json })
    }

    /// A text field of the event.
    pub fn text(&self, name: &str) -> Option<String> {
        string(&self.json, name)
    }

    /// Whether the text field `name` is `value`.
    pub fn names(&self, name: &str, value: &str) -> bool {
        self.text(name).is_some_and(|text| text == value)
    }

    /// Whether the page lists the session the event names (see [`show_entries`]).
    pub fn lists_session(&self) -> bool {
        !listed_rows(&self.json).is_empty()
    }
}

/// A REPL session's entry count, where a page lists the session (`[data-session-id] .lines`:
/// the call stack's sessions, `/repls`'s rows), moved on from its `transcript_appended` event,
/// which carries the entry (its `index`): one more line costs the page no fetch. Done by the
/// stream on every page (`connect`): the DOM calls it needs are every page's then, not a few
/// pages' (which cost the REPL page a dozen more wasm chunks, measured). A count never goes back.
#[cfg(feature = "hydrate")]
pub(super) fn show_entries(event: &wasm_bindgen::JsValue) {
    let index = get(event, "entry").and_then(|entry| crate::browser_json::number(&entry, "index"));
    let Some(entries) = index.map(|i| i as u64 + 1) else { return };
    for count in
        listed_rows(event).iter().filter_map(|row| row.query_selector(crate::parts::SESSION_LINES).ok().flatten())
    {
        let shown: u64 = count.text_content().and_then(|t| t.trim().parse().ok()).unwrap_or(0);
        if entries > shown {
            count.set_text_content(Some(&entries.to_string()));
        }
    }
}

/// The elements that stand for the event's `session_id`: compared by attribute, never put into
/// a selector.
fn listed_rows(event: &wasm_bindgen::JsValue) -> Vec<web_sys::Element> {
    use wasm_bindgen::JsCast;
    let Some(id) = string(event, "session_id") else { return vec![] };
    let Ok(listed) = document().query_selector_all(crate::parts::SESSION_ROWS) else { return vec![] };
    (0..listed.length())
        .filter_map(|i| listed.item(i)?.dyn_into::<web_sys::Element>().ok())
        .filter(|row| row.get_attribute(crate::parts::SESSION_ID).as_deref() == Some(id.as_str()))
        .collect()
}

/// What a page does with one event: true when it must read itself again. It may instead update
/// the part the event concerns in place, and answer false.
pub type OnEvent = Box<dyn Fn(&Event) -> bool + Send + Sync>;

impl Live {
    /// A counter bumped for each time-travel event (a checkpoint, a rewind, a branch made or
    /// switched to) of the process `id`: another program's checkpoints cost its pages nothing.
    pub fn time_travel_of(self, id: impl Fn() -> String + Send + Sync + 'static) -> RwSignal<u64> {
        use breakroom_debugger::model::LiveEventKind::*;
        self.follow(Box::new(move |event| {
            matches!(event.kind, Some(Checkpoint | Rewind | BranchCreated | BranchSwitched))
                && event.names("process_id", &id())
        }))
    }

    /// Gives `on_event` each event after this call, parsed once: for a page that updates its
    /// parts itself (`/call-tree`'s rows).
    #[cfg(feature = "hydrate")]
    pub fn each(self, on_event: impl Fn(&Event) + 'static) {
        // Not on its first run: the last event may be from before the page opened.
        Effect::new(move |first: Option<()>| {
            let event = self.last.with(|data| data.as_deref().and_then(Event::parse));
            if let (Some(()), Some(event)) = (first, event) {
                on_event(&event);
            }
        });
    }

    /// A counter bumped for each event after this call that `on_event` answers true for: what a
    /// page that follows only its own part of the events refetches on (with `reconnects`, which
    /// says events may have been missed).
    pub fn follow(self, on_event: OnEvent) -> RwSignal<u64> {
        let bumps = RwSignal::new(0);
        // Not on its first run: the last event may be from before the page opened.
        Effect::new(move |first: Option<()>| {
            let event = self.last.with(|data| data.as_deref().and_then(Event::parse));
            if first.is_some() && event.is_some_and(|event| on_event(&event)) {
                bumps.update(|n| *n += 1);
            }
        });
        bumps
    }
}
