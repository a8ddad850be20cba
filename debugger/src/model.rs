//! The read-side shapes of the debugger's state: what pages, REST handlers and tests see.
//! These compile for the browser too (no runtime dependencies), so the UI shares them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::kinds::{AfterBehavior, Behavior, CallStatus, GlobalBehavior, Language, StepKind, StopKind};
pub use crate::live_events::{LiveEvent, LiveEventKind};

/// One exchange in a REPL session: what the user typed and what the paused program answered.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranscriptEntry {
    pub index: usize,
    pub input: String,
    /// The result's repr, the error text, or "" for a statement.
    pub output: String,
    /// Everything the eval printed (stdout and stderr together).
    pub stdout: String,
    pub is_error: bool,
    pub result_cid: Option<String>,
    pub timestamp: f64,
    /// Rich forms of the value and what `display()` showed (tables, images, HTML), when any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<crate::outputs::RichOutput>,
}

/// A REPL session on one pause. Its id is `{pid}-{started_at:.6}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplSession {
    pub session_id: String,
    pub pause_id: String,
    pub pid: i64,
    pub started_at: f64,
    pub closed_at: Option<f64>,
    /// Why the session closed when no one closed it: e.g. the server restarted while it was open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_reason: Option<String>,
    pub function_name: String,
    pub call_id: Option<String>,
    pub process_key: String,
    pub args: Vec<Value>,
    pub kwargs: serde_json::Map<String, Value>,
    pub pretty_args: Vec<Value>,
    pub pretty_kwargs: serde_json::Map<String, Value>,
    pub signature: String,
    pub transcript: Vec<TranscriptEntry>,
    /// What the inputs are written in (sessions stored before languages were known: Python).
    #[serde(default)]
    pub language: Language,
}

impl ReplSession {
    pub fn is_active(&self) -> bool {
        self.closed_at.is_none()
    }
}

/// The session list without transcripts, for index pages.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub session_id: String,
    pub pause_id: String,
    pub function_name: String,
    pub started_at: f64,
    pub closed_at: Option<f64>,
    pub transcript_len: usize,
    pub process_key: String,
    pub call_id: Option<String>,
}

impl SessionSummary {
    pub fn of(session: &ReplSession) -> Self {
        SessionSummary {
            session_id: session.session_id.clone(),
            pause_id: session.pause_id.clone(),
            function_name: session.function_name.clone(),
            started_at: session.started_at,
            closed_at: session.closed_at,
            transcript_len: session.transcript.len(),
            process_key: session.process_key.clone(),
            call_id: session.call_id.clone(),
        }
    }
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    #[default]
    All,
    Active,
    Closed,
}

impl SessionStatus {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "" | "all" => Some(Self::All),
            "active" => Some(Self::Active),
            "closed" => Some(Self::Closed),
            _ => None,
        }
    }
}

/// Filters for listing sessions; every field narrows the result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionQuery {
    /// Case-insensitive text matched against function names and transcript inputs and outputs.
    pub search: Option<String>,
    pub status: SessionStatus,
    pub from: Option<f64>,
    pub to: Option<f64>,
    /// 1-based.
    pub page: usize,
    pub per_page: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionPage<T> {
    pub sessions: Vec<T>,
    /// How many sessions match: exactly, or at least this many when `total_is_lower_bound`
    /// (searches stop counting past a cap, so a common term answers as fast as a rare one).
    pub total: usize,
    #[serde(default)]
    pub total_is_lower_bound: bool,
    pub page: usize,
    pub per_page: usize,
}

/// Why a call is paused.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PauseReason {
    /// Before the call runs.
    Breakpoint,
    /// After the call returned (a post-completion pause).
    After,
    /// After the call raised.
    Exception,
}

/// One stack frame as the client reported it (innermost first in a stack).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StackFrame {
    pub filename: String,
    pub lineno: i64,
    pub function: String,
    pub code_context: Option<String>,
}

