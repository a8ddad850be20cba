//! Server functions of the breakpoints panel on `/` (issue 18) and of the source lines of a
//! call stack: each is one debugger call, answering text as the other pages' do.

use crate::rpc::TextRpc;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// One list of every breakpoint, whatever made it (issue 45): the functions registered by name,
/// then every breakpoint by id, and the one form that adds any kind (issue 18).
#[server(prefix = "/rpc", endpoint = "breakpoints_html", protocol = TextRpc)]
pub async fn breakpoints_html() -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let records = debugger.breakpoints().breakpoint_records();
    let mut html = crate::render::breakpoints(&debugger.function_breakpoints().breakpoints_view(), !records.is_empty());
    let now = breakroom_debugger::ids::now();
    let records = crate::render::breakpoint_records::breakpoint_records(&records, now);
    html.push_str(&records.into_string());
    html.push_str(&crate::render::breakpoint_records::policy(&debugger.config().policy.wire()).into_string());
    Ok(Some(html))
}

/// One breakpoint's form in that list, for a hit that moved its counts (issue 45): the page
/// updates that form alone. None when it is gone.
#[server(prefix = "/rpc", endpoint = "breakpoint_record_html", protocol = TextRpc)]
pub async fn breakpoint_record_html(id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    // As the whole list has it: the cluster's counts, its state, the processes it cannot reach.
    let records = debugger.breakpoints().breakpoint_records();
    let Some(record) = records.into_iter().find(|r| r.id == id) else { return Ok(None) };
    let now = breakroom_debugger::ids::now();
    Ok(Some(crate::render::breakpoint_records::record_form(&record, now).into_string()))
}

/// Adds a breakpoint of any kind from the panel's form: `target` is the function name, the
/// `FILE:LINE`, or the exception types (comma-separated; empty: any). `action` is pause, log or
/// snapshot; `expressions` the watch expressions, separated by `;`; `max_hits` and `expires_in`
/// (`1h`) bound a log or snapshot breakpoint, and `where_labels` (`service=api, env=prod`) aims
/// it at the processes carrying those labels. Each empty field is left out, so the debugger's
/// defaults apply; a malformed one is refused with the code the REST API gives it.
#[server(prefix = "/rpc", endpoint = "add_breakpoint_record", protocol = TextRpc)]
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
    use breakroom_debugger::breakpoints::record::{BreakpointOptions, BreakpointSpec};
    use breakroom_debugger::Error;
    let target = target.trim();
    let spec = match kind.as_str() {
        "function" => BreakpointSpec::function(target),
        "line" => {
            let (file, line) = target.rsplit_once(':').unwrap_or((target, ""));
            // Not a line number: the debugger's check names the problem (invalid_line).
            BreakpointSpec { line: line.trim().parse::<u32>().ok(), ..BreakpointSpec::line(file.trim(), 0) }
        }
        "error" => BreakpointSpec::error(
            target.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect(),
        ),
        other => {
            let message = format!("kind must be \"function\", \"line\" or \"error\", not {other:?}");
            return Err(failed(Error::invalid("invalid_kind", message)));
        }
    };
    let given = |value: String| (!value.trim().is_empty()).then_some(Some(value));
    let mut options = BreakpointOptions {
        condition: given(condition),
        hit_condition: given(hit_condition),
        pattern: given(pattern),
        log_message: given(log_message),
        ..Default::default()
    };
    options.policy = policy_fields(&action, &expressions, &max_hits, &expires_in, &where_labels).map_err(failed)?;
    debugger(Need::Debugger)?.breakpoints().add_breakpoint_record(&spec.with(options)).map(|_| ()).map_err(failed)
}

