//! [`Debugger`]: the one owner of Breakroom's state, with a small API. State sits behind one
//! mutex that is never held across an await; the only waits are for the paused program (an
//! eval's answer) and for a resume (the client's long-poll).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use crate::breakpoint::{AfterBehavior, Behavior, Breakpoint, Breakpoints, GlobalBehavior, StartDecision};
use crate::call::{Action, CallComplete, CallData, CallRecord, CallStart, CallStartReply};
use crate::cid_store::{CidStore, SerializationFormat, SerializedItem, StoredObject};
use crate::display::{pickled_text, pretty_item, text_of};
use crate::error::{Error, Result};
use crate::eval::{EvalRequest, EvalResult, PendingEval};
use crate::model::{
    BreakpointView, BreakpointsView, CallStackView, CallTreeNode, EvalOutcome, FrameView, LiveEvent, PauseReason,
    PausedCall, ProcessSummary, RecordedEvent, ReplSession, SessionLink, SessionPage, SessionQuery, SessionSummary,
    StoredValue, TranscriptEntry,
};
use crate::pause::{Pause, ResumeRequest};
use crate::session::Sessions;
use crate::store::{EventSelection, Snapshot, Store};
use crate::{call_tree, ids};

const MAX_COM_ERRORS: usize = 500;
const MAX_EVENTS: usize = 10_000;

#[derive(Clone, Debug)]
pub struct Config {
    /// How long a browser's eval waits for the paused program.
    pub eval_timeout: Duration,
    /// How long a client's poll is held when nothing happens (below the client's 30 s timeout).
    pub poll_hold: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config { eval_timeout: Duration::from_secs(30), poll_hold: Duration::from_secs(25) }
    }
}

/// The answer to a client's poll.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum PollReply {
    Waiting {
        /// Only when the client asked to take evals with its poll (Breakroom's own client).
        #[serde(skip_serializing_if = "Option::is_none")]
        eval: Option<EvalRequest>,
        /// With evals: the pause's open REPL sessions, so the client can drop the namespaces
        /// of closed ones. The poll also returns early when this changes.
        #[serde(skip_serializing_if = "Option::is_none")]
        sessions: Option<Vec<String>>,
    },
    Ready {
        action: Action,
    },
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct RegisteredFunction {
    pub signature: Option<String>,
    pub metadata: Value,
}

struct State {
    /// Where every change is written before it is acknowledged.
    store: Store,
    /// Processes already announced in the event log.
    seen_processes: HashSet<String>,
    /// Held while the data directory is ours: two servers on one directory would each close the
    /// other's live sessions.
    lock: Option<std::fs::File>,
    breakpoints: Breakpoints,
    functions: BTreeMap<String, RegisteredFunction>,
    pauses: HashMap<String, Pause>,
    /// Pause ids in the order they paused.
    pause_order: Vec<String>,
    /// Calls started and not yet completed, with their pre-call pause if they had one.
    running: HashMap<String, (CallData, Option<String>)>,
    records: HashMap<String, CallRecord>,
    record_order: Vec<String>,
    history: BTreeMap<String, Vec<Value>>,
    sessions: Sessions,
    cids: CidStore,
    call_seq: u64,
    com_errors: VecDeque<Value>,
    events: VecDeque<Value>,
}