/// A paused call as the UI shows it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PausedCall {
    pub pause_id: String,
    pub call_id: String,
    pub function_name: String,
    pub reason: PauseReason,
    /// Display text of each positional argument, then `name=value` for keyword arguments.
    pub args_text: Vec<String>,
    pub result_text: Option<String>,
    pub pid: i64,
    pub process_key: String,
    pub paused_at: f64,
    /// The pause's sessions that are still open.
    pub active_sessions: Vec<String>,
    #[serde(default)]
    pub language: Language,
    /// Where and why it stopped, when the client said (a line breakpoint, a step, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<PauseStop>,
    /// The pause stops a thread that runs an event loop, so every task of it waits (issue 51).
    /// A pause that suspends only its task (a coroutine Breakroom rewrote) is `false`.
    #[serde(default)]
    pub blocking: bool,
    /// Why it blocks the loop, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_reason: Option<String>,
}

/// What the paused program answered to one eval.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalOutcome {
    pub output: String,
    pub stdout: String,
    pub is_error: bool,
    pub result_cid: Option<String>,
    /// Jupyter-shaped outputs (nbformat): the value's rich forms and `display()`'s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<crate::outputs::RichOutput>,
    /// The answer's place in the session's transcript, and when it was answered (epoch seconds):
    /// a page appends it where it belongs, once, whether it heard of it here or live. None for
    /// an answer no transcript records (a watch expression's, a DAP hover's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<f64>,
}

impl EvalOutcome {
    /// The transcript entry this answer is, for the input `expr`, when a transcript records it.
    pub fn entry(&self, expr: &str) -> Option<TranscriptEntry> {
        Some(TranscriptEntry {
            index: self.index?,
            input: expr.to_string(),
            output: self.output.clone(),
            stdout: self.stdout.clone(),
            is_error: self.is_error,
            result_cid: self.result_cid.clone(),
            timestamp: self.timestamp?,
            outputs: self.outputs.clone(),
        })
    }
}

impl From<&TranscriptEntry> for EvalOutcome {
    fn from(entry: &TranscriptEntry) -> Self {
        EvalOutcome {
            index: Some(entry.index),
            timestamp: Some(entry.timestamp),
            output: entry.output.clone(),
            stdout: entry.stdout.clone(),
            is_error: entry.is_error,
            result_cid: entry.result_cid.clone(),
            outputs: entry.outputs.clone(),
        }
    }
}

/// What an entry of the event log records.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    ProcessSeen,
    CallStart,
    Pause,
    SessionStart,
    EvalRequest,
    EvalResult,
    SessionClose,
    Resume,
    CallComplete,
    /// A breakpoint matched (issue 18): its id, kind, why, hit count.
    BreakpointHit,
    /// A logpoint's message.
    Log,
    /// Time travel (issue 20): a snapshot taken (or refused, with its reason).
    Checkpoint,
    /// A process went back to a checkpoint, killing the line it left.
    Rewind,
    /// A branch was made at a checkpoint (the line left is kept paused).
    BranchCreated,
    /// The live line moved to another branch.
    BranchSwitched,
}

impl EventKind {
    /// Every kind, in the order a call lives through them.
    pub const ALL: [EventKind; 15] = [
        EventKind::ProcessSeen,
        EventKind::CallStart,
        EventKind::Pause,
        EventKind::SessionStart,
        EventKind::EvalRequest,
        EventKind::EvalResult,
        EventKind::SessionClose,
        EventKind::Resume,
        EventKind::CallComplete,
        EventKind::BreakpointHit,
        EventKind::Log,
        EventKind::Checkpoint,
        EventKind::Rewind,
        EventKind::BranchCreated,
        EventKind::BranchSwitched,
    ];

    /// The name stored and shown (the serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::ProcessSeen => "process_seen",
            EventKind::CallStart => "call_start",
            EventKind::Pause => "pause",
            EventKind::SessionStart => "session_start",
            EventKind::EvalRequest => "eval_request",
            EventKind::EvalResult => "eval_result",
            EventKind::SessionClose => "session_close",
            EventKind::Resume => "resume",
            EventKind::CallComplete => "call_complete",
            EventKind::BreakpointHit => "breakpoint_hit",
            EventKind::Log => "log",
            EventKind::Checkpoint => "checkpoint",
            EventKind::Rewind => "rewind",
            EventKind::BranchCreated => "branch_created",
            EventKind::BranchSwitched => "branch_switched",
        }
    }

    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

