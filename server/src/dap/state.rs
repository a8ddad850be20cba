//! What one DAP connection remembers: its threads (a program's thread, stable across steps and
//! step back), the frame ids and variable references it handed out, the breakpoints it made,
//! and the pauses it has announced.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// A program's thread: its process record (which outlives a step back's new pid) and the
/// thread's ident in the program (0 when the client did not say).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThreadKey {
    pub process: String,
    pub ident: i64,
}

/// The scopes of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The frame's locals (module frames: its globals).
    Locals,
    /// The frame's module globals.
    Globals,
    /// Names assigned in the REPL session.
    Session,
}

impl Scope {
    /// The variables panel's `scope` of a row of this scope.
    pub fn row_scope(self) -> &'static str {
        match self {
            Scope::Locals | Scope::Globals => "local",
            Scope::Session => "session",
        }
    }
}

/// What a frame id or a variables reference stands for.
#[derive(Clone, Debug)]
pub enum Handle {
    Frame {
        pause: String,
        index: usize,
    },
    Scope {
        pause: String,
        frame: usize,
        scope: Scope,
    },
    /// An expandable value: its panel path (from the frame's globals when `globals`, else its
    /// locals), and the REPL text of it when there is one.
    Value {
        pause: String,
        frame: usize,
        path: breakroom_debugger::eval::VariablePath,
        expression: Option<String>,
        globals: bool,
    },
}

impl Handle {
    fn pause(&self) -> &str {
        match self {
            Handle::Frame { pause, .. } | Handle::Scope { pause, .. } | Handle::Value { pause, .. } => pause,
        }
    }
}

#[derive(Default)]
pub struct DapState {
    pub configured: bool,
    /// Signalled at `configurationDone` (a launch waits for it: breakpoints first).
    pub configuration_done: std::sync::Arc<tokio::sync::Notify>,
    /// Lines (and columns) the editor counts from 1 (DAP's default) or from 0.
    pub lines_from_0: bool,
    pub columns_from_0: bool,
    threads: HashMap<ThreadKey, i64>,
    thread_names: HashMap<i64, String>,
    /// Each thread's current pause.
    paused: HashMap<i64, String>,
    handles: HashMap<i64, Handle>,
    next_handle: i64,
    /// Pauses already sent as `stopped`.
    pub announced: HashSet<String>,
    /// Threads with a continue or step of this connection under way: their stop is announced
    /// after the request's response.
    pub in_flight: HashSet<i64>,
    /// Pauses this connection stepped to (resumed at disconnect unless asked not to).
    pub reached: HashSet<String>,
    /// The REPL session this connection evaluates in, per pause.
    pub repl_sessions: HashMap<String, String>,
    /// Breakpoint records made by this connection: line ones by source path, function ones,
    /// exception ones.
    pub line_records: HashMap<String, Vec<String>>,
    pub function_records: Vec<String>,
    pub exception_records: Vec<String>,
    /// Record ids as DAP breakpoint ids (numbers), and the records last seen (for events).
    pub breakpoint_ids: HashMap<String, i64>,
    pub seen_records: HashMap<String, Value>,
    /// Processes `launch` started (`terminate` stops them).
    pub launched: Vec<String>,
    /// Process keys already looked at for a running thread (`Dap::running_threads`).
    pub running_checked: HashSet<String>,
}

impl DapState {
    /// The DAP id of a thread, made on first sight.
    pub fn thread_id(&mut self, key: ThreadKey, name: impl FnOnce() -> String) -> i64 {
        if let Some(id) = self.threads.get(&key) {
            return *id;
        }
        let id = self.threads.len() as i64 + 1;
        self.threads.insert(key, id);
        self.thread_names.insert(id, name());
        id
    }

    pub fn thread_key_id(&self, key: &ThreadKey) -> Option<i64> {
        self.threads.get(key).copied()
    }

    /// The process record and thread ident of a DAP thread.
    pub fn key_of(&self, thread: i64) -> Option<ThreadKey> {
        self.threads.iter().find(|(_, id)| **id == thread).map(|(k, _)| k.clone())
    }

    /// Every thread seen, by id.
    pub fn threads(&self) -> Vec<(i64, String)> {
        let mut all: Vec<(i64, String)> = self.thread_names.iter().map(|(id, n)| (*id, n.clone())).collect();
        all.sort();
        all
    }

    /// The threads of a process record (it ended: they leave).
    pub fn forget_process(&mut self, process: &str) -> Vec<i64> {
        let gone: Vec<i64> = self.threads.iter().filter(|(k, _)| k.process == process).map(|(_, id)| *id).collect();
        self.threads.retain(|k, _| k.process != process);
        for id in &gone {
            self.thread_names.remove(id);
            self.paused.remove(id);
        }
        gone
    }

    pub fn set_paused(&mut self, thread: i64, pause: &str) {
        self.paused.insert(thread, pause.to_string());
    }

    pub fn pause_of(&self, thread: i64) -> Option<&String> {
        self.paused.get(&thread)
    }

    /// The thread a pause belongs to, if it is some thread's current pause.
    pub fn thread_of_pause(&self, pause: &str) -> Option<i64> {
        self.paused.iter().find(|(_, p)| p.as_str() == pause).map(|(t, _)| *t)
    }

    /// The pause left running: its handles are stale (DAP clients drop them at `continued`).
    pub fn resumed(&mut self, pause: &str) -> Option<i64> {
        self.handles.retain(|_, h| h.pause() != pause);
        self.repl_sessions.remove(pause);
        let thread = self.thread_of_pause(pause)?;
        self.paused.remove(&thread);
        Some(thread)
    }

    pub fn handle(&mut self, handle: Handle) -> i64 {
        self.next_handle += 1;
        self.handles.insert(self.next_handle, handle);
        self.next_handle
    }

    pub fn get_handle(&self, id: i64) -> Option<Handle> {
        self.handles.get(&id).cloned()
    }

    /// A record id's DAP breakpoint id.
    pub fn breakpoint_id(&mut self, record: &str) -> i64 {
        let next = self.breakpoint_ids.len() as i64 + 1;
        *self.breakpoint_ids.entry(record.to_string()).or_insert(next)
    }

    pub fn made_here(&self, record: &str) -> bool {
        self.line_records
            .values()
            .flatten()
            .chain(&self.function_records)
            .chain(&self.exception_records)
            .any(|r| r == record)
    }
}
