//! Calls as clients send them and the records kept of them: the call/start and call/complete
//! requests, the actions the server answers with, and the record kept of every call. What the
//! server does when a client reports a call (pause it, land a step, note its process) is
//! `call_reports`, later in the order, so that breakpoints and pauses can use these types.

pub(crate) mod redact;
mod reports_store;
mod running;

pub(crate) use running::CallBook;
pub(crate) mod store;
pub mod tree;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cid_store::{SerializationFormat, SerializedItem};
use crate::model::{CallStatus, FrameView, Language, PauseReason, StackFrame};

/// `POST /api/call/start`. Fields a client may get wrong are kept loose and checked by the
/// debugger, so that a bad value gets a precise error instead of a generic parse failure.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct CallStart {
    #[cfg_attr(feature = "openapi", schema(value_type = String, required = true, pattern = "\\S"))]
    #[serde(default)]
    pub method_name: Option<String>,
    #[serde(default)]
    pub target: Option<SerializedItem>,
    #[serde(default)]
    pub target_cid: Option<String>,
    #[serde(default)]
    pub args: Vec<SerializedItem>,
    #[serde(default)]
    pub kwargs: IndexMap<String, SerializedItem>,
    #[serde(default)]
    pub call_site: Option<Value>,
    #[serde(default)]
    pub call_type: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = f64, required = true))]
    #[serde(default)]
    pub process_pid: Option<Value>,
    #[cfg_attr(feature = "openapi", schema(value_type = f64, required = true))]
    #[serde(default)]
    pub process_start_time: Option<Value>,
    /// Text, or a JavaScript function's arity as a number (cideldill's JS client).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<serde_json::Value>))]
    #[serde(default, deserialize_with = "crate::client_shapes::signature")]
    pub signature: Option<String>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^(dill|json)$"))]
    #[serde(default)]
    pub preferred_format: Option<String>,
    /// Breakroom extension: `python` or `javascript` (absent: Python, or JavaScript for a
    /// cideldill JS client: JSON values and `process_pid` 0).
    #[cfg_attr(feature = "openapi", schema(pattern = "^(python|javascript)$"))]
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub page_url: Option<String>,
    /// Breakroom extension: the client's name for this request. Sent again (a retry after a
    /// dropped connection), it gets the first answer back instead of starting a second call.
    #[serde(default)]
    pub request_id: Option<String>,
    /// Breakroom extension: a richer stack (innermost first) with source lines around each frame.
    #[serde(default)]
    pub frames: Option<Vec<Value>>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^(always|exception)$"))]
    /// Breakroom extension: `"always"` (set_trace) or `"exception"` (post-mortem) pauses
    /// whatever the breakpoints say.
    #[serde(default)]
    pub pause: Option<String>,
    /// Breakroom extension: `BREAKROOM_PROCESS_ID` of a process Breakroom launched, which links
    /// the call (its pauses, its sessions) to that process record.
    #[serde(default)]
    pub process_id: Option<String>,
    /// Breakroom extension: the client's host name (absent: a cideldill client, localhost only).
    #[serde(default)]
    pub hostname: Option<String>,
    /// Breakroom extension: the client's `sys.argv`, shown for processes that connect on their own.
    #[serde(default)]
    pub argv: Option<Vec<String>>,
    /// Breakroom extension (issue 33): the client's parent pid, and `role: "helper"` for
    /// multiprocessing's resource tracker and forkserver.
    #[serde(default)]
    pub parent_pid: Option<i64>,
    #[serde(default)]
    pub role: Option<String>,
    /// Breakroom extension (issue 20): the client snapshots at this pause when it is committed,
    /// `{"refusal": null}`, or will refuse, `{"refusal": "why"}`.
    #[serde(default)]
    pub checkpoints: Option<Value>,
    /// Breakroom extension (issue 50): this client applies the redaction rules itself; without
    /// it the server applies the value rules to the call's values before keeping them.
    #[serde(default)]
    pub redacts: Option<bool>,
    /// Breakroom extension (issue 30): this client can step (answer a pause with `step`).
    #[serde(default)]
    pub can_step: Option<bool>,
    /// Breakroom extension (issue 30): where and why the program stopped (a line breakpoint,
    /// `breakpoint()`, a step, post-mortem, a wrapped call).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::model::PauseStop>))]
    #[serde(default)]
    pub stop: Option<Value>,
    /// Breakroom extension (issue 31): the thread making the call, `{"id": ident, "name"}`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<CallThread>))]
    #[serde(default)]
    pub thread: Option<Value>,
    /// Breakroom extension (issue 20): this call is a line woken from a checkpoint, answering
    /// the wake order with this token; it always pauses.
    #[serde(default)]
    pub checkpoint_wake: Option<String>,
    /// Not on the wire: set by the server when the request came over loopback, which places a
    /// client that names no host (a cideldill client) on this host when its pid is alive here.
    #[serde(skip)]
    pub from_loopback: bool,
}

