//! The `audit` table (schema step 11): append-only; rows leave only by age.

use serde::Deserialize;

use super::AuditRecord;
use crate::error::Result;
use crate::store::{parse, values, Store};

/// A filter over the trail (`GET /api/audit`, `breakroom audit`).
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
pub struct AuditQuery {
    /// Only this user's or program's records.
    pub user: Option<String>,
    /// Only actions containing this text (`eval`, `resume`, `POST /api/processes`...).
    pub action: Option<String>,
    /// Only records about this process (its id or key).
    pub process: Option<String>,
    /// Only records at or after this Unix time.
    pub since: Option<f64>,
    /// Only records after this id (to follow the trail).
    pub after: Option<i64>,
    /// At most this many (default 500, at most 10,000).
    pub limit: Option<u32>,
}

pub(super) fn append(store: &Store, batch: &[AuditRecord]) -> Result<()> {
    store.atomically(|store| {
        for record in batch {
            let process = record.target.get("process_id").or_else(|| record.target.get("process_key"));
            let data = crate::store::json_text(record)?;
            store.execute(
                "INSERT INTO audit (time, actor, action, process, data) VALUES (?1, ?2, ?3, ?4, ?5)",
                values![record.time, &record.actor, &record.action, process, data],
            )?;
        }
        Ok(())
    })
}

pub(super) fn read(store: &Store, query: &AuditQuery) -> Result<Vec<AuditRecord>> {
    select(store, query, query.limit.unwrap_or(500).clamp(1, 10_000), "ASC")
}

pub(super) fn read_newest(store: &Store, query: &AuditQuery, limit: u32) -> Result<Vec<AuditRecord>> {
    select(store, query, limit.clamp(1, 10_000), "DESC")
}

fn select(store: &Store, query: &AuditQuery, limit: u32, order: &str) -> Result<Vec<AuditRecord>> {
    let action =
        query.action.as_ref().map(|a| format!("%{}%", a.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")));
    let rows = store.rows(
        &format!(
            "SELECT id, data FROM audit
         WHERE (?1 IS NULL OR actor = ?1) AND (?2 IS NULL OR action LIKE ?2 ESCAPE '\\')
           AND (?3 IS NULL OR process = ?3) AND (?4 IS NULL OR time >= ?4) AND (?5 IS NULL OR id > ?5)
         ORDER BY id {order} LIMIT ?6"
        ),
        values![&query.user, action, &query.process, query.since, query.after, limit],
    )?;
    rows.into_iter()
        .map(|row| {
            let mut record: AuditRecord = parse("audit record", &row.text(1)?)?;
            record.id = row.int(0)?;
            Ok(record)
        })
        .collect()
}

pub(super) fn prune(store: &Store, before: f64) -> Result<u64> {
    store.execute("DELETE FROM audit WHERE time < ?1", values![before])
}
