//! Starting a process under Breakroom: checking the request, the environment it gets, and
//! stopping it (SIGTERM to its process group, then SIGKILL).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::LaunchRequest;
use crate::error::{Error, Result};

/// What a launched process is told about the server it runs under.
#[derive(Clone, Debug, Default)]
pub struct LaunchEnv {
    /// `BREAKROOM_URL`.
    pub server_url: Option<String>,
    /// `BREAKROOM_TOKEN`, when the server asks for one.
    pub token: Option<String>,
    /// Put first on `PYTHONPATH`: the directory holding the shipped `breakroom` package.
    pub client_dir: Option<PathBuf>,
}

/// Refuses what cannot be launched, naming the problem, before anything is recorded.
pub fn check(req: &LaunchRequest) -> Result<()> {
    let Some(program) = req.command.first() else {
        return Err(Error::MissingField { code: "missing_command", field: "command" });
    };
    if program.trim().is_empty() {
        return Err(Error::invalid("empty_command", "command[0] (the program) is empty"));
    }
    if req.command.iter().any(|arg| arg.contains('\0')) {
        return Err(Error::invalid("invalid_command", "command contains a NUL character"));
    }
    if let Some(cwd) = &req.cwd {
        let path = Path::new(cwd);
        if cwd.contains('\0') || !path.exists() {
            return Err(Error::invalid("cwd_not_found", format!("cwd {cwd:?} does not exist")));
        }
        if !path.is_dir() {
            return Err(Error::invalid("cwd_not_a_directory", format!("cwd {cwd:?} is not a directory")));
        }
    }
    for (key, value) in &req.env {
        if key.is_empty() || key.contains('=') || key.contains('\0') || value.contains('\0') {
            return Err(Error::invalid(
                "invalid_env",
                format!("env {key:?}: names must be non-empty, without = or NUL"),
            ));
        }
    }
    Ok(())
}

/// The command, in its own process group (so stopping it stops its children too), with
/// stdout and stderr piped and stdin closed.
pub fn command(req: &LaunchRequest, process_id: &str, env: &LaunchEnv) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(&req.command[0]);
    cmd.args(&req.command[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(false);
    if let Some(cwd) = &req.cwd {
        cmd.current_dir(cwd);
    }
    // Live output: Python block-buffers a pipe otherwise. The request may still say otherwise.
    cmd.env("PYTHONUNBUFFERED", "1");
    cmd.envs(&req.env);
    cmd.env("BREAKROOM_PROCESS_ID", process_id);
    cmd.env("PYTHONBREAKPOINT", "breakroom.set_trace");
    // The child hook (sitecustomize.py beside the package) makes its Python children call in.
    if req.follow_children != Some(false) {
        cmd.env("BREAKROOM_FOLLOW_CHILDREN", "1");
    }
    if let Some(url) = &env.server_url {
        cmd.env("BREAKROOM_URL", url);
    }
    if let Some(token) = &env.token {
        cmd.env("BREAKROOM_TOKEN", token);
    }
    if let Some(dir) = &env.client_dir {
        let existing = req.env.get("PYTHONPATH").cloned().or_else(|| std::env::var("PYTHONPATH").ok());
        let path = match existing.filter(|p| !p.is_empty()) {
            Some(rest) => format!("{}:{rest}", dir.display()),
            None => dir.display().to_string(),
        };
        cmd.env("PYTHONPATH", path);
    }
    cmd
}

/// What a failed spawn answers with, (code, message): what went wrong, in the user's terms.
pub fn spawn_error(program: &str, e: &std::io::Error) -> (&'static str, String) {
    match e.kind() {
        std::io::ErrorKind::NotFound => ("command_not_found", format!("{program}: command not found ({e})")),
        std::io::ErrorKind::PermissionDenied => {
            ("command_not_executable", format!("{program}: permission denied ({e})"))
        }
        _ => ("launch_failed", format!("cannot start {program}: {e}")),
    }
}

/// Sends `signal` to the process group led by `pid`. False if the group is already gone.
pub fn signal_group(pid: i64, signal: Signal) -> bool {
    match i32::try_from(pid) {
        Ok(raw) if raw > 0 => killpg(Pid::from_raw(raw), signal).is_ok(),
        _ => false,
    }
}

/// Sends `signal` to one process (a connected client on this host).
pub fn signal_process(pid: i64, signal: Signal) -> bool {
    match i32::try_from(pid) {
        Ok(raw) if raw > 0 => nix::sys::signal::kill(Pid::from_raw(raw), signal).is_ok(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(command: &[&str]) -> LaunchRequest {
        LaunchRequest { command: command.iter().map(|s| s.to_string()).collect(), ..Default::default() }
    }

    #[test]
    fn bad_requests_are_refused_with_the_problem_named() {
        assert_eq!(check(&request(&[])).unwrap_err().code(), "missing_command");
        assert_eq!(check(&request(&[" "])).unwrap_err().code(), "empty_command");
        let mut req = request(&["true"]);
        req.cwd = Some("/no/such/dir".into());
        assert_eq!(check(&req).unwrap_err().code(), "cwd_not_found");
        let mut req = request(&["true"]);
        req.env.insert("A=B".into(), "x".into());
        assert_eq!(check(&req).unwrap_err().code(), "invalid_env");
        assert!(check(&request(&["true"])).is_ok());
    }
}
