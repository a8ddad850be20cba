//! Durable history in an embedded SQLite database: breakpoints, functions, stored values, call
//! records, pauses, REPL sessions with their transcripts, and the event log that `replay` reads.
//!
//! The [`Debugger`](crate::Debugger) keeps its working state in memory and writes every change
//! through to this store before it answers, so whatever was acknowledged survives a crash of the
//! server. WAL mode with `synchronous=NORMAL`: a commit is in the log before the call returns, so
//! a killed process loses nothing it acknowledged (only a power cut can drop the last commits).

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::breakpoint::{Breakpoint, GlobalBehavior};
use crate::call::{Action, CallData, CallRecord};
use crate::cid_store::{SerializationFormat, StoredObject};
use crate::error::{Error, Result};
use crate::model::{EventKind, PauseReason, RecordedEvent, ReplSession, TranscriptEntry};

/// The database file inside a data directory.
pub const DATABASE_FILE: &str = "breakroom.sqlite3";

/// Schema versions, oldest first; `PRAGMA user_version` says how many have been applied. Append
/// new steps, never edit old ones: a data directory written today must open tomorrow.
const MIGRATIONS: &[&str] = &[
    // 1: pauses, sessions, transcripts, calls, breakpoints and values, plus the event log.
    "CREATE TABLE breakpoints (name TEXT PRIMARY KEY, data TEXT NOT NULL);
     CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE functions (name TEXT PRIMARY KEY, data TEXT NOT NULL);
     CREATE TABLE objects (cid TEXT PRIMARY KEY, format TEXT NOT NULL, bytes BLOB NOT NULL, created_at REAL NOT NULL);
     CREATE TABLE calls (call_id TEXT PRIMARY KEY, process_key TEXT NOT NULL, started_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE pauses (pause_id TEXT PRIMARY KEY, paused_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE sessions (session_id TEXT PRIMARY KEY, started_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE transcript (
         session_id TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT NOT NULL,
         PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
     CREATE TABLE breakpoint_history (id INTEGER PRIMARY KEY, function_name TEXT NOT NULL, data TEXT NOT NULL);
     CREATE TABLE events (
         sequence INTEGER PRIMARY KEY, timestamp REAL NOT NULL, type TEXT NOT NULL,
         process_key TEXT, session_id TEXT, data TEXT NOT NULL);
     CREATE INDEX events_by_session ON events (session_id, sequence);
     CREATE INDEX events_by_process ON events (process_key, sequence);",
    // 2: each breakpoint's history is trimmed to its newest entries on every insert.
    "CREATE INDEX breakpoint_history_by_name ON breakpoint_history (function_name, id);",
    // 3: reserved for the history branch's step (merge: its SQL goes here, this placeholder goes).
    "-- reserved",
    // 4: tracked processes and their output, one row per line (crate::processes::store).
    "CREATE TABLE processes (id TEXT PRIMARY KEY, started_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE process_output (
         process_id TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL,
         time REAL NOT NULL, byte_offset INTEGER NOT NULL, text TEXT NOT NULL,
         PRIMARY KEY (process_id, stream, seq)) WITHOUT ROWID;",
];

/// A pause as stored: enough to show its call stack and sessions after a restart.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PauseRecord {
    pub pause_id: String,
    pub call: CallData,
    pub reason: PauseReason,
    pub paused_at: f64,
    pub resume: Option<Action>,
    pub resumed_at: Option<f64>,
    /// Why it was resumed without a user, e.g. the server restarted while it was paused.
    #[serde(default)]
    pub resumed_reason: Option<String>,
}

/// Everything the debugger rebuilds its state from when it opens a data directory.
#[derive(Default)]
pub struct Snapshot {
    pub breakpoints: Vec<(String, Breakpoint)>,
    pub global: Option<GlobalBehavior>,
    pub functions: Vec<(String, Value)>,
    pub objects: Vec<(String, StoredObject)>,
    /// In the order the calls started.
    pub calls: Vec<CallRecord>,
    /// In the order they paused.
    pub pauses: Vec<PauseRecord>,
    /// In the order they started, each with its transcript.
    pub sessions: Vec<ReplSession>,
    pub history: Vec<(String, Value)>,
}

/// Which events to read back.
#[derive(Clone, Debug, Default)]
pub struct EventSelection {
    pub session_id: Option<String>,
    pub process_key: Option<String>,
    pub from_sequence: i64,
}

pub struct Store {
    conn: Connection,
}

fn storage(e: rusqlite::Error) -> Error {
    Error::Storage(e.to_string())
}

fn json_text<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Storage(format!("cannot encode a record: {e}")))
}