/// One entry of the event log (the session recording): everything that happened, in
/// order. `breakroom export` writes these as JSON lines and `breakroom replay` reads them back.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedEvent {
    pub sequence: i64,
    /// Seconds since the Unix epoch.
    pub timestamp: f64,
    #[serde(rename = "type")]
    pub kind: EventKind,
    pub process_key: Option<String>,
    pub session_id: Option<String>,
    pub data: Value,
}

/// What is known of a value in the CID store.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredValue {
    pub cid: String,
    /// Size of the serialized bytes.
    pub size: usize,
    /// `dill` (a pickle) or `json`.
    pub serialization_format: String,
    pub stored_at: f64,
    /// Python-like text of the value when the server can decode it, else a placeholder.
    pub display: String,
}

/// One frame of a paused call's stack, with the source around its line when the client sent it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameView {
    pub filename: String,
    pub lineno: i64,
    pub function: String,
    pub code_context: Option<String>,
    /// Line number of `source_lines[0]`.
    pub source_start: i64,
    pub source_lines: Vec<String>,
    /// Names of the frame's locals (values are for the REPL to show).
    pub locals: Vec<String>,
}

/// A REPL session as other pages link to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionLink {
    pub session_id: String,
    pub active: bool,
    pub entries: usize,
}

/// `/callstack/{pause_id}`: the stack at the moment of a pause.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallStackView {
    pub pause_id: String,
    pub call_id: String,
    pub function_name: String,
    pub reason: PauseReason,
    pub pid: i64,
    pub process_key: String,
    pub paused_at: f64,
    pub still_paused: bool,
    /// Innermost first.
    pub frames: Vec<FrameView>,
    pub sessions: Vec<SessionLink>,
}

/// A debugged process, as `/call-tree` lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessSummary {
    pub process_key: String,
    pub pid: i64,
    pub first_call_at: f64,
    pub last_call_at: f64,
    pub calls: usize,
    pub paused: usize,
    pub repl_sessions: usize,
}

/// One recorded call in a process's call tree, in depth-first order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallTreeNode {
    pub call_id: String,
    pub function_name: String,
    /// Nesting level: 0 for calls with no recorded caller.
    pub depth: usize,
    pub parent: Option<String>,
    pub args_text: Vec<String>,
    pub status: CallStatus,
    pub result_text: Option<String>,
    pub started_at: f64,
    pub completed_at: Option<f64>,
    pub pause_ids: Vec<String>,
    pub repl_sessions: Vec<SessionLink>,
}

/// A breakpoint as the main page shows and edits it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakpointView {
    pub function_name: String,
    pub behavior: Behavior,
    pub after_behavior: AfterBehavior,
    pub replacement: Option<String>,
    pub signature: Option<String>,
    /// Registered functions with the same signature: the possible replacements.
    pub replacements: Vec<String>,
}

/// Every breakpoint and the global behaviour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakpointsView {
    pub breakpoints: Vec<BreakpointView>,
    pub global_behavior: GlobalBehavior,
}

/// A frame of a pause's stack by its index, 0 = innermost (pdb's up/down): what `frame` names
/// in evals, completion, the variables panel and frame selection. A value that is not one is
/// `invalid_frame` as it is read.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct FrameIndex(pub usize);

impl FrameIndex {
    pub const INNERMOST: FrameIndex = FrameIndex(0);

    pub fn get(self) -> usize {
        self.0
    }
}

impl<'de> Deserialize<'de> for FrameIndex {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(de)?;
        match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(index) => Ok(FrameIndex(index)),
            None => Err(crate::wire::refuse(
                "invalid_frame",
                format_args!("frame must be a frame index from 0, not {value}"),
            )),
        }
    }
}

