//! Breakpoints, the global behaviour and registered functions: small, and loaded whole at start.

use serde_json::Value;

use super::by_name::{Breakpoint, GlobalBehavior};
use crate::error::Result;
use crate::store::{json_text, parse, values, Store};

/// What the debugger keeps in memory from the store: the configuration, not the history.
#[derive(Default)]
pub struct Settings {
    pub breakpoints: Vec<(String, Breakpoint)>,
    pub global: Option<GlobalBehavior>,
    pub functions: Vec<(String, Value)>,
}

impl Store {
    pub fn put_breakpoint(&self, name: &str, bp: &Breakpoint) -> Result<()> {
        self.execute(
            "INSERT INTO breakpoints (name, data) VALUES (?1, ?2)
             ON CONFLICT (name) DO UPDATE SET data = excluded.data",
            values![name, json_text(bp)?],
        )
        .map(drop)
    }

    pub fn delete_breakpoint(&self, name: &str) -> Result<()> {
        self.execute("DELETE FROM breakpoints WHERE name = ?1", values![name]).map(drop)
    }

    pub fn put_global(&self, global: GlobalBehavior) -> Result<()> {
        self.execute(
            "INSERT INTO settings (key, value) VALUES ('global_behavior', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            values![global.as_str()],
        )
        .map(drop)
    }

    pub fn put_function(&self, name: &str, data: &Value) -> Result<()> {
        self.execute(
            "INSERT INTO functions (name, data) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET data = excluded.data",
            values![name, data.to_string()],
        )
        .map(drop)
    }

    pub fn settings(&self) -> Result<Settings> {
        let mut settings = Settings::default();
        for row in self.rows("SELECT name, data FROM breakpoints ORDER BY name", values![])? {
            settings.breakpoints.push((row.text(0)?, parse("breakpoint", &row.text(1)?)?));
        }
        let global = self.row("SELECT value FROM settings WHERE key = 'global_behavior'", values![])?;
        settings.global = global.and_then(|g| GlobalBehavior::parse(&g.text(0).ok()?).ok());
        for row in self.rows("SELECT name, data FROM functions ORDER BY name", values![])? {
            settings.functions.push((row.text(0)?, parse("function", &row.text(1)?)?));
        }
        Ok(settings)
    }
}