impl State {
    fn new(store: Store) -> Self {
        State {
            store,
            seen_processes: HashSet::new(),
            lock: None,
            breakpoints: Breakpoints::default(),
            functions: BTreeMap::new(),
            pauses: HashMap::new(),
            pause_order: vec![],
            running: HashMap::new(),
            records: HashMap::new(),
            record_order: vec![],
            history: BTreeMap::new(),
            sessions: Sessions::default(),
            cids: CidStore::default(),
            call_seq: 0,
            com_errors: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    /// Verifies, stores and persists a value a client sent.
    fn store_pair(&mut self, cid: &str, data: &str, format: Option<&str>, now: f64) -> Result<()> {
        let new = self.cids.store_pair(cid, data, format, now)?;
        self.persist_object(new)
    }

    fn store_item(&mut self, item: &SerializedItem, now: f64) -> Result<()> {
        let new = self.cids.store_item(item, now)?;
        self.persist_object(new)
    }

    fn persist_object(&self, new_cid: Option<String>) -> Result<()> {
        match new_cid.as_deref().and_then(|cid| self.cids.get(cid).map(|obj| (cid, obj))) {
            Some((cid, obj)) => self.store.put_object(cid, obj),
            None => Ok(()),
        }
    }

    /// Records eval requests that will get no answer (timed out, or their session closed).
    fn log_unanswered(&self, unanswered: impl Iterator<Item = PendingEval>) -> Result<()> {
        for pending in unanswered {
            let request = &pending.request;
            let process_key = self.session_process_key(&request.session_id);
            let event = request_event(request);
            self.store.append_event(
                pending.requested_at,
                "eval_request",
                Some(&process_key),
                Some(&request.session_id),
                &event,
            )?;
        }
        Ok(())
    }

    /// Appends to the event log.
    fn log(&self, now: f64, kind: &str, process_key: &str, session_id: Option<&str>, data: Value) -> Result<()> {
        self.store.append_event(now, kind, Some(process_key), session_id, &data).map(|_| ())
    }

    /// Writes how a call ended into its record, and the record to the store.
    fn finish_record(
        &mut self,
        call_id: &str,
        completed_at: f64,
        status: &str,
        pretty_result: Option<Value>,
        exception: Option<Value>,
    ) -> Result<()> {
        if let Some(record) = self.records.get_mut(call_id) {
            record.completed_at = Some(completed_at);
            record.status = status.into();
            record.pretty_result = pretty_result;
            record.exception = exception;
        }
        self.save_call(call_id)
    }

    /// The process a session's events are logged under.
    fn session_process_key(&self, session_id: &str) -> String {
        self.sessions.get(session_id).map(|s| s.process_key.clone()).unwrap_or_default()
    }

    fn save_call(&self, call_id: &str) -> Result<()> {
        self.records.get(call_id).map_or(Ok(()), |r| self.store.put_call(r))
    }

    fn save_pause(&self, pause_id: &str) -> Result<()> {
        self.pauses.get(pause_id).map_or(Ok(()), |p| self.store.put_pause(&p.record))
    }

    fn save_session(&self, session_id: &str) -> Result<()> {
        self.sessions.get(session_id).map_or(Ok(()), |s| self.store.put_session(s))
    }

    fn save_breakpoint(&self, name: &str) -> Result<()> {
        match self.breakpoints.by_name.get(name) {
            Some(bp) => self.store.put_breakpoint(name, bp),
            None => self.store.delete_breakpoint(name),
        }
    }

    fn save_function(&self, name: &str) -> Result<()> {
        match self.functions.get(name) {
            Some(f) => self.store.put_function(name, &serde_json::to_value(f).unwrap_or(Value::Null)),
            None => Ok(()),
        }
    }
}

/// Why sessions and pauses found open in the store are closed when it is opened again.
pub const RESTART_REASON: &str = "server restarted";

struct Inner {
    state: Mutex<State>,
    config: Config,
    live: broadcast::Sender<LiveEvent>,
}

/// Cheap to clone: every clone is the same debugger.
#[derive(Clone)]
pub struct Debugger {
    inner: Arc<Inner>,
}

impl Default for Debugger {
    fn default() -> Self {
        Self::new(Config::default())
    }
}

impl Debugger {
    /// A debugger that keeps nothing after it is dropped.
    pub fn new(config: Config) -> Self {
        // An in-memory SQLite database needs no file system; failing to open one is a broken build.
        let store = Store::in_memory().expect("an in-memory SQLite database opens");
        Self::with_state(config, State::new(store))
    }

    /// A debugger whose history lives in `data_dir` (created if needed). What was there is read
    /// back; pauses and sessions that were open when the last server stopped come back closed.
    pub fn open(config: Config, data_dir: &Path) -> Result<Self> {
        let store = Store::open(data_dir)?;
        let lock = store.lock_exclusively(data_dir)?;
        let snapshot = store.load()?;
        let mut st = State::new(store);
        st.lock = Some(lock);
        // The closing of what was left open is written in one transaction.
        st.store.begin()?;
        match restore(&mut st, snapshot, ids::now()) {
            Ok(()) => st.store.commit()?,
            Err(e) => {
                st.store.rollback();
                return Err(e);
            }
        }
        Ok(Self::with_state(config, st))
    }

    fn with_state(config: Config, state: State) -> Self {
        let (live, _) = broadcast::channel(1024);
        Debugger { inner: Arc::new(Inner { state: Mutex::new(state), config, live }) }
    }

    /// The event log, oldest first.
    pub fn events(&self, selection: &EventSelection) -> Result<Vec<RecordedEvent>> {
        self.state().store.events(selection)
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere must not take the whole debugger down with it.
        self.inner.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn publish(&self, event: LiveEvent) {
        let _ = self.inner.live.send(event);
    }

    /// Every change pages care about, as it happens.
    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.inner.live.subscribe()
    }

    // ---- breakpoints and functions -------------------------------------------------------

    /// Adds a breakpoint (keeping its behaviours if it exists) and records the signature.
    pub fn add_breakpoint(&self, name: &str, signature: Option<String>, behavior: Option<&str>) -> Result<()> {
        let name = required_name(name)?;
        let mut st = self.state();
        let bp = st.breakpoints.by_name.entry(name.to_string()).or_default();
        if let Some(b) = behavior.and_then(|b| Behavior::parse(b).ok()) {
            bp.behavior = b;
        }
        let registered = st
            .functions
            .entry(name.to_string())
            .or_insert_with(|| RegisteredFunction { signature: None, metadata: json!({}) });
        registered.signature = signature;
        st.save_breakpoint(name)?;
        st.save_function(name)?;
        drop(st);
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(())
    }

    pub fn remove_breakpoint(&self, name: &str) -> Result<()> {
        let mut st = self.state();
        st.breakpoints.by_name.remove(name);
        st.save_breakpoint(name)?;
        drop(st);
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(())
    }

    pub fn set_behavior(&self, name: &str, behavior: &str) -> Result<Behavior> {
        let behavior = Behavior::parse(behavior)?;
        self.with_breakpoint(name, |bp| bp.behavior = behavior)?;
        Ok(behavior)
    }

    pub fn set_after_behavior(&self, name: &str, behavior: &str) -> Result<AfterBehavior> {
        let behavior = AfterBehavior::parse(behavior)?;
        self.with_breakpoint(name, |bp| bp.after_behavior = behavior)?;
        Ok(behavior)
    }

    /// Sets or clears (empty, or the breakpoint's own name) the function run instead.
    pub fn set_replacement(&self, name: &str, replacement: &str) -> Result<Option<String>> {
        let replacement = (!replacement.is_empty() && replacement != name).then(|| replacement.to_string());
        {
            let st = self.state();
            if !st.breakpoints.by_name.contains_key(name) {
                return Err(Error::BreakpointNotFound(name.to_string()));
            }
            if let Some(r) = &replacement {
                let sig = |n: &str| st.functions.get(n).and_then(|f| f.signature.clone()).filter(|s| !s.is_empty());
                if sig(name).is_none() || sig(name) != sig(r) {
                    return Err(Error::SignatureMismatch);
                }
            }
        }
        self.with_breakpoint(name, |bp| bp.replacement = replacement.clone())?;
        Ok(replacement)
    }

    fn with_breakpoint(&self, name: &str, change: impl FnOnce(&mut Breakpoint)) -> Result<()> {
        let mut st = self.state();
        let bp = st.breakpoints.by_name.get_mut(name).ok_or_else(|| Error::BreakpointNotFound(name.to_string()))?;
        change(bp);
        st.save_breakpoint(name)?;
        drop(st);
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(())
    }

    pub fn global_behavior(&self) -> GlobalBehavior {
        self.state().breakpoints.global
    }

    pub fn set_global_behavior(&self, behavior: &str) -> Result<GlobalBehavior> {
        let behavior = GlobalBehavior::parse(behavior)?;
        {
            let mut st = self.state();
            st.breakpoints.global = behavior;
            st.store.put_global(behavior)?;
        }
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(behavior)
    }

    pub fn breakpoints(&self) -> BTreeMap<String, Breakpoint> {
        self.state().breakpoints.by_name.clone()
    }

    pub fn register_function(&self, name: &str, signature: Option<String>, client_ref: Option<Value>) -> Result<()> {
        let name = required_name(name)?;
        let mut st = self.state();
        let metadata = json!({"client_ref": client_ref, "registered_at": ids::now()});
        st.functions.insert(name.to_string(), RegisteredFunction { signature, metadata });
        st.save_function(name)
    }

    /// Stores a value sent alongside a request (function data, event payloads).
    pub fn store_value(&self, cid: &str, data: &str, format: Option<&str>) -> Result<()> {
        self.state().store_pair(cid, data, format, ids::now())
    }

    pub fn functions(&self) -> BTreeMap<String, RegisteredFunction> {
        self.state().functions.clone()
    }

    /// A stored value as pages and tools show it.
    pub fn stored_value(&self, cid: &str) -> Result<StoredValue> {
        let cid = cid.to_ascii_lowercase();
        let obj = self.object(&cid).ok_or_else(|| Error::ObjectNotFound(cid.clone()))?;
        let display = match obj.format {
            SerializationFormat::Json => serde_json::from_slice::<Value>(&obj.bytes)
                .map(|v| text_of(&v))
                .unwrap_or_else(|_| "<invalid JSON>".into()),
            SerializationFormat::Dill => pickled_text(&obj.bytes),
        };
        Ok(StoredValue {
            cid,
            size: obj.bytes.len(),
            serialization_format: obj.format.as_str().into(),
            stored_at: obj.created_at,
            display,
        })
    }

    pub fn object(&self, cid: &str) -> Option<StoredObject> {
        self.state().cids.get(&cid.to_ascii_lowercase()).cloned()
    }

    // ---- calls -----------------------------------------------------------------------------

    pub fn start_call(&self, req: CallStart) -> Result<CallStartReply> {
        let (pid, start_time) = process_identity(&req.process_pid, &req.process_start_time)?;
        let method_name = req
            .method_name
            .clone()
            .filter(|m| !m.trim().is_empty())
            .ok_or(Error::MissingField { code: "missing_method_name", field: "method_name" })?;
        let now = ids::now();
        let mut st = self.state();

        let items = || req.target.iter().chain(req.args.iter()).chain(req.kwargs.values());
        for item in items() {
            SerializationFormat::parse(item.serialization_format.as_deref())?;
        }
        // A CID sent with data anywhere in this request counts as known for the other items.
        let sent: std::collections::HashSet<&str> =
            items().filter(|i| i.data.is_some()).filter_map(|i| i.cid.as_deref()).collect();
        let missing: Vec<String> = items()
            .filter(|i| st.cids.is_missing(i) && !i.cid.as_deref().is_some_and(|c| sent.contains(c)))
            .filter_map(|i| i.cid.clone())
            .collect();
        if !missing.is_empty() {
            return Err(Error::CidNotFound { missing });
        }
        for item in items() {
            st.store_item(item, now)?;
        }
        let preferred_format = match req.preferred_format.as_deref() {
            None => "dill".to_string(),
            Some(f @ ("dill" | "json")) => f.to_string(),
            Some(other) => {
                return Err(Error::invalid(
                    "invalid_preferred_format",
                    format!("preferred_format must be 'dill' or 'json', not {other:?}"),
                ))
            }
        };

        let forced = match req.pause.as_deref() {
            None => None,
            Some("always") => Some(PauseReason::Breakpoint),
            Some("exception") => Some(PauseReason::Exception),
            Some(other) => {
                return Err(Error::invalid(
                    "invalid_pause_kind",
                    format!("pause must be 'always' or 'exception', not {other:?}"),
                ))
            }
        };
        st.call_seq += 1;
        let call_id = ids::call_id(now, st.call_seq);
        let cids = &st.cids;
        let call = CallData {
            method_name: method_name.clone(),
            call_id: call_id.clone(),
            pretty_target: req.target.as_ref().map(|t| pretty_item(t, cids)).unwrap_or(Value::Null),
            pretty_args: req.args.iter().map(|a| pretty_item(a, cids)).collect(),
            pretty_kwargs: req.kwargs.iter().map(|(k, v)| (k.clone(), pretty_item(v, cids))).collect(),
            target: req.target,
            args: req.args,
            kwargs: req.kwargs,
            signature: req.signature.unwrap_or_default(),
            call_site: req.call_site.unwrap_or_else(|| json!({})),
            page_url: req.page_url,
            preferred_format,
            process_pid: pid,
            process_start_time: start_time,
            process_key: ids::process_key(pid, start_time),
            call_type: req.call_type,
            pause_reason: None,
            pretty_result: None,
            exception: None,
            frames: req.frames,
        };
        st.records.insert(
            call_id.clone(),
            CallRecord {
                call_id: call_id.clone(),
                method_name: method_name.clone(),
                process_key: call.process_key.clone(),
                started_at: now,
                completed_at: None,
                status: "running".into(),
                pretty_args: call.pretty_args.clone(),
                pretty_kwargs: call.pretty_kwargs.clone(),
                pretty_result: None,
                exception: None,
                call_site: call.call_site.clone(),
                pause_ids: vec![],
                repl_sessions: vec![],
            },
        );
        st.record_order.push(call_id.clone());
        if st.seen_processes.insert(call.process_key.clone()) {
            st.log(
                now,
                "process_seen",
                &call.process_key,
                None,
                json!({"pid": pid, "process_start_time": start_time}),
            )?;
        }
        st.save_call(&call_id)?;
        st.log(
            now,
            "call_start",
            &call.process_key,
            None,
            json!({
                "call_id": call_id, "function_name": method_name,
                "pretty_args": call.pretty_args, "pretty_kwargs": call.pretty_kwargs,
            }),
        )?;

        let decision = match forced {
            Some(_) => StartDecision::Pause,
            None => st.breakpoints.decide_start(&method_name),
        };
        let action = match decision {
            StartDecision::Continue => Action::Continue,
            StartDecision::Replace(function_name) => Action::Replace { function_name },
            StartDecision::Pause => {
                let reason = forced.unwrap_or(PauseReason::Breakpoint);
                let mut paused = call.clone();
                paused.pause_reason =
                    Some(if reason == PauseReason::Exception { "exception" } else { "breakpoint" }.into());
                let pause_id = add_pause(&mut st, paused, reason, now)?;
                let process_key = call.process_key.clone();
                st.running.insert(call_id.clone(), (call, Some(pause_id.clone())));
                drop(st);
                self.publish(LiveEvent::CallsChanged { process_key });
                self.publish(LiveEvent::PauseAdded { pause_id: pause_id.clone() });
                return Ok(CallStartReply { call_id, action: Action::poll(&pause_id) });
            }
        };
        let process_key = call.process_key.clone();
        st.running.insert(call_id.clone(), (call, None));
        drop(st);
        self.publish(LiveEvent::CallsChanged { process_key });
        Ok(CallStartReply { call_id, action })
    }

    /// Waits (up to the configured hold) until the pause is resumed or an eval is ready for
    /// the client (taken with the poll when `take_eval`, Breakroom's client; announced as
    /// `waiting` for a cideldill client, which then takes it with `poll-repl`).
    ///
    /// The client never waits between polls (`poll_interval_ms: 0`), so this hold is what keeps
    /// an idle paused client from spinning: every answer that is not `ready` must be earned by
    /// something the client can act on. Unknown pauses are held too and then answer `waiting`:
    /// a client left paused across a restart would die on an error.
    pub async fn poll(&self, pause_id: &str, take_eval: bool) -> PollReply {
        let deadline = tokio::time::Instant::now() + self.inner.config.poll_hold;
        let unknown = || PollReply::Waiting { eval: None, sessions: take_eval.then(Vec::new) };
        let mut seen_sessions = None;
        loop {
            let Some(wake) = self.state().pauses.get(pause_id).map(|p| p.wake.clone()) else {
                tokio::time::sleep_until(deadline).await;
                return unknown();
            };
            // Registered before the state is read, so a wake-up in between is not lost.
            let notified = wake.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let mut wait_until = deadline;
            let sessions = {
                let mut st = self.state();
                let sessions = take_eval.then(|| st.sessions.open_for_pause(pause_id));
                let Some(pause) = st.pauses.get_mut(pause_id) else {
                    return unknown();
                };
                if let Some(action) = &pause.record.resume {
                    return PollReply::Ready { action: action.clone() };
                }
                if pause.evals.has_ready() {
                    if take_eval {
                        return PollReply::Waiting { eval: pause.evals.take_next(), sessions };
                    }
                    // A cideldill client still running an eval the server gave up on skips
                    // `poll-repl`: announcing the next one now would only make it spin.
                    match pause.evals.client_busy_until(std::time::Instant::now()) {
                        None => return PollReply::Waiting { eval: None, sessions },
                        Some(busy) => {
                            let busy = tokio::time::Instant::from_std(busy);
                            wait_until = wait_until.min(busy);
                        }
                    }
                }
                if seen_sessions.is_some() && seen_sessions != sessions {
                    return PollReply::Waiting { eval: None, sessions };
                }
                sessions
            };
            seen_sessions = sessions;
            if tokio::time::timeout_at(wait_until, notified).await.is_err() && wait_until == deadline {
                return PollReply::Waiting { eval: None, sessions: seen_sessions };
            }
        }
    }

    /// The client's answer to an eval, carried by its next poll (Breakroom's client): one round
    /// trip per eval instead of a `repl-result` post and then a poll. The answer is recorded
    /// exactly as `repl-result` records it; an answer that is refused fails the whole request,
    /// and the client polls again without it.
    pub async fn answer_and_poll(&self, pause_id: &str, mut result: EvalResult, take_eval: bool) -> Result<PollReply> {
        match result.pause_id.as_deref() {
            None => result.pause_id = Some(pause_id.to_string()),
            Some(id) if id == pause_id => {}
            Some(id) => {
                return Err(Error::Invalid("pause_mismatch", format!("the answer is for pause {id}, not {pause_id}")))
            }
        }
        self.submit_eval_result(result)?;
        Ok(self.poll(pause_id, take_eval).await)
    }

    /// Returns a post-completion pause's poll action when the call pauses again.
    pub fn complete_call(&self, req: CallComplete) -> Result<Option<Action>> {
        let now = ids::now();
        // A bad format is refused even without data, so a client learns of it at once.
        SerializationFormat::parse(req.result_serialization_format.as_deref())?;
        SerializationFormat::parse(req.exception_serialization_format.as_deref())?;
        let mut st = self.state();
        if let (Some(cid), Some(data)) = (&req.result_cid, &req.result_data) {
            st.store_pair(cid, data, req.result_serialization_format.as_deref(), now)?;
        }
        if let (Some(cid), Some(data)) = (&req.exception_cid, &req.exception_data) {
            st.store_pair(cid, data, req.exception_serialization_format.as_deref(), now)?;
        }
        let Some(call_id) = req.call_id.as_deref() else {
            return Ok(None);
        };
        let Some((mut call, pre_pause)) = st.running.remove(call_id) else {
            // A call that started before a restart: its record still learns how it ended.
            if st.records.get(call_id).is_some_and(|r| r.status == "running") {
                let (status, pretty_result, exception) = call_outcome(&req, &st.cids);
                st.finish_record(call_id, req.timestamp.unwrap_or(now), status, pretty_result, exception)?;
            }
            return Ok(None);
        };
        // A client that completes without waiting for a resume has moved on: close its REPLs.
        let mut closed = vec![];
        if let Some(pause_id) = pre_pause {
            closed = close_pause(&mut st, &pause_id, Action::Continue, now, None)?;
        }

        let (status, pretty_result, exception) = call_outcome(&req, &st.cids);
        let raised = status == "exception";
        st.finish_record(call_id, req.timestamp.unwrap_or(now), status, pretty_result.clone(), exception.clone())?;
        st.log(
            now,
            "call_complete",
            &call.process_key,
            None,
            json!({
                "call_id": call_id, "function_name": call.method_name, "status": status,
                "pretty_result": pretty_result, "exception": exception,
            }),
        )?;
        call.pretty_result = pretty_result.clone().or(Some(Value::Null));
        call.exception = exception.clone();
        let method = call.method_name.clone();
        if st.breakpoints.by_name.contains_key(&method) {
            let mut call_data = serde_json::to_value(&call).unwrap_or(Value::Null);
            if let Some(obj) = call_data.as_object_mut() {
                obj.insert("status".into(), json!(status));
            }
            let entry =
                json!({"id": ids::new_uuid(), "function_name": method, "completed_at": now, "call_data": call_data});
            st.store.put_history(&method, &entry)?;
            st.history.entry(method.clone()).or_default().push(entry);
        }

        let process_key = call.process_key.clone();
        let mut pause_added = None;
        if st.breakpoints.pauses_after(&method, raised) {
            let reason = if raised { PauseReason::Exception } else { PauseReason::After };
            call.pause_reason = Some(if raised { "exception" } else { "breakpoint" }.into());
            let pause_id = add_pause(&mut st, call, reason, now)?;
            pause_added = Some(pause_id);
        }
        drop(st);
        self.publish_closed(closed);
        self.publish(LiveEvent::CallsChanged { process_key });
        Ok(pause_added.map(|pause_id| {
            self.publish(LiveEvent::PauseAdded { pause_id: pause_id.clone() });
            Action::poll(&pause_id)
        }))
    }

    /// Resumes a paused call; its REPL sessions close and waiting evals fail. Returns false
    /// for an unknown pause (which the protocol answers with success).
    pub fn resume(&self, pause_id: &str, request: ResumeRequest) -> Result<bool> {
        let now = ids::now();
        let mut st = self.state();
        let Some(pause) = st.pauses.get(pause_id) else {
            return Ok(false);
        };
        if !pause.is_paused() {
            return Err(Error::PauseResumed(pause_id.to_string()));
        }
        let action = request.into_action(pause.is_post_completion())?;
        let closed = close_pause(&mut st, pause_id, action, now, None)?;
        drop(st);
        self.publish(LiveEvent::PauseResumed { pause_id: pause_id.to_string() });
        self.publish_closed(closed);
        Ok(true)
    }

    fn publish_closed(&self, closed: Vec<(String, f64)>) {
        for (session_id, closed_at) in closed {
            self.publish(LiveEvent::SessionClosed { session_id, closed_at });
        }
    }

    /// Calls paused right now, oldest first.
    pub fn paused_calls(&self) -> Vec<PausedCall> {
        let st = self.state();
        st.pause_order
            .iter()
            .filter_map(|id| st.pauses.get(id))
            .filter(|p| p.is_paused())
            .map(|p| paused_call(&st, p))
            .collect()
    }

    /// One pause, paused or resumed.
    pub fn pause(&self, pause_id: &str) -> Option<PausedCall> {
        let st = self.state();
        st.pauses.get(pause_id).map(|p| paused_call(&st, p))
    }

    pub fn pause_call_data(&self, pause_id: &str) -> Option<CallData> {
        self.state().pauses.get(pause_id).map(|p| p.record.call.clone())
    }

    /// `/api/paused` in the protocol's shape.
    pub fn paused_protocol_view(&self) -> Vec<Value> {
        let st = self.state();
        st.pause_order
            .iter()
            .filter_map(|id| st.pauses.get(id))
            .filter(|p| p.is_paused())
            .map(|p| {
                json!({
                    "id": p.record.pause_id,
                    "paused_at": p.record.paused_at,
                    "repl_sessions": st.sessions.for_pause(&p.record.pause_id),
                    "call_data": p.record.call,
                })
            })
            .collect()
    }

    pub fn call_record(&self, call_id: &str) -> Option<CallRecord> {
        self.state().records.get(call_id).cloned()
    }

    /// Sessions for index pages: the same filters and pages, without transcripts.
    pub fn session_summaries(&self, query: &SessionQuery) -> SessionPage<SessionSummary> {
        let page = self.list_sessions(query);
        SessionPage {
            sessions: page.sessions.iter().map(SessionSummary::of).collect(),
            total: page.total,
            page: page.page,
            per_page: page.per_page,
        }
    }

    /// The stack of a pause as it was when the call paused, with the pause's sessions.
    pub fn call_stack(&self, pause_id: &str) -> Option<CallStackView> {
        let st = self.state();
        let pause = st.pauses.get(pause_id)?;
        let call = &pause.record.call;
        let frames = match &call.frames {
            Some(rich) => rich.iter().map(frame_view).collect(),
            None => call
                .stack()
                .into_iter()
                .map(|f| FrameView {
                    filename: f.filename,
                    lineno: f.lineno,
                    function: f.function,
                    code_context: f.code_context,
                    source_start: 0,
                    source_lines: vec![],
                    locals: vec![],
                })
                .collect(),
        };
        Some(CallStackView {
            pause_id: pause.record.pause_id.clone(),
            call_id: call.call_id.clone(),
            function_name: call.method_name.clone(),
            reason: pause.record.reason,
            pid: call.process_pid,
            process_key: call.process_key.clone(),
            paused_at: pause.record.paused_at,
            still_paused: pause.is_paused(),
            frames,
            sessions: session_links(&st, st.sessions.for_pause(pause_id)),
        })
    }

    /// Every process that reported a call, most recently active first.
    pub fn processes(&self) -> Vec<ProcessSummary> {
        let st = self.state();
        let mut by_key: BTreeMap<&str, ProcessSummary> = BTreeMap::new();
        for record in st.record_order.iter().filter_map(|id| st.records.get(id)) {
            let entry = by_key.entry(&record.process_key).or_insert_with(|| ProcessSummary {
                process_key: record.process_key.clone(),
                pid: record.process_key.rsplit('+').next().and_then(|p| p.parse().ok()).unwrap_or(0),
                first_call_at: record.started_at,
                last_call_at: record.started_at,
                calls: 0,
                paused: 0,
                repl_sessions: 0,
            });
            entry.calls += 1;
            entry.last_call_at = entry.last_call_at.max(record.started_at);
            entry.repl_sessions += record.repl_sessions.len();
            entry.paused +=
                record.pause_ids.iter().filter(|id| st.pauses.get(*id).is_some_and(Pause::is_paused)).count();
        }
        let mut all: Vec<ProcessSummary> = by_key.into_values().collect();
        all.sort_by(|a, b| b.last_call_at.total_cmp(&a.last_call_at));
        all
    }

    /// The calls of one process as a tree (depth-first), or None for an unknown process.
    pub fn call_tree(&self, process_key: &str) -> Option<Vec<CallTreeNode>> {
        let st = self.state();
        let records: Vec<&CallRecord> = st
            .record_order
            .iter()
            .filter_map(|id| st.records.get(id))
            .filter(|r| r.process_key == process_key)
            .collect();
        if records.is_empty() {
            return None;
        }
        Some(call_tree::build(&records, |call_id| session_links(&st, st.sessions.for_call(call_id))))
    }

    /// Breakpoints with what the main page needs to edit them.
    pub fn breakpoints_view(&self) -> BreakpointsView {
        let st = self.state();
        let breakpoints = st
            .breakpoints
            .by_name
            .iter()
            .map(|(name, bp)| {
                let signature = st.functions.get(name).and_then(|f| f.signature.clone());
                let replacements = st
                    .functions
                    .iter()
                    .filter(|(other, f)| {
                        *other != name
                            && signature.as_deref().is_some_and(|s| !s.is_empty() && f.signature.as_deref() == Some(s))
                    })
                    .map(|(other, _)| other.clone())
                    .collect();
                BreakpointView {
                    function_name: name.clone(),
                    behavior: bp.behavior.as_str().into(),
                    after_behavior: bp.after_behavior.as_str().into(),
                    replacement: bp.replacement.clone(),
                    signature,
                    replacements,
                }
            })
            .collect();
        BreakpointsView { breakpoints, global_behavior: st.breakpoints.global.as_str().into() }
    }

    /// Every call of one process, in the order they started.
    pub fn call_records(&self, process_key: &str) -> Vec<CallRecord> {
        let st = self.state();
        st.record_order
            .iter()
            .filter_map(|id| st.records.get(id))
            .filter(|r| r.process_key == process_key)
            .cloned()
            .collect()
    }

    pub fn breakpoint_history(&self, name: &str, limit: usize) -> Vec<Value> {
        let st = self.state();
        st.history.get(name).map(|h| h.iter().rev().take(limit).cloned().collect()).unwrap_or_default()
    }

    pub fn record_event(&self, event: Value) {
        let mut st = self.state();
        if st.events.len() >= MAX_EVENTS {
            st.events.pop_front();
        }
        st.events.push_back(event);
    }

    pub fn report_com_error(&self, mut report: Value) {
        if let Some(obj) = report.as_object_mut() {
            let now = ids::now();
            obj.insert("received_at".into(), json!(now));
            obj.entry("timestamp").or_insert(json!(now));
        }
        let mut st = self.state();
        if st.com_errors.len() >= MAX_COM_ERRORS {
            st.com_errors.pop_front();
        }
        st.com_errors.push_back(report);
    }

    pub fn com_errors(&self) -> Vec<Value> {
        self.state().com_errors.iter().cloned().collect()
    }

    // ---- REPL sessions ---------------------------------------------------------------------

    pub fn start_session(&self, pause_id: &str) -> Result<String> {
        if pause_id.trim().is_empty() {
            return Err(Error::MissingField { code: "missing_pause_id", field: "pause_id" });
        }
        let now = ids::now();
        let mut st = self.state();
        let pause = st.pauses.get(pause_id).ok_or_else(|| Error::PauseNotFound(pause_id.to_string()))?;
        if !pause.is_paused() {
            return Err(Error::PauseResumed(pause_id.to_string()));
        }
        let call = &pause.record.call;
        let session = ReplSession {
            session_id: String::new(),
            pause_id: pause_id.to_string(),
            pid: call.process_pid,
            started_at: now,
            closed_at: None,
            closed_reason: None,
            function_name: call.method_name.clone(),
            call_id: Some(call.call_id.clone()),
            process_key: call.process_key.clone(),
            args: call.args.iter().map(|a| serde_json::to_value(a).unwrap_or(Value::Null)).collect(),
            kwargs: call
                .kwargs
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
                .collect(),
            pretty_args: call.pretty_args.clone(),
            pretty_kwargs: call.pretty_kwargs.clone().into_iter().collect(),
            signature: call.signature.clone(),
            transcript: vec![],
        };
        let call_id = call.call_id.clone();
        let (process_key, function_name) = (call.process_key.clone(), call.method_name.clone());
        let session_id = st.sessions.insert(session);
        if let Some(record) = st.records.get_mut(&call_id) {
            record.repl_sessions.push(session_id.clone());
        }
        st.save_session(&session_id)?;
        st.save_call(&call_id)?;
        st.log(
            now,
            "session_start",
            &process_key,
            Some(&session_id),
            json!({"session_id": session_id, "pause_id": pause_id, "call_id": call_id, "function_name": function_name}),
        )?;
        drop(st);
        self.publish(LiveEvent::SessionStarted { session_id: session_id.clone(), pause_id: pause_id.to_string() });
        Ok(session_id)
    }

    pub fn session(&self, session_id: &str) -> Option<ReplSession> {
        self.state().sessions.get(session_id).cloned()
    }

    pub fn list_sessions(&self, query: &SessionQuery) -> SessionPage<ReplSession> {
        self.state().sessions.list(query)
    }

    pub fn sessions_for_pause(&self, pause_id: &str) -> Vec<String> {
        self.state().sessions.for_pause(pause_id)
    }

    pub fn sessions_for_call(&self, call_id: &str) -> Vec<String> {
        self.state().sessions.for_call(call_id)
    }

    /// Closes a session (idempotent); its waiting evals answer "session closed".
    pub fn close_session(&self, session_id: &str) -> Result<()> {
        let now = ids::now();
        let mut st = self.state();
        match st.sessions.open_mut(session_id) {
            Ok(_) => {}
            Err(Error::SessionClosed(_)) => return Ok(()),
            Err(e) => return Err(e),
        }
        let pause_id = st.sessions.get(session_id).map(|s| s.pause_id.clone()).unwrap_or_default();
        let cancelled = st.pauses.get_mut(&pause_id).map(|pause| {
            pause.wake.notify_waiters();
            pause.evals.cancel_session(session_id)
        });
        st.log_unanswered(cancelled.into_iter().flatten())?;
        close_one_session(&mut st, session_id, now, None)?;
        drop(st);
        self.publish(LiveEvent::SessionClosed { session_id: session_id.to_string(), closed_at: now });
        Ok(())
    }

    /// Runs `expr` in the paused program and waits for its answer, which is also appended to
    /// the transcript.
    pub async fn eval(&self, session_id: &str, expr: &str) -> Result<EvalOutcome> {
        if expr.trim().is_empty() {
            return Err(Error::MissingField { code: "missing_expr", field: "expr" });
        }
        let (reply, answer) = oneshot::channel();
        let eval_id = ids::new_uuid();
        let pause_id = {
            let mut st = self.state();
            let session = st.sessions.open_mut(session_id)?;
            let pause_id = session.pause_id.clone();
            if !st.pauses.get(&pause_id).ok_or(Error::InvalidPause)?.is_paused() {
                return Err(Error::SessionClosed(session_id.to_string()));
            }
            let pause = st.pauses.get_mut(&pause_id).ok_or(Error::InvalidPause)?;
            let request = EvalRequest {
                eval_id: eval_id.clone(),
                session_id: session_id.to_string(),
                pause_id: pause_id.clone(),
                expr: expr.to_string(),
                timeout_s: self.inner.config.eval_timeout.as_secs_f64(),
            };
            pause.evals.push(PendingEval { request, reply, requested_at: ids::now() });
            pause.wake.notify_waiters();
            pause_id
        };
        match tokio::time::timeout(self.inner.config.eval_timeout, answer).await {
            Ok(Ok(entry)) => Ok(EvalOutcome::from(&entry)),
            Ok(Err(_closed)) => Err(Error::SessionClosed(session_id.to_string())),
            Err(_elapsed) => {
                let mut st = self.state();
                let unanswered = st.pauses.get_mut(&pause_id).and_then(|pause| {
                    pause.wake.notify_waiters();
                    pause.evals.give_up(&eval_id)
                });
                st.log_unanswered(unanswered.into_iter())?;
                Err(Error::EvalTimeout(self.inner.config.eval_timeout.as_secs()))
            }
        }
    }

    /// `poll-repl`: the next eval for the paused client, if one is ready.
    pub fn next_eval(&self, pause_id: &str) -> Option<EvalRequest> {
        self.state().pauses.get_mut(pause_id)?.evals.take_next()
    }

    /// The client's answer to an eval: appended to the transcript and handed to the waiter.
    pub fn submit_eval_result(&self, result: EvalResult) -> Result<()> {
        let (Some(eval_id), Some(session_id), Some(pause_id)) =
            (result.eval_id.as_deref(), result.session_id.as_deref(), result.pause_id.as_deref())
        else {
            return Err(Error::MissingField { code: "missing_fields", field: "eval_id, session_id and pause_id" });
        };
        let now = ids::now();
        let mut st = self.state();
        if let Err(closed) = st.sessions.open_mut(session_id) {
            // Nobody waits for this answer any more, but the client is done with the eval and
            // may take the next one.
            if let Some(pause) = st.pauses.get_mut(pause_id) {
                pause.evals.finish(eval_id);
                pause.wake.notify_waiters();
            }
            return Err(closed);
        }
        let new_object = match (&result.result_cid, &result.result_data) {
            (Some(cid), Some(data)) => st.cids.store_pair(cid, data, None, now)?,
            _ => None,
        };
        let pause = st.pauses.get_mut(pause_id).ok_or_else(|| Error::EvalNotFound(eval_id.to_string()))?;
        let pending = pause.evals.finish(eval_id);
        // Also when the server gave up on it: the client is free to take the next one now.
        pause.wake.notify_waiters();
        let pending = pending.ok_or_else(|| Error::EvalNotFound(eval_id.to_string()))?;
        let is_error = result.error.is_some();
        let output = match (result.error, result.result) {
            (Some(error), _) => error,
            (None, Some(repr)) => repr,
            (None, None) => String::new(),
        };
        let entry = st.sessions.append(
            session_id,
            pending.request.expr.clone(),
            output,
            result.stdout.unwrap_or_default(),
            is_error,
            if is_error { None } else { result.result_cid },
            now,
        )?;
        // Durable before the browser hears of it, in one commit.
        persist_answer(&st, &pending, new_object.as_deref(), &entry, now)?;
        drop(st);
        let _ = pending.reply.send(entry.clone());
        self.publish(LiveEvent::TranscriptAppended { session_id: session_id.to_string(), entry });
        Ok(())
    }

    /// Appends an entry directly (used by tests and tools that replay transcripts).
    pub fn append_transcript(
        &self,
        session_id: &str,
        input: &str,
        output: &str,
        stdout: &str,
        is_error: bool,
        result_cid: Option<String>,
    ) -> Result<TranscriptEntry> {
        let now = ids::now();
        let mut st = self.state();
        let entry = st.sessions.append(
            session_id,
            input.to_string(),
            output.to_string(),
            stdout.to_string(),
            is_error,
            result_cid,
            now,
        )?;
        st.store.atomically(|store| {
            persist_entry(store, &st.session_process_key(session_id), session_id, "", &entry, now)
        })?;
        drop(st);
        self.publish(LiveEvent::TranscriptAppended { session_id: session_id.to_string(), entry: entry.clone() });
        Ok(entry)
    }
}

fn required_name(name: &str) -> Result<&str> {
    if name.trim().is_empty() {
        Err(Error::MissingField { code: "function_name required", field: "function_name" })
    } else {
        Ok(name)
    }
}

fn process_identity(pid: &Option<Value>, start: &Option<Value>) -> Result<(i64, f64)> {
    let pid = pid.as_ref().and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)));
    let start = start.as_ref().and_then(Value::as_f64);
    match (pid, start) {
        (Some(pid), Some(start)) if start.is_finite() => Ok((pid, start)),
        _ => Err(Error::MissingProcessIdentity),
    }
}

