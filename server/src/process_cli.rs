//! `breakroom run | ps | logs | stop`: the command line's door to a running server's processes.
//! The server is found as the Python client finds it: `BREAKROOM_URL`, else the port file the
//! server writes (docs/src/protocol.md §2), else http://127.0.0.1:5174. `BREAKROOM_TOKEN` is sent when set.
//! An https:// server is verified against the system's roots, or against `BREAKROOM_CA_FILE`.

use std::io::Write;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use breakroom_debugger::model::LiveEvent;
use breakroom_debugger::processes::{
    LaunchRequest, OutputLine, OutputPage, OutputStream, ProcessDetail, ProcessList, TrackedProcess,
};
use serde_json::Value;

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Name shown in lists (default: the command).
    #[arg(long)]
    name: Option<String>,
    /// Working directory (default: this one).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// K=V added to the environment (which is otherwise this shell's). Repeatable.
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// Print the process's page and return at once instead of streaming its output.
    #[arg(long)]
    detach: bool,
    /// Time travel: each Continue snapshots the program (BREAKROOM_CHECKPOINTS=1), so
    /// `breakroom rewind` and Step back can return to it.
    #[arg(long)]
    checkpoints: bool,
    /// Do not debug the Python processes it starts (they are by default).
    #[arg(long)]
    no_children: bool,
    /// K=V: a label of the program (BREAKROOM_LABELS), which snapshot breakpoints' `where`
    /// matches. Repeatable.
    #[arg(long = "label", value_name = "K=V")]
    label: Vec<String>,
    /// The command and its arguments, after `--`.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct PsArgs {
    /// Every record in history, not only running and recently finished processes.
    #[arg(long)]
    all: bool,
}

#[derive(clap::Args, Debug)]
pub struct TasksArgs {
    /// The process id (`breakroom ps` lists them).
    id: String,
    /// Print the server's JSON answer as it is.
    #[arg(long)]
    json: bool,
    /// Cancel this task (its ID in the list) instead of listing them: an admin's.
    #[arg(long, value_name = "TASK_ID", conflicts_with = "pause")]
    cancel: Option<String>,
    /// Pause this task (its ID in the list) where it waits, its loop running on; prints its pause
    /// id (`breakroom step`, the debug page, MCP and the REST API take it).
    #[arg(long, value_name = "TASK_ID")]
    pause: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct LogsArgs {
    /// The process id (`breakroom ps` lists them).
    id: String,
    /// Print stderr instead of stdout.
    #[arg(long)]
    stderr: bool,
    /// Keep printing new lines until the process ends.
    #[arg(long, short)]
    follow: bool,
}

#[derive(clap::Args, Debug)]
pub struct StopArgs {
    id: String,
}

/// A running server's API (also the door of `breakroom runtime`).
pub(crate) struct Server {
    pub(crate) base: String,
    http: reqwest::Client,
    token: Option<String>,
}

/// `BREAKROOM_URL`, else the port file, else the default address.
fn server_url() -> String {
    if let Some(url) = std::env::var("BREAKROOM_URL").ok().as_deref().and_then(first_address) {
        return url;
    }
    let port = crate::port_file::path()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| text.trim().parse::<u16>().ok())
        .unwrap_or(5174);
    format!("http://127.0.0.1:{port}")
}

/// The first address of a `BREAKROOM_URL` that lists several (programs fail over between them;
/// a command talks to the first), without its trailing slash.
fn first_address(list: &str) -> Option<String> {
    let first = list.split(',').map(str::trim).find(|entry| !entry.is_empty())?;
    Some(first.trim_end_matches('/').to_string())
}

/// An HTTP client that trusts `BREAKROOM_CA_FILE` (PEM) when set, else the system's roots.
fn http_client() -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder();
    if let Some(file) = std::env::var_os("BREAKROOM_CA_FILE").filter(|f| !f.is_empty()) {
        builder = crate::tls::trust_only(builder, std::path::Path::new(&file))
            .map_err(|e| format!("BREAKROOM_CA_FILE: {e}"))?;
    }
    builder.build().map_err(|e| format!("cannot set up HTTPS: {}", error_chain(&e)))
}

/// An error with its causes (reqwest's own text hides them: "error sending request"), and what
/// to do when the cause is a certificate this machine does not trust.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    if text.contains("certificate") {
        text.push_str(" (set BREAKROOM_CA_FILE to the CA that signed the server's certificate)");
    }
    text
}

