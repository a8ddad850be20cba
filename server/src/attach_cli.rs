//! `breakroom attach PID`: puts the Python client into a running program through the running
//! server (issue 33); `breakroom attach --list` shows the Python processes one could attach to.

use breakroom_debugger::attach::local::LocalPythonProcesses;
use breakroom_debugger::attach::Attached;
use serde_json::json;

use crate::process_cli::Server;

#[derive(clap::Args, Debug)]
pub struct AttachArgs {
    /// The pid of a running Python 3.11+ process on the server's machine.
    #[arg(required_unless_present = "list")]
    pid: Option<i64>,
    /// Seconds to wait for the client to call in.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Do not debug the processes it starts.
    #[arg(long)]
    no_children: bool,
    /// List the Python processes of the server's machine instead, and whether each can be attached.
    #[arg(long)]
    list: bool,
}

pub async fn run(args: &AttachArgs) -> Result<i32, String> {
    let server = Server::find()?;
    if args.list {
        let listed: LocalPythonProcesses = server.get("/api/local-processes").await?;
        for p in &listed.processes {
            let version = p.version.as_deref().unwrap_or("?");
            let state = match (&p.process_id, &p.why_not) {
                (Some(id), _) => format!("debugged: {}/process/{id}", server.base),
                (None, Some(why)) => format!("cannot attach: {why}"),
                (None, None) => "attachable".to_string(),
            };
            println!("{:>7}  {:<10} {:<8} {}\n         {state}", p.pid, p.user, version, p.argv.join(" "));
        }
        return Ok(0);
    }
    let pid = args.pid.ok_or("a pid is needed (or --list)")?;
    let body = json!({"pid": pid, "follow_children": !args.no_children, "timeout_s": args.timeout});
    let attached: Attached =
        server.call(server.request(reqwest::Method::POST, "/api/processes/attach").json(&body)).await?;
    println!(
        "attached to {pid} (Python {}, {}) in {:.0} ms: {}/process/{}",
        attached.python,
        attached.method.as_str(),
        attached.seconds * 1000.0,
        server.base,
        attached.process_id
    );
    Ok(0)
}
