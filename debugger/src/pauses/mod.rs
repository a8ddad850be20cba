//! Paused calls. A pause is created at call start (before the call runs) or at call completion
//! (after it returned or raised) and is resumed once, with an action. Resumed pauses are kept:
//! their call stack and REPL sessions stay readable.

pub(crate) mod methods;
pub mod state;
pub(crate) mod views;

pub use methods::PauseService;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Notify;

use crate::calls::store::PauseRecord;
use crate::calls::{Action, CallData};
use crate::cid_store::SerializationFormat;
use crate::error::{Error, Result};
use crate::eval::EvalQueue;
use crate::model::PauseReason;

/// The pauses not yet resumed, in the order they paused; a pause leaves memory when it is
/// resumed (the store keeps it).
#[derive(Default)]
pub struct PauseBook {
    by_id: HashMap<String, Pause>,
    order: Vec<String>,
}

impl PauseBook {
    pub(crate) fn get(&self, pause_id: &str) -> Option<&Pause> {
        self.by_id.get(pause_id)
    }

    pub(crate) fn get_mut(&mut self, pause_id: &str) -> Option<&mut Pause> {
        self.by_id.get_mut(pause_id)
    }

    pub(crate) fn contains(&self, pause_id: &str) -> bool {
        self.by_id.contains_key(pause_id)
    }

    /// Oldest first.
    pub(crate) fn in_order(&self) -> impl Iterator<Item = &Pause> {
        self.order.iter().filter_map(|id| self.by_id.get(id))
    }

    pub(crate) fn add(&mut self, pause: Pause) {
        self.order.push(pause.record.pause_id.clone());
        self.by_id.insert(pause.record.pause_id.clone(), pause);
    }

    /// A pause, live (from memory) or resumed (from `store`).
    pub(crate) fn record_of(&self, pause_id: &str, store: &crate::store::Store) -> Result<Option<PauseRecord>> {
        match self.get(pause_id) {
            Some(pause) => Ok(Some(pause.record.clone())),
            None => store.pause(pause_id),
        }
    }

    pub(crate) fn take(&mut self, pause_id: &str) -> Option<Pause> {
        let pause = self.by_id.remove(pause_id)?;
        self.order.retain(|id| id != pause_id);
        Some(pause)
    }
}

pub struct Pause {
    /// What is kept of the pause across restarts.
    pub record: PauseRecord,
    pub evals: EvalQueue,
    /// Wakes the client's long-poll: on resume, and when an eval becomes ready.
    pub wake: Arc<Notify>,
    /// The server is still checking a breakpoint's condition in it: the call is held, but
    /// nobody is shown a pause that may be continued a moment later.
    pub deciding: bool,
    /// Polls of Breakroom's client (those taking evals) held here now.
    polls_held: usize,
    /// When such a poll last ended, or the pause began: the client is back within moments.
    client_seen: Instant,
}

/// How long Breakroom's client may be between two polls at a pause (it polls again at once; a
/// busy machine can starve its thread for a while).
const BETWEEN_POLLS: Duration = Duration::from_secs(2);

impl Pause {
    pub fn new(id: String, call: CallData, reason: PauseReason, now: f64) -> Self {
        Pause::from_record(PauseRecord {
            pause_id: id,
            call,
            reason,
            paused_at: now,
            resume: None,
            resumed_at: None,
            resumed_reason: None,
        })
    }

    pub fn from_record(record: PauseRecord) -> Self {
        Pause {
            record,
            evals: EvalQueue::default(),
            wake: Arc::new(Notify::new()),
            deciding: false,
            polls_held: 0,
            client_seen: Instant::now(),
        }
    }

    /// Whether a client is there to act on what the poll hands out (a named checkpoint): polling
    /// now, running an eval it was given, or between two polls. A program that never polls, or
    /// stopped, is not.
    pub fn client_is_there(&self) -> bool {
        self.polls_held > 0 || self.evals.in_flight_request().is_some() || self.client_seen.elapsed() < BETWEEN_POLLS
    }

