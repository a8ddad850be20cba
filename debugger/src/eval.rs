//! Evals: requests from the browser waiting for the paused program's answer. Each pause has a
//! FIFO queue and at most one eval in flight, so the client sees them strictly one at a time.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::model::TranscriptEntry;

/// What the paused client receives from `poll-repl`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalRequest {
    pub eval_id: String,
    pub session_id: String,
    pub pause_id: String,
    pub expr: String,
    /// Breakroom extension: how long the server waits for the result, in seconds. The client
    /// gives up a little earlier, so the user sees its clear timeout error, not a 504.
    #[serde(default)]
    pub timeout_s: f64,
}

/// What the paused client posts to `repl-result`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct EvalResult {
    #[cfg_attr(feature = "openapi", schema(value_type = String, required = true, min_length = 1, pattern = "\\S"))]
    #[serde(default)]
    pub eval_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, required = true, min_length = 1, pattern = "\\S"))]
    #[serde(default)]
    pub pause_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, required = true, min_length = 1, pattern = "\\S"))]
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default)]
    pub stdout: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{128}$"))]
    #[serde(default)]
    pub result_cid: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = Byte))]
    #[serde(default)]
    pub result_data: Option<String>,
}

/// An eval request with the channel its waiting browser request listens on. Dropping it
/// tells the waiter that the session closed.
pub struct PendingEval {
    pub request: EvalRequest,
    pub reply: oneshot::Sender<TranscriptEntry>,
}

#[derive(Default)]
pub struct EvalQueue {
    waiting: VecDeque<PendingEval>,
    in_flight: Option<PendingEval>,
}

impl EvalQueue {
    pub fn push(&mut self, pending: PendingEval) {
        self.waiting.push_back(pending);
    }

    /// Whether the client may take a request now.
    pub fn has_ready(&self) -> bool {
        self.in_flight.is_none() && !self.waiting.is_empty()
    }

    /// Hands the oldest waiting request to the client, if none is in flight.
    pub fn take_next(&mut self) -> Option<EvalRequest> {
        if self.in_flight.is_some() {
            return None;
        }
        let next = self.waiting.pop_front()?;
        let request = next.request.clone();
        self.in_flight = Some(next);
        Some(request)
    }

    /// Removes the eval the client answered.
    pub fn finish(&mut self, eval_id: &str) -> Option<PendingEval> {
        if self.in_flight.as_ref().is_some_and(|p| p.request.eval_id == eval_id) {
            return self.in_flight.take();
        }
        let pos = self.waiting.iter().position(|p| p.request.eval_id == eval_id)?;
        self.waiting.remove(pos)
    }

    /// Drops every request of a session, which wakes their waiters with "closed".
    pub fn cancel_session(&mut self, session_id: &str) {
        self.waiting.retain(|p| p.request.session_id != session_id);
        if self.in_flight.as_ref().is_some_and(|p| p.request.session_id == session_id) {
            self.in_flight = None;
        }
    }

    pub fn cancel_all(&mut self) {
        self.waiting.clear();
        self.in_flight = None;
    }
}
