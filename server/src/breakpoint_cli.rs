//! `breakroom breakpoint add | list | remove | clear | enable | disable`: the command line's
//! door to the running server's breakpoints (issue 18), found as `breakroom ps` finds it.

use breakroom_debugger::breakpoints::record::{BreakpointOptions, BreakpointPatch, BreakpointRecord, BreakpointSpec};
use serde_json::{json, Value};

use crate::process_cli::Server;

#[derive(clap::Subcommand, Debug)]
pub enum BreakpointAction {
    /// `add function NAME`, `add line FILE:LINE`, `add error [TYPE…]`, with options.
    Add(AddArgs),
    /// Every breakpoint with its options and hit count.
    List,
    /// Remove one breakpoint by id (`bp-N`).
    Remove { id: String },
    /// Remove every breakpoint.
    Clear,
    /// Turn a breakpoint on.
    Enable { id: String },
    /// Turn a breakpoint off (it stays listed).
    Disable { id: String },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum KindArg {
    Function,
    Line,
    Error,
}

#[derive(clap::Args, Debug)]
pub struct AddArgs {
    kind: KindArg,
    /// function: NAME; line: FILE:LINE; error: exception types (none: any exception).
    targets: Vec<String>,
    /// A Python expression: pause only when it is true.
    #[arg(long)]
    condition: Option<String>,
    /// `5`, `>= 5`, `% 10`…: which hits pause.
    #[arg(long = "hit")]
    hit: Option<String>,
    /// A regex matched against the repr of the call's arguments.
    #[arg(long)]
    pattern: Option<String>,
    /// Log this message (with `{expr}` parts) instead of pausing.
    #[arg(long)]
    log: Option<String>,
    /// Add it turned off.
    #[arg(long)]
    disabled: bool,
}

/// The `POST /api/breakpoints` body of `breakroom breakpoint add …`, or what is wrong with it.
pub fn add_spec(args: &AddArgs) -> Result<BreakpointSpec, String> {
    let spec = match args.kind {
        KindArg::Function => {
            let [name] = args.targets.as_slice() else {
                return Err("usage: breakroom breakpoint add function NAME".into());
            };
            BreakpointSpec::function(name.clone())
        }
        KindArg::Line => {
            let [place] = args.targets.as_slice() else {
                return Err("usage: breakroom breakpoint add line FILE:LINE".into());
            };
            let Some((file, line)) = place.rsplit_once(':') else {
                return Err(format!("{place:?}: expected FILE:LINE"));
            };
            let line: u32 = line.parse().map_err(|_| format!("{place:?}: the line must be a number"))?;
            // A file given relative to here means this file to a program started elsewhere too.
            let file =
                std::fs::canonicalize(file).map(|p| p.display().to_string()).unwrap_or_else(|_| file.to_string());
            BreakpointSpec::line(file, line)
        }
        KindArg::Error => BreakpointSpec::error(args.targets.clone()),
    };
    let given = |value: &Option<String>| value.clone().map(Some);
    Ok(spec.with(BreakpointOptions {
        condition: given(&args.condition),
        hit_condition: given(&args.hit),
        pattern: given(&args.pattern),
        log_message: given(&args.log),
        enabled: Some(!args.disabled),
        ..Default::default()
    }))
}

/// One line per breakpoint: id, kind, where, options, hits.
pub fn describe(record: &BreakpointRecord) -> String {
    let mut line = format!("{:<6} {:<8} {}", record.id, record.kind.as_str(), record.location());
    let options = [
        ("if", &record.condition),
        ("hit", &record.hit_condition),
        ("pattern", &record.pattern),
        ("log", &record.log_message),
    ];
    for (name, value) in options {
        if let Some(value) = value {
            line.push_str(&format!("  {name} {value:?}"));
        }
    }
    if !record.enabled {
        line.push_str("  (disabled)");
    }
    line.push_str(&format!("  hits: {}", record.hit_count));
    if let Some(error) = record.last_hit.as_ref().and_then(|h| h.get("error")).and_then(Value::as_str) {
        line.push_str(&format!("  last condition error: {error}"));
    }
    line
}

pub async fn run(action: &BreakpointAction) -> Result<i32, String> {
    let server = Server::find()?;
    let patch = |id: &str, enabled: bool| {
        server
            .request(reqwest::Method::PATCH, &format!("/api/breakpoints/{id}"))
            .json(&BreakpointPatch::enabled(enabled))
    };
    match action {
        BreakpointAction::Add(args) => {
            let body = add_spec(args)?;
            let saved: BreakpointRecord =
                server.call(server.request(reqwest::Method::POST, "/api/breakpoints").json(&body)).await?;
            println!("added {}", describe(&saved));
        }
        BreakpointAction::List => {
            let list: Value = server.call(server.request(reqwest::Method::GET, "/api/breakpoints")).await?;
            let items: Vec<BreakpointRecord> = serde_json::from_value(list["items"].clone()).unwrap_or_default();
            if items.is_empty() {
                println!("no breakpoints");
            }
            for record in items {
                println!("{}", describe(&record));
            }
        }
        BreakpointAction::Remove { id } => {
            // Only ids here: the route also takes function names (cideldill), which would
            // answer 200 for a mistyped id.
            let list: Value = server.call(server.request(reqwest::Method::GET, "/api/breakpoints")).await?;
            let known = list["items"].as_array().is_some_and(|items| items.iter().any(|i| i["id"] == json!(id)));
            if !known {
                return Err(format!("no breakpoint {id} (breakroom breakpoint list shows them)"));
            }
            let _: Value =
                server.call(server.request(reqwest::Method::DELETE, &format!("/api/breakpoints/{id}"))).await?;
            println!("removed {id}");
        }
        BreakpointAction::Clear => {
            let cleared: Value = server.call(server.request(reqwest::Method::DELETE, "/api/breakpoints")).await?;
            println!("removed {} breakpoints", cleared["removed"]);
        }
        BreakpointAction::Enable { id } | BreakpointAction::Disable { id } => {
            let enabled = matches!(action, BreakpointAction::Enable { .. });
            let saved: BreakpointRecord = server.call(patch(id, enabled)).await?;
            println!("{}", describe(&saved));
        }
    }
    Ok(0)
}
