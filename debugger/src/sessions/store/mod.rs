//! REPL sessions and their transcripts, kept and read; `find` searches them (`/repls`).

use serde_json::Value;

use crate::cid_store::VerifiedObject;
use crate::error::{Error, Result};
use crate::model::{EventKind, ReplSession, SessionLink, SessionSummary, TranscriptEntry};
use crate::search::SearchText;
use crate::store::sql::Dialect;
use crate::store::{json_text, parse, values, Store};

mod find;
pub use find::SessionFilter;

/// A session without its transcript, and how many entries the transcript has.
pub struct SessionRow {
    pub session: ReplSession,
    pub entries: usize,
}

impl SessionRow {
    /// The session as an index page lists it.
    pub fn summary(self) -> SessionSummary {
        SessionSummary { transcript_len: self.entries, ..SessionSummary::of(&self.session) }
    }
}

/// Everything an answered eval leaves behind: its request's event, the value it returned (when
/// new), its transcript entry and its result's event.
pub struct AnsweredEval<'a> {
    pub process_key: &'a str,
    pub session_id: &'a str,
    pub requested_at: f64,
    pub request_event: &'a Value,
    pub new_object: Option<&'a VerifiedObject>,
    pub entry: &'a TranscriptEntry,
    pub answered_at: f64,
    pub result_event: &'a Value,
}

/// An answered eval in PostgreSQL: one statement, so one round trip and one commit. The commit
/// does not wait for the WAL flush (`synchronous_commit` off for this transaction only): a
/// PostgreSQL or machine crash can lose the last fraction of a second of transcript, never
/// leave half of one eval; docs/src/servers.md says exactly what. Rows of one `VALUES` list
/// take their `sequence` in order, so the request's event stays before its result's.
const ANSWERED_EVAL_PG: &str = "WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true) AS setting),
     new_events AS (
         INSERT INTO events (timestamp, type, process_key, session_id, data)
         VALUES (?1, ?2, ?3, ?4, ?5), (?6, ?7, ?3, ?4, ?8) RETURNING sequence),
     new_object AS (
         INSERT INTO objects (cid, format, bytes, created_at)
         SELECT ?9::text, ?10::text, ?11::bytea, ?12::double precision WHERE ?9::text IS NOT NULL
         ON CONFLICT (cid) DO NOTHING RETURNING cid),
     entry AS (
         INSERT INTO transcript (session_id, idx, data) VALUES (?4, ?13, ?14)
         ON CONFLICT (session_id, idx) DO UPDATE SET data = excluded.data RETURNING idx)
     SELECT (SELECT count(*) FROM new_events), (SELECT count(*) FROM entry), (SELECT setting FROM relaxed)";

/// The columns of a [`SessionRow`].
const ROW: &str = "s.data, (SELECT count(*) FROM transcript t WHERE t.session_id = s.session_id)";

impl Store {
    /// Stores a session's header (not its transcript).
    pub fn put_session(&self, session: &ReplSession) -> Result<()> {
        let mut header = serde_json::to_value(session).map_err(|e| Error::storage_caused("", e))?;
        if let Some(obj) = header.as_object_mut() {
            obj.remove("transcript");
        }
        self.execute(
            "INSERT INTO sessions (session_id, started_at, data, pause_id, call_id, process_key, closed_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (session_id) DO UPDATE SET data = excluded.data, closed_at = excluded.closed_at,
               pause_id = excluded.pause_id, call_id = excluded.call_id",
            values![
                &session.session_id,
                session.started_at,
                header.to_string(),
                &session.pause_id,
                &session.call_id,
                &session.process_key,
                session.closed_at
            ],
        )?;
        Ok(())
    }

    /// Stores a session that has just closed, `session` with its whole transcript: its header,
    /// and its text in the search index.
    pub fn put_closed_session(&self, session: &ReplSession) -> Result<()> {
        self.atomically(|store| {
            store.put_session(session)?;
            let text = SearchText::of(session);
            let rowid = store
                .row("SELECT rowid FROM sessions WHERE session_id = ?1", values![&session.session_id])?
                .ok_or_else(|| Error::storage("a session just stored is missing"))?
                .int(0)?;
            // Indexed once per session: replaced, should it ever be closed twice.
            match store.dialect() {
                Dialect::Sqlite => {
                    store.execute("DELETE FROM session_text WHERE rowid = ?1", values![rowid])?;
                    store.execute(
                        "INSERT INTO session_text (rowid, text) VALUES (?1, ?2)",
                        values![rowid, text.as_str()],
                    )?;
                    store.execute("DELETE FROM session_short_grams WHERE rowid = ?1", values![rowid])?;
                    store.execute(
                        "INSERT INTO session_short_grams (rowid, grams) VALUES (?1, ?2)",
                        values![rowid, text.short_grams()],
                    )?;
                }
                Dialect::Postgres => {
                    store.execute(
                        "INSERT INTO session_text (rowid, text) VALUES (?1, ?2)
                         ON CONFLICT (rowid) DO UPDATE SET text = excluded.text",
                        values![rowid, text.as_str()],
                    )?;
                }
            }
            Ok(())
        })
    }

