//! Attach to a running Python process by pid (issue 33): the Python client is started inside a
//! program that was not started under Breakroom, and the program becomes a process like any
//! other (line breakpoints, pauses, REPL), filed as `attached`.
//!
//! - 3.11–3.13 on x86-64 Linux: Breakroom's own ptrace injector ([`inject`]);
//! - 3.14 and later: `sys.remote_exec` (PEP 768), run by the target's own interpreter;
//! - anything else is refused with the reason.
//!
//! The code put into the program is a fixed wrapper: it puts the shipped client on `sys.path`,
//! starts it on a thread of its own and returns at once; attaching twice does nothing.

pub mod inject;
pub mod local;
pub mod target;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::LiveEvent;
use crate::processes::host::ProcessHost;
use crate::processes::TrackedProcess;
use inject::{InjectError, Route};
use target::PythonVersion;

/// `POST /api/processes/attach`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct AttachRequest {
    pub pid: i64,
    /// Whether the program's child processes are debugged too (default true).
    pub follow_children: Option<bool>,
    /// How long to wait for the client to call in (default 10 s, at most 300).
    pub timeout_s: Option<f64>,
}

/// How the client got into the program.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachMethod {
    /// Run on the main thread, which was blocked in a system call (sleep, read, a lock...).
    BlockedThread,
    /// Queued for the interpreter's next bytecode boundary (`Py_AddPendingCall`).
    PendingCall,
    /// Python 3.14's `sys.remote_exec`.
    RemoteExec,
}

impl AttachMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            AttachMethod::BlockedThread => "blocked_thread",
            AttachMethod::PendingCall => "pending_call",
            AttachMethod::RemoteExec => "remote_exec",
        }
    }
}

/// The answer to an attach (202): the process's record, and how.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Attached {
    pub process_id: String,
    pub pid: i64,
    pub method: AttachMethod,
    /// The target's Python version, e.g. `3.12.1`.
    pub python: String,
    pub follow_children: bool,
    /// Seconds from the request to the client calling in.
    pub seconds: f64,
    pub process: TrackedProcess,
}

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_TIMEOUT_S: f64 = 300.0;

/// Attaches in flight, by pid: the record the client makes is filed as `attached`.
#[derive(Default)]
pub struct Attaching {
    pids: std::sync::Mutex<HashMap<i64, Instant>>,
}

impl Attaching {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Instant>> {
        self.pids.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a client calling in from `pid` was put there by an attach (at most an hour ago).
    pub(crate) fn is_attaching(&self, pid: i64) -> bool {
        let mut pids = self.lock();
        pids.retain(|_, started| started.elapsed() < Duration::from_secs(3600));
        pids.contains_key(&pid)
    }
}

crate::host::service!(
    /// Attaching to running Python processes of this machine: what the doors reach as
    /// `debugger.attach()`.
    AttachService
);

/// What attaching asks of the owner of the state: the processes concept, and where the
/// attaches in flight are kept (the processes concept files a client that calls in from one
/// as attached).
pub trait AttachHost: ProcessHost {
    fn attaching(&self) -> &Attaching;

