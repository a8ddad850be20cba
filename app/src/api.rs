//! Server functions: the pages' doors into the debugger. Each one translates a call and its
//! error, nothing more.

use breakroom_debugger::model::{EvalOutcome, PausedCall, ReplSession};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
fn debugger() -> Result<breakroom_debugger::Debugger, ServerFnError> {
    use_context::<breakroom_debugger::Debugger>().ok_or_else(|| ServerFnError::new("debugger missing from context"))
}

#[cfg(feature = "ssr")]
fn failed(err: breakroom_debugger::Error) -> ServerFnError {
    ServerFnError::new(err.to_string())
}

#[server(prefix = "/rpc")]
pub async fn list_paused() -> Result<Vec<PausedCall>, ServerFnError> {
    Ok(debugger()?.paused_calls())
}

#[server(prefix = "/rpc")]
pub async fn start_repl(pause_id: String) -> Result<String, ServerFnError> {
    debugger()?.start_session(&pause_id).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn continue_call(pause_id: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pause::ResumeRequest;
    debugger()?.resume(&pause_id, ResumeRequest::continue_()).map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn get_session(session_id: String) -> Result<Option<ReplSession>, ServerFnError> {
    Ok(debugger()?.session(&session_id))
}

/// Waits for the paused program's answer.
#[server(prefix = "/rpc")]
pub async fn eval_in_session(session_id: String, expr: String) -> Result<EvalOutcome, ServerFnError> {
    debugger()?.eval(&session_id, &expr).await.map_err(failed)
}
