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
        let bump = |signals: &[RwSignal<u64>]| signals.iter().for_each(|signal| signal.update(|n| *n += 1));
        match refetched_by(kind) {
            Some(Refetch::Pauses) => bump(&[self.pauses, self.calls, self.processes]),
            Some(Refetch::Sessions) => bump(&[self.sessions, self.pauses, self.calls]),
            Some(Refetch::Transcript) => bump(&[self.sessions]),
            Some(Refetch::Calls) => bump(&[self.calls]),
            Some(Refetch::Breakpoints) => bump(&[self.breakpoints]),
            Some(Refetch::Processes) => bump(&[self.processes]),
            Some(Refetch::Checkpoints) => bump(&[self.pauses, self.processes]),
            Some(Refetch::LiveLine) => bump(&[self.pauses, self.sessions, self.calls, self.processes]),
            Some(Refetch::Everything) | None => self.bump_all(),
        }
    }
}

/// What a live event makes the page refetch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Refetch {
    /// A call paused or resumed: a process is shown paused while one of its calls is.
    Pauses,
    /// A session started or closed: the paused card links its session.
    Sessions,
    Transcript,
    Calls,
    Breakpoints,
    Processes,
    /// A snapshot taken or refused, a branch made: a paused card offers Step back, or says why not.
    Checkpoints,
    /// A rewind or a switch moved the live line: other pauses, sessions and calls than before.
    LiveLine,
    Everything,
}

// The wire names of the live events (`LiveEventKind`), as constants so they can be patterns: a
// renamed kind fails to compile here, and matching them costs no more wasm than string literals.
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
    pub const PROCESS_OUTPUT: &str = Kind::ProcessOutput.as_str();
    pub const PROCESS_EXITED: &str = Kind::ProcessExited.as_str();
    pub const PROCESS_FORGOTTEN: &str = Kind::ProcessForgotten.as_str();
    pub const PROCESS_LEFT_LIST: &str = Kind::ProcessLeftList.as_str();
    pub const CHECKPOINT: &str = Kind::Checkpoint.as_str();
    pub const BRANCH_CREATED: &str = Kind::BranchCreated.as_str();
    pub const REWIND: &str = Kind::Rewind.as_str();
    pub const BRANCH_SWITCHED: &str = Kind::BranchSwitched.as_str();
    pub const LAGGED: &str = Kind::Lagged.as_str();
}

/// What the event named `kind` makes the page refetch; None for a kind this page does not know
/// (a test checks that every `LiveEventKind` is known).
fn refetched_by(kind: &str) -> Option<Refetch> {
    use wire::*;
    Some(match kind {
        PAUSE_ADDED | PAUSE_RESUMED => Refetch::Pauses,
        SESSION_STARTED | SESSION_CLOSED => Refetch::Sessions,
        TRANSCRIPT_APPENDED => Refetch::Transcript,
        CALLS_CHANGED => Refetch::Calls,
        BREAKPOINTS_CHANGED => Refetch::Breakpoints,
        PROCESS_STARTED | PROCESS_OUTPUT | PROCESS_EXITED | PROCESS_FORGOTTEN | PROCESS_LEFT_LIST => Refetch::Processes,
        CHECKPOINT | BRANCH_CREATED => Refetch::Checkpoints,
        REWIND | BRANCH_SWITCHED => Refetch::LiveLine,
        LAGGED => Refetch::Everything,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use breakroom_debugger::model::LiveEventKind;

    #[test]
    fn every_live_event_kind_refetches_something() {
        for kind in LiveEventKind::ALL {
            assert!(super::refetched_by(kind.as_str()).is_some(), "{kind:?} falls through to refetch everything");
        }
        assert_eq!(super::refetched_by("no_such_event"), None);
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
