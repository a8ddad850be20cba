//! [`Workspace`]: a bash slot and a Python slot, each empty, live or dead, behind one FIFO lock
//! (tokio's mutex queues waiters in arrival order), so a workspace runs one command at a time,
//! in the order they came.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use super::runtime::Runtime;
use super::spare::Spares;
use super::{ExecResult, Language, WorkspaceSummary};
use crate::ids;
use crate::processes::launch::signal_group;

enum Slot {
    Empty,
    Live(Runtime),
    /// It ended: how, said to the next command, which starts a fresh one.
    Dead(String),
}

struct Slots {
    bash: Slot,
    python: Slot,
}

impl Slots {
    fn get(&mut self, language: Language) -> &mut Slot {
        match language {
            Language::Bash => &mut self.bash,
            Language::Python => &mut self.python,
        }
    }

    fn take_live(&mut self) -> Vec<Runtime> {
        let mut live = vec![];
        for slot in [&mut self.bash, &mut self.python] {
            if let Slot::Live(runtime) = std::mem::replace(slot, Slot::Empty) {
                live.push(runtime);
            }
        }
        live
    }
}

/// What pages and the idle check read without waiting for a running command.
struct Meta {
    last_used: Instant,
    last_used_at: f64,
    idle_timeout: Duration,
    busy: bool,
    commands: u64,
    pids: [Option<i64>; 2],
}

pub struct Workspace {
    pub name: String,
    pub created_at: f64,
    slots: tokio::sync::Mutex<Slots>,
    meta: Mutex<Meta>,
    /// The newest state answers (bash, Python), given while a command runs.
    last_state: Mutex<ProcessStates>,
}

/// Bash's state output and Python's status line, for a process that is running.
#[derive(Clone, Default)]
pub struct ProcessStates {
    pub bash: Option<String>,
    pub python: Option<String>,
    /// A command held the workspace: these are from before it.
    pub stale: bool,
}

fn index(language: Language) -> usize {
    match language {
        Language::Bash => 0,
        Language::Python => 1,
    }
}

impl Workspace {
    pub fn new(name: String, idle_timeout: Duration) -> Self {
        let now = ids::now();
        Workspace {
            name,
            created_at: now,
            slots: tokio::sync::Mutex::new(Slots { bash: Slot::Empty, python: Slot::Empty }),
            meta: Mutex::new(Meta {
                last_used: Instant::now(),
                last_used_at: now,
                idle_timeout,
                busy: false,
                commands: 0,
                pids: [None, None],
            }),
            last_state: Mutex::new(ProcessStates::default()),
        }
    }

    fn meta(&self) -> MutexGuard<'_, Meta> {
        self.meta.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn touch(&self, busy: bool) {
        let mut meta = self.meta();
        meta.last_used = Instant::now();
        meta.last_used_at = ids::now();
        meta.busy = busy;
    }

    pub fn set_idle_timeout(&self, timeout: Duration) {
        self.meta().idle_timeout = timeout;
    }

    /// Idle past its timeout (a running command is not idle).
    pub fn is_expired(&self, now: Instant) -> bool {
        let meta = self.meta();
        !meta.busy && now.saturating_duration_since(meta.last_used) >= meta.idle_timeout
    }

    pub fn summary(&self) -> WorkspaceSummary {
        let meta = self.meta();
        let idle = meta.last_used.elapsed();
        WorkspaceSummary {
            workspace: self.name.clone(),
            bash_pid: meta.pids[0],
            python_pid: meta.pids[1],
            created_at: self.created_at,
            last_used_at: meta.last_used_at,
            idle_timeout_s: meta.idle_timeout.as_secs_f64(),
            ends_in_s: if meta.busy {
                meta.idle_timeout.as_secs_f64()
            } else {
                (meta.idle_timeout.saturating_sub(idle)).as_secs_f64()
            },
            busy: meta.busy,
            commands: meta.commands,
        }
    }

