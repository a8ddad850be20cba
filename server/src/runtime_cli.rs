//! `breakroom runtime exec | state | reset | history | list | stop`: the command line's door to
//! a running server's runtimes (issue 19). The server is found as `breakroom run` finds it.

use std::io::{Read, Write};

use breakroom_debugger::runtimes::{
    ExecRequest, ExecResult, HistoryPage, RuntimeState, WorkspaceList, WorkspaceSummary,
};
use reqwest::Method;

use crate::process_cli::Server;

#[derive(clap::Args, Debug)]
pub struct RuntimeArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// Run a command in WORKSPACE's bash (or --python); prints its output, exits with its code.
    Exec {
        workspace: String,
        /// Run it in the workspace's Python instead of bash.
        #[arg(long)]
        python: bool,
        /// Interrupt it after this many milliseconds (default 30,000).
        #[arg(long, value_name = "MS")]
        timeout: Option<u64>,
        /// The command, after `--`; read from stdin when absent.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Print what WORKSPACE's processes hold (env, cwd, imports, definitions) as JSON.
    State { workspace: String },
    /// End WORKSPACE's processes; the next command starts fresh ones.
    Reset { workspace: String },
    /// Print WORKSPACE's recent commands, oldest first.
    History {
        workspace: String,
        #[arg(long, default_value_t = 20)]
        limit: u64,
    },
    /// List live workspaces.
    List,
    /// End WORKSPACE: `exit`, then SIGTERM, then SIGKILL after 2 s.
    Stop { workspace: String },
}

/// A workspace name as a path segment (a bad one is the server's to refuse, by name).
fn segment(workspace: &str) -> String {
    workspace
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"._-".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

pub async fn run(args: &RuntimeArgs) -> Result<i32, String> {
    let server = Server::find()?;
    match &args.action {
        Action::Exec { workspace, python, timeout, command } => {
            let command = if command.is_empty() {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| format!("cannot read the command from stdin: {e}"))?;
                text
            } else {
                command.join(" ")
            };
            let req = ExecRequest {
                command: Some(command),
                language: Some(if *python { "python" } else { "bash" }.into()),
                timeout_ms: *timeout,
                idle_timeout_s: None,
            };
            let path = format!("/api/runtimes/{}/exec", segment(workspace));
            let result: ExecResult = server.call(server.request(Method::POST, &path).json(&req)).await?;
            print!("{}", result.stdout);
            let _ = std::io::stdout().flush();
            eprint!("{}", result.stderr);
            if let Some(notice) = &result.notice {
                eprintln!("breakroom: {notice}");
            }
            if result.timed_out {
                eprintln!("breakroom: interrupted after {} ms", timeout.unwrap_or(30_000));
            }
            Ok(result.exit_code.unwrap_or(1))
        }
        Action::State { workspace } => {
            let state: RuntimeState = server.get(&format!("/api/runtimes/{}/state", segment(workspace))).await?;
            println!("{}", serde_json::to_string_pretty(&state).map_err(|e| e.to_string())?);
            Ok(0)
        }
        Action::Reset { workspace } => {
            let path = format!("/api/runtimes/{}/reset", segment(workspace));
            let _: WorkspaceSummary = server.call(server.request(Method::POST, &path)).await?;
            println!("{workspace}: reset (the next command starts fresh processes)");
            Ok(0)
        }
        Action::History { workspace, limit } => {
            let page: HistoryPage =
                server.get(&format!("/api/runtimes/{}/history?limit={limit}", segment(workspace))).await?;
            println!("{:<8} {:<6} {:>9} {:>5}  COMMAND", "TIME", "LANG", "MS", "EXIT");
            for h in page.history {
                let exit = match (h.timed_out, h.exit_code) {
                    (true, _) => "t/o".to_string(),
                    (_, Some(code)) => code.to_string(),
                    (_, None) => "died".to_string(),
                };
                let first_line = h.command.lines().next().unwrap_or("");
                let secs = h.timestamp as u64 % 86_400;
                println!(
                    "{:02}:{:02}:{:02} {:<6} {:>9.1} {:>5}  {first_line}",
                    secs / 3600,
                    secs / 60 % 60,
                    secs % 60,
                    h.language.as_str(),
                    h.duration_ms,
                    exit
                );
            }
            Ok(0)
        }
        Action::List => {
            let list: WorkspaceList = server.get("/api/runtimes").await?;
            println!("{:<24} {:>8} {:>8} {:>8} {:>10}", "WORKSPACE", "BASH", "PYTHON", "COMMANDS", "ENDS IN");
            let pid = |p: Option<i64>| p.map(|p| p.to_string()).unwrap_or_else(|| "-".into());
            for w in list.workspaces {
                println!(
                    "{:<24} {:>8} {:>8} {:>8} {:>9.0}s",
                    w.workspace,
                    pid(w.bash_pid),
                    pid(w.python_pid),
                    w.commands,
                    w.ends_in_s
                );
            }
            Ok(0)
        }
        Action::Stop { workspace } => {
            let path = format!("/api/runtimes/{}", segment(workspace));
            let _: WorkspaceSummary = server.call(server.request(Method::DELETE, &path)).await?;
            println!("{workspace}: stopped");
            Ok(0)
        }
    }
}
