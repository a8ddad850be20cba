//! Call records, pauses and each breakpoint's history of completed calls.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::calls::{Action, CallData, CallRecord};
use crate::error::Result;
use crate::model::PauseReason;
use crate::store::sql::Dialect;
use crate::store::{json_text, values, Store};

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

fn process_calls(r: &crate::store::sql::Row) -> Result<ProcessCalls> {
    Ok(ProcessCalls {
        process_key: r.text(0)?,
        first_call_at: r.real(1)?,
        last_call_at: r.real(2)?,
        calls: r.count(3)?,
    })
}

impl Store {
    /// Changes a call's record (records are not kept in memory).
    pub(crate) fn update_record(&self, call_id: &str, change: impl FnOnce(&mut CallRecord)) -> Result<()> {
        if let Some(mut record) = self.call(call_id)? {
            change(&mut record);
            self.put_call(&record)?;
        }
        Ok(())
    }

    /// Writes how a call ended into its record.
    pub(crate) fn finish_record(
        &self,
        call_id: &str,
        completed_at: f64,
        status: crate::model::CallStatus,
        pretty_result: Option<Value>,
        exception: Option<Value>,
    ) -> Result<()> {
        self.update_record(call_id, |record| {
            record.completed_at = Some(completed_at);
            record.status = status;
            record.pretty_result = pretty_result;
            record.exception = exception;
        })
    }

    /// Inserts or updates a call's record (an update keeps its place in the start order).
    pub fn put_call(&self, record: &CallRecord) -> Result<()> {
        self.execute(
            "INSERT INTO calls (call_id, process_key, started_at, data) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (call_id) DO UPDATE SET data = excluded.data",
            values![&record.call_id, &record.process_key, record.started_at, json_text(record)?],
        )?;
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
            values![process_key],
        )
    }

    /// The newest `limit` calls of one process, in the order they started.
    pub fn newest_calls_of_process(&self, process_key: &str, limit: usize) -> Result<Vec<CallRecord>> {
        let mut newest: Vec<CallRecord> = self.all(
            "call",
            "SELECT data FROM calls WHERE process_key = ?1 ORDER BY started_at DESC, rowid DESC LIMIT ?2",
            values![process_key, limit],
        )?;
        newest.reverse();
        Ok(newest)
    }

    /// How many calls one process reported.
    pub fn call_count_of_process(&self, process_key: &str) -> Result<u64> {
        let count = self
            .row("SELECT count(*) FROM calls WHERE process_key = ?1", values![process_key])?
            .map(|r| r.count(0))
            .transpose()?;
        Ok(count.unwrap_or(0) as u64)
    }

    /// How many calls were ever recorded (call ids number them on).
    pub fn call_count(&self) -> Result<u64> {
        let count = self.row("SELECT count(*) FROM calls", values![])?.map(|r| r.count(0)).transpose()?;
        Ok(count.unwrap_or(0) as u64)
    }

    /// Every process that reported a call, with its first and last call and how many.
    pub fn processes(&self) -> Result<Vec<ProcessCalls>> {
        let rows = self.rows(
            "SELECT process_key, min(started_at), max(started_at), count(*) FROM calls GROUP BY process_key",
            values![],
        )?;
        rows.iter().map(process_calls).collect()
    }

    /// One process's row of [`Store::processes`], read by its index alone; None for a process
    /// that reported no call.
    pub fn process(&self, process_key: &str) -> Result<Option<ProcessCalls>> {
        let rows = self.rows(
            "SELECT process_key, min(started_at), max(started_at), count(*) FROM calls WHERE process_key = ?1
             GROUP BY process_key",
            values![process_key],
        )?;
        rows.first().map(process_calls).transpose()
    }

    pub fn put_pause(&self, pause: &PauseRecord) -> Result<()> {
        let data = json_text(pause)?;
        // Only a resumed pause has a resume time here: the open ones are found by its absence.
        let resumed_at = pause.resume.as_ref().map(|_| pause.resumed_at.unwrap_or(pause.paused_at));
        self.execute(
            "INSERT INTO pauses (pause_id, paused_at, data, resumed_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (pause_id) DO UPDATE SET data = excluded.data, resumed_at = excluded.resumed_at",
            values![&pause.pause_id, pause.paused_at, data, resumed_at],
        )?;
        Ok(())
    }

    pub fn pause(&self, pause_id: &str) -> Result<Option<PauseRecord>> {
        self.one("pause", "SELECT data FROM pauses WHERE pause_id = ?1", pause_id)
    }

    /// Every pause of a process, live or resumed, in the order they paused. (A scan: process
    /// pages are rare next to the pauses themselves.)
    pub fn pauses_of_process(&self, process_key: &str) -> Result<Vec<PauseRecord>> {
        match self.dialect() {
            Dialect::Sqlite => self.all(
                "pause",
                "SELECT data FROM pauses WHERE json_extract(data, '$.call.process_key') = ?1 ORDER BY paused_at, rowid",
                values![process_key],
            ),
            // PostgreSQL refuses to read JSON text holding a \u0000 escape, which any value a
            // client sent may have: the rows are found by their text, and checked here.
            Dialect::Postgres => {
                let fragment = format!("\"process_key\":{}", serde_json::Value::from(process_key));
                let candidates: Vec<PauseRecord> = self.all(
                    "pause",
                    "SELECT data FROM pauses WHERE strpos(data, ?1) > 0 ORDER BY paused_at, rowid",
                    values![fragment],
                )?;
                Ok(candidates.into_iter().filter(|p| p.call.process_key == process_key).collect())
            }
        }
    }

    /// Pauses not resumed (left open by a server that stopped), in the order they paused.
    pub fn open_pauses(&self) -> Result<Vec<PauseRecord>> {
        self.all("pause", "SELECT data FROM pauses WHERE resumed_at IS NULL ORDER BY paused_at, rowid", values![])
    }

    /// Appends to a breakpoint's history and deletes what is older than its newest `keep`.
    pub fn put_history(&self, function_name: &str, entry: &Value, keep: usize) -> Result<()> {
        self.atomically(|store| {
            store.execute(
                "INSERT INTO breakpoint_history (function_name, data) VALUES (?1, ?2)",
                values![function_name, entry.to_string()],
            )?;
            store.execute(
                "DELETE FROM breakpoint_history WHERE function_name = ?1 AND id <= (
                     SELECT id FROM breakpoint_history WHERE function_name = ?1
                     ORDER BY id DESC LIMIT 1 OFFSET ?2)",
                values![function_name, keep],
            )?;
            Ok(())
        })
    }

    /// A breakpoint's completed calls, newest first, at most `limit`.
    pub fn history(&self, function_name: &str, limit: usize) -> Result<Vec<Value>> {
        self.all(
            "history entry",
            "SELECT data FROM breakpoint_history WHERE function_name = ?1 ORDER BY id DESC LIMIT ?2",
            values![function_name, limit],
        )
    }
}
