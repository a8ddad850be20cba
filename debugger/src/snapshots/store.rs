//! Snapshots on disk: one row each, its id the `N` of `snap-N`, the newest kept.

use super::{Snapshot, SnapshotFilter};
use crate::error::Result;
use crate::store::{json_text, parse, values, Store};

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
            let row = store.db.insert_numbered(
                "INSERT INTO snapshots (breakpoint_id, process_id, received_at, data) VALUES (?1, ?2, ?3, ?4)",
                values![&snapshot.breakpoint_id, &snapshot.process_id, snapshot.received_at, data],
                "id",
            )?;
            let oldest_kept = row.saturating_sub(i64::try_from(keep).unwrap_or(i64::MAX));
            store.execute("DELETE FROM snapshots WHERE id <= ?1", values![oldest_kept])?;
            Ok(snapshot_id(row))
        })
    }

    pub(crate) fn snapshot(&self, snapshot_id: &str) -> Result<Option<Snapshot>> {
        let Some(row) = row_of(snapshot_id) else { return Ok(None) };
        let Some(row) = self.row("SELECT data FROM snapshots WHERE id = ?1", values![row])? else { return Ok(None) };
        let mut snapshot: Snapshot = parse("snapshot", &row.text(0)?)?;
        snapshot.snapshot_id = snapshot_id.to_string();
        Ok(Some(snapshot))
    }

    /// Newest first, narrowed as the filter says.
    pub(crate) fn snapshots(&self, filter: &SnapshotFilter) -> Result<Vec<Snapshot>> {
        let before = filter.before.as_deref().and_then(row_of).unwrap_or(i64::MAX);
        let after = filter.after.as_deref().and_then(row_of).unwrap_or(0);
        let rows = self.rows(
            "SELECT id, data FROM snapshots WHERE id < ?1 AND id > ?5
               AND (CAST(?2 AS TEXT) IS NULL OR breakpoint_id = ?2) AND (CAST(?3 AS TEXT) IS NULL OR process_id = ?3)
             ORDER BY id DESC LIMIT ?4",
            values![before, &filter.breakpoint_id, &filter.process_id, filter.limit, after],
        )?;
        let mut all = vec![];
        for row in rows {
            let mut snapshot: Snapshot = parse("snapshot", &row.text(1)?)?;
            snapshot.snapshot_id = snapshot_id(row.int(0)?);
            all.push(snapshot);
        }
        Ok(all)
    }

    /// How many snapshots a breakpoint has on disk.
    pub(crate) fn snapshot_count(&self, breakpoint_id: &str) -> Result<u64> {
        let count = self.row("SELECT count(*) FROM snapshots WHERE breakpoint_id = ?1", values![breakpoint_id])?;
        Ok(count.map(|r| r.count(0)).transpose()?.unwrap_or(0) as u64)
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
            redacted: None,
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

    #[test]
    fn a_list_after_a_snapshot_has_only_newer_ones_newest_first_at_most_the_limit() {
        let store = Store::in_memory().unwrap();
        for n in 1..=6 {
            store.put_snapshot(&snapshot(if n % 2 == 0 { "bp-2" } else { "bp-1" }, n), 100).unwrap();
        }
        let listed = |filter: SnapshotFilter| -> Vec<String> {
            store.snapshots(&filter).unwrap().into_iter().map(|s| s.snapshot_id).collect()
        };
        let after = |id: &str| Some(id.to_string());
        assert_eq!(
            listed(SnapshotFilter { after: after("snap-3"), limit: 10, ..Default::default() }),
            ["snap-6", "snap-5", "snap-4"]
        );
        assert_eq!(
            listed(SnapshotFilter { after: after("snap-1"), limit: 2, ..Default::default() }),
            ["snap-6", "snap-5"],
            "more came than the limit: the newest of them"
        );
        assert_eq!(
            listed(SnapshotFilter {
                breakpoint_id: Some("bp-1".into()),
                after: after("snap-2"),
                limit: 10,
                ..Default::default()
            }),
            ["snap-5", "snap-3"]
        );
        assert!(listed(SnapshotFilter { after: after("snap-6"), limit: 10, ..Default::default() }).is_empty());
        assert_eq!(
            listed(SnapshotFilter { after: after("snap-2"), before: after("snap-5"), limit: 10, ..Default::default() }),
            ["snap-4", "snap-3"],
            "both bounds"
        );
    }
}
