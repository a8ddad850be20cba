//! The schema, as numbered steps, each in both dialects. SQLite's `PRAGMA user_version`, or
//! PostgreSQL's `breakroom_schema` table, says how many have been applied. Append new steps,
//! never edit old ones: a database written today must open tomorrow.

use super::sql::{values, Db, Dialect};
use super::{parse, Store};
use crate::error::{Error, Result};
use crate::model::TranscriptEntry;
use crate::search::SearchText;

/// One schema version: SQL, then (for steps that derive data SQL cannot compute, such as the
/// lowercased search text) a Rust step run in the same transaction. PostgreSQL databases start
/// at Breakroom's issue 35, so their steps create the same tables with nothing to derive.
pub(super) struct Migration {
    sql: &'static str,
    then: Option<fn(&Store) -> Result<()>>,
    postgres: &'static str,
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
        postgres: "CREATE EXTENSION IF NOT EXISTS pg_trgm;
     CREATE TABLE breakpoints (name TEXT PRIMARY KEY, data TEXT NOT NULL);
     CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE functions (name TEXT PRIMARY KEY, data TEXT NOT NULL);
     CREATE TABLE objects (cid TEXT PRIMARY KEY, format TEXT NOT NULL, bytes BYTEA NOT NULL,
         created_at DOUBLE PRECISION NOT NULL);
     CREATE TABLE calls (call_id TEXT PRIMARY KEY, process_key TEXT NOT NULL,
         started_at DOUBLE PRECISION NOT NULL, data TEXT NOT NULL, rowid BIGSERIAL UNIQUE);
     CREATE TABLE pauses (pause_id TEXT PRIMARY KEY, paused_at DOUBLE PRECISION NOT NULL, data TEXT NOT NULL,
         rowid BIGSERIAL UNIQUE);
     CREATE TABLE sessions (session_id TEXT PRIMARY KEY, started_at DOUBLE PRECISION NOT NULL, data TEXT NOT NULL,
         rowid BIGSERIAL UNIQUE);
     CREATE TABLE transcript (session_id TEXT NOT NULL, idx BIGINT NOT NULL, data TEXT NOT NULL,
         PRIMARY KEY (session_id, idx));
     CREATE TABLE breakpoint_history (id BIGSERIAL PRIMARY KEY, function_name TEXT NOT NULL, data TEXT NOT NULL);
     CREATE TABLE events (
         sequence BIGSERIAL PRIMARY KEY, timestamp DOUBLE PRECISION NOT NULL, type TEXT NOT NULL,
         process_key TEXT, session_id TEXT, data TEXT NOT NULL);
     CREATE INDEX events_by_session ON events (session_id, sequence);
     CREATE INDEX events_by_process ON events (process_key, sequence);",
    },
    // 2: each breakpoint's history is trimmed to its newest entries on every insert.
    Migration { sql: "CREATE INDEX breakpoint_history_by_name ON breakpoint_history (function_name, id);", then: None, postgres: "CREATE INDEX breakpoint_history_by_name ON breakpoint_history (function_name, id);" },
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
        postgres: "ALTER TABLE sessions ADD COLUMN pause_id TEXT NOT NULL DEFAULT '';
     ALTER TABLE sessions ADD COLUMN call_id TEXT;
     ALTER TABLE sessions ADD COLUMN process_key TEXT NOT NULL DEFAULT '';
     ALTER TABLE sessions ADD COLUMN closed_at DOUBLE PRECISION;
     CREATE INDEX sessions_by_start ON sessions (started_at, closed_at);
     CREATE INDEX sessions_by_pause ON sessions (pause_id);
     CREATE INDEX sessions_by_call ON sessions (call_id);
     CREATE INDEX sessions_by_process ON sessions (process_key);
     CREATE INDEX sessions_open ON sessions (started_at) WHERE closed_at IS NULL;
     ALTER TABLE pauses ADD COLUMN resumed_at DOUBLE PRECISION;
     CREATE INDEX pauses_open ON pauses (paused_at) WHERE resumed_at IS NULL;
     CREATE INDEX calls_by_process ON calls (process_key, started_at);
     CREATE TABLE client_events (id BIGSERIAL PRIMARY KEY, received_at DOUBLE PRECISION NOT NULL, data TEXT NOT NULL);
     CREATE TABLE com_errors (id BIGSERIAL PRIMARY KEY, data TEXT NOT NULL);
     -- Each closed session's search text by the session's rowid. pg_trgm's GIN index answers
     -- LIKE '%term%' on it (an exact substring of the lowercased text) for terms of three
     -- characters or more; shorter terms scan.
     CREATE TABLE session_text (rowid BIGINT PRIMARY KEY, text TEXT NOT NULL);
     CREATE INDEX session_text_trigrams ON session_text USING gin (text gin_trgm_ops);",
    },
    // 4: tracked processes and their output, one row per line (crate::processes::store).
    Migration {
        sql: "CREATE TABLE processes (id TEXT PRIMARY KEY, started_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE TABLE process_output (
         process_id TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL,
         time REAL NOT NULL, byte_offset INTEGER NOT NULL, text TEXT NOT NULL,
         PRIMARY KEY (process_id, stream, seq)) WITHOUT ROWID;",
        then: None,
        postgres: "CREATE TABLE processes (id TEXT PRIMARY KEY, started_at DOUBLE PRECISION NOT NULL, data TEXT NOT NULL,
         rowid BIGSERIAL UNIQUE);
     CREATE TABLE process_output (
         process_id TEXT NOT NULL, stream TEXT NOT NULL, seq BIGINT NOT NULL,
         time DOUBLE PRECISION NOT NULL, byte_offset BIGINT NOT NULL, text TEXT NOT NULL,
         PRIMARY KEY (process_id, stream, seq));",
    },
    // 5: terms under three characters, which the trigram index cannot answer, are looked up in
    // an index of each closed session's distinct one- and two-character grams instead of
    // scanning every text. Contentless: only the rowids are ever read back.
    Migration {
        sql: "CREATE VIRTUAL TABLE session_short_grams USING fts5 (
         grams, tokenize = 'ascii', content = '', contentless_delete = 1, detail = none);",
        then: Some(index_short_grams),
        postgres: "-- SQLite's index of short grams: PostgreSQL scans the texts for terms under three characters.
     SELECT 1;",
    },
    // 6: breakpoints of every kind (function, line, error) with their options and hit counts,
    // by id (crate::breakpoints::record). The name-keyed `breakpoints` table keeps the behaviours.
    Migration {
        sql: "CREATE TABLE breakpoint_records (id TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL);",
        then: None,
        postgres: "CREATE TABLE breakpoint_records (id TEXT PRIMARY KEY, position BIGINT NOT NULL, data TEXT NOT NULL);",
    },
    // 7: each runtime workspace's command history (crate::runtimes::store).
    Migration {
        sql: "CREATE TABLE runtime_history (
         id INTEGER PRIMARY KEY, workspace TEXT NOT NULL, timestamp REAL NOT NULL, data TEXT NOT NULL);
     CREATE INDEX runtime_history_by_workspace ON runtime_history (workspace, id);",
        then: None,
        postgres: "CREATE TABLE runtime_history (
         id BIGSERIAL PRIMARY KEY, workspace TEXT NOT NULL, timestamp DOUBLE PRECISION NOT NULL, data TEXT NOT NULL);
     CREATE INDEX runtime_history_by_workspace ON runtime_history (workspace, id);",
    },
    // 8: snapshots (crate::snapshots::store), newest kept; ids never reused.
    Migration {
        sql: "CREATE TABLE snapshots (
         id INTEGER PRIMARY KEY AUTOINCREMENT, breakpoint_id TEXT NOT NULL, process_id TEXT,
         received_at REAL NOT NULL, data TEXT NOT NULL);
     CREATE INDEX snapshots_by_breakpoint ON snapshots (breakpoint_id, id);
     CREATE INDEX snapshots_by_process ON snapshots (process_id, id);",
        then: None,
        postgres: "CREATE TABLE snapshots (
         id BIGSERIAL PRIMARY KEY, breakpoint_id TEXT NOT NULL, process_id TEXT,
         received_at DOUBLE PRECISION NOT NULL, data TEXT NOT NULL);
     CREATE INDEX snapshots_by_breakpoint ON snapshots (breakpoint_id, id);
     CREATE INDEX snapshots_by_process ON snapshots (process_id, id);",
    },
    // 9: what several servers on one database count together: the breakpoint ids handed out
    // (`counters`), and each breakpoint's hits, incremented in place (issue 47).
    Migration {
        sql: "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
     INSERT INTO counters (name, value)
         SELECT 'breakpoint_position', COALESCE(MAX(position), 0) FROM breakpoint_records;
     ALTER TABLE breakpoint_records ADD COLUMN hits INTEGER NOT NULL DEFAULT 0;
     UPDATE breakpoint_records SET hits = COALESCE(json_extract(data, '$.hit_count'), 0);",
        then: None,
        postgres: "CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
     INSERT INTO counters (name, value)
         SELECT 'breakpoint_position', COALESCE(MAX(position), 0) FROM breakpoint_records;
     ALTER TABLE breakpoint_records ADD COLUMN hits BIGINT NOT NULL DEFAULT 0;
     UPDATE breakpoint_records SET hits = COALESCE((data::jsonb ->> 'hit_count')::bigint, 0);",
    },
    // 10: each program's own count of a breakpoint's arrivals (line breakpoints are counted in
    // the programs), so that what one program counted adds to the others' instead of
    // overwriting them (issue 47).
    Migration {
        sql: "CREATE TABLE breakpoint_program_hits (
         id TEXT NOT NULL, process_key TEXT NOT NULL, hits INTEGER NOT NULL, PRIMARY KEY (id, process_key));",
        then: None,
        postgres: "CREATE TABLE breakpoint_program_hits (
         id TEXT NOT NULL, process_key TEXT NOT NULL, hits BIGINT NOT NULL, PRIMARY KEY (id, process_key));",
    },
    // 11: people and program credentials (only a token's SHA-256), browsers' sign-ins, which
    // program credential each process reported with, and the audit trail, which only age
    // removes (issue 48).
    Migration {
        sql: "CREATE TABLE users (
         name TEXT PRIMARY KEY, role TEXT NOT NULL, token_hash BLOB NOT NULL UNIQUE,
         created_at REAL NOT NULL, token_changed_at REAL NOT NULL);
     CREATE TABLE sign_ins (
         session_hash BLOB PRIMARY KEY, name TEXT NOT NULL, expires_at REAL NOT NULL);
     CREATE TABLE process_claims (
         process_key TEXT PRIMARY KEY, credential TEXT NOT NULL, claimed_at REAL NOT NULL);
     CREATE TABLE audit (
         id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
         process TEXT, data TEXT NOT NULL);
     CREATE INDEX audit_by_time ON audit (time);
     CREATE INDEX audit_by_actor ON audit (actor, id);
     CREATE INDEX audit_by_process ON audit (process, id);",
        then: None,
        postgres: "CREATE TABLE users (
         name TEXT PRIMARY KEY, role TEXT NOT NULL, token_hash BYTEA NOT NULL UNIQUE,
         created_at DOUBLE PRECISION NOT NULL, token_changed_at DOUBLE PRECISION NOT NULL);
     CREATE TABLE sign_ins (
         session_hash BYTEA PRIMARY KEY, name TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL);
     CREATE TABLE process_claims (
         process_key TEXT PRIMARY KEY, credential TEXT NOT NULL, claimed_at DOUBLE PRECISION NOT NULL);
     CREATE TABLE audit (
         id BIGSERIAL PRIMARY KEY, time DOUBLE PRECISION NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
         process TEXT, data TEXT NOT NULL);
     CREATE INDEX audit_by_time ON audit (time);
     CREATE INDEX audit_by_actor ON audit (actor, id);
     CREATE INDEX audit_by_process ON audit (process, id);",
    },
    // 12: sign-ins through an identity provider (issue 49): the person is no row of `users`, so
    // the sign-in keeps their role and the provider (`via`), and the ID token that sign-out
    // hands back to the provider (`end_hint`). A token sign-in leaves them NULL.
    Migration {
        sql: "ALTER TABLE sign_ins ADD COLUMN role TEXT;
     ALTER TABLE sign_ins ADD COLUMN via TEXT;
     ALTER TABLE sign_ins ADD COLUMN end_hint TEXT;",
        then: None,
        postgres: "ALTER TABLE sign_ins ADD COLUMN role TEXT;
     ALTER TABLE sign_ins ADD COLUMN via TEXT;
     ALTER TABLE sign_ins ADD COLUMN end_hint TEXT;",
    },
    // 13: each breakpoint's tally of snapshots and log lines (kept, skipped past the time budget
    // or the rate, dropped), incremented in place as its hits are, so that servers sharing the
    // database add to it instead of overwriting each other's (issue 47).
    Migration {
        sql: "ALTER TABLE breakpoint_records ADD COLUMN captured INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE breakpoint_records ADD COLUMN skipped_quota INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE breakpoint_records ADD COLUMN skipped_rate INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE breakpoint_records ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
     UPDATE breakpoint_records SET
         captured = COALESCE(json_extract(data, '$.tally.captured'), 0),
         skipped_quota = COALESCE(json_extract(data, '$.tally.skipped_quota'), 0),
         skipped_rate = COALESCE(json_extract(data, '$.tally.skipped_rate'), 0),
         dropped = COALESCE(json_extract(data, '$.tally.dropped'), 0);",
        then: None,
        postgres: "ALTER TABLE breakpoint_records ADD COLUMN captured BIGINT NOT NULL DEFAULT 0;
     ALTER TABLE breakpoint_records ADD COLUMN skipped_quota BIGINT NOT NULL DEFAULT 0;
     ALTER TABLE breakpoint_records ADD COLUMN skipped_rate BIGINT NOT NULL DEFAULT 0;
     ALTER TABLE breakpoint_records ADD COLUMN dropped BIGINT NOT NULL DEFAULT 0;
     UPDATE breakpoint_records SET
         captured = COALESCE((data::jsonb #>> '{tally,captured}')::bigint, 0),
         skipped_quota = COALESCE((data::jsonb #>> '{tally,skipped_quota}')::bigint, 0),
         skipped_rate = COALESCE((data::jsonb #>> '{tally,skipped_rate}')::bigint, 0),
         dropped = COALESCE((data::jsonb #>> '{tally,dropped}')::bigint, 0);",
    },
];

/// The advisory lock servers take turns under while they change the schema.
const SCHEMA_LOCK: i64 = 35035;

pub(super) fn latest() -> usize {
    MIGRATIONS.len()
}

/// How many steps the database has had.
pub(super) fn version(db: &Db) -> Result<usize> {
    let version = match db.dialect() {
        Dialect::Sqlite => db.query_first("PRAGMA user_version", values![])?.map(|r| r.int(0)).transpose()?,
        Dialect::Postgres => {
            let exists = db.query_first("SELECT to_regclass('breakroom_schema') IS NOT NULL", values![])?;
            if !exists.map(|r| r.bool(0)).transpose()?.unwrap_or(false) {
                return Ok(0);
            }
            db.query_first("SELECT max(version) FROM breakroom_schema", values![])?.and_then(|r| r.int(0).ok())
        }
    };
    Ok(version.unwrap_or(0).max(0) as usize)
}

pub(super) fn set_version(db: &Db, version: usize) -> Result<()> {
    match db.dialect() {
        Dialect::Sqlite => db.batch(&format!("PRAGMA user_version = {version}")),
        Dialect::Postgres => {
            db.execute("DELETE FROM breakroom_schema", values![])?;
            db.execute("INSERT INTO breakroom_schema (version) VALUES (?1)", values![version]).map(drop)
        }
    }
}

/// Applies the steps after `current` up to version `upto`, each in its own transaction.
/// Servers starting together on one PostgreSQL database take turns: each step runs under a
/// transaction-scoped lock, and a step another server has just applied is skipped.
pub(super) fn apply(store: &Store, current: usize, upto: usize) -> Result<()> {
    if store.dialect() == Dialect::Postgres && current < upto {
        // Every schema statement runs under the lock, this table's creation too: PostgreSQL's
        // `CREATE TABLE IF NOT EXISTS` is not safe against another server doing the same at once
        // (it fails on pg_type's unique index).
        store.atomically(|store| {
            store.execute("SELECT pg_advisory_xact_lock(?1)", values![SCHEMA_LOCK])?;
            store.db.batch("CREATE TABLE IF NOT EXISTS breakroom_schema (version BIGINT NOT NULL)")
        })?;
    }
    for (i, step) in MIGRATIONS.iter().enumerate().take(upto).skip(current) {
        let failed = |e: Error| Error::storage(format!("schema migration {}: {e}", i + 1));
        store
            .atomically(|store| {
                let sql = match store.dialect() {
                    Dialect::Sqlite => step.sql,
                    Dialect::Postgres => {
                        store.execute("SELECT pg_advisory_xact_lock(?1)", values![SCHEMA_LOCK])?;
                        if version(&store.db)? > i {
                            return Ok(());
                        }
                        step.postgres
                    }
                };
                store.db.batch(sql)?;
                if let (Some(then), Dialect::Sqlite) = (step.then, store.dialect()) {
                    then(store)?;
                }
                set_version(&store.db, i + 1)
            })
            .map_err(failed)?;
    }
    Ok(())
}

/// Step 5: the short grams of every session indexed so far, from its stored search text.
fn index_short_grams(store: &Store) -> Result<()> {
    for row in store.rows("SELECT id, c0 FROM session_text_content", values![])? {
        let grams = SearchText::from_indexed(row.text(1)?).short_grams();
        store.execute("INSERT INTO session_short_grams (rowid, grams) VALUES (?1, ?2)", values![row.int(0)?, grams])?;
    }
    Ok(())
}

/// Step 3: the search text of every session closed before this version.
fn index_closed_sessions(store: &Store) -> Result<()> {
    let sessions = store.rows(
        "SELECT rowid, session_id, json_extract(data, '$.function_name') FROM sessions WHERE closed_at IS NOT NULL",
        values![],
    )?;
    for row in sessions {
        let (rowid, session_id) = (row.int(0)?, row.text(1)?);
        let mut text = SearchText::new(row.opt_text(2)?.as_deref().unwrap_or(""));
        for entry in
            store.rows("SELECT data FROM transcript WHERE session_id = ?1 ORDER BY idx", values![&session_id])?
        {
            let entry: TranscriptEntry = parse("transcript entry", &entry.text(0)?)?;
            text.push_entry(&entry);
        }
        store.execute("INSERT INTO session_text (rowid, text) VALUES (?1, ?2)", values![rowid, text.as_str()])?;
    }
    Ok(())
}