/// The add form's action, watch expressions and bounds as a breakpoint's policy (issue 34).
#[cfg(feature = "ssr")]
fn policy_fields(
    action: &str,
    expressions: &str,
    max_hits: &str,
    expires_in: &str,
    where_labels: &str,
) -> Result<breakroom_debugger::breakpoints::policy::PolicyChanges, breakroom_debugger::Error> {
    use breakroom_debugger::breakpoints::policy::{parse_duration, BreakpointAction, PolicyChanges};
    use breakroom_debugger::Error;
    let action = match action.trim() {
        "" => None,
        "pause" => Some(Some(BreakpointAction::Pause)),
        "log" => Some(Some(BreakpointAction::Log)),
        "snapshot" => Some(Some(BreakpointAction::Snapshot)),
        other => {
            let message = format!("action must be \"pause\", \"log\" or \"snapshot\", not {other:?}");
            return Err(Error::invalid("invalid_action", message));
        }
    };
    let mut policy = PolicyChanges { action, ..Default::default() };
    let watch: Vec<String> = split_expressions(expressions)
        .into_iter()
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_string)
        .collect();
    if !watch.is_empty() {
        policy.expressions = Some(watch);
    }
    let max_hits = max_hits.trim();
    if !max_hits.is_empty() {
        let n = max_hits.parse::<u64>().map_err(|_| {
            Error::invalid("invalid_max_hits", format!("\"max_hits\" is a whole number from 1, not {max_hits:?}"))
        })?;
        policy.max_hits = Some(Some(n));
    }
    let expires_in = expires_in.trim();
    if !expires_in.is_empty() {
        let seconds = parse_duration(expires_in).ok_or_else(|| {
            Error::invalid(
                "invalid_expires_in",
                format!("\"expires_in\" is seconds or a duration like 90s, 30m, 1h, 2d, not {expires_in:?}"),
            )
        })?;
        policy.expires_in = Some(Some(seconds));
    }
    let pairs: Vec<&str> = where_labels.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    if !pairs.is_empty() {
        // `name` alone (no `=`) has an empty value: the debugger's check refuses it by name.
        let labels = pairs
            .iter()
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        policy.where_labels = Some(labels);
    }
    Ok(policy)
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
#[server(prefix = "/rpc", endpoint = "update_breakpoint_record", protocol = TextRpc)]
pub async fn update_breakpoint_record(
    id: String,
    condition: String,
    hit_condition: String,
    pattern: String,
    log_message: String,
    enabled: bool,
) -> Result<(), ServerFnError> {
    use breakroom_debugger::breakpoints::record::{BreakpointOptions, BreakpointPatch};
    let options = BreakpointOptions {
        condition: Some(Some(condition)),
        hit_condition: Some(Some(hit_condition)),
        pattern: Some(Some(pattern)),
        log_message: Some(Some(log_message)),
        enabled: Some(enabled),
        ..Default::default()
    };
    debugger(Need::Debugger)?
        .breakpoints()
        .update_breakpoint_record(&id, &BreakpointPatch { options })
        .map(|_| ())
        .map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "remove_breakpoint_record", protocol = TextRpc)]
pub async fn remove_breakpoint_record(id: String) -> Result<(), ServerFnError> {
    debugger(Need::Debugger)?.breakpoints().remove_breakpoint_record(&id).map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "add_breakpoint", protocol = TextRpc)]
pub async fn add_breakpoint(function_name: String) -> Result<(), ServerFnError> {
    debugger(Need::Debugger)?.function_breakpoints().add_breakpoint(function_name.trim(), None, None).map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "remove_breakpoint", protocol = TextRpc)]
pub async fn remove_breakpoint(function_name: String) -> Result<(), ServerFnError> {
    debugger(Need::Debugger)?.function_breakpoints().remove_breakpoint(&function_name).map_err(failed)
}

/// `which` is "before" or "after".
#[server(prefix = "/rpc", endpoint = "set_breakpoint_behavior", protocol = TextRpc)]
pub async fn set_breakpoint_behavior(
    function_name: String,
    which: String,
    behavior: String,
) -> Result<(), ServerFnError> {
    use breakroom_debugger::breakpoints::by_name::{AfterBehavior, Behavior};
    let debugger = debugger(Need::Debugger)?;
    match which.as_str() {
        "after" => AfterBehavior::parse(&behavior)
            .and_then(|b| debugger.function_breakpoints().set_after_behavior(&function_name, b)),
        _ => Behavior::parse(&behavior).and_then(|b| debugger.function_breakpoints().set_behavior(&function_name, b)),
    }
    .map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "set_replacement", protocol = TextRpc)]
pub async fn set_replacement(function_name: String, replacement: String) -> Result<(), ServerFnError> {
    debugger(Need::Debugger)?
        .function_breakpoints()
        .set_replacement(&function_name, &replacement)
        .map(|_| ())
        .map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "set_global_behavior", protocol = TextRpc)]
pub async fn set_global_behavior(behavior: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::breakpoints::by_name::GlobalBehavior;
    let behavior = GlobalBehavior::parse(&behavior).map_err(failed)?;
    debugger(Need::Debugger)?.function_breakpoints().set_global_behavior(behavior).map_err(failed)
}

/// A click on a source line of a frame: a line breakpoint there is removed, or one is added.
#[server(prefix = "/rpc", endpoint = "toggle_line_breakpoint", protocol = TextRpc)]
pub async fn toggle_line_breakpoint(file: String, line: u32) -> Result<(), ServerFnError> {
    debugger(Need::Debugger)?.breakpoints().toggle_line_breakpoint(&file, line).map(|_| ()).map_err(failed)
}
