//! What bash and Python runtimes share: a child in its own process group with clean signal
//! dispositions, its stdout and stderr read up to a per-command end marker, a status channel on
//! fd [`STATUS_FD`], and shutdown (`exit`, then SIGTERM, then SIGKILL after 2 s).
//!
//! Each command gets a fresh token. When it is done the runtime writes `\0BRK<token>\0` on
//! stdout and on stderr and a status line naming the token on the status fd: the markers say
//! where the command's output ends on each stream, the status line says how it ended. Markers
//! and status lines of other tokens (a command that was interrupted twice over) are dropped.

use std::os::fd::{AsRawFd, OwnedFd};
use std::process::Stdio;
use std::time::{Duration, Instant};

use memchr::memmem;
use nix::sys::signal::Signal;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader, Lines};
use tokio::net::unix::pipe;

use crate::processes::crash_reason::signal_name;
use crate::processes::launch::signal_group;

/// The runtime writes status lines to this fd (high, so that a command's own `exec 3>…` does
/// not take it).
pub const STATUS_FD: i32 = 63;
/// How long `exit` and then SIGTERM get before the next step.
pub const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long an interrupted command gets to give up before its process is restarted.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(2);
/// After a process ended, how long what it wrote last is still read (children may hold pipes).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(300);

const MARKER_PREFIX: &[u8] = b"\0BRK";

/// A fresh token per command: unguessable enough that output never forges it by accident.
pub fn token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Output of one stream of one command, capped.
#[derive(Debug, Default)]
pub struct Captured {
    bytes: Vec<u8>,
    cut: u64,
}

impl Captured {
    fn push(&mut self, data: &[u8], cap: usize) {
        let room = cap.saturating_sub(self.bytes.len());
        let kept = data.len().min(room);
        self.bytes.extend_from_slice(&data[..kept]);
        self.cut += (data.len() - kept) as u64;
    }

    /// The text, with a marker where it was cut.
    pub fn into_text(self, cap: usize) -> String {
        let mut text = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.cut > 0 {
            text.push_str(&format!("\n[… {} more bytes cut: output is capped at {cap} bytes per stream]\n", self.cut));
        }
        text
    }
}

/// One output pipe, read up to the marker of the running command. What it read stays here,
/// so a read given up (a timeout) loses nothing.
pub struct StreamReader {
    pipe: Box<dyn AsyncRead + Unpin + Send>,
    /// Read, not yet judged: may hold the start of a marker.
    pending: Vec<u8>,
    pub captured: Captured,
    pub eof: bool,
}

impl StreamReader {
    pub fn new(pipe: impl AsyncRead + Unpin + Send + 'static) -> Self {
        StreamReader { pipe: Box::new(pipe), pending: vec![], captured: Captured::default(), eof: false }
    }

    /// Moves what is pending into the capture until `token`'s marker; true once it is seen.
    fn judge(&mut self, token: &str, cap: usize) -> bool {
        loop {
            let Some(start) = memmem::find(&self.pending, MARKER_PREFIX) else {
                // All but a possible marker start is output.
                let keep = self.pending.len().min(MARKER_PREFIX.len() - 1);
                let split = self.pending.len() - keep;
                let head: Vec<u8> = self.pending.drain(..split).collect();
                self.captured.push(&head, cap);
                return false;
            };
            let head: Vec<u8> = self.pending.drain(..start).collect();
            self.captured.push(&head, cap);
            let after = MARKER_PREFIX.len();
            let Some(end) = self.pending[after..].iter().position(|&b| b == 0) else {
                // A marker cut in two by the pipe; a very long "marker" is output after all.
                if self.pending.len() > after + 64 {
                    let byte: Vec<u8> = self.pending.drain(..1).collect();
                    self.captured.push(&byte, cap);
                    continue;
                }
                return false;
            };
            let found = self.pending[after..after + end] == *token.as_bytes();
            let is_token = end <= 64 && self.pending[after..after + end].iter().all(u8::is_ascii_alphanumeric);
            if is_token {
                self.pending.drain(..after + end + 1);
                if found {
                    return true;
                }
            } else {
                let byte: Vec<u8> = self.pending.drain(..1).collect();
                self.captured.push(&byte, cap);
            }
        }
    }