    /// This concept's service, for the owner and for its own tasks.
    fn attach(&self) -> AttachService<'_, Self>
    where
        Self: Sized,
    {
        AttachService { debugger: self }
    }
}

impl<H: AttachHost> AttachService<'_, H> {
    /// Puts the Python client into process `pid` and waits until it calls in.
    pub async fn process(self, req: AttachRequest) -> Result<Attached> {
        let started = Instant::now();
        if !self.debugger.processes().registry().config().allow_attach {
            return Err(Error::Forbidden(
                "attach_disabled",
                "attach runs code in other processes: this server listens beyond loopback; start it with --allow-attach to allow it".into(),
            ));
        }
        let timeout = match req.timeout_s {
            None => DEFAULT_TIMEOUT,
            Some(s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_S => Duration::from_secs_f64(s),
            Some(s) => {
                return Err(Error::invalid("invalid_timeout", format!("timeout_s must be in (0, 300], not {s}")))
            }
        };
        let follow_children = req.follow_children.unwrap_or(true);
        let pid = checked_pid(req.pid)?;
        if let Some(process) = self.debugged_local_pid(req.pid) {
            return Err(Error::conflict(
                "already_debugged",
                format!("process {} is already debugged: it is process {} ({})", req.pid, process.id, process.name),
            ));
        }
        let (symbols, version) = python_of(pid)?;
        let code = self.bootstrap(pid, follow_children)?;
        {
            let mut attaching = self.debugger.attaching().lock();
            if attaching.get(&req.pid).is_some_and(|at| at.elapsed() < Duration::from_secs_f64(MAX_TIMEOUT_S)) {
                return Err(Error::conflict(
                    "already_debugged",
                    format!("an attach to process {} is already under way", req.pid),
                ));
            }
            attaching.insert(req.pid, started);
        }
        let result = self.put_client_in(pid, symbols, version, code, started + timeout).await;
        let outcome = match result {
            Ok(method) => self.await_client(req.pid, started + timeout).await.map(|process| (method, process)),
            Err(e) => Err(e),
        };
        // A timed-out attach may still call in (a pending call runs when the C call returns):
        // its record is filed as attached then.
        if !matches!(outcome, Err(Error::TimedOut(..))) {
            self.debugger.attaching().lock().remove(&req.pid);
        }
        let (method, process) = outcome?;
        self.debugger.publish(LiveEvent::ProcessAttached {
            process: self.debugger.processes().shown(process.clone()),
            method: method.as_str().into(),
        });
        Ok(Attached {
            process_id: process.id.clone(),
            pid: req.pid,
            method,
            python: version.to_string(),
            follow_children,
            seconds: started.elapsed().as_secs_f64(),
            process,
        })
    }

    /// An alive process of this host with this pid, already known.
    fn debugged_local_pid(&self, pid: i64) -> Option<TrackedProcess> {
        let host = self.debugger.processes().registry().host().to_string();
        self.debugger
            .processes()
            .registry()
            .list(false, crate::ids::now())
            .into_iter()
            .find(|p| p.pid == Some(pid) && p.status.is_alive() && p.host == host)
    }

    /// The wrapper run in the target (one line of Python per statement, no NUL).
    fn bootstrap(&self, pid: i32, follow_children: bool) -> Result<String> {
        // Attached programs get a program credential of their own once users exist (issue 48).
        let env = self.debugger.processes().launch_env_for(&format!("attached-{pid}"));
        let url = env.server_url.ok_or_else(|| Error::conflict("not_serving", "the server has no address yet"))?;
        let dir = client_dir_for(pid, env.client_dir.as_deref())?;
        Ok(bootstrap_code(&dir, &url, env.token.as_deref(), follow_children))
    }

    async fn put_client_in(
        &self,
        pid: i32,
        symbols: target::Symbols,
        version: PythonVersion,
        code: String,
        deadline: Instant,
    ) -> Result<AttachMethod> {
        if version >= (PythonVersion { major: 3, minor: 14, micro: 0 }) {
            return remote_exec(pid, &code, deadline).await;
        }
        // ptrace requests must come from the thread that attached: one thread per attach, which
        // ends (and with it any hold on the target) when the injection is over.
        let (done, result) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name(format!("breakroom-attach-{pid}"))
            .spawn(move || {
                let _ = done.send(inject::run_python(pid, &symbols, &code, deadline));
            })
            .map_err(|e| Error::conflict("attach_failed", format!("cannot start the attach thread: {e}")))?;
        let waited = tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), result).await;
        match waited {
            Err(_) => Err(Error::TimedOut(
                "attach_timeout",
                format!("process {pid} did not stop for the attach in time: {}", target::main_thread_whereabouts(pid)),
            )),
            Ok(Err(_)) => Err(Error::conflict("attach_failed", "the attach thread ended without an answer")),
            Ok(Ok(Ok(Route::OnBlockedThread))) => Ok(AttachMethod::BlockedThread),
            Ok(Ok(Ok(Route::PendingCall))) => Ok(AttachMethod::PendingCall),
            Ok(Ok(Err(e))) => Err(inject_error(pid, e)),
        }
    }

    /// Waits for the client to call in (its record appears) until `deadline`.
    async fn await_client(&self, pid: i64, deadline: Instant) -> Result<TrackedProcess> {
        let mut events = self.debugger.subscribe();
        loop {
            if let Some(process) = self.debugged_local_pid(pid).filter(|p| p.process_key.is_some()) {
                return Ok(process);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let raw = i32::try_from(pid).unwrap_or(0);
                return Err(Error::TimedOut(
                    "attach_timeout",
                    format!(
                        "the client was put into process {pid} but has not called in yet ({}); it will once the \
                         interpreter runs Python code again",
                        target::main_thread_whereabouts(raw)
                    ),
                ));
            }
            // Any process event may be it; the record is read again either way.
            let _ = tokio::time::timeout(left.min(Duration::from_millis(50)), events.recv()).await;
        }
    }
}

