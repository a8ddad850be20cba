//! Breakpoints of every kind (issue 18), by id, in the order they were added; loaded whole at
//! start like the rest of the configuration.

use rusqlite::params;

use super::record::BreakpointRecord;
use crate::error::Result;
use crate::store::{json_text, parse, storage, Store};

impl Store {
    pub fn put_breakpoint_record(&self, position: u64, record: &BreakpointRecord) -> Result<()> {
        let data = json_text(record)?;
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO breakpoint_records (id, position, data) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![record.id, position as i64, data]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn delete_breakpoint_record(&self, id: &str) -> Result<()> {
        self.conn.execute("DELETE FROM breakpoint_records WHERE id = ?1", params![id]).map_err(storage)?;
        Ok(())
    }

    /// Every record with its position, oldest first.
    pub fn breakpoint_records(&self) -> Result<Vec<(u64, BreakpointRecord)>> {
        let mut stmt =
            self.conn.prepare("SELECT position, data FROM breakpoint_records ORDER BY position").map_err(storage)?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))).map_err(storage)?;
        let mut records = vec![];
        for row in rows {
            let (position, data) = row.map_err(storage)?;
            records.push((position as u64, parse("breakpoint", &data)?));
        }
        Ok(records)
    }
}
