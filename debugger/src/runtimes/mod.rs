//! Runtimes (issue 19): per workspace, a long-lived bash and a long-lived Python process,
//! started on first use, kept between commands (variables, imports, exported env, cwd), their
//! commands recorded, and ended after inactivity.
//!
//! The shapes here compile for the browser too; the processes, the registry and the history
//! store are behind the `runtime` feature.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[cfg(feature = "runtime")]
pub mod bash;
#[cfg(feature = "runtime")]
pub mod exec;
#[cfg(feature = "runtime")]
pub mod idle;
#[cfg(feature = "runtime")]
pub mod python;
#[cfg(feature = "runtime")]
pub mod registry;
#[cfg(feature = "runtime")]
pub mod runtime;
#[cfg(feature = "runtime")]
pub mod spare;
#[cfg(feature = "runtime")]
pub mod store;
#[cfg(feature = "runtime")]
pub mod workspace;

#[cfg(feature = "runtime")]
pub use registry::{RuntimeConfig, RuntimeRegistry};

/// Which process of a workspace runs a command.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    Bash,
    Python,
}

impl Language {
    pub const ALL: [Language; 2] = [Language::Bash, Language::Python];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Bash => "bash",
            Language::Python => "python",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Language::ALL.into_iter().find(|l| l.as_str() == text)
    }
}

/// `POST /api/runtimes/{workspace}/exec`. Fields are loose so that a bad value gets an error
/// naming it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecRequest {
    /// Bash or Python source; several lines run as one unit.
    #[serde(default)]
    pub command: Option<String>,
    /// `bash` (default) or `python`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Language>))]
    pub language: Option<String>,
    /// Interrupt the command after this long (default 30,000; 1 to 3,600,000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Sets this workspace's idle timeout (seconds; default: the server's `--runtime-idle`).
    #[serde(default)]
    pub idle_timeout_s: Option<f64>,
}

/// What a command did.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecResult {
    /// Exit code 0 and not timed out.
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
    /// Bash: the command's; Python: 0, or 1 after a traceback. 130 when interrupted; None when
    /// the process ended (see `notice`).
    pub exit_code: Option<i32>,
    pub duration_ms: f64,
    pub timed_out: bool,
    /// The process was started for this command (first use, after a reset, a death or a failed
    /// interrupt).
    pub started: bool,
    /// Earlier definitions, variables, imports or cwd are gone (the process was restarted).
    pub state_lost: bool,
    /// Something the user must know beyond the output: the process died, was restarted, ...
    pub notice: Option<String>,
}

/// One command in a workspace's durable history.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Seconds since the Unix epoch, when it started.
    pub timestamp: f64,
    pub command: String,
    pub language: Language,
    pub duration_ms: f64,
    pub exit_code: Option<i32>,
    pub success: bool,
    pub timed_out: bool,
    /// What it printed, kept so a reloaded terminal shows it again; the first
    /// [`HISTORY_OUTPUT_CAP`] bytes of each stream.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
}

/// Bytes of each stream a history entry keeps (the answer to the command itself has up to the
/// output cap): a hundred entries of a chatty command must not make the history page huge.
pub const HISTORY_OUTPUT_CAP: usize = 16 * 1024;

/// `text` cut to at most `cap` bytes on a character boundary, saying how much was left out.
pub fn cut_for_history(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_string();
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[… {} more bytes not kept in the history]\n", &text[..end], text.len() - end)
}

/// `GET /api/runtimes/{workspace}/history`: newest last.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryPage {
    pub workspace: String,
    pub history: Vec<HistoryEntry>,
}

/// A name Python has bound to something imported.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonImport {
    /// The name in the namespace, e.g. `pd` or `Path`.
    pub name: String,
    /// The module it is or comes from, e.g. `pandas` or `pathlib`.
    pub module: String,
}

/// What the live processes of a workspace hold. Processes not started are not started for it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RuntimeState {
    pub workspace: String,
    /// A command is running: what follows is as it was after the previous command (a state
    /// request does not wait behind a command that may run for minutes).
    #[serde(default)]
    pub busy: bool,
    pub bash_running: bool,
    pub python_running: bool,
    /// Bash's exported environment.
    pub env_vars: BTreeMap<String, String>,
    /// Bash's working directory.
    pub working_dir: Option<String>,
    /// Functions defined in bash.
    pub bash_functions: Vec<String>,
    /// Python's working directory (it has its own).
    pub python_working_dir: Option<String>,
    /// Names bound to modules, or to functions and classes of other modules, in Python.
    pub imports: Vec<PythonImport>,
    /// Functions and classes defined in Python.
    pub functions: Vec<String>,
    /// Other Python names, with their type's name.
    pub variables: BTreeMap<String, String>,
    /// The newest commands, newest last.
    pub history: Vec<HistoryEntry>,
}

/// One workspace, as `/runtimes` lists it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceSummary {
    pub workspace: String,
    pub bash_pid: Option<i64>,
    pub python_pid: Option<i64>,
    /// Seconds since the Unix epoch.
    pub created_at: f64,
    pub last_used_at: f64,
    pub idle_timeout_s: f64,
    /// Seconds until it is ended for inactivity (0 while a command runs: it is not idle).
    pub ends_in_s: f64,
    pub busy: bool,
    /// Commands run since it was created.
    pub commands: u64,
}

/// `GET /api/runtimes`: oldest first.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceList {
    pub workspaces: Vec<WorkspaceSummary>,
    /// `--runtime-max`.
    pub max_workspaces: usize,
}

/// Refuses a workspace name that is not 1–64 characters of `[A-Za-z0-9._-]`.
pub fn valid_workspace(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}