/// `stop` of call/start (Breakroom's client): where and why the program stopped.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PauseStop {
    pub kind: StopKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The line breakpoint that stopped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakpoint_id: Option<String>,
    /// The step that stopped here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<StepKind>,
    /// How the step ended: `line`, `return` (the caller, just after the call) or `exception`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// The pause the step started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_pause_id: Option<String>,
    /// The exception shown at a post-mortem or step-exception stop: `KeyError: 'missing'`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// The pause this one was on a server that went away (issue 32): the program told the
    /// server that came back of the same stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconnected_from: Option<String>,
    /// The pause stops its whole thread although that thread runs an event loop (issue 51):
    /// every other task of the loop waits too. Pauses in a coroutine whose code Breakroom
    /// rewrote suspend only their task and leave this out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
    /// Why it blocks the loop: `a synchronous frame called from a coroutine`, ….
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_reason: Option<String>,
}

impl PauseStop {
    /// `prog.py:10 in checkout`, the file by its base name.
    pub fn place(&self) -> Option<String> {
        let file = self.file.as_deref()?;
        let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let mut place = match self.line {
            Some(line) => format!("{base}:{line}"),
            None => base.to_string(),
        };
        if let Some(function) = self.function.as_deref().filter(|f| !f.is_empty()) {
            place.push_str(" in ");
            place.push_str(function);
        }
        Some(place)
    }

    /// Why it stopped, for people: `line breakpoint bp-2`, `step over`, `breakpoint()`.
    pub fn why(&self) -> String {
        let mut why = self.kind_why();
        if self.reconnected_from.is_some() {
            why.push_str(", told again after a server restart");
        }
        if self.is_blocking() {
            why.push_str(", blocking the event loop");
            if let Some(reason) = self.blocking_reason.as_deref().filter(|r| !r.is_empty()) {
                why.push_str(" (");
                why.push_str(reason);
                why.push(')');
            }
        }
        why
    }

    /// Whether the pause stops an event loop's thread (`blocking`).
    pub fn is_blocking(&self) -> bool {
        self.blocking == Some(true)
    }

    fn kind_why(&self) -> String {
        match self.kind {
            StopKind::Call => "before the call".into(),
            StopKind::Line => match &self.breakpoint_id {
                Some(id) => format!("line breakpoint {id}"),
                None => "line breakpoint".into(),
            },
            StopKind::SetTrace => "breakpoint()".into(),
            StopKind::Interrupt => "paused while running".into(),
            StopKind::Task => "task paused where it waits".into(),
            StopKind::Entry => "the program's first line".into(),
            StopKind::Exception => match &self.exception {
                Some(exception) => format!("post-mortem: {exception}"),
                None => "post-mortem".into(),
            },
            StopKind::Step => {
                let kind = self.step.map(|k| k.as_str().replace('_', " ")).unwrap_or_default();
                match self.how.as_deref() {
                    Some("return") => format!("step {kind}: returned"),
                    Some("exception") => match &self.exception {
                        Some(exception) => format!("step {kind}: {exception}"),
                        None => format!("step {kind}: exception"),
                    },
                    _ => format!("step {kind}"),
                }
            }
        }
    }

    /// `prog.py:10 in checkout — line breakpoint bp-2`.
    pub fn describe(&self) -> String {
        match self.place() {
            Some(place) => format!("{place} — {}", self.why()),
            None => self.why(),
        }
    }
}

/// One pause order for a running program.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interrupt {
    pub interrupt_id: String,
    /// The process record asked.
    pub process_id: String,
    /// The thread's ident (`threading.get_ident()`); none: the program's main thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<i64>,
    pub requested_at: f64,
}

/// What can be done to one task from outside its program.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskAction {
    /// `task.cancel()`, called on the task's own loop: `CancelledError` is raised where it waits.
    Cancel,
    /// Held where it waits, its loop running on: a pause in its innermost frame (`stop.kind =
    /// "task"`) until it is continued.
    Pause,
}

/// An order for one asyncio task of a program (issue 51), as the breakpoint channel carries it
/// (`interrupts::tasks` gives and answers them; here beside `Interrupt`, which travels the same way).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskOrder {
    pub order_id: String,
    /// The task's id, as the task list gives it.
    pub task_id: String,
    pub action: TaskAction,
}
