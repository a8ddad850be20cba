//! `breakroom`: a web debugger for live Python programs.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use breakroom_debugger::processes::retention::Retention;
use breakroom_debugger::processes::ProcessConfig;
use breakroom_debugger::runtimes::RuntimeConfig;
use breakroom_debugger::{Config, Debugger};
use breakroom_server::guard::AccessPolicy;
use breakroom_server::{router, serve, site, ServerOptions};
use clap::{Parser, Subcommand};

/// `breakroom --version`: the version, the commit it was built from and the embedded site's fingerprint.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("BREAKROOM_COMMIT"),
    ", site ",
    env!("BREAKROOM_SITE_FINGERPRINT"),
    ")"
);

#[derive(Parser, Debug)]
#[command(name = "breakroom", version = VERSION, about = "A web debugger for live Python programs")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Where history is kept (a SQLite database). Default: $XDG_DATA_HOME/breakroom, else
    /// ~/.local/share/breakroom. Also read from BREAKROOM_DATA_DIR.
    #[arg(long, global = true, env = "BREAKROOM_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Keep nothing on disk: history ends with the process.
    #[arg(long, conflicts_with = "database_url")]
    memory: bool,
    /// Keep history in PostgreSQL instead of the data directory's SQLite file
    /// (`postgres://user:password@host:port/database`). Several servers may share one database:
    /// each lists, and drives, the pauses of all. Also read from BREAKROOM_DATABASE_URL.
    #[arg(long, global = true, env = "BREAKROOM_DATABASE_URL", value_parser = database_url)]
    database_url: Option<String>,
    /// Address to listen on. Anything but loopback exposes a REPL into your programs.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 5174)]
    port: u16,
    /// Seconds a REPL eval waits for the paused program before giving up.
    #[arg(long, default_value_t = 30)]
    eval_timeout: u64,
    /// Completed calls kept in each breakpoint's history (older ones are deleted).
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..))]
    history_per_breakpoint: u64,
    /// Snapshots kept on disk, the newest (older ones are deleted).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    snapshots_kept: u64,
    /// Largest request body accepted, in bytes (pickled arguments can be big).
    #[arg(long, default_value_t = 64 * 1024 * 1024)]
    max_body: usize,
    /// Access token every request must carry; required when --host is not loopback.
    /// Also read from BREAKROOM_TOKEN.
    #[arg(long, env = "BREAKROOM_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Another name requests may carry in `Host` (NAME, any port, or NAME:PORT), e.g. the name a
    /// reverse proxy forwards. Repeatable. Loopback names and the bound address are always answered.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_host: Vec<String>,
    /// A page origin (`http://host:port`) whose scripts may use the debug-client routes (CORS),
    /// e.g. a page that loads /api/debug-client.js. Repeatable. Only those routes, only these origins.
    #[arg(long = "allow-origin", value_name = "URL")]
    allow_origin: Vec<String>,
    /// Bytes of output kept per stream of a launched process (the oldest lines go first).
    #[arg(long, default_value_t = 8 * 1024 * 1024)]
    output_limit: u64,
    /// Seconds a process stays in the active list after a clean exit (exit code 0).
    #[arg(long, default_value_t = 30.0)]
    retain_clean: f64,
    /// Seconds a process stays in the active list after a crash, a kill or being lost.
    #[arg(long, default_value_t = 300.0)]
    retain_crash: f64,
    /// Process records kept in history, oldest finished ones forgotten first.
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..))]
    keep_processes: u64,
    /// Allow attaching to running Python processes by pid (code runs in them) on a non-loopback --host.
    #[arg(long)]
    allow_attach: bool,
    /// Allow runtimes (a shell on this machine, per workspace) on a non-loopback --host.
    #[arg(long)]
    allow_runtimes: bool,
    /// Seconds a runtime workspace may stay unused before its processes are ended.
    #[arg(long, default_value_t = 1800.0)]
    runtime_idle: f64,
    /// Most live runtime workspaces.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..))]
    runtime_max: u64,
    /// Bytes of stdout and of stderr kept per runtime command (the rest is cut with a marker).
    #[arg(long, default_value_t = 1024 * 1024, value_parser = clap::value_parser!(u64).range(1..))]
    runtime_output: u64,
    /// Commands kept in each runtime workspace's history.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    runtime_history: u64,
    /// Days audit records are kept (issue 48); history pruning never removes them.
    #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u64).range(1..=36_500))]
    audit_days: u64,
    /// Also append every audit record to this file, as JSON lines (for a log shipper).
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
    /// Serve HTTPS with this certificate chain (PEM; the server's certificate first), with
    /// --tls-key. Plain HTTP to the port is refused. Also read from BREAKROOM_TLS_CERT.
    #[arg(long, value_name = "FILE", env = "BREAKROOM_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1). Also read from BREAKROOM_TLS_KEY.
    #[arg(long, value_name = "FILE", env = "BREAKROOM_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Also serve the Debug Adapter Protocol on this TCP port (loopback only), for an editor's
    /// `debugServer`; 0 picks a free one.
    #[arg(long, value_name = "PORT")]
    dap_port: Option<u16>,
    /// A name rule (regex, case-insensitive, anywhere in the name) whose values are redacted
    /// before they leave a program, added to the defaults. Repeatable; commas separate several.
    #[arg(long = "redact-names", value_name = "REGEX")]
    redact_names: Vec<String>,
    /// A value rule (regex) whose matches inside any string are redacted, added to the defaults.
    /// Repeatable; commas separate several.
    #[arg(long = "redact-values", value_name = "REGEX")]
    redact_values: Vec<String>,
    /// Turn off the default redaction rules (secret-looking names, card numbers, JWTs, AWS key
    /// ids, PEM private keys, Bearer credentials): only --redact-names/--redact-values apply.
    #[arg(long)]
    no_default_redaction: bool,
    /// A place that is not debugged: a file path glob whose `*` crosses `/` (`*/vault/*`) or a
    /// module name (`myapp.auth`). Breakpoints there are refused; its frames show no locals.
    #[arg(long = "no-debug", value_name = "GLOB")]
    no_debug: Vec<String>,
    /// Signing in through an OpenID Connect provider (issue 49).
    #[command(flatten)]
    oidc: breakroom_server::oidc::OidcArgs,
    /// Serve the site (wasm, js, css) from this directory instead of the copy built into the
    /// binary; `cargo leptos watch` sets LEPTOS_SITE_ROOT to its target/site.
    #[arg(long, value_name = "DIR", env = "LEPTOS_SITE_ROOT")]
    site_dir: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print recorded events of a REPL session, a process, or an exported events.jsonl file.
    Replay(breakroom_server::replay::ReplayArgs),
    /// Write the events of a REPL session or a process as JSON lines (for `replay` or other tools).
    Export {
        /// A session id (`{pid}-{timestamp}`) or a process key (`{start_time}+{pid}`).
        target: String,
    },
    /// Launch a command under the running server; streams its output and exits with its code.
    Run(breakroom_server::process_cli::RunArgs),
    /// List the running server's processes (running and recently finished; --all: history).
    Ps(breakroom_server::process_cli::PsArgs),
    /// List a running program's asyncio tasks with their stacks, without stopping its loops;
    /// --pause or --cancel one.
    Tasks(breakroom_server::process_cli::TasksArgs),
    /// Print a launched process's stdout (or --stderr); --follow waits for more.
    Logs(breakroom_server::process_cli::LogsArgs),
    /// Stop a process: SIGTERM, then SIGKILL after 2 s.
    Stop(breakroom_server::process_cli::StopArgs),
    /// Attach to a running Python 3.11+ process by pid (no restart, no import), or --list them.
    Attach(breakroom_server::attach_cli::AttachArgs),
    /// Add, list, remove, clear, enable or disable the running server's breakpoints.
    Breakpoint {
        #[command(subcommand)]
        action: breakroom_server::breakpoint_cli::BreakpointAction,
    },
    /// Snapshot breakpoints (never pause): add FILE:LINE [--expr E]…, list, show ID.
    Snapshot {
        #[command(subcommand)]
        action: breakroom_server::snapshot_cli::SnapshotCommand,
    },
    /// Long-lived bash and Python sessions per workspace: exec, state, reset, history, list, stop.
    Runtime(breakroom_server::runtime_cli::RuntimeArgs),
    /// Print Breakroom's JavaScript debug client (an ES module, also served at /api/debug-client.js).
    JsClient,
    /// MCP over stdio for agents that launch commands: relays to the running server's /mcp.
    Mcp,
    /// The Debug Adapter Protocol on stdin/stdout, for an editor to launch (VS Code, nvim-dap, …):
    /// relayed to the running server (BREAKROOM_URL, BREAKROOM_TOKEN).
    Dap,
    /// Step a paused program: over, into, out, or to FILE:LINE (on the newest pause by default).
    Step {
        #[command(subcommand)]
        kind: breakroom_server::step_cli::StepCommand,
    },
    /// People and their roles: add NAME --role viewer|debugger|admin, list, remove, set-role, rotate.
    /// Works on --data-dir or --database-url, whether the server runs or not.
    User {
        #[command(subcommand)]
        action: breakroom_server::user_cli::UserCommand,
    },
    /// Credentials for debugged programs: add-program NAME.
    Token {
        #[command(subcommand)]
        action: breakroom_server::user_cli::TokenCommand,
    },
    /// Print the audit trail (--follow, --user, --action, --process, --since), from the store.
    Audit(breakroom_server::user_cli::AuditArgs),
    /// Time travel: checkpoint, rewind, branch, switch, diff, timeline.
    #[command(flatten)]
    TimeTravel(breakroom_server::checkpoint_cli::TimeTravel),
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    breakroom_server::logging::init();
    let outcome = match &cli.command {
        Some(Command::Replay(args)) => breakroom_server::replay::replay(args, || data_dir(&cli)).await,
        Some(Command::Export { target }) => {
            data_dir(&cli).and_then(|dir| breakroom_server::replay::export(&dir, target))
        }
        Some(Command::Run(args)) => exit_with(breakroom_server::process_cli::run(args).await),
        Some(Command::Ps(args)) => exit_with(breakroom_server::process_cli::ps(args).await),
        Some(Command::Tasks(args)) => exit_with(breakroom_server::process_cli::tasks(args).await),
        Some(Command::Logs(args)) => exit_with(breakroom_server::process_cli::logs(args).await),
        Some(Command::Stop(args)) => exit_with(breakroom_server::process_cli::stop(args).await),
        Some(Command::Attach(args)) => exit_with(breakroom_server::attach_cli::run(args).await),
        Some(Command::Breakpoint { action }) => exit_with(breakroom_server::breakpoint_cli::run(action).await),
        Some(Command::Snapshot { action }) => exit_with(breakroom_server::snapshot_cli::run(action).await),
        Some(Command::Runtime(args)) => exit_with(breakroom_server::runtime_cli::run(args).await),
        Some(Command::JsClient) => {
            print!("{}", breakroom_server::api::debug_client::source());
            Ok(())
        }
        Some(Command::Step { kind }) => exit_with(breakroom_server::step_cli::run(kind).await),
        Some(Command::Mcp) => exit_with(breakroom_server::mcp::bridge::run().await),
        Some(Command::Dap) => exit_with(breakroom_server::dap::bridge::run().await),
        Some(Command::User { action }) => location(&cli).and_then(|at| breakroom_server::user_cli::user(&at, action)),
        Some(Command::Token { action }) => location(&cli).and_then(|at| breakroom_server::user_cli::token(&at, action)),
        Some(Command::Audit(args)) => location(&cli).and_then(|at| breakroom_server::user_cli::audit(&at, args)),
        Some(Command::TimeTravel(command)) => exit_with(breakroom_server::checkpoint_cli::run(command).await),
        None => run(cli).await,
    };
    if let Err(message) = outcome {
        eprintln!("breakroom: {message}");
        std::process::exit(1);
    }
}

