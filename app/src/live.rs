//! Live updates: one server-sent event stream (`/api/live`) per page. Each kind of event bumps
//! its own counter; resources depend on the counters of what they show, so a page refetches
//! exactly when something it shows changed, and never on a timer.

use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct Live {
    /// Calls paused or resumed.
    pub pauses: RwSignal<u64>,
    /// Sessions started or closed, transcript entries appended.
    pub sessions: RwSignal<u64>,
    /// Calls started or completed.
    pub calls: RwSignal<u64>,
    /// Breakpoints and behaviours changed (added, edited, removed). Their counts are `hit`.
    pub breakpoints: RwSignal<u64>,
    /// The last breakpoint hit, log line, snapshot or hit count, set for every such event: a
    /// process page refetches only for its own (`Live::of_process`), the list of breakpoints
    /// updates the breakpoints it names.
    pub hit: RwSignal<Option<Hit>>,
    /// The last call that paused or went on, set for every such event: `/` updates that card,
    /// the process list that process's row, a process page refetches only for itself.
    pub paused: RwSignal<Option<PauseChange>>,
    /// The REPL session that started or closed last, set for every such event: `/` updates its
    /// pause's card, a REPL page refetches its header only for its own (`Live::session_of`).
    pub session: RwSignal<Option<SessionChange>>,
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
    /// The REPL session whose new entries this page shows, if any: the stream keeps them in
    /// `appended` (the event carries the entry, so nothing is refetched for it).
    pub watching: RwSignal<Option<String>>,
    /// `transcript_appended` events of `watching` (their JSON text), oldest first, until the page
    /// takes them. The page reads them (`crate::transcript::browser::appended`): that code then
    /// lives in the REPL page's chunk, not in every page's.
    pub appended: RwSignal<Vec<String>>,
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
            session: RwSignal::new(None),
            processes: RwSignal::new(0),
            record: RwSignal::new(None),
            output: RwSignal::new(None),
            reconnects: RwSignal::new(0),
            watching: RwSignal::new(None),
            appended: RwSignal::new(vec![]),
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
            TRANSCRIPT_APPENDED => bump(self.sessions),
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
    pub const LAGGED: &str = Kind::Lagged.as_str();
}

/// A breakpoint hit, log line, snapshot or hit count, as a `breakpoints_changed` event says it.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The process that hit (None: a report that named none).
    pub process_key: Option<String>,
    /// The breakpoints whose counts moved.
    pub breakpoint_ids: Vec<String>,
}

impl Hit {
    /// Read from a `breakpoints_changed` event; None for a change of the breakpoints themselves.
    #[cfg(feature = "hydrate")]
    fn of(event: &wasm_bindgen::JsValue) -> Option<Self> {
        use web_sys::js_sys::{Array, Reflect};
        let process_key = Reflect::get(event, &"process_key".into()).ok().and_then(|v| v.as_string());
        let ids = Reflect::get(event, &"breakpoint_ids".into()).ok().filter(|v| Array::is_array(v));
        let breakpoint_ids: Vec<String> =
            ids.map(|ids| Array::from(&ids).iter().filter_map(|id| id.as_string()).collect()).unwrap_or_default();
        (process_key.is_some() || !breakpoint_ids.is_empty()).then_some(Hit { process_key, breakpoint_ids })
    }
}

/// A call that paused or went on, as `pause_added`, `pause_resumed` or `step_stopped` says it.
#[derive(Clone, Debug, PartialEq)]
pub struct PauseChange {
    pub pause_id: String,
    /// The paused program's (None from a server that does not say).
    pub process_key: Option<String>,
    /// Shown now (`pause_added`, `step_stopped`), or gone (`pause_resumed`).
    pub paused: bool,
}

