//! Stepping tools (issue 30): step over, into, out, to a line, and a pause's frames. Each is
//! the same manager call as its REST route.

use breakroom_debugger::steps::{StepKind, StepReply, StepRequest};
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde_json::{json, Value};

use super::args::{Args, Done, ToolError, ToolResult};
use super::tools::{object, ToolSpec};

async fn step(d: Debugger, a: Args, kind: StepKind) -> ToolResult {
    let pause_id = a.req("pause_id");
    let request = match kind {
        // The manager refuses a missing file or line (`missing_file`, `invalid_line`).
        StepKind::ToLine => StepRequest {
            kind,
            file: a.str("file").map(str::to_string),
            line: Some(a.0.get("line").and_then(Value::as_i64).unwrap_or(0)),
        },
        _ => StepRequest::new(kind),
    };
    let reply = d.steps().step(pause_id, request).await.map_err(|e| ToolError::from(e).with("pause_id", pause_id))?;
    let text = match &reply {
        StepReply::Stopped { pause_id, file, line, function, .. } => {
            format!("stopped at {file}:{line} in {function}: pause {pause_id}")
        }
        StepReply::Running { .. } => {
            "running: the step has not stopped within 2 s (it comes as a step_stopped event)".into()
        }
    };
    Done::new(reply, text)
}

fn pause_only() -> Value {
    object(json!({"pause_id": {"type": "string"}}), &["pause_id"])
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "step_over",
            Need::Debugger,
            "Steps a paused Python program (Breakroom's client) to the next line of the paused frame, or of its caller when the frame returns (with `__return__`). Answers with the new pause (its REPL session follows), or `running`.",
            pause_only(),
            |d, a| Box::pin(step(d, a, StepKind::Over)),
        ),
        ToolSpec::new(
            "step_into",
            Need::Debugger,
            "Steps into the next Python function called on the paused line (its first line), else as step_over.",
            pause_only(),
            |d, a| Box::pin(step(d, a, StepKind::Into)),
        ),
        ToolSpec::new(
            "step_out",
            Need::Debugger,
            "Runs until the paused frame returns: stops in the caller just after the call, with `__return__`.",
            pause_only(),
            |d, a| Box::pin(step(d, a, StepKind::Out)),
        ),
        ToolSpec::new(
            "step_to_line",
            Need::Debugger,
            "Runs the paused thread until `file`:`line` is reached (a one-shot breakpoint).",
            object(
                json!({"pause_id": {"type": "string"}, "file": {"type": "string"}, "line": {"type": "integer", "minimum": 1}}),
                &["pause_id", "file", "line"],
            ),
            |d, a| Box::pin(step(d, a, StepKind::ToLine)),
        ),
        ToolSpec::new(
            "list_frames",
            Need::Viewer,
            "The paused call's stack, innermost first: file, line, function, source around the line, local names. `index` is the `frame` evals take.",
            pause_only(),
            |d, a| {
                Box::pin(async move {
                    let pause_id = a.req("pause_id");
                    let frames = d.steps().frames(pause_id).map_err(|e| ToolError::from(e).with("pause_id", pause_id))?;
                    let text = frames
                        .iter()
                        .map(|f| format!("#{} {}:{} in {}", f.index, f.filename, f.lineno, f.function))
                        .collect::<Vec<_>>()
                        .join("\n");
                    Done::new(json!({"pause_id": pause_id, "frames": frames}), text)
                })
            },
        ),
    ]
}