/// `POST /api/call/complete`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct CallComplete {
    #[serde(default)]
    pub call_id: Option<String>,
    #[serde(default)]
    pub timestamp: Option<f64>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub process_pid: Option<Value>,
    #[serde(default)]
    pub process_start_time: Option<Value>,
    #[serde(default)]
    pub result_cid: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = Byte))]
    #[serde(default)]
    pub result_data: Option<String>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^(dill|json)$"))]
    #[serde(default)]
    pub result_serialization_format: Option<String>,
    /// Breakroom extension: the client's repr of the result.
    #[serde(default)]
    pub result_repr: Option<String>,
    /// Breakroom extension (issue 50): this client applies the redaction rules itself.
    #[serde(default)]
    pub redacts: Option<bool>,
    #[serde(default)]
    pub exception_type: Option<String>,
    #[serde(default)]
    pub exception_message: Option<String>,
    #[serde(default)]
    pub exception_traceback: Option<String>,
    #[serde(default)]
    pub exception_cid: Option<String>,
    #[cfg_attr(feature = "openapi", schema(format = Byte))]
    #[serde(default)]
    pub exception_data: Option<String>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^(dill|json)$"))]
    #[serde(default)]
    pub exception_serialization_format: Option<String>,
}

/// What a client is told to do with a call (docs/src/protocol.md §5.5).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum Action {
    Continue,
    Poll {
        poll_url: String,
        poll_interval_ms: u64,
        timeout_ms: u64,
    },
    Replace {
        function_name: String,
    },
    Skip {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fake_result: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fake_result_cid: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fake_result_data: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fake_result_serialization_format: Option<SerializationFormat>,
    },
    Modify {
        modified_args: Vec<Value>,
        modified_kwargs: serde_json::Map<String, Value>,
    },
    Raise {
        exception_type: String,
        exception_message: String,
    },
    /// Breakroom's client only (issue 30): run on until the step stops, then pause there.
    Step {
        step: crate::kinds::StepKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<i64>,
    },
}

impl Action {
    /// The poll is held by the server, so the client need not wait between polls: 0 ms. A JSON
    /// call gets 1 ms, because cideldill's JS client reads the interval as `|| 100` (0 would
    /// sleep 100 ms before taking each eval).
    pub fn poll(pause_id: &str, format: SerializationFormat) -> Self {
        let poll_interval_ms = match format {
            SerializationFormat::Dill => 0,
            SerializationFormat::Json => 1,
        };
        Action::Poll { poll_url: format!("/api/poll/{pause_id}"), poll_interval_ms, timeout_ms: 60_000 }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Action::Continue => "continue",
            Action::Poll { .. } => "poll",
            Action::Replace { .. } => "replace",
            Action::Skip { .. } => "skip",
            Action::Modify { .. } => "modify",
            Action::Raise { .. } => "raise",
            Action::Step { .. } => "step",
        }
    }
}

