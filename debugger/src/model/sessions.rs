//! REPL sessions as the pages and the API see them: a session, its transcript entries, the
//! list and its filters, and what one eval answered.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kinds::Language;

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
