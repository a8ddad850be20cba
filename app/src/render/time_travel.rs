//! Time travel in the pages (issue 20), all server-rendered and driven by plain forms posting to
//! server functions (they redirect back), so it costs no wasm: the Step back form of a paused
//! card and of the REPL page, a refused snapshot's reason, and `/process/{id}/timeline`, the
//! branches drawn as lanes in SVG with the checkpoints on them and the live position marked.

use std::fmt::Write;

use breakroom_debugger::checkpoints::model::{CheckpointStatus, PauseTravel, Timeline};

use super::esc;
use crate::format::timestamp;

/// A paused call's time-travel line: Step back when a checkpoint is before it, the refusal's
/// reason when its Continue will not snapshot. `repl`: the form on the REPL page (the answer
/// opens a REPL on the pause it goes back to).
pub fn pause_controls(pause_id: &str, travel: &PauseTravel, repl: bool) -> String {
    let mut out = String::new();
    if let Some(checkpoint) = &travel.checkpoint_before {
        let _ = write!(
            out,
            concat!(
                r#"<form class="inline step-back" method="post" action="/rpc/step_back_form">"#,
                r#"<input type="hidden" name="pause_id" value="{}"><input type="hidden" name="repl" value="{}">"#,
                r#"<button type="submit" title="Back to {} (the program's memory as it was then; files and sockets are not rewound)">Step back</button></form>"#
            ),
            esc(pause_id),
            if repl { "1" } else { "" },
            esc(checkpoint)
        );
    }
    if let Some(reason) = &travel.refusal {
        let _ = write!(out, r#"<p class="checkpoint-refused">No checkpoint at Continue: {}</p>"#, esc(reason));
    }
    out
}

const LANE: usize = 56;
const STEP: usize = 70;
const LEFT: usize = 120;

/// `/process/{id}/timeline`'s main part.
pub fn timeline(process_name: &str, t: &Timeline) -> String {
    let id = esc(&t.process_id);
    let mut out = String::new();
    let _ = write!(
        out,
        concat!(
            r#"<header class="page-header"><h1>Timeline · {name}</h1><nav class="links">"#,
            r#"<a class="button" href="/process/{id}">Process</a></nav></header>"#,
            r#"<p class="hint">{n} checkpoints, {mem} pinned (cap {cap} unnamed). {limits}</p>"#
        ),
        name = esc(process_name),
        id = id,
        n = t.checkpoints.len(),
        mem = mib(t.memory_bytes),
        cap = t.cap,
        limits = esc(&t.not_rewound)
    );
    if t.checkpoints.is_empty() && t.branches.is_empty() {
        out.push_str(concat!(
            r#"<section class="empty"><p>No checkpoints.</p><p class="hint">Run the program with "#,
            r#"<code>BREAKROOM_CHECKPOINTS=1</code>, <code>breakroom run --checkpoints</code> or "#,
            r#"<code>breakroom.checkpoints(True)</code>: each Continue then snapshots it.</p></section>"#
        ));
        return out;
    }
    svg(&mut out, t);
    table(&mut out, t);
    for r in &t.refusals {
        let _ = write!(
            out,
            r#"<p class="checkpoint-refused">Refused at pause {}: {}</p>"#,
            esc(&r.pause_id),
            esc(&r.reason)
        );
    }
    out
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
}

/// Branches as lanes (one row each), checkpoints as points in the order they were taken, a fork
/// drawn from its checkpoint down to its lane, the live position ringed. A point links to its row.
fn svg(out: &mut String, t: &Timeline) {
    let lane_of = |branch: &str| t.branches.iter().position(|b| b.name == branch).unwrap_or(0);
    let x_of = |i: usize| LEFT + STEP / 2 + i * STEP;
    let y_of = |lane: usize| 30 + lane * LANE;
    let width = LEFT + STEP * (t.checkpoints.len() + 1);
    let height = 20 + LANE * t.branches.len().max(1);
    let _ = write!(
        out,
        r#"<svg class="timeline" role="img" aria-label="branches and checkpoints" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    for (lane, branch) in t.branches.iter().enumerate() {
        let y = y_of(lane);
        let start =
            branch.fork_point.as_ref().and_then(|f| t.checkpoints.iter().position(|c| &c.id == f)).map_or(LEFT, x_of);
        let _ = write!(
            out,
            concat!(
                r#"<text x="8" y="{ty}" class="lane-name{live}">{name}</text>"#,
                r#"<line x1="{start}" y1="{y}" x2="{end}" y2="{y}" stroke="currentColor" stroke-opacity="0.35" stroke-width="3"/>"#
            ),
            ty = y + 5,
            live = if branch.live { " live" } else { "" },
            name = esc(&branch.name),
            start = start,
            y = y,
            end = width - 10
        );
        if let Some(fork) = branch.fork_point.as_ref().and_then(|f| t.checkpoints.iter().find(|c| &c.id == f)) {
            let _ = write!(
                out,
                r#"<line x1="{start}" y1="{}" x2="{start}" y2="{y}" stroke="currentColor" stroke-dasharray="4 3"/>"#,
                y_of(lane_of(&fork.branch))
            );
        }
    }
    let live = t.live.as_ref();
    for (i, cp) in t.checkpoints.iter().enumerate() {
        let (x, y) = (x_of(i), y_of(lane_of(&cp.branch)));
        let fill = match cp.status {
            CheckpointStatus::Held if cp.named => "#2f7de1",
            CheckpointStatus::Held => "#3a9d5d",
            _ => "#999",
        };
        let _ = write!(
            out,
            concat!(
                r##"<a href="#{id}"><circle cx="{x}" cy="{y}" r="9" fill="{fill}"><title>{label} ({id}) at {fun}</title></circle></a>"##,
                r#"<text x="{x}" y="{ty}" text-anchor="middle" class="cp-id">{id}</text>"#
            ),
            id = esc(&cp.id),
            x = x,
            y = y,
            fill = fill,
            label = esc(&cp.label),
            fun = esc(&cp.function_name),
            ty = y + 24
        );
        if live.is_some_and(|l| l.checkpoint.as_deref() == Some(cp.id.as_str()) && l.branch == cp.branch) {
            let _ = write!(
                out,
                r##"<circle class="live-mark" cx="{}" cy="{y}" r="8" fill="none" stroke="#e1742f" stroke-width="3"><title>live: after {}</title></circle>"##,
                x + STEP / 2,
                esc(&cp.id)
            );
        }
    }
    if let Some(l) = live.filter(|l| l.checkpoint.is_none()) {
        let _ = write!(
            out,
            r##"<circle class="live-mark" cx="{LEFT}" cy="{}" r="8" fill="none" stroke="#e1742f" stroke-width="3"><title>live</title></circle>"##,
            y_of(lane_of(&l.branch))
        );
    }
    out.push_str("</svg>");
}

/// One row per checkpoint, with Rewind and Branch.
fn table(out: &mut String, t: &Timeline) {
    out.push_str(concat!(
        r#"<table class="checkpoints"><thead><tr><th>checkpoint</th><th>label</th><th>branch</th><th>call</th>"#,
        r#"<th>taken</th><th>memory pinned</th><th></th></tr></thead><tbody>"#
    ));
    for cp in &t.checkpoints {
        let id = esc(&cp.id);
        let _ = write!(
            out,
            r#"<tr id="{id}"><td class="mono">{id}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>"#,
            esc(&cp.label),
            esc(&cp.branch),
            esc(&cp.function_name),
            timestamp(cp.taken_at),
            cp.memory_bytes.map(mib).unwrap_or_else(|| "—".into())
        );
        if cp.status == CheckpointStatus::Held {
            let _ = write!(
                out,
                concat!(
                    r#"<form class="inline" method="post" action="/rpc/rewind_form"><input type="hidden" name="checkpoint_id" value="{id}">"#,
                    r#"<button type="submit" class="danger" title="The live line is killed">Rewind</button></form>"#,
                    r#"<form class="inline" method="post" action="/rpc/branch_form"><input type="hidden" name="checkpoint_id" value="{id}">"#,
                    r#"<input type="text" name="name" size="10" placeholder="branch name" aria-label="Branch name">"#,
                    r#"<button type="submit" title="The live line stays paused">Branch</button></form>"#
                ),
                id = id
            );
        } else {
            let _ = write!(out, "{}", format!("{:?}", cp.status).to_lowercase());
        }
        out.push_str("</td></tr>");
    }
    out.push_str("</tbody></table><h2>Branches</h2><ul class=\"branches\">");
    for b in &t.branches {
        let state = if b.live {
            " (live)"
        } else if b.kept_pause.is_some() {
            " (kept paused)"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<li><b>{}</b> from {}{state}",
            esc(&b.name),
            esc(b.fork_point.as_deref().unwrap_or("the start"))
        );
        if !b.live {
            let _ = write!(
                out,
                concat!(
                    r#" <form class="inline" method="post" action="/rpc/switch_form"><input type="hidden" name="process_id" value="{}">"#,
                    r#"<input type="hidden" name="branch" value="{}"><button type="submit">Switch</button></form>"#
                ),
                esc(&t.process_id),
                esc(&b.name)
            );
        }
        out.push_str("</li>");
    }
    out.push_str("</ul>");
}