fn add_pause(st: &mut State, call: CallData, reason: PauseReason, now: f64) -> Result<String> {
    let pause_id = ids::new_uuid();
    let (call_id, process_key, function_name) =
        (call.call_id.clone(), call.process_key.clone(), call.method_name.clone());
    if let Some(record) = st.records.get_mut(&call_id) {
        record.pause_ids.push(pause_id.clone());
    }
    st.pauses.insert(pause_id.clone(), Pause::new(pause_id.clone(), call, reason, now));
    st.pause_order.push(pause_id.clone());
    st.save_pause(&pause_id)?;
    st.save_call(&call_id)?;
    st.log(
        now,
        "pause",
        &process_key,
        None,
        json!({"pause_id": pause_id, "call_id": call_id, "function_name": function_name, "reason": reason}),
    )?;
    Ok(pause_id)
}

/// Marks a pause resumed, closes its sessions and fails their evals. Returns the sessions
/// closed. `reason` is set when no user resumed it (a restart).
fn close_pause(
    st: &mut State,
    pause_id: &str,
    action: Action,
    now: f64,
    reason: Option<&str>,
) -> Result<Vec<(String, f64)>> {
    let mut closed = vec![];
    let mut resumed = None;
    let mut cancelled = vec![];
    if let Some(pause) = st.pauses.get_mut(pause_id) {
        if pause.record.resume.is_none() {
            pause.record.resume = Some(action.clone());
            pause.record.resumed_at = Some(now);
            pause.record.resumed_reason = reason.map(str::to_string);
            resumed = Some((pause.record.call.process_key.clone(), pause.record.call.call_id.clone()));
        }
        cancelled = pause.evals.cancel_all();
        pause.wake.notify_waiters();
    }
    st.log_unanswered(cancelled.into_iter())?;
    if let Some((process_key, call_id)) = resumed {
        st.save_pause(pause_id)?;
        st.log(
            now,
            "resume",
            &process_key,
            None,
            json!({"pause_id": pause_id, "call_id": call_id, "action": action, "reason": reason}),
        )?;
    }
    for session_id in st.sessions.for_pause(pause_id) {
        if close_one_session(st, &session_id, now, reason)? {
            closed.push((session_id, now));
        }
    }
    Ok(closed)
}

