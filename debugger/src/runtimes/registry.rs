//! [`RuntimeRegistry`]: the workspaces, the rules for what may run (names, limits, the switch
//! that turns runtimes off on a non-loopback server) and the durable history.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use indexmap::IndexMap;
use tokio::sync::broadcast;

use super::spare::Spares;
use super::store::RuntimeStore;
use super::workspace::Workspace;
use super::{
    bash, cut_for_history, python, valid_workspace, ExecRequest, ExecResult, HistoryEntry, HistoryPage, Language,
    RuntimeState, WorkspaceList, WorkspaceSummary, HISTORY_OUTPUT_CAP,
};
use crate::error::{Error, Result};
use crate::ids;
use crate::live_events::LiveEvent;
use crate::store::Store;

/// Longest a command may be given to run.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Longest command source accepted.
pub const MAX_COMMAND_BYTES: usize = 1024 * 1024;
/// Most history entries one request returns.
pub const MAX_HISTORY_PAGE: usize = 1_000;

#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Off when the server listens beyond loopback without `--allow-runtimes`.
    pub enabled: bool,
    /// `--runtime-idle`: a workspace unused this long is ended.
    pub idle_timeout: Duration,
    /// `--runtime-max`: most live workspaces.
    pub max_workspaces: usize,
    /// Bytes kept per stream per command; the rest is cut with a marker.
    pub max_output: usize,
    /// History entries kept per workspace.
    pub max_history: usize,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            enabled: true,
            idle_timeout: Duration::from_secs(30 * 60),
            max_workspaces: 32,
            max_output: 1024 * 1024,
            max_history: 100,
        }
    }
}

pub(super) struct Inner {
    config: RuntimeConfig,
    workspaces: Mutex<IndexMap<String, Arc<Workspace>>>,
    store: RuntimeStore,
    spares: Arc<Spares>,
    /// Where a workspace's changes are told (the live stream: its admins, see
    /// `LiveEvent::for_admins_only`).
    live: broadcast::Sender<LiveEvent>,
}

impl Inner {
    /// Tells the live stream that `workspace` changed (no one listening is not an error).
    fn changed(&self, workspace: &str) {
        let _ = self.live.send(LiveEvent::RuntimesChanged { workspace: workspace.to_string() });
    }
}

/// Cheap to clone: every clone is the same registry.
#[derive(Clone)]
pub struct RuntimeRegistry {
    inner: Arc<Inner>,
}

fn check_name(workspace: &str) -> Result<()> {
    if valid_workspace(workspace) {
        Ok(())
    } else {
        Err(Error::invalid(
            "invalid_workspace",
            format!("workspace names are 1 to 64 characters of A-Z a-z 0-9 . _ -, not {workspace:?}"),
        ))
    }
}

/// An idle timeout given in seconds: positive, finite, at most a week.
fn idle_timeout(seconds: f64) -> Result<Duration> {
    if seconds.is_finite() && seconds > 0.0 && seconds <= 7.0 * 24.0 * 3600.0 {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(Error::invalid(
            "invalid_idle_timeout",
            format!("idle_timeout_s must be between 0 and 604800, not {seconds}"),
        ))
    }
}

impl RuntimeRegistry {
    pub fn new(config: RuntimeConfig, store: Store, live: broadcast::Sender<LiveEvent>) -> Self {
        RuntimeRegistry {
            inner: Arc::new(Inner {
                spares: Spares::new(config.max_output),
                config,
                workspaces: Mutex::new(IndexMap::new()),
                store: RuntimeStore::new(store),
                live,
            }),
        }
    }

    pub(super) fn shared(&self) -> Arc<Inner> {
        self.inner.clone()
    }

    pub(super) fn from_shared(inner: Arc<Inner>) -> Self {
        RuntimeRegistry { inner }
    }

