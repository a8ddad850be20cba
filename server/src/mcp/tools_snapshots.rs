//! Snapshot tools (issue 34): an agent aims a snapshot breakpoint at a line of a program that
//! must not stop, then reads what it captured.

use breakroom_debugger::breakpoints::policy::BreakpointAction;
use breakroom_debugger::breakpoints::record::{BreakpointOptions, BreakpointSpec};
use breakroom_debugger::snapshots::SnapshotFilter;
use breakroom_debugger::users::Need;
use serde_json::{json, Value};

use super::args::Done;
use super::tools::{count, object, ToolSpec};

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "snapshot_add",
            Need::Debugger,
            "Adds a snapshot breakpoint: at `file`:`line` (or on a decorated `function_name`) the program captures its stack, the top frames' locals and the `expressions` (read-only Python) and goes on; it never pauses. `where` aims it at processes with these labels; `max_hits` (default 1) snapshots are kept, then it completes; `expires_in` (seconds or 30m, 1h; default 24h); `max_per_second` per process; `condition` (read-only).",
            object(
                json!({
                    "file": {"type": "string"}, "line": {"type": "integer", "minimum": 1},
                    "function_name": {"type": "string"},
                    "expressions": {"type": "array", "items": {"type": "string"}},
                    "where": {"type": "object", "additionalProperties": {"type": "string"}},
                    "max_hits": {"type": "integer", "minimum": 1, "maximum": 1000},
                    "expires_in": {"type": ["string", "number"]},
                    "max_per_second": {"type": "number"},
                    "condition": {"type": "string"},
                    "capture": {"type": "object"},
                }),
                &[],
            ),
            |d, a| {
                Box::pin(async move {
                    let mut options: BreakpointOptions = a.parse(&[])?;
                    options.policy.action = Some(Some(BreakpointAction::Snapshot));
                    // The manager refuses a line breakpoint without its file or line.
                    let spec = match a.str("function_name") {
                        Some(name) => BreakpointSpec::function(name),
                        None => BreakpointSpec {
                            file: a.str("file").map(str::to_string),
                            line: a.0.get("line").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()),
                            ..BreakpointSpec::line("", 0)
                        },
                    };
                    let record = d.breakpoints().add_breakpoint_record(&spec.with(options))?;
                    let text = format!("{} snapshots {} (max hits {})", record.id, record.location(), record.limits.max_hits.unwrap_or(1));
                    Done::new(record, text)
                })
            },
        ),
        ToolSpec::new(
            "snapshot_list",
            Need::Viewer,
            "Snapshots taken, newest first: each with its breakpoint, process, place and the expressions' values at a glance. `breakpoint_id` narrows it; `limit` (default 20).",
            object(json!({"breakpoint_id": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 500}}), &[]),
            |d, a| {
                Box::pin(async move {
                    let filter = SnapshotFilter {
                        breakpoint_id: a.str("breakpoint_id").map(str::to_string),
                        limit: a.0.get("limit").and_then(Value::as_u64).unwrap_or(20) as usize,
                        ..Default::default()
                    };
                    let snapshots = d.snapshots().list(&filter)?;
                    let text = count(snapshots.len(), "snapshot");
                    Done::new(json!({"snapshots": snapshots}), text)
                })
            },
        ),
        ToolSpec::new(
            "snapshot_get",
            Need::Viewer,
            "One snapshot: every frame (file, line, function), the captured frames' locals as a value tree (type, repr, children, and for data such as DataFrames and arrays their table and picture as `outputs`), and each watch expression's value or error. Pictures also come as image content.",
            object(json!({"snapshot_id": {"type": "string"}}), &["snapshot_id"]),
            |d, a| {
                Box::pin(async move {
                    let snapshot = d.snapshots().get(a.req("snapshot_id"))?;
                    let text = format!("{} from {} at {}:{}", snapshot.snapshot_id, snapshot.breakpoint_id,
                        snapshot.file.as_deref().unwrap_or("?"), snapshot.line.unwrap_or(0));
                    // The tables' and arrays' pictures: the agent sees them, not only their text.
                    let images = snapshot.images();
                    Done::with_images(Done::new(snapshot, text), images)
                })
            },
        ),
    ]
}