/// Closes and records one session; false when it was already closed.
fn close_one_session(st: &mut State, session_id: &str, now: f64, reason: Option<&str>) -> Result<bool> {
    if !st.sessions.close(session_id, now)? {
        return Ok(false);
    }
    if let Some(reason) = reason {
        st.sessions.set_closed_reason(session_id, reason);
    }
    st.save_session(session_id)?;
    let process_key = st.session_process_key(session_id);
    st.log(now, "session_close", &process_key, Some(session_id), json!({"session_id": session_id, "reason": reason}))?;
    Ok(true)
}

/// A transcript entry and its event.
fn persist_entry(
    store: &Store,
    process_key: &str,
    session_id: &str,
    eval_id: &str,
    entry: &TranscriptEntry,
    now: f64,
) -> Result<()> {
    let event = json!({
        "eval_id": eval_id, "index": entry.index, "input": entry.input, "output": entry.output,
        "stdout": entry.stdout, "is_error": entry.is_error, "result_cid": entry.result_cid,
    });
    store.append_entry(session_id, entry)?;
    store.append_event(now, "eval_result", Some(process_key), Some(session_id), &event).map(|_| ())
}

/// Everything an answered eval leaves behind, in one commit: its request, the value it
/// returned (if new), the transcript entry and its event.
fn persist_answer(
    st: &State,
    pending: &PendingEval,
    new_object: Option<&str>,
    entry: &TranscriptEntry,
    now: f64,
) -> Result<()> {
    let request = &pending.request;
    let process_key = st.session_process_key(&request.session_id);
    st.store.atomically(|store| {
        store.append_event(
            pending.requested_at,
            "eval_request",
            Some(&process_key),
            Some(&request.session_id),
            &request_event(request),
        )?;
        if let Some((cid, obj)) = new_object.and_then(|cid| st.cids.get(cid).map(|obj| (cid, obj))) {
            store.put_object(cid, obj)?;
        }
        persist_entry(store, &process_key, &request.session_id, &request.eval_id, entry, now)
    })
}

