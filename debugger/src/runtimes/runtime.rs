//! [`Runtime`]: one live process of one language, and a command's round trip through it:
//! send, wait for the end markers, interrupt on timeout, give up on it when the interrupt fails.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use super::exec::{self, Finish, RuntimeProcess, INTERRUPT_GRACE};
use super::{bash, python, Language};

/// How long a runtime may take to start and answer its first ping.
const START_LIMIT: Duration = Duration::from_secs(10);

pub struct Runtime {
    pub language: Language,
    process: RuntimeProcess,
}

/// How one command went.
#[derive(Debug, Default)]
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The process ended during the command: how ("exited with code 3").
    pub died: Option<String>,
    /// The interrupt did not end the command within 2 s: the process was killed.
    pub killed: bool,
    /// The status line after the token.
    pub status: String,
}

impl Runtime {
    /// Starts the process and waits until it reads commands; what it printed while starting
    /// (bash's note that it has no job control) is dropped.
    pub async fn start(language: Language, cap: usize) -> Result<Runtime, String> {
        let cmd = match language {
            Language::Bash => bash::command(),
            Language::Python => python::command(),
        };
        let name = language.as_str();
        let process = exec::spawn(cmd).map_err(|e| format!("cannot start {name}: {e}"))?;
        let mut runtime = Runtime { language, process };
        let token = exec::token();
        let init = match language {
            Language::Bash => bash::init(&token),
            Language::Python => python::init(&token),
        };
        let sent = runtime.write(&init).await;
        let finish = if sent {
            runtime.process.finish(&token, cap, Instant::now() + START_LIMIT).await
        } else {
            Finish::Died("stopped reading its input".into())
        };
        let stderr = runtime.process.stderr.take(cap);
        runtime.process.stdout.take(cap);
        match finish {
            Finish::Done(_) => Ok(runtime),
            Finish::Died(how) => Err(format!("{name} {how} while starting: {}", stderr.trim())),
            Finish::Deadline => {
                runtime.process.kill_group();
                Err(format!("{name} did not start within {} s", START_LIMIT.as_secs()))
            }
        }
    }

    pub fn pid(&self) -> i64 {
        self.process.pid
    }

    /// Whether the process ended since the last command, and how.
    pub fn exited(&mut self) -> Option<String> {
        self.process.exited()
    }

    async fn write(&mut self, line: &str) -> bool {
        self.process.stdin.write_all(line.as_bytes()).await.is_ok() && self.process.stdin.flush().await.is_ok()
    }

    /// Sends one line (a command, a state request) and waits for its answer for `timeout`,
    /// then interrupts it and waits 2 s more, then kills the process.
    async fn round_trip(&mut self, line: &str, token: &str, timeout: Duration, cap: usize) -> Ran {
        let mut ran = Ran::default();
        let finish = if self.write(line).await {
            match self.process.finish(token, cap, Instant::now() + timeout).await {
                Finish::Deadline => {
                    ran.timed_out = true;
                    self.process.interrupt();
                    if self.language == Language::Bash {
                        let _ = self.write(&bash::after_interrupt(token)).await;
                    }
                    self.process.finish(token, cap, Instant::now() + INTERRUPT_GRACE).await
                }
                other => other,
            }
        } else {
            Finish::Died(self.exited().unwrap_or_else(|| "stopped reading its input".into()))
        };
        match finish {
            Finish::Done(status) => ran.status = status,
            Finish::Died(how) => ran.died = Some(how),
            Finish::Deadline => {
                self.process.kill_group();
                ran.killed = true;
            }
        }
        ran.stdout = self.process.stdout.take(cap);
        ran.stderr = self.process.stderr.take(cap);
        ran
    }

    pub async fn exec(&mut self, command: &str, timeout: Duration, cap: usize) -> Ran {
        let token = exec::token();
        let line = match self.language {
            Language::Bash => bash::exec_line(command, &token),
            Language::Python => python::exec_line(command, &token),
        };
        let mut ran = self.round_trip(&line, &token, timeout, cap).await;
        if ran.died.is_none() && !ran.killed {
            ran.exit_code = match self.language {
                Language::Bash => bash::exit_code(&ran.status),
                Language::Python => python::answer(&ran.status).exit_code,
            };
            if ran.timed_out {
                ran.exit_code = Some(130);
            }
        }
        ran
    }

    /// The state request's answer: (stdout, status) or None if the process did not give it.
    pub async fn state(&mut self, cap: usize) -> Option<(String, String)> {
        let token = exec::token();
        let line = match self.language {
            Language::Bash => bash::state_line(&token),
            Language::Python => python::state_line(&token),
        };
        let ran = self.round_trip(&line, &token, Duration::from_secs(5), cap).await;
        (ran.died.is_none() && !ran.killed && !ran.timed_out).then_some((ran.stdout, ran.status))
    }

    /// `exit`, then SIGTERM, then SIGKILL after 2 s each.
    pub async fn stop(mut self) {
        let exit = match self.language {
            Language::Bash => bash::EXIT_LINE.to_string(),
            Language::Python => python::exit_line(),
        };
        let _ = self.write(&exit).await;
        self.process.shut_down().await;
    }

    /// Ends the process group now (it will not answer, or must not go on).
    pub fn kill(&self) {
        self.process.kill_group();
    }
}
