//! What clients report on the side of their calls: their diagnostic events
//! (`/api/call/event`) and communication errors (`/api/report-com-error`), each kept to its
//! newest entries.

use serde_json::Value;

use crate::calls::{ClientEvent, ComErrorReport};
use crate::error::{Error, Result};
use crate::store::{values, Store};

impl Store {
    /// Keeps a client's diagnostic event (`/api/call/event`), and only the newest `keep`.
    pub fn put_client_event(&self, received_at: f64, event: &ClientEvent, keep: usize) -> Result<()> {
        let data = serde_json::to_string(event.as_json()).map_err(|e| Error::storage_caused("client event", e))?;
        self.append_bounded(
            "client_events",
            "INSERT INTO client_events (received_at, data) VALUES (?1, ?2)",
            values![received_at, data],
            keep,
        )
    }

    /// The kept client events, oldest first.
    pub fn client_events(&self) -> Result<Vec<Value>> {
        self.all("client event", "SELECT data FROM client_events ORDER BY id", values![])
    }

    /// Keeps a communication error a client reported, and only the newest `keep`.
    pub fn put_com_error(&self, report: &ComErrorReport, keep: usize) -> Result<()> {
        let data = serde_json::to_string(&report.0).map_err(|e| Error::storage_caused("communication error", e))?;
        self.append_bounded("com_errors", "INSERT INTO com_errors (data) VALUES (?1)", values![data], keep)
    }

    /// The kept communication errors, oldest first.
    pub fn com_errors(&self) -> Result<Vec<Value>> {
        self.all("communication error", "SELECT data FROM com_errors ORDER BY id", values![])
    }
}
