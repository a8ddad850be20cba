//! The shapes of tracked processes, as the API, the live stream and the pages carry them: a
//! process's record, its status and role, its output lines and pages, and a launch request. Kept
//! apart from `processes` (the registry and the service), which comes later in the order: the
//! live events and the breakpoints' targeting use these shapes, and compile for the browser.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Where a process is in its life. `paused` is a running process with a paused call.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcessStatus {
    Running,
    Paused,
    /// Ended with exit code 0.
    Exited,
    /// Ended with another exit code, by a fault signal (SIGSEGV, SIGABRT, …), or failed to start.
    Crashed,
    /// Ended by a termination signal (SIGTERM, SIGKILL, SIGINT, SIGHUP).
    Killed,
    /// Its end was not seen: the server restarted while it ran, or a connected client vanished.
    Lost,
}

impl ProcessStatus {
    pub fn is_alive(self) -> bool {
        matches!(self, ProcessStatus::Running | ProcessStatus::Paused)
    }

    /// Ended with exit code 0: kept in the active list for the shorter time.
    pub fn is_clean_exit(self) -> bool {
        self == ProcessStatus::Exited
    }
}

/// How Breakroom came to know the process.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcessOrigin {
    /// Started by Breakroom: its output is captured and its exit seen.
    Launched,
    /// A debug client that called in by itself: seen through its calls and its pid.
    Connected,
    /// A running program Breakroom put its client into (`breakroom attach PID`).
    Attached,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputStream {
    Stdout,
    Stderr,
}

impl OutputStream {
    pub const BOTH: [OutputStream; 2] = [OutputStream::Stdout, OutputStream::Stderr];

    pub fn as_str(self) -> &'static str {
        match self {
            OutputStream::Stdout => "stdout",
            OutputStream::Stderr => "stderr",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        OutputStream::BOTH.into_iter().find(|s| s.as_str() == text)
    }
}

/// Lines captured and dropped on one stream.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamCounts {
    /// Lines captured since launch, dropped ones included.
    pub lines: u64,
    /// Oldest lines deleted to keep the stream under `--output-limit`.
    pub dropped: u64,
    /// Bytes captured since launch (each line's text plus its newline).
    pub bytes: u64,
}

/// One tracked process, as the list, the process page and `breakroom ps` show it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackedProcess {
    /// Short and stable: `BREAKROOM_PROCESS_ID` of a launched process, and its page `/process/{id}`.
    pub id: String,
    pub name: String,
    /// Program and arguments (for a connected client, its `sys.argv` when it sent it).
    pub command: Vec<String>,
    pub cwd: Option<String>,
    pub pid: Option<i64>,
    /// Host name the process runs on.
    pub host: String,
    pub origin: ProcessOrigin,
    /// Seconds since the Unix epoch.
    pub started_at: f64,
    pub ended_at: Option<f64>,
    pub status: ProcessStatus,
    pub exit_code: Option<i32>,
    /// Name of the signal that ended it, e.g. `SIGKILL`.
    pub signal: Option<String>,
    /// One line: the exception line of the last Python traceback on stderr, else e.g.
    /// "killed by SIGSEGV" or "exit code 3". None after a clean exit.
    pub reason: Option<String>,
    /// Seconds from start to end, or to now while it runs.
    pub uptime_s: f64,
    /// The debug protocol's process key (`{start_time}+{pid}`) once its client has called in:
    /// its pauses, sessions and call tree are under this key.
    pub process_key: Option<String>,
    /// When it leaves the active list (finished processes only); it stays in history after.
    pub leaves_list_at: Option<f64>,
    pub stdout: StreamCounts,
    pub stderr: StreamCounts,
    /// The process that started it, when Breakroom follows that one too (issue 33).
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub role: ProcessRole,
    /// The records of the processes it started, oldest first (filled in when shown).
    #[serde(default)]
    pub children: Vec<String>,
    /// A child its parent started where Breakroom cannot follow, and why (`env=` without
    /// Breakroom's variables, `python -I`): listed, but never calls in.
    #[serde(default)]
    pub not_followed: Option<String>,
    /// What it says it is in a fleet (`BREAKROOM_LABELS`, `--label`): what breakpoints' `where`
    /// matches (issue 34). Not read by the pages' wasm, which renders none of it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[cfg_attr(not(feature = "runtime"), serde(skip))]
    pub labels: std::collections::BTreeMap<String, String>,
}

/// What a process is to the program being debugged.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcessRole {
    /// Started on its own (launched, connected, attached).
    #[default]
    Program,
    /// Started by a debugged process (subprocess, fork, multiprocessing worker).
    Child,
    /// Started by a library for its own bookkeeping (multiprocessing's resource tracker and
    /// forkserver): listed under its parent, never the program's code.
    Helper,
}

impl ProcessRole {
    /// What a client may say it is: only `helper` (child or program is the server's call).
    pub fn reported(text: &str) -> Option<Self> {
        (text == "helper").then_some(ProcessRole::Helper)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProcessRole::Program => "program",
            ProcessRole::Child => "child",
            ProcessRole::Helper => "helper",
        }
    }
}

/// `GET /api/processes`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessList {
    /// Oldest first.
    pub processes: Vec<TrackedProcess>,
}

/// A pause of a tracked process, for its page.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessPause {
    pub pause_id: String,
    pub call_id: String,
    pub function_name: String,
    pub paused_at: f64,
    /// None while paused.
    pub resumed_at: Option<f64>,
    /// Why it was resumed without a user (the process died, the server restarted).
    pub resumed_reason: Option<String>,
}

/// A REPL session of a tracked process, for its page.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessSession {
    pub session_id: String,
    pub pause_id: String,
    pub function_name: String,
    pub started_at: f64,
    pub closed_at: Option<f64>,
    pub closed_reason: Option<String>,
}

/// `GET /api/processes/{id}`: the record plus its pauses and REPL sessions.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessDetail {
    #[serde(flatten)]
    pub process: TrackedProcess,
    /// Oldest first.
    pub pauses: Vec<ProcessPause>,
    /// Oldest first.
    pub sessions: Vec<ProcessSession>,
    /// Its newest breakpoint hits and logpoint messages (`breakpoint_hit` and `log` events),
    /// oldest first.
    #[serde(default)]
    pub breakpoint_events: Vec<crate::model::RecordedEvent>,
}

/// One line a launched process wrote. ANSI colour codes are kept, for display.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputLine {
    /// Order of arrival across both streams of the process, from 0.
    pub seq: u64,
    /// When the server read it, seconds since the Unix epoch.
    pub time: f64,
    pub stream: OutputStream,
    /// Without its line ending; invalid UTF-8 is replaced.
    pub text: String,
}

/// `GET /api/processes/{id}/output`: a page of lines, oldest first.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputPage {
    pub lines: Vec<OutputLine>,
    /// Ask with `from=next` for the lines after these.
    pub next: u64,
    /// Lines of the asked streams deleted to stay under the output limit.
    pub dropped: u64,
}

/// `POST /api/processes`: what to launch. Fields are loose so that a bad value gets an error
/// naming it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchRequest {
    /// Program and arguments, e.g. `["python3", "app.py"]`; the program is looked up on PATH.
    #[cfg_attr(feature = "openapi", schema(min_items = 1))]
    #[serde(default)]
    pub command: Vec<String>,
    /// Shown in lists; default: the command.
    #[serde(default)]
    pub name: Option<String>,
    /// Working directory; default: the server's.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Added to (and overriding) the server's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Whether the Python processes it starts are debugged too (default true, issue 33).
    #[serde(default)]
    pub follow_children: Option<bool>,
}
