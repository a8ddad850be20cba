//! Breakpoints of every kind by id (issue 18): function, line (with conditions, hit conditions,
//! log messages) and error breakpoints; add, list, change, enable, disable, remove, clear.

use breakroom_debugger::breakpoints::record::{BreakpointPatch, BreakpointSpec};
use breakroom_debugger::users::Need;
use serde_json::{json, Value};

use super::args::{Done, ToolError};
use super::tools::{count, no_arguments, object, ToolSpec};

/// The options every kind takes; `changes` of `breakpoint_record_update` use the same names.
fn options() -> Value {
    json!({
        "condition": {"type": "string", "description": "a Python expression: pause only when true"},
        "hit_condition": {"type": "string", "description": "`5`, `>= 5`, `% 5`: which hits pause"},
        "pattern": {"type": "string", "description": "for function breakpoints: a glob of qualified names"},
        "log_message": {"type": "string", "description": "a logpoint: print this (with {expressions}) instead of pausing"},
        "enabled": {"type": "boolean"}
    })
}

fn id_schema() -> Value {
    object(json!({"id": {"type": "string", "description": "the breakpoint's id (`bp-N`)"}}), &["id"])
}

pub fn tools() -> Vec<ToolSpec> {
    let mut add_props = options();
    add_props["kind"] = json!({"type": "string", "enum": ["function", "line", "error"]});
    add_props["function_name"] = json!({"type": "string"});
    add_props["file"] = json!({"type": "string", "description": "line breakpoints: the file's path"});
    add_props["line"] = json!({"type": "integer", "minimum": 1});
    add_props["exception_types"] = json!({"type": "array", "items": {"type": "string"}, "description": "error breakpoints: which exceptions (none: all)"});
    vec![
        ToolSpec::new(
            "breakpoint_record_add",
            Need::Debugger,
            "Adds a breakpoint of any kind: `function` (function_name or pattern), `line` (file, line), `error` (exception_types); with a condition, hit condition or log message.",
            object(add_props, &["kind"]),
            |d, a| {
                Box::pin(async move {
                    let spec: BreakpointSpec = a.parse(&[])?;
                    let record = d.breakpoints().add_breakpoint_record(&spec)?;
                    let text = format!("{} added ({})", record.id, record.kind.as_str());
                    Done::new(json!({"status": "ok", "breakpoint": record}), text)
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_record_list",
            Need::Viewer,
            "Every breakpoint of every kind by id, oldest first, with its options and hit count.",
            no_arguments(),
            |d, _| {
                Box::pin(async move {
                    let items = d.breakpoints().breakpoint_records();
                    let text = count(items.len(), "breakpoint");
                    Done::new(json!({"items": items}), text)
                })
            },
        ),
        ToolSpec::new(
            "breakpoint_record_update",
            Need::Debugger,
            "Changes a breakpoint's options (`changes`: condition, hit_condition, pattern, log_message, enabled; null clears one).",
            object(json!({"id": {"type": "string"}, "changes": {"type": "object", "properties": options()}}), &["id", "changes"]),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("id");
                    let changes: BreakpointPatch = a.parse_field("changes")?;
                    saved(d.breakpoints().update_breakpoint_record(id, &changes), id, "changed")
                })
            },
        ),
        ToolSpec::new("breakpoint_record_enable", Need::Debugger, "Enables a breakpoint.", id_schema(), |d, a| {
            Box::pin(async move { saved(d.breakpoints().update_breakpoint_record(a.req("id"), &BreakpointPatch::enabled(true)), a.req("id"), "enabled") })
        }),
        ToolSpec::new("breakpoint_record_disable", Need::Debugger, "Disables a breakpoint (it stays, with its options).", id_schema(), |d, a| {
            Box::pin(async move { saved(d.breakpoints().update_breakpoint_record(a.req("id"), &BreakpointPatch::enabled(false)), a.req("id"), "disabled") })
        }),
        ToolSpec::new("breakpoint_record_remove", Need::Debugger, "Removes a breakpoint by id.", id_schema(), |d, a| {
            Box::pin(async move { saved(d.breakpoints().remove_breakpoint_record(a.req("id")), a.req("id"), "removed") })
        }),
        ToolSpec::new("breakpoint_record_clear", Need::Debugger, "Removes every breakpoint of every kind.", no_arguments(), |d, _| {
            Box::pin(async move {
                let removed = d.breakpoints().clear_breakpoints()?;
                Done::new(json!({"status": "ok", "removed": removed}), format!("{} removed", count(removed, "breakpoint")))
            })
        }),
    ]
}

fn saved(
    result: breakroom_debugger::error::Result<breakroom_debugger::breakpoints::record::BreakpointRecord>,
    id: &str,
    what: &str,
) -> super::args::ToolResult {
    let record = result.map_err(|e| ToolError::from(e).with("id", id))?;
    Done::new(json!({"status": "ok", "breakpoint": record}), format!("{id} {what}"))
}