fn request_event(request: &EvalRequest) -> Value {
    json!({"eval_id": request.eval_id, "expr": request.expr})
}

/// How a call ended, as records and pages show it: (status, result text, exception).
fn call_outcome(req: &CallComplete, cids: &CidStore) -> (&'static str, Option<Value>, Option<Value>) {
    let raised = req.exception_cid.is_some() || !matches!(req.status.as_deref(), None | Some("success"));
    if raised {
        let type_name = req.exception_type.clone().unwrap_or_else(|| "Exception".into());
        let message = req.exception_message.clone().unwrap_or_default();
        let exception = json!({
            "summary": format!("{type_name}: {message}"),
            "type_name": type_name,
            "message": message,
            "traceback": req.exception_traceback,
        });
        return ("exception", None, Some(exception));
    }
    let result = match (&req.result_repr, &req.result_cid) {
        (Some(repr), _) => Value::String(repr.clone()),
        (None, Some(cid)) => pretty_item(&SerializedItem { cid: Some(cid.clone()), ..Default::default() }, cids),
        (None, None) => Value::String("None".into()),
    };
    ("success", Some(result), None)
}

/// Rebuilds the state from a snapshot; whatever was open is closed, with the restart as reason.
fn restore(st: &mut State, snapshot: Snapshot, now: f64) -> Result<()> {
    for (name, bp) in snapshot.breakpoints {
        st.breakpoints.by_name.insert(name, bp);
    }
    if let Some(global) = snapshot.global {
        st.breakpoints.global = global;
    }
    for (name, data) in snapshot.functions {
        if let Ok(f) = serde_json::from_value::<RegisteredFunction>(data) {
            st.functions.insert(name, f);
        }
    }
    for (cid, obj) in snapshot.objects {
        st.cids.insert(&cid, obj.bytes, obj.format, obj.created_at);
    }
    for record in snapshot.calls {
        st.seen_processes.insert(record.process_key.clone());
        st.record_order.push(record.call_id.clone());
        st.records.insert(record.call_id.clone(), record);
    }
    st.call_seq = st.records.len() as u64;
    for (name, entry) in snapshot.history {
        st.history.entry(name).or_default().push(entry);
    }
    for session in snapshot.sessions {
        st.sessions.restore(session);
    }
    let mut open_pauses = vec![];
    for record in snapshot.pauses {
        let pause = Pause::from_record(record);
        if pause.is_paused() {
            open_pauses.push(pause.record.pause_id.clone());
        }
        st.pause_order.push(pause.record.pause_id.clone());
        st.pauses.insert(pause.record.pause_id.clone(), pause);
    }
    for pause_id in open_pauses {
        close_pause(st, &pause_id, Action::Continue, now, Some(RESTART_REASON))?;
    }
    // Sessions whose pause was lost or resumed without closing them.
    for session_id in st.sessions.open_ids() {
        close_one_session(st, &session_id, now, Some(RESTART_REASON))?;
    }
    Ok(())
}

