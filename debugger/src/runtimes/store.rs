//! Each workspace's command history (table `runtime_history`, schema step 7 in `crate::store`),
//! capped per workspace. A connection of its own, like the process store.

use std::sync::{Mutex, MutexGuard};

use super::HistoryEntry;
use crate::error::{Error, Result};
use crate::store::{values, Store};

pub struct RuntimeStore {
    store: Mutex<Store>,
}

impl RuntimeStore {
    /// On a store already brought up to date.
    pub fn new(store: Store) -> Self {
        RuntimeStore { store: Mutex::new(store) }
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends one entry and deletes the workspace's oldest beyond `keep`.
    pub fn append(&self, workspace: &str, entry: &HistoryEntry, keep: usize) -> Result<()> {
        let data = serde_json::to_string(entry).map_err(|e| Error::storage_caused("runtime history", e))?;
        self.store().atomically(|store| {
            store.execute(
                "INSERT INTO runtime_history (workspace, timestamp, data) VALUES (?1, ?2, ?3)",
                values![workspace, entry.timestamp, data],
            )?;
            store.execute(
                "DELETE FROM runtime_history WHERE workspace = ?1 AND id <= (
                     SELECT id FROM runtime_history WHERE workspace = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
                values![workspace, keep],
            )?;
            Ok(())
        })
    }

    /// Forgets the workspace's history (a reset).
    pub fn clear(&self, workspace: &str) -> Result<()> {
        self.store().execute("DELETE FROM runtime_history WHERE workspace = ?1", values![workspace]).map(drop)
    }

    /// The newest `limit` entries, oldest first.
    pub fn recent(&self, workspace: &str, limit: usize) -> Result<Vec<HistoryEntry>> {
        let rows = self.store().rows(
            "SELECT data FROM runtime_history WHERE workspace = ?1 ORDER BY id DESC LIMIT ?2",
            values![workspace, limit],
        )?;
        let mut entries = vec![];
        for row in rows {
            // An entry this version cannot read is skipped rather than failing the page.
            if let Ok(entry) = serde_json::from_str(&row.text(0)?) {
                entries.push(entry);
            }
        }
        entries.reverse();
        Ok(entries)
    }
}
