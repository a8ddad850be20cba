//! The event log (`replay`, `/api/events`): every concept's events, in one sequence.

use serde_json::Value;

use super::sql::Row;
use super::{parse, values, Store};
use crate::error::{Error, Result};
use crate::model::{EventKind, RecordedEvent};

/// Which events to read back.
#[derive(Clone, Debug, Default)]
pub struct EventSelection {
    pub session_id: Option<String>,
    pub process_key: Option<String>,
    pub from_sequence: i64,
}

impl Store {
    /// Appends to the event log; returns the event's sequence number.
    pub fn append_event(
        &self,
        timestamp: f64,
        kind: EventKind,
        process_key: Option<&str>,
        session_id: Option<&str>,
        data: &Value,
    ) -> Result<i64> {
        self.db.insert_numbered(
            "INSERT INTO events (timestamp, type, process_key, session_id, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            values![timestamp, kind.as_str(), process_key, session_id, data.to_string()],
            "sequence",
        )
    }

    pub fn events(&self, selection: &EventSelection) -> Result<Vec<RecordedEvent>> {
        let rows = self.rows(
            "SELECT sequence, timestamp, type, process_key, session_id, data FROM events
             WHERE sequence >= ?1 AND (CAST(?2 AS TEXT) IS NULL OR session_id = ?2)
               AND (CAST(?3 AS TEXT) IS NULL OR process_key = ?3)
             ORDER BY sequence",
            values![selection.from_sequence, &selection.session_id, &selection.process_key],
        )?;
        rows.iter().map(recorded).collect()
    }

    /// A process's newest `limit` breakpoint hits and logpoint messages, oldest first.
    pub fn breakpoint_events_of_process(&self, process_key: &str, limit: usize) -> Result<Vec<RecordedEvent>> {
        let rows = self.rows(
            "SELECT sequence, timestamp, type, process_key, session_id, data FROM events
             WHERE process_key = ?1 AND type IN ('breakpoint_hit', 'log') ORDER BY sequence DESC LIMIT ?2",
            values![process_key, limit],
        )?;
        let mut events = rows.iter().map(recorded).collect::<Result<Vec<_>>>()?;
        events.reverse();
        Ok(events)
    }

    pub fn has_process(&self, process_key: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM events WHERE process_key = ?1 LIMIT 1", process_key)
    }
}

fn recorded(row: &Row) -> Result<RecordedEvent> {
    let kind = row.text(2)?;
    let kind = EventKind::parse(&kind).ok_or_else(|| Error::storage(format!("unknown event type {kind:?}")))?;
    Ok(RecordedEvent {
        sequence: row.int(0)?,
        timestamp: row.real(1)?,
        kind,
        process_key: row.opt_text(3)?,
        session_id: row.opt_text(4)?,
        data: parse("event", &row.text(5)?)?,
    })
}