fn session_links(st: &State, ids: Vec<String>) -> Vec<SessionLink> {
    ids.into_iter()
        .filter_map(|id| st.sessions.get(&id))
        .map(|s| SessionLink { session_id: s.session_id.clone(), active: s.is_active(), entries: s.transcript.len() })
        .collect()
}

/// A client's rich frame (`frames` extension) for the call stack page.
fn frame_view(raw: &Value) -> FrameView {
    let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_string);
    let strings = |key: &str| -> Vec<String> {
        raw.get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    FrameView {
        filename: text("filename").unwrap_or_else(|| "?".into()),
        lineno: raw.get("lineno").and_then(Value::as_i64).unwrap_or(0),
        function: text("function").unwrap_or_else(|| "?".into()),
        code_context: text("code_context"),
        source_start: raw.get("source_start").and_then(Value::as_i64).unwrap_or(0),
        source_lines: strings("source_lines"),
        locals: strings("locals"),
    }
}

fn paused_call(st: &State, pause: &Pause) -> PausedCall {
    let call = &pause.record.call;
    let mut args_text: Vec<String> = call.pretty_args.iter().map(text_of).collect();
    args_text.extend(call.pretty_kwargs.iter().map(|(k, v)| format!("{k}={}", text_of(v))));
    let active_sessions = st
        .sessions
        .for_pause(&pause.record.pause_id)
        .into_iter()
        .filter(|id| st.sessions.get(id).is_some_and(ReplSession::is_active))
        .collect();
    PausedCall {
        pause_id: pause.record.pause_id.clone(),
        call_id: call.call_id.clone(),
        function_name: call.method_name.clone(),
        reason: pause.record.reason,
        args_text,
        result_text: call.pretty_result.as_ref().map(text_of),
        pid: call.process_pid,
        process_key: call.process_key.clone(),
        paused_at: pause.record.paused_at,
        active_sessions,
    }
}
