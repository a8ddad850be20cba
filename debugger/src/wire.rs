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
    let message = match message.rfind(" at line ") {
        Some(at) if message[at..].contains(" column ") => &message[..at],
        _ => message,
    };
    Some((code, message))
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

/// A field that is absent, cleared (`null`) or set: what a `PATCH` distinguishes. Use with
/// `#[serde(default, deserialize_with = "...")]` on an `Option<Option<T>>`: the outer `None` is
/// absent (serde's default), `Some(None)` is null.
pub fn present<'de, D, T>(de: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(de).map(Some)
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
        assert_eq!(coded("[Not a code] x"), None);
    }
}
