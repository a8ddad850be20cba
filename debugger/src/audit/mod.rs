//! The audit trail (issue 48): who ran what, through which door, on what, and how it ended.
//! Every operation that runs code or changes state is recorded, and every refusal. Records are
//! append-only; only age removes them (`--audit-days`), never history pruning.
//!
//! Records are written by one thread of their own, in batches, so that recording costs a request
//! a channel send (well under the 0.1 ms budget), not a commit. A read waits for what was sent
//! before it. A server killed outright can lose the records of its last few milliseconds.

mod store;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;
use crate::store::{Location, Store};
pub use store::AuditQuery;

/// The response header a server function that only reads answers with, so that the door leaves
/// it out of the audit trail (and removes the header). Every other server function call is audited.
pub const READ_ONLY_HEADER: &str = "x-breakroom-read-only";

/// Which way a request came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Door {
    /// The pages (their server functions, sign-in and sign-out).
    Page,
    Rest,
    /// `breakroom` subcommands.
    Cli,
    Mcp,
    Dap,
}

impl Door {
    pub fn as_str(self) -> &'static str {
        match self {
            Door::Page => "page",
            Door::Rest => "rest",
            Door::Cli => "cli",
            Door::Mcp => "mcp",
            Door::Dap => "dap",
        }
    }

    pub fn parse(text: &str) -> Option<Door> {
        [Door::Page, Door::Rest, Door::Cli, Door::Mcp, Door::Dap].into_iter().find(|d| d.as_str() == text)
    }
}

/// How an audited operation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Done,
    /// Allowed, and it failed (a 4xx or 5xx of its own).
    Failed,
    /// Refused for want of a credential (401) or of a role (403).
    Refused,
}

/// One record. It never holds a token.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditRecord {
    /// Given by the store, in the order records were written.
    #[serde(default)]
    pub id: i64,
    pub time: f64,
    /// The user or program name; `anonymous` for a request without a valid credential.
    pub actor: String,
    /// `viewer`, `debugger`, `admin`, `program`, `owner`, or `none`.
    pub role: String,
    pub door: Door,
    /// The remote address, or `local` for the command line.
    pub remote: String,
    /// What was done: `POST /api/repl/{session_id}/eval`, `mcp evaluate`, `user add`...
    pub action: String,
    /// The ids it acted on (process, pause, session...), by name.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub target: BTreeMap<String, String>,
    /// What it was given: an eval's code, a resume's action, a breakpoint's fields (a JSON body as
    /// it came, a form as an object, other text as a string, or null without a body).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Value))]
    pub detail: Value,
    pub outcome: Outcome,
    /// The HTTP status answered (0 where there was none).
    pub status: u16,
}

enum Job {
    Record(Box<AuditRecord>),
    Flush(mpsc::Sender<()>),
}

/// The trail of one store: a writer thread, and a connection for reads.
pub struct AuditTrail {
    jobs: Mutex<mpsc::Sender<Job>>,
    reader: Arc<Mutex<Store>>,
    keep: Duration,
}

/// Most records written in one transaction.
const MAX_BATCH: usize = 5_000;

impl AuditTrail {
    /// `keep`: how long records stay (`--audit-days`); `log`: a file to append JSON lines to.
    /// The writer has a connection of its own, so a batch never waits for a read.
    pub fn open(location: &Location, keep: Duration, log: Option<PathBuf>) -> Result<AuditTrail> {
        let writer = Arc::new(Mutex::new(Store::at(location)?));
        Self::start(writer, Arc::new(Mutex::new(Store::at(location)?)), keep, log)
    }

    /// On an in-memory database (`--memory`, tests): one connection for both.
    pub fn in_memory(keep: Duration) -> Result<AuditTrail> {
        let store = Arc::new(Mutex::new(Store::in_memory()?));
        Self::start(store.clone(), store, keep, None)
    }

    fn start(
        writer: Arc<Mutex<Store>>,
        reader: Arc<Mutex<Store>>,
        keep: Duration,
        log: Option<PathBuf>,
    ) -> Result<AuditTrail> {
        let log =
            match log {
                Some(path) => Some(std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(|e| {
                    crate::Error::storage_caused(format!("cannot open --audit-log {}", path.display()), e)
                })?),
                None => None,
            };
        store::prune(&lock(&writer), crate::ids::now() - keep.as_secs_f64())?;
        let (jobs, queue) = mpsc::channel();
        spawn_writer(writer, queue, log);
        Ok(AuditTrail { jobs: Mutex::new(jobs), reader, keep })
    }

    /// Queues a record; it is stored within milliseconds.
    pub fn record(&self, record: AuditRecord) {
        let jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        let _ = jobs.send(Job::Record(Box::new(record)));
    }