impl Server {
    pub(crate) fn find() -> Result<Server, String> {
        Ok(Server {
            base: server_url(),
            http: http_client()?,
            token: std::env::var("BREAKROOM_TOKEN").ok().filter(|t| !t.is_empty()),
        })
    }

    pub(crate) fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        // The audit trail names the command line as the door these requests came through.
        let request = self.http.request(method, format!("{}{path}", self.base)).header("x-breakroom-door", "cli");
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// Sends a request and reads its JSON answer; an error answer becomes its message.
    pub(crate) async fn call<T: serde::de::DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<T, String> {
        let response = request
            .send()
            .await
            .map_err(|e| format!("cannot reach the server at {}: {}", self.base, error_chain(&e)))?;
        let status = response.status();
        let body: Value = response.json().await.map_err(|e| format!("the server's answer is not JSON: {e}"))?;
        if !status.is_success() {
            let message = body["message"].as_str().unwrap_or("request refused");
            return Err(format!("{message} ({})", body["error"].as_str().unwrap_or("error")));
        }
        serde_json::from_value(body).map_err(|e| format!("unexpected answer from the server: {e}"))
    }

    pub(crate) async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, String> {
        self.call(self.request(reqwest::Method::GET, path)).await
    }

    async fn output(&self, id: &str, stream: Option<OutputStream>, from: u64) -> Result<OutputPage, String> {
        let stream = stream.map(|s| format!("&stream={}", s.as_str())).unwrap_or_default();
        self.get(&format!("/api/processes/{id}/output?from={from}{stream}&limit=10000")).await
    }

    async fn stop(&self, id: &str) -> Result<TrackedProcess, String> {
        self.call(self.request(reqwest::Method::POST, &format!("/api/processes/{id}/stop"))).await
    }

    /// Subscribes to `/api/live`.
    async fn live(&self) -> Result<LiveEvents, String> {
        let response = self
            .request(reqwest::Method::GET, "/api/live")
            .send()
            .await
            .map_err(|e| format!("cannot reach the server at {}: {e}", self.base))?;
        if !response.status().is_success() {
            return Err(format!("/api/live answered {}", response.status()));
        }
        Ok(LiveEvents { response, buffer: String::new() })
    }
}

/// Server-sent events, one JSON object per `data:` line.
struct LiveEvents {
    response: reqwest::Response,
    buffer: String,
}

/// What the live stream said: an event, or that events were missed.
enum Live {
    Event(Box<LiveEvent>),
    Lagged,
}

impl LiveEvents {
    /// The next event; None when the stream ended.
    async fn next(&mut self) -> Option<Live> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect::<Vec<_>>()
                    .join("\n");
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                if let Ok(event) = serde_json::from_str::<LiveEvent>(&data) {
                    return Some(Live::Event(Box::new(event)));
                }
                if data.contains("\"lagged\"") {
                    return Some(Live::Lagged);
                }
                continue; // an event this version does not know
            }
            let chunk = self.response.chunk().await.ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

fn print_lines(lines: &[OutputLine]) {
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    for line in lines {
        let _ = match line.stream {
            OutputStream::Stdout => writeln!(out, "{}", line.text),
            OutputStream::Stderr => writeln!(err, "{}", line.text),
        };
    }
    let _ = out.flush();
}

/// The exit code `run` ends with: the process's own, else 128 + the signal's number (as a shell does).
fn exit_code_of(process: &TrackedProcess) -> i32 {
    if let Some(code) = process.exit_code {
        return code;
    }
    match process.signal.as_deref().map(nix::sys::signal::Signal::from_str) {
        Some(Ok(signal)) => 128 + signal as i32,
        _ => 1,
    }
}

