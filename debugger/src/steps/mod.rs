//! Stepping a paused program forward (issue 30): over, into, out, to a line. The client steps
//! (only Breakroom's Python client can); the server sends the order, keeps the pause's REPL
//! sessions open while the thread runs, and moves them to the pause where the step stops.
//! The kinds of step and stop are in `kinds`, where a pause says it stopped (`PauseStop`) in
//! `model`. Built for the browser too.

#[cfg(feature = "runtime")]
pub mod in_flight;
#[cfg(feature = "runtime")]
pub(crate) mod methods;
#[cfg(feature = "runtime")]
pub mod state;
#[cfg(feature = "runtime")]
pub use methods::StepService;

use serde::{Deserialize, Serialize};

pub use crate::kinds::{StepKind, StopKind};
pub use crate::model::PauseStop;

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
