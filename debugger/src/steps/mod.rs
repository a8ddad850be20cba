//! Stepping a paused program forward (issue 30): over, into, out, to a line. The client steps
//! (only Breakroom's Python client can); the server sends the order, keeps the pause's REPL
//! sessions open while the thread runs, and moves them to the pause where the step stops.
//! Also where every pause says it is (`PauseStop`) and its frames. Built for the browser too.

#[cfg(feature = "runtime")]
pub(crate) mod in_flight;
#[cfg(feature = "runtime")]
pub(crate) mod methods;
#[cfg(feature = "runtime")]
pub use methods::StepService;

use serde::{Deserialize, Serialize};

/// How a step runs (`kind` of `POST /api/paused/{id}/step`, `step` of the client's action).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// The next line of this frame (or of its caller when it returns).
    Over,
    /// The first line of the next function called, else as over.
    Into,
    /// Until this frame returns: the caller just after the call, with `__return__`.
    Out,
    /// Until `file:line` is reached (a one-shot breakpoint for this thread).
    ToLine,
}

impl StepKind {
    pub const ALL: [StepKind; 4] = [StepKind::Over, StepKind::Into, StepKind::Out, StepKind::ToLine];

    pub const fn as_str(self) -> &'static str {
        match self {
            StepKind::Over => "over",
            StepKind::Into => "into",
            StepKind::Out => "out",
            StepKind::ToLine => "to_line",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// Why a pause stopped where it did, as the client reports it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// Before (or after) a wrapped function's call.
    Call,
    /// A line breakpoint.
    Line,
    /// `set_trace()` / `breakpoint()`.
    SetTrace,
    /// A step stopped here.
    Step,
    /// Post-mortem, where an exception was raised.
    Exception,
    /// Paused while running, at the next line it reached (`POST /api/processes/{id}/interrupt`,
    /// DAP's `pause`).
    Interrupt,
    /// The program's first line (`python -m breakroom --stop-on-entry`, DAP's `stopOnEntry`).
    Entry,
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

/// `POST /api/paused/{pause_id}/step`. Each field is checked as it is read, with its own 400
/// code (`wire`): `missing_kind`, `invalid_step_kind`, `missing_file`, `invalid_line`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepRequest {
    pub kind: StepKind,
    /// `to_line`: the file (as the program names it, or its base name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `to_line`: the line, from 1.
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
}

impl StepRequest {
    /// A step of `kind` from where the pause is (not `to_line`, which needs a place).
    pub fn new(kind: StepKind) -> Self {
        StepRequest { kind, file: None, line: None }
    }

    /// Run to `line` of `file`.
    pub fn to_line(file: impl Into<String>, line: i64) -> Self {
        StepRequest { kind: StepKind::ToLine, file: Some(file.into()), line: Some(line) }
    }
}

/// By hand, so a missing `kind` is `missing_kind` (serde's derive has no code for a field left
/// out). `file` and `line` of another kind than `to_line` are not read.
impl<'de> Deserialize<'de> for StepRequest {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        use crate::wire::refuse;
        use serde_json::Value;
        let body = serde_json::Map::<String, Value>::deserialize(de)?;
        let kind = match body.get("kind") {
            None | Some(Value::Null) => return Err(refuse("missing_kind", "kind is required")),
            Some(value) => value.as_str().and_then(StepKind::parse).ok_or_else(|| {
                refuse("invalid_step_kind", format_args!("kind must be over, into, out or to_line, not {value}"))
            })?,
        };
        if kind != StepKind::ToLine {
            return Ok(StepRequest::new(kind));
        }
        let file = match body.get("file") {
            Some(Value::String(f)) if !f.trim().is_empty() => f.clone(),
            _ => return Err(refuse("missing_file", "to_line needs file: the file to run to")),
        };
        match body.get("line").and_then(Value::as_i64) {
            Some(line) if line >= 1 => Ok(StepRequest::to_line(file, line)),
            _ => Err(refuse("invalid_line", "to_line needs line: a line number from 1")),
        }
    }
}

/// The answer to a step: where it stopped (within 2 s), or that the program runs on and the
/// stop will come as a `step_stopped` live event.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum StepReply {
    Stopped {
        pause_id: String,
        previous_pause_id: String,
        file: String,
        line: i64,
        function: String,
        /// The REPL session that followed the step (the oldest, when several did).
        session_id: Option<String>,
        session_ids: Vec<String>,
        how: Option<String>,
    },
    Running {
        previous_pause_id: String,
    },
}

impl StepReply {
    /// The pause the step stopped at, when it stopped within the wait.
    pub fn stopped_at(self) -> Option<String> {
        match self {
            StepReply::Stopped { pause_id, .. } => Some(pause_id),
            StepReply::Running { .. } => None,
        }
    }
}

pub use crate::model::FrameIndex;

/// One frame of a pause's stack (`GET /api/paused/{id}/frames`), innermost first.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameView {
    /// What `frame` names in evals, completion and the variables panel.
    pub index: usize,
    pub filename: String,
    pub lineno: i64,
    pub function: String,
    pub code_context: Option<String>,
    /// The source around the line: `source_lines[0]` is line `source_start`.
    pub source_start: i64,
    pub source_lines: Vec<String>,
    /// The frame's local names.
    pub locals: Vec<String>,
}