/// `breakroom run`: launches COMMAND on the server, prints its page, streams its output and
/// returns its exit code. Ctrl+C asks the server to stop it.
pub async fn run(args: &RunArgs) -> Result<i32, String> {
    let server = Server::find()?;
    let here = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let cwd = args.cwd.as_ref().map(|d| here.join(d)).unwrap_or(here);
    // The program runs with this shell's environment (its PATH, its virtualenv), not the server's.
    let mut env: std::collections::BTreeMap<String, String> =
        std::env::vars().filter(|(k, _)| !matches!(k.as_str(), "BREAKROOM_PROCESS_ID" | "PYTHONBREAKPOINT")).collect();
    for pair in &args.env {
        let (key, value) = pair.split_once('=').ok_or_else(|| format!("--env {pair:?}: expected K=V"))?;
        env.insert(key.to_string(), value.to_string());
    }
    if args.checkpoints {
        env.insert("BREAKROOM_CHECKPOINTS".into(), "1".into());
    }
    if !args.label.is_empty() {
        let mut labels: Vec<String> = env.get("BREAKROOM_LABELS").into_iter().cloned().collect();
        for pair in &args.label {
            let valid = pair.split_once('=').is_some_and(|(k, v)| {
                breakroom_debugger::breakpoints::policy::valid_label(k) && !v.is_empty() && !v.contains(',')
            });
            if !valid {
                return Err(format!("--label {pair:?}: expected NAME=VALUE (a name of letters, digits, . _ - /)"));
            }
            labels.push(pair.clone());
        }
        env.insert("BREAKROOM_LABELS".into(), labels.join(","));
    }
    let request = LaunchRequest {
        command: args.command.clone(),
        name: args.name.clone(),
        cwd: Some(cwd.display().to_string()),
        env,
        follow_children: Some(!args.no_children),
    };
    // Subscribed before the launch, so no line is written before we listen.
    let mut live = if args.detach { None } else { Some(server.live().await?) };
    let process: TrackedProcess =
        server.call(server.request(reqwest::Method::POST, "/api/processes").json(&request)).await?;
    eprintln!("breakroom: {} is process {}: {}/process/{}", process.name, process.id, server.base, process.id);
    let Some(live) = live.as_mut() else { return Ok(0) };
    follow_run(&server, live, &process.id).await
}

async fn follow_run(server: &Server, live: &mut LiveEvents, id: &str) -> Result<i32, String> {
    let mut next = 0u64;
    let mut stop_asked = false;
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let event = tokio::select! {
            event = live.next() => event,
            _ = &mut ctrl_c, if !stop_asked => {
                stop_asked = true;
                eprintln!("breakroom: stopping process {id}");
                server.stop(id).await?;
                continue;
            }
        };
        match event {
            Some(Live::Event(event)) => match *event {
                LiveEvent::ProcessOutput { process_id, lines } if process_id == id => {
                    let fresh: Vec<OutputLine> = lines.into_iter().filter(|l| l.seq >= next).collect();
                    if fresh.first().is_some_and(|l| l.seq > next) {
                        next = catch_up(server, id, next).await?; // events were missed
                    }
                    let fresh: Vec<OutputLine> = fresh.into_iter().filter(|l| l.seq >= next).collect();
                    if let Some(last) = fresh.last() {
                        next = last.seq + 1;
                    }
                    print_lines(&fresh);
                }
                LiveEvent::ProcessExited { process } if process.id == id => {
                    catch_up(server, id, next).await?;
                    if let Some(reason) = &process.reason {
                        eprintln!("breakroom: process {id} {}: {reason}", status_word(&process));
                    }
                    return Ok(exit_code_of(&process));
                }
                _ => {}
            },
            Some(Live::Lagged) => next = catch_up(server, id, next).await?,
            None => return Err("the server closed the live stream".into()),
        }
    }
}

