//! The REPL page's helpers as server functions: completion and the variables panel. Answers are
//! plain text (completion lines, panel HTML), so the wasm decodes nothing.

use leptos::prelude::*;

use crate::api::PlainText;
#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// Completions at `cursor_pos` (code points): a first line `start end`, then one `match\ttype`
/// line per match (matches with a tab or a newline in them are left out: they cannot be typed).
#[server(prefix = "/rpc", endpoint = "complete_input", output = PlainText)]
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

/// The variables panel's rows, as HTML.
#[server(prefix = "/rpc", endpoint = "variables_html", output = PlainText)]
pub async fn variables_html(session_id: String) -> Result<String, ServerFnError> {
    let reply = debugger(Need::Debugger)?.sessions().variables(&session_id, None).await.map_err(failed)?;
    Ok(crate::render::variables::rows(reply.get("variables"), reply.get("timed_out"), &session_id))
}

/// One level under a panel row (`path` is the row's JSON path), as HTML.
#[server(prefix = "/rpc", endpoint = "expand_html", output = PlainText)]
pub async fn expand_html(session_id: String, path: String, offset: u32) -> Result<String, ServerFnError> {
    use breakroom_debugger::eval::VariablePath;
    let path: VariablePath = serde_json::from_str(&path).map_err(|_| failed(VariablePath::refusal()))?;
    let reply =
        debugger(Need::Debugger)?.sessions().expand(&session_id, &path, offset as usize, None).await.map_err(failed)?;
    Ok(crate::render::variables::children(&reply, &session_id))
}

/// The debug page's watch expressions (one per line of `expressions`: the page's input is one
/// line) read in the session's frame, read-only as a snapshot's are, as HTML rows.
#[server(prefix = "/rpc", endpoint = "watch_html", output = PlainText)]
pub async fn watch_html(session_id: String, expressions: String) -> Result<String, ServerFnError> {
    let expressions: Vec<String> = expressions.lines().map(str::to_string).collect();
    let list = debugger(Need::Debugger)?.snapshots().watch(&session_id, &expressions, None).await.map_err(failed)?;
    Ok(crate::render::watch::rows(&list).into_string())
}
