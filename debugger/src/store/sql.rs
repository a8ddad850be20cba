//! The one door to the database, whichever it is: embedded SQLite (the default) or a shared
//! PostgreSQL (`--database-url`, issue 35). The record stores write their SQL once, in the subset
//! both engines speak (`?N` parameters, `ON CONFLICT`, a `rowid` column on every table that orders
//! by it); where the dialects part (schema, search, JSON paths) they ask [`Db::dialect`].

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;

use super::postgres::PgConnection;
use crate::error::{Error, Result};

/// A parameter or a column, in the types the stores use.
#[derive(Clone, Debug, PartialEq)]
pub enum SqlValue {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

macro_rules! from_value {
    ($($t:ty => |$v:ident| $e:expr),* $(,)?) => {
        $(impl From<$t> for SqlValue {
            fn from($v: $t) -> Self { $e }
        })*
    };
}

from_value! {
    i64 => |v| SqlValue::Int(v),
    i32 => |v| SqlValue::Int(v.into()),
    u32 => |v| SqlValue::Int(v.into()),
    // Counts and positions: beyond i64 only by a bug; saturate rather than wrap.
    u64 => |v| SqlValue::Int(i64::try_from(v).unwrap_or(i64::MAX)),
    usize => |v| SqlValue::Int(i64::try_from(v).unwrap_or(i64::MAX)),
    bool => |v| SqlValue::Int(v.into()),
    f64 => |v| SqlValue::Real(v),
    String => |v| SqlValue::Text(v),
    &str => |v| SqlValue::Text(v.to_string()),
    &String => |v| SqlValue::Text(v.clone()),
    Vec<u8> => |v| SqlValue::Blob(v),
    &Vec<u8> => |v| SqlValue::Blob(v.clone()),
    &[u8] => |v| SqlValue::Blob(v.to_vec()),
}

impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(SqlValue::Null, Into::into)
    }
}

impl<T: Clone + Into<SqlValue>> From<&Option<T>> for SqlValue {
    fn from(v: &Option<T>) -> Self {
        v.clone().map_or(SqlValue::Null, Into::into)
    }
}

/// `values![a, b]`: the parameters of one statement.
macro_rules! values {
    ($($v:expr),* $(,)?) => { &[$($crate::store::sql::SqlValue::from($v)),*][..] };
}
pub(crate) use values;

/// One result row.
#[derive(Debug)]
pub struct Row(pub(crate) Vec<SqlValue>);

impl Row {
    fn at(&self, i: usize) -> Result<&SqlValue> {
        self.0.get(i).ok_or_else(|| Error::storage(format!("a query returned no column {i}")))
    }

    fn mismatch(&self, i: usize, wanted: &str) -> Error {
        Error::storage(format!("column {i} is not {wanted}: {:?}", self.0.get(i)))
    }

    pub fn int(&self, i: usize) -> Result<i64> {
        match self.at(i)? {
            SqlValue::Int(v) => Ok(*v),
            _ => Err(self.mismatch(i, "an integer")),
        }
    }

    pub fn real(&self, i: usize) -> Result<f64> {
        match self.at(i)? {
            SqlValue::Real(v) => Ok(*v),
            SqlValue::Int(v) => Ok(*v as f64),
            _ => Err(self.mismatch(i, "a number")),
        }
    }

    pub fn text(&self, i: usize) -> Result<String> {
        match self.at(i)? {
            SqlValue::Text(v) => Ok(v.clone()),
            _ => Err(self.mismatch(i, "text")),
        }
    }

    pub fn opt_text(&self, i: usize) -> Result<Option<String>> {
        match self.at(i)? {
            SqlValue::Null => Ok(None),
            _ => self.text(i).map(Some),
        }
    }

    pub fn blob(&self, i: usize) -> Result<Vec<u8>> {
        match self.at(i)? {
            SqlValue::Blob(v) => Ok(v.clone()),
            _ => Err(self.mismatch(i, "bytes")),
        }
    }

    /// SQLite answers a truth value as an integer, PostgreSQL as a boolean (read as 0 or 1).
    pub fn bool(&self, i: usize) -> Result<bool> {
        self.int(i).map(|v| v != 0)
    }

    pub fn count(&self, i: usize) -> Result<usize> {
        self.int(i).map(|v| usize::try_from(v).unwrap_or(0))
    }
}