    /// Starts a spare bash and Python, so that even a workspace's first command does not wait
    /// for an interpreter to start. Nothing when runtimes are off.
    pub fn warm_spares(&self) {
        if self.config().enabled {
            self.inner.spares.warm();
        }
    }

    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }

    fn workspaces(&self) -> MutexGuard<'_, IndexMap<String, Arc<Workspace>>> {
        self.inner.workspaces.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn check_enabled(&self) -> Result<()> {
        if self.inner.config.enabled {
            Ok(())
        } else {
            Err(Error::RuntimesDisabled)
        }
    }

    fn get(&self, workspace: &str) -> Option<Arc<Workspace>> {
        self.workspaces().get(workspace).cloned()
    }

    fn get_or_create(&self, workspace: &str) -> Result<Arc<Workspace>> {
        let mut all = self.workspaces();
        if let Some(found) = all.get(workspace) {
            return Ok(found.clone());
        }
        if all.len() >= self.inner.config.max_workspaces {
            return Err(Error::TooManyWorkspaces(self.inner.config.max_workspaces));
        }
        let created = Arc::new(Workspace::new(workspace.to_string(), self.inner.config.idle_timeout));
        all.insert(workspace.to_string(), created.clone());
        Ok(created)
    }

    /// Runs a command. It runs to its end even if the caller goes away (a closed connection
    /// must not leave a process half-way through an exchange).
    pub async fn exec(&self, workspace: &str, req: ExecRequest) -> Result<ExecResult> {
        self.check_enabled()?;
        check_name(workspace)?;
        let command = req.command.ok_or(Error::MissingField { code: "missing_command", field: "command" })?;
        if command.contains('\0') {
            return Err(Error::invalid("invalid_command", "command contains a NUL character"));
        }
        if command.len() > MAX_COMMAND_BYTES {
            return Err(Error::invalid(
                "command_too_long",
                format!("command is longer than {MAX_COMMAND_BYTES} bytes"),
            ));
        }
        let language = match req.language.as_deref().map(str::trim) {
            None | Some("") => Language::Bash,
            Some(name) => Language::parse(name).ok_or_else(|| {
                Error::invalid("invalid_language", format!("language must be bash or python, not {name:?}"))
            })?,
        };
        let timeout_ms = req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
        if !(1..=MAX_TIMEOUT_MS).contains(&timeout_ms) {
            return Err(Error::invalid(
                "invalid_timeout",
                format!("timeout_ms must be between 1 and {MAX_TIMEOUT_MS}, not {timeout_ms}"),
            ));
        }
        let idle = req.idle_timeout_s.map(idle_timeout).transpose()?;
        let ws = self.get_or_create(workspace)?;
        if let Some(idle) = idle {
            ws.set_idle_timeout(idle);
        }
        let timestamp = ids::now();
        let cap = self.inner.config.max_output;
        // The command, its history entry and the word that it ended run to their end in a task
        // of their own, even if the caller goes away.
        let running = {
            let inner = self.inner.clone();
            let name = workspace.to_string();
            let ws = ws.clone();
            let spares = self.inner.spares.clone();
            tokio::spawn(async move {
                let result = ws.exec(&spares, language, &command, Duration::from_millis(timeout_ms), cap).await;
                let entry = HistoryEntry {
                    timestamp,
                    command,
                    language,
                    duration_ms: result.duration_ms,
                    exit_code: result.exit_code,
                    success: result.success,
                    timed_out: result.timed_out,
                    stdout: cut_for_history(&result.stdout, HISTORY_OUTPUT_CAP),
                    stderr: cut_for_history(&result.stderr, HISTORY_OUTPUT_CAP),
                };
                let stored = inner.store.append(&name, &entry, inner.config.max_history);
                inner.changed(&name);
                stored.map(|()| result)
            })
        };
        // Told once the command runs: the workspace shows busy (and, new, shows at all).
        self.inner.changed(workspace);
        running.await.map_err(|e| Error::invalid("exec_failed", format!("the command's task failed: {e}")))?
    }

    /// What the live processes hold, and the recent history. A workspace with no live
    /// processes answers with its history alone.
    pub async fn state(&self, workspace: &str) -> Result<RuntimeState> {
        self.check_enabled()?;
        check_name(workspace)?;
        let mut state = RuntimeState { workspace: workspace.to_string(), ..RuntimeState::default() };
        if let Some(ws) = self.get(workspace) {
            let answers = ws.state(self.inner.config.max_output).await;
            state.busy = answers.stale;
            if let Some(out) = answers.bash {
                let bash = bash::parse_state(&out);
                state.bash_running = true;
                state.working_dir = Some(bash.working_dir);
                state.bash_functions = bash.functions;
                state.env_vars = bash.env;
            }
            if let Some(status) = answers.python {
                let python = python::answer(&status).state.unwrap_or_default();
                state.python_running = true;
                state.python_working_dir = python.working_dir;
                state.imports = python.imports;
                state.functions = python.functions;
                state.variables = python.variables;
            }
        }
        state.history = self.inner.store.recent(workspace, 20)?;
        Ok(state)
    }

    /// Ends the workspace's processes (a running command is killed) and clears its history;
    /// it stays listed, empty.
    pub async fn reset(&self, workspace: &str) -> Result<WorkspaceSummary> {
        self.check_enabled()?;
        check_name(workspace)?;
        let ws = self.get(workspace).ok_or_else(|| Error::WorkspaceNotFound(workspace.to_string()))?;
        ws.reset().await;
        let cleared = self.inner.store.clear(workspace);
        self.inner.changed(workspace);
        cleared?;
        Ok(ws.summary())
    }

    pub fn history(&self, workspace: &str, limit: usize) -> Result<HistoryPage> {
        self.check_enabled()?;
        check_name(workspace)?;
        let history = self.inner.store.recent(workspace, limit.clamp(1, MAX_HISTORY_PAGE))?;
        Ok(HistoryPage { workspace: workspace.to_string(), history })
    }

    pub fn list(&self) -> Result<WorkspaceList> {
        self.check_enabled()?;
        let workspaces = self.workspaces().values().map(|ws| ws.summary()).collect();
        Ok(WorkspaceList { workspaces, max_workspaces: self.inner.config.max_workspaces })
    }

    /// One workspace's summary, if it is live.
    pub fn summary(&self, workspace: &str) -> Result<Option<WorkspaceSummary>> {
        self.check_enabled()?;
        check_name(workspace)?;
        Ok(self.get(workspace).map(|ws| ws.summary()))
    }

    /// Ends a workspace: it leaves the list at once, its processes end in the background.
    pub fn stop(&self, workspace: &str) -> Result<WorkspaceSummary> {
        self.check_enabled()?;
        check_name(workspace)?;
        let ws =
            self.workspaces().shift_remove(workspace).ok_or_else(|| Error::WorkspaceNotFound(workspace.to_string()))?;
        let summary = ws.summary();
        self.inner.changed(workspace);
        tokio::spawn(async move { ws.reset().await });
        Ok(summary)
    }

    /// Ends every workspace idle past its timeout; returns their names.
    pub fn end_idle(&self) -> Vec<String> {
        let now = std::time::Instant::now();
        let expired: Vec<Arc<Workspace>> = {
            let mut all = self.workspaces();
            let names: Vec<String> = all.values().filter(|ws| ws.is_expired(now)).map(|ws| ws.name.clone()).collect();
            names.iter().filter_map(|name| all.shift_remove(name)).collect()
        };
        let names: Vec<String> = expired.iter().map(|ws| ws.name.clone()).collect();
        for name in &names {
            self.inner.changed(name);
        }
        for ws in expired {
            tokio::spawn(async move { ws.reset().await });
        }
        names
    }
}