    /// Reads until `token`'s marker (true) or the end of the pipe (false).
    pub async fn until_marker(&mut self, token: &str, cap: usize) -> bool {
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            if self.judge(token, cap) {
                return true;
            }
            if self.eof {
                return false;
            }
            match self.pipe.read(&mut chunk).await {
                Ok(0) | Err(_) => {
                    self.eof = true;
                    let rest = std::mem::take(&mut self.pending);
                    self.captured.push(&rest, cap);
                }
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// Reads what arrives within `limit` (the last words of a process that ended).
    pub async fn drain(&mut self, cap: usize, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.until_marker("", cap)).await;
        let rest = std::mem::take(&mut self.pending);
        self.captured.push(&rest, cap);
    }

    pub fn take(&mut self, cap: usize) -> String {
        std::mem::take(&mut self.captured).into_text(cap)
    }
}

/// The status fd, line by line. `next_line` is cancel-safe, so a timeout loses nothing.
pub struct StatusReader {
    lines: Lines<BufReader<pipe::Receiver>>,
}

impl StatusReader {
    /// The first status line for `token`, without its token; None when the fd closed.
    pub async fn wait_for(&mut self, token: &str) -> Option<String> {
        loop {
            let line = self.lines.next_line().await.ok()??;
            // `TOKEN REST`: bash's REST is the exit code, Python's a JSON object.
            if let Some(rest) = line.strip_prefix(token).and_then(|rest| rest.strip_prefix(' ')) {
                return Some(rest.to_string());
            }
        }
    }
}

/// A runtime's process and its pipes.
pub struct RuntimeProcess {
    pub child: tokio::process::Child,
    pub pid: i64,
    pub stdin: tokio::process::ChildStdin,
    pub stdout: StreamReader,
    pub stderr: StreamReader,
    pub status: StatusReader,
    pub started_at: Instant,
}

/// How a process ended, in words, e.g. "exited with code 3" or "was killed by SIGSEGV".
pub fn ending(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(sig)) => format!("was killed by {}", signal_name(sig)),
        _ => "ended".to_string(),
    }
}

/// Starts `cmd` in its own process group with the status pipe on [`STATUS_FD`] and SIGINT,
/// SIGQUIT, SIGTERM and SIGHUP at their defaults (a server started in the background has SIGINT
/// ignored, and a child inherits that: the interrupt would do nothing).
pub fn spawn(mut cmd: tokio::process::Command) -> std::io::Result<RuntimeProcess> {
    let (status_read, status_write) = std::io::pipe()?;
    let status_write: OwnedFd = status_write.into();
    let raw = status_write.as_raw_fd();
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).kill_on_drop(true);
    // SAFETY: between fork and exec only async-signal-safe calls (dup2, signal) are made.
    unsafe {
        cmd.pre_exec(move || {
            use nix::libc;
            if libc::dup2(raw, STATUS_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            for sig in [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    drop(status_write);
    let missing = || std::io::Error::other("a pipe of the runtime is missing");
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stderr = child.stderr.take().ok_or_else(missing)?;
    let receiver = pipe::Receiver::from_owned_fd(OwnedFd::from(status_read))?;
    let pid = child.id().map(i64::from).unwrap_or(0);
    Ok(RuntimeProcess {
        child,
        pid,
        stdin,
        stdout: StreamReader::new(stdout),
        stderr: StreamReader::new(stderr),
        status: StatusReader { lines: BufReader::new(receiver).lines() },
        started_at: Instant::now(),
    })
}

/// How waiting for a command ended.
pub enum Finish {
    /// Its status line, and both markers, arrived.
    Done(String),
    /// The process ended first: how.
    Died(String),
    /// The deadline passed.
    Deadline,
}

impl RuntimeProcess {
    /// Waits for `token`'s status line and both markers, or the process's end, or `deadline`.
    pub async fn finish(&mut self, token: &str, cap: usize, deadline: Instant) -> Finish {
        let RuntimeProcess { child, stdout, stderr, status, .. } = self;
        let done = async {
            let (line, _, _) =
                tokio::join!(status.wait_for(token), stdout.until_marker(token, cap), stderr.until_marker(token, cap));
            line
        };
        tokio::select! {
            line = done => match line {
                Some(line) => Finish::Done(line),
                None => Finish::Died(self.died().await),
            },
            exit = child.wait() => {
                let how = exit.map(|s| ending(&s)).unwrap_or_else(|e| format!("could not be waited for ({e})"));
                self.stdout.drain(cap, DRAIN_AFTER_EXIT).await;
                self.stderr.drain(cap, DRAIN_AFTER_EXIT).await;
                Finish::Died(how)
            }
            _ = tokio::time::sleep_until(deadline.into()) => Finish::Deadline,
        }
    }

    /// How the process ended, once it has (it closed its status fd).
    async fn died(&mut self) -> String {
        match tokio::time::timeout(STOP_GRACE, self.child.wait()).await {
            Ok(Ok(status)) => ending(&status),
            _ => {
                self.kill_group();
                "closed its status channel".to_string()
            }
        }
    }

    /// Whether the process has ended since the last command (killed from outside, OOM).
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(ending(&status)),
            Ok(None) => None,
            Err(e) => Some(format!("could not be checked ({e})")),
        }
    }

    pub fn interrupt(&self) {
        signal_group(self.pid, Signal::SIGINT);
    }

    pub fn kill_group(&self) {
        signal_group(self.pid, Signal::SIGKILL);
    }

    /// `exit` (already written by the caller), then SIGTERM, then SIGKILL after 2 s each.
    pub async fn shut_down(mut self) {
        drop(self.stdin);
        if tokio::time::timeout(STOP_GRACE, self.child.wait()).await.is_ok() {
            // Its children may live on in its group.
            signal_group(self.pid, Signal::SIGKILL);
            return;
        }
        signal_group(self.pid, Signal::SIGTERM);
        if tokio::time::timeout(STOP_GRACE, self.child.wait()).await.is_err() {
            signal_group(self.pid, Signal::SIGKILL);
            let _ = self.child.wait().await;
        }
        signal_group(self.pid, Signal::SIGKILL);
    }
}
