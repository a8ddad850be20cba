//! Server functions: the pages' doors into the debugger. Each one translates a call and its
//! error, nothing more.

use breakroom_debugger::model::{
    BreakpointsView, CallStackView, CallTreeNode, EvalOutcome, PausedCall, ProcessSummary, ReplSession, SessionPage,
    SessionSummary, StoredValue,
};
use leptos::prelude::*;
use leptos::server::codee;

/// How a page's server data travels from the server-rendered HTML into the hydrating page: JSON,
/// decoded with the same `serde_json::from_slice` the server functions' replies use. Leptos's
/// default codec decodes with `from_str`, which compiles every response type's deserializer a
/// second time into the wasm (about 90 KB).
pub struct ServerJson;

impl<T: serde::Serialize> codee::Encoder<T> for ServerJson {
    type Error = serde_json::Error;
    type Encoded = String;

    fn encode(value: &T) -> Result<String, serde_json::Error> {
        serde_json::to_string(value)
    }
}

impl<T: serde::de::DeserializeOwned> codee::Decoder<T> for ServerJson {
    type Error = serde_json::Error;
    type Encoded = str;

    fn decode(encoded: &str) -> Result<T, serde_json::Error> {
        serde_json::from_slice(encoded.as_bytes())
    }
}

/// A page's data from a server function, loaded during server rendering and refetched whenever
/// `source` changes (see [`ServerJson`] for why not `Resource::new`).
pub fn server_resource<T, S, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
) -> Resource<T, ServerJson>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    S: Clone + PartialEq + Send + Sync + 'static,
    Fut: std::future::Future<Output = T> + Send + 'static,
{
    Resource::new_with_options(source, fetcher, false)
}

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

/// Skips the call, returning `value` (JSON; anything that is not JSON is taken as a string).
#[server(prefix = "/rpc")]
pub async fn skip_call(pause_id: String, value: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pause::ResumeRequest;
    let fake_result = serde_json::from_str(value.trim()).unwrap_or(serde_json::Value::String(value));
    let request = ResumeRequest { action: Some("skip".into()), fake_result: Some(fake_result), ..Default::default() };
    debugger()?.resume(&pause_id, request).map(|_| ()).map_err(failed)
}

/// Makes the call raise `exception_type(message)` instead of running.
#[server(prefix = "/rpc")]
pub async fn raise_in_call(pause_id: String, exception_type: String, message: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pause::ResumeRequest;
    let exception_type = Some(exception_type.trim().to_string()).filter(|t| !t.is_empty());
    let request = ResumeRequest {
        action: Some("raise".into()),
        exception_type: exception_type.or(Some("Exception".into())),
        exception_message: Some(message),
        ..Default::default()
    };
    debugger()?.resume(&pause_id, request).map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn get_session(session_id: String) -> Result<Option<ReplSession>, ServerFnError> {
    debugger()?.session(&session_id).map_err(failed)
}

/// Waits for the paused program's answer.
#[server(prefix = "/rpc")]
pub async fn eval_in_session(session_id: String, expr: String) -> Result<EvalOutcome, ServerFnError> {
    debugger()?.eval(&session_id, &expr).await.map_err(failed)
}

/// One page of `/repls`. `from` and `to` are `YYYY-MM-DD` dates (UTC, the whole `to` day
/// included; anything else means no bound); `status` is all, active or closed.
#[server(prefix = "/rpc")]
pub async fn list_sessions(
    search: String,
    status: String,
    from: String,
    to: String,
    page: usize,
) -> Result<SessionPage<SessionSummary>, ServerFnError> {
    use crate::format::date_to_epoch;
    use breakroom_debugger::model::{SessionQuery, SessionStatus};
    let search = Some(search.trim().to_string()).filter(|s| !s.is_empty());
    let status = SessionStatus::parse(status.trim()).unwrap_or_default();
    let from = date_to_epoch(&from);
    let to = date_to_epoch(&to).map(|t| t + 86_399.999);
    let query = SessionQuery { search, status, from, to, page, per_page: 50 };
    debugger()?.session_summaries(&query).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn get_call_stack(pause_id: String) -> Result<Option<CallStackView>, ServerFnError> {
    debugger()?.call_stack(&pause_id).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn list_processes() -> Result<Vec<ProcessSummary>, ServerFnError> {
    debugger()?.processes().map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn get_call_tree(process_key: String) -> Result<Option<Vec<CallTreeNode>>, ServerFnError> {
    debugger()?.call_tree(&process_key).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn get_stored_value(cid: String) -> Result<Option<StoredValue>, ServerFnError> {
    Ok(debugger()?.stored_value(&cid).ok())
}

#[server(prefix = "/rpc")]
pub async fn get_breakpoints() -> Result<BreakpointsView, ServerFnError> {
    Ok(debugger()?.breakpoints_view())
}

#[server(prefix = "/rpc")]
pub async fn add_breakpoint(function_name: String) -> Result<(), ServerFnError> {
    debugger()?.add_breakpoint(function_name.trim(), None, None).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn remove_breakpoint(function_name: String) -> Result<(), ServerFnError> {
    debugger()?.remove_breakpoint(&function_name).map_err(failed)
}

/// `which` is "before" or "after".
#[server(prefix = "/rpc")]
pub async fn set_breakpoint_behavior(
    function_name: String,
    which: String,
    behavior: String,
) -> Result<(), ServerFnError> {
    let debugger = debugger()?;
    match which.as_str() {
        "after" => debugger.set_after_behavior(&function_name, &behavior).map(|_| ()),
        _ => debugger.set_behavior(&function_name, &behavior).map(|_| ()),
    }
    .map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn set_replacement(function_name: String, replacement: String) -> Result<(), ServerFnError> {
    debugger()?.set_replacement(&function_name, &replacement).map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc")]
pub async fn set_global_behavior(behavior: String) -> Result<(), ServerFnError> {
    debugger()?.set_global_behavior(&behavior).map(|_| ()).map_err(failed)
}
