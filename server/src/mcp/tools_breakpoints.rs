//! cideldill's breakpoint tools, with its names and arguments so prompts written for it work
//! unchanged: function breakpoints and their behaviours, the default behaviour, paused calls,
//! registered functions, call records and stored objects. (`breakpoint_repl_eval` is with the
//! other REPL tools.)

use breakroom_debugger::breakpoints::by_name::{AfterBehavior, Behavior, GlobalBehavior};
use breakroom_debugger::pauses::{ResumeKind, ResumeRequest};
use breakroom_debugger::users::Need;
use breakroom_debugger::{Continued, Debugger};
use serde_json::{json, Value};

use super::args::{Done, ToolError};
use super::tools::{count, no_arguments, object, ToolSpec};
use crate::api::wire::{BreakpointList, FunctionList};

/// Call records answered when the call names no `limit`, as cideldill does.
const DEFAULT_RECORDS: u64 = 100;

const BEHAVIORS: &str = "`stop` (pause before the call), `go` (run it, recording it), `yield` (defer to the default)";
const AFTER_BEHAVIORS: &str =
    "`stop` (pause after the call), `go`, `yield`, `exception` (pause only when it raised), `breakpoints_and_exceptions`";

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "breakpoint_list_breakpoints",
            Need::Viewer,
            "Function breakpoints with their behaviours and replacements, the default behaviour, and `items`: every breakpoint of every kind by id.",
            no_arguments(),
            |d, _| {
                Box::pin(async move {
                    let mut list = BreakpointList::from(d.function_breakpoints().breakpoints_view());
                    list.items = d.breakpoints().breakpoint_records();
                    let text = format!("{}, {} of every kind", count(list.breakpoints.len(), "function breakpoint"), list.items.len());
                    Done::new(list, text)
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_add",
            Need::Debugger,
            "Adds a breakpoint on a function (by its name as the debug client registers it); `behavior`: stop, go or yield.",
            object(json!({"function_name": {"type": "string"}, "behavior": {"type": "string", "enum": ["stop", "go", "yield"]}}), &["function_name"]),
            |d, a| {
                Box::pin(async move {
                    let name = a.req("function_name");
                    // As REST: a value that names no behaviour is ignored.
                    let behavior = a.str("behavior").and_then(|b| Behavior::parse(b).ok());
                    d.function_breakpoints().add_breakpoint(name, None, behavior)?;
                    Done::new(json!({"status": "ok", "function_name": name}), format!("breakpoint added on {name}"))
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_remove",
            Need::Debugger,
            "Removes the breakpoint on a function.",
            object(json!({"function_name": {"type": "string"}}), &["function_name"]),
            |d, a| {
                Box::pin(async move {
                    let name = a.req("function_name");
                    d.function_breakpoints().remove_breakpoint(name)?;
                    Done::new(json!({"status": "ok", "function_name": name}), format!("breakpoint on {name} removed"))
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_set_behavior",
            Need::Debugger,
            "Sets what a breakpoint does before its function runs.",
            object(json!({"function_name": {"type": "string"}, "behavior": {"type": "string", "description": BEHAVIORS}}), &["function_name", "behavior"]),
            |d, a| {
                Box::pin(async move {
                    let name = a.req("function_name");
                    let behavior = Behavior::parse(a.req("behavior"))?;
                    d.function_breakpoints().set_behavior(name, behavior)?;
                    Done::new(json!({"status": "ok", "function_name": name, "behavior": behavior}), format!("{name}: behavior set"))
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_set_after_behavior",
            Need::Debugger,
            "Sets what a breakpoint does after its function returned or raised.",
            object(json!({"function_name": {"type": "string"}, "behavior": {"type": "string", "description": AFTER_BEHAVIORS}}), &["function_name", "behavior"]),
            |d, a| {
                Box::pin(async move {
                    let name = a.req("function_name");
                    let behavior = AfterBehavior::parse(a.req("behavior"))?;
                    d.function_breakpoints().set_after_behavior(name, behavior)?;
                    Done::new(json!({"status": "ok", "function_name": name, "behavior": behavior}), format!("{name}: after-behavior set"))
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_set_replacement",
            Need::Debugger,
            "Runs a registered function with the same signature instead of the breakpoint's function; an empty `replacement_function` clears it.",
            object(json!({"function_name": {"type": "string"}, "replacement_function": {"type": "string", "minLength": 0}}), &["function_name", "replacement_function"]),
            |d, a| {
                Box::pin(async move {
                    let name = a.req("function_name");
                    let replacement = d.function_breakpoints().set_replacement(name, a.raw_str("replacement_function").unwrap_or(""))?;
                    let text = match &replacement {
                        Some(r) => format!("{name} now runs {r}"),
                        None => format!("{name} runs itself"),
                    };
                    Done::new(json!({"status": "ok", "function_name": name, "replacement_function": replacement}), text)
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_get_default_behavior",
            Need::Viewer,
            "The behaviour of calls to functions without a breakpoint of their own.",
            no_arguments(),
            |d, _| {
                Box::pin(async move {
                    let behavior = d.function_breakpoints().global_behavior();
                    Done::new(json!({"behavior": behavior}), format!("default behavior: {}", json!(behavior)))
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_set_default_behavior",
            Need::Debugger,
            "Sets the behaviour of calls without a breakpoint: `stop`, `go` (or `continue`), `exception`, `breakpoints_and_exceptions`.",
            object(json!({"behavior": {"type": "string"}}), &["behavior"]),
            |d, a| {
                Box::pin(async move {
                    let behavior = GlobalBehavior::parse(a.req("behavior"))?;
                    d.function_breakpoints().set_global_behavior(behavior)?;
                    Done::new(json!({"status": "ok", "behavior": behavior}), format!("default behavior: {}", json!(behavior)))
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_list_paused",
            Need::Viewer,
            "Calls paused now, oldest first: `id` (the pause id other tools take), `call_data` (function, arguments, process), `repl_sessions`.",
            no_arguments(),
            |d, _| {
                Box::pin(async move {
                    let paused = d.pauses().paused_protocol_view()?;
                    let text = count(paused.len(), "paused call");
                    Done::new(json!({"paused": paused}), text)
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_continue",
            Need::Debugger,
            "Resumes a paused call. `action`: continue (default), skip (with `fake_result`), raise (`exception_type`, `exception_message`), modify (`modified_args`/`modified_kwargs` change what the call runs with), replace (with `replacement_function`, which replaces the call whatever `action` says).",
            object(
                json!({
                    "pause_id": {"type": "string"}, "action": {"type": "string", "enum": ResumeKind::ALL.map(ResumeKind::as_str)},
                    "modified_args": {"type": "array"}, "modified_kwargs": {"type": "object"}, "fake_result": {},
                    "exception_type": {"type": "string"}, "exception_message": {"type": "string"},
                    "replacement_function": {"type": "string"}
                }),
                &["pause_id"],
            ),
            |d, a| {
                Box::pin(async move {
                    let pause_id = a.req("pause_id").to_string();
                    let request: ResumeRequest = a.parse(&["pause_id"])?;
                    // Unlike the REST door (which answers success, as cideldill's HTTP server does), an
                    // agent is told that the pause it named does not exist, as cideldill's MCP does.
                    let id = pause_id.clone();
                    let continued = d
                        .off_workers(move |d| d.pauses().continue_pause(&id, request))
                        .await
                        .map_err(|e| ToolError::from(e).with("pause_id", pause_id.as_str()))?;
                    match continued {
                        Continued::Resumed => {
                            Done::new(json!({"status": "ok", "pause_id": pause_id}), format!("{pause_id} resumed"))
                        }
                        Continued::AlreadyResumed => Done::new(
                            json!({"status": "ok", "pause_id": pause_id, "already_resumed": true}),
                            format!("{pause_id} was already resumed"),
                        ),
                    }
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_list_functions",
            Need::Viewer,
            "Functions the debug clients registered, with their signatures and metadata.",
            no_arguments(),
            |d, _| {
                Box::pin(async move {
                    let list = FunctionList::from(d.function_breakpoints().functions());
                    let text = count(list.functions.len(), "registered function");
                    let mut value = serde_json::to_value(&list).unwrap_or(Value::Null);
                    // cideldill's field names, beside Breakroom's REST ones.
                    value["signatures"] = value["function_signatures"].clone();
                    value["metadata"] = value["function_metadata"].clone();
                    Done::new(value, text)
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_get_call_records",
            Need::Viewer,
            "Recorded calls, newest first: of one function (`function_name`, completed calls) or of every process; at most `limit` (default 100).",
            object(json!({"function_name": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}}), &[]),
            |d, a| {
                Box::pin(async move {
                    let limit = usize::try_from(a.u64("limit").unwrap_or(DEFAULT_RECORDS)).unwrap_or(usize::MAX);
                    let calls: Vec<Value> = match a.str("function_name") {
                        // One more than asked, to tell whether there were more.
                        Some(name) => d.function_breakpoints().breakpoint_history(name, limit.saturating_add(1))?,
                        None => recent_calls(&d, usize::MAX)?,
                    };
                    let total_count = calls.len();
                    let calls: Vec<Value> = calls.into_iter().take(limit).collect();
                    let text = count(calls.len(), "call record");
                    Done::new(json!({"calls": calls, "total_count": total_count, "truncated": total_count > limit}), text)
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_inspect_object",
            Need::Viewer,
            "A stored value (an argument, a result) by its CID: its format, size and readable display.",
            object(json!({"cid": {"type": "string"}}), &["cid"]),
            |d, a| {
                Box::pin(async move {
                    let cid = a.req("cid");
                    let value = d.function_breakpoints().stored_value(cid).map_err(|e| ToolError::from(e).with("cid", cid))?;
                    let text = value.display.chars().take(200).collect::<String>();
                    Done::new(value, text)
                })
            },
        ),
    ]
}

/// The newest calls of every process, newest first, at most `limit`.
pub(super) fn recent_calls(d: &Debugger, limit: usize) -> breakroom_debugger::Result<Vec<Value>> {
    let mut records = vec![];
    for process in d.pauses().process_summaries()? {
        records.extend(d.pauses().call_records(&process.process_key)?);
    }
    records.sort_by(|a, b| b.started_at.total_cmp(&a.started_at));
    Ok(records.into_iter().take(limit).map(|r| serde_json::to_value(r).unwrap_or(Value::Null)).collect())
}
