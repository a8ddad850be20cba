//! Evals: requests from the browser waiting for the paused program's answer. Each pause has a
//! FIFO queue and at most one eval in flight, so the client sees them strictly one at a time.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::model::FrameIndex;
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
    /// Breakroom extension: what the request asks. Absent for a plain eval, so cideldill
    /// clients see the protocol's shape; they ignore the field and evaluate `expr`, which for
    /// the other kinds is a snippet that computes the same answer (see `snippet.rs`).
    #[serde(default, skip_serializing_if = "RequestKind::is_eval")]
    pub kind: RequestKind,
    /// The arguments of a non-eval request (`{code, cursor_pos}`, `{path, offset}`).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    /// Breakroom extension (issue 30): the stack frame to run in, 0 = innermost (pdb's
    /// up/down); absent: the pause's own frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameIndex>,
}

impl EvalRequest {
    /// The `eval_request` event of the log.
    pub fn event(&self) -> serde_json::Value {
        serde_json::json!({"eval_id": self.eval_id, "expr": self.expr})
    }
}

/// What a request to the paused program asks for. Only `eval` is recorded; the others are the
/// REPL page's helpers (completion, the variables panel) and leave no trace in the history.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    #[default]
    Eval,
    Complete,
    Variables,
    Expand,
    /// A page of a table an eval showed (issue 52), read from the live object.
    Table,
    /// A panel row's value in its rich forms (a table, an image): the panel's "view".
    View,
    /// The debug page's watch expressions, evaluated read-only as a snapshot's are (issue 45).
    Watch,
}

impl RequestKind {
    pub fn is_eval(&self) -> bool {
        *self == RequestKind::Eval
    }
}

/// Who waits for a request's answer: the browser's eval gets the transcript entry it made, a
/// helper request the client's raw answer.
pub enum Reply {
    /// The entry, or the refusal the client answered instead (`loop_blocked`, issue 51).
    Transcript(oneshot::Sender<std::result::Result<TranscriptEntry, crate::error::Error>>),
    Raw(oneshot::Sender<EvalResult>),
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
    /// The error text; cideldill's JS client sends `{name, message}`, read as `name: message`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    #[serde(default, deserialize_with = "crate::client_shapes::error_text")]
    pub error: Option<String>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{128}$"))]
    #[serde(default)]
    pub result_cid: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = Byte))]
    #[serde(default)]
    pub result_data: Option<String>,
    /// The value's rich forms and what `display()` showed, in nbformat's shape (issue 52).
    #[serde(default)]
    pub outputs: Option<Vec<crate::outputs::RichOutput>>,
    /// `dill` (default: base64 pickle) or `json` (the value as JSON text, JS clients).
    #[cfg_attr(feature = "openapi", schema(pattern = "^(dill|json)$"))]
    #[serde(default)]
    pub result_serialization_format: Option<String>,
    /// The eval was refused, not run: `loop_blocked` (it awaits, and the pause stops the thread
    /// of the loop it would run on). `error` says why; the eval is answered 409 with this code.
    #[serde(default)]
    pub refused: Option<String>,
}

/// An eval request with the channel its waiting browser request listens on. Dropping it
/// tells the waiter that the session closed.
pub struct PendingEval {
    pub request: EvalRequest,
    pub reply: Reply,
    /// When the browser asked. The request is recorded when its fate is known, in the same
    /// commit as its answer: one commit per eval instead of two.
    pub requested_at: f64,
}

/// How long a cideldill client runs an eval before it gives up and posts a timeout (its
/// `repl_eval_timeout_s`). It does not read the server's `timeout_s`.
pub const PROTOCOL_CLIENT_EVAL_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Default)]
pub struct EvalQueue {
    waiting: VecDeque<PendingEval>,
    in_flight: Option<(PendingEval, Instant)>,
    /// An eval the server stopped waiting for (timed out, or its session closed) while the
    /// client still runs it, and when the client will have given up on it at the latest.
    /// A cideldill client takes nothing new until it has posted that eval's result.
    abandoned: Option<(String, Instant)>,
}

impl EvalQueue {
    pub fn push(&mut self, pending: PendingEval) {
        self.waiting.push_back(pending);
    }

    /// Whether the client may take a request now.
    pub fn has_ready(&self) -> bool {
        self.in_flight.is_none() && !self.waiting.is_empty()
    }

    /// Until when a client that runs one eval at a time (the cideldill client's in-flight
    /// flag) is still busy with an eval the server gave up on; `None` when it is not.
    pub fn client_busy_until(&self, now: Instant) -> Option<Instant> {
        self.abandoned.as_ref().map(|(_, until)| *until).filter(|until| *until > now)
    }

    /// Hands the oldest waiting request to the client, if none is in flight.
    pub fn take_next(&mut self) -> Option<EvalRequest> {
        if self.in_flight.is_some() {
            return None;
        }
        let next = self.waiting.pop_front()?;
        let request = next.request.clone();
        self.in_flight = Some((next, Instant::now()));
        Some(request)
    }

    /// The eval handed to the client and not answered yet. Breakroom's client asks for evals
    /// only when it runs none, so one still in flight then was lost on the way (a dropped
    /// connection): it is handed out again; the client answers an id it ran before from its
    /// own record instead of running it twice.
    pub fn in_flight_request(&self) -> Option<EvalRequest> {
        self.in_flight.as_ref().map(|(pending, _)| pending.request.clone())
    }

