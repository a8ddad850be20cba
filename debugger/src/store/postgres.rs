//! A PostgreSQL connection for the store (`--database-url`, issue 35).
//!
//! rust-postgres' synchronous client drives a small runtime of its own, which must not run on a
//! thread of the server's runtime; so each connection lives on a thread of its own and the
//! store's synchronous calls hand it their statements over a channel (about 20 µs next to the
//! round trip). Statements are prepared once per connection and kept; a connection that broke
//! (the database restarted) is opened again on the next statement.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::sync::mpsc;

use bytes::BytesMut;
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};
use postgres::{Client, NoTls, Statement};

use super::sql::{Row, SqlValue};
use crate::error::{Error, Result};

type Job = Box<dyn FnOnce(&mut Worker) + Send>;

pub struct PgConnection {
    jobs: mpsc::Sender<Job>,
}

struct Worker {
    url: String,
    client: Option<Client>,
    prepared: HashMap<String, Statement>,
}

/// What a URL names, without its password: for messages.
pub fn display_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            let user = credentials.split(':').next().unwrap_or("");
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

fn pg_error(context: &str, e: postgres::Error) -> Error {
    // The server's own message (a constraint, a syntax error) says more than the wrapper's.
    match e.as_db_error() {
        Some(db) => Error::storage(format!("{context}PostgreSQL: {}", db.message())),
        None => Error::storage_caused(context.trim_end_matches(": ").to_string(), e),
    }
}

impl Worker {
    fn client(&mut self) -> Result<&mut Client> {
        if self.client.as_ref().is_none_or(Client::is_closed) {
            self.prepared.clear();
            let client = Client::connect(&self.url, NoTls)
                .map_err(|e| pg_error(&format!("cannot connect to {}: ", display_url(&self.url)), e))?;
            self.client = Some(client);
        }
        self.client.as_mut().ok_or_else(|| Error::storage("no PostgreSQL connection"))
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let translated = numbered_parameters(sql);
        let statement = self.client()?.prepare(&translated).map_err(|e| pg_error("", e))?;
        self.prepared.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    fn execute(&mut self, sql: &str, values: &[SqlValue]) -> Result<u64> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
        self.client()?.execute(&statement, &params).map_err(|e| pg_error("", e))
    }

    fn query(&mut self, sql: &str, values: &[SqlValue]) -> Result<Vec<Row>> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
        let rows = self.client()?.query(&statement, &params).map_err(|e| pg_error("", e))?;
        rows.iter().map(row).collect()
    }

    /// Prepared and planned for these values alone: a kept statement's generic plan cannot use
    /// the trigram index for `LIKE ?` (the pattern is unknown when it is planned).
    fn query_planned_for(&mut self, sql: &str, values: &[SqlValue]) -> Result<Vec<Row>> {
        let translated = numbered_parameters(sql);
        let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
        let rows = self.client()?.query(translated.as_str(), &params).map_err(|e| pg_error("", e))?;
        rows.iter().map(row).collect()
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        self.client()?.batch_execute(sql).map_err(|e| pg_error("", e))
    }
}

impl PgConnection {
    /// Connects (on the connection's own thread) and fails here if the database cannot be reached.
    pub fn connect(url: &str) -> Result<PgConnection> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let mut worker = Worker { url: url.to_string(), client: None, prepared: HashMap::new() };
        let (ready_tx, ready) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("breakroom-postgres".into())
            .spawn(move || {
                let _ = ready_tx.send(worker.client().map(drop));
                // Ends when the connection's owner drops its sender.
                for job in inbox {
                    job(&mut worker);
                }
            })
            .map_err(|e| Error::storage_caused("cannot start the PostgreSQL connection's thread", e))?;
        ready.recv().map_err(|_| Error::storage("the PostgreSQL connection's thread ended"))??;
        Ok(PgConnection { jobs })
    }

    fn run<T: Send + 'static>(&self, job: impl FnOnce(&mut Worker) -> Result<T> + Send + 'static) -> Result<T> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.jobs
            .send(Box::new(move |worker| {
                let _ = reply.send(job(worker));
            }))
            .map_err(|_| Error::storage("the PostgreSQL connection's thread ended"))?;
        answer.recv().map_err(|_| Error::storage("the PostgreSQL connection's thread ended"))?
    }

    pub fn execute(&self, sql: &str, values: &[SqlValue]) -> Result<u64> {
        let (sql, values) = (sql.to_string(), values.to_vec());
        self.run(move |w| w.execute(&sql, &values))
    }

    pub fn query(&self, sql: &str, values: &[SqlValue]) -> Result<Vec<Row>> {
        let (sql, values) = (sql.to_string(), values.to_vec());
        self.run(move |w| w.query(&sql, &values))
    }

    /// [`PgConnection::query`], planned for these values (searches).
    pub fn query_planned_for(&self, sql: &str, values: &[SqlValue]) -> Result<Vec<Row>> {
        let (sql, values) = (sql.to_string(), values.to_vec());
        self.run(move |w| w.query_planned_for(&sql, &values))
    }

    pub fn query_first(&self, sql: &str, values: &[SqlValue]) -> Result<Option<Row>> {
        Ok(self.query(sql, values)?.into_iter().next())
    }

    pub fn batch(&self, sql: &str) -> Result<()> {
        let sql = sql.to_string();
        self.run(move |w| w.batch(&sql))
    }
}

