//! REPL sessions, their transcripts, and `/repls` search.
//!
//! Search uses SQLite's FTS5 trigram index over each closed session's text ([`SearchText`]):
//! a term of three characters or more is a phrase query, which with the trigram tokenizer is an
//! exact substring match, answered from the index; shorter terms are looked up in a second index
//! of each session's distinct one- and two-character grams (`SearchText::short_grams`). A
//! session's text is indexed once, when it closes; open sessions are matched in memory by the
//! debugger, which passes their ids in. See benches/session_search.rs for the figures.

use rusqlite::{params, OptionalExtension};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{ReplSession, SessionLink, SessionStatus, TranscriptEntry};
use crate::search::{Needle, SearchText};
use crate::store::{json_text, parse, storage, Store};

/// A session without its transcript, and how many entries the transcript has.
pub struct SessionRow {
    pub session: ReplSession,
    pub entries: usize,
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

/// The columns of a [`SessionRow`].
const ROW: &str = "s.data, (SELECT count(*) FROM transcript t WHERE t.session_id = s.session_id)";

impl Store {
    /// Stores a session's header (not its transcript).
    pub fn put_session(&self, session: &ReplSession) -> Result<()> {
        let mut header = serde_json::to_value(session).map_err(|e| Error::storage_caused("", e))?;
        if let Some(obj) = header.as_object_mut() {
            obj.remove("transcript");
        }
        self.conn
            .prepare_cached(
                "INSERT INTO sessions (session_id, started_at, data, pause_id, call_id, process_key, closed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (session_id) DO UPDATE SET data = excluded.data, closed_at = excluded.closed_at,
                   pause_id = excluded.pause_id, call_id = excluded.call_id",
            )
            .and_then(|mut s| {
                s.execute(params![
                    session.session_id,
                    session.started_at,
                    header.to_string(),
                    session.pause_id,
                    session.call_id,
                    session.process_key,
                    session.closed_at
                ])
            })
            .map_err(storage)?;
        Ok(())
    }

    /// Stores a session that has just closed, `session` with its whole transcript: its header,
    /// and its text in the search index.
    pub fn put_closed_session(&self, session: &ReplSession) -> Result<()> {
        self.atomically(|store| {
            store.put_session(session)?;
            let text = SearchText::of(session);
            let rowid: i64 = store
                .conn
                .prepare_cached("SELECT rowid FROM sessions WHERE session_id = ?1")
                .and_then(|mut s| s.query_row(params![session.session_id], |r| r.get(0)))
                .map_err(storage)?;
            // Indexed once per session: replaced, should it ever be closed twice.
            store
                .conn
                .prepare_cached("DELETE FROM session_text WHERE rowid = ?1")
                .and_then(|mut s| s.execute(params![rowid]))
                .map_err(storage)?;
            store
                .conn
                .prepare_cached("INSERT INTO session_text (rowid, text) VALUES (?1, ?2)")
                .and_then(|mut s| s.execute(params![rowid, text.as_str()]))
                .map_err(storage)?;
            store
                .conn
                .prepare_cached("DELETE FROM session_short_grams WHERE rowid = ?1")
                .and_then(|mut s| s.execute(params![rowid]))
                .map_err(storage)?;
            store
                .conn
                .prepare_cached("INSERT INTO session_short_grams (rowid, grams) VALUES (?1, ?2)")
                .and_then(|mut s| s.execute(params![rowid, text.short_grams()]))
                .map_err(storage)?;
            Ok(())
        })
    }

