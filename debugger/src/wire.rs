//! Reading typed requests with serde while keeping a 400 code per bad field. Every door (REST,
//! MCP, the cluster's forwarding) reads a body into the request type the core takes; a field that
//! is not what it must be is refused by its own deserializer with the code clients know
//! (`invalid_line`, `invalid_action`). serde carries only a message, so the code travels in front
//! of it (`[invalid_line] "line" must be…`) and [`coded`] reads it back. Built for the browser
//! too, like the request types.

use std::fmt::Display;

use serde::de::{Deserialize, Deserializer, Error};
use serde_json::Value;

/// A field's refusal, as serde's error: the code in brackets, then the message.
pub fn refuse<E: Error>(code: &str, message: impl Display) -> E {
    E::custom(format_args!("[{code}] {message}"))
}

/// The code and message of an error made by [`refuse`], from serde's message (which may end with
/// ` at line L column C`); None for serde's own errors.
pub fn coded(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('[')?;
    let (code, message) = rest.split_once("] ")?;
    let is_code = !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !is_code {
        return None;
    }
    Some((code, without_position(message)))
}

/// serde_json's ` at line L column C`, taken off the end.
fn without_position(message: &str) -> &str {
    let number = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let Some(at) = message.rfind(" at line ") else { return message };
    let position = &message[at + " at line ".len()..];
    match position.split_once(" column ") {
        Some((line, column)) if number(line) && number(column) => &message[..at],
        _ => message,
    }
}

/// serde's error reading a body as a whole (a derived `Deserialize`), as one code: a field's own
/// code when its deserializer gave one, else `code` with serde's message after `what`.
pub fn whole<E: Error>(error: serde_json::Error, code: &str, what: &str) -> E {
    match coded(&error.to_string()) {
        Some((field_code, message)) => refuse(field_code, message),
        None => refuse(code, format_args!("{what}: {error}")),
    }
}

