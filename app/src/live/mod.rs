//! Live updates: one server-sent event stream (`/api/live`) per page. Each kind of event bumps
//! its own counter; resources depend on the counters of what they show, so a page refetches
//! exactly when something it shows changed, and never on a timer.

use std::sync::Arc;

use leptos::prelude::*;

mod follow;
#[cfg(feature = "hydrate")]
use follow::show_entries;
pub use follow::Event;

#[derive(Clone, Copy)]
pub struct Live {
    /// Calls paused or resumed.
    pub pauses: RwSignal<u64>,
    /// Sessions started, closed or moved by a step, or an entry of the session `watching` names.
    pub sessions: RwSignal<u64>,
    /// Calls started or completed.
    pub calls: RwSignal<u64>,
    /// Breakpoints and behaviours changed (added, edited, removed). Their counts are `hit`.
    pub breakpoints: RwSignal<u64>,
    /// The last breakpoint hit, log line, snapshot or hit count (its event's JSON), set for every
    /// such event: a process page refetches only for its own (`Live::of_process`), the list of
    /// breakpoints updates the breakpoints it names (`breakpoint_ids`).
    pub hit: RwSignal<Option<String>>,
    /// The last paused call that changed (its event's JSON): it paused, went on or stepped
    /// (`pause_id`, `process_key`), or a REPL session on it started (`session_id`, `pause_id`) or
    /// closed (`session_id`). Set for every such event: `/` updates that card, the process list
    /// that process's row, a process page refetches only for its own.
    pub paused: RwSignal<Option<String>>,
    /// What a process page shows changed: a checkpoint, a rewind. A process's own record is
    /// `record`, its pauses `paused`.
    pub processes: RwSignal<u64>,
    /// The process whose record an event carried last (it started, was attached, ended, was
    /// forgotten or left the active list), set for every such event: the list updates that row
    /// alone, and a process page refetches only for itself or a child (`Live::records_of`).
    pub record: RwSignal<Option<RecordChange>>,
    /// The process whose `process_output` event came last, set for every such event: the page
    /// that follows that process's output fetches its new lines; no other page reads it.
    pub output: RwSignal<Option<String>>,
    /// The stream (re)opened: events may have been missed while it was away.
    pub reconnects: RwSignal<u64>,
    /// A runtime workspace ran or finished a command, was reset or ended (an admin's stream
    /// alone carries these). A counter, not a filter of `last`: the workspace page's download
    /// has no room for one.
    pub runtimes: RwSignal<u64>,
    /// A page body was built in the browser (a client-side navigation's render landed): a list
    /// that had a change to show before it was there shows it now (`pages::one_at_a_time`).
    pub bodies: RwSignal<u64>,
    /// The REPL session whose new entries this page shows, if any: the stream keeps them in
    /// `appended` (the event carries the entry, so nothing is refetched for it).
    pub watching: RwSignal<Option<String>>,
    /// `transcript_appended` events of `watching` (their JSON text), oldest first, until the page
    /// takes them. The page reads them (`crate::transcript::browser::appended`): that code then
    /// lives in the REPL page's chunk, not in every page's.
    pub appended: RwSignal<Vec<String>>,
    /// The last event of any kind (its JSON), set for every event. A page that shows one part of
    /// what a kind of event changes (the call stack one pause's sessions, the call tree one
    /// process's calls) reads it in its own chunk (`Live::follow`); the shared one carries only this.
    pub last: RwSignal<Option<String>>,
}

impl Live {
    fn new() -> Self {
        Live {
            pauses: RwSignal::new(0),
            sessions: RwSignal::new(0),
            calls: RwSignal::new(0),
            breakpoints: RwSignal::new(0),
            hit: RwSignal::new(None),
            paused: RwSignal::new(None),
            processes: RwSignal::new(0),
            record: RwSignal::new(None),
            output: RwSignal::new(None),
            reconnects: RwSignal::new(0),
            runtimes: RwSignal::new(0),
            bodies: RwSignal::new(0),
            watching: RwSignal::new(None),
            appended: RwSignal::new(vec![]),
            last: RwSignal::new(None),
        }
    }

    /// Refetch everything (after an action of this page, or when events were missed).
    pub fn bump_all(&self) {
        // Not `output`: what shows output shows processes too.
        for signal in [self.pauses, self.sessions, self.calls, self.breakpoints, self.processes, self.reconnects] {
            signal.update(|n| *n += 1);
        }
    }

