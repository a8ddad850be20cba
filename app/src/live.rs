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
    /// Breakpoints and behaviours changed.
    pub breakpoints: RwSignal<u64>,
    /// Tracked processes started, printed, ended or were forgotten.
    pub processes: RwSignal<u64>,
}

impl Live {
    fn new() -> Self {
        Live {
            pauses: RwSignal::new(0),
            sessions: RwSignal::new(0),
            calls: RwSignal::new(0),
            breakpoints: RwSignal::new(0),
            processes: RwSignal::new(0),
        }
    }

    /// Refetch everything (after an action of this page, or when events were missed).
    pub fn bump_all(&self) {
        for signal in [self.pauses, self.sessions, self.calls, self.breakpoints, self.processes] {
            signal.update(|n| *n += 1);
        }
    }

    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn on_event(&self, kind: &str) {
        use breakroom_debugger::model::LiveEventKind as Kind;
        let bump = |signals: &[RwSignal<u64>]| signals.iter().for_each(|signal| signal.update(|n| *n += 1));
        let Some(kind) = Kind::parse(kind) else { return self.bump_all() };
        match kind {
            // A process is shown paused while one of its calls is.
            Kind::PauseAdded | Kind::PauseResumed => bump(&[self.pauses, self.calls, self.processes]),
            Kind::SessionStarted | Kind::SessionClosed => bump(&[self.sessions, self.pauses, self.calls]),
            Kind::TranscriptAppended => bump(&[self.sessions]),
            Kind::CallsChanged => bump(&[self.calls]),
            Kind::BreakpointsChanged => bump(&[self.breakpoints]),
            Kind::ProcessStarted
            | Kind::ProcessOutput
            | Kind::ProcessExited
            | Kind::ProcessForgotten
            | Kind::ProcessLeftList => bump(&[self.processes]),
            // A paused card offers Step back once a checkpoint is before it, or says why not.
            Kind::Checkpoint | Kind::BranchCreated => bump(&[self.pauses, self.processes]),
            // The live line moved: other pauses, sessions and calls than before.
            Kind::Rewind | Kind::BranchSwitched => bump(&[self.pauses, self.sessions, self.calls, self.processes]),
            Kind::Lagged => self.bump_all(),
        }
    }
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
        let kind = web_sys::js_sys::JSON::parse(&data)
            .and_then(|event| web_sys::js_sys::Reflect::get(&event, &"type".into()))
            .ok()
            .and_then(|kind| kind.as_string())
            .unwrap_or_default();
        live.on_event(&kind);
    });
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // A reconnect may have missed events: refetch everything once it is back.
    let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| live.bump_all());
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    // The stream lives as long as the page.
    on_message.forget();
    on_open.forget();
    std::mem::forget(source);
}