/// The field as JSON, for the checks that read it loosely (a number or a string) and for the
/// messages that show what was sent.
pub fn any<'de, D: Deserializer<'de>>(de: D) -> Result<Value, D::Error> {
    Value::deserialize(de)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_read_back_without_the_position() {
        let e: serde_json::Error = refuse("invalid_line", "\"line\" must be a whole number from 1, not 0");
        assert_eq!(coded(&e.to_string()), Some(("invalid_line", "\"line\" must be a whole number from 1, not 0")));
        assert_eq!(
            coded("[invalid_kind] kind must be x at line 1 column 20"),
            Some(("invalid_kind", "kind must be x"))
        );
        assert_eq!(coded("invalid type: string \"a\", expected u32 at line 1 column 3"), None);
        assert_eq!(
            coded("[invalid_kind] not \"x at line a column b\""),
            Some(("invalid_kind", "not \"x at line a column b\""))
        );
        assert_eq!(coded("[Not a code] x"), None);
    }

    /// The code a body gets when read as `T`: a field's own, or `invalid_json`.
    fn code_of<T: serde::de::DeserializeOwned>(body: Value) -> Option<String> {
        let text = body.to_string();
        let error = serde_json::from_str::<T>(&text).err()?.to_string();
        Some(coded(&error).map_or("invalid_json", |(code, _)| code).to_string())
    }

    #[test]
    fn step_requests_get_the_codes_of_their_fields() {
        use crate::steps::{StepKind, StepRequest};
        use serde_json::json;
        assert_eq!(code_of::<StepRequest>(json!({})).as_deref(), Some("missing_kind"));
        assert_eq!(code_of::<StepRequest>(json!({"kind": null})).as_deref(), Some("missing_kind"));
        assert_eq!(code_of::<StepRequest>(json!({"kind": "sideways"})).as_deref(), Some("invalid_step_kind"));
        assert_eq!(code_of::<StepRequest>(json!({"kind": 3})).as_deref(), Some("invalid_step_kind"));
        assert_eq!(code_of::<StepRequest>(json!({"kind": "to_line", "line": 3})).as_deref(), Some("missing_file"));
        assert_eq!(
            code_of::<StepRequest>(json!({"kind": "to_line", "file": "a.py", "line": 0})).as_deref(),
            Some("invalid_line")
        );
        // Another kind's place is not read, as before.
        assert_eq!(code_of::<StepRequest>(json!({"kind": "over", "line": "x"})), None);
        let to_line: StepRequest =
            serde_json::from_value(json!({"kind": "to_line", "file": "a.py", "line": 4})).expect("a step to a line");
        assert_eq!(to_line, StepRequest::to_line("a.py", 4));
        // What a door builds goes over the wire (the cluster, the CLI) and back unchanged.
        let back: StepRequest = serde_json::from_value(serde_json::to_value(&to_line).expect("json")).expect("read");
        assert_eq!(back, to_line);
        assert_eq!(serde_json::to_value(StepRequest::new(StepKind::Over)).ok(), Some(json!({"kind": "over"})));
    }

    #[test]
    fn frames_and_breakpoint_bodies_get_their_codes() {
        use crate::breakpoints::record::{BreakpointPatch, BreakpointSpec};
        use crate::steps::FrameIndex;
        use serde_json::json;
        assert_eq!(code_of::<FrameIndex>(json!(-1)).as_deref(), Some("invalid_frame"));
        assert_eq!(code_of::<FrameIndex>(json!("2")).as_deref(), Some("invalid_frame"));
        assert_eq!(serde_json::from_value::<FrameIndex>(json!(2)).ok(), Some(FrameIndex(2)));
        assert_eq!(code_of::<BreakpointSpec>(json!({"kind": "watch"})).as_deref(), Some("invalid_kind"));
        assert_eq!(
            code_of::<BreakpointSpec>(json!({"kind": "line", "file": "a.py", "line": "x"})).as_deref(),
            Some("invalid_line")
        );
        assert_eq!(
            code_of::<BreakpointSpec>(json!({"kind": "function", "function_name": "f", "enabled": "yes"})).as_deref(),
            Some("invalid_enabled")
        );
        assert_eq!(
            code_of::<BreakpointSpec>(json!({"kind": "line", "file": "a.py", "line": 2, "action": "stop"})).as_deref(),
            Some("invalid_action")
        );
        assert_eq!(code_of::<BreakpointPatch>(json!({"file": "b.py"})).as_deref(), Some("immutable_field"));
        assert_eq!(code_of::<BreakpointPatch>(json!({"expires_in": "soon"})).as_deref(), Some("invalid_expires_in"));
        // A spec built in Rust reads back the same from the JSON it sends (the CLIs).
        let body = json!({"kind": "line", "file": "a.py", "line": 2, "condition": null, "hit_condition": "% 2",
            "action": "snapshot", "expressions": ["x"], "max_hits": 3, "expires_in": 60, "where": {"env": "prod"}});
        let spec: BreakpointSpec = serde_json::from_value(body).expect("a spec");
        let back: BreakpointSpec = serde_json::from_value(serde_json::to_value(&spec).expect("json")).expect("read");
        assert_eq!(back, spec);
        assert_eq!(spec.options.condition, Some(None), "null clears");
        assert_eq!(spec.options.policy.expires_in, Some(Some(60.0)));
    }

    #[cfg(feature = "runtime")]
    #[test]
    fn resume_and_panel_requests_get_their_codes() {
        use crate::eval::VariablePath;
        use crate::pauses::{ResumeKind, ResumeRequest};
        use serde_json::json;
        assert_eq!(code_of::<ResumeRequest>(json!({"action": "AAA"})).as_deref(), Some("invalid_action"));
        assert_eq!(code_of::<ResumeRequest>(json!({"action": 5})).as_deref(), Some("invalid_action"));
        let skip: ResumeRequest = serde_json::from_value(json!({"action": "skip"})).expect("a resume");
        assert_eq!(skip.action, Some(ResumeKind::Skip));
        assert_eq!(code_of::<VariablePath>(json!([["attr", "x"]])).as_deref(), Some("invalid_path"));
        assert_eq!(code_of::<VariablePath>(json!([])).as_deref(), Some("invalid_path"));
        let path = json!([["var", "d"], ["item", 3], ["attr", "name"]]);
        let read: VariablePath = serde_json::from_value(path.clone()).expect("a path");
        assert_eq!(serde_json::to_value(&read).ok(), Some(path), "sent to the client as it came");
    }

    #[cfg(feature = "runtime")]
    #[test]
    fn behaviours_are_read_with_their_aliases_or_refused_as_invalid_behavior() {
        use crate::breakpoints::by_name::{behavior_field, AfterBehavior};
        use serde_json::json;
        #[derive(serde::Deserialize)]
        struct Body {
            #[serde(default, deserialize_with = "behavior_field")]
            behavior: Option<AfterBehavior>,
        }
        let read = |body: Value| serde_json::from_value::<Body>(body).map(|b| b.behavior);
        assert_eq!(read(json!({"behavior": "both"})).ok(), Some(Some(AfterBehavior::StopException)));
        assert_eq!(read(json!({})).ok(), Some(None));
        assert_eq!(code_of::<Body>(json!({"behavior": "sometimes"})).as_deref(), Some("invalid_behavior"));
        assert_eq!(code_of::<Body>(json!({"behavior": 1})).as_deref(), Some("invalid_behavior"));
    }

    #[cfg(feature = "runtime")]
    #[test]
    fn serde_errors_become_the_fields_codes_or_invalid_json() {
        let coded_error = serde_json::from_str::<crate::steps::StepRequest>(r#"{"kind": "up"}"#).expect_err("bad");
        assert_eq!(crate::error::Error::from_json(&coded_error, "request body").code(), "invalid_step_kind");
        let plain = serde_json::from_str::<crate::steps::StepRequest>("[1]").expect_err("not an object");
        assert_eq!(crate::error::Error::from_json(&plain, "request body").code(), "invalid_json");
    }
}
