//! Server functions of the breakpoints panel on `/` (issue 18) and of the source lines of a
//! call stack: each is one debugger call, answering text as the other pages' do.

use crate::api::PlainText;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed};

/// The global behaviour and the breakpoints table, then every breakpoint by id (issue 18).
#[server(prefix = "/rpc", output = PlainText)]
pub async fn breakpoints_html() -> Result<Option<String>, ServerFnError> {
    let debugger = debugger()?;
    let mut html = crate::render::breakpoints(&debugger.breakpoints_view());
    let now = breakroom_debugger::ids::now();
    let records = crate::render::breakpoint_records::breakpoint_records(&debugger.breakpoint_records(), now);
    html.push_str(&records.into_string());
    Ok(Some(html))
}

/// Adds a breakpoint of any kind from the panel's form: `target` is the function name, the
/// `FILE:LINE`, or the exception types (comma-separated; empty: any). `action` is pause, log or
/// snapshot; `expressions` the watch expressions, separated by `;`; `max_hits` and `expires_in`
/// (`1h`) bound a log or snapshot breakpoint, and `where_labels` (`service=api, env=prod`) aims
/// it at the processes carrying those labels. Each empty field is left out, so the debugger's
/// defaults apply; a malformed one is passed on as typed, so the debugger's 400 names it.
#[server(prefix = "/rpc", output = PlainText)]
#[allow(clippy::too_many_arguments)]
pub async fn add_breakpoint_record(
    kind: String,
    target: String,
    condition: String,
    hit_condition: String,
    pattern: String,
    log_message: String,
    action: String,
    expressions: String,
    max_hits: String,
    expires_in: String,
    where_labels: String,
) -> Result<(), ServerFnError> {
    let mut body = serde_json::json!({"kind": kind});
    let target = target.trim();
    match kind.as_str() {
        "function" => body["function_name"] = target.into(),
        "line" => {
            let (file, line) = target.rsplit_once(':').unwrap_or((target, ""));
            body["file"] = file.trim().into();
            // Not a number: the debugger's check names the problem (invalid_line).
            body["line"] = line.trim().parse::<i64>().map(Into::into).unwrap_or(serde_json::Value::Null);
        }
        _ => {
            let types: Vec<&str> = target.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
            body["exception_types"] = types.into();
        }
    }
    for (key, value) in
        [("condition", condition), ("hit_condition", hit_condition), ("pattern", pattern), ("log_message", log_message)]
    {
        if !value.trim().is_empty() {
            body[key] = value.into();
        }
    }
    policy_fields(&mut body, &action, &expressions, &max_hits, &expires_in, &where_labels);
    debugger()?.add_breakpoint_record(&body).map(|_| ()).map_err(failed)
}

/// The add form's action, watch expressions and bounds as the REST body's fields (issue 34).
#[cfg(feature = "ssr")]
fn policy_fields(
    body: &mut serde_json::Value,
    action: &str,
    expressions: &str,
    max_hits: &str,
    expires_in: &str,
    where_labels: &str,
) {
    use serde_json::Value;
    if !action.trim().is_empty() {
        body["action"] = action.trim().into();
    }
    let watch: Vec<&str> =
        split_expressions(expressions).into_iter().map(str::trim).filter(|e| !e.is_empty()).collect();
    if !watch.is_empty() {
        body["expressions"] = watch.into();
    }
    let max_hits = max_hits.trim();
    if !max_hits.is_empty() {
        body["max_hits"] = max_hits.parse::<u64>().map_or_else(|_| Value::from(max_hits), Value::from);
    }
    if !expires_in.trim().is_empty() {
        body["expires_in"] = expires_in.trim().into();
    }
    let pairs: Vec<&str> = where_labels.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    if !pairs.is_empty() {
        // `name` alone (no `=`) has an empty value: the debugger's check refuses it by name.
        let labels: serde_json::Map<String, Value> = pairs
            .iter()
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .map(|(k, v)| (k.trim().to_string(), Value::from(v.trim())))
            .collect();
        body["where"] = labels.into();
    }
}

/// Watch expressions typed on one line, split at each `;` outside strings and brackets: a
/// Python expression has none there (it is a statement separator), while `s.split(";")` or
/// `d[";"]` keep theirs.
#[cfg(feature = "ssr")]
fn split_expressions(text: &str) -> Vec<&str> {
    let (mut parts, mut start, mut depth, mut quote, mut escaped) = (vec![], 0, 0i32, None, false);
    for (i, c) in text.char_indices() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ';' if depth <= 0 => {
                    parts.push(&text[start..i]);
                    start = i + 1;
                }
                _ => {}
            },
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    #[test]
    fn watch_expressions_split_at_semicolons_outside_strings_and_brackets() {
        assert_eq!(super::split_expressions("len(x); x.total"), ["len(x)", " x.total"]);
        assert_eq!(super::split_expressions(r#"s.split(";"); d[';']"#), [r#"s.split(";")"#, " d[';']"]);
        assert_eq!(super::split_expressions(r#"'a\';b'; c"#), [r#"'a\';b'"#, " c"]);
        assert_eq!(super::split_expressions("f(a; b)"), ["f(a; b)"]);
    }
}

/// Saves a breakpoint's options as edited in place (empty clears one).
#[server(prefix = "/rpc", output = PlainText)]
pub async fn update_breakpoint_record(
    id: String,
    condition: String,
    hit_condition: String,
    pattern: String,
    log_message: String,
    enabled: bool,
) -> Result<(), ServerFnError> {
    let changes = serde_json::json!({
        "condition": condition, "hit_condition": hit_condition, "pattern": pattern,
        "log_message": log_message, "enabled": enabled,
    });
    debugger()?.update_breakpoint_record(&id, &changes).map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc", output = PlainText)]
pub async fn remove_breakpoint_record(id: String) -> Result<(), ServerFnError> {
    debugger()?.remove_breakpoint_record(&id).map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc", output = PlainText)]
pub async fn add_breakpoint(function_name: String) -> Result<(), ServerFnError> {
    debugger()?.add_breakpoint(function_name.trim(), None, None).map_err(failed)
}

#[server(prefix = "/rpc", output = PlainText)]
pub async fn remove_breakpoint(function_name: String) -> Result<(), ServerFnError> {
    debugger()?.remove_breakpoint(&function_name).map_err(failed)
}

/// `which` is "before" or "after".
#[server(prefix = "/rpc", output = PlainText)]
pub async fn set_breakpoint_behavior(
    function_name: String,
    which: String,
    behavior: String,
) -> Result<(), ServerFnError> {
    let debugger = debugger()?;
    match which.as_str() {
        "after" => debugger.set_after_behavior(&function_name, &behavior).map(|_| ()),
        _ => debugger.set_behavior(&function_name, &behavior).map(|_| ()),
    }
    .map_err(failed)
}

#[server(prefix = "/rpc", output = PlainText)]
pub async fn set_replacement(function_name: String, replacement: String) -> Result<(), ServerFnError> {
    debugger()?.set_replacement(&function_name, &replacement).map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc", output = PlainText)]
pub async fn set_global_behavior(behavior: String) -> Result<(), ServerFnError> {
    debugger()?.set_global_behavior(&behavior).map(|_| ()).map_err(failed)
}

/// A click on a source line of a frame: a line breakpoint there is removed, or one is added.
#[server(prefix = "/rpc", output = PlainText)]
pub async fn toggle_line_breakpoint(file: String, line: u32) -> Result<(), ServerFnError> {
    debugger()?.toggle_line_breakpoint(&file, line).map(|_| ()).map_err(failed)
}
