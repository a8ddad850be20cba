//! One DAP connection: reads requests, answers each (in order, except the ones that wait on a
//! program, which run beside the others), and forwards the server's live events as DAP events.

use std::sync::{Arc, Mutex, MutexGuard};

use breakroom_debugger::audit::{AuditRecord, Door, Outcome};
use breakroom_debugger::calls::CallData;
use breakroom_debugger::users::{Identity, Need};
use breakroom_debugger::Debugger;

use crate::access::Access;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;

use super::control::Control;
use super::protocol::{DapError, Outgoing, Request};
use super::state::{DapState, ThreadKey};
use super::wire::{read_message, write_message, WireError};

/// The connection's handle, cloned into every request's task.
#[derive(Clone)]
pub struct Dap {
    inner: Arc<Inner>,
}

struct Inner {
    debugger: Debugger,
    out: mpsc::UnboundedSender<Outgoing>,
    state: Mutex<DapState>,
    /// Who drives this session (issue 48): known from the start behind the HTTP door; on the TCP
    /// port, with users configured, from the token in `attach` or `launch` arguments.
    who: Mutex<Option<Identity>>,
    /// Verifies that token (the TCP port only).
    sign_in: Option<Arc<Access>>,
    remote: String,
}

/// Who an editor's DAP session acts as, and how it got in.
pub struct Entry {
    /// Already known (the `/api/dap` upgrade, or a TCP port without users).
    pub who: Option<Identity>,
    /// Else: verifies the token in `attach` or `launch`.
    pub sign_in: Option<Arc<Access>>,
    pub remote: String,
}

/// Requests that may come before the token is given.
const BEFORE_SIGN_IN: [&str; 4] = ["initialize", "attach", "launch", "disconnect"];
/// Requests that change something or run code: each one is audited.
const AUDITED: [&str; 11] = [
    "launch",
    "evaluate",
    "setVariable",
    "setBreakpoints",
    "setFunctionBreakpoints",
    "setExceptionBreakpoints",
    "pause",
    "terminate",
    "attach",
    "disconnect",
    "restartFrame",
];

/// Requests that wait on a program (an eval, a step): they run beside later requests, as every
/// `Control` does.
const WAITING: [&str; 7] = ["launch", "evaluate", "completions", "variables", "setVariable", "exceptionInfo", "scopes"];

fn waits(command: &str) -> bool {
    WAITING.contains(&command) || Control::parse(command).is_some()
}

/// Serves one editor on `reader`/`writer` until it disconnects or the stream ends.
pub async fn serve<R, W>(reader: R, mut writer: W, debugger: Debugger, entry: Entry)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, mut outgoing) = mpsc::unbounded_channel::<Outgoing>();
    let writing = tokio::spawn(async move {
        let mut seq = 0;
        while let Some(message) = outgoing.recv().await {
            seq += 1;
            if write_message(&mut writer, &message.to_message(seq)).await.is_err() {
                break;
            }
        }
    });
    let dap = Dap {
        inner: Arc::new(Inner {
            debugger,
            out,
            state: Mutex::new(DapState::default()),
            who: Mutex::new(entry.who),
            sign_in: entry.sign_in,
            remote: entry.remote,
        }),
    };
    let events = tokio::spawn(dap.clone().forward_events());
    let mut reader = BufReader::new(reader);
    loop {
        match read_message(&mut reader).await {
            Ok(Some(message)) => match Request::parse(&message) {
                Ok(request) if request.command == "disconnect" => {
                    dap.clone().handle(request).await;
                    break;
                }
                Ok(request) if waits(&request.command) => {
                    tokio::spawn(dap.clone().handle(request));
                }
                Ok(request) => dap.clone().handle(request).await,
                Err(problem) => dap.console(&format!("Breakroom's adapter ignored a message: {problem}")),
            },
            Ok(None) => {
                dap.disconnect_quietly().await;
                break;
            }
            Err(WireError::Body(problem)) => dap.console(&format!("Breakroom's adapter ignored a message: {problem}")),
            Err(problem) => {
                eprintln!("breakroom dap: {problem}");
                dap.disconnect_quietly().await;
                break;
            }
        }
    }
    events.abort();
    drop(dap);
    let _ = writing.await;
}

impl Dap {
    pub fn debugger(&self) -> &Debugger {
        &self.inner.debugger
    }

    pub fn state(&self) -> MutexGuard<'_, DapState> {
        self.inner.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn send(&self, message: Outgoing) {
        let _ = self.inner.out.send(message);
    }

    pub fn event(&self, event: &'static str, body: Value) {
        self.send(Outgoing::event(event, body));
    }

    /// A line in the editor's debug console.
    pub fn console(&self, text: &str) {
        self.event("output", json!({"category": "console", "output": format!("{text}\n")}));
    }

