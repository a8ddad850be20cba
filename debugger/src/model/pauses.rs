//! Paused calls as the pages and the API see them: why a call is paused, its stack and frames,
//! where it stopped, and a frame named by its index.

use crate::kinds::{Language, StepKind, StopKind};
use serde::{Deserialize, Serialize};

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
