//! The REPL page's helpers as server functions: completion and the variables panel. Answers are
//! plain text (completion lines, panel HTML), so the wasm decodes nothing.

use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};
use crate::rpc::TextRpc;

/// Completions at `cursor_pos` (code points): a first line `start end`, then one `match\ttype`
/// line per match (matches with a tab or a newline in them are left out: they cannot be typed).
#[server(prefix = "/rpc", endpoint = "complete_input", protocol = TextRpc)]
pub async fn complete_input(session_id: String, code: String, cursor_pos: u32) -> Result<String, ServerFnError> {
    use serde_json::Value;
    let reply = debugger(Need::Debugger)?
        .sessions()
        .complete(&session_id, &code, Some(cursor_pos as usize), None)
        .await
        .map_err(failed)?;
    let number = |key: &str| reply.get(key).and_then(Value::as_u64).unwrap_or(cursor_pos as u64);
    let mut out = format!("{} {}\n", number("cursor_start"), number("cursor_end"));
    let empty = vec![];
    let matches = reply.get("matches").and_then(Value::as_array).unwrap_or(&empty);
    let types = reply.pointer("/metadata/types").and_then(Value::as_array).unwrap_or(&empty);
    for (i, text) in matches.iter().filter_map(Value::as_str).enumerate() {
        if text.contains(['\t', '\n']) {
            continue;
        }
        let kind = types.get(i).and_then(Value::as_str).unwrap_or("");
        out.push_str(&format!("{text}\t{kind}\n"));
    }
    Ok(out)
}

/// Between the two parts of [`variables_html`]'s answer (no HTML holds it).
pub const PANELS_SPLIT: char = '\u{1}';

/// The sidebar's panels at a stop, in one round trip: the watch expressions (one per line of
/// `watches`: the page's input is one line), read-only as a snapshot's are, then
/// [`PANELS_SPLIT`], then the variables panel's rows; both as HTML. A refused watch list (too
/// many, too long) is said in the watch part and leaves the variables shown.
#[server(prefix = "/rpc", endpoint = "variables_html", protocol = TextRpc)]
pub async fn variables_html(session_id: String, watches: String) -> Result<String, ServerFnError> {
    let debugger = debugger(Need::Debugger)?;
    let watched = if watches.trim().is_empty() {
        String::new()
    } else {
        let expressions: Vec<String> = watches.lines().map(str::to_string).collect();
        match debugger.snapshots().watch(&session_id, &expressions, None).await {
            Ok(list) => crate::render::watch::rows(&list).into_string(),
            Err(e) => crate::render::watch::refused(&e.to_string()).into_string(),
        }
    };
    let reply = debugger.sessions().variables(&session_id, None).await.map_err(failed)?;
    let rows = crate::render::variables::rows(reply.get("variables"), reply.get("timed_out"), &session_id);
    Ok(format!("{watched}{PANELS_SPLIT}{rows}"))
}

/// One level under a panel row (`path` is the row's JSON path), as HTML.
#[server(prefix = "/rpc", endpoint = "expand_html", protocol = TextRpc)]
pub async fn expand_html(session_id: String, path: String, offset: u32) -> Result<String, ServerFnError> {
    use breakroom_debugger::eval::VariablePath;
    let path: VariablePath = serde_json::from_str(&path).map_err(|_| failed(VariablePath::refusal()))?;
    let reply =
        debugger(Need::Debugger)?.sessions().expand(&session_id, &path, offset as usize, None).await.map_err(failed)?;
    Ok(crate::render::variables::children(&reply, &session_id))
}
