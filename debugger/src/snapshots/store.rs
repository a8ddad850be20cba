//! Snapshots on disk: one row each, its id the `N` of `snap-N`, the newest kept.

use rusqlite::{params, OptionalExtension};

use super::{Snapshot, SnapshotFilter};
use crate::error::Result;
use crate::store::{json_text, parse, storage, Store};

pub(crate) fn snapshot_id(row: i64) -> String {
    format!("snap-{row}")
}

/// The row of `snap-N`; None for anything else.
pub(crate) fn row_of(snapshot_id: &str) -> Option<i64> {
    snapshot_id.strip_prefix("snap-")?.parse().ok().filter(|n: &i64| *n > 0)
}

impl Store {
    /// Stores a snapshot (its `snapshot_id` is ignored) and trims the table to the newest
    /// `keep`. Returns its id.
    pub(crate) fn put_snapshot(&self, snapshot: &Snapshot, keep: usize) -> Result<String> {
        let data = json_text(snapshot)?;
        self.atomically(|store| {
            store
                .conn
                .prepare_cached(
                    "INSERT INTO snapshots (breakpoint_id, process_id, received_at, data) VALUES (?1, ?2, ?3, ?4)",
                )
                .and_then(|mut s| {
                    s.execute(params![snapshot.breakpoint_id, snapshot.process_id, snapshot.received_at, data])
                })
                .map_err(storage)?;
            let row = store.conn.last_insert_rowid();
            store
                .conn
                .prepare_cached("DELETE FROM snapshots WHERE id <= ?1 - ?2")
                .and_then(|mut s| s.execute(params![row, keep as i64]))
                .map_err(storage)?;
            Ok(snapshot_id(row))
        })
    }

    pub(crate) fn snapshot(&self, snapshot_id: &str) -> Result<Option<Snapshot>> {
        let Some(row) = row_of(snapshot_id) else { return Ok(None) };
        let data: Option<String> = self
            .conn
            .prepare_cached("SELECT data FROM snapshots WHERE id = ?1")
            .and_then(|mut s| s.query_row(params![row], |r| r.get(0)).optional())
            .map_err(storage)?;
        data.map(|data| {
            let mut snapshot: Snapshot = parse("snapshot", &data)?;
            snapshot.snapshot_id = snapshot_id.to_string();
            Ok(snapshot)
        })
        .transpose()
    }

    /// Newest first, narrowed as the filter says.
    pub(crate) fn snapshots(&self, filter: &SnapshotFilter) -> Result<Vec<Snapshot>> {
        let before = filter.before.as_deref().and_then(row_of).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, data FROM snapshots WHERE id < ?1
                   AND (?2 IS NULL OR breakpoint_id = ?2) AND (?3 IS NULL OR process_id = ?3)
                 ORDER BY id DESC LIMIT ?4",
            )
            .map_err(storage)?;
        let rows = stmt
            .query_map(params![before, filter.breakpoint_id, filter.process_id, filter.limit as i64], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(storage)?;
        let mut all = vec![];
        for row in rows {
            let (id, data) = row.map_err(storage)?;
            let mut snapshot: Snapshot = parse("snapshot", &data)?;
            snapshot.snapshot_id = snapshot_id(id);
            all.push(snapshot);
        }
        Ok(all)
    }

    /// How many snapshots a breakpoint has on disk.
    pub(crate) fn snapshot_count(&self, breakpoint_id: &str) -> Result<u64> {
        self.conn
            .prepare_cached("SELECT count(*) FROM snapshots WHERE breakpoint_id = ?1")
            .and_then(|mut s| s.query_row(params![breakpoint_id], |r| r.get::<_, i64>(0)))
            .map(|n| n as u64)
            .map_err(storage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshots::SnapshotFrame;

    fn snapshot(breakpoint_id: &str, n: u32) -> Snapshot {
        Snapshot {
            snapshot_id: String::new(),
            breakpoint_id: breakpoint_id.into(),
            process_key: "1.0+1".into(),
            process_id: None,
            taken_at: f64::from(n),
            received_at: f64::from(n),
            file: Some("app.py".into()),
            line: Some(n),
            function: None,
            thread: None,
            labels: Default::default(),
            frames: vec![SnapshotFrame { file: "app.py".into(), line: n, function: "f".into(), locals: None }],
            expressions: vec![],
            truncated: false,
            size_bytes: 0,
            capture_ms: None,
        }
    }

    #[test]
    fn only_the_newest_are_kept_and_ids_are_never_reused() {
        let store = Store::in_memory().unwrap();
        let ids: Vec<String> = (1..=5).map(|n| store.put_snapshot(&snapshot("bp-1", n), 3).unwrap()).collect();
        assert_eq!(ids, ["snap-1", "snap-2", "snap-3", "snap-4", "snap-5"]);
        assert!(store.snapshot("snap-2").unwrap().is_none(), "trimmed");
        assert_eq!(store.snapshot("snap-5").unwrap().map(|s| s.line), Some(Some(5)));
        assert!(store.snapshot("snap-x").unwrap().is_none());
        let filter = SnapshotFilter { limit: 10, ..Default::default() };
        let listed: Vec<String> = store.snapshots(&filter).unwrap().into_iter().map(|s| s.snapshot_id).collect();
        assert_eq!(listed, ["snap-5", "snap-4", "snap-3"], "newest first");
        store.put_snapshot(&snapshot("bp-2", 6), 3).unwrap();
        let filter = SnapshotFilter {
            breakpoint_id: Some("bp-1".into()),
            before: Some("snap-5".into()),
            limit: 10,
            ..Default::default()
        };
        let listed: Vec<String> = store.snapshots(&filter).unwrap().into_iter().map(|s| s.snapshot_id).collect();
        assert_eq!(listed, ["snap-4"], "one breakpoint's, older than the cursor");
        assert_eq!(store.snapshot_count("bp-2").unwrap(), 1);
    }
}
