//! Values from a client that does not redact (issue 50): an unchanged cideldill client, an older
//! Breakroom client. The server applies the value rules (and, for keyword arguments, the name
//! rules) before it stores or shows them. A value whose text holds a secret is kept as the
//! redacted text only: its pickle is never stored.

use base64::Engine;
use serde_json::Value;

use crate::cid_store::{cid_of, SerializationFormat, SerializedItem};
use crate::policy::{Policy, REDACTED};

use super::{CallComplete, CallStart};

/// Replaces the item by `shown` (pickled as a string, or JSON for a JSON client).
fn replace(item: &mut SerializedItem, shown: &str, json: bool) {
    let (bytes, data) = if json {
        let text = Value::String(shown.to_string()).to_string();
        (text.clone().into_bytes(), text)
    } else {
        let bytes = crate::pickle::from_json(&Value::String(shown.to_string()));
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        (bytes, data)
    };
    item.cid = Some(cid_of(&bytes));
    item.data = Some(data);
    item.repr = Some(shown.to_string());
}

/// The item's text as it would be shown, when it carries data.
fn shown_text(item: &SerializedItem) -> Option<(String, bool)> {
    let json = SerializationFormat::parse(item.serialization_format.as_deref()).ok()? == SerializationFormat::Json;
    if let Some(repr) = &item.repr {
        return Some((repr.clone(), json));
    }
    let data = item.data.as_deref()?;
    if json {
        return Some((data.to_string(), true));
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim()).ok()?;
    Some((crate::display::pickled_text(&bytes), false))
}

fn redact_item(policy: &Policy, item: &mut SerializedItem, name: Option<&str>) {
    let json = item.serialization_format.as_deref() == Some("json");
    if name.is_some_and(|n| policy.name_matches(n)) {
        replace(item, REDACTED, json);
        return;
    }
    let Some((text, json)) = shown_text(item) else { return };
    let (clean, count) = policy.redact_text(&text);
    if count > 0 {
        replace(item, &clean, json);
    }
}

/// call/start from a client that did not say it redacts.
pub(crate) fn call_start(policy: &Policy, req: &mut CallStart) {
    if req.redacts == Some(true) {
        return;
    }
    if let Some(target) = req.target.as_mut() {
        redact_item(policy, target, None);
    }
    for item in &mut req.args {
        redact_item(policy, item, None);
    }
    for (name, item) in req.kwargs.iter_mut() {
        redact_item(policy, item, Some(name));
    }
}

/// call/complete from a client that did not say it redacts.
pub(crate) fn call_complete(policy: &Policy, req: &mut CallComplete) {
    if req.redacts == Some(true) {
        return;
    }
    if let Some(message) = req.exception_message.as_mut() {
        *message = policy.redact_text(message).0;
    }
    if let Some(trace) = req.exception_traceback.as_mut() {
        *trace = policy.redact_text(trace).0;
    }
    let mut result = SerializedItem {
        cid: req.result_cid.clone(),
        client_ref: None,
        data: req.result_data.clone(),
        serialization_format: req.result_serialization_format.clone(),
        repr: req.result_repr.clone(),
    };
    let before = result.cid.clone();
    redact_item(policy, &mut result, None);
    if result.cid != before {
        req.result_cid = result.cid;
        req.result_data = result.data;
        req.result_repr = result.repr;
    }
}