    /// Waits until every record queued so far is stored.
    pub fn flush(&self) {
        let (done, stored) = mpsc::channel();
        let sent = self.jobs.lock().unwrap_or_else(|p| p.into_inner()).send(Job::Flush(done)).is_ok();
        if sent {
            let _ = stored.recv_timeout(Duration::from_secs(10));
        }
    }

    /// Records matching `query`, oldest first (after `query.after`), at most `query.limit`.
    pub fn read(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>> {
        self.flush();
        store::read(&lock(&self.reader), query)
    }

    /// The newest `limit` records matching `query`, newest first (the audit page).
    pub fn read_newest(&self, query: &AuditQuery, limit: u32) -> Result<Vec<AuditRecord>> {
        self.flush();
        store::read_newest(&lock(&self.reader), query, limit)
    }

    /// Removes records older than the kept time; the server calls it daily.
    pub fn prune(&self) -> Result<u64> {
        store::prune(&lock(&self.reader), crate::ids::now() - self.keep.as_secs_f64())
    }
}

fn lock(store: &Mutex<Store>) -> std::sync::MutexGuard<'_, Store> {
    store.lock().unwrap_or_else(|p| p.into_inner())
}

fn spawn_writer(store: Arc<Mutex<Store>>, queue: mpsc::Receiver<Job>, mut log: Option<std::fs::File>) {
    let spawned = std::thread::Builder::new().name("breakroom-audit".into()).spawn(move || {
        let mut batch: Vec<AuditRecord> = vec![];
        let mut flushes = vec![];
        while let Ok(job) = queue.recv() {
            let mut next = Some(job);
            while let Some(job) = next.take() {
                match job {
                    Job::Record(record) => batch.push(*record),
                    Job::Flush(done) => flushes.push(done),
                }
                if batch.len() < MAX_BATCH {
                    next = queue.try_recv().ok();
                }
            }
            if !batch.is_empty() {
                if let Err(e) = store::append(&lock(&store), &batch) {
                    eprintln!("breakroom: audit records not stored: {e}");
                }
                if let Some(file) = &mut log {
                    let mut lines = String::new();
                    for record in &batch {
                        if let Ok(line) = serde_json::to_string(record) {
                            lines.push_str(&line);
                            lines.push('\n');
                        }
                    }
                    if let Err(e) = file.write_all(lines.as_bytes()) {
                        eprintln!("breakroom: --audit-log not written: {e}");
                    }
                }
                batch.clear();
            }
            for done in flushes.drain(..) {
                let _ = done.send(());
            }
        }
    });
    if let Err(e) = spawned {
        eprintln!("breakroom: cannot start the audit writer: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(actor: &str, time: f64) -> AuditRecord {
        AuditRecord {
            id: 0,
            time,
            actor: actor.into(),
            role: "debugger".into(),
            door: Door::Rest,
            remote: "127.0.0.1:1".into(),
            action: "POST /api/repl/{session_id}/eval".into(),
            target: [("process_id".to_string(), "p1".to_string())].into_iter().collect(),
            detail: serde_json::json!({"expr": "x"}),
            outcome: Outcome::Done,
            status: 200,
        }
    }

    #[test]
    fn records_are_kept_across_a_reopen_and_only_age_removes_them() {
        let dir = tempfile::tempdir().unwrap();
        let location = Location::Directory(dir.path().to_path_buf());
        let day = 86_400.0;
        let now = crate::ids::now();
        let keep = Duration::from_secs(90 * 86_400);
        let trail = AuditTrail::open(&location, keep, None).unwrap();
        trail.record(record("old", now - 100.0 * day));
        trail.record(record("recent", now - 10.0 * day));
        trail.record(record("now", now));
        let all = trail.read(&AuditQuery::default()).unwrap();
        assert_eq!(all.iter().map(|r| r.actor.as_str()).collect::<Vec<_>>(), ["old", "recent", "now"]);
        drop(trail);
        let reopened = AuditTrail::open(&location, keep, None).unwrap();
        let kept = reopened.read(&AuditQuery::default()).unwrap();
        assert_eq!(kept.iter().map(|r| r.actor.as_str()).collect::<Vec<_>>(), ["recent", "now"]);
        let query = AuditQuery { user: Some("now".into()), process: Some("p1".into()), ..Default::default() };
        assert_eq!(reopened.read(&query).unwrap().len(), 1);
        let query = AuditQuery { action: Some("eval".into()), after: Some(kept[0].id), ..Default::default() };
        assert_eq!(reopened.read(&query).unwrap().len(), 1);
        let query = AuditQuery { action: Some("100%_".into()), ..Default::default() };
        assert!(reopened.read(&query).unwrap().is_empty(), "LIKE wildcards in a filter are literal");
    }
}