    pub fn append_entry(&self, session_id: &str, entry: &TranscriptEntry) -> Result<()> {
        let data = json_text(entry)?;
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO transcript (session_id, idx, data) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![session_id, entry.index as i64, data]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn has_session(&self, session_id: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM sessions WHERE session_id = ?1", session_id)
    }

    /// A session with its transcript.
    pub fn session(&self, session_id: &str) -> Result<Option<ReplSession>> {
        let data: Option<String> = self
            .conn
            .prepare_cached("SELECT data FROM sessions WHERE session_id = ?1")
            .and_then(|mut s| s.query_row(params![session_id], |r| r.get(0)).optional())
            .map_err(storage)?;
        let Some(data) = data else {
            return Ok(None);
        };
        let mut session = header(&data)?;
        session.transcript = self.transcript(session_id)?;
        Ok(Some(session))
    }

    /// The sessions opened on a pause, without their transcripts, oldest first.
    pub fn session_headers_of_pause(&self, pause_id: &str) -> Result<Vec<ReplSession>> {
        let mut query = self
            .conn
            .prepare_cached("SELECT data FROM sessions WHERE pause_id = ?1 ORDER BY started_at, rowid")
            .map_err(storage)?;
        let rows = query.query_map(params![pause_id], |r| r.get::<_, String>(0)).map_err(storage)?;
        rows.map(|data| header(&data.map_err(storage)?)).collect()
    }

    fn transcript(&self, session_id: &str) -> Result<Vec<TranscriptEntry>> {
        self.all(
            "transcript entry",
            "SELECT data FROM transcript WHERE session_id = ?1 ORDER BY idx",
            params![session_id],
        )
    }

    /// Sessions left open by a server that stopped, with their transcripts, oldest first.
    pub fn open_sessions(&self) -> Result<Vec<ReplSession>> {
        let ids: Vec<String> = {
            let mut stmt = self
                .conn
                .prepare("SELECT session_id FROM sessions WHERE closed_at IS NULL ORDER BY started_at, rowid")
                .map_err(storage)?;
            let rows = stmt.query_map([], |r| r.get(0)).map_err(storage)?;
            rows.collect::<rusqlite::Result<_>>().map_err(storage)?
        };
        let mut open = vec![];
        for id in ids {
            open.extend(self.session(&id)?);
        }
        Ok(open)
    }

    /// Links to the sessions of a pause, oldest first.
    pub fn sessions_of_pause(&self, pause_id: &str) -> Result<Vec<SessionLink>> {
        let links = self.links("pause_id", pause_id)?;
        Ok(links.into_iter().map(|(_, link)| link).collect())
    }

    /// Links to the sessions of a call, oldest first.
    pub fn sessions_of_call(&self, call_id: &str) -> Result<Vec<SessionLink>> {
        let links = self.links("call_id", call_id)?;
        Ok(links.into_iter().map(|(_, link)| link).collect())
    }

    /// How many sessions were opened on calls of a process.
    pub fn session_count_of_process(&self, process_key: &str) -> Result<usize> {
        let count: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM sessions WHERE process_key = ?1")
            .and_then(|mut s| s.query_row(params![process_key], |r| r.get(0)))
            .map_err(storage)?;
        Ok(count.max(0) as usize)
    }

    /// Links to the sessions of a process, each with its call id, oldest first.
    pub fn sessions_of_process(&self, process_key: &str) -> Result<Vec<(Option<String>, SessionLink)>> {
        self.links("process_key", process_key)
    }

    fn links(&self, column: &str, value: &str) -> Result<Vec<(Option<String>, SessionLink)>> {
        let query = format!(
            "SELECT s.call_id, s.session_id, s.closed_at IS NULL,
                 (SELECT count(*) FROM transcript t WHERE t.session_id = s.session_id)
             FROM sessions s WHERE s.{column} = ?1 ORDER BY s.started_at, s.rowid"
        );
        let mut stmt = self.conn.prepare_cached(&query).map_err(storage)?;
        let rows = stmt
            .query_map(params![value], |r| {
                let link = SessionLink {
                    session_id: r.get(1)?,
                    active: r.get(2)?,
                    entries: r.get::<_, i64>(3)?.max(0) as usize,
                };
                Ok((r.get(0)?, link))
            })
            .map_err(storage)?;
        rows.collect::<rusqlite::Result<_>>().map_err(storage)
    }

    /// One page of matching sessions, newest first, and how many match in all.
    ///
    /// The match is evaluated once: the ids of every matching session come back in page order
    /// (cheap, from the indexes), are counted here, and only the page's rows are then read.
    pub fn find_sessions(&self, filter: &SessionFilter) -> Result<(Vec<SessionRow>, usize)> {
        let open_matches = serde_json::to_string(filter.open_matches).map_err(|e| Error::storage_caused("", e))?;
        let status = match filter.status {
            SessionStatus::All => 0,
            SessionStatus::Active => 1,
            SessionStatus::Closed => 2,
        };
        // Each variant uses exactly the values it binds: ?4 the term, then the open matches.
        let term = filter.needle.map(|n| if n.uses_index() { n.fts_phrase() } else { n.short_gram_phrase() });
        let mut values: Vec<&dyn rusqlite::ToSql> = vec![&status, &filter.from, &filter.to];
        let matching = match filter.needle {
            None => "1",
            Some(n) if !n.can_match() => {
                values.push(&open_matches);
                "s.session_id IN (SELECT value FROM json_each(?4))"
            }
            Some(n) => {
                values.extend([&term as &dyn rusqlite::ToSql, &open_matches]);
                if n.uses_index() {
                    "(s.rowid IN (SELECT rowid FROM session_text WHERE session_text MATCH ?4)
                      OR s.session_id IN (SELECT value FROM json_each(?5)))"
                } else {
                    // Under three characters the trigram index cannot help: the short grams can.
                    "(s.rowid IN (SELECT rowid FROM session_short_grams WHERE session_short_grams MATCH ?4)
                      OR s.session_id IN (SELECT value FROM json_each(?5)))"
                }
            }
        };
        let ids = format!(
            "SELECT s.rowid FROM sessions s
             WHERE (?1 = 0 OR (?1 = 1 AND s.closed_at IS NULL) OR (?1 = 2 AND s.closed_at IS NOT NULL))
               AND (?2 IS NULL OR s.started_at >= ?2) AND (?3 IS NULL OR s.started_at <= ?3) AND {matching}
             ORDER BY s.started_at DESC, s.rowid DESC"
        );
        let mut stmt = self.conn.prepare_cached(&ids).map_err(storage)?;
        let mut rows = stmt.query(values.as_slice()).map_err(storage)?;
        let (mut total, mut page) = (0usize, vec![]);
        while let Some(row) = rows.next().map_err(storage)? {
            if total >= filter.offset && page.len() < filter.limit {
                page.push(row.get::<_, i64>(0).map_err(storage)?);
            }
            total += 1;
        }
        let mut found = Vec::with_capacity(page.len());
        let mut read =
            self.conn.prepare_cached(&format!("SELECT {ROW} FROM sessions s WHERE s.rowid = ?1")).map_err(storage)?;
        for rowid in page {
            let (data, entries) = read
                .query_row(params![rowid], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                .map_err(storage)?;
            found.push(SessionRow { session: header(&data)?, entries: entries.max(0) as usize });
        }
        Ok((found, total))
    }

    /// The transcripts of listed sessions, for pages that show them whole.
    pub fn with_transcript(&self, mut session: ReplSession) -> Result<ReplSession> {
        session.transcript = self.transcript(&session.session_id)?;
        Ok(session)
    }
}

/// A stored session header, with an empty transcript.
fn header(data: &str) -> Result<ReplSession> {
    let mut header: Value = parse("session", data)?;
    if let Some(obj) = header.as_object_mut() {
        obj.insert("transcript".into(), Value::Array(vec![]));
    }
    serde_json::from_value(header).map_err(|e| Error::storage_caused("a stored session cannot be read", e))
}
