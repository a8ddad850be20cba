//! Live events: what the server pushes to every open page over `/api/live` (server-sent events),
//! and their kinds, which the pages match on. Built for the browser too, like `model`, which
//! re-exports them.

use serde::{Deserialize, Serialize};

use crate::model::TranscriptEntry;

/// A change pushed to every open page (server-sent events).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LiveEvent {
    /// A call paused (or its pause is shown: a condition held). `process_key` is the paused
    /// program's, so a page of another process has nothing to refetch.
    PauseAdded {
        pause_id: String,
        #[serde(default)]
        process_key: String,
    },
    /// A pause ended: resumed, stepped from, or closed with its process.
    PauseResumed {
        pause_id: String,
        #[serde(default)]
        process_key: String,
    },
    SessionStarted {
        session_id: String,
        pause_id: String,
    },
    TranscriptAppended {
        session_id: String,
        entry: TranscriptEntry,
    },
    SessionClosed {
        session_id: String,
        closed_at: f64,
    },
    /// Breakpoints were added, changed or removed, or (with `process_key`) that process hit one,
    /// logged, took a snapshot or counted its hits: the counts of `breakpoint_ids` changed.
    BreakpointsChanged {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        process_key: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        breakpoint_ids: Vec<String>,
    },
    /// A call of this process started or completed (the call tree changed).
    CallsChanged {
        process_key: String,
    },
    /// A process was launched, a debug client called in for the first time, or a lost one came back.
    ProcessStarted {
        process: crate::process_records::TrackedProcess,
    },
    /// `POST /api/processes/attach`: the client put into a running Python process called in.
    /// `method` is how the code got there (`blocked_thread`, `pending_call`, `remote_exec`).
    ProcessAttached {
        process: crate::process_records::TrackedProcess,
        method: String,
    },
    /// Lines a launched process wrote, in order (one event per read, often many lines).
    ProcessOutput {
        process_id: String,
        lines: Vec<crate::process_records::OutputLine>,
    },
    /// A process ended (exited, crashed, killed) or was lost; the record says how.
    ProcessExited {
        process: crate::process_records::TrackedProcess,
    },
    /// A finished process was deleted (`DELETE /api/processes/{id}`).
    ProcessForgotten {
        process_id: String,
    },
    /// A finished process's time in the active list ran out (it stays in history).
    ProcessLeftList {
        process_id: String,
    },
    /// Time travel: a snapshot taken or refused (`data` says which).
    Checkpoint {
        process_id: String,
        data: serde_json::Value,
    },
    Rewind {
        process_id: String,
        data: serde_json::Value,
    },
    BranchCreated {
        process_id: String,
        data: serde_json::Value,
    },
    BranchSwitched {
        process_id: String,
        data: serde_json::Value,
    },
    /// A step stopped (issue 30): the new pause, the pause it stepped from, where it is, and
    /// the REPL sessions that followed it. `reason` is always `step`.
    StepStopped {
        pause_id: String,
        previous_pause_id: String,
        reason: String,
        file: String,
        line: i64,
        function: String,
        session_ids: Vec<String>,
        #[serde(default)]
        process_key: String,
    },
    /// A logpoint's message (an editor shows it in its debug console).
    Logged {
        process_key: String,
        breakpoint_id: String,
        message: String,
    },
    /// A runtime workspace started a command, finished one, was reset or ended. Runtimes are
    /// the admins': `/api/live` sends this to them alone ([`LiveEvent::for_admins_only`]).
    RuntimesChanged {
        workspace: String,
    },
}

impl LiveEvent {
    pub fn pause_added(pause_id: &str, process_key: &str) -> LiveEvent {
        LiveEvent::PauseAdded { pause_id: pause_id.to_string(), process_key: process_key.to_string() }
    }

    pub fn pause_resumed(pause_id: &str, process_key: &str) -> LiveEvent {
        LiveEvent::PauseResumed { pause_id: pause_id.to_string(), process_key: process_key.to_string() }
    }

    /// A change of the breakpoints themselves, not of one process's hits.
    pub const BREAKPOINTS_CHANGED: LiveEvent =
        LiveEvent::BreakpointsChanged { process_key: None, breakpoint_ids: Vec::new() };

    /// Process `process_key` hit the breakpoints `breakpoint_ids` (or logged, took a snapshot,
    /// counted hits): a page of another process has nothing new to show, and a list of
    /// breakpoints updates those alone.
    pub fn breakpoint_hit(process_key: &str, breakpoint_ids: Vec<String>) -> LiveEvent {
        LiveEvent::BreakpointsChanged {
            process_key: Some(process_key.to_string()).filter(|k| !k.is_empty()),
            breakpoint_ids,
        }
    }
}

/// The kind of a [`LiveEvent`]: its `type` on the wire. The pages match on this, not on strings,
/// so a renamed or new event fails to compile where it is handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LiveEventKind {
    PauseAdded,
    PauseResumed,
    SessionStarted,
    TranscriptAppended,
    SessionClosed,
    BreakpointsChanged,
    CallsChanged,
    ProcessStarted,
    ProcessAttached,
    ProcessOutput,
    ProcessExited,
    ProcessForgotten,
    ProcessLeftList,
    Checkpoint,
    Rewind,
    BranchCreated,
    BranchSwitched,
    StepStopped,
    Logged,
    RuntimesChanged,
    /// Not an event of the manager's: the stream's own word that a slow page missed events.
    Lagged,
}