    /// Runs one command, starting (or restarting) the language's process as needed.
    pub async fn exec(
        &self,
        spares: &Arc<Spares>,
        language: Language,
        command: &str,
        timeout: Duration,
        cap: usize,
    ) -> ExecResult {
        let mut slots = self.slots.lock().await;
        self.touch(true);
        let began = Instant::now();
        let name = language.as_str();
        let slot = slots.get(language);
        let mut result = ExecResult::default();
        if let Slot::Live(runtime) = slot {
            if let Some(how) = runtime.exited() {
                runtime.kill();
                *slot = Slot::Dead(format!("{name} {how}"));
            }
        }
        if !matches!(slot, Slot::Live(_)) {
            if let Slot::Dead(how) = slot {
                result.notice =
                    Some(format!("{how} since the last command: started a fresh {name}; earlier state is gone"));
                result.state_lost = true;
            }
            match spares.take(language).await {
                Ok(runtime) => {
                    self.note_pid(language, Some(runtime.pid()));
                    *slot = Slot::Live(runtime);
                }
                Err(message) => {
                    *slot = Slot::Empty;
                    result.stderr = message.clone();
                    result.notice = Some(message);
                    return self.finished(result, began, language, None);
                }
            }
            result.started = true;
        }
        let Slot::Live(runtime) = slot else { return self.finished(result, began, language, None) };
        let ran = runtime.exec(command, timeout, cap).await;
        result.stdout = ran.stdout;
        result.stderr = ran.stderr;
        result.exit_code = ran.exit_code;
        result.timed_out = ran.timed_out;
        if let Some(how) = ran.died {
            runtime.kill();
            let how = format!("{name} {how}");
            result.notice = Some(format!("{how}: the next {name} command starts a fresh one"));
            *slot = Slot::Dead(how);
        } else if ran.killed {
            // The interrupt did nothing within 2 s: only a new process gets the workspace back.
            result.state_lost = true;
            result.exit_code = Some(130);
            let restarted = spares.take(language).await;
            result.notice = Some(match &restarted {
                Ok(_) => format!("{name} did not stop within 2 s of the interrupt: it was killed and restarted; earlier state is gone"),
                Err(e) => format!("{name} did not stop within 2 s of the interrupt and was killed; restarting it failed: {e}"),
            });
            *slot = restarted.map(Slot::Live).unwrap_or(Slot::Empty);
        }
        let pid = match slots.get(language) {
            Slot::Live(runtime) => Some(runtime.pid()),
            _ => None,
        };
        result.success = result.exit_code == Some(0) && !result.timed_out;
        self.finished(result, began, language, pid)
    }

    fn finished(&self, mut result: ExecResult, began: Instant, language: Language, pid: Option<i64>) -> ExecResult {
        result.duration_ms = began.elapsed().as_secs_f64() * 1000.0;
        let mut meta = self.meta();
        meta.pids[index(language)] = pid;
        meta.commands += 1;
        meta.busy = false;
        meta.last_used = Instant::now();
        meta.last_used_at = ids::now();
        result
    }

    /// Bash's and Python's state; a process not running is not started for it. While a
    /// command runs, the answer of the previous request, marked stale, instead of waiting.
    pub async fn state(&self, cap: usize) -> ProcessStates {
        let Ok(mut slots) = self.slots.try_lock() else {
            let mut last = self.last_state.lock().unwrap_or_else(|p| p.into_inner()).clone();
            last.stale = true;
            return last;
        };
        let mut answers = ProcessStates::default();
        for language in Language::ALL {
            if let Slot::Live(runtime) = slots.get(language) {
                let answer = runtime.state(cap).await;
                match language {
                    Language::Bash => answers.bash = answer.map(|(out, _)| out),
                    Language::Python => answers.python = answer.map(|(_, status)| status),
                }
            }
        }
        *self.last_state.lock().unwrap_or_else(|p| p.into_inner()) = answers.clone();
        answers
    }

    /// Ends both processes (a running command is killed); the workspace stays, empty.
    pub async fn reset(&self) {
        self.kill_if_busy();
        let live = self.slots.lock().await.take_live();
        *self.last_state.lock().unwrap_or_else(|p| p.into_inner()) = ProcessStates::default();
        {
            let mut meta = self.meta();
            meta.pids = [None, None];
        }
        self.touch(false);
        for runtime in live {
            runtime.stop().await;
        }
    }

    /// A running command would hold the lock until its timeout: its processes are killed.
    fn kill_if_busy(&self) {
        let meta = self.meta();
        if meta.busy {
            for pid in meta.pids.iter().flatten() {
                signal_group(*pid, Signal::SIGKILL);
            }
        }
    }

    /// Pid of a live process whose command is running (`kill_if_busy` needs it before the end).
    fn note_pid(&self, language: Language, pid: Option<i64>) {
        self.meta().pids[index(language)] = pid;
    }
}
