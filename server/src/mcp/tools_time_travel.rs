//! Time-travel tools (issue 20): a checkpoint now, step back from a pause, rewind to or branch
//! at a checkpoint, switch branches, the timeline and the diff of two branches. Each is the
//! same manager call as its REST route.

use breakroom_debugger::checkpoints::model::{StepBackRequest, Travel};
use breakroom_debugger::users::Need;
use serde_json::json;

use super::args::{Done, ToolError, ToolResult};
use super::tools::{count, object, ToolSpec};

fn travelled(travel: Travel) -> ToolResult {
    let text = format!("paused again at {} (pid {}, branch {})", travel.pause_id, travel.pid, travel.branch);
    Done::new(travel, text)
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "checkpoint_step_back",
            Need::Debugger,
            "Steps back from a pause to the newest checkpoint before it on its line (taken when Continue was pressed on an earlier pause): the program is paused there again with its memory as it was. The line left behind is killed, or kept paused on a new branch with `keep` (named `name`). Needs checkpoints on in the program.",
            object(json!({"pause_id": {"type": "string"}, "keep": {"type": "boolean"}, "name": {"type": "string"}}), &["pause_id"]),
            |d, a| {
                Box::pin(async move {
                    let pause_id = a.req("pause_id");
                    let request = StepBackRequest { keep: a.bool("keep"), name: a.str("name").map(str::to_string) };
                    let travel = d.checkpoints().step_back(pause_id, request).await.map_err(|e| ToolError::from(e).with("pause_id", pause_id))?;
                    travelled(travel)
                })
            },
        ),
        ToolSpec::new(
            "checkpoint_create",
            Need::Debugger,
            "Takes a named checkpoint of a process at its current pause (`label`); named ones are never dropped by the cap.",
            object(json!({"process_id": {"type": "string"}, "label": {"type": "string"}}), &["process_id"]),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("process_id");
                    let label = a.str("label").map(str::to_string);
                    let checkpoint = d.checkpoints().create_checkpoint(id, label).await.map_err(|e| ToolError::from(e).with("process_id", id))?;
                    let text = format!("checkpoint {}", checkpoint.id);
                    Done::new(checkpoint, text)
                })
            },
        ),
        ToolSpec::new(
            "checkpoint_rewind",
            Need::Debugger,
            "Rewinds a process to a checkpoint (`checkpoint_id`): it pauses there again; the live line is killed.",
            object(json!({"checkpoint_id": {"type": "string"}}), &["checkpoint_id"]),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("checkpoint_id");
                    travelled(d.checkpoints().rewind(id).await.map_err(|e| ToolError::from(e).with("checkpoint_id", id))?)
                })
            },
        ),
        ToolSpec::new(
            "checkpoint_branch",
            Need::Debugger,
            "Starts a branch at a checkpoint (`checkpoint_id`, branch `name`): it pauses there again; the line that was live stays paused on its branch.",
            object(json!({"checkpoint_id": {"type": "string"}, "name": {"type": "string"}}), &["checkpoint_id"]),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("checkpoint_id");
                    travelled(d.checkpoints().branch_at(id, a.str("name")).await.map_err(|e| ToolError::from(e).with("checkpoint_id", id))?)
                })
            },
        ),
        ToolSpec::new(
            "checkpoint_switch",
            Need::Debugger,
            "Moves a process's live line to another branch's newest pause (`branch`).",
            object(json!({"process_id": {"type": "string"}, "branch": {"type": "string"}}), &["process_id", "branch"]),
            |d, a| {
                Box::pin(async move {
                    let (id, branch) = (a.req("process_id"), a.req("branch"));
                    travelled(d.checkpoints().switch_branch(id, branch).await.map_err(|e| ToolError::from(e).with("branch", branch))?)
                })
            },
        ),
        ToolSpec::new(
            "checkpoint_timeline",
            Need::Viewer,
            "A process's checkpoints (the pause each was taken at, branch, memory pinned), branches and live position.",
            object(json!({"process_id": {"type": "string"}}), &["process_id"]),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("process_id");
                    let timeline = d.checkpoints().timeline(id).map_err(|e| ToolError::from(e).with("process_id", id))?;
                    let branches = timeline.branches.len();
                    let text = format!("{}, {branches} branch(es)", count(timeline.checkpoints.len(), "checkpoint"));
                    Done::new(timeline, text)
                })
            },
        ),
        ToolSpec::new(
            "checkpoint_diff",
            Need::Viewer,
            "Where two branches of a process (`a`, `b`) diverge: the calls recorded after the fork point in each, and their REPL transcripts.",
            object(
                json!({"process_id": {"type": "string"}, "a": {"type": "string"}, "b": {"type": "string"}}),
                &["process_id", "a", "b"],
            ),
            |d, a| {
                Box::pin(async move {
                    let id = a.req("process_id");
                    let diff = d.checkpoints().branch_diff(id, a.req("a"), a.req("b")).map_err(|e| ToolError::from(e).with("process_id", id))?;
                    Done::new(diff, "branches compared")
                })
            },
        ),
    ]
}