impl LiveEventKind {
    pub const ALL: [LiveEventKind; 21] = [
        Self::PauseAdded,
        Self::PauseResumed,
        Self::SessionStarted,
        Self::TranscriptAppended,
        Self::SessionClosed,
        Self::BreakpointsChanged,
        Self::CallsChanged,
        Self::ProcessStarted,
        Self::ProcessAttached,
        Self::ProcessOutput,
        Self::ProcessExited,
        Self::ProcessForgotten,
        Self::ProcessLeftList,
        Self::Checkpoint,
        Self::Rewind,
        Self::BranchCreated,
        Self::BranchSwitched,
        Self::StepStopped,
        Self::Logged,
        Self::RuntimesChanged,
        Self::Lagged,
    ];

    /// The `type` on the wire (serde's name of the [`LiveEvent`] variant).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::PauseAdded => "pause_added",
            Self::PauseResumed => "pause_resumed",
            Self::SessionStarted => "session_started",
            Self::TranscriptAppended => "transcript_appended",
            Self::SessionClosed => "session_closed",
            Self::BreakpointsChanged => "breakpoints_changed",
            Self::CallsChanged => "calls_changed",
            Self::ProcessStarted => "process_started",
            Self::ProcessAttached => "process_attached",
            Self::ProcessOutput => "process_output",
            Self::ProcessExited => "process_exited",
            Self::ProcessForgotten => "process_forgotten",
            Self::ProcessLeftList => "process_left_list",
            Self::Checkpoint => "checkpoint",
            Self::Rewind => "rewind",
            Self::BranchCreated => "branch_created",
            Self::BranchSwitched => "branch_switched",
            Self::StepStopped => "step_stopped",
            Self::Logged => "logged",
            Self::RuntimesChanged => "runtimes_changed",
            Self::Lagged => "lagged",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl LiveEvent {
    pub fn kind(&self) -> LiveEventKind {
        match self {
            LiveEvent::PauseAdded { .. } => LiveEventKind::PauseAdded,
            LiveEvent::PauseResumed { .. } => LiveEventKind::PauseResumed,
            LiveEvent::SessionStarted { .. } => LiveEventKind::SessionStarted,
            LiveEvent::TranscriptAppended { .. } => LiveEventKind::TranscriptAppended,
            LiveEvent::SessionClosed { .. } => LiveEventKind::SessionClosed,
            LiveEvent::BreakpointsChanged { .. } => LiveEventKind::BreakpointsChanged,
            LiveEvent::CallsChanged { .. } => LiveEventKind::CallsChanged,
            LiveEvent::ProcessStarted { .. } => LiveEventKind::ProcessStarted,
            LiveEvent::ProcessAttached { .. } => LiveEventKind::ProcessAttached,
            LiveEvent::ProcessOutput { .. } => LiveEventKind::ProcessOutput,
            LiveEvent::ProcessExited { .. } => LiveEventKind::ProcessExited,
            LiveEvent::ProcessForgotten { .. } => LiveEventKind::ProcessForgotten,
            LiveEvent::ProcessLeftList { .. } => LiveEventKind::ProcessLeftList,
            LiveEvent::Checkpoint { .. } => LiveEventKind::Checkpoint,
            LiveEvent::Rewind { .. } => LiveEventKind::Rewind,
            LiveEvent::BranchCreated { .. } => LiveEventKind::BranchCreated,
            LiveEvent::BranchSwitched { .. } => LiveEventKind::BranchSwitched,
            LiveEvent::StepStopped { .. } => LiveEventKind::StepStopped,
            LiveEvent::Logged { .. } => LiveEventKind::Logged,
            LiveEvent::RuntimesChanged { .. } => LiveEventKind::RuntimesChanged,
        }
    }

    /// Whether only an admin may be told of this event: it names what only admins may see.
    pub fn for_admins_only(&self) -> bool {
        matches!(self, LiveEvent::RuntimesChanged { .. })
    }
}

#[cfg(test)]
mod live_event_kind_tests {
    use super::{LiveEvent, LiveEventKind};

    #[test]
    fn every_live_event_kind_is_the_wire_name_of_its_event() {
        // serde names every variant it knows when it meets an unknown one.
        let error = serde_json::from_str::<LiveEvent>(r#"{"type": "no_such_event"}"#).unwrap_err().to_string();
        let expected = error.split("expected one of ").nth(1).expect("serde lists the variants");
        let wire: Vec<&str> = expected.split(", ").filter_map(|name| name.split('`').nth(1)).collect();
        let kinds: Vec<&str> =
            LiveEventKind::ALL.iter().filter(|k| **k != LiveEventKind::Lagged).map(|k| k.as_str()).collect();
        assert_eq!(wire, kinds, "{error}");
        assert_eq!(LiveEvent::BREAKPOINTS_CHANGED.kind().as_str(), "breakpoints_changed");
        for kind in LiveEventKind::ALL {
            assert_eq!(LiveEventKind::parse(kind.as_str()), Some(kind));
        }
    }

    #[test]
    fn a_breakpoint_change_names_the_process_only_when_one_process_hit() {
        let wire = |event: &LiveEvent| serde_json::to_string(event).unwrap();
        // A change of the breakpoints is on the wire as it always was.
        assert_eq!(wire(&LiveEvent::BREAKPOINTS_CHANGED), r#"{"type":"breakpoints_changed"}"#);
        assert_eq!(
            serde_json::from_str::<LiveEvent>(r#"{"type":"breakpoints_changed"}"#).unwrap(),
            LiveEvent::BREAKPOINTS_CHANGED
        );
        assert_eq!(
            wire(&LiveEvent::breakpoint_hit("12-34", vec!["bp-3".into()])),
            r#"{"type":"breakpoints_changed","process_key":"12-34","breakpoint_ids":["bp-3"]}"#
        );
        // A report without a process is everyone's.
        assert_eq!(LiveEvent::breakpoint_hit("", vec![]), LiveEvent::BREAKPOINTS_CHANGED);
    }
}
