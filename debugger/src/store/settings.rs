//! Breakpoints, the global behaviour and registered functions: small, and loaded whole at start.

use rusqlite::{params, OptionalExtension};
use serde_json::Value;

use super::{json_text, parse, storage, Store};
use crate::breakpoints::by_name::{Breakpoint, GlobalBehavior};
use crate::error::Result;

/// What the debugger keeps in memory from the store: the configuration, not the history.
#[derive(Default)]
pub struct Settings {
    pub breakpoints: Vec<(String, Breakpoint)>,
    pub global: Option<GlobalBehavior>,
    pub functions: Vec<(String, Value)>,
}

impl Store {
    pub fn put_breakpoint(&self, name: &str, bp: &Breakpoint) -> Result<()> {
        let data = json_text(bp)?;
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO breakpoints (name, data) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![name, data]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn delete_breakpoint(&self, name: &str) -> Result<()> {
        self.conn.execute("DELETE FROM breakpoints WHERE name = ?1", params![name]).map_err(storage)?;
        Ok(())
    }

    pub fn put_global(&self, global: GlobalBehavior) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES ('global_behavior', ?1)",
                params![global.as_str()],
            )
            .map_err(storage)?;
        Ok(())
    }

    pub fn put_function(&self, name: &str, data: &Value) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO functions (name, data) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![name, data.to_string()]))
            .map_err(storage)?;
        Ok(())
    }

    pub fn settings(&self) -> Result<Settings> {
        let rows = |sql: &str| -> Result<Vec<(String, String)>> {
            let mut stmt = self.conn.prepare(sql).map_err(storage)?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(storage)?;
            rows.collect::<rusqlite::Result<_>>().map_err(storage)
        };
        let mut settings = Settings::default();
        for (name, data) in rows("SELECT name, data FROM breakpoints ORDER BY name")? {
            settings.breakpoints.push((name, parse("breakpoint", &data)?));
        }
        let global: Option<String> = self
            .conn
            .query_row("SELECT value FROM settings WHERE key = 'global_behavior'", [], |r| r.get(0))
            .optional()
            .map_err(storage)?;
        settings.global = global.and_then(|g| GlobalBehavior::parse(&g).ok());
        for (name, data) in rows("SELECT name, data FROM functions ORDER BY name")? {
            settings.functions.push((name, parse("function", &data)?));
        }
        Ok(settings)
    }
}
