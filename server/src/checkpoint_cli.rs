//! `breakroom checkpoint create [LABEL] | list`, `rewind`, `branch`, `switch`, `diff`,
//! `timeline` (issue 20): the command line's door to time travel, on
//! `--process ID` or else the newest process that has checkpoints.

use breakroom_debugger::checkpoints::model::{BranchDiff, Checkpoint, CheckpointStatus, Timeline, Travel};
use serde_json::{json, Value};

use crate::process_cli::Server;

#[derive(clap::Args, Debug)]
pub struct Target {
    /// The process (`breakroom ps` lists them); default: the newest one with checkpoints.
    #[arg(long = "process", value_name = "ID", global = true)]
    process: Option<String>,
}

#[derive(clap::Subcommand, Debug)]
pub enum CheckpointAction {
    /// Fork a checkpoint of the paused process now, named LABEL (named ones are never dropped for the cap).
    Create { label: Option<String> },
    /// Every checkpoint of the process.
    List,
}

#[derive(clap::Subcommand, Debug)]
pub enum TimeTravel {
    /// Take or list checkpoints.
    Checkpoint {
        #[command(subcommand)]
        action: CheckpointAction,
        #[command(flatten)]
        target: Target,
    },
    /// Back to CHECKPOINT: the live line is killed, the checkpoint's call pauses again.
    Rewind { checkpoint: String },
    /// `branch CHECKPOINT NAME`: a new branch from CHECKPOINT (the live line stays paused);
    /// `branch list`: the branches.
    Branch {
        /// `list`, or CHECKPOINT NAME.
        #[arg(num_args = 1..=2, value_name = "CHECKPOINT NAME | list")]
        args: Vec<String>,
        #[command(flatten)]
        target: Target,
    },
    /// The live line moves to BRANCH's newest pause.
    Switch {
        branch: String,
        #[command(flatten)]
        target: Target,
    },
    /// Where branches A and B part, and what each recorded after.
    Diff {
        a: String,
        b: String,
        #[command(flatten)]
        target: Target,
    },
    /// Branches as lanes, checkpoints on them, the live position marked.
    Timeline {
        #[command(flatten)]
        target: Target,
    },
}

/// The process named, or the newest one whose timeline has checkpoints.
async fn process(server: &Server, target: &Target) -> Result<String, String> {
    if let Some(id) = &target.process {
        return Ok(id.clone());
    }
    let newest: Value = server.get("/api/checkpoints/newest-process").await?;
    newest["process_id"].as_str().map(str::to_string).ok_or_else(|| format!("unexpected answer: {newest}"))
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or("-".into(), |b| format!("{:.1} MiB", b as f64 / 1_048_576.0))
}

fn describe_checkpoint(cp: &Checkpoint) -> String {
    format!(
        "{:<6} {:<8} {:<10} {:<24} pause {}  {}  pid {}  {}",
        cp.id,
        format!("{:?}", cp.status).to_lowercase(),
        cp.branch,
        cp.label,
        cp.pause_id,
        cp.function_name,
        cp.pid,
        mib(cp.memory_bytes)
    )
}

fn describe_travel(what: &str, travel: &Travel) -> String {
    let left = match (travel.abandoned_pid, travel.abandoned_kept) {
        (Some(pid), true) => format!("; line {pid} kept paused"),
        (Some(pid), false) => format!("; line {pid} killed"),
        (None, _) => String::new(),
    };
    format!(
        "{what} {} on branch {}: paused again as {} (pid {}){left}",
        travel.checkpoint_id.as_deref().unwrap_or("-"),
        travel.branch,
        travel.pause_id,
        travel.pid
    )
}

