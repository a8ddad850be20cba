//! Finding sessions for `/repls`: one page of those that match, newest first, and how many.
//!
//! Search in SQLite uses FTS5's trigram index over each closed session's text ([`SearchText`]):
//! a term of three characters or more is a phrase query, which with the trigram tokenizer is an
//! exact substring match, answered from the index; shorter terms are looked up in a second index
//! of each session's distinct one- and two-character grams (`SearchText::short_grams`). In
//! PostgreSQL the same text is matched with `LIKE '%term%'`, answered by pg_trgm's GIN index.
//! A session's text is indexed once, when it closes; open sessions are matched in memory by the
//! debugger, which passes their ids in. See benches/session_search.rs for the figures.

use crate::error::{Error, Result};
use crate::model::SessionStatus;
use crate::search::Needle;
use crate::store::sql::{Dialect, SqlValue};
use crate::store::{values, Store};

use super::{header, SessionRow, ROW};

/// How many matching sessions a search counts exactly; past it, the page says "1,000+".
pub const COUNTED_AT_MOST: usize = 1_000;

/// One page of matching sessions, and how many match (exactly up to [`COUNTED_AT_MOST`]).
pub struct FoundRows {
    pub rows: Vec<SessionRow>,
    pub total: usize,
    /// More than `total` sessions match.
    pub total_is_lower_bound: bool,
}

impl FoundRows {
    fn counted_up_to_cap(rows: Vec<SessionRow>, count: usize) -> FoundRows {
        FoundRows { rows, total: count.min(COUNTED_AT_MOST), total_is_lower_bound: count > COUNTED_AT_MOST }
    }
}

/// Which sessions to list: the filters of `SessionQuery`, resolved.
pub struct SessionFilter<'a> {
    pub needle: Option<&'a Needle>,
    /// Open sessions whose text matches the needle (they are not in the index yet).
    pub open_matches: &'a [String],
    pub status: SessionStatus,
    pub from: Option<f64>,
    pub to: Option<f64>,
    pub offset: usize,
    pub limit: usize,
}

