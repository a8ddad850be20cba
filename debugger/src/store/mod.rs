//! Durable history in an embedded SQLite database: breakpoints, functions, stored values, call
//! records, pauses, REPL sessions with their transcripts, the event log that `replay` reads, and
//! what clients report (events, communication errors).
//!
//! The [`Debugger`](crate::Debugger) keeps in memory only what live pauses and open sessions
//! need, writes every change through to this store before it answers, and reads history back
//! from here on demand; so memory does not grow with history, and whatever was acknowledged
//! survives a crash of the server. WAL mode with `synchronous=NORMAL`: a commit is in the log
//! before the call returns, so a killed process loses nothing it acknowledged (only a power cut
//! can drop the last commits).
//!
//! One file per kind of record: `settings` (breakpoints, functions), `objects` (the CID store),
//! `calls` (call records, pauses, breakpoint history), `sessions` (sessions, transcripts,
//! search), `events` (the event log and client reports); the schema is in `migrations`.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

mod events;
mod migrations;
mod objects;
mod settings;

pub use crate::calls::store::PauseRecord;
pub use crate::sessions::store::{SessionFilter, SessionRow};
pub use events::EventSelection;
pub use settings::Settings;

/// The database file inside a data directory.
pub const DATABASE_FILE: &str = "breakroom.sqlite3";

pub struct Store {
    pub(crate) conn: Connection,
}

pub(crate) fn storage(e: rusqlite::Error) -> Error {
    Error::storage_caused("", e)
}

pub(crate) fn json_text<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::storage_caused("cannot encode a record", e))
}

pub(crate) fn parse<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::storage_caused(format!("a stored {what} cannot be read"), e))
}

impl Store {
    /// A store that lives only as long as the process (tests, `--memory`).
    pub fn in_memory() -> Result<Store> {
        Self::init(Connection::open_in_memory().map_err(storage)?)
    }

    /// Opens (creating if needed) the database in `dir`, bringing its schema up to date.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::storage_caused(format!("cannot create data directory {}", dir.display()), e))?;
        let path = dir.join(DATABASE_FILE);
        let conn = Connection::open(&path).map_err(|e| Error::storage_caused(path.display().to_string(), e))?;
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
            .map_err(|e| Error::storage_caused(path.display().to_string(), e))?;
        match file.try_lock() {
            Ok(()) => Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::storage(format!(
                "{} is in use by another Breakroom server; stop it or pass another --data-dir",
                dir.display()
            ))),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::storage_caused(path.display().to_string(), e)),
        }
    }

    /// Hands the connection to another owner (the process store keeps its own).
    pub(crate) fn into_connection(self) -> Connection {
        self.conn
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

    pub fn schema_version(&self) -> Result<usize> {
        let version: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(storage)?;
        Ok(version.max(0) as usize)
    }

    /// Pretends the database was written by another version (tests of the upgrade path).
    #[doc(hidden)]
    pub fn set_schema_version_for_tests(&self, version: usize) -> Result<()> {
        self.conn.pragma_update(None, "user_version", version as i64).map_err(storage)
    }

    /// A database at schema `version` exactly, as an older Breakroom left it (upgrade tests).
    #[doc(hidden)]
    pub fn open_at_version_for_tests(dir: &Path, version: usize) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| Error::storage_caused("", e))?;
        let mut conn = Connection::open(dir.join(DATABASE_FILE)).map_err(storage)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(storage)?;
        migrations::apply(&mut conn, 0, version)?;
        Ok(Store { conn })
    }

    /// Runs SQL as it is (upgrade tests write rows the way an older Breakroom did).
    #[doc(hidden)]
    pub fn execute_for_tests(&self, sql: &str, values: &[&dyn rusqlite::ToSql]) -> Result<()> {
        self.conn.execute(sql, values).map(|_| ()).map_err(storage)
    }

    fn migrate(&mut self) -> Result<()> {
        let current = self.schema_version()?;
        let latest = migrations::latest();
        if current > latest {
            return Err(Error::storage(format!(
                "the data directory has schema version {current}, newer than this Breakroom knows ({latest}); \
                 upgrade Breakroom or use another --data-dir"
            )));
        }
        migrations::apply(&mut self.conn, current, latest)
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

    /// Runs `writes` as one transaction (one commit instead of one per statement); inside a
    /// transaction already, as part of it (a savepoint).
    pub fn atomically<T>(&self, writes: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        self.conn.execute_batch("SAVEPOINT atomically").map_err(storage)?;
        match writes(self) {
            Ok(value) => self.conn.execute_batch("RELEASE atomically").map_err(storage).map(|_| value),
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK TO atomically; RELEASE atomically");
                Err(e)
            }
        }
    }

    /// Whether `query` (one `?1` parameter) finds a row.
    pub(crate) fn exists(&self, query: &str, key: &str) -> Result<bool> {
        self.conn
            .prepare_cached(query)
            .and_then(|mut s| s.query_row(params![key], |_| Ok(())).optional())
            .map(|found| found.is_some())
            .map_err(storage)
    }

    /// The JSON `data` column of the one row `query` (one `?1` parameter) finds.
    pub(crate) fn one<T: for<'de> Deserialize<'de>>(&self, what: &str, query: &str, key: &str) -> Result<Option<T>> {
        let data: Option<String> = self
            .conn
            .prepare_cached(query)
            .and_then(|mut s| s.query_row(params![key], |r| r.get(0)).optional())
            .map_err(storage)?;
        data.map(|d| parse(what, &d)).transpose()
    }

    /// The JSON `data` column of every row `query` finds, in its order.
    pub(crate) fn all<T: for<'de> Deserialize<'de>>(
        &self,
        what: &str,
        query: &str,
        values: impl rusqlite::Params,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare_cached(query).map_err(storage)?;
        let rows = stmt.query_map(values, |r| r.get::<_, String>(0)).map_err(storage)?;
        let mut all = vec![];
        for data in rows {
            all.push(parse(what, &data.map_err(storage)?)?);
        }
        Ok(all)
    }

    /// Appends a row to a table that keeps only its newest `keep` rows (by `id`), and trims it.
    fn append_bounded(&self, table: &str, insert: &str, values: impl rusqlite::Params, keep: usize) -> Result<()> {
        self.atomically(|store| {
            store.conn.prepare_cached(insert).and_then(|mut s| s.execute(values)).map_err(storage)?;
            let trim =
                format!("DELETE FROM {table} WHERE id <= (SELECT id FROM {table} ORDER BY id DESC LIMIT 1 OFFSET ?1)");
            store.conn.prepare_cached(&trim).and_then(|mut s| s.execute(params![keep as i64])).map_err(storage)?;
            Ok(())
        })
    }
}
