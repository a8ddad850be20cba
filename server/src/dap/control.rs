//! Driving programs over DAP: continue, the steps (one request each, a door into
//! `Debugger::step`), step back and reverse-continue (time travel), launch, disconnect and
//! terminate.

use breakroom_debugger::pauses::ResumeRequest;
use breakroom_debugger::processes::LaunchRequest;
use breakroom_debugger::steps::{StepKind, StepRequest};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

use super::protocol::{DapError, Request};
use super::session::Dap;

/// DAP's requests that drive a paused thread: the one list of them (dispatch, which run beside
/// other requests, which mark their thread in flight).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    Next,
    StepIn,
    StepOut,
    StepBack,
    ReverseContinue,
}

impl Control {
    pub const ALL: [Control; 6] = [
        Control::Continue,
        Control::Next,
        Control::StepIn,
        Control::StepOut,
        Control::StepBack,
        Control::ReverseContinue,
    ];

    /// The request's `command`.
    pub const fn name(self) -> &'static str {
        match self {
            Control::Continue => "continue",
            Control::Next => "next",
            Control::StepIn => "stepIn",
            Control::StepOut => "stepOut",
            Control::StepBack => "stepBack",
            Control::ReverseContinue => "reverseContinue",
        }
    }

    pub fn parse(command: &str) -> Option<Control> {
        Control::ALL.into_iter().find(|control| control.name() == command)
    }

    /// The step a request is, for the ones that step forward.
    pub const fn step(self) -> Option<StepKind> {
        match self {
            Control::Next => Some(StepKind::Over),
            Control::StepIn => Some(StepKind::Into),
            Control::StepOut => Some(StepKind::Out),
            Control::Continue | Control::StepBack | Control::ReverseContinue => None,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LaunchArgs {
    program: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// The interpreter (default `python3`).
    #[serde(default)]
    python: Option<String>,
    /// Checkpoints on (each Continue and step snapshots the program, for Step back).
    #[serde(default)]
    checkpoints: bool,
    /// Pause at the program's first line (`stopped` with reason `entry`).
    #[serde(default)]
    stop_on_entry: bool,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct DisconnectArgs {
    #[serde(default)]
    terminate_debuggee: Option<bool>,
    #[serde(default)]
    suspend_debuggee: Option<bool>,
}

impl Dap {
    pub async fn control(&self, request: &Request, control: Control) -> Result<Value, DapError> {
        let (_, pause) = self.paused_thread(request)?;
        let reached = match control {
            Control::Continue => {
                let id = pause.clone();
                self.debugger()
                    .off_workers(move |d| d.pauses().continue_pause(&id, ResumeRequest::continue_()))
                    .await?;
                self.state().resumed(&pause);
                return Ok(json!({"allThreadsContinued": false}));
            }
            Control::Next | Control::StepIn | Control::StepOut => {
                let kind = control.step().unwrap_or(StepKind::Over);
                self.debugger().steps().step(&pause, StepRequest::new(kind)).await?.stopped_at()
            }
            Control::StepBack => {
                Some(self.debugger().checkpoints().step_back(&pause, Default::default()).await?.pause_id)
            }
            Control::ReverseContinue => Some(self.debugger().checkpoints().reverse_continue(&pause).await?.pause_id),
        };
        self.state().resumed(&pause);
        if let Some(reached) = reached {
            self.state().reached.insert(reached.clone());
            // The handler announces it after this response (the thread's current pause).
            if let Ok(Some((call, true))) = self.debugger().pauses().pause_call(&reached) {
                let thread = self.thread_for(&call);
                self.state().set_paused(thread, &reached);
            }
        }
        Ok(json!({}))
    }

    /// DAP's pause: a paused thread is announced again; a running one is asked to pause at the
    /// next line it reaches (the `stopped` event, reason `pause`, follows when it does).
    pub fn pause(&self, request: &Request) -> Result<Value, DapError> {
        let thread = request.arguments.get("threadId").and_then(Value::as_i64).unwrap_or(0);
        // Read first: the state's lock must not be held while it is taken again below.
        let paused = self.state().pause_of(thread).cloned();
        if let Some(pause) = paused {
            self.state().announced.remove(&pause);
            self.announce(&pause);
            return Ok(json!({}));
        }
        let key = self.state().key_of(thread).ok_or_else(|| DapError::new(format!("no thread {thread}")))?;
        self.debugger().interrupts().ask(&key.process, Some(key.ident).filter(|i| *i != 0))?;
        Ok(json!({}))
    }

    /// Runs the program under Breakroom (`python -m breakroom`, which follows the server's
    /// breakpoints from its first line) once the editor has sent its breakpoints.
    pub async fn launch(&self, request: &Request) -> Result<Value, DapError> {
        let args: LaunchArgs = request.args()?;
        if args.program.trim().is_empty() {
            return Err(DapError::new("launch needs program: the Python file to run"));
        }
        let done = self.state().configuration_done.clone();
        let waiting = done.notified();
        if !self.state().configured {
            let wait = std::time::Duration::from_secs(30);
            if tokio::time::timeout(wait, waiting).await.is_err() {
                return Err(DapError::new("no configurationDone within 30 s: the program was not started"));
            }
        }
        let mut command = vec![args.python.unwrap_or_else(|| "python3".into()), "-m".into(), "breakroom".into()];
        if args.stop_on_entry {
            command.push("--stop-on-entry".into());
        }
        command.push(args.program);
        command.extend(args.args);
        let mut env = args.env;
        if args.checkpoints {
            env.insert("BREAKROOM_CHECKPOINTS".into(), "1".into());
        }
        let process = self.debugger().processes().launch_process(LaunchRequest {
            command,
            name: None,
            cwd: args.cwd,
            env,
            follow_children: None,
        })?;
        self.state().launched.push(process.id.clone());
        Ok(json!({}))
    }

    pub async fn disconnect(&self, request: &Request) -> Result<Value, DapError> {
        let args: DisconnectArgs = request.args().unwrap_or_default();
        if args.terminate_debuggee == Some(true) {
            let _ = self.terminate();
        }
        if args.suspend_debuggee != Some(true) {
            self.resume_reached().await;
        }
        Ok(json!({}))
    }

    /// The editor went away without `disconnect`: as a disconnect that keeps programs running.
    pub async fn disconnect_quietly(&self) {
        self.resume_reached().await;
    }

    /// Resumes the pauses this connection stepped to that are still paused.
    async fn resume_reached(&self) {
        let reached: Vec<String> = self.state().reached.drain().collect();
        for pause in reached {
            if let Ok(Some((_, true))) = self.debugger().pauses().pause_call(&pause) {
                let resume = move |d: &breakroom_debugger::Debugger| {
                    d.pauses().continue_pause(&pause, ResumeRequest::continue_())
                };
                let _ = self.debugger().off_workers(resume).await;
            }
        }
    }

    pub fn terminate(&self) -> Result<Value, DapError> {
        let launched: Vec<String> = self.state().launched.clone();
        if launched.is_empty() {
            return Err(DapError::new(
                "this session launched no program; attached programs are stopped from their process page",
            ));
        }
        for id in launched {
            self.debugger().processes().stop_process(&id)?;
        }
        Ok(json!({}))
    }
}