fn status_word(process: &TrackedProcess) -> String {
    serde_json::to_value(process.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Prints the stored lines from `from` on; returns the next seq.
async fn catch_up(server: &Server, id: &str, mut from: u64) -> Result<u64, String> {
    loop {
        let page = server.output(id, None, from).await?;
        print_lines(&page.lines);
        if page.lines.is_empty() {
            return Ok(from);
        }
        from = page.next;
    }
}

/// `breakroom ps`.
pub async fn ps(args: &PsArgs) -> Result<i32, String> {
    let server = Server::find()?;
    let list: ProcessList = server.get(if args.all { "/api/processes?all=true" } else { "/api/processes" }).await?;
    println!("{:<10} {:<8} {:>8} {:>9}  {:<30} REASON", "ID", "STATUS", "PID", "UPTIME", "NAME");
    for p in list.processes {
        let pid = p.pid.map(|p| p.to_string()).unwrap_or_else(|| "-".into());
        let name: String = p.name.chars().take(30).collect();
        println!(
            "{:<10} {:<8} {:>8} {:>8.1}s  {:<30} {}",
            p.id,
            status_word(&p),
            pid,
            p.uptime_s,
            name,
            p.reason.as_deref().unwrap_or("")
        );
    }
    Ok(0)
}

/// `breakroom tasks PROCESS` (issue 51): the program's asyncio tasks, read without stopping its
/// loops; each task's stack follows it, outermost first.
pub async fn tasks(args: &TasksArgs) -> Result<i32, String> {
    let server = Server::find()?;
    if let Some(task) = &args.cancel {
        let path = format!("/api/processes/{}/tasks/{task}/cancel", args.id);
        let done: serde_json::Value = server.call(server.request(reqwest::Method::POST, &path)).await?;
        if args.json {
            println!("{done:#}");
        } else {
            let name = done["name"].as_str().map(|n| format!(" ({n})")).unwrap_or_default();
            let outcome = match done["outcome"].as_str() {
                Some("cancelling") => "cancelled; it still runs (it caught the cancellation, or is cleaning up)",
                _ => "cancelled",
            };
            println!("{task}{name}: {outcome}");
        }
        return Ok(0);
    }
    if let Some(task) = &args.pause {
        let path = format!("/api/processes/{}/tasks/{task}/pause", args.id);
        let done: serde_json::Value = server.call(server.request(reqwest::Method::POST, &path)).await?;
        if args.json {
            println!("{done:#}");
        } else {
            let name = done["name"].as_str().map(|n| format!(" ({n})")).unwrap_or_default();
            println!("{task}{name}: paused where it waits, as {}", done["pause_id"].as_str().unwrap_or("?"));
        }
        return Ok(0);
    }
    let list: serde_json::Value = server.get(&format!("/api/processes/{}/tasks", args.id)).await?;
    if args.json {
        println!("{list:#}");
        return Ok(0);
    }
    let tasks = list["tasks"].as_array().cloned().unwrap_or_default();
    println!("{:<20} {:<24} {:<10} {:<38} AWAITING", "ID", "NAME", "STATE", "PAUSE");
    for task in &tasks {
        let text = |key: &str| task[key].as_str().unwrap_or("-").to_string();
        let awaiting: String = text("awaiting").chars().take(60).collect();
        println!("{:<20} {:<24} {:<10} {:<38} {}", text("id"), text("name"), text("state"), text("pause_id"), awaiting);
        for frame in task["stack"].as_array().into_iter().flatten() {
            let file = frame["file"].as_str().unwrap_or("?");
            let base = file.rsplit('/').next().unwrap_or(file);
            println!(
                "    {base}:{} in {}",
                frame["line"].as_i64().unwrap_or(0),
                frame["function"].as_str().unwrap_or("?")
            );
        }
    }
    let paused = tasks.iter().filter(|t| t["pause_id"].is_string()).count();
    println!("{} tasks, {paused} paused by Breakroom", tasks.len());
    Ok(0)
}

/// `breakroom logs`.
pub async fn logs(args: &LogsArgs) -> Result<i32, String> {
    let server = Server::find()?;
    let stream = if args.stderr { OutputStream::Stderr } else { OutputStream::Stdout };
    let mut from = 0;
    loop {
        let page = server.output(&args.id, Some(stream), from).await?;
        if page.dropped > 0 && from == 0 {
            eprintln!("breakroom: {} older lines were dropped (--output-limit)", page.dropped);
        }
        print_lines(&page.lines);
        if !page.lines.is_empty() {
            from = page.next;
            continue;
        }
        if !args.follow {
            return Ok(0);
        }
        let detail: ProcessDetail = server.get(&format!("/api/processes/{}", args.id)).await?;
        if !detail.process.status.is_alive() {
            // Its last lines are stored before it is marked ended: one more page has them all.
            print_lines(&server.output(&args.id, Some(stream), from).await?.lines);
            return Ok(0);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `breakroom stop`.
pub async fn stop(args: &StopArgs) -> Result<i32, String> {
    let server = Server::find()?;
    let process = server.stop(&args.id).await?;
    println!("stopping {} ({}): SIGTERM sent, SIGKILL in 2 s if it is still running", process.id, process.name);
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::first_address;

    #[test]
    fn a_command_talks_to_the_first_address_of_a_list() {
        assert_eq!(first_address("http://a:1/, http://b:2").as_deref(), Some("http://a:1"));
        assert_eq!(first_address(" ,http://b:2").as_deref(), Some("http://b:2"));
        assert_eq!(first_address("http://a:1/").as_deref(), Some("http://a:1"));
        assert_eq!(first_address(" , "), None);
    }
}