impl Store {
    /// One page of matching sessions, newest first, and how many match in all.
    ///
    /// The match is evaluated once: the ids of every matching session come back in page order
    /// (cheap, from the indexes), are counted, and only the page's rows are then read.
    pub fn find_sessions(&self, filter: &SessionFilter) -> Result<FoundRows> {
        let open_matches = serde_json::to_string(filter.open_matches).map_err(|e| Error::storage_caused("", e))?;
        let status = match filter.status {
            SessionStatus::All => 0,
            SessionStatus::Active => 1,
            SessionStatus::Closed => 2,
        };
        let postgres = self.dialect() == Dialect::Postgres;
        // Each variant uses exactly the values it binds: ?4 the term, then the open matches.
        let open_ids = if postgres {
            "SELECT jsonb_array_elements_text((?N::text)::jsonb)"
        } else {
            "SELECT value FROM json_each(?N)"
        };
        let mut values: Vec<SqlValue> = vec![status.into(), filter.from.into(), filter.to.into()];
        let matching = match filter.needle {
            None => "TRUE".to_string(),
            Some(n) if !n.can_match() => {
                values.push(open_matches.into());
                format!("s.session_id IN ({})", open_ids.replace("?N", "?4"))
            }
            // FTS5's query syntax ends a phrase at a NUL: such a term cannot be asked of the index.
            Some(n) if !postgres && n.uses_index() && n.as_str().contains('\0') => {
                return Err(Error::invalid(
                    "invalid_search",
                    "a search term of three or more characters cannot contain a NUL character",
                ));
            }
            Some(n) => {
                let (term, indexed) = match (postgres, n.uses_index()) {
                    (true, _) => (n.like_pattern(), "SELECT rowid FROM session_text WHERE text LIKE ?4"),
                    (false, true) => (n.fts_phrase(), "SELECT rowid FROM session_text WHERE session_text MATCH ?4"),
                    // Under three characters the trigram index cannot help: the short grams can.
                    (false, false) => (
                        n.short_gram_phrase(),
                        "SELECT rowid FROM session_short_grams WHERE session_short_grams MATCH ?4",
                    ),
                };
                values.extend([term.into(), open_matches.into()]);
                format!("(s.rowid IN ({indexed}) OR s.session_id IN ({}))", open_ids.replace("?N", "?5"))
            }
        };
        let filters = "(?1 = 0 OR (?1 = 1 AND s.closed_at IS NULL) OR (?1 = 2 AND s.closed_at IS NOT NULL))
               AND (CAST(?2 AS DOUBLE PRECISION) IS NULL OR s.started_at >= ?2)
               AND (CAST(?3 AS DOUBLE PRECISION) IS NULL OR s.started_at <= ?3)";
        if let (true, Some(n)) = (postgres, filter.needle.filter(|n| n.can_match())) {
            return self.find_matching_on_postgres(filters, &values[..3], n, filter);
        }
        let where_clause = format!("{filters} AND {matching}");
        let capped_count = |at: usize| {
            format!("SELECT count(*) FROM (SELECT 1 FROM sessions s WHERE {where_clause} LIMIT ?{at}) AS matched")
        };
        if postgres {
            // One query: the page's rows with the count, so neither every matching id nor one
            // statement per row goes over the connection. The count stops past the cap: a term in
            // every session would otherwise recheck every session's text.
            let n = values.len();
            values.extend([filter.limit.into(), filter.offset.into(), (COUNTED_AT_MOST + 1).into()]);
            // The page is chosen first: the transcript counts are then taken for its rows only.
            let query = format!(
                "WITH page AS (
                     SELECT s.rowid, s.started_at FROM sessions s WHERE {where_clause}
                     ORDER BY s.started_at DESC, s.rowid DESC LIMIT ?{} OFFSET ?{}),
                 counted AS ({})
                 SELECT {ROW}, counted.count FROM page JOIN sessions s ON s.rowid = page.rowid CROSS JOIN counted
                 ORDER BY page.started_at DESC, page.rowid DESC",
                n + 1,
                n + 2,
                capped_count(n + 3)
            );
            let rows = self.db.query_planned_for(&query, &values)?;
            let count = match rows.first() {
                Some(row) => row.count(2)?,
                // A page past the end still needs the count.
                None => {
                    let mut count_values = values[..n].to_vec();
                    count_values.push((COUNTED_AT_MOST + 1).into());
                    self.row(&capped_count(n + 1), &count_values)?.map(|r| r.count(0)).transpose()?.unwrap_or(0)
                }
            };
            let found = rows
                .iter()
                .map(|row| Ok(SessionRow { session: header(&row.text(0)?)?, entries: row.count(1)? }))
                .collect::<Result<Vec<_>>>()?;
            return Ok(FoundRows::counted_up_to_cap(found, count));
        }
        let query =
            format!("SELECT s.rowid FROM sessions s WHERE {where_clause} ORDER BY s.started_at DESC, s.rowid DESC");
        let rows = self.rows(&query, &values)?;
        let page: Vec<i64> =
            rows.iter().skip(filter.offset).take(filter.limit).map(|r| r.int(0)).collect::<Result<_>>()?;
        let mut found = Vec::with_capacity(page.len());
        for rowid in page {
            let row = self
                .row(&format!("SELECT {ROW} FROM sessions s WHERE s.rowid = ?1"), values![rowid])?
                .ok_or_else(|| Error::storage("a listed session is missing"))?;
            found.push(SessionRow { session: header(&row.text(0)?)?, entries: row.count(1)? });
        }
        // Capped as PostgreSQL's is, so both stores answer alike.
        Ok(FoundRows::counted_up_to_cap(found, rows.len()))
    }

    /// A search's page and count on PostgreSQL, where pg_trgm's index finds candidates but each
    /// must then be checked against its whole text (about 6 us a session). A term found in most
    /// sessions has every session as a candidate (pg_trgm splits words at `_`, `.`, `[`), so
    /// checking them all cost 60-190 ms, twice (page and count). Instead the count stops at the
    /// cap's first match past it, and the page is taken from the ids found when they are all the
    /// matches, else by checking sessions newest first until the page is full.
    fn find_matching_on_postgres(
        &self,
        filters: &str,
        filter_values: &[SqlValue],
        needle: &Needle,
        filter: &SessionFilter,
    ) -> Result<FoundRows> {
        let pattern = needle.like_pattern();
        // `filters` uses ?1-?3: every statement here binds them first.
        let bind = |more: Vec<SqlValue>| -> Vec<SqlValue> { filter_values.iter().cloned().chain(more).collect() };
        let indexed = self.db.query_planned_for(
            &format!(
                "SELECT t.rowid FROM session_text t JOIN sessions s ON s.rowid = t.rowid
                 WHERE {filters} AND t.text LIKE ?4 LIMIT ?5"
            ),
            &bind(vec![pattern.clone().into(), (COUNTED_AT_MOST + 1).into()]),
        )?;
        let mut matched: std::collections::HashSet<i64> = indexed.iter().map(|r| r.int(0)).collect::<Result<_>>()?;
        let all_found = matched.len() <= COUNTED_AT_MOST;
        let open_matches = serde_json::to_string(filter.open_matches).map_err(|e| Error::storage_caused("", e))?;
        if !filter.open_matches.is_empty() {
            let open = self.rows(
                &format!(
                    "SELECT s.rowid FROM sessions s
                     WHERE {filters} AND s.session_id IN (SELECT jsonb_array_elements_text((?4::text)::jsonb))"
                ),
                &bind(vec![open_matches.clone().into()]),
            )?;
            for row in open {
                matched.insert(row.int(0)?);
            }
        }
        let count = matched.len();
        let page: Vec<i64> = if all_found {
            let ids = serde_json::to_string(&matched).map_err(|e| Error::storage_caused("", e))?;
            let rows = self.rows(
                "SELECT s.rowid FROM sessions s
                 WHERE s.rowid IN (SELECT (jsonb_array_elements_text((?1::text)::jsonb))::bigint)
                 ORDER BY s.started_at DESC, s.rowid DESC LIMIT ?2 OFFSET ?3",
                values![ids, filter.limit, filter.offset],
            )?;
            rows.iter().map(|r| r.int(0)).collect::<Result<_>>()?
        } else {
            self.walk_newest_first(filters, &bind, &pattern, &open_matches, filter)?
        };
        Ok(FoundRows::counted_up_to_cap(self.session_rows(&page)?, count))
    }

    /// The page of a term that matches more than the cap: sessions newest first, a batch at a
    /// time (the inner LIMIT keeps PostgreSQL walking the index in order rather than checking
    /// every session and sorting), until the offset and the page are filled. Each text is read
    /// by a scalar subquery: as `EXISTS` PostgreSQL may hash the whole match once, every session.
    fn walk_newest_first(
        &self,
        filters: &str,
        bind: &dyn Fn(Vec<SqlValue>) -> Vec<SqlValue>,
        pattern: &str,
        open_matches: &str,
        filter: &SessionFilter,
    ) -> Result<Vec<i64>> {
        let query = format!(
            "SELECT s.rowid, s.started_at,
                 s.session_id IN (SELECT jsonb_array_elements_text((?5::text)::jsonb))
                 OR (SELECT t.text FROM session_text t WHERE t.rowid = s.rowid) LIKE ?4
             FROM (SELECT s.rowid, s.started_at, s.session_id FROM sessions s
                   WHERE {filters} AND (CAST(?6 AS DOUBLE PRECISION) IS NULL OR s.started_at < ?6
                       OR (s.started_at = ?6 AND s.rowid < ?7))
                   ORDER BY s.started_at DESC, s.rowid DESC LIMIT ?8) AS s
             ORDER BY s.started_at DESC, s.rowid DESC"
        );
        let wanted = filter.offset + filter.limit;
        let (mut found, mut after, mut batch) = (Vec::new(), None::<(f64, i64)>, 200usize);
        while found.len() < wanted {
            let more = vec![
                pattern.into(),
                open_matches.into(),
                after.map(|(at, _)| at).into(),
                after.map_or(0, |(_, id)| id).into(),
                batch.into(),
            ];
            let rows = self.db.query_planned_for(&query, &bind(more))?;
            for row in &rows {
                if row.bool(2)? {
                    found.push(row.int(0)?);
                }
            }
            match rows.last() {
                Some(last) if rows.len() == batch => after = Some((last.real(1)?, last.int(0)?)),
                _ => break,
            }
            // A sparse term's walk takes bigger steps (fewer round trips).
            batch = (batch * 2).min(5_000);
        }
        Ok(found.into_iter().skip(filter.offset).take(filter.limit).collect())
    }

    /// The listed rows of these sessions, in this order.
    fn session_rows(&self, page: &[i64]) -> Result<Vec<SessionRow>> {
        if page.is_empty() {
            return Ok(vec![]);
        }
        let ids = serde_json::to_string(page).map_err(|e| Error::storage_caused("", e))?;
        let rows = self.rows(
            &format!(
                "SELECT {ROW}, s.rowid FROM sessions s
                 WHERE s.rowid IN (SELECT (jsonb_array_elements_text((?1::text)::jsonb))::bigint)"
            ),
            values![ids],
        )?;
        let mut by_id = std::collections::HashMap::new();
        for row in &rows {
            by_id.insert(row.int(2)?, SessionRow { session: header(&row.text(0)?)?, entries: row.count(1)? });
        }
        Ok(page.iter().filter_map(|id| by_id.remove(id)).collect())
    }
}