    pub(crate) fn poll_began(&mut self) {
        self.polls_held += 1;
    }

    pub(crate) fn poll_ended(&mut self) {
        self.polls_held = self.polls_held.saturating_sub(1);
        self.client_seen = Instant::now();
    }

    pub fn is_paused(&self) -> bool {
        self.record.resume.is_none()
    }

    /// Paused and shown to people: not held for a condition check.
    pub fn is_shown(&self) -> bool {
        self.is_paused() && !self.deciding
    }

    /// After-pauses can only be continued: the client rejects anything else there.
    pub fn is_post_completion(&self) -> bool {
        self.record.reason != PauseReason::Breakpoint
    }
}

/// How a paused call goes on: the `action` of a resume request.
/// Why sessions and pauses found open in the store are closed when it is opened again.
pub const RESTART_REASON: &str = "server restarted";
/// Why a server that woke after its lease ran out closes the pauses and sessions it held
/// (`cluster`): their programs have moved on to another server.
pub const LEASE_LOST_REASON: &str = "server stopped answering";

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResumeKind {
    /// Run the call (or, after it ran, go on).
    Continue,
    /// Do not run it; return `fake_result` instead.
    Skip,
    /// Do not run it; raise `exception_type(exception_message)` instead.
    Raise,
    /// Run it with `modified_args` and `modified_kwargs`.
    Modify,
    /// Run `replacement_function` (registered by the client) instead. A request that names a
    /// replacement function replaces whatever its `action` says.
    Replace,
}

impl ResumeKind {
    pub const ALL: [ResumeKind; 5] =
        [ResumeKind::Continue, ResumeKind::Skip, ResumeKind::Raise, ResumeKind::Modify, ResumeKind::Replace];

    /// The `action` on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ResumeKind::Continue => "continue",
            ResumeKind::Skip => "skip",
            ResumeKind::Raise => "raise",
            ResumeKind::Modify => "modify",
            ResumeKind::Replace => "replace",
        }
    }

    pub fn parse(text: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text).ok_or_else(|| {
            Error::invalid(
                "invalid_action",
                format!("action must be continue, skip, modify, raise or replace, not {text:?}"),
            )
        })
    }
}

fn resume_kind<'de, D: serde::Deserializer<'de>>(de: D) -> std::result::Result<Option<ResumeKind>, D::Error> {
    match crate::wire::any(de)? {
        Value::Null => Ok(None),
        Value::String(text) => ResumeKind::parse(&text).map(Some).map_err(|e| crate::wire::refuse(e.code(), &e)),
        other => Err(crate::wire::refuse(
            "invalid_action",
            format_args!("action must be continue, skip, modify, raise or replace, not {other}"),
        )),
    }
}

/// A value given for a call (its result when skipped, its arguments when modified): JSON as
/// the browser, an agent or a script sent it. A serialized item (`{cid, data, …}`) passes as it
/// is; any other value is encoded in the call's format (a pickle for Python, JSON text for JS).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallValue(pub Value);

/// `POST /api/paused/<id>/continue`: how to resume. Every field is optional.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct ResumeRequest {
    /// Default `continue`. A bad value gets `invalid_action` as the body is read, whether or not
    /// the pause is there.
    #[serde(default, deserialize_with = "resume_kind")]
    pub action: Option<ResumeKind>,
    #[serde(default)]
    pub replacement_function: Option<String>,
    #[serde(default)]
    pub modified_args: Option<Vec<CallValue>>,
    #[serde(default)]
    pub modified_kwargs: Option<indexmap::IndexMap<String, CallValue>>,
    #[serde(default)]
    pub fake_result: Option<CallValue>,
    #[serde(default)]
    pub fake_result_data: Option<String>,
    #[serde(default)]
    pub fake_result_cid: Option<String>,
    #[serde(default)]
    pub exception_type: Option<String>,
    #[serde(default)]
    pub exception_message: Option<String>,
}