    /// Bumps what the event named `kind` changes; false for a kind this page does not know
    /// (it refetches everything; a test checks that every `LiveEventKind` is known).
    #[cfg(any(feature = "hydrate", test))]
    fn on_event(&self, kind: &str) -> bool {
        use wire::*;
        let bump = |signal: RwSignal<u64>| signal.update(|n| *n += 1);
        match kind {
            // A step's stop is a new pause, and its sessions moved to it. (The process shown
            // paused is `paused`, set from the event itself in `connect`.)
            STEP_STOPPED => {
                bump(self.pauses);
                bump(self.sessions);
                bump(self.calls);
            }
            PAUSE_ADDED | PAUSE_RESUMED => {
                bump(self.pauses);
                bump(self.calls);
            }
            SESSION_STARTED | SESSION_CLOSED => {
                bump(self.sessions);
                bump(self.pauses);
                bump(self.calls);
            }
            // An entry: the page that watches its session takes it in `connect`, and its
            // variables look again there; the pages that list sessions follow it (`follow`).
            TRANSCRIPT_APPENDED => {}
            CALLS_CHANGED => bump(self.calls),
            // A hit is not a change of the breakpoints: `connect` sets `hit` and stops there.
            BREAKPOINTS_CHANGED => bump(self.breakpoints),
            // `record` is set from the event itself (`connect`): the list fetches that row.
            PROCESS_STARTED | PROCESS_ATTACHED | PROCESS_EXITED | PROCESS_FORGOTTEN | PROCESS_LEFT_LIST => {}
            // `output` is set from the event itself (`connect`, which has it): the list and the
            // timeline show no output, and a process page fetches only for its own process.
            PROCESS_OUTPUT => {}
            // A paused card offers Step back once a checkpoint is before it, or says why not.
            CHECKPOINT | BRANCH_CREATED => {
                bump(self.pauses);
                bump(self.processes);
            }
            // The live line moved: other pauses, sessions and calls than before.
            REWIND | BRANCH_SWITCHED => {
                bump(self.pauses);
                bump(self.sessions);
                bump(self.calls);
                bump(self.processes);
            }
            // A logpoint's message: editors show it; no page lists it live.
            LOGGED => {}
            RUNTIMES_CHANGED => bump(self.runtimes),
            LAGGED => self.bump_all(),
            _ => {
                self.bump_all();
                return false;
            }
        }
        true
    }
}

// The wire names of the live events (`LiveEventKind`), as constants so they can be patterns: a
// renamed kind fails to compile here, and matching them costs no more wasm than string literals.
// Only the browser (and the test of `on_event`) reads them.
#[cfg(any(feature = "hydrate", test))]
mod wire {
    use breakroom_debugger::model::LiveEventKind as Kind;
    pub const PAUSE_ADDED: &str = Kind::PauseAdded.as_str();
    pub const PAUSE_RESUMED: &str = Kind::PauseResumed.as_str();
    pub const SESSION_STARTED: &str = Kind::SessionStarted.as_str();
    pub const SESSION_CLOSED: &str = Kind::SessionClosed.as_str();
    pub const TRANSCRIPT_APPENDED: &str = Kind::TranscriptAppended.as_str();
    pub const CALLS_CHANGED: &str = Kind::CallsChanged.as_str();
    pub const BREAKPOINTS_CHANGED: &str = Kind::BreakpointsChanged.as_str();
    pub const PROCESS_STARTED: &str = Kind::ProcessStarted.as_str();
    pub const PROCESS_ATTACHED: &str = Kind::ProcessAttached.as_str();
    pub const PROCESS_OUTPUT: &str = Kind::ProcessOutput.as_str();
    pub const PROCESS_EXITED: &str = Kind::ProcessExited.as_str();
    pub const PROCESS_FORGOTTEN: &str = Kind::ProcessForgotten.as_str();
    pub const PROCESS_LEFT_LIST: &str = Kind::ProcessLeftList.as_str();
    pub const CHECKPOINT: &str = Kind::Checkpoint.as_str();
    pub const BRANCH_CREATED: &str = Kind::BranchCreated.as_str();
    pub const REWIND: &str = Kind::Rewind.as_str();
    pub const BRANCH_SWITCHED: &str = Kind::BranchSwitched.as_str();
    pub const STEP_STOPPED: &str = Kind::StepStopped.as_str();
    pub const LOGGED: &str = Kind::Logged.as_str();
    pub const RUNTIMES_CHANGED: &str = Kind::RuntimesChanged.as_str();
    pub const LAGGED: &str = Kind::Lagged.as_str();
}

/// A text field of a live event's JSON (`Live::hit` and `paused` hold the events as they came:
/// read where they are used, they are the smaller wasm).
pub fn read(event: &str, name: &str) -> Option<String> {
    crate::browser_json::string(&web_sys::js_sys::JSON::parse(event).ok()?, name)
}

