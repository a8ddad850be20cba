//! Each workspace's command history in SQLite (table `runtime_history`, schema step 7 in
//! `crate::store`), capped per workspace. A connection of its own, like the process store.

use std::sync::{Mutex, MutexGuard};

use rusqlite::{params, Connection};

use super::HistoryEntry;
use crate::error::{Error, Result};
use crate::store::Store;

fn storage(e: rusqlite::Error) -> Error {
    Error::storage_caused("runtime history", e)
}

pub struct RuntimeStore {
    conn: Mutex<Connection>,
}

impl RuntimeStore {
    /// On a store already brought up to date.
    pub fn new(store: Store) -> Self {
        RuntimeStore { conn: Mutex::new(store.into_connection()) }
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends one entry and deletes the workspace's oldest beyond `keep`.
    pub fn append(&self, workspace: &str, entry: &HistoryEntry, keep: usize) -> Result<()> {
        let data = serde_json::to_string(entry).map_err(|e| Error::storage_caused("runtime history", e))?;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(storage)?;
        tx.prepare_cached("INSERT INTO runtime_history (workspace, timestamp, data) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![workspace, entry.timestamp, data]))
            .map_err(storage)?;
        tx.prepare_cached(
            "DELETE FROM runtime_history WHERE workspace = ?1 AND id <= (
                 SELECT id FROM runtime_history WHERE workspace = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
        )
        .and_then(|mut s| s.execute(params![workspace, keep as i64]))
        .map_err(storage)?;
        tx.commit().map_err(storage)
    }

    /// Forgets the workspace's history (a reset).
    pub fn clear(&self, workspace: &str) -> Result<()> {
        self.conn()
            .prepare_cached("DELETE FROM runtime_history WHERE workspace = ?1")
            .and_then(|mut s| s.execute(params![workspace]))
            .map(drop)
            .map_err(storage)
    }

    /// The newest `limit` entries, oldest first.
    pub fn recent(&self, workspace: &str, limit: usize) -> Result<Vec<HistoryEntry>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached("SELECT data FROM runtime_history WHERE workspace = ?1 ORDER BY id DESC LIMIT ?2")
            .map_err(storage)?;
        let rows = stmt.query_map(params![workspace, limit as i64], |r| r.get::<_, String>(0)).map_err(storage)?;
        let mut entries = vec![];
        for row in rows {
            // An entry this version cannot read is skipped rather than failing the page.
            if let Ok(entry) = serde_json::from_str(&row.map_err(storage)?) {
                entries.push(entry);
            }
        }
        entries.reverse();
        Ok(entries)
    }
}
