//! Display text for serialized values: the client's repr when it sent one, JSON for JSON values,
//! Python's repr for plain pickles, else a placeholder. Never fails.

use serde_json::Value;

use crate::cid_store::{SerializationFormat, SerializedItem, StoredObject};

/// `stored` is the item's value from the CID store, when it has a CID the store holds.
pub fn pretty_item(item: &SerializedItem, stored: Option<&StoredObject>) -> Value {
    if let Some(repr) = &item.repr {
        return Value::String(repr.clone());
    }
    let Some(cid) = item.cid.as_deref() else {
        return Value::String("<unavailable: no cid>".into());
    };
    match stored {
        None => Value::String(format!("<cid:{} missing>", short(cid))),
        Some(obj) => match obj.format {
            SerializationFormat::Json => serde_json::from_slice(&obj.bytes).unwrap_or(Value::Null),
            SerializationFormat::Dill => Value::String(pickled_text(&obj.bytes)),
        },
    }
}

/// Python's repr of a plain pickled value, else a placeholder saying what it is.
pub fn pickled_text(bytes: &[u8]) -> String {
    match crate::pickle::repr(bytes) {
        Some(text) if text.chars().count() > 500 => {
            let cut: String = text.chars().take(500).collect();
            format!("{cut}… [truncated]")
        }
        Some(text) => text,
        None => format!("<object: {} pickled bytes; no repr was sent>", bytes.len()),
    }
}

/// Display text for a pretty value: strings as they are, anything else as JSON.
pub fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(map) if map.contains_key("summary") => map.get("summary").map(text_of).unwrap_or_default(),
        other => other.to_string(),
    }
}

fn short(cid: &str) -> &str {
    cid.get(..12).unwrap_or(cid)
}
