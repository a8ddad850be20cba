//! Time travel in the pages (issue 20), all server-rendered with forms posting to server
//! functions: the Step back form of a paused card and of the REPL page, a refused snapshot's
//! reason, and `/process/{id}/timeline`, the branches drawn as lanes in SVG with the checkpoints
//! on them and the live position marked. The timeline page (`crate::pages::timeline`) sends its
//! forms' fields to the same server functions itself and refetches; without wasm they still post.

use maud::{html, Markup};

use breakroom_debugger::checkpoints::model::{CheckpointStatus, PauseTravel, Timeline};

use crate::controls::Control;
use crate::format::timestamp;

/// A paused call's time-travel line: Step back when a checkpoint is before it, the refusal's
/// reason when its Continue will not snapshot; nothing without `travel`. `repl_session`: the form
/// is on that REPL session's page (the answer goes to the session, which follows the program back).
pub fn pause_controls(pause_id: &str, travel: Option<&PauseTravel>, repl_session: Option<&str>) -> Markup {
    let Some(travel) = travel else { return html! {} };
    html! {
        @if let Some(checkpoint) = &travel.checkpoint_before {
            form.inline.step-back method="post" action="/rpc/step_back_form" {
                input type="hidden" name="pause_id" value=(pause_id);
                input type="hidden" name="repl" value=(repl_session.unwrap_or_default());
                button type="submit" title={ "Back to " (checkpoint) " (the program's memory as it was then; files and sockets are not rewound)" } { "Step back" }
            }
        }
        @if let Some(reason) = &travel.refusal {
            p.checkpoint-refused { "No checkpoint at Continue: " (reason) }
        }
    }
}

const LANE: usize = 56;
const STEP: usize = 70;
const LEFT: usize = 120;

/// `/process/{id}/timeline`'s content, titled.
/// `keys`: the keys the process's calls carry, one per line (the page follows their pauses).
pub fn timeline_page(process_name: &str, t: &Timeline, keys: &[String]) -> String {
    super::titled(timeline(process_name, t, keys), &format!("Timeline · {process_name}"))
}