/// Which engine: for the few statements the two spell differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A connection to either engine.
pub enum Db {
    Sqlite(Connection),
    Postgres(PgConnection),
}

impl Db {
    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite(_) => Dialect::Sqlite,
            Db::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Runs one statement; returns how many rows it changed.
    pub fn execute(&self, sql: &str, values: &[SqlValue]) -> Result<u64> {
        match self {
            Db::Sqlite(conn) => conn
                .prepare_cached(sql)
                .and_then(|mut s| s.execute(rusqlite::params_from_iter(values)))
                .map(|n| n as u64)
                .map_err(super::storage),
            Db::Postgres(pg) => pg.execute(sql, values),
        }
    }

    /// Every row of one statement.
    pub fn query(&self, sql: &str, values: &[SqlValue]) -> Result<Vec<Row>> {
        match self {
            Db::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql).map_err(super::storage)?;
                let width = stmt.column_count();
                let mut rows = stmt.query(rusqlite::params_from_iter(values)).map_err(super::storage)?;
                let mut all = vec![];
                while let Some(row) = rows.next().map_err(super::storage)? {
                    let mut columns = Vec::with_capacity(width);
                    for i in 0..width {
                        columns.push(from_sqlite(row.get_ref(i).map_err(super::storage)?));
                    }
                    all.push(Row(columns));
                }
                Ok(all)
            }
            Db::Postgres(pg) => pg.query(sql, values),
        }
    }

    /// Every row, the statement planned for these very values (a search whose pattern decides
    /// whether an index helps). SQLite plans every statement that way already.
    pub fn query_planned_for(&self, sql: &str, values: &[SqlValue]) -> Result<Vec<Row>> {
        match self {
            Db::Sqlite(_) => self.query(sql, values),
            Db::Postgres(pg) => pg.query_planned_for(sql, values),
        }
    }

    /// The first row, if any.
    pub fn query_first(&self, sql: &str, values: &[SqlValue]) -> Result<Option<Row>> {
        Ok(self.query(sql, values)?.into_iter().next())
    }

    /// Runs an `INSERT` into a table whose key column `id_column` numbers its rows, and returns
    /// the number given to the new row.
    pub fn insert_numbered(&self, sql: &str, values: &[SqlValue], id_column: &str) -> Result<i64> {
        match self {
            Db::Sqlite(conn) => {
                self.execute(sql, values)?;
                Ok(conn.last_insert_rowid())
            }
            Db::Postgres(_) => {
                let returning = format!("{sql} RETURNING {id_column}");
                self.query_first(&returning, values)?.ok_or_else(|| Error::storage("an insert returned no row"))?.int(0)
            }
        }
    }

    /// Statements without parameters, separated by `;` (schema steps, transactions).
    pub fn batch(&self, sql: &str) -> Result<()> {
        match self {
            Db::Sqlite(conn) => conn.execute_batch(sql).map_err(super::storage),
            Db::Postgres(pg) => pg.batch(sql),
        }
    }
}

fn from_sqlite(value: ValueRef<'_>) -> SqlValue {
    match value {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(v) => SqlValue::Int(v),
        ValueRef::Real(v) => SqlValue::Real(v),
        ValueRef::Text(v) => SqlValue::Text(String::from_utf8_lossy(v).into_owned()),
        ValueRef::Blob(v) => SqlValue::Blob(v.to_vec()),
    }
}

impl rusqlite::ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            SqlValue::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            SqlValue::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            SqlValue::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            SqlValue::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            SqlValue::Blob(v) => ToSqlOutput::Borrowed(ValueRef::Blob(v)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_sqlite_in_their_types() {
        let db = Db::Sqlite(Connection::open_in_memory().unwrap());
        db.batch("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)").unwrap();
        let none: Option<&str> = None;
        db.execute("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)", values![7i64, 1.5, "x", vec![1u8, 2], none]).unwrap();
        let row = db.query_first("SELECT i, r, s, b, n, i IS NULL FROM t", values![]).unwrap().unwrap();
        assert_eq!((row.int(0).unwrap(), row.real(1).unwrap()), (7, 1.5));
        assert_eq!((row.text(2).unwrap(), row.blob(3).unwrap()), ("x".to_string(), vec![1, 2]));
        assert_eq!((row.opt_text(4).unwrap(), row.bool(5).unwrap()), (None, false));
        assert!(row.text(0).is_err(), "an integer is not read as text");
    }
}
