//! DAP messages as this adapter reads and writes them: a request's envelope, the responses and
//! events it sends, its error, and the capabilities it announces. Each request's arguments are
//! read with serde into the small structs beside its handler.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// A request from the editor.
pub struct Request {
    pub seq: i64,
    pub command: String,
    pub arguments: Value,
}

impl Request {
    /// The envelope of a message; an error names what is wrong with it.
    pub fn parse(message: &Value) -> Result<Request, String> {
        let seq = message.get("seq").and_then(Value::as_i64).ok_or("a message needs a numeric seq")?;
        match message.get("type").and_then(Value::as_str) {
            Some("request") => {}
            Some(other) => return Err(format!("an adapter only takes requests, not {other:?}")),
            None => return Err("a message needs a type".into()),
        }
        let command = message.get("command").and_then(Value::as_str).ok_or("a request needs a command")?;
        let arguments = message.get("arguments").cloned().unwrap_or(Value::Null);
        Ok(Request { seq, command: command.to_string(), arguments })
    }

    /// The request's arguments as `T`; absent arguments read as `{}`.
    pub fn args<T: DeserializeOwned>(&self) -> Result<T, DapError> {
        let value = if self.arguments.is_null() { json!({}) } else { self.arguments.clone() };
        serde_json::from_value(value).map_err(|e| DapError::new(format!("{}: bad arguments: {e}", self.command)))
    }
}

/// An error response's message (shown to the user by editors).
#[derive(Debug)]
pub struct DapError(pub String);

impl DapError {
    pub fn new(message: impl Into<String>) -> Self {
        DapError(message.into())
    }
}

impl From<breakroom_debugger::Error> for DapError {
    fn from(e: breakroom_debugger::Error) -> Self {
        DapError(format!("{e} ({})", e.code()))
    }
}

/// What the session sends; the writer numbers them in the order they are sent.
pub enum Outgoing {
    Response { request_seq: i64, command: String, result: Result<Value, DapError> },
    Event { event: &'static str, body: Value },
}

impl Outgoing {
    pub fn event(event: &'static str, body: Value) -> Self {
        Outgoing::Event { event, body }
    }

    pub fn to_message(self, seq: i64) -> Value {
        match self {
            Outgoing::Response { request_seq, command, result: Ok(body) } => json!({
                "seq": seq, "type": "response", "request_seq": request_seq, "success": true,
                "command": command, "body": body,
            }),
            Outgoing::Response { request_seq, command, result: Err(DapError(message)) } => json!({
                "seq": seq, "type": "response", "request_seq": request_seq, "success": false,
                "command": command, "message": message,
                "body": {"error": {"id": 1, "format": message.replace('{', "{{").replace('}', "}}"), "showUser": true}},
            }),
            Outgoing::Event { event, body } => json!({"seq": seq, "type": "event", "event": event, "body": body}),
        }
    }
}

/// The exception filters of `setExceptionBreakpoints`: names of exception types as conditions.
pub const RAISED: &str = "raised";
pub const UNCAUGHT: &str = "uncaught";

/// What `initialize` answers.
pub fn capabilities() -> Value {
    let filter = |id: &str, label: &str, default: bool| {
        json!({
            "filter": id, "label": label, "default": default, "supportsCondition": true,
            "conditionDescription": "exception types, comma-separated (e.g. KeyError, ValueError)",
        })
    };
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsLogPoints": true,
        "supportsFunctionBreakpoints": true,
        "supportsEvaluateForHovers": true,
        "supportsSetVariable": true,
        "supportsCompletionsRequest": true,
        "completionTriggerCharacters": ["."],
        "supportsStepBack": true,
        "supportsExceptionInfoRequest": true,
        "supportsExceptionFilterOptions": true,
        "supportsLoadedSourcesRequest": true,
        "supportsTerminateRequest": true,
        "supportsDelayedStackTraceLoading": true,
        "supportsSuspendDebuggee": true,
        "supportsTerminateDebuggee": true,
        "exceptionBreakpointFilters": [filter(RAISED, "Raised exceptions", false), filter(UNCAUGHT, "Uncaught exceptions", false)],
    })
}
