//! A tool call's arguments: checked against the tool's own input schema before the tool runs, so
//! every tool names a missing argument or a wrong type the same way, as a tool error (`isError`)
//! rather than a JSON-RPC error an agent would not get to read.

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

/// Why a tool call failed: a code an agent can match on and a sentence it can read.
#[derive(Debug)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    /// More fields for the structured content (`parameter`, `pause_id`, …).
    pub extra: Map<String, Value>,
}

impl ToolError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        ToolError { code: code.into(), message: message.into(), extra: Map::new() }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// The structured content of the error result.
    pub fn to_value(&self) -> Value {
        let mut body = self.extra.clone();
        body.insert("error".into(), json!(self.code));
        body.insert("message".into(), json!(self.message));
        Value::Object(body)
    }
}

/// What the session manager refused, with its own code (`pause_not_found`, `session_closed`, …).
impl From<breakroom_debugger::Error> for ToolError {
    fn from(err: breakroom_debugger::Error) -> Self {
        ToolError::new(err.code().to_string(), err.to_string())
    }
}

pub type ToolResult = Result<Done, ToolError>;

/// A tool's answer: structured content, and a short line for agents that read only text.
pub struct Done {
    pub value: Value,
    pub text: String,
    /// Images to show the agent besides the text: (MIME type, bare base64), e.g. an eval's plot.
    pub images: Vec<(String, String)>,
}

impl Done {
    pub fn new(value: impl serde::Serialize, text: impl Into<String>) -> ToolResult {
        let value = serde_json::to_value(value)
            .map_err(|e| ToolError::new("internal_error", format!("answer not serializable: {e}")))?;
        // structuredContent must be an object: lists and scalars are wrapped.
        let value = if value.is_object() { value } else { json!({ "result": value }) };
        Ok(Done { value, text: text.into(), images: vec![] })
    }

    /// The same answer with images as content blocks of their own.
    pub fn with_images(result: ToolResult, images: Vec<(String, String)>) -> ToolResult {
        result.map(|done| Done { images, ..done })
    }
}

/// Arguments that passed [`check`].
pub struct Args(pub Map<String, Value>);

impl Args {
    /// A string argument (absent or blank: None; the schema check already rejected other types).
    pub fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str).filter(|s| !s.trim().is_empty())
    }

    /// A string the schema requires (present and not blank after [`check`]).
    pub fn req(&self, name: &str) -> &str {
        self.str(name).unwrap_or("")
    }

    /// A string that may be empty but must be present (checked by [`check`]).
    pub fn raw_str(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    pub fn u64(&self, name: &str) -> Option<u64> {
        self.0.get(name).and_then(Value::as_u64)
    }

    pub fn f64(&self, name: &str) -> Option<f64> {
        self.0.get(name).and_then(Value::as_f64)
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        self.0.get(name).and_then(Value::as_bool)
    }

    /// The arguments (less `skip`) read as one of the manager's request types.
    pub fn parse<T: DeserializeOwned>(&self, skip: &[&str]) -> Result<T, ToolError> {
        let mut rest = self.0.clone();
        for key in skip {
            rest.remove(*key);
        }
        typed(Value::Object(rest))
    }

    /// One argument as a typed request (`changes` of a breakpoint).
    pub fn parse_field<T: DeserializeOwned>(&self, name: &str) -> Result<T, ToolError> {
        typed(self.0.get(name).cloned().unwrap_or_else(|| Value::Object(Map::new())))
    }
}

/// A typed request from JSON arguments: a field's own code when its deserializer gave one
/// (`invalid_action`, `invalid_line`), else `invalid_arguments`.
fn typed<T: DeserializeOwned>(value: Value) -> Result<T, ToolError> {
    serde_json::from_value(value).map_err(|e| match breakroom_debugger::wire::coded(&e.to_string()) {
        Some((code, message)) => ToolError::new(code, message),
        None => ToolError::new("invalid_arguments", format!("arguments: {e}")),
    })
}

