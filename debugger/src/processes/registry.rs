//! [`ProcessRegistry`]: every tracked process, in start order, with the rules for what its
//! record says. It knows nothing of pauses; the [`Debugger`](crate::Debugger) joins the two.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use indexmap::IndexMap;

use super::crash_reason::{self, Ending, STDERR_TAIL_LINES};
use super::launch::LaunchEnv;
use super::output::OutputWriter;
use super::retention::Retention;
use super::store::{ProcessStore, StoredLine};
use super::{OutputLine, OutputPage, OutputStream, ProcessOrigin, ProcessStatus, StreamCounts, TrackedProcess};
use crate::error::{Error, Result};
use crate::store::Store;

mod debug_clients;
mod family;
pub use debug_clients::ClientSeen;

/// Lines captured and not yet stored beyond which reading pauses: bounds the server's memory
/// when processes print faster than SQLite stores.
const MAX_OUTPUT_BACKLOG: usize = 100_000;

/// Why a process that was running when the server stopped is `lost`.
pub const LOST_AT_RESTART: &str = "server restarted while it was running";

#[derive(Clone, Debug)]
pub struct ProcessConfig {
    /// Bytes kept per output stream of a process; the oldest lines go first.
    pub output_limit: u64,
    pub retention: Retention,
    /// Handed to launched processes as `BREAKROOM_TOKEN`.
    pub token: Option<String>,
    /// Whether `POST /api/processes/attach` may run code in other processes (a loopback
    /// server, or `--allow-attach`).
    pub allow_attach: bool,
}

impl Default for ProcessConfig {
    fn default() -> Self {
        ProcessConfig {
            output_limit: 8 * 1024 * 1024,
            retention: Retention::default(),
            token: None,
            allow_attach: false,
        }
    }
}

struct Entry {
    /// As stored; `uptime_s` and `leaves_list_at` are filled in when it is shown.
    process: TrackedProcess,
    next_seq: u64,
    /// The last stderr lines, where the crash reason is looked for.
    stderr_tail: VecDeque<String>,
    stop_requested: bool,
    /// This server launched it and waits for its exit; otherwise only its pid can tell.
    watched: bool,
    /// Its pid means something here: launched by Breakroom, or a client that reported this
    /// host's name. (A cideldill client reports no host, and tests play clients with made-up
    /// pids: those are not judged by pid.)
    local_pid: bool,
    /// The kernel's start time of its pid (local clients): a later client with this pid is the
    /// same process after an `exec` only if this matches.
    kernel_start: Option<u64>,
}

#[derive(Default)]
struct Records {
    entries: IndexMap<String, Entry>,
    /// Debug-protocol process keys (one per client pid) to record ids.
    by_key: HashMap<String, String>,
}

impl Records {
    fn counts(&mut self, id: &str, stream: OutputStream) -> Option<&mut StreamCounts> {
        let process = &mut self.entries.get_mut(id)?.process;
        Some(match stream {
            OutputStream::Stdout => &mut process.stdout,
            OutputStream::Stderr => &mut process.stderr,
        })
    }
}

pub struct ProcessRegistry {
    records: Arc<Mutex<Records>>,
    store: Arc<ProcessStore>,
    writer: OutputWriter,
    config: ProcessConfig,
    client_dir: Option<PathBuf>,
    host: String,
    server_url: OnceLock<String>,
}