    async fn handle(self, request: Request) {
        let command = request.command.clone();
        let thread = request.arguments.get("threadId").and_then(Value::as_i64);
        let control = thread.filter(|_| Control::parse(&command).is_some());
        if let Some(thread) = control {
            self.state().in_flight.insert(thread);
        }
        let (result, tried) = match self.admit(&request) {
            Ok(()) => (self.dispatch(&request).await, None),
            Err((refused, tried)) => (Err(refused), tried),
        };
        self.audit(&request, &result, tried);
        let ok = result.is_ok();
        self.send(Outgoing::Response { request_seq: request.seq, command: command.clone(), result });
        match command.as_str() {
            "initialize" if ok => self.event("initialized", json!({})),
            "configurationDone" if ok => self.announce_all(),
            _ => {}
        }
        if let Some(thread) = control {
            self.state().in_flight.remove(&thread);
            // The stop the request led to, after its response.
            let pause = self.state().pause_of(thread).cloned();
            if let Some(pause) = pause {
                self.announce(&pause);
            }
        }
    }

    fn who(&self) -> Option<Identity> {
        self.inner.who.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether this request may run: the session's identity must be a debugger's (or more). On
    /// the TCP port with users configured, `attach` and `launch` carry the token that gives it.
    /// A refusal comes with the identity that tried, when its token was known (for the audit).
    fn admit(&self, request: &Request) -> Result<(), (DapError, Option<Identity>)> {
        if self.who().is_none() {
            if let (Some(access), "attach" | "launch") = (&self.inner.sign_in, request.command.as_str()) {
                let token = request.arguments.get("token").and_then(Value::as_str).unwrap_or("");
                let Some(who) = access.identify_token(token) else {
                    let why = "this server has users: give your token as \"token\" in the attach or launch arguments";
                    return Err((DapError::new(why), None));
                };
                if let Err(why) = Need::Debugger.check(&who) {
                    return Err((DapError::new(why), Some(who)));
                }
                *self.inner.who.lock().unwrap_or_else(|p| p.into_inner()) = Some(who);
                return Ok(());
            }
            if BEFORE_SIGN_IN.contains(&request.command.as_str()) {
                return Ok(());
            }
            return Err((
                DapError::new(
                    "this server has users: attach (or launch) with your token as \"token\" in the arguments first",
                ),
                None,
            ));
        }
        Ok(())
    }

    fn audit(&self, request: &Request, result: &Result<Value, DapError>, tried: Option<Identity>) {
        let command = request.command.as_str();
        let refused = result.as_ref().err().is_some_and(|e| e.0.contains("this server has users"))
            || result.as_ref().err().is_some_and(|e| e.0.contains(" role; "));
        if !(refused || AUDITED.contains(&command) || Control::parse(command).is_some()) {
            return;
        }
        let who = tried.or_else(|| self.who());
        let mut detail = request.arguments.clone();
        if let Some(fields) = detail.as_object_mut() {
            fields.remove("token");
        }
        self.debugger().audit().record(AuditRecord {
            id: 0,
            time: breakroom_debugger::ids::now(),
            actor: who.as_ref().map_or("anonymous".into(), |w| w.name.clone()),
            role: who.as_ref().map_or("none", |w| w.holder.label()).into(),
            door: Door::Dap,
            remote: self.inner.remote.clone(),
            action: format!("dap {command}"),
            target: Default::default(),
            detail,
            outcome: match result {
                Ok(_) => Outcome::Done,
                Err(_) if refused => Outcome::Refused,
                Err(_) => Outcome::Failed,
            },
            status: 0,
        });
    }

    async fn dispatch(&self, request: &Request) -> Result<Value, DapError> {
        if let Some(control) = Control::parse(&request.command) {
            return self.control(request, control).await;
        }
        match request.command.as_str() {
            "initialize" => self.initialize(request),
            "attach" => Ok(json!({})),
            "launch" => self.launch(request).await,
            "configurationDone" => {
                let mut state = self.state();
                state.configured = true;
                state.configuration_done.notify_waiters();
                Ok(json!({}))
            }
            "threads" => Ok(self.threads()),
            "stackTrace" => self.stack_trace(request),
            "scopes" => self.scopes(request),
            "variables" => self.variables(request).await,
            "setVariable" => self.set_variable(request).await,
            "evaluate" => self.evaluate(request).await,
            "completions" => self.completions(request).await,
            "exceptionInfo" => self.exception_info(request),
            "source" => self.source(request),
            "loadedSources" => Ok(self.loaded_sources()),
            "pause" => self.pause(request),
            "setBreakpoints" => self.set_breakpoints(request),
            "setFunctionBreakpoints" => self.set_function_breakpoints(request),
            "setExceptionBreakpoints" => self.set_exception_breakpoints(request),
            "disconnect" => self.disconnect(request).await,
            "terminate" => self.terminate(),
            other => Err(DapError::new(format!("{other:?} is not a request Breakroom's adapter answers"))),
        }
    }

    fn initialize(&self, request: &Request) -> Result<Value, DapError> {
        let args = &request.arguments;
        let mut state = self.state();
        state.lines_from_0 = args.get("linesStartAt1").and_then(Value::as_bool) == Some(false);
        state.columns_from_0 = args.get("columnsStartAt1").and_then(Value::as_bool) == Some(false);
        Ok(super::protocol::capabilities())
    }

    fn threads(&self) -> Value {
        for paused in self.debugger().pauses().paused_calls() {
            if let Ok(Some((call, true))) = self.debugger().pauses().pause_call(&paused.pause_id) {
                let thread = self.thread_for(&call);
                self.state().set_paused(thread, &paused.pause_id);
            }
        }
        self.running_threads();
        let threads: Vec<Value> =
            self.state().threads().into_iter().map(|(id, name)| json!({"id": id, "name": name})).collect();
        json!({ "threads": threads })
    }

    /// Running programs that can be paused (they hold the breakpoint channel and said their
    /// main thread): each is a thread before it ever pauses, so an editor can pause it.
    pub fn running_threads(&self) {
        for process in self.debugger().processes().tracked_processes(false) {
            use breakroom_debugger::processes::ProcessStatus;
            if !matches!(process.status, ProcessStatus::Running | ProcessStatus::Paused) {
                continue;
            }
            let Some(ident) = self.debugger().interrupts().main_thread_of(&process.id) else { continue };
            let key = ThreadKey { process: process.id.clone(), ident };
            if self.state().thread_key_id(&key).is_some() {
                continue;
            }
            let pid = process.pid.map_or_else(|| "?".to_string(), |p| p.to_string());
            let id = self.state().thread_id(key, || format!("{} (pid {pid}) · MainThread", process.name));
            self.event("thread", json!({"reason": "started", "threadId": id}));
        }
    }

    /// The DAP thread of a call's thread; a new one is announced with a `thread` event.
    pub fn thread_for(&self, call: &CallData) -> i64 {
        let process = self
            .debugger()
            .processes()
            .process_id_for_key(&call.process_key)
            .unwrap_or_else(|| call.process_key.clone());
        let ident = call.thread.as_ref().map_or(0, |t| t.id);
        let key = ThreadKey { process: process.clone(), ident };
        if let Some(id) = self.state().thread_key_id(&key) {
            return id;
        }
        let program = self
            .debugger()
            .processes()
            .tracked_processes(true)
            .into_iter()
            .find(|p| p.id == process)
            .map(|p| p.name)
            .unwrap_or_else(|| "program".into());
        let thread_name = call.thread.as_ref().map_or("MainThread", |t| t.name.as_str()).to_string();
        let id = self.state().thread_id(key, || format!("{program} (pid {}) · {thread_name}", call.process_pid));
        self.event("thread", json!({"reason": "started", "threadId": id}));
        id
    }

    /// Sends `stopped` for a pause once (after `configurationDone`, and after the response of
    /// a request of this connection that led to it).
    pub fn announce(&self, pause_id: &str) {
        let Ok(Some((call, true))) = self.debugger().pauses().pause_call(pause_id) else { return };
        let thread = self.thread_for(&call);
        let description = {
            let mut state = self.state();
            state.set_paused(thread, pause_id);
            if !state.configured || state.in_flight.contains(&thread) || !state.announced.insert(pause_id.to_string()) {
                return;
            }
            call.stop.as_ref().map(|s| s.describe()).unwrap_or_else(|| format!("paused in {}", call.method_name))
        };
        let reason = super::inspect::stop_reason(&call);
        self.event(
            "stopped",
            json!({
                "reason": reason, "threadId": thread, "allThreadsStopped": false,
                "description": description, "preserveFocusHint": false,
            }),
        );
    }

    fn announce_all(&self) {
        for paused in self.debugger().pauses().paused_calls() {
            self.announce(&paused.pause_id);
        }
    }

    /// The pause a request's `threadId` is stopped at.
    pub fn paused_thread(&self, request: &Request) -> Result<(i64, String), DapError> {
        let thread = request
            .arguments
            .get("threadId")
            .and_then(Value::as_i64)
            .ok_or_else(|| DapError::new(format!("{} needs a threadId", request.command)))?;
        self.threads();
        let pause = self.state().pause_of(thread).cloned();
        pause.map(|p| (thread, p)).ok_or_else(|| DapError::new(format!("thread {thread} is running, not paused")))
    }

    /// This connection's REPL session on a pause (made on first use; it follows steps).
    pub async fn repl_session(&self, pause_id: &str) -> Result<String, DapError> {
        if let Some(session) = self.state().repl_sessions.get(pause_id) {
            if self.debugger().sessions().session(session)?.is_some_and(|s| s.is_active() && s.pause_id == pause_id) {
                return Ok(session.clone());
            }
        }
        let id = pause_id.to_string();
        let session = self.debugger().off_workers(move |d| d.sessions().start_session(&id)).await?;
        self.state().repl_sessions.insert(pause_id.to_string(), session.clone());
        Ok(session)
    }

    /// The editor's line number for a program's line, and back.
    pub fn line_out(&self, line: i64) -> i64 {
        if self.state().lines_from_0 {
            line - 1
        } else {
            line
        }
    }

    pub fn line_in(&self, line: i64) -> i64 {
        if self.state().lines_from_0 {
            line + 1
        } else {
            line
        }
    }
}