/// The breakpoints a hit event (`Live::hit`) names (`breakpoint_ids`).
#[cfg(feature = "hydrate")]
pub fn breakpoint_ids(event: &str) -> Vec<String> {
    use web_sys::js_sys::{Array, Reflect, JSON};
    let ids = JSON::parse(event).ok().and_then(|e| Reflect::get(&e, &"breakpoint_ids".into()).ok());
    ids.filter(Array::is_array)
        .map(|ids| Array::from(&ids).iter().filter_map(|id| id.as_string()).collect())
        .unwrap_or_default()
}

/// Whether a pause event (`Live::paused`) says the call went on (`pause_resumed`), not that it
/// paused (`pause_added`, `step_stopped`).
#[cfg(feature = "hydrate")]
pub fn went_on(event: &str) -> bool {
    read(event, "type").as_deref() == Some(wire::PAUSE_RESUMED)
}

/// A process record's change, as a process event says it.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordChange {
    pub process_id: String,
    /// Its parent's id, when the event carries the record (not for the two that remove it).
    pub parent_id: Option<String>,
    pub kind: RecordChangeKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RecordChangeKind {
    /// Started, attached or ended: the record is there, changed.
    Changed,
    /// Its time in the active list ran out; it stays in the full list.
    LeftList,
    /// Deleted.
    Forgotten,
}

impl RecordChange {
    /// Read from a live event (the browser's parse of it); None for other kinds.
    #[cfg(feature = "hydrate")]
    fn of(kind: &str, event: &wasm_bindgen::JsValue) -> Option<Self> {
        use crate::browser_json::string as text;
        let removed = |kind| Some(RecordChange { process_id: text(event, "process_id")?, parent_id: None, kind });
        match kind {
            wire::PROCESS_STARTED | wire::PROCESS_ATTACHED | wire::PROCESS_EXITED => {
                let process = crate::browser_json::get(event, "process")?;
                Some(RecordChange {
                    process_id: text(&process, "id")?,
                    parent_id: text(&process, "parent_id"),
                    kind: RecordChangeKind::Changed,
                })
            }
            wire::PROCESS_LEFT_LIST => removed(RecordChangeKind::LeftList),
            wire::PROCESS_FORGOTTEN => removed(RecordChangeKind::Forgotten),
            _ => None,
        }
    }

    /// Whether a page of process `id` shows what changed: the process itself, or one of its
    /// children (the page lists them).
    pub fn concerns(&self, id: &str) -> bool {
        self.process_id == id || self.parent_id.as_deref() == Some(id)
    }
}

impl Live {
    /// A counter bumped each time a process event concerns the process `id` (see
    /// [`RecordChange::concerns`]): what a page of one process refetches on, with `processes`.
    pub fn records_of(self, id: impl Fn() -> String + Send + Sync + 'static) -> RwSignal<u64> {
        let bumps = RwSignal::new(0);
        // Not on its first run: the last change may be from before the page opened.
        Effect::new(move |first: Option<()>| {
            let concerns = self.record.with(|c| c.as_ref().is_some_and(|c| c.concerns(&id())));
            if first.is_some() && concerns {
                bumps.update(|n| *n += 1);
            }
        });
        bumps
    }

    /// A counter bumped on every hit (of any breakpoint, by any process).
    pub fn hits(self) -> RwSignal<u64> {
        let bumps = RwSignal::new(0);
        Effect::new(move |first: Option<()>| {
            self.hit.track();
            if first.is_some() {
                bumps.update(|n| *n += 1);
            }
        });
        bumps
    }

    /// A counter bumped each time a call of the process whose key `key` reads when the event
    /// comes paused, went on or stepped, or it hit a breakpoint, logged, took a snapshot or
    /// counted hits. `key` reads None while the page does not know it yet (its render is on its
    /// way, or the program had not called in when it was made): then every such event counts,
    /// since the render may be older than the event (a launched program that pauses at once).
    pub fn of_process(self, key: impl Fn() -> Option<String> + Send + Sync + 'static) -> RwSignal<u64> {
        let bumps = RwSignal::new(0);
        let key: Reads = Arc::new(key);
        bump_when(
            bumps,
            Arc::new(move || self.hit.with(|h| h.as_deref().and_then(|h| read(h, "process_key")))),
            key.clone(),
        );
        bump_when(bumps, Arc::new(move || self.paused_process()), key);
        bumps
    }

    /// The process of the last pause event.
    fn paused_process(self) -> Option<String> {
        self.paused.with(|p| p.as_deref().and_then(|p| read(p, "process_key")))
    }
}

