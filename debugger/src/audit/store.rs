//! The `audit` table (schema step 11): append-only; rows leave only by age.

use serde::Deserialize;

use super::AuditRecord;
use crate::error::Result;
use crate::store::sql::SqlValue;
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
    #[cfg_attr(feature = "openapi", param(minimum = 1, maximum = 10_000))]
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
    // Only the filters given go into the statement: each can use its index, and PostgreSQL
    // needs no type for a parameter that is only compared with NULL.
    let action =
        query.action.as_ref().map(|a| format!("%{}%", a.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")));
    let mut conditions: Vec<String> = vec![];
    let mut params: Vec<SqlValue> = vec![];
    let mut filter = |sql: &str, value: SqlValue| {
        params.push(value);
        conditions.push(sql.replace('?', &format!("?{}", params.len())));
    };
    if let Some(user) = &query.user {
        filter("actor = ?", user.into());
    }
    if let Some(action) = action {
        filter("action LIKE ? ESCAPE '\\'", action.into());
    }
    if let Some(process) = &query.process {
        filter("process = ?", process.into());
    }
    if let Some(since) = query.since {
        filter("time >= ?", since.into());
    }
    if let Some(after) = query.after {
        filter("id > ?", after.into());
    }
    let filters = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    params.push(limit.into());
    let sql = format!("SELECT id, data FROM audit {filters} ORDER BY id {order} LIMIT ?{}", params.len());
    let rows = store.rows(&sql, &params)?;
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