/// Everything known about a call, in the shape `/api/paused` shows as `call_data`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallData {
    pub method_name: String,
    pub call_id: String,
    pub target: Option<SerializedItem>,
    pub pretty_target: Value,
    pub args: Vec<SerializedItem>,
    pub kwargs: IndexMap<String, SerializedItem>,
    pub pretty_args: Vec<Value>,
    pub pretty_kwargs: IndexMap<String, Value>,
    pub signature: String,
    pub call_site: Value,
    pub page_url: Option<String>,
    pub preferred_format: SerializationFormat,
    pub process_pid: i64,
    pub process_start_time: f64,
    pub process_key: String,
    pub call_type: Option<String>,
    /// Calls stored before languages were known are Python.
    #[serde(default)]
    pub language: Language,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_reason: Option<CallPauseReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pretty_result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<Vec<Value>>,
    /// The client can step (Breakroom's Python client).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub can_step: bool,
    /// Where and why it stopped, when the client said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<crate::model::PauseStop>,
    /// The thread making the call, when the client said (Breakroom's Python client).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<CallThread>,
}

/// A program's thread: its ident in the program (`threading.get_ident()`) and its name.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CallThread {
    pub id: i64,
    #[serde(default)]
    pub name: String,
}

impl CallData {
    /// A call's stack as the pages show it: the rich frames the client sent, else the protocol's
    /// stack trace without source.
    pub fn stack_views(&self) -> Vec<FrameView> {
        match &self.frames {
            Some(rich) => rich.iter().map(frame_view).collect(),
            None => self
                .stack()
                .into_iter()
                .map(|f| FrameView {
                    filename: f.filename,
                    lineno: f.lineno,
                    function: f.function,
                    code_context: f.code_context,
                    source_start: 0,
                    source_lines: vec![],
                    locals: vec![],
                })
                .collect(),
        }
    }

    /// The stack as reported: rich `frames` when the client sent them, else `call_site.stack_trace`.
    pub fn stack(&self) -> Vec<StackFrame> {
        let raw = match &self.frames {
            Some(frames) => frames.clone(),
            None => self.call_site.get("stack_trace").and_then(Value::as_array).cloned().unwrap_or_default(),
        };
        raw.iter()
            .map(|f| StackFrame {
                filename: f.get("filename").and_then(Value::as_str).unwrap_or("?").to_string(),
                lineno: f.get("lineno").and_then(Value::as_i64).unwrap_or(0),
                function: f.get("function").and_then(Value::as_str).unwrap_or("?").to_string(),
                code_context: f.get("code_context").and_then(Value::as_str).map(str::to_string),
            })
            .collect()
    }

    pub fn pause_reason_kind(&self) -> PauseReason {
        match self.pause_reason {
            Some(CallPauseReason::Exception) => PauseReason::Exception,
            _ if self.pretty_result.is_some() => PauseReason::After,
            _ => PauseReason::Breakpoint,
        }
    }
}

/// `call_data.pause_reason` as clients read it (docs/src/protocol.md): `exception` for a pause after a
/// raise, `breakpoint` for every other pause, after-pauses included. [`PauseReason`] is
/// Breakroom's finer view of the same pause.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallPauseReason {
    Breakpoint,
    Exception,
}

impl From<PauseReason> for CallPauseReason {
    fn from(reason: PauseReason) -> Self {
        match reason {
            PauseReason::Exception => CallPauseReason::Exception,
            PauseReason::Breakpoint | PauseReason::After => CallPauseReason::Breakpoint,
        }
    }
}

/// One call from start to completion; kept for the call tree and breakpoint history.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub call_id: String,
    pub method_name: String,
    pub process_key: String,
    pub started_at: f64,
    pub completed_at: Option<f64>,
    pub status: CallStatus,
    pub pretty_args: Vec<Value>,
    pub pretty_kwargs: IndexMap<String, Value>,
    pub pretty_result: Option<Value>,
    pub exception: Option<Value>,
    pub call_site: Value,
    pub pause_ids: Vec<String>,
    pub repl_sessions: Vec<String>,
}

/// A client's rich frame (`frames` extension) for the call stack page.
fn frame_view(raw: &Value) -> FrameView {
    let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_string);
    let strings = |key: &str| -> Vec<String> {
        raw.get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    FrameView {
        filename: text("filename").unwrap_or_else(|| "?".into()),
        lineno: raw.get("lineno").and_then(Value::as_i64).unwrap_or(0),
        function: text("function").unwrap_or_else(|| "?".into()),
        code_context: text("code_context"),
        source_start: raw.get("source_start").and_then(Value::as_i64).unwrap_or(0),
        source_lines: strings("source_lines"),
        locals: strings("locals"),
    }
}

