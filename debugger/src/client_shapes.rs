//! Fields that debug clients send in more than one shape. cideldill's JavaScript client sends a
//! function's `signature` as its arity (`fn.length`, a number) and an eval's `error` as an object
//! `{name, message}`; the Python clients send text. Both are read as text here, so one request
//! type serves every client and anything else still gets a 400 naming the field.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// `signature`: text as sent, a number as its decimal text (a JS function's arity), null as none.
pub fn signature<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    match Option::<Value>::deserialize(de)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(D::Error::custom(format!("signature must be a string or a number, not {other}"))),
    }
}

/// An eval's `error`: text as sent, or `{name, message}` as `name: message` (how a JS error
/// prints itself).
pub fn error_text<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    match Option::<Value>::deserialize(de)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(Value::Object(error)) => {
            let field = |name: &str| error.get(name).and_then(Value::as_str).filter(|s| !s.is_empty());
            Ok(Some(match (field("name"), field("message")) {
                (Some(name), Some(message)) => format!("{name}: {message}"),
                (Some(only), None) | (None, Some(only)) => only.to_string(),
                (None, None) => "Error".to_string(),
            }))
        }
        Some(other) => Err(D::Error::custom(format!("error must be a string or an object, not {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Body {
        #[serde(default, deserialize_with = "super::signature")]
        signature: Option<String>,
        #[serde(default, deserialize_with = "super::error_text")]
        error: Option<String>,
    }

    fn read(value: serde_json::Value) -> Result<Body, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn a_js_arity_is_read_as_its_number_text() {
        assert_eq!(read(json!({"signature": 2})).unwrap().signature.as_deref(), Some("2"));
        assert_eq!(read(json!({"signature": "(a, b)"})).unwrap().signature.as_deref(), Some("(a, b)"));
        assert_eq!(read(json!({"signature": null})).unwrap().signature, None);
        assert!(read(json!({"signature": [1]})).unwrap_err().contains("signature must be"));
    }

    #[test]
    fn a_js_error_object_reads_as_name_and_message() {
        let body = read(json!({"error": {"name": "ReferenceError", "message": "x is not defined"}})).unwrap();
        assert_eq!(body.error.as_deref(), Some("ReferenceError: x is not defined"));
        assert_eq!(read(json!({"error": {"message": "boom"}})).unwrap().error.as_deref(), Some("boom"));
        assert_eq!(read(json!({"error": "Traceback"})).unwrap().error.as_deref(), Some("Traceback"));
        assert!(read(json!({"error": 3})).unwrap_err().contains("error must be"));
    }
}