fn checked_pid(pid: i64) -> Result<i32> {
    let raw = i32::try_from(pid)
        .ok()
        .filter(|p| *p > 0)
        .ok_or_else(|| Error::invalid("invalid_pid", format!("pid must be a positive process id, not {pid}")))?;
    if raw as u32 == std::process::id() {
        return Err(Error::Unprocessable("not_python", "that is this server's own process".into()));
    }
    if !Path::new(&format!("/proc/{raw}")).exists() {
        return Err(Error::not_found("no_such_process", format!("no process with pid {pid} on this machine")));
    }
    Ok(raw)
}

/// The target's interpreter: its symbols and version, or why it cannot be attached to.
fn python_of(pid: i32) -> Result<(target::Symbols, PythonVersion)> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Err(Error::Unprocessable(
            "unsupported_platform",
            "attach works on x86-64 Linux only (ptrace and the x86-64 calling convention)".into(),
        ));
    }
    let symbols = target::symbols(pid).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => Error::Forbidden("ptrace_denied", local::denied_reason(pid)),
        std::io::ErrorKind::NotFound => Error::not_found("no_such_process", format!("process {pid} ended")),
        _ => Error::Unprocessable("not_python", format!("process {pid} cannot be read: {e}")),
    })?;
    if !symbols.is_python() {
        let argv = target::argv(pid).join(" ");
        return Err(Error::Unprocessable(
            "not_python",
            format!("process {pid} ({argv}) runs no Python interpreter (no PyRun_SimpleString in its executable or libraries)"),
        ));
    }
    let version = match target::python_version(pid, &symbols) {
        Some(v) => v,
        None if symbols.py_version.is_some() => {
            return Err(Error::Forbidden("ptrace_denied", local::denied_reason(pid)));
        }
        None => {
            let named = target::version_from_files(pid).unwrap_or_else(|| "older than 3.11".into());
            return Err(Error::Unprocessable(
                "unsupported_python",
                format!("process {pid} runs Python {named}: attach needs Python 3.11 or later"),
            ));
        }
    };
    if version.minor < 11 {
        return Err(Error::Unprocessable(
            "unsupported_python",
            format!("process {pid} runs Python {version}: attach needs Python 3.11 or later"),
        ));
    }
    if !local::may_trace(pid) {
        return Err(Error::Forbidden("ptrace_denied", local::denied_reason(pid)));
    }
    Ok((symbols, version))
}

fn inject_error(pid: i32, e: InjectError) -> Error {
    match e {
        InjectError::NoProcess => Error::not_found("no_such_process", format!("process {pid} ended")),
        InjectError::Denied(errno) => {
            Error::Forbidden("ptrace_denied", format!("{} (ptrace: {errno})", local::denied_reason(pid)))
        }
        InjectError::MissingSymbol(name) => {
            Error::Unprocessable("unsupported_python", format!("process {pid}'s interpreter does not export {name}"))
        }
        InjectError::Failed(why) => Error::conflict("attach_failed", format!("attach to process {pid} failed: {why}")),
    }
}

/// Where the target imports the client from. A process of another user (attached by root)
/// cannot read the server's private copy: it gets one it can read and not change.
fn client_dir_for(pid: i32, private: Option<&Path>) -> Result<PathBuf> {
    let ours = nix::unistd::getuid().as_raw();
    match (private, target::uid(pid)) {
        (Some(dir), Some(uid)) if uid == ours => Ok(dir.to_path_buf()),
        _ => {
            let dir = std::env::temp_dir().join(format!("breakroom-attach-client-{}", std::process::id()));
            crate::processes::client_bundle::install_readable(&dir).map_err(|e| {
                Error::conflict("attach_failed", format!("cannot write the client to {}: {e}", dir.display()))
            })
        }
    }
}

/// Python string literal of `text` (JSON's escapes are Python's for these).
fn py_str(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "''".into())
}