/// `POST /api/call/event`: a client's diagnostic event. Any JSON object that names its process
/// (`process_pid`, `process_start_time`: numbers); values sent with it (`result_cid` /
/// `result_data` / `result_serialization_format`, the same for `exception_`) go to the CID
/// store. The rest is the client's own, kept as sent: hence JSON, checked as it is read.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ClientEvent(serde_json::Map<String, Value>);

/// A value sent along with a client event: (cid, data, serialization format).
pub struct EventValue<'a> {
    pub cid: &'a str,
    pub data: &'a str,
    pub format: Option<&'a str>,
}

/// The values a call event may carry: (cid, data, serialization format) field names.
const EVENT_VALUE_FIELDS: [[&str; 3]; 2] = [
    ["result_cid", "result_data", "result_serialization_format"],
    ["exception_cid", "exception_data", "exception_serialization_format"],
];

impl ClientEvent {
    /// The event, checked: its process named, its values' fields text and their formats known.
    fn new(event: serde_json::Map<String, Value>) -> crate::error::Result<Self> {
        use crate::error::Error;
        let has_number = |key: &str| event.get(key).is_some_and(Value::is_number);
        if !has_number("process_pid") || !has_number("process_start_time") {
            return Err(Error::MissingProcessIdentity);
        }
        for field in EVENT_VALUE_FIELDS.into_iter().flatten() {
            if !matches!(event.get(field), None | Some(Value::Null) | Some(Value::String(_))) {
                return Err(Error::invalid("invalid_payload", format!("{field} must be a string")));
            }
        }
        for [_, _, format] in EVENT_VALUE_FIELDS {
            // A bad format is refused even without data, as call/complete does.
            SerializationFormat::parse(event.get(format).and_then(Value::as_str))?;
        }
        Ok(ClientEvent(event))
    }

    /// The values sent with it (a cid with its data).
    pub fn values(&self) -> Vec<EventValue<'_>> {
        let text = |field: &str| self.0.get(field).and_then(Value::as_str);
        EVENT_VALUE_FIELDS
            .into_iter()
            .filter_map(|[cid, data, format]| {
                Some(EventValue { cid: text(cid)?, data: text(data)?, format: text(format) })
            })
            .collect()
    }

    /// The event as the client sent it.
    pub fn as_json(&self) -> &serde_json::Map<String, Value> {
        &self.0
    }
}

impl<'de> Deserialize<'de> for ClientEvent {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let event = serde_json::Map::<String, Value>::deserialize(de)?;
        ClientEvent::new(event).map_err(|e| crate::wire::refuse(e.code(), &e))
    }
}

/// The fields the server reads; the rest is the client's.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for ClientEvent {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, KnownFormat, ObjectBuilder, SchemaFormat, Type};
        let number = || ObjectBuilder::new().schema_type(Type::Number);
        let text = || ObjectBuilder::new().schema_type(Type::String);
        let bytes = || text().format(Some(SchemaFormat::KnownFormat(KnownFormat::Byte)));
        let format = || text().pattern(Some("^(dill|json)$"));
        ObjectBuilder::new()
            .description(Some("Any JSON object that names its process; values sent along with it go to the CID store."))
            .property("process_pid", number())
            .required("process_pid")
            .property("process_start_time", number())
            .required("process_start_time")
            .property("result_cid", text())
            .property("result_data", bytes())
            .property("result_serialization_format", format())
            .property("exception_cid", text())
            .property("exception_data", bytes())
            .property("exception_serialization_format", format())
            .additional_properties(Some(AdditionalProperties::FreeForm(true)))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for ClientEvent {}

/// `POST /api/report-com-error`: a communication error a client reports. Its fields are the
/// client's own (what it was sending, what failed); the server adds `received_at` and, when
/// missing, `timestamp`, and shows it as it is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ComErrorReport(pub serde_json::Map<String, Value>);
