//! The tool table: every tool's name, description, input schema and handler, gathered from the
//! modules of each concern, and the one place a call is checked and answered.

use std::sync::{Arc, OnceLock};

use breakroom_debugger::audit::{AuditRecord, Outcome};
use breakroom_debugger::users::{Identity, Need};
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
    /// What the caller needs to run it (issue 48): the `/mcp` door lets people through, the
    /// tool decides which of them.
    pub need: Need,
    pub description: &'static str,
    pub schema: Value,
    pub run: Handler,
}

impl ToolSpec {
    pub fn new(name: &'static str, need: Need, description: &'static str, schema: Value, run: Handler) -> Self {
        ToolSpec { name, need, description, schema, run }
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

/// Runs one call for `caller`: unknown tools, a role too low and bad arguments come back as tool
/// errors, like the tool's own. Every call of a tool that changes something is audited, and
/// every refusal (door `mcp`, the tool's name as the action, its arguments as what was given).
pub async fn call(
    debugger: &Debugger,
    caller: Option<&crate::access::Caller>,
    name: &str,
    arguments: Option<Map<String, Value>>,
) -> CallToolResult {
    let spec = all().iter().find(|t| t.name == name);
    let owner = Identity::owner();
    let who = caller.map_or(&owner, |c| &c.identity);
    let detail = arguments.clone().map_or(Value::Null, Value::Object);
    let allowed = spec.map(|spec| spec.need.check(who));
    let outcome = match (spec, allowed) {
        (None, _) | (_, None) => {
            Err(ToolError::new("unknown_tool", format!("no tool is named {name:?}")).with("tool", name))
        }
        (Some(_), Some(Err(why))) => Err(ToolError::new("not_allowed", why).with("tool", name)),
        (Some(spec), Some(Ok(()))) => match args::check(&spec.schema, arguments) {
            Ok(args) => (spec.run)(debugger.clone(), args).await,
            Err(e) => Err(e),
        },
    };
    let refused = matches!(&outcome, Err(e) if e.code == "not_allowed");
    if refused || spec.is_some_and(|s| s.need != Need::Viewer) {
        debugger.audit().record(AuditRecord {
            id: 0,
            time: breakroom_debugger::ids::now(),
            actor: who.name.clone(),
            role: who.holder.label().into(),
            door: breakroom_debugger::audit::Door::Mcp,
            remote: caller.map_or("unknown".into(), |c| c.remote.clone()),
            action: format!("mcp {name}"),
            target: ["pause_id", "session_id", "process_id", "id", "workspace"]
                .iter()
                .filter_map(|k| detail.get(*k).and_then(Value::as_str).map(|v| (k.to_string(), v.to_string())))
                .collect(),
            detail: detail.clone(),
            outcome: match &outcome {
                Ok(_) => Outcome::Done,
                Err(_) if refused => Outcome::Refused,
                Err(_) => Outcome::Failed,
            },
            status: 0,
        });
    }
    match outcome {
        Ok(done) => {
            let mut result = CallToolResult::structured(done.value);
            result.content = vec![ContentBlock::text(done.text)];
            result.content.extend(done.images.into_iter().map(|(mime, data)| ContentBlock::image(data, mime)));
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