/// Ends the process with a subcommand's exit code (`run` passes on the launched process's).
fn exit_with(outcome: Result<i32, String>) -> Result<(), String> {
    let code = outcome?;
    std::process::exit(code)
}

async fn run(cli: Cli) -> Result<(), String> {
    let token = cli.token.clone().filter(|t| !t.is_empty());
    if !cli.host.is_loopback() && token.is_none() {
        return Err(format!(
            "refusing to listen on {} without --token: anyone who can reach it could run code in your programs",
            cli.host
        ));
    }
    let requested = SocketAddr::new(cli.host, cli.port);
    let listener = match tokio::net::TcpListener::bind(requested).await {
        Ok(listener) => listener,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            println!("Port {} is occupied, finding free port...", cli.port);
            tokio::net::TcpListener::bind(SocketAddr::new(cli.host, 0))
                .await
                .map_err(|e| format!("cannot listen on {}: {e}", cli.host))?
        }
        Err(e) => return Err(format!("cannot listen on {requested}: {e}")),
    };
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let tls = match (&cli.tls_cert, &cli.tls_key) {
        (Some(cert), Some(key)) => Some(breakroom_server::tls::config(cert, key)?),
        _ => None,
    };
    // With TLS, what the server starts on this machine calls back in plain HTTP on loopback
    // (tls.rs): no certificate needs to name 127.0.0.1, and the traffic stays on the machine.
    let local = match tls {
        Some(_) => Some(
            tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
                .await
                .map_err(|e| format!("cannot listen on loopback for local programs: {e}"))?,
        ),
        None => None,
    };
    let local_port = local.as_ref().and_then(|l| l.local_addr().ok()).map(|a| a.port());
    let mut access = AccessPolicy::new(addr, token.clone(), &cli.allow_host)?.with_origins(&cli.allow_origin)?;
    if let Some(port) = local_port {
        access = access.also_loopback_port(port);
    }
    if !addr.ip().is_loopback() && tls.is_none() {
        println!(
            "Warning: serving beyond loopback in plain HTTP. Tokens, arguments, locals and every eval's \
             answer cross the network in clear: give --tls-cert and --tls-key, or put a reverse proxy \
             that terminates TLS in front (docs: server.md)"
        );
    }
    if addr.ip().is_unspecified() && cli.allow_host.is_empty() {
        println!("Listening on every address: requests must use a loopback name or a name given with --allow-host");
    }
    let config = Config {
        eval_timeout: Duration::from_secs(cli.eval_timeout.max(1)),
        history_per_breakpoint: usize::try_from(cli.history_per_breakpoint).unwrap_or(usize::MAX),
        snapshots_kept: usize::try_from(cli.snapshots_kept).unwrap_or(usize::MAX),
        processes: process_config(&cli, token.clone(), addr.ip())?,
        runtimes: runtime_config(&cli, addr.ip())?,
        audit_keep: Duration::from_secs(cli.audit_days * 86_400),
        audit_log: cli.audit_log.clone(),
        policy: breakroom_debugger::policy::Policy::new(
            !cli.no_default_redaction,
            &cli.redact_names,
            &cli.redact_values,
            &cli.no_debug,
        )
        .map_err(|e| format!("{e}"))?,
        ..Config::default()
    };
    if !config.runtimes.enabled {
        println!("Runtimes are off: this server listens beyond loopback (--allow-runtimes turns them on)");
    }
    let debugger = if cli.memory {
        println!("History is kept in memory only (--memory)");
        Debugger::new(config)
    } else if let Some(url) = &cli.database_url {
        let shown = breakroom_debugger::store::postgres::display_url(url);
        let debugger = Debugger::connect(config, url).map_err(|e| format!("cannot open {shown}: {e}"))?;
        let cluster = debugger.join_cluster(url).map_err(|e| format!("cannot join the servers on {shown}: {e}"))?;
        println!("History: {shown} (server {})", cluster.server_id());
        debugger
    } else {
        let dir = data_dir(&cli)?;
        let debugger = Debugger::open(config, &dir).map_err(|e| format!("cannot open {}: {e}", dir.display()))?;
        println!("History: {}", dir.display());
        debugger
    };
    stop_on_signal(debugger.clone());
    if let Some(port) = cli.dap_port {
        let dap = breakroom_server::dap::listen(port, debugger.clone(), token.clone())
            .await
            .map_err(|e| format!("cannot serve DAP on port {port}: {e}"))?;
        println!("DAP on {dap}");
    }
    let local_url = local_port.map(|port| format!("http://127.0.0.1:{port}"));
    // The provider's default callback URL has this server's scheme.
    let oidc = breakroom_server::oidc::start_provider(&cli.oidc, addr, tls.is_some()).await?;
    let options = ServerOptions {
        max_body: cli.max_body,
        site: site::leptos_options_at(addr, site::choose_site(cli.site_dir.clone())),
        access,
        local_url,
        oidc,
    };
    let app = router(debugger, options);
    let (Some(config), Some(local), Some(local_port)) = (tls, local, local_port) else {
        write_port_file(addr.port());
        println!("Server running on http://{addr}");
        return serve(listener, app).await.map_err(|e| e.to_string());
    };
    let app = breakroom_server::tls::secure_cookies(app);
    // The port file is how programs and commands on this machine find the server: loopback.
    write_port_file(local_port);
    println!("Local programs call back on http://127.0.0.1:{local_port} (loopback only)");
    tokio::spawn(serve(local, app.clone()));
    println!("Server running on https://{addr}");
    breakroom_server::tls::serve(listener, app, config).await.map_err(|e| e.to_string())
}