impl ResumeRequest {
    pub fn continue_() -> Self {
        ResumeRequest { action: Some(ResumeKind::Continue), ..Default::default() }
    }

    /// The action for the client. Values given as bare JSON are passed through where the client
    /// accepts them as they are (`fake_result`); modified arguments must be serialized items,
    /// encoded in the call's format (a JS client reads JSON items, a Python one pickles).
    pub fn into_action(self, post_completion: bool, format: SerializationFormat) -> Result<Action> {
        if let Some(name) = self.replacement_function.filter(|r| !r.is_empty()) {
            if post_completion {
                return Err(post_completion_error("replace"));
            }
            return Ok(Action::Replace { function_name: name });
        }
        let kind = self.action.unwrap_or(ResumeKind::Continue);
        if post_completion && kind != ResumeKind::Continue {
            return Err(post_completion_error(kind.as_str()));
        }
        match kind {
            ResumeKind::Continue => Ok(Action::Continue),
            ResumeKind::Skip => {
                // A bare JSON value also goes as a pickle, so any client reads it the same way.
                let data = match (&self.fake_result_data, &self.fake_result) {
                    (Some(data), _) => Some(data.clone()),
                    (None, Some(CallValue(value))) => Some(encode(value, format)),
                    (None, None) => None,
                };
                // Data given as it is was encoded by whoever sent it: in the call's format.
                Ok(Action::Skip {
                    fake_result_cid: self.fake_result_cid.or_else(|| data.as_deref().map(|d| cid_of_data(d, format))),
                    fake_result_serialization_format: data.as_ref().map(|_| format),
                    fake_result: self.fake_result.map(|CallValue(value)| value),
                    fake_result_data: data,
                })
            }
            ResumeKind::Raise => Ok(Action::Raise {
                exception_type: self.exception_type.filter(|t| !t.is_empty()).unwrap_or_else(|| "Exception".into()),
                exception_message: self.exception_message.unwrap_or_default(),
            }),
            ResumeKind::Modify => {
                // Serialized items pass through; any other JSON value is pickled here.
                let modified_args =
                    self.modified_args.unwrap_or_default().into_iter().map(|v| as_item(v.0, format)).collect();
                let modified_kwargs = self
                    .modified_kwargs
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, as_item(v.0, format)))
                    .collect();
                Ok(Action::Modify { modified_args, modified_kwargs })
            }
            // A named replacement was taken above.
            ResumeKind::Replace => Err(Error::invalid(
                "missing_replacement_function",
                "action replace needs replacement_function: the registered function to run instead",
            )),
        }
    }
}

/// A bare JSON value as an item's `data`: base64 pickle, or JSON text.
fn encode(value: &Value, format: SerializationFormat) -> String {
    use base64::Engine;
    match format {
        SerializationFormat::Dill => base64::engine::general_purpose::STANDARD.encode(crate::pickle::from_json(value)),
        SerializationFormat::Json => value.to_string(),
    }
}

fn cid_of_data(data: &str, format: SerializationFormat) -> String {
    use base64::Engine;
    match format {
        SerializationFormat::Dill => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap_or_default();
            crate::cid_store::cid_of(&bytes)
        }
        SerializationFormat::Json => crate::cid_store::cid_of(data.as_bytes()),
    }
}

fn as_item(value: Value, format: SerializationFormat) -> Value {
    let is_item = value.as_object().is_some_and(|o| o.contains_key("cid") || o.contains_key("data"));
    if is_item {
        return value;
    }
    let data = encode(&value, format);
    serde_json::json!({"cid": cid_of_data(&data, format), "data": data, "serialization_format": format.as_str()})
}

fn post_completion_error(action: &str) -> Error {
    Error::invalid(
        "unsupported_post_completion_action",
        format!("a call that already ran can only be continued, not {action:?}"),
    )
}