    /// The eval with this id, still waiting or handed to the client, left where it is.
    pub fn peek(&self, eval_id: &str) -> Option<&PendingEval> {
        let in_flight = self.in_flight.as_ref().map(|(p, _)| p).filter(|p| p.request.eval_id == eval_id);
        in_flight.or_else(|| self.waiting.iter().find(|p| p.request.eval_id == eval_id))
    }

    /// Removes the eval the client answered (`None` if the server no longer waits for it).
    pub fn finish(&mut self, eval_id: &str) -> Option<PendingEval> {
        if self.abandoned.as_ref().is_some_and(|(id, _)| id == eval_id) {
            self.abandoned = None;
        }
        if self.in_flight.as_ref().is_some_and(|(p, _)| p.request.eval_id == eval_id) {
            return self.in_flight.take().map(|(pending, _)| pending);
        }
        let pos = self.waiting.iter().position(|p| p.request.eval_id == eval_id)?;
        self.waiting.remove(pos)
    }

    /// The server stops waiting for an eval (its browser request timed out); returns it unless
    /// it was answered meanwhile. If the client had taken it, the client is still running it.
    pub fn give_up(&mut self, eval_id: &str) -> Option<PendingEval> {
        if self.in_flight.as_ref().is_some_and(|(p, _)| p.request.eval_id == eval_id) {
            self.abandon_in_flight()
        } else {
            self.finish(eval_id)
        }
    }

    /// Takes every request of a session out; dropping them wakes their waiters with "closed".
    pub fn cancel_session(&mut self, session_id: &str) -> Vec<PendingEval> {
        let (cancelled, kept): (VecDeque<_>, VecDeque<_>) =
            std::mem::take(&mut self.waiting).into_iter().partition(|p| p.request.session_id == session_id);
        self.waiting = kept;
        let mut cancelled = Vec::from(cancelled);
        if self.in_flight.as_ref().is_some_and(|(p, _)| p.request.session_id == session_id) {
            cancelled.extend(self.abandon_in_flight());
        }
        cancelled
    }

    /// Takes every request out (the pause resumed).
    pub fn cancel_all(&mut self) -> Vec<PendingEval> {
        self.abandoned = None;
        self.in_flight.take().map(|(pending, _)| pending).into_iter().chain(self.waiting.drain(..)).collect()
    }

    fn abandon_in_flight(&mut self) -> Option<PendingEval> {
        let (pending, taken_at) = self.in_flight.take()?;
        self.abandoned = Some((pending.request.eval_id.clone(), taken_at + PROTOCOL_CLIENT_EVAL_TIMEOUT));
        Some(pending)
    }
}

/// A row of the variables panel, as a path from a frame's name down: `[["var", name], then
/// ["attr", name] or ["item", index]…]` on the wire. Checked as it is read (`invalid_path`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariablePath(Vec<PathStep>);

/// One step of a [`VariablePath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    /// The first step: a name in the frame or the session.
    Var(String),
    Attr(String),
    Item(u64),
}

impl VariablePath {
    /// A path that starts at `name` and goes down these steps; None when it is not one (a `Var`
    /// after the first step).
    pub fn new(name: impl Into<String>, steps: Vec<PathStep>) -> Option<Self> {
        let mut path = vec![PathStep::Var(name.into())];
        if steps.iter().any(|s| matches!(s, PathStep::Var(_))) {
            return None;
        }
        path.extend(steps);
        Some(VariablePath(path))
    }

    pub fn steps(&self) -> &[PathStep] {
        &self.0
    }

    /// Why a path was refused: no path, or not one.
    pub fn refusal() -> crate::error::Error {
        crate::error::Error::invalid(
            "invalid_path",
            "path must be [[\"var\", name], then [\"attr\", name] or [\"item\", index] steps]",
        )
    }

    /// A path from its JSON form.
    fn read(path: &serde_json::Value) -> Option<Self> {
        let steps = path.as_array().filter(|steps| !steps.is_empty())?;
        let steps = steps.iter().enumerate().map(|(i, step)| match step.as_array().map(Vec::as_slice) {
            Some([kind, key]) => match (kind.as_str(), i) {
                (Some("var"), 0) => key.as_str().map(|k| PathStep::Var(k.to_string())),
                (Some("attr"), 1..) => key.as_str().map(|k| PathStep::Attr(k.to_string())),
                (Some("item"), 1..) => key.as_u64().map(PathStep::Item),
                _ => None,
            },
            _ => None,
        });
        steps.collect::<Option<Vec<PathStep>>>().map(VariablePath)
    }
}

impl Serialize for VariablePath {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = ser.serialize_seq(Some(self.0.len()))?;
        for step in &self.0 {
            match step {
                PathStep::Var(name) => seq.serialize_element(&("var", name))?,
                PathStep::Attr(name) => seq.serialize_element(&("attr", name))?,
                PathStep::Item(index) => seq.serialize_element(&("item", index))?,
            }
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for VariablePath {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let path = serde_json::Value::deserialize(de)?;
        VariablePath::read(&path).ok_or_else(|| {
            let refusal = VariablePath::refusal();
            crate::wire::refuse(refusal.code(), &refusal)
        })
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for VariablePath {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder};
        let step = ArrayBuilder::new().items(ObjectBuilder::new()).min_items(Some(2)).max_items(Some(2));
        ArrayBuilder::new()
            .items(step)
            .min_items(Some(1))
            .description(Some("[[\"var\", name], then [\"attr\", name] or [\"item\", index] steps]"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for VariablePath {}