fn lock(records: &Mutex<Records>) -> MutexGuard<'_, Records> {
    records.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl ProcessRegistry {
    /// Reads back what `store` holds; processes that were alive come back `lost`. A store
    /// several servers share (PostgreSQL) is not read back: its live records are other servers'
    /// processes, and only their own server can say they ended.
    /// `client_dir`: where the Python client is shipped to (None: launched processes do without).
    pub fn open(config: ProcessConfig, store: Store, client_dir: Option<PathBuf>, now: f64) -> Result<Self> {
        let store = Arc::new(ProcessStore::new(store));
        let mut records = Records::default();
        let stored = if store.is_shared() { vec![] } else { store.load()? };
        for mut process in stored {
            if process.status.is_alive() {
                process.status = ProcessStatus::Lost;
                process.ended_at = Some(now);
                process.reason = Some(LOST_AT_RESTART.into());
                store.put_process(&process)?;
            }
            if let Some(key) = &process.process_key {
                records.by_key.insert(key.clone(), process.id.clone());
            }
            let next_seq = store.next_seq(&process.id)?.max(process.stdout.lines + process.stderr.lines);
            let local_pid = process.origin == ProcessOrigin::Launched;
            let entry = Entry {
                process,
                next_seq,
                stderr_tail: VecDeque::new(),
                stop_requested: false,
                watched: false,
                local_pid,
                kernel_start: None,
            };
            records.entries.insert(entry.process.id.clone(), entry);
        }
        let records = Arc::new(Mutex::new(records));
        let on_dropped = {
            let records = records.clone();
            Box::new(move |dropped: Vec<(String, OutputStream, u64)>| {
                let mut records = lock(&records);
                for (id, stream, n) in dropped {
                    if let Some(counts) = records.counts(&id, stream) {
                        counts.dropped += n;
                    }
                }
            })
        };
        let writer = OutputWriter::start(store.clone(), config.output_limit, on_dropped);
        let client_dir = client_dir.and_then(|dir| match super::client_bundle::install(&dir) {
            Ok(dir) => Some(dir),
            Err(e) => {
                eprintln!("breakroom: cannot write the Python client to {}: {e}", dir.display());
                None
            }
        });
        Ok(ProcessRegistry {
            records,
            store,
            writer,
            config,
            client_dir,
            host: super::liveness::hostname(),
            server_url: OnceLock::new(),
        })
    }

    fn records(&self) -> MutexGuard<'_, Records> {
        lock(&self.records)
    }

    pub fn config(&self) -> &ProcessConfig {
        &self.config
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    /// The address launched processes are given as `BREAKROOM_URL` (set once, when serving).
    pub fn set_server_url(&self, url: String) {
        let _ = self.server_url.set(url);
    }

    pub fn launch_env(&self) -> LaunchEnv {
        LaunchEnv {
            server_url: self.server_url.get().cloned(),
            token: self.config.token.clone(),
            client_dir: self.client_dir.clone(),
        }
    }

    /// A new record, `running` (a launch not yet spawned, or a client that called in).
    pub fn create(&self, mut process: TrackedProcess) -> Result<TrackedProcess> {
        let mut records = self.records();
        process.id = loop {
            let id = crate::ids::new_uuid()[..8].to_string();
            if !records.entries.contains_key(&id) {
                break id;
            }
        };
        if process.host.is_empty() {
            process.host = self.host.clone();
        }
        if let Some(key) = &process.process_key {
            records.by_key.insert(key.clone(), process.id.clone());
        }
        self.store.put_process(&process)?;
        let entry = Entry {
            process: process.clone(),
            next_seq: 0,
            stderr_tail: VecDeque::new(),
            stop_requested: false,
            watched: false,
            local_pid: false,
            kernel_start: None,
        };
        records.entries.insert(process.id.clone(), entry);
        self.prune(&mut records)?;
        Ok(process)
    }

    /// Forgets the oldest finished records beyond `--keep-processes`.
    fn prune(&self, records: &mut Records) -> Result<()> {
        let forget = self.config.retention.to_forget(records.entries.values().map(|e| &e.process));
        for id in forget {
            self.store.delete_process(&id)?;
            records.entries.shift_remove(&id);
            records.by_key.retain(|_, v| *v != id);
        }
        Ok(())
    }

    pub fn spawned(&self, id: &str, pid: Option<u32>) -> Result<()> {
        if let Some(entry) = self.records().entries.get_mut(id) {
            entry.watched = true;
            entry.local_pid = true;
        }
        self.update(id, |p| p.pid = pid.map(i64::from)).map(|_| ())
    }

    /// Changes a record and stores it; returns it as it is now.
    fn update(&self, id: &str, change: impl FnOnce(&mut TrackedProcess)) -> Result<TrackedProcess> {
        let mut records = self.records();
        let entry = records.entries.get_mut(id).ok_or_else(|| Error::ProcessNotFound(id.to_string()))?;
        change(&mut entry.process);
        self.store.put_process(&entry.process)?;
        Ok(entry.process.clone())
    }

    /// Numbers and stamps lines a launched process wrote, queues them for storage and returns
    /// them (for the live stream).
    pub fn append(&self, id: &str, stream: OutputStream, texts: Vec<String>, now: f64) -> Vec<OutputLine> {
        let mut records = self.records();
        let Some(entry) = records.entries.get_mut(id) else { return vec![] };
        let counts = match stream {
            OutputStream::Stdout => &mut entry.process.stdout,
            OutputStream::Stderr => &mut entry.process.stderr,
        };
        let mut stored = Vec::with_capacity(texts.len());
        for text in texts {
            let offset = counts.bytes;
            counts.bytes += text.len() as u64 + 1;
            counts.lines += 1;
            let line = OutputLine { seq: entry.next_seq, time: now, stream, text };
            entry.next_seq += 1;
            stored.push(StoredLine { process_id: id.to_string(), line, offset });
        }
        if stream == OutputStream::Stderr {
            for s in &stored {
                if entry.stderr_tail.len() == STDERR_TAIL_LINES {
                    entry.stderr_tail.pop_front();
                }
                entry.stderr_tail.push_back(s.line.text.clone());
            }
        }
        let lines = stored.iter().map(|s| s.line.clone()).collect();
        // Sent while the records are locked: the writer sees lines in seq order.
        self.writer.write(stored);
        lines
    }

    /// Whether so many lines wait for storage that readers should pause (see `output::capture`).
    pub fn output_backlogged(&self) -> bool {
        self.writer.backlog() > MAX_OUTPUT_BACKLOG
    }

    /// Waits until every line captured so far is stored.
    pub async fn flush_output(&self) {
        self.writer.flush().await
    }

    /// Records how a launched process ended: status, code or signal, and the crash reason.
    pub fn finished(&self, id: &str, ending: Ending, now: f64) -> Result<TrackedProcess> {
        let (stderr_tail, stopped) = {
            let records = self.records();
            let entry = records.entries.get(id).ok_or_else(|| Error::ProcessNotFound(id.to_string()))?;
            (entry.stderr_tail.clone(), entry.stop_requested)
        };
        let (status, reason) = crash_reason::diagnose(ending, &stderr_tail, stopped);
        self.update(id, |p| {
            p.status = status;
            p.reason = reason;
            p.ended_at = Some(now);
            match ending {
                Ending::Code(code) => p.exit_code = Some(code),
                Ending::Signal(signal) => p.signal = Some(crash_reason::signal_name(signal)),
            }
        })
    }

    /// A launch that failed after the record was made (the OS refused the program).
    pub fn failed_to_start(&self, id: &str, error: &str, now: f64) -> Result<TrackedProcess> {
        self.update(id, |p| {
            p.status = ProcessStatus::Crashed;
            p.reason = Some(error.to_string());
            p.ended_at = Some(now);
        })
    }

    /// Marks a process whose end was not seen. None if it was not alive.
    pub fn lost(&self, id: &str, reason: &str, now: f64) -> Option<TrackedProcess> {
        let alive = self.records().entries.get(id).is_some_and(|e| e.process.status.is_alive());
        if !alive {
            return None;
        }
        self.update(id, |p| {
            p.status = ProcessStatus::Lost;
            p.reason = Some(reason.to_string());
            p.ended_at = Some(now);
        })
        .ok()
    }

    /// Notes that a stop was asked for (its end is then `killed`); returns the record.
    pub fn stop_requested(&self, id: &str) -> Result<TrackedProcess> {
        let mut records = self.records();
        let entry = records.entries.get_mut(id).ok_or_else(|| Error::ProcessNotFound(id.to_string()))?;
        if entry.process.status.is_alive() {
            entry.stop_requested = true;
        }
        Ok(entry.process.clone())
    }

    /// The record id a debug-protocol process key belongs to.
    pub fn id_for_key(&self, process_key: &str) -> Option<String> {
        self.records().by_key.get(process_key).cloned()
    }

    /// Process keys linked to a record.
    pub fn keys_of(&self, id: &str) -> Vec<String> {
        self.records().by_key.iter().filter(|(_, v)| v.as_str() == id).map(|(k, _)| k.clone()).collect()
    }

    /// Alive processes on this host whose exit this server does not wait for (connected
    /// clients, and launched ones that came back after a restart), with their pids: the ones a
    /// liveness check judges.
    pub fn unwatched_local(&self) -> Vec<(String, i64)> {
        self.records()
            .entries
            .values()
            .filter(|e| !e.watched && e.local_pid)
            .map(|e| &e.process)
            .filter(|p| p.status.is_alive() && p.host == self.host)
            .filter_map(|p| p.pid.map(|pid| (p.id.clone(), pid)))
            .collect()
    }

    /// Finished processes whose time in the active list ran out after `since`, up to `now`.
    pub fn left_list_between(&self, since: f64, now: f64) -> Vec<String> {
        let retention = &self.config.retention;
        self.records()
            .entries
            .values()
            .map(|e| &e.process)
            .filter(|p| retention.leaves_list_at(p.status, p.ended_at).is_some_and(|at| since < at && at <= now))
            .map(|p| p.id.clone())
            .collect()
    }

    /// One record as shown at `now`.
    pub fn get(&self, id: &str, now: f64) -> Result<TrackedProcess> {
        let records = self.records();
        let entry = records.entries.get(id).ok_or_else(|| Error::ProcessNotFound(id.to_string()))?;
        let mut shown = self.shown(&entry.process, now);
        shown.children = records.children_of(id);
        Ok(shown)
    }

    /// The active list (alive, or finished within their retention), or all of history; oldest first.
    pub fn list(&self, all: bool, now: f64) -> Vec<TrackedProcess> {
        let retention = &self.config.retention;
        let records = self.records();
        let mut children = records.children_by_parent();
        records
            .entries
            .values()
            .filter(|e| all || retention.is_listed(&e.process, now))
            .map(|e| TrackedProcess {
                children: children.remove(&e.process.id).unwrap_or_default(),
                ..self.shown(&e.process, now)
            })
            .collect()
    }

    fn shown(&self, process: &TrackedProcess, now: f64) -> TrackedProcess {
        let mut shown = process.clone();
        shown.uptime_s = (process.ended_at.unwrap_or(now) - process.started_at).max(0.0);
        shown.leaves_list_at = self.config.retention.leaves_list_at(process.status, process.ended_at);
        shown
    }

    /// Forgets a finished process and its output now.
    pub fn forget(&self, id: &str) -> Result<()> {
        let mut records = self.records();
        let entry = records.entries.get(id).ok_or_else(|| Error::ProcessNotFound(id.to_string()))?;
        if entry.process.status.is_alive() {
            return Err(Error::ProcessRunning(id.to_string()));
        }
        self.store.delete_process(id)?;
        records.entries.shift_remove(id);
        records.by_key.retain(|_, v| v != id);
        Ok(())
    }

    /// Up to `limit` lines with `seq >= from`, of one stream or both (merged in seq order).
    pub fn output(&self, id: &str, stream: Option<OutputStream>, from: u64, limit: usize) -> Result<OutputPage> {
        let process = self.get(id, 0.0)?;
        let streams = match stream {
            Some(s) => vec![s],
            None => OutputStream::BOTH.to_vec(),
        };
        let mut lines = vec![];
        let mut dropped = 0;
        for s in streams {
            lines.extend(self.store.lines(id, s, from, limit)?);
            dropped += match s {
                OutputStream::Stdout => process.stdout.dropped,
                OutputStream::Stderr => process.stderr.dropped,
            };
        }
        lines.sort_by_key(|l| l.seq);
        lines.truncate(limit);
        let next = lines.last().map_or(from, |l| l.seq + 1);
        Ok(OutputPage { lines, next, dropped })
    }
}

/// A record with nothing known yet but its start.
pub fn blank(now: f64) -> TrackedProcess {
    TrackedProcess {
        id: String::new(),
        name: String::new(),
        command: vec![],
        cwd: None,
        pid: None,
        host: String::new(),
        origin: ProcessOrigin::Launched,
        started_at: now,
        ended_at: None,
        status: ProcessStatus::Running,
        exit_code: None,
        signal: None,
        reason: None,
        uptime_s: 0.0,
        process_key: None,
        leaves_list_at: None,
        stdout: StreamCounts::default(),
        parent_id: None,
        role: Default::default(),
        children: vec![],
        not_followed: None,
        labels: Default::default(),
        stderr: StreamCounts::default(),
    }
}