/// SQLite's `?1` parameters as PostgreSQL's `$1` (the stores' SQL has no `?` elsewhere).
fn numbered_parameters(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

fn row(row: &postgres::Row) -> Result<Row> {
    let mut values = Vec::with_capacity(row.len());
    for (i, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let failed = |e: postgres::Error| pg_error(&format!("column {}: ", column.name()), e);
        let value = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i).map_err(failed)?.map(SqlValue::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i).map_err(failed)?.map(|v| SqlValue::Int(v.into()))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(i).map_err(failed)?.map(|v| SqlValue::Int(v.into()))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i).map_err(failed)?.map(|v| SqlValue::Int(v.into()))
        } else if *ty == Type::FLOAT8 {
            row.try_get::<_, Option<f64>>(i).map_err(failed)?.map(SqlValue::Real)
        } else if *ty == Type::FLOAT4 {
            row.try_get::<_, Option<f32>>(i).map_err(failed)?.map(|v| SqlValue::Real(v.into()))
        } else if *ty == Type::BYTEA {
            row.try_get::<_, Option<Vec<u8>>>(i).map_err(failed)?.map(SqlValue::Blob)
        } else {
            row.try_get::<_, Option<String>>(i).map_err(failed)?.map(SqlValue::Text)
        };
        values.push(value.unwrap_or(SqlValue::Null));
    }
    Ok(Row(values))
}

/// One value type for every parameter: converted to the type PostgreSQL inferred for it, as
/// SQLite would convert it.
impl ToSql for SqlValue {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> std::result::Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match self {
            SqlValue::Null => Ok(IsNull::Yes),
            SqlValue::Int(v) if *ty == Type::INT8 => v.to_sql(ty, out),
            SqlValue::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            SqlValue::Int(v) if *ty == Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
            SqlValue::Int(v) if *ty == Type::FLOAT8 => (*v as f64).to_sql(ty, out),
            SqlValue::Int(v) if *ty == Type::BOOL => (*v != 0).to_sql(ty, out),
            SqlValue::Real(v) if *ty == Type::FLOAT8 => v.to_sql(ty, out),
            SqlValue::Real(v) if *ty == Type::FLOAT4 => (*v as f32).to_sql(ty, out),
            SqlValue::Int(v) => v.to_string().as_str().to_sql(ty, out),
            SqlValue::Real(v) => v.to_string().as_str().to_sql(ty, out),
            // PostgreSQL's text cannot hold NUL: it is kept as the symbol for it, the same way in
            // what is stored and in what is searched for. (JSON columns escape it already.)
            SqlValue::Text(v) if v.contains('\0') => v.replace('\0', "\u{2400}").as_str().to_sql(ty, out),
            SqlValue::Text(v) => v.as_str().to_sql(ty, out),
            SqlValue::Blob(v) if *ty == Type::BYTEA => v.as_slice().to_sql(ty, out),
            SqlValue::Blob(_) => Err(format!("bytes cannot be sent as {ty}").into()),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_renumbered_in_postgres_style() {
        assert_eq!(numbered_parameters("a = ?1 AND (?2 IS NULL OR b = ?12)"), "a = $1 AND ($2 IS NULL OR b = $12)");
        assert_eq!(numbered_parameters("json '$.x'"), "json '$.x'");
    }

    #[test]
    fn urls_are_shown_without_their_password() {
        assert_eq!(display_url("postgres://u:secret@db:5432/b"), "postgres://u@db:5432/b");
        assert_eq!(display_url("postgres://db/b"), "postgres://db/b");
    }
}