/// Checks `given` against a tool's input schema: required arguments are there (strings not
/// blank), and every argument the schema types has that type.
pub fn check(schema: &Value, given: Option<Map<String, Value>>) -> Result<Args, ToolError> {
    let given = given.unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    for name in required.iter().filter_map(Value::as_str) {
        let blank = match given.get(name) {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.trim().is_empty() && !allows_empty(properties, name),
            Some(_) => false,
        };
        if blank {
            return Err(ToolError::new("missing_parameter", format!("{name} is required")).with("parameter", name));
        }
    }
    for (name, value) in &given {
        let Some(expected) = properties.and_then(|p| p.get(name)).and_then(|p| p.get("type")) else {
            continue;
        };
        if value.is_null() && !required.iter().any(|r| r == name) {
            continue; // an optional argument given as null is the same as none
        }
        let expected = expected.as_str().unwrap_or("");
        if !has_type(value, expected) {
            return Err(ToolError::new(
                "invalid_parameter",
                format!("{name} must be {}, not {}", article(expected), type_name(value)),
            )
            .with("parameter", name.as_str()));
        }
        if let Some(allowed) = properties.and_then(|p| p[name].get("enum")).and_then(Value::as_array) {
            if !allowed.contains(value) {
                let names: Vec<String> = allowed.iter().map(|v| v.as_str().unwrap_or("?").to_string()).collect();
                return Err(ToolError::new(
                    "invalid_parameter",
                    format!("{name} must be one of {}, not {value}", names.join(", ")),
                )
                .with("parameter", name.as_str()));
            }
        }
        if let (Some(min), Some(n)) =
            (properties.and_then(|p| p[name].get("minimum")).and_then(Value::as_f64), value.as_f64())
        {
            if n < min {
                return Err(ToolError::new("invalid_parameter", format!("{name} must be at least {min}, not {n}"))
                    .with("parameter", name.as_str()));
            }
        }
    }
    Ok(Args(given))
}

/// `"minLength": 0` marks a string that may be empty (a replacement cleared with "").
fn allows_empty(properties: Option<&Map<String, Value>>, name: &str) -> bool {
    properties.and_then(|p| p.get(name)).and_then(|p| p.get("minLength")).and_then(Value::as_u64) == Some(0)
}

fn has_type(value: &Value, expected: &str) -> bool {
    match expected {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn article(kind: &str) -> String {
    match kind {
        "integer" | "array" | "object" => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"pause_id": {"type": "string"}, "limit": {"type": "integer", "minimum": 1},
            "behavior": {"type": "string", "enum": ["stop", "go"]}},
            "required": ["pause_id"]})
    }

    fn args(v: Value) -> Option<Map<String, Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn a_missing_or_blank_required_argument_is_named() {
        for given in [json!({}), json!({"pause_id": "  "}), json!({"pause_id": null})] {
            let err = check(&schema(), args(given)).err().expect("refused");
            assert_eq!((err.code.as_str(), err.message.as_str()), ("missing_parameter", "pause_id is required"));
        }
    }

    #[test]
    fn a_wrong_type_is_named_with_what_was_given() {
        let err = check(&schema(), args(json!({"pause_id": 7}))).err().expect("refused");
        assert_eq!(err.message, "pause_id must be a string, not a number");
        let err = check(&schema(), args(json!({"pause_id": "p", "limit": "3"}))).err().expect("refused");
        assert_eq!(err.message, "limit must be an integer, not a string");
        let err = check(&schema(), args(json!({"pause_id": "p", "limit": 0}))).err().expect("refused");
        assert_eq!(err.message, "limit must be at least 1, not 0");
        let err = check(&schema(), args(json!({"pause_id": "p", "behavior": "sideways"}))).err().expect("refused");
        assert_eq!(err.message, "behavior must be one of stop, go, not \"sideways\"");
    }

    #[test]
    fn good_arguments_pass() {
        let ok = check(&schema(), args(json!({"pause_id": "p", "limit": 3, "other": true}))).ok().expect("accepted");
        assert_eq!((ok.req("pause_id"), ok.u64("limit")), ("p", Some(3)));
    }
}
