//! The schema, as numbered steps. `PRAGMA user_version` says how many have been applied. Append
//! new steps, never edit old ones: a data directory written today must open tomorrow.

use rusqlite::{params, Connection};

use super::{parse, storage};
use crate::error::{Error, Result};
use crate::model::TranscriptEntry;
use crate::search::SearchText;

/// One schema version: SQL, then (for steps that derive data SQL cannot compute, such as the
/// lowercased search text) a Rust step run in the same transaction.
pub(super) struct Migration {
    sql: &'static str,
    then: Option<fn(&Connection) -> Result<()>>,
}

pub(super) const MIGRATIONS: &[Migration] = &[
    // 1: pauses, sessions, transcripts, calls, breakpoints and values, plus the event log.
    Migration {
        sql: "CREATE TABLE breakpoints (name TEXT PRIMARY KEY, data TEXT NOT NULL);
     CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE functions (name TEXT PRIMARY KEY, data TEXT NOT NULL);
     CREATE TABLE objects (cid TEXT PRIMARY KEY, format TEXT NOT NULL, bytes BLOB NOT NULL, created_at REAL NOT NULL);
     CREATE TABLE calls (call_id TEXT PRIMARY KEY, process_key TEXT NOT NULL, started_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE pauses (pause_id TEXT PRIMARY KEY, paused_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE sessions (session_id TEXT PRIMARY KEY, started_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE transcript (
         session_id TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT NOT NULL,
         PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
     CREATE TABLE breakpoint_history (id INTEGER PRIMARY KEY, function_name TEXT NOT NULL, data TEXT NOT NULL);
     CREATE TABLE events (
         sequence INTEGER PRIMARY KEY, timestamp REAL NOT NULL, type TEXT NOT NULL,
         process_key TEXT, session_id TEXT, data TEXT NOT NULL);
     CREATE INDEX events_by_session ON events (session_id, sequence);
     CREATE INDEX events_by_process ON events (process_key, sequence);",
        then: None,
    },
    // 2: each breakpoint's history is trimmed to its newest entries on every insert.
    Migration { sql: "CREATE INDEX breakpoint_history_by_name ON breakpoint_history (function_name, id);", then: None },
    // 3: history is read from disk on demand instead of being loaded at start. The columns the
    // pages filter and join on come out of the JSON; closed sessions get a trigram full-text
    // index for `/repls` search; client events and communication errors are kept (bounded).
    Migration {
        sql: "ALTER TABLE sessions ADD COLUMN pause_id TEXT NOT NULL DEFAULT '';
     ALTER TABLE sessions ADD COLUMN call_id TEXT;
     ALTER TABLE sessions ADD COLUMN process_key TEXT NOT NULL DEFAULT '';
     ALTER TABLE sessions ADD COLUMN closed_at REAL;
     UPDATE sessions SET
         pause_id = coalesce(json_extract(data, '$.pause_id'), ''),
         call_id = json_extract(data, '$.call_id'),
         process_key = coalesce(json_extract(data, '$.process_key'), ''),
         closed_at = json_extract(data, '$.closed_at');
     -- Covers the listing's order and status filter without reading the rows.
     CREATE INDEX sessions_by_start ON sessions (started_at, closed_at);
     CREATE INDEX sessions_by_pause ON sessions (pause_id);
     CREATE INDEX sessions_by_call ON sessions (call_id);
     CREATE INDEX sessions_by_process ON sessions (process_key);
     CREATE INDEX sessions_open ON sessions (started_at) WHERE closed_at IS NULL;
     ALTER TABLE pauses ADD COLUMN resumed_at REAL;
     UPDATE pauses SET resumed_at = json_extract(data, '$.resumed_at')
         WHERE json_extract(data, '$.resume') IS NOT NULL;
     CREATE INDEX pauses_open ON pauses (paused_at) WHERE resumed_at IS NULL;
     CREATE INDEX calls_by_process ON calls (process_key, started_at);
     CREATE TABLE client_events (id INTEGER PRIMARY KEY, received_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE com_errors (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
     CREATE VIRTUAL TABLE session_text USING fts5 (text, tokenize = 'trigram case_sensitive 1');",
        then: Some(index_closed_sessions),
    },
    // 4: tracked processes and their output, one row per line (crate::processes::store).
    Migration {
        sql: "CREATE TABLE processes (id TEXT PRIMARY KEY, started_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE process_output (
         process_id TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL,
         time REAL NOT NULL, byte_offset INTEGER NOT NULL, text TEXT NOT NULL,
         PRIMARY KEY (process_id, stream, seq)) WITHOUT ROWID;",
        then: None,
    },
    // 5: terms under three characters, which the trigram index cannot answer, are looked up in
    // an index of each closed session's distinct one- and two-character grams instead of
    // scanning every text. Contentless: only the rowids are ever read back.
    Migration {
        sql: "CREATE VIRTUAL TABLE session_short_grams USING fts5 (
         grams, tokenize = 'ascii', content = '', contentless_delete = 1, detail = none);",
        then: Some(index_short_grams),
    },
    // 6: breakpoints of every kind (function, line, error) with their options and hit counts,
    // by id (crate::breakpoints::record). The name-keyed `breakpoints` table keeps the behaviours.
    Migration {
        sql: "CREATE TABLE breakpoint_records (id TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL);",
        then: None,
    },
    // 7: each runtime workspace's command history (crate::runtimes::store).
    Migration {
        sql: "CREATE TABLE runtime_history (
         id INTEGER PRIMARY KEY, workspace TEXT NOT NULL, timestamp REAL NOT NULL, data TEXT NOT NULL);
     CREATE INDEX runtime_history_by_workspace ON runtime_history (workspace, id);",
        then: None,
    },
    // 8: snapshots (crate::snapshots::store), newest kept; ids never reused.
    Migration {
        sql: "CREATE TABLE snapshots (
         id INTEGER PRIMARY KEY AUTOINCREMENT, breakpoint_id TEXT NOT NULL, process_id TEXT,
         received_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE INDEX snapshots_by_breakpoint ON snapshots (breakpoint_id, id);
     CREATE INDEX snapshots_by_process ON snapshots (process_id, id);",
        then: None,
    },
];

pub(super) fn latest() -> usize {
    MIGRATIONS.len()
}

/// Applies the steps after `current` up to version `upto`, each in its own transaction.
pub(super) fn apply(conn: &mut Connection, current: usize, upto: usize) -> Result<()> {
    for (i, step) in MIGRATIONS.iter().enumerate().take(upto).skip(current) {
        let failed = |e: rusqlite::Error| Error::storage_caused(format!("schema migration {}", i + 1), e);
        let tx = conn.transaction().map_err(storage)?;
        tx.execute_batch(step.sql).map_err(failed)?;
        if let Some(then) = step.then {
            then(&tx)?;
        }
        tx.pragma_update(None, "user_version", (i + 1) as i64).map_err(storage)?;
        tx.commit().map_err(storage)?;
    }
    Ok(())
}

/// Step 5: the short grams of every session indexed so far, from its stored search text.
fn index_short_grams(conn: &Connection) -> Result<()> {
    let mut texts = conn.prepare("SELECT id, c0 FROM session_text_content").map_err(storage)?;
    let rows = texts.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))).map_err(storage)?;
    let mut insert = conn.prepare("INSERT INTO session_short_grams (rowid, grams) VALUES (?1, ?2)").map_err(storage)?;
    for row in rows {
        let (rowid, text) = row.map_err(storage)?;
        insert.execute(params![rowid, SearchText::from_indexed(text).short_grams()]).map_err(storage)?;
    }
    Ok(())
}

/// Step 3: the search text of every session closed before this version.
fn index_closed_sessions(conn: &Connection) -> Result<()> {
    let mut sessions = conn
        .prepare(
            "SELECT rowid, session_id, json_extract(data, '$.function_name') FROM sessions WHERE closed_at IS NOT NULL",
        )
        .map_err(storage)?;
    let rows = sessions
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)))
        .map_err(storage)?;
    let mut entries =
        conn.prepare("SELECT data FROM transcript WHERE session_id = ?1 ORDER BY idx").map_err(storage)?;
    let mut insert = conn.prepare("INSERT INTO session_text (rowid, text) VALUES (?1, ?2)").map_err(storage)?;
    for row in rows {
        let (rowid, session_id, function_name) = row.map_err(storage)?;
        let mut text = SearchText::new(function_name.as_deref().unwrap_or(""));
        let datas = entries.query_map(params![session_id], |r| r.get::<_, String>(0)).map_err(storage)?;
        for data in datas {
            let entry: TranscriptEntry = parse("transcript entry", &data.map_err(storage)?)?;
            text.push_entry(&entry);
        }
        insert.execute(params![rowid, text.as_str()]).map_err(storage)?;
    }
    Ok(())
}
