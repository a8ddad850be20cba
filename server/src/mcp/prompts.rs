//! cideldill's two prompts: the state of the debug session, and one paused call in detail.

use breakroom_debugger::Debugger;
use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};
use rmcp::ErrorData as McpError;
use serde_json::{json, Value};

use super::resources;

pub fn list() -> Vec<Prompt> {
    vec![
        Prompt::new("debug-session-start", Some("Context about the current debug session."), None),
        Prompt::new(
            "inspect-paused-call",
            Some("Inspect a specific paused execution."),
            Some(vec![PromptArgument::new("pause_id")
                .with_description("ID of the paused execution")
                .with_required(true)]),
        ),
    ]
}

pub fn get(d: &Debugger, name: &str, arguments: Option<&JsonObject>) -> Result<GetPromptResult, McpError> {
    let payload = match name {
        "debug-session-start" => json!({
            "breakpoints": resources::read(d, resources::BREAKPOINTS)?,
            "functions": resources::read(d, resources::FUNCTIONS)?,
            "recent_calls": resources::read(d, resources::CALL_HISTORY)?,
            "paused": resources::read(d, resources::PAUSED)?,
        }),
        "inspect-paused-call" => {
            let pause_id = arguments
                .and_then(|a| a.get("pause_id"))
                .and_then(Value::as_str)
                .ok_or_else(|| McpError::invalid_params("pause_id is required", None))?;
            let failed = |e: breakroom_debugger::Error| McpError::invalid_params(e.to_string(), None);
            let paused = d
                .pauses()
                .pause(pause_id)
                .map_err(failed)?
                .ok_or_else(|| McpError::invalid_params(format!("no pause {pause_id}"), None))?;
            json!({"pause_id": pause_id, "paused": paused, "repl_sessions": d.sessions().sessions_for_pause(pause_id).map_err(failed)?})
        }
        other => return Err(McpError::invalid_params(format!("no prompt {other:?}"), None)),
    };
    let text = serde_json::to_string_pretty(&payload).unwrap_or_default();
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]))
}