/// The code the target runs. Everything is inside `try/except BaseException` (a pending call
/// that raises kills the process) and inside `exec` with its own namespace (nothing is added to
/// the program's `__main__`). The client is imported here, on the interrupted thread, which
/// holds the GIL: on a thread of its own, a busy main thread would make every import wait its
/// turn. Calling in (network) happens on the client's thread; the interrupted thread goes on.
///
/// Unless the interrupted thread may be in the middle of an import (a module in `sys.modules`
/// still `_initializing`): importing the client there would hand it that module half made (an
/// attach right after a program's `import random` found `warnings` without `warn`). Then the
/// client is imported on a thread of its own, where an import of a module another thread is
/// making waits for it to be made; its turns for the GIL are made short while it imports.
pub fn bootstrap_code(client_dir: &Path, url: &str, token: Option<&str>, follow_children: bool) -> String {
    let body = format!(
        "import sys\n\
         def report(e):\n\
         \x20   try: sys.stderr.write('breakroom: attach failed: %r\\n' % (e,))\n\
         \x20   except BaseException: pass\n\
         def start():\n\
         \x20   if {dir} not in sys.path: sys.path.insert(0, {dir})\n\
         \x20   from breakroom import attach\n\
         \x20   attach.start_in_background({url}, {token}, {follow})\n\
         def start_aside():\n\
         \x20   try:\n\
         \x20       turn = sys.getswitchinterval()\n\
         \x20       sys.setswitchinterval(min(turn, 0.0005))\n\
         \x20       try: start()\n\
         \x20       finally: sys.setswitchinterval(turn)\n\
         \x20   except BaseException as e: report(e)\n\
         def importing():\n\
         \x20   for module in list(sys.modules.values()):\n\
         \x20       if getattr(getattr(module, '__spec__', None), '_initializing', False): return True\n\
         \x20   return False\n\
         if not getattr(sys, '_breakroom_attached', False):\n\
         \x20   sys._breakroom_attached = True\n\
         \x20   try:\n\
         \x20       if importing():\n\
         \x20           import _thread\n\
         \x20           _thread.start_new_thread(start_aside, ())\n\
         \x20       else:\n\
         \x20           start()\n\
         \x20   except BaseException as e: report(e)\n",
        dir = py_str(&client_dir.display().to_string()),
        url = py_str(url),
        token = token.map(py_str).unwrap_or_else(|| "None".into()),
        follow = if follow_children { "True" } else { "False" },
    );
    format!(
        "try:\n    exec({}, {{'__name__': '__breakroom_attach__'}})\nexcept BaseException:\n    pass\n",
        py_str(&body)
    )
}

/// Python 3.14+: the target's own interpreter asks it to run a script (PEP 768).
async fn remote_exec(pid: i32, code: &str, deadline: Instant) -> Result<AttachMethod> {
    let script = std::env::temp_dir().join(format!("breakroom-attach-{pid}-{}.py", std::process::id()));
    std::fs::write(&script, code)
        .map_err(|e| Error::conflict("attach_failed", format!("cannot write {}: {e}", script.display())))?;
    let exe = format!("/proc/{pid}/exe");
    let run = tokio::process::Command::new(&exe)
        .arg("-c")
        .arg("import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])")
        .arg(pid.to_string())
        .arg(&script)
        .output();
    let out = tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), run).await;
    match out {
        Err(_) => Err(Error::TimedOut("attach_timeout", format!("sys.remote_exec({pid}) did not return in time"))),
        Ok(Err(e)) => Err(Error::conflict("attach_failed", format!("cannot run {exe}: {e}"))),
        Ok(Ok(done)) if done.status.success() => Ok(AttachMethod::RemoteExec),
        Ok(Ok(done)) => {
            let stderr = String::from_utf8_lossy(&done.stderr);
            let last = stderr.lines().last().unwrap_or("").to_string();
            if last.contains("PermissionError") {
                return Err(Error::Forbidden("ptrace_denied", format!("{} ({last})", local::denied_reason(pid))));
            }
            Err(Error::Unprocessable(
                "remote_debugging_disabled",
                format!("sys.remote_exec refused (remote debugging may be off: PYTHON_DISABLE_REMOTE_DEBUG, -X disable_remote_debug): {last}"),
            ))
        }
    }
}