/// A REPL session that started or closed, as `session_started` or `session_closed` says it.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionChange {
    pub session_id: String,
    /// The pause it started on (`session_started` only).
    pub pause_id: Option<String>,
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
        use web_sys::js_sys::Reflect;
        let text =
            |on: &wasm_bindgen::JsValue, name: &str| Reflect::get(on, &name.into()).ok().and_then(|v| v.as_string());
        let removed = |kind| Some(RecordChange { process_id: text(event, "process_id")?, parent_id: None, kind });
        match kind {
            wire::PROCESS_STARTED | wire::PROCESS_ATTACHED | wire::PROCESS_EXITED => {
                let process = Reflect::get(event, &"process".into()).ok()?;
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
    /// comes (None: not known yet, so not this one) paused, went on or stepped, or it hit a
    /// breakpoint, logged, took a snapshot or counted hits.
    pub fn of_process(self, key: impl Fn() -> Option<String> + Send + Sync + 'static) -> RwSignal<u64> {
        let bumps = RwSignal::new(0);
        let key = std::sync::Arc::new(key);
        let hit_key = key.clone();
        bump_when(bumps, move || self.hit.with(|h| h.as_ref().and_then(|h| h.process_key.clone())), move || hit_key());
        bump_when(bumps, move || self.paused.with(|p| p.as_ref().and_then(|p| p.process_key.clone())), move || key());
        bumps
    }

    /// A counter bumped each time a call of the process whose key `key` reads paused, went on or
    /// stepped.
    pub fn pauses_of(self, key: impl Fn() -> Option<String> + Send + Sync + 'static) -> RwSignal<u64> {
        let bumps = RwSignal::new(0);
        bump_when(bumps, move || self.paused.with(|p| p.as_ref().and_then(|p| p.process_key.clone())), key);
        bumps
    }

    /// A counter bumped each time the REPL session `id` reads started or closed.
    pub fn session_of(self, id: impl Fn() -> String + Send + Sync + 'static) -> RwSignal<u64> {
        let bumps = RwSignal::new(0);
        bump_when(bumps, move || self.session.with(|s| s.as_ref().map(|s| s.session_id.clone())), move || Some(id()));
        bumps
    }
}

/// Bumps `bumps` each time `event` (what the last event of a kind named, read from its signal)
/// names what `mine` reads then. Not on its first run: the last event may be from before the
/// page opened.
fn bump_when(
    bumps: RwSignal<u64>,
    event: impl Fn() -> Option<String> + Send + Sync + 'static,
    mine: impl Fn() -> Option<String> + Send + Sync + 'static,
) {
    Effect::new(move |first: Option<()>| {
        // Read first, so that the effect follows the signal from its first run on.
        let named = event();
        if first.is_some() && named.is_some() && named == mine() {
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
        let field = |name: &str| web_sys::js_sys::Reflect::get(&event, &name.into()).ok().and_then(|v| v.as_string());
        let kind = field("type").unwrap_or_default();
        if kind == wire::TRANSCRIPT_APPENDED
            && live.watching.with_untracked(|w| w.is_some() && *w == field("session_id"))
        {
            live.appended.update(|list| list.push(data));
        }
        if kind == wire::PROCESS_OUTPUT {
            live.output.set(field("process_id"));
        }
        if kind == wire::BREAKPOINTS_CHANGED {
            // A hit changes counts only: what shows them follows `hit`, nothing refetches the
            // breakpoints for it.
            if let Some(hit) = Hit::of(&event) {
                live.hit.set(Some(hit));
                return;
            }
        }
        if matches!(kind.as_str(), wire::PAUSE_ADDED | wire::PAUSE_RESUMED | wire::STEP_STOPPED) {
            if let Some(pause_id) = field("pause_id") {
                let process_key = field("process_key").filter(|key| !key.is_empty());
                live.paused.set(Some(PauseChange { pause_id, process_key, paused: kind != wire::PAUSE_RESUMED }));
            }
        }
        if matches!(kind.as_str(), wire::SESSION_STARTED | wire::SESSION_CLOSED) {
            if let Some(session_id) = field("session_id") {
                live.session.set(Some(SessionChange { session_id, pause_id: field("pause_id") }));
            }
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
