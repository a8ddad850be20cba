//! Durable history in an embedded SQLite database, or in a PostgreSQL database several servers
//! share (`--database-url`, issue 35; [`sql`] is the door to either): breakpoints, functions, stored values, call
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

use std::cell::Cell;
use std::path::Path;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

mod events;
mod migrations;
mod objects;
pub mod postgres;
pub mod sql;
#[doc(hidden)]
pub mod test_postgres;

pub use events::EventSelection;
pub(crate) use sql::values;
use sql::{Db, Dialect, Row, SqlValue};

/// The database file inside a data directory.
pub const DATABASE_FILE: &str = "breakroom.sqlite3";

/// Where the records live: a data directory's SQLite file, or a PostgreSQL database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Directory(std::path::PathBuf),
    Postgres(String),
}

pub struct Store {
    pub(crate) db: Db,
    /// Open transactions and savepoints: the outermost is a transaction (PostgreSQL refuses a
    /// savepoint outside one), the inner ones savepoints.
    depth: Cell<u32>,
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
        Self::init(Db::Sqlite(Connection::open_in_memory().map_err(storage)?))
    }

    /// Opens (creating if needed) the database in `dir`, bringing its schema up to date.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::storage_caused(format!("cannot create data directory {}", dir.display()), e))?;
        let path = dir.join(DATABASE_FILE);
        let conn = Connection::open(&path).map_err(|e| Error::storage_caused(path.display().to_string(), e))?;
        Self::init(Db::Sqlite(conn))
    }

    /// Connects to a PostgreSQL database (`postgres://user:password@host:port/database`),
    /// bringing its schema up to date; several servers may share it.
    pub fn connect(url: &str) -> Result<Store> {
        Self::init(Db::Postgres(postgres::PgConnection::connect(url)?))
    }

    /// The store at `location`: a new connection each call (the process and runtime stores
    /// keep their own).
    pub fn at(location: &Location) -> Result<Store> {
        match location {
            Location::Directory(dir) => Store::open(dir),
            Location::Postgres(url) => Store::connect(url),
        }
    }

    pub fn dialect(&self) -> Dialect {
        self.db.dialect()
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

    fn init(db: Db) -> Result<Store> {
        if let Db::Sqlite(conn) = &db {
            // Another process (`breakroom replay` beside a running server) may hold a write lock briefly.
            conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(storage)?;
            conn.pragma_update(None, "journal_mode", "WAL").map_err(storage)?;
            conn.pragma_update(None, "synchronous", "NORMAL").map_err(storage)?;
        }
        let mut store = Store { db, depth: Cell::new(0) };
        store.migrate()?;
        Ok(store)
    }

    pub fn schema_version(&self) -> Result<usize> {
        migrations::version(&self.db)
    }

    /// Pretends the database was written by another version (tests of the upgrade path).
    #[doc(hidden)]
    pub fn set_schema_version_for_tests(&self, version: usize) -> Result<()> {
        migrations::set_version(&self.db, version)
    }

    /// A database at schema `version` exactly, as an older Breakroom left it (upgrade tests).
    #[doc(hidden)]
    pub fn open_at_version_for_tests(dir: &Path, version: usize) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| Error::storage_caused("", e))?;
        let conn = Connection::open(dir.join(DATABASE_FILE)).map_err(storage)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(storage)?;
        let store = Store { db: Db::Sqlite(conn), depth: Cell::new(0) };
        migrations::apply(&store, 0, version)?;
        Ok(store)
    }

    /// Runs SQL as it is (upgrade tests write rows the way an older Breakroom did).
    #[doc(hidden)]
    pub fn execute_for_tests(&self, sql: &str, values: &[SqlValue]) -> Result<()> {
        self.db.execute(sql, values).map(|_| ())
    }

    fn migrate(&mut self) -> Result<()> {
        let current = self.schema_version()?;
        let latest = migrations::latest();
        if current > latest {
            return Err(Error::storage(format!(
                "the database has schema version {current}, newer than this Breakroom knows ({latest}); \
                 upgrade Breakroom or use another --data-dir or --database-url"
            )));
        }
        migrations::apply(self, current, latest)
    }

    /// Starts a transaction: the writes until [`Store::commit`] land together or not at all.
    ///
    /// On SQLite it takes the write lock at once (`IMMEDIATE`), waiting for it as long as the busy
    /// timeout. A deferred transaction that read first is refused at once ("database is
    /// locked") when it comes to write while another connection (the output writer, the audit
    /// trail) writes: a hot logpoint's hits were lost that way.
    pub fn begin(&self) -> Result<()> {
        self.db.batch(match self.db.dialect() {
            sql::Dialect::Sqlite => "BEGIN IMMEDIATE",
            sql::Dialect::Postgres => "BEGIN",
        })?;
        self.depth.set(self.depth.get() + 1);
        Ok(())
    }

    pub fn commit(&self) -> Result<()> {
        self.depth.set(self.depth.get().saturating_sub(1));
        self.db.batch("COMMIT")
    }

    pub fn rollback(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
        let _ = self.db.batch("ROLLBACK");
    }

    /// Runs `writes` as one transaction (one commit instead of one per statement); inside a
    /// transaction already, as part of it (a savepoint).
    pub fn atomically<T>(&self, writes: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        if self.depth.get() == 0 {
            self.begin()?;
            return match writes(self) {
                Ok(value) => self.commit().map(|_| value),
                Err(e) => {
                    self.rollback();
                    Err(e)
                }
            };
        }
        self.db.batch("SAVEPOINT atomically")?;
        self.depth.set(self.depth.get() + 1);
        let outcome = writes(self);
        self.depth.set(self.depth.get() - 1);
        match outcome {
            Ok(value) => self.db.batch("RELEASE atomically").map(|_| value),
            Err(e) => {
                let _ = self.db.batch("ROLLBACK TO atomically; RELEASE atomically");
                Err(e)
            }
        }
    }

    /// Whether a transaction is open (writes now land with its commit).
    pub(crate) fn in_transaction(&self) -> bool {
        self.depth.get() > 0
    }

    /// Runs one statement.
    pub(crate) fn execute(&self, sql: &str, values: &[SqlValue]) -> Result<u64> {
        self.db.execute(sql, values)
    }

    /// Every row of one statement.
    pub(crate) fn rows(&self, sql: &str, values: &[SqlValue]) -> Result<Vec<Row>> {
        self.db.query(sql, values)
    }

    /// The first row of one statement.
    pub(crate) fn row(&self, sql: &str, values: &[SqlValue]) -> Result<Option<Row>> {
        self.db.query_first(sql, values)
    }

    /// Whether `query` (one `?1` parameter) finds a row.
    pub(crate) fn exists(&self, query: &str, key: &str) -> Result<bool> {
        Ok(self.row(query, values![key])?.is_some())
    }

    /// The JSON `data` column of the one row `query` (one `?1` parameter) finds.
    pub(crate) fn one<T: for<'de> Deserialize<'de>>(&self, what: &str, query: &str, key: &str) -> Result<Option<T>> {
        match self.row(query, values![key])? {
            Some(row) => parse(what, &row.text(0)?).map(Some),
            None => Ok(None),
        }
    }

    /// The JSON `data` column of every row `query` finds, in its order.
    pub(crate) fn all<T: for<'de> Deserialize<'de>>(
        &self,
        what: &str,
        query: &str,
        values: &[SqlValue],
    ) -> Result<Vec<T>> {
        self.rows(query, values)?.iter().map(|row| parse(what, &row.text(0)?)).collect()
    }

    /// Appends a row to a table that keeps only its newest `keep` rows (by `id`), and trims it.
    pub(crate) fn append_bounded(&self, table: &str, insert: &str, values: &[SqlValue], keep: usize) -> Result<()> {
        self.atomically(|store| {
            store.execute(insert, values)?;
            let trim =
                format!("DELETE FROM {table} WHERE id <= (SELECT id FROM {table} ORDER BY id DESC LIMIT 1 OFFSET ?1)");
            store.execute(&trim, values![keep])?;
            Ok(())
        })
    }
}