fn parse<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Storage(format!("a stored {what} cannot be read: {e}")))
}

impl Store {
    /// A store that lives only as long as the process (tests, `--memory`).
    pub fn in_memory() -> Result<Store> {
        Self::init(Connection::open_in_memory().map_err(storage)?)
    }

    /// Opens (creating if needed) the database in `dir`, bringing its schema up to date.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Storage(format!("cannot create data directory {}: {e}", dir.display())))?;
        let path = dir.join(DATABASE_FILE);
        let conn = Connection::open(&path).map_err(|e| Error::Storage(format!("{}: {e}", path.display())))?;
        Self::init(conn)
    }

    /// Takes the data directory for one server; refused while another holds it. Readers
    /// (`breakroom replay`, `export`) do not ask. Released when the returned file is dropped.
    pub fn lock_exclusively(&self, dir: &Path) -> Result<std::fs::File> {
        let path = dir.join("server.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::Storage(format!("{}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::Storage(format!(
                "{} is in use by another Breakroom server; stop it or pass another --data-dir",
                dir.display()
            ))),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::Storage(format!("{}: {e}", path.display()))),
        }
    }

    fn init(conn: Connection) -> Result<Store> {
        // Another process (`breakroom replay` beside a running server) may hold a write lock briefly.
        conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(storage)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(storage)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(storage)?;
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    /// Hands the connection to another owner (the process store keeps its own).
    pub(crate) fn into_connection(self) -> Connection {
        self.conn
    }

    pub fn schema_version(&self) -> Result<usize> {
        let version: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(storage)?;
        Ok(version.max(0) as usize)
    }

    /// Pretends the database was written by another version (tests of the upgrade path).
    #[doc(hidden)]
    pub fn set_schema_version_for_tests(&self, version: usize) -> Result<()> {
        self.conn.pragma_update(None, "user_version", version as i64).map_err(storage)
    }

    fn migrate(&mut self) -> Result<()> {
        let current = self.schema_version()?;
        if current > MIGRATIONS.len() {
            return Err(Error::Storage(format!(
                "the data directory has schema version {current}, newer than this Breakroom knows ({}); \
                 upgrade Breakroom or use another --data-dir",
                MIGRATIONS.len()
            )));
        }
        for (i, step) in MIGRATIONS.iter().enumerate().skip(current) {
            let tx = self.conn.transaction().map_err(storage)?;
            tx.execute_batch(step).map_err(|e| Error::Storage(format!("schema migration {}: {e}", i + 1)))?;
            tx.pragma_update(None, "user_version", (i + 1) as i64).map_err(storage)?;
            tx.commit().map_err(storage)?;
        }
        Ok(())
    }

    /// Starts a transaction: the writes until [`Store::commit`] land together or not at all.
    pub fn begin(&self) -> Result<()> {
        self.conn.execute_batch("BEGIN").map_err(storage)
    }

    pub fn commit(&self) -> Result<()> {
        self.conn.execute_batch("COMMIT").map_err(storage)
    }

    pub fn rollback(&self) {
        let _ = self.conn.execute_batch("ROLLBACK");
    }

    /// Runs `writes` as one transaction (one commit instead of one per statement).
    pub fn atomically<T>(&self, writes: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        self.begin()?;
        match writes(self) {
            Ok(value) => self.commit().map(|_| value),
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }

    // ---- writes ----------------------------------------------------------------------------

    pub fn put_breakpoint(&self, name: &str, bp: &Breakpoint) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO breakpoints (name, data) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![name, json_text(bp).unwrap_or_default()]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn delete_breakpoint(&self, name: &str) -> Result<()> {
        self.conn.execute("DELETE FROM breakpoints WHERE name = ?1", params![name]).map_err(storage)?;
        Ok(())
    }

    pub fn put_global(&self, global: GlobalBehavior) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES ('global_behavior', ?1)",
                params![global.as_str()],
            )
            .map_err(storage)?;
        Ok(())
    }

    pub fn put_function(&self, name: &str, data: &Value) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO functions (name, data) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![name, data.to_string()]))
            .map_err(storage)?;
        Ok(())
    }

    /// Write-once, like the CID store itself.
    pub fn put_object(&self, cid: &str, object: &StoredObject) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO objects (cid, format, bytes, created_at) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut s| s.execute(params![cid, object.format.as_str(), object.bytes, object.created_at]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn put_call(&self, record: &CallRecord) -> Result<()> {
        let data = json_text(record)?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO calls (call_id, process_key, started_at, data) VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut s| s.execute(params![record.call_id, record.process_key, record.started_at, data]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn put_pause(&self, pause: &PauseRecord) -> Result<()> {
        let data = json_text(pause)?;
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO pauses (pause_id, paused_at, data) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![pause.pause_id, pause.paused_at, data]))
            .map_err(storage)?;
        Ok(())
    }

    /// Stores a session's header (not its transcript).
    pub fn put_session(&self, session: &ReplSession) -> Result<()> {
        let mut header = serde_json::to_value(session).map_err(|e| Error::Storage(e.to_string()))?;
        if let Some(obj) = header.as_object_mut() {
            obj.remove("transcript");
        }
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO sessions (session_id, started_at, data) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![session.session_id, session.started_at, header.to_string()]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn append_entry(&self, session_id: &str, entry: &TranscriptEntry) -> Result<()> {
        let data = json_text(entry)?;
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO transcript (session_id, idx, data) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![session_id, entry.index as i64, data]))
            .map_err(storage)?;
        Ok(())
    }

    /// Appends to a breakpoint's history and deletes what is older than its newest `keep`.
    pub fn put_history(&self, function_name: &str, entry: &Value, keep: usize) -> Result<()> {
        self.atomically(|store| {
            store
                .conn
                .prepare_cached("INSERT INTO breakpoint_history (function_name, data) VALUES (?1, ?2)")
                .and_then(|mut s| s.execute(params![function_name, entry.to_string()]))
                .map_err(storage)?;
            store
                .conn
                .prepare_cached(
                    "DELETE FROM breakpoint_history WHERE function_name = ?1 AND id <= (
                         SELECT id FROM breakpoint_history WHERE function_name = ?1
                         ORDER BY id DESC LIMIT 1 OFFSET ?2)",
                )
                .and_then(|mut s| s.execute(params![function_name, keep as i64]))
                .map_err(storage)?;
            Ok(())
        })
    }

    /// Appends to the event log; returns the event's sequence number.
    pub fn append_event(
        &self,
        timestamp: f64,
        kind: EventKind,
        process_key: Option<&str>,
        session_id: Option<&str>,
        data: &Value,
    ) -> Result<i64> {
        self.conn
            .prepare_cached(
                "INSERT INTO events (timestamp, type, process_key, session_id, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| s.execute(params![timestamp, kind.as_str(), process_key, session_id, data.to_string()]))
            .map_err(storage)?;
        Ok(self.conn.last_insert_rowid())
    }

    // ---- reads -----------------------------------------------------------------------------

    pub fn events(&self, selection: &EventSelection) -> Result<Vec<RecordedEvent>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT sequence, timestamp, type, process_key, session_id, data FROM events
                 WHERE sequence >= ?1 AND (?2 IS NULL OR session_id = ?2) AND (?3 IS NULL OR process_key = ?3)
                 ORDER BY sequence",
            )
            .map_err(storage)?;
        let rows = stmt
            .query_map(params![selection.from_sequence, selection.session_id, selection.process_key], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, f64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, String>(5)?,
                ))
            })
            .map_err(storage)?;
        let mut events = vec![];
        for row in rows {
            let (sequence, timestamp, kind, process_key, session_id, data) = row.map_err(storage)?;
            let kind = EventKind::parse(&kind).ok_or_else(|| Error::Storage(format!("unknown event type {kind:?}")))?;
            events.push(RecordedEvent {
                sequence,
                timestamp,
                kind,
                process_key,
                session_id,
                data: parse("event", &data)?,
            });
        }
        Ok(events)
    }

    pub fn has_session(&self, session_id: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM sessions WHERE session_id = ?1", session_id)
    }

    pub fn has_process(&self, process_key: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM events WHERE process_key = ?1 LIMIT 1", process_key)
    }

    /// Whether `query` (one `?1` parameter) finds a row.
    fn exists(&self, query: &str, key: &str) -> Result<bool> {
        self.conn.query_row(query, params![key], |_| Ok(())).optional().map(|found| found.is_some()).map_err(storage)
    }

    /// Reads everything back, in the order it happened.
    pub fn load(&self) -> Result<Snapshot> {
        let mut snapshot = Snapshot::default();
        let rows = |sql: &str| -> Result<Vec<(String, String)>> {
            let mut stmt = self.conn.prepare(sql).map_err(storage)?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(storage)?;
            rows.collect::<rusqlite::Result<_>>().map_err(storage)
        };
        for (name, data) in rows("SELECT name, data FROM breakpoints ORDER BY name")? {
            snapshot.breakpoints.push((name, parse("breakpoint", &data)?));
        }
        let global: Option<String> = self
            .conn
            .query_row("SELECT value FROM settings WHERE key = 'global_behavior'", [], |r| r.get(0))
            .optional()
            .map_err(storage)?;
        snapshot.global = global.and_then(|g| GlobalBehavior::parse(&g).ok());
        for (name, data) in rows("SELECT name, data FROM functions ORDER BY name")? {
            snapshot.functions.push((name, parse("function", &data)?));
        }
        {
            let mut stmt = self.conn.prepare("SELECT cid, format, bytes, created_at FROM objects").map_err(storage)?;
            let objects = stmt
                .query_map([], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Vec<u8>>(2)?, r.get::<_, f64>(3)?))
                })
                .map_err(storage)?;
            for object in objects {
                let (cid, format, bytes, created_at) = object.map_err(storage)?;
                let format = SerializationFormat::parse(Some(&format)).unwrap_or(SerializationFormat::Dill);
                snapshot.objects.push((cid, StoredObject { bytes, format, created_at }));
            }
        }
        for (_, data) in rows("SELECT call_id, data FROM calls ORDER BY started_at, rowid")? {
            snapshot.calls.push(parse("call", &data)?);
        }
        for (_, data) in rows("SELECT pause_id, data FROM pauses ORDER BY paused_at, rowid")? {
            snapshot.pauses.push(parse("pause", &data)?);
        }
        let mut transcripts: std::collections::HashMap<String, Vec<TranscriptEntry>> = Default::default();
        for (session_id, data) in rows("SELECT session_id, data FROM transcript ORDER BY session_id, idx")? {
            transcripts.entry(session_id).or_default().push(parse("transcript entry", &data)?);
        }
        for (session_id, data) in rows("SELECT session_id, data FROM sessions ORDER BY started_at, rowid")? {
            let mut header: Value = parse("session", &data)?;
            if let Some(obj) = header.as_object_mut() {
                obj.insert("transcript".into(), Value::Array(vec![]));
            }
            let mut session: ReplSession =
                serde_json::from_value(header).map_err(|e| Error::Storage(format!("a stored session: {e}")))?;
            session.transcript = transcripts.remove(&session_id).unwrap_or_default();
            snapshot.sessions.push(session);
        }
        for (name, data) in rows("SELECT function_name, data FROM breakpoint_history ORDER BY id")? {
            snapshot.history.push((name, parse("history entry", &data)?));
        }
        Ok(snapshot)
    }
}