/// `/process/{id}/timeline`'s main part.
fn timeline(process_name: &str, t: &Timeline, keys: &[String]) -> Markup {
    html! {
        header.page-header.timeline-header data-process-keys=(keys.join(" ")) {
            h1 { "Timeline · " (process_name) }
            nav.links { a.button href={ "/process/" (t.process_id) } { "Process" } }
        }
        p.hint {
            (t.checkpoints.len()) " checkpoints, " (mib(t.memory_bytes)) " pinned (cap " (t.cap) " unnamed). " (t.not_rewound)
        }
        @if t.checkpoints.is_empty() && t.branches.is_empty() {
            section.empty {
                p { "No checkpoints." }
                p.hint {
                    "Run the program with " code { "BREAKROOM_CHECKPOINTS=1" } ", " code { "breakroom run --checkpoints" }
                    " or " code { "breakroom.checkpoints(True)" } ": each Continue then snapshots it."
                }
            }
        } @else {
            (svg(t))
            (table(t))
            @for r in &t.refusals {
                p.checkpoint-refused { "Refused at pause " (r.pause_id) ": " (r.reason) }
            }
        }
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
}

/// Branches as lanes (one row each), checkpoints as points in the order they were taken, a fork
/// drawn from its checkpoint down to its lane, the live position ringed. A point links to its row.
/// SVG elements are closed explicitly (`<line …></line>`): the HTML parser does not close them.
fn svg(t: &Timeline) -> Markup {
    let lane_of = |branch: &str| t.branches.iter().position(|b| b.name == branch).unwrap_or(0);
    let x_of = |i: usize| LEFT + STEP / 2 + i * STEP;
    let y_of = |lane: usize| 30 + lane * LANE;
    let width = LEFT + STEP * (t.checkpoints.len() + 1);
    let height = 20 + LANE * t.branches.len().max(1);
    let live = t.live.as_ref();
    html! {
        svg.timeline role="img" aria-label="branches and checkpoints" width=(width) height=(height)
            viewBox={ "0 0 " (width) " " (height) } {
            @for (lane, branch) in t.branches.iter().enumerate() {
                @let y = y_of(lane);
                @let start = branch.fork_point.as_ref().and_then(|f| t.checkpoints.iter().position(|c| &c.id == f)).map_or(LEFT, x_of);
                text x="8" y=(y + 5) class={ "lane-name" @if branch.live { " live" } } { (branch.name) }
                line x1=(start) y1=(y) x2=(width - 10) y2=(y) stroke="currentColor" stroke-opacity="0.35" stroke-width="3" {}
                @if let Some(fork) = branch.fork_point.as_ref().and_then(|f| t.checkpoints.iter().find(|c| &c.id == f)) {
                    line x1=(start) y1=(y_of(lane_of(&fork.branch))) x2=(start) y2=(y) stroke="currentColor" stroke-dasharray="4 3" {}
                }
            }
            @for (i, cp) in t.checkpoints.iter().enumerate() {
                @let (x, y) = (x_of(i), y_of(lane_of(&cp.branch)));
                @let fill = match cp.status {
                    CheckpointStatus::Held if cp.named => "#2f7de1",
                    CheckpointStatus::Held => "#3a9d5d",
                    _ => "#999",
                };
                a href={ "#" (cp.id) } {
                    circle cx=(x) cy=(y) r="9" fill=(fill) {
                        title { (cp.label) " (" (cp.id) ") at " (cp.function_name) }
                    }
                }
                text x=(x) y=(y + 24) text-anchor="middle" class="cp-id" { (cp.id) }
                @if live.is_some_and(|l| l.checkpoint.as_deref() == Some(cp.id.as_str()) && l.branch == cp.branch) {
                    circle.live-mark cx=(x + STEP / 2) cy=(y) r="8" fill="none" stroke="#e1742f" stroke-width="3" {
                        title { "live: after " (cp.id) }
                    }
                }
            }
            @if let Some(l) = live.filter(|l| l.checkpoint.is_none()) {
                circle.live-mark cx=(LEFT) cy=(y_of(lane_of(&l.branch))) r="8" fill="none" stroke="#e1742f" stroke-width="3" {
                    title { "live" }
                }
            }
        }
    }
}

/// One row per checkpoint, with Rewind and Branch; then the branches, with Switch.
fn table(t: &Timeline) -> Markup {
    html! {
        table.checkpoints {
            thead { tr {
                th { "checkpoint" } th { "label" } th { "branch" } th { "call" } th { "taken" } th { "memory pinned" } th {}
            } }
            tbody {
                @for cp in &t.checkpoints {
                    tr id=(cp.id) {
                        td.mono { (cp.id) }
                        td { (cp.label) }
                        td { (cp.branch) }
                        td { (cp.function_name) }
                        td { (timestamp(cp.taken_at)) }
                        td { (cp.memory_bytes.map(mib).unwrap_or_else(|| "—".into())) }
                        td {
                            @if cp.status == CheckpointStatus::Held {
                                form.inline method="post" action="/rpc/rewind_form" data-action=(Control::Rewind.as_str()) {
                                    input type="hidden" name="checkpoint_id" value=(cp.id);
                                    button.danger type="submit" title="The live line is killed" { "Rewind" }
                                }
                                form.inline method="post" action="/rpc/branch_form" data-action=(Control::Branch.as_str()) {
                                    input type="hidden" name="checkpoint_id" value=(cp.id);
                                    input type="text" name="name" size="10" placeholder="branch name" aria-label="Branch name";
                                    button type="submit" title="The live line stays paused" { "Branch" }
                                }
                            } @else {
                                (format!("{:?}", cp.status).to_lowercase())
                            }
                        }
                    }
                }
            }
        }
        h2 { "Branches" }
        ul.branches {
            @for b in &t.branches {
                @let state = if b.live { " (live)" } else if b.kept_pause.is_some() { " (kept paused)" } else { "" };
                li {
                    b { (b.name) } " from " (b.fork_point.as_deref().unwrap_or("the start")) (state)
                    @if !b.live {
                        " "
                        form.inline method="post" action="/rpc/switch_form" data-action=(Control::SwitchBranch.as_str()) {
                            input type="hidden" name="process_id" value=(t.process_id);
                            input type="hidden" name="branch" value=(b.name);
                            button type="submit" { "Switch" }
                        }
                    }
                }
            }
        }
    }
}