/// A read of what an event named, or of what a page shows. Shared, not generic: one effect's
/// code serves every page (the smaller wasm, measured).
type Reads = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// Bumps `bumps` each time `event` (what the last event of a kind named, read from its signal)
/// names what `mine` reads then. Not on its first run: the last event may be from before the
/// page opened. `mine` reading None takes every event (see `Live::of_process`).
fn bump_when(bumps: RwSignal<u64>, event: Reads, mine: Reads) {
    Effect::new(move |first: Option<()>| {
        // Read first, so that the effect follows the signal from its first run on.
        let named = event();
        if first.is_some() && named.is_some() && mine().is_none_or(|mine| named.as_deref() == Some(&*mine)) {
            bumps.update(|n| *n += 1);
        }
    });
}

pub fn provide_live_updates() {
    let live = Live::new();
    provide_context(live);
    #[cfg(feature = "hydrate")]
    HYDRATED_LIVE.with(|slot| slot.set(Some(live)));
}

#[cfg(feature = "hydrate")]
thread_local! {
    static HYDRATED_LIVE: std::cell::Cell<Option<Live>> = const { std::cell::Cell::new(None) };
}

/// Opens the event stream once the page is hydrated. Not earlier: a page's code may arrive in a
/// chunk after the app's effects have run, and the refetch that the stream's opening triggers
/// (for what changed since the server rendered the page) must find the page's resources in place,
/// or a pause that arrived in between would never show.
#[cfg(feature = "hydrate")]
pub fn connect_after_hydration() {
    if let Some(live) = HYDRATED_LIVE.with(|slot| slot.get()) {
        connect(live);
    }
}

/// Says a page body was built (see [`Live::bodies`]).
#[cfg(feature = "hydrate")]
pub fn body_built() {
    if let Some(live) = HYDRATED_LIVE.with(|slot| slot.get()) {
        live.bodies.update(|n| *n += 1);
    }
}

pub fn use_live() -> Live {
    use_context::<Live>().unwrap_or_else(Live::new)
}

#[cfg(feature = "hydrate")]
fn connect(live: Live) {
    use wasm_bindgen::{closure::Closure, JsCast};
    let Ok(source) = web_sys::EventSource::new("/api/live") else {
        return;
    };
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        // The browser's own JSON parser: the main wasm then needs no JSON value type of its own.
        let data = event.data().as_string().unwrap_or_default();
        let event = web_sys::js_sys::JSON::parse(&data).unwrap_or_default();
        let field = |name: &str| crate::browser_json::string(&event, name);
        let kind = field("type").unwrap_or_default();
        // A hit (it names a process or breakpoints) changes counts only: what shows them follows
        // `hit`, nothing refetches the breakpoints for it.
        let hit = field("process_key").is_some() || data.contains("\"breakpoint_ids\"");
        live.last.set(Some(data.clone()));
        if kind == wire::TRANSCRIPT_APPENDED {
            show_entries(&event);
        }
        match kind.as_str() {
            wire::TRANSCRIPT_APPENDED if live.watching.with_untracked(|w| w.is_some() && *w == field("session_id")) => {
                live.appended.update(|list| list.push(data));
                live.sessions.update(|n| *n += 1);
            }
            wire::PROCESS_OUTPUT => live.output.set(field("process_id")),
            wire::BREAKPOINTS_CHANGED if hit => return live.hit.set(Some(data)),
            wire::PAUSE_ADDED
            | wire::PAUSE_RESUMED
            | wire::STEP_STOPPED
            | wire::SESSION_STARTED
            | wire::SESSION_CLOSED => live.paused.set(Some(data)),
            _ => {}
        }
        if let Some(change) = RecordChange::of(&kind, &event) {
            live.record.set(Some(change));
        }
        live.on_event(&kind);
    });
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // A reconnect may have missed events: refetch everything once it is back.
    let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        show_unreachable(false);
        live.bump_all();
    });
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    // The server went away: the banner says so while the browser reconnects (every second, as
    // the stream asked).
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| show_unreachable(true));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // The stream lives as long as the page.
    on_message.forget();
    on_open.forget();
    on_error.forget();
    std::mem::forget(source);
}

/// The banner (`.unreachable` in the top bar) shows while the body has the class `offline`.
#[cfg(feature = "hydrate")]
fn show_unreachable(offline: bool) {
    if let Some(body) = document().body() {
        let _ = body.class_list().toggle_with_force("offline", offline);
    }
}

#[cfg(test)]
mod tests {
    use breakroom_debugger::model::LiveEventKind;

    #[test]
    fn every_live_event_kind_refetches_what_it_changes() {
        // Signals live in a reactive owner's arena.
        leptos::prelude::Owner::new().with(|| {
            let live = super::Live::new();
            for kind in LiveEventKind::ALL {
                assert!(live.on_event(kind.as_str()), "{kind:?} falls through to refetch everything");
            }
            assert!(!live.on_event("no_such_event"));
        });
    }
}