/// The timeline as text: one lane per branch, its checkpoints in order, `*` at the live one.
pub fn render_timeline(timeline: &Timeline) -> String {
    let mut out = vec![format!(
        "process {}: {} checkpoints, {} pinned (cap {})",
        timeline.process_id,
        timeline.checkpoints.len(),
        mib(Some(timeline.memory_bytes)),
        timeline.cap
    )];
    for branch in &timeline.branches {
        let live = timeline.live.as_ref().filter(|l| l.branch == branch.name);
        let points: Vec<String> = timeline
            .checkpoints
            .iter()
            .filter(|c| c.branch == branch.name)
            .map(|c| {
                let here = live.is_some_and(|l| l.checkpoint.as_deref() == Some(c.id.as_str()));
                format!(
                    "{}{}{}",
                    c.id,
                    if c.status == CheckpointStatus::Held { "" } else { "(gone)" },
                    if here { "*" } else { "" }
                )
            })
            .collect();
        let from = branch.fork_point.as_ref().map(|f| format!(" (from {f})")).unwrap_or_default();
        let state = if live.is_some() {
            " [live]"
        } else if branch.kept_pause.is_some() {
            " [kept paused]"
        } else {
            ""
        };
        out.push(format!("{:<12}{from}{state}: {}", branch.name, points.join(" -- ")));
    }
    for refusal in &timeline.refusals {
        out.push(format!("refused at pause {}: {}", refusal.pause_id, refusal.reason));
    }
    out.push(timeline.not_rewound.clone());
    out.join("\n")
}

pub async fn run(command: &TimeTravel) -> Result<i32, String> {
    let server = Server::find()?;
    let post = |path: String, body: serde_json::Value| server.request(reqwest::Method::POST, &path).json(&body);
    match command {
        TimeTravel::Checkpoint { action: CheckpointAction::Create { label }, target } => {
            let id = process(&server, target).await?;
            let cp: Checkpoint =
                server.call(post(format!("/api/processes/{id}/checkpoints"), json!({"label": label}))).await?;
            println!("{}", describe_checkpoint(&cp));
        }
        TimeTravel::Checkpoint { action: CheckpointAction::List, target } => {
            let id = process(&server, target).await?;
            let timeline: Timeline = server.get(&format!("/api/processes/{id}/timeline")).await?;
            if timeline.checkpoints.is_empty() {
                println!("process {id} has no checkpoints");
            }
            timeline.checkpoints.iter().for_each(|cp| println!("{}", describe_checkpoint(cp)));
        }
        TimeTravel::Rewind { checkpoint } => {
            let travel: Travel = server.call(post(format!("/api/checkpoints/{checkpoint}/rewind"), json!({}))).await?;
            println!("{}", describe_travel("rewound to", &travel));
        }
        TimeTravel::Branch { args, target } => match args.as_slice() {
            [list] if list == "list" => {
                let id = process(&server, target).await?;
                let timeline: Timeline = server.get(&format!("/api/processes/{id}/timeline")).await?;
                for b in &timeline.branches {
                    let from = b.fork_point.as_deref().unwrap_or("-");
                    let state = if b.live {
                        "live"
                    } else if b.kept_pause.is_some() {
                        "kept paused"
                    } else {
                        ""
                    };
                    println!("{:<16} from {from:<6} {state}", b.name);
                }
            }
            [checkpoint, name] => {
                let travel: Travel =
                    server.call(post(format!("/api/checkpoints/{checkpoint}/branch"), json!({"name": name}))).await?;
                println!("{}", describe_travel("branched at", &travel));
            }
            _ => return Err("usage: breakroom branch CHECKPOINT NAME | breakroom branch list".into()),
        },
        TimeTravel::Switch { branch, target } => {
            let id = process(&server, target).await?;
            let travel: Travel =
                server.call(post(format!("/api/processes/{id}/branches/{branch}/switch"), json!({}))).await?;
            println!("{}", describe_travel("switched to", &travel));
        }
        TimeTravel::Diff { a, b, target } => {
            let id = process(&server, target).await?;
            let diff: BranchDiff = server.get(&format!("/api/processes/{id}/branches/diff?a={a}&b={b}")).await?;
            println!("fork point: {}", diff.fork_point.as_deref().unwrap_or("(start)"));
            for side in [&diff.a, &diff.b] {
                println!("== {} ==", side.branch);
                for call in &side.calls {
                    let args: Vec<String> =
                        call.args.iter().map(|a| a.as_str().map_or(a.to_string(), str::to_string)).collect();
                    println!("  {}({})", call.function_name, args.join(", "));
                }
                for entry in &side.transcript {
                    println!("  >>> {}\n  {}", entry.input, entry.output);
                }
            }
        }
        TimeTravel::Timeline { target } => {
            let id = process(&server, target).await?;
            let timeline: Timeline = server.get(&format!("/api/processes/{id}/timeline")).await?;
            println!("{}", render_timeline(&timeline));
        }
    }
    Ok(0)
}
