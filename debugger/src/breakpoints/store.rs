//! Breakpoints of every kind (issue 18), by id, in the order they were added; loaded whole at
//! start like the rest of the configuration.

use super::record::BreakpointRecord;
use crate::error::Result;
use crate::store::{json_text, parse, values, Store};

impl Store {
    pub fn put_breakpoint_record(&self, position: u64, record: &BreakpointRecord) -> Result<()> {
        self.execute(
            "INSERT INTO breakpoint_records (id, position, data) VALUES (?1, ?2, ?3)
             ON CONFLICT (id) DO UPDATE SET position = excluded.position, data = excluded.data",
            values![&record.id, position, json_text(record)?],
        )?;
        Ok(())
    }

    pub fn delete_breakpoint_record(&self, id: &str) -> Result<()> {
        self.execute("DELETE FROM breakpoint_records WHERE id = ?1", values![id]).map(drop)
    }

    /// Every record with its position, oldest first.
    pub fn breakpoint_records(&self) -> Result<Vec<(u64, BreakpointRecord)>> {
        let mut records = vec![];
        for row in self.rows("SELECT position, data FROM breakpoint_records ORDER BY position", values![])? {
            records.push((row.int(0)?.max(0) as u64, parse("breakpoint", &row.text(1)?)?));
        }
        Ok(records)
    }
}
