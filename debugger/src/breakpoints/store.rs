//! Breakpoints of every kind (issue 18), by id, in the order they were added; loaded whole at
//! start like the rest of the configuration. The ids handed out and the hits are counted in the
//! database itself, so that servers sharing it never hand out one id twice or lose a hit.

use super::policy::HitTally;
use super::record::BreakpointRecord;
use crate::error::Result;
use crate::store::sql::Row;
use crate::store::{json_text, parse, values, Store};

impl Store {
    /// Writes a record; its hits and tally are written only when it is new (they are counted in
    /// place).
    pub fn put_breakpoint_record(&self, position: u64, record: &BreakpointRecord) -> Result<()> {
        let t = &record.tally;
        self.execute(
            "INSERT INTO breakpoint_records (id, position, data, hits, captured, skipped_quota, skipped_rate, dropped)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (id) DO UPDATE SET position = excluded.position, data = excluded.data",
            values![
                &record.id,
                position,
                json_text(record)?,
                record.hit_count,
                t.captured,
                t.skipped_quota,
                t.skipped_rate,
                t.dropped
            ],
        )?;
        Ok(())
    }

    /// Adds to a breakpoint's tally in the database, where every server sharing it counts; the
    /// tally after (none: the breakpoint is gone). Each column stops at the 64-bit maximum rather
    /// than overflow on a program's absurd count.
    pub fn count_tally(&self, id: &str, add: &HitTally) -> Result<Option<HitTally>> {
        let grow = |column: &str, at: usize| {
            format!(
                "{column} = CASE WHEN {column} > {MAX} - ?{at} THEN {MAX} ELSE {column} + ?{at} END",
                MAX = i64::MAX
            )
        };
        let query = format!(
            "UPDATE breakpoint_records SET {}, {}, {}, {} WHERE id = ?1
             RETURNING captured, skipped_quota, skipped_rate, dropped",
            grow("captured", 2),
            grow("skipped_quota", 3),
            grow("skipped_rate", 4),
            grow("dropped", 5)
        );
        let row = self.row(&query, values![id, add.captured, add.skipped_quota, add.skipped_rate, add.dropped])?;
        row.map(|r| tally_at(&r, 0)).transpose()
    }

    /// The next breakpoint position (`bp-N`), never handed out before by any server.
    pub fn next_breakpoint_position(&self) -> Result<u64> {
        let row = self.row(
            "UPDATE counters SET value = value + 1 WHERE name = 'breakpoint_position' RETURNING value",
            values![],
        )?;
        let row = row.ok_or_else(|| crate::error::Error::storage("the breakpoint id counter is missing"))?;
        Ok(row.int(0)?.max(0) as u64)
    }

    /// Adds `n` hits to a breakpoint; its count after them (none: the breakpoint is gone).
    pub fn count_breakpoint_hits(&self, id: &str, n: u64) -> Result<Option<u64>> {
        let row =
            self.row("UPDATE breakpoint_records SET hits = hits + ?2 WHERE id = ?1 RETURNING hits", values![id, n])?;
        row.map(|r| r.int(0).map(|h| h.max(0) as u64)).transpose()
    }

    /// A program's own count of a breakpoint's arrivals (`process_key`'s): the breakpoint's
    /// hits grow by what it counted since its last count, so programs' counts add up. Its
    /// count after (none: the breakpoint is gone).
    pub fn program_counted_hits(&self, id: &str, process_key: &str, count: u64) -> Result<Option<u64>> {
        self.atomically(|store| {
            let before = store
                .row(
                    "SELECT hits FROM breakpoint_program_hits WHERE id = ?1 AND process_key = ?2",
                    values![id, process_key],
                )?
                .map(|r| r.int(0))
                .transpose()?
                .unwrap_or(0)
                .max(0) as u64;
            store.execute(
                "INSERT INTO breakpoint_program_hits (id, process_key, hits) VALUES (?1, ?2, ?3)
                 ON CONFLICT (id, process_key) DO UPDATE SET hits = excluded.hits",
                values![id, process_key, count],
            )?;
            // A count that went down is a program counting again from the start: all of it is new.
            let added = count.checked_sub(before).unwrap_or(count);
            store.count_breakpoint_hits(id, added)
        })
    }

    /// Sets a breakpoint's hits (a new hit condition's 0).
    pub fn set_breakpoint_hits(&self, id: &str, hits: u64) -> Result<()> {
        self.execute("UPDATE breakpoint_records SET hits = ?2 WHERE id = ?1", values![id, hits]).map(drop)
    }

    /// Every breakpoint's hits and tally, as the database counts them (other servers' too).
    pub fn breakpoint_counts(&self) -> Result<Vec<(String, u64, HitTally)>> {
        let rows = self.rows(
            "SELECT id, hits, captured, skipped_quota, skipped_rate, dropped FROM breakpoint_records",
            values![],
        )?;
        rows.iter().map(|r| Ok((r.text(0)?, r.int(1)?.max(0) as u64, tally_at(r, 2)?))).collect()
    }

    pub fn delete_breakpoint_record(&self, id: &str) -> Result<()> {
        self.execute("DELETE FROM breakpoint_program_hits WHERE id = ?1", values![id])?;
        self.execute("DELETE FROM breakpoint_records WHERE id = ?1", values![id]).map(drop)
    }

    /// Every record with its position, oldest first.
    pub fn breakpoint_records(&self) -> Result<Vec<(u64, BreakpointRecord)>> {
        let mut records = vec![];
        let query = "SELECT position, data, hits, captured, skipped_quota, skipped_rate, dropped
                     FROM breakpoint_records ORDER BY position";
        for row in self.rows(query, values![])? {
            let mut record: BreakpointRecord = parse("breakpoint", &row.text(1)?)?;
            record.hit_count = row.int(2)?.max(0) as u64;
            record.tally = tally_at(&row, 3)?;
            records.push((row.int(0)?.max(0) as u64, record));
        }
        Ok(records)
    }
}

/// The four tally columns from `at` on.
fn tally_at(row: &Row, at: usize) -> Result<HitTally> {
    let n = |i: usize| row.int(at + i).map(|v| v.max(0) as u64);
    Ok(HitTally { captured: n(0)?, skipped_quota: n(1)?, skipped_rate: n(2)?, dropped: n(3)? })
}