    /// Writes an answered eval in one commit (in PostgreSQL, in one round trip).
    pub fn put_answered_eval(&self, eval: &AnsweredEval) -> Result<()> {
        if self.dialect() == Dialect::Postgres && !self.in_transaction() {
            let object = eval.new_object;
            let written = self.row(
                ANSWERED_EVAL_PG,
                values![
                    eval.requested_at,
                    EventKind::EvalRequest.as_str(),
                    eval.process_key,
                    eval.session_id,
                    eval.request_event.to_string(),
                    eval.answered_at,
                    EventKind::EvalResult.as_str(),
                    eval.result_event.to_string(),
                    object.map(|o| o.cid.as_str()),
                    object.map(|o| o.object.format.as_str()),
                    object.map(|o| o.object.bytes.as_slice()),
                    object.map(|o| o.object.created_at),
                    eval.entry.index,
                    json_text(eval.entry)?
                ],
            )?;
            return match written {
                Some(row) if row.int(0)? == 2 && row.int(1)? == 1 => Ok(()),
                _ => Err(Error::storage("an answered eval was not written whole")),
            };
        }
        self.atomically(|store| {
            store.append_event(
                eval.requested_at,
                EventKind::EvalRequest,
                Some(eval.process_key),
                Some(eval.session_id),
                eval.request_event,
            )?;
            if let Some(verified) = eval.new_object {
                store.put_object(verified)?;
            }
            store.append_entry(eval.session_id, eval.entry)?;
            store
                .append_event(
                    eval.answered_at,
                    EventKind::EvalResult,
                    Some(eval.process_key),
                    Some(eval.session_id),
                    eval.result_event,
                )
                .map(|_| ())
        })
    }

    pub fn append_entry(&self, session_id: &str, entry: &TranscriptEntry) -> Result<()> {
        self.execute(
            "INSERT INTO transcript (session_id, idx, data) VALUES (?1, ?2, ?3)
             ON CONFLICT (session_id, idx) DO UPDATE SET data = excluded.data",
            values![session_id, entry.index, json_text(entry)?],
        )?;
        Ok(())
    }

    pub fn has_session(&self, session_id: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM sessions WHERE session_id = ?1", session_id)
    }

    /// A session with its transcript.
    pub fn session(&self, session_id: &str) -> Result<Option<ReplSession>> {
        let Some(row) = self.row("SELECT data FROM sessions WHERE session_id = ?1", values![session_id])? else {
            return Ok(None);
        };
        let data = row.text(0)?;
        let mut session = header(&data)?;
        session.transcript = self.transcript(session_id)?;
        Ok(Some(session))
    }

    /// A session without its transcript, with how many entries it has (`/repls`'s row of it).
    pub fn session_row(&self, session_id: &str) -> Result<Option<SessionRow>> {
        let query = format!("SELECT {ROW} FROM sessions s WHERE s.session_id = ?1");
        let Some(row) = self.row(&query, values![session_id])? else { return Ok(None) };
        Ok(Some(SessionRow { session: header(&row.text(0)?)?, entries: row.count(1)? }))
    }

    /// The sessions opened on a pause, without their transcripts, oldest first.
    pub fn session_headers_of_pause(&self, pause_id: &str) -> Result<Vec<ReplSession>> {
        let rows =
            self.rows("SELECT data FROM sessions WHERE pause_id = ?1 ORDER BY started_at, rowid", values![pause_id])?;
        rows.iter().map(|row| header(&row.text(0)?)).collect()
    }

    fn transcript(&self, session_id: &str) -> Result<Vec<TranscriptEntry>> {
        self.all(
            "transcript entry",
            "SELECT data FROM transcript WHERE session_id = ?1 ORDER BY idx",
            values![session_id],
        )
    }

    /// Sessions left open by a server that stopped, with their transcripts, oldest first.
    pub fn open_sessions(&self) -> Result<Vec<ReplSession>> {
        let ids =
            self.rows("SELECT session_id FROM sessions WHERE closed_at IS NULL ORDER BY started_at, rowid", values![])?;
        let mut open = vec![];
        for id in ids {
            open.extend(self.session(&id.text(0)?)?);
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
        let count = self.row("SELECT count(*) FROM sessions WHERE process_key = ?1", values![process_key])?;
        Ok(count.map(|r| r.count(0)).transpose()?.unwrap_or(0))
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
        let rows = self.rows(&query, values![value])?;
        rows.iter()
            .map(|r| {
                let link = SessionLink { session_id: r.text(1)?, active: r.bool(2)?, entries: r.count(3)? };
                Ok((r.opt_text(0)?, link))
            })
            .collect()
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
