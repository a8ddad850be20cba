//! The tool table: every tool's name, description, input schema and handler, gathered from the
//! modules of each concern, and the one place a call is checked and answered.

use std::sync::{Arc, OnceLock};

use breakroom_debugger::Debugger;
use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{Map, Value};

use super::args::{self, Args, ToolError, ToolResult};
use super::{
    tools_breakpoints, tools_processes, tools_records, tools_repl, tools_runtimes, tools_snapshots, tools_steps,
    tools_time_travel,
};

pub type Handler = fn(Debugger, Args) -> BoxFuture<'static, ToolResult>;

pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
    pub run: Handler,
}

impl ToolSpec {
    pub fn new(name: &'static str, description: &'static str, schema: Value, run: Handler) -> Self {
        ToolSpec { name, description, schema, run }
    }
}

/// Every tool, in the order `tools/list` answers them.
pub fn all() -> &'static [ToolSpec] {
    static TOOLS: OnceLock<Vec<ToolSpec>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let mut tools = tools_breakpoints::tools();
        tools.extend(tools_repl::tools());
        tools.extend(tools_records::tools());
        tools.extend(tools_processes::tools());
        tools.extend(tools_runtimes::tools());
        tools.extend(tools_steps::tools());
        tools.extend(tools_time_travel::tools());
        tools.extend(tools_snapshots::tools());
        tools
    })
}

/// The tools as MCP describes them.
pub fn listed() -> Vec<Tool> {
    all()
        .iter()
        .map(|spec| {
            let schema: JsonObject = spec.schema.as_object().cloned().unwrap_or_default();
            Tool::new(spec.name, spec.description, Arc::new(schema))
        })
        .collect()
}

/// Runs one call: unknown tools and bad arguments come back as tool errors, like the tool's own.
pub async fn call(debugger: &Debugger, name: &str, arguments: Option<Map<String, Value>>) -> CallToolResult {
    let outcome = match all().iter().find(|t| t.name == name) {
        None => Err(ToolError::new("unknown_tool", format!("no tool is named {name:?}")).with("tool", name)),
        Some(spec) => match args::check(&spec.schema, arguments) {
            Ok(args) => (spec.run)(debugger.clone(), args).await,
            Err(e) => Err(e),
        },
    };
    match outcome {
        Ok(done) => {
            let mut result = CallToolResult::structured(done.value);
            result.content = vec![ContentBlock::text(done.text)];
            result
        }
        Err(err) => {
            let mut result = CallToolResult::structured_error(err.to_value());
            result.content = vec![ContentBlock::text(format!("{}: {}", err.code, err.message))];
            result
        }
    }
}

/// A JSON schema of an object with these properties, `required` naming the ones it must have.
pub fn object(properties: Value, required: &[&str]) -> Value {
    serde_json::json!({"type": "object", "properties": properties, "required": required})
}

/// A schema for a tool without arguments.
pub fn no_arguments() -> Value {
    object(serde_json::json!({}), &[])
}

/// "1 paused call", "3 paused calls".
pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