/// SIGINT or SIGTERM stop the server gracefully (issue 32): held polls answer `stopping`, so
/// paused programs wait for the next server; launched processes, runtimes and snapshot
/// processes (issue 20) end with it. (A server killed outright leaves snapshot processes to
/// notice it is gone: they exit when their held poll finds no server.)
fn stop_on_signal(debugger: breakroom_debugger::Debugger) {
    use tokio::signal::unix::{signal, SignalKind};
    tokio::spawn(async move {
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            return;
        };
        let code = tokio::select! {
            _ = term.recv() => 128 + 15,
            _ = int.recv() => 128 + 2,
        };
        debugger.stop_serving();
        println!("Stopping: paused programs wait for the next server; launched processes and runtimes are stopped");
        // The held polls' answers go out before the exit.
        tokio::time::sleep(Duration::from_millis(300)).await;
        std::process::exit(code);
    });
}

fn process_config(cli: &Cli, token: Option<String>, bound: IpAddr) -> Result<ProcessConfig, String> {
    let seconds = |flag: &str, value: f64| {
        Duration::try_from_secs_f64(value).map_err(|_| format!("--{flag} must be a number of seconds, not {value}"))
    };
    Ok(ProcessConfig {
        output_limit: cli.output_limit,
        retention: Retention {
            clean: seconds("retain-clean", cli.retain_clean)?,
            crash: seconds("retain-crash", cli.retain_crash)?,
            keep: usize::try_from(cli.keep_processes).unwrap_or(usize::MAX),
        },
        token,
        // Attach runs code in any process this user may trace: beyond loopback only when asked for.
        allow_attach: bound.is_loopback() || cli.allow_attach,
    })
}

