//! Process records and their output in SQLite (tables `processes` and `process_output`, schema
//! step 4 in `crate::store`). A connection of its own, so that output written in batches never
//! waits for, or holds up, the debugger's commits.

use std::sync::{Mutex, MutexGuard};

use rusqlite::{params, Connection};

use super::{OutputLine, OutputStream, TrackedProcess};
use crate::error::{Error, Result};
use crate::store::Store;

fn storage(e: rusqlite::Error) -> Error {
    Error::storage_caused("", e)
}

/// One line as written: its place in the stream's bytes decides when it is dropped.
#[derive(Clone, Debug)]
pub struct StoredLine {
    pub process_id: String,
    pub line: OutputLine,
    /// Bytes of the stream before this line.
    pub offset: u64,
}

pub struct ProcessStore {
    conn: Mutex<Connection>,
}

impl ProcessStore {
    /// On a store already brought up to date (its own connection, or an in-memory database).
    pub fn new(store: Store) -> Self {
        ProcessStore { conn: Mutex::new(store.into_connection()) }
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn put_process(&self, process: &TrackedProcess) -> Result<()> {
        let data = serde_json::to_string(process).map_err(|e| Error::storage_caused("", e))?;
        self.conn()
            .prepare_cached("INSERT OR REPLACE INTO processes (id, started_at, data) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![process.id, process.started_at, data]))
            .map_err(storage)?;
        Ok(())
    }

    /// Forgets a process and its output.
    pub fn delete_process(&self, id: &str) -> Result<()> {
        let conn = self.conn();
        conn.execute("DELETE FROM process_output WHERE process_id = ?1", params![id]).map_err(storage)?;
        conn.execute("DELETE FROM processes WHERE id = ?1", params![id]).map_err(storage)?;
        Ok(())
    }

    /// Every record, oldest first.
    pub fn load(&self) -> Result<Vec<TrackedProcess>> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT data FROM processes ORDER BY started_at, rowid").map_err(storage)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(storage)?;
        let mut processes = vec![];
        for row in rows {
            let text = row.map_err(storage)?;
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
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(storage)?;
        // (process, stream) -> end of the stream after this batch.
        let mut ends: Vec<(String, OutputStream, u64)> = vec![];
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO process_output (process_id, stream, seq, time, byte_offset, text)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(storage)?;
            for stored in batch {
                let line = &stored.line;
                insert
                    .execute(params![
                        stored.process_id,
                        line.stream.as_str(),
                        line.seq as i64,
                        line.time,
                        stored.offset as i64,
                        line.text
                    ])
                    .map_err(storage)?;
                let end = stored.offset + line.text.len() as u64 + 1;
                match ends.iter_mut().find(|(p, s, _)| *p == stored.process_id && *s == line.stream) {
                    Some(entry) => entry.2 = entry.2.max(end),
                    None => ends.push((stored.process_id.clone(), line.stream, end)),
                }
            }
        }
        let mut dropped = vec![];
        for (process_id, stream, end) in ends {
            let Some(cutoff) = end.checked_sub(limit) else { continue };
            // Offsets grow with seq: this scans only the lines about to go.
            let first_kept: Option<i64> = tx
                .prepare_cached(
                    "SELECT seq FROM process_output WHERE process_id = ?1 AND stream = ?2 AND byte_offset >= ?3
                     ORDER BY seq LIMIT 1",
                )
                .and_then(|mut s| {
                    s.query_row(params![process_id, stream.as_str(), cutoff as i64], |r| r.get(0))
                        .map(Some)
                        .or_else(|e| if e == rusqlite::Error::QueryReturnedNoRows { Ok(None) } else { Err(e) })
                })
                .map_err(storage)?;
            let deleted = tx
                .prepare_cached("DELETE FROM process_output WHERE process_id = ?1 AND stream = ?2 AND seq < ?3")
                .and_then(|mut s| s.execute(params![process_id, stream.as_str(), first_kept.unwrap_or(i64::MAX)]))
                .map_err(storage)?;
            if deleted > 0 {
                dropped.push((process_id, stream, deleted as u64));
            }
        }
        tx.commit().map_err(storage)?;
        Ok(dropped)
    }

    /// Up to `limit` lines of one stream with `seq >= from`, oldest first.
    pub fn lines(&self, process_id: &str, stream: OutputStream, from: u64, limit: usize) -> Result<Vec<OutputLine>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "SELECT seq, time, text FROM process_output WHERE process_id = ?1 AND stream = ?2 AND seq >= ?3
                 ORDER BY seq LIMIT ?4",
            )
            .map_err(storage)?;
        let from = i64::try_from(from).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![process_id, stream.as_str(), from, limit as i64], |r| {
                Ok(OutputLine { seq: r.get::<_, i64>(0)? as u64, time: r.get(1)?, stream, text: r.get(2)? })
            })
            .map_err(storage)?;
        rows.collect::<rusqlite::Result<_>>().map_err(storage)
    }

    /// The next seq after everything stored for a process (what a restart continues from).
    pub fn next_seq(&self, process_id: &str) -> Result<u64> {
        self.conn()
            .query_row(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM process_output WHERE process_id = ?1",
                params![process_id],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
            .map_err(storage)
    }
}
