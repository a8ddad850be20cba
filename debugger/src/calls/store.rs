//! Call records, pauses and each breakpoint's history of completed calls.

use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::calls::{Action, CallData, CallRecord};
use crate::error::Result;
use crate::model::PauseReason;
use crate::store::{json_text, storage, Store};

/// A pause as stored: enough to show its call stack and sessions after it was resumed.
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

/// One process's calls, summed up for `/call-tree`.
pub struct ProcessCalls {
    pub process_key: String,
    pub first_call_at: f64,
    pub last_call_at: f64,
    pub calls: usize,
}

impl Store {
    /// Inserts or updates a call's record (an update keeps its place in the start order).
    pub fn put_call(&self, record: &CallRecord) -> Result<()> {
        let data = json_text(record)?;
        self.conn
            .prepare_cached(
                "INSERT INTO calls (call_id, process_key, started_at, data) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (call_id) DO UPDATE SET data = excluded.data",
            )
            .and_then(|mut s| s.execute(params![record.call_id, record.process_key, record.started_at, data]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn call(&self, call_id: &str) -> Result<Option<CallRecord>> {
        self.one("call", "SELECT data FROM calls WHERE call_id = ?1", call_id)
    }

    /// Every call of one process, in the order they started.
    pub fn calls_of_process(&self, process_key: &str) -> Result<Vec<CallRecord>> {
        self.all(
            "call",
            "SELECT data FROM calls WHERE process_key = ?1 ORDER BY started_at, rowid",
            params![process_key],
        )
    }

    /// How many calls were ever recorded (call ids number them on).
    pub fn call_count(&self) -> Result<u64> {
        let count: i64 = self.conn.query_row("SELECT count(*) FROM calls", [], |r| r.get(0)).map_err(storage)?;
        Ok(count.max(0) as u64)
    }

    /// Every process that reported a call, with its first and last call and how many.
    pub fn processes(&self) -> Result<Vec<ProcessCalls>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT process_key, min(started_at), max(started_at), count(*) FROM calls GROUP BY process_key",
            )
            .map_err(storage)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(ProcessCalls {
                    process_key: r.get(0)?,
                    first_call_at: r.get(1)?,
                    last_call_at: r.get(2)?,
                    calls: r.get::<_, i64>(3)?.max(0) as usize,
                })
            })
            .map_err(storage)?;
        rows.collect::<rusqlite::Result<_>>().map_err(storage)
    }

    pub fn put_pause(&self, pause: &PauseRecord) -> Result<()> {
        let data = json_text(pause)?;
        // Only a resumed pause has a resume time here: the open ones are found by its absence.
        let resumed_at = pause.resume.as_ref().map(|_| pause.resumed_at.unwrap_or(pause.paused_at));
        self.conn
            .prepare_cached(
                "INSERT INTO pauses (pause_id, paused_at, data, resumed_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (pause_id) DO UPDATE SET data = excluded.data, resumed_at = excluded.resumed_at",
            )
            .and_then(|mut s| s.execute(params![pause.pause_id, pause.paused_at, data, resumed_at]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn pause(&self, pause_id: &str) -> Result<Option<PauseRecord>> {
        self.one("pause", "SELECT data FROM pauses WHERE pause_id = ?1", pause_id)
    }

    /// Every pause of a process, live or resumed, in the order they paused. (A scan: process
    /// pages are rare next to the pauses themselves.)
    pub fn pauses_of_process(&self, process_key: &str) -> Result<Vec<PauseRecord>> {
        self.all(
            "pause",
            "SELECT data FROM pauses WHERE json_extract(data, '$.call.process_key') = ?1 ORDER BY paused_at, rowid",
            params![process_key],
        )
    }

    /// Pauses not resumed (left open by a server that stopped), in the order they paused.
    pub fn open_pauses(&self) -> Result<Vec<PauseRecord>> {
        self.all("pause", "SELECT data FROM pauses WHERE resumed_at IS NULL ORDER BY paused_at, rowid", [])
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

    /// A breakpoint's completed calls, newest first, at most `limit`.
    pub fn history(&self, function_name: &str, limit: usize) -> Result<Vec<Value>> {
        self.all(
            "history entry",
            "SELECT data FROM breakpoint_history WHERE function_name = ?1 ORDER BY id DESC LIMIT ?2",
            params![function_name, limit.min(i64::MAX as usize) as i64],
        )
    }
}
