//! Process records and their output (tables `processes` and `process_output`, schema step 4 in
//! `crate::store`). A connection of its own, so that output written in batches never waits for,
//! or holds up, the debugger's commits.

use std::sync::{Mutex, MutexGuard};

use super::{OutputLine, OutputStream, TrackedProcess};
use crate::error::{Error, Result};
use crate::store::{values, Store};

/// One line as written: its place in the stream's bytes decides when it is dropped.
#[derive(Clone, Debug)]
pub struct StoredLine {
    pub process_id: String,
    pub line: OutputLine,
    /// Bytes of the stream before this line.
    pub offset: u64,
}

pub struct ProcessStore {
    store: Mutex<Store>,
}

impl ProcessStore {
    /// On a store already brought up to date (its own connection, or an in-memory database).
    pub fn new(store: Store) -> Self {
        ProcessStore { store: Mutex::new(store) }
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn put_process(&self, process: &TrackedProcess) -> Result<()> {
        let data = serde_json::to_string(process).map_err(|e| Error::storage_caused("", e))?;
        self.store().execute(
            "INSERT INTO processes (id, started_at, data) VALUES (?1, ?2, ?3)
             ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, data = excluded.data",
            values![&process.id, process.started_at, data],
        )?;
        Ok(())
    }

    /// Whether other servers write to the same records (PostgreSQL, issue 35).
    pub fn is_shared(&self) -> bool {
        self.store().dialect() == crate::store::sql::Dialect::Postgres
    }

    /// Forgets a process and its output.
    pub fn delete_process(&self, id: &str) -> Result<()> {
        let store = self.store();
        store.execute("DELETE FROM process_output WHERE process_id = ?1", values![id])?;
        store.execute("DELETE FROM processes WHERE id = ?1", values![id])?;
        Ok(())
    }

    /// Every record, oldest first.
    pub fn load(&self) -> Result<Vec<TrackedProcess>> {
        let mut processes = vec![];
        for row in self.store().rows("SELECT data FROM processes ORDER BY started_at, rowid", values![])? {
            let text = row.text(0)?;
            // A record this version cannot read is skipped rather than refusing the whole directory.
            if let Ok(process) = serde_json::from_str(&text) {
                processes.push(process);
            }
        }
        Ok(processes)
    }

    /// Writes a batch of lines in one transaction, then deletes, per stream touched, the oldest
    /// lines that start more than `limit` bytes before the stream's end. Returns the lines
    /// dropped per (process, stream).
    pub fn append(&self, batch: &[StoredLine], limit: u64) -> Result<Vec<(String, OutputStream, u64)>> {
        self.store().atomically(|store| {
            // (process, stream) -> end of the stream after this batch.
            let mut ends: Vec<(String, OutputStream, u64)> = vec![];
            for stored in batch {
                let line = &stored.line;
                store.execute(
                    "INSERT INTO process_output (process_id, stream, seq, time, byte_offset, text)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (process_id, stream, seq) DO UPDATE SET
                       time = excluded.time, byte_offset = excluded.byte_offset, text = excluded.text",
                    values![&stored.process_id, line.stream.as_str(), line.seq, line.time, stored.offset, &line.text],
                )?;
                let end = stored.offset + line.text.len() as u64 + 1;
                match ends.iter_mut().find(|(p, s, _)| *p == stored.process_id && *s == line.stream) {
                    Some(entry) => entry.2 = entry.2.max(end),
                    None => ends.push((stored.process_id.clone(), line.stream, end)),
                }
            }
            let mut dropped = vec![];
            for (process_id, stream, end) in ends {
                let Some(cutoff) = end.checked_sub(limit) else { continue };
                // Offsets grow with seq: this scans only the lines about to go.
                let first_kept = store
                    .row(
                        "SELECT seq FROM process_output WHERE process_id = ?1 AND stream = ?2 AND byte_offset >= ?3
                         ORDER BY seq LIMIT 1",
                        values![&process_id, stream.as_str(), cutoff],
                    )?
                    .map(|r| r.int(0))
                    .transpose()?;
                let deleted = store.execute(
                    "DELETE FROM process_output WHERE process_id = ?1 AND stream = ?2 AND seq < ?3",
                    values![&process_id, stream.as_str(), first_kept.unwrap_or(i64::MAX)],
                )?;
                if deleted > 0 {
                    dropped.push((process_id, stream, deleted));
                }
            }
            Ok(dropped)
        })
    }

    /// Up to `limit` lines of one stream with `seq >= from`, oldest first.
    pub fn lines(&self, process_id: &str, stream: OutputStream, from: u64, limit: usize) -> Result<Vec<OutputLine>> {
        let from = i64::try_from(from).unwrap_or(i64::MAX);
        let rows = self.store().rows(
            "SELECT seq, time, text FROM process_output WHERE process_id = ?1 AND stream = ?2 AND seq >= ?3
             ORDER BY seq LIMIT ?4",
            values![process_id, stream.as_str(), from, limit],
        )?;
        rows.iter()
            .map(|r| Ok(OutputLine { seq: r.int(0)?.max(0) as u64, time: r.real(1)?, stream, text: r.text(2)? }))
            .collect()
    }

    /// The next seq after everything stored for a process (what a restart continues from).
    pub fn next_seq(&self, process_id: &str) -> Result<u64> {
        let next = self
            .store()
            .row("SELECT COALESCE(MAX(seq) + 1, 0) FROM process_output WHERE process_id = ?1", values![process_id])?;
        Ok(next.map(|r| r.int(0)).transpose()?.unwrap_or(0).max(0) as u64)
    }
}
