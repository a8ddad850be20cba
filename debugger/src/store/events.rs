//! The event log (`replay`, `/api/events`) and what clients report on the side: their
//! diagnostic events and communication errors, each kept to its newest entries.

use rusqlite::params;
use serde_json::Value;

use super::{parse, storage, Store};
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
        self.conn
            .prepare_cached(
                "INSERT INTO events (timestamp, type, process_key, session_id, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| s.execute(params![timestamp, kind.as_str(), process_key, session_id, data.to_string()]))
            .map_err(storage)?;
        Ok(self.conn.last_insert_rowid())
    }

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
            .query_map(params![selection.from_sequence, selection.session_id, selection.process_key], event_row)
            .map_err(storage)?;
        rows.map(|row| recorded(row.map_err(storage)?)).collect()
    }

    /// A process's newest `limit` breakpoint hits and logpoint messages, oldest first.
    pub fn breakpoint_events_of_process(&self, process_key: &str, limit: usize) -> Result<Vec<RecordedEvent>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT sequence, timestamp, type, process_key, session_id, data FROM events
                 WHERE process_key = ?1 AND type IN ('breakpoint_hit', 'log') ORDER BY sequence DESC LIMIT ?2",
            )
            .map_err(storage)?;
        let rows = stmt.query_map(params![process_key, limit as i64], event_row).map_err(storage)?;
        let mut events = rows.map(|row| recorded(row.map_err(storage)?)).collect::<Result<Vec<_>>>()?;
        events.reverse();
        Ok(events)
    }

    pub fn has_process(&self, process_key: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM events WHERE process_key = ?1 LIMIT 1", process_key)
    }

    /// Keeps a client's diagnostic event (`/api/call/event`), and only the newest `keep`.
    pub fn put_client_event(&self, received_at: f64, event: &Value, keep: usize) -> Result<()> {
        self.append_bounded(
            "client_events",
            "INSERT INTO client_events (received_at, data) VALUES (?1, ?2)",
            params![received_at, event.to_string()],
            keep,
        )
    }

    /// The kept client events, oldest first.
    pub fn client_events(&self) -> Result<Vec<Value>> {
        self.all("client event", "SELECT data FROM client_events ORDER BY id", [])
    }

    /// Keeps a communication error a client reported, and only the newest `keep`.
    pub fn put_com_error(&self, report: &Value, keep: usize) -> Result<()> {
        self.append_bounded(
            "com_errors",
            "INSERT INTO com_errors (data) VALUES (?1)",
            params![report.to_string()],
            keep,
        )
    }

    /// The kept communication errors, oldest first.
    pub fn com_errors(&self) -> Result<Vec<Value>> {
        self.all("communication error", "SELECT data FROM com_errors ORDER BY id", [])
    }
}

type EventRow = (i64, f64, String, Option<String>, Option<String>, String);

fn event_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<EventRow> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
}

fn recorded((sequence, timestamp, kind, process_key, session_id, data): EventRow) -> Result<RecordedEvent> {
    let kind = EventKind::parse(&kind).ok_or_else(|| Error::storage(format!("unknown event type {kind:?}")))?;
    Ok(RecordedEvent { sequence, timestamp, kind, process_key, session_id, data: parse("event", &data)? })
}
