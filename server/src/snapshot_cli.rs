//! `breakroom snapshot add | list | show`: snapshot breakpoints from the command line (issue 34),
//! through the running server's REST API, found as `breakroom ps` finds it.

use breakroom_debugger::breakpoints::policy::{parse_duration, BreakpointAction, PolicyChanges};
use breakroom_debugger::breakpoints::record::{BreakpointOptions, BreakpointRecord, BreakpointSpec};
use breakroom_debugger::snapshots::{CapturedVariable, Snapshot, SnapshotSummary};
use serde_json::Value;

use crate::process_cli::Server;

#[derive(clap::Subcommand, Debug)]
pub enum SnapshotCommand {
    /// A snapshot breakpoint at FILE:LINE: the program never pauses there.
    Add(AddArgs),
    /// Snapshots taken, newest first (--breakpoint bp-N: only its own).
    List {
        #[arg(long)]
        breakpoint: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// One snapshot: its stack, the captured locals and the watch expressions.
    Show { id: String },
}

#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// FILE:LINE.
    place: String,
    /// A watch expression (read-only Python), evaluated at the hit. Repeatable.
    #[arg(long = "expr", value_name = "EXPR")]
    expressions: Vec<String>,
    /// K=V: arm only in processes with this label. Repeatable.
    #[arg(long = "where", value_name = "K=V")]
    where_labels: Vec<String>,
    /// Snapshots kept before it completes (default 1, at most 1000).
    #[arg(long)]
    hits: Option<u64>,
    /// When it stops: 90s, 30m, 1h, 2d (default 24h).
    #[arg(long)]
    expires: Option<String>,
    /// A read-only Python condition: capture only when it is true.
    #[arg(long)]
    condition: Option<String>,
    /// Captures per second in each process, at most.
    #[arg(long)]
    rate: Option<f64>,
}

/// The `POST /api/breakpoints` body, or what is wrong with the arguments.
pub fn add_spec(args: &AddArgs) -> Result<BreakpointSpec, String> {
    let Some((file, line)) = args.place.rsplit_once(':') else {
        return Err(format!("{:?}: expected FILE:LINE", args.place));
    };
    let line: u32 = line.parse().map_err(|_| format!("{:?}: the line must be a number", args.place))?;
    // A file given relative to here means this file to a program started elsewhere too.
    let file = std::fs::canonicalize(file).map(|p| p.display().to_string()).unwrap_or_else(|_| file.to_string());
    let mut labels = std::collections::BTreeMap::new();
    for pair in &args.where_labels {
        let (k, v) = pair.split_once('=').ok_or_else(|| format!("--where {pair:?}: expected K=V"))?;
        labels.insert(k.to_string(), v.to_string());
    }
    let expires_in = match &args.expires {
        Some(text) => Some(Some(
            parse_duration(text).ok_or_else(|| format!("--expires {text:?}: expected seconds or 90s, 30m, 1h, 2d"))?,
        )),
        None => None,
    };
    let policy = PolicyChanges {
        action: Some(Some(BreakpointAction::Snapshot)),
        expressions: (!args.expressions.is_empty()).then(|| args.expressions.clone()),
        where_labels: (!labels.is_empty()).then_some(labels),
        max_hits: args.hits.map(Some),
        expires_in,
        max_per_second: args.rate.map(Some),
        ..Default::default()
    };
    let options = BreakpointOptions { condition: args.condition.clone().map(Some), policy, ..Default::default() };
    Ok(BreakpointSpec::line(file, line).with(options))
}

pub async fn run(command: &SnapshotCommand) -> Result<i32, String> {
    let server = Server::find()?;
    match command {
        SnapshotCommand::Add(args) => {
            let body = add_spec(args)?;
            let saved: BreakpointRecord =
                server.call(server.request(reqwest::Method::POST, "/api/breakpoints").json(&body)).await?;
            println!("added {}", describe_breakpoint(&saved));
        }
        SnapshotCommand::List { breakpoint, limit } => {
            let mut path = format!("/api/snapshots?limit={limit}");
            if let Some(id) = breakpoint {
                path.push_str(&format!("&breakpoint_id={}", urlencoding(id)));
            }
            let list: Value = server.call(server.request(reqwest::Method::GET, &path)).await?;
            let items: Vec<SnapshotSummary> = serde_json::from_value(list["snapshots"].clone())
                .map_err(|e| format!("the server answered an unexpected list: {e}"))?;
            if items.is_empty() {
                println!("no snapshots");
            }
            for s in items {
                println!("{}", describe_summary(&s));
            }
        }
        SnapshotCommand::Show { id } => {
            let snapshot: Snapshot = server
                .call(server.request(reqwest::Method::GET, &format!("/api/snapshots/{}", urlencoding(id))))
                .await?;
            print!("{}", show(&snapshot));
        }
    }
    Ok(0)
}

fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn describe_breakpoint(r: &BreakpointRecord) -> String {
    let mut line = format!("{} snapshot {}", r.id, r.location());
    if !r.expressions.is_empty() {
        line.push_str(&format!("  watch {}", r.expressions.join("; ")));
    }
    if !r.limits.where_labels.is_empty() {
        let labels: Vec<String> = r.limits.where_labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        line.push_str(&format!("  where {}", labels.join(",")));
    }
    if let Some(n) = r.limits.max_hits {
        line.push_str(&format!("  max hits {n}"));
    }
    line
}

fn describe_summary(s: &SnapshotSummary) -> String {
    let place = format!(
        "{}:{} {}",
        s.file.as_deref().unwrap_or("?"),
        s.line.unwrap_or(0),
        s.function.as_deref().unwrap_or("?")
    );
    let mut line = format!("{:<10} {:<6} {}  {}", s.snapshot_id, s.breakpoint_id, s.process_key, place);
    for (expression, value) in &s.expressions {
        line.push_str(&format!("  {expression} = {value}"));
    }
    if s.truncated {
        line.push_str("  (truncated)");
    }
    line
}

/// A snapshot as text: where, the expressions, then each frame and its locals as a tree.
pub fn show(s: &Snapshot) -> String {
    let mut out = format!("{} of {} in {}", s.snapshot_id, s.breakpoint_id, s.process_key);
    if let Some(ms) = s.capture_ms {
        out.push_str(&format!(" (took {ms:.2} ms)"));
    }
    out.push('\n');
    for w in &s.expressions {
        let value = match (&w.value, &w.error) {
            (_, Some(error)) => format!("error: {error}"),
            (Some(v), None) => v.repr.clone(),
            (None, None) => String::new(),
        };
        out.push_str(&format!("  {} = {value}\n", w.expression));
    }
    for frame in &s.frames {
        out.push_str(&format!("{}:{} in {}\n", frame.file, frame.line, frame.function));
        for variable in frame.locals.iter().flatten() {
            tree(&mut out, variable, 2);
        }
    }
    if s.truncated {
        out.push_str("(truncated: the capture limits left some values out)\n");
    }
    out
}

fn tree(out: &mut String, variable: &CapturedVariable, indent: usize) {
    let v = &variable.value;
    let shown = v.error.as_deref().map_or_else(|| v.repr.clone(), |e| format!("<{e}>"));
    out.push_str(&format!("{:indent$}{}: {} = {shown}\n", "", variable.name, v.type_name));
    for child in &v.children {
        tree(out, child, indent + 2);
    }
    if let Some(length) = v.length.filter(|n| *n as usize > v.children.len() && !v.children.is_empty()) {
        out.push_str(&format!("{:indent$}  … {} more\n", "", length as usize - v.children.len()));
    }
}