fn runtime_config(cli: &Cli, bound: IpAddr) -> Result<RuntimeConfig, String> {
    let idle = Duration::try_from_secs_f64(cli.runtime_idle)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("--runtime-idle must be a positive number of seconds, not {}", cli.runtime_idle))?;
    Ok(RuntimeConfig {
        // A runtime is a shell on this machine: beyond loopback only when asked for.
        enabled: bound.is_loopback() || cli.allow_runtimes,
        idle_timeout: idle,
        max_workspaces: usize::try_from(cli.runtime_max).unwrap_or(usize::MAX),
        max_output: usize::try_from(cli.runtime_output).unwrap_or(usize::MAX),
        max_history: usize::try_from(cli.runtime_history).unwrap_or(usize::MAX),
    })
}

/// A `postgres://` (or `postgresql://`) URL; anything else is refused before the server starts.
fn database_url(value: &str) -> Result<String, String> {
    let scheme = value.split("://").next().unwrap_or("");
    match scheme {
        "postgres" | "postgresql" if value.len() > scheme.len() + 3 => Ok(value.to_string()),
        _ => Err(format!("expected postgres://user:password@host:port/database, got {value:?}")),
    }
}

/// Where the records are: `--database-url`, else the data directory.
fn location(cli: &Cli) -> Result<breakroom_debugger::store::Location, String> {
    match &cli.database_url {
        Some(url) => Ok(breakroom_debugger::store::Location::Postgres(url.clone())),
        None => data_dir(cli).map(breakroom_debugger::store::Location::Directory),
    }
}

/// `--data-dir`, else the per-user data directory.
fn data_dir(cli: &Cli) -> Result<PathBuf, String> {
    if let Some(dir) = &cli.data_dir {
        return Ok(PathBuf::from(expand_tilde(&dir.to_string_lossy())));
    }
    let xdg = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()).map(PathBuf::from);
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".local/share"));
    xdg.or(home).map(|base| base.join("breakroom")).ok_or_else(|| "no HOME: pass --data-dir".to_string())
}

/// Unchanged cideldill clients find the server through this file (docs/src/protocol.md §2).
fn write_port_file(port: u16) {
    let Some(path) = breakroom_server::port_file::path() else { return };
    let written =
        path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|_| std::fs::write(&path, port.to_string()));
    match written {
        Ok(()) => println!("Port written to: {}", path.display()),
        Err(e) => eprintln!("breakroom: could not write port file {}: {e}", path.display()),
    }
}

fn expand_tilde(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}
