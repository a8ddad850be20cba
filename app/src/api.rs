//! Server functions: the pages' doors into the debugger. Each one translates a call and its
//! error, nothing more. How their replies travel is `crate::encoding`.

use leptos::prelude::*;

#[cfg(feature = "ssr")]
pub(crate) use crate::access::{debugger, Need};
use crate::rpc::{JsonRpc, TextRpc};
use crate::transcript::{ShownEntry, TranscriptPage};

#[cfg(feature = "ssr")]
pub(crate) fn failed(err: breakroom_debugger::Error) -> ServerFnError {
    // The same status the REST API gives this error: a refused input is the caller's 4xx, not
    // the server's 500 (which the log reports as a failure of ours).
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(
            http::StatusCode::from_u16(err.kind().http_status()).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR),
        );
    }
    ServerFnError::new(err.to_string())
}

// Pages' content comes as HTML rendered by the server (see `crate::render`): the wasm needs no
// decoder for the data and no view code for the markup. `Option` for the pages with a 404.

/// The paused calls, as `/` shows them.
#[server(prefix = "/rpc", endpoint = "paused_html", protocol = TextRpc)]
pub async fn paused_html() -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let travel = |pause_id: &str| card_travel(&debugger, pause_id);
    Ok(Some(crate::render::paused_calls(
        &debugger.pauses().paused_calls(),
        &|key| debugger.processes().process_id_for_key(key),
        &travel,
    )))
}

/// One paused call's card, for a pause or a session event (issue 45): `/` puts it in place
/// alone. None when the call is not paused (any more).
#[server(prefix = "/rpc", endpoint = "paused_card_html", protocol = TextRpc)]
pub async fn paused_card_html(pause_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let travel = |pause_id: &str| card_travel(&debugger, pause_id);
    Ok(crate::render::paused::paused_card_in(
        &debugger.pauses().paused_calls(),
        &pause_id,
        &|key| debugger.processes().process_id_for_key(key),
        &travel,
    ))
}

/// A paused card's time-travel line (Step back, or why not).
#[cfg(feature = "ssr")]
fn card_travel(debugger: &breakroom_debugger::Debugger, pause_id: &str) -> maud::Markup {
    crate::render::time_travel::pause_controls(pause_id, debugger.checkpoints().pause_travel(pause_id).as_ref(), None)
}

/// A JSON string, unlike the others: scripts and tests call it for the id.
#[server(prefix = "/rpc", endpoint = "start_repl", protocol = JsonRpc)]
pub async fn start_repl(pause_id: String) -> Result<String, ServerFnError> {
    debugger(Need::Debugger)?.off_workers(move |d| d.sessions().start_session(&pause_id)).await.map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "continue_call", protocol = TextRpc)]
pub async fn continue_call(pause_id: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pauses::ResumeRequest;
    let resume =
        move |d: &breakroom_debugger::Debugger| d.pauses().continue_pause(&pause_id, ResumeRequest::continue_());
    debugger(Need::Debugger)?.off_workers(resume).await.map(|_| ()).map_err(failed)
}

/// Skips the call, returning `value` (JSON; anything that is not JSON is taken as a string).
#[server(prefix = "/rpc", endpoint = "skip_call", protocol = TextRpc)]
pub async fn skip_call(pause_id: String, value: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pauses::{CallValue, ResumeKind, ResumeRequest};
    let fake_result = serde_json::from_str(value.trim()).unwrap_or(serde_json::Value::String(value));
    let request = ResumeRequest {
        action: Some(ResumeKind::Skip),
        fake_result: Some(CallValue(fake_result)),
        ..Default::default()
    };
    let resume = move |d: &breakroom_debugger::Debugger| d.pauses().continue_pause(&pause_id, request);
    debugger(Need::Debugger)?.off_workers(resume).await.map(|_| ()).map_err(failed)
}

/// Makes the call raise `exception_type(message)` instead of running.
#[server(prefix = "/rpc", endpoint = "raise_in_call", protocol = TextRpc)]
pub async fn raise_in_call(pause_id: String, exception_type: String, message: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pauses::{ResumeKind, ResumeRequest};
    let exception_type = Some(exception_type.trim().to_string()).filter(|t| !t.is_empty());
    let request = ResumeRequest {
        action: Some(ResumeKind::Raise),
        exception_type: exception_type.or(Some("Exception".into())),
        exception_message: Some(message),
        ..Default::default()
    };
    let resume = move |d: &breakroom_debugger::Debugger| d.pauses().continue_pause(&pause_id, request);
    debugger(Need::Debugger)?.off_workers(resume).await.map(|_| ()).map_err(failed)
}

/// Starts the HTML of an active session's page: the page adds the input box below it.
pub const ACTIVE_SESSION: &str = r#"<span hidden class="session-active"></span>"#;

/// Where a REPL session's HTML leaves room for its transcript, which the page renders itself.
pub const TRANSCRIPT_SLOT: &str = "<!--transcript-->";

/// Ends the part of a REPL session's HTML that goes in the page's sidebar (its stack), which
/// comes first.
pub const SIDEBAR_SLOT: &str = "<!--sidebar-->";

/// A REPL session's page above the input box (see `crate::render::repl_session`).
#[server(prefix = "/rpc", endpoint = "repl_page", protocol = TextRpc)]
pub async fn repl_page(session_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let Some(session) = debugger.sessions().session(&session_id).map_err(failed)? else { return Ok(None) };
    let mut travel = debugger.checkpoints().pause_travel(&session.pause_id).filter(|_| session.is_active());
    // With frames, Step back is on the debug toolbar; the header keeps a refusal's reason.
    let has_frames = debugger.steps().debug_state(&session_id).map_err(failed)?.is_some_and(|s| !s.frames.is_empty());
    let step_back = travel.as_mut().filter(|_| has_frames).and_then(|t| t.checkpoint_before.take());
    let (debug, stack) = crate::debug_api::debug_markup(&debugger, &session_id, step_back.as_deref())?;
    let tasks = match session.is_active() {
        true => crate::debug_api::tasks_markup(&debugger, &session.pause_id).await,
        false => maud::html! {},
    };
    let stack = maud::html! { (stack) (tasks) };
    let travel = crate::render::time_travel::pause_controls(&session.pause_id, travel.as_ref(), Some(&session_id));
    Ok(Some(crate::render::repl_session(&session, travel, debug, stack)))
}

/// Waits for the paused program's answer: the new entry, which the page appends where it is
/// (other viewers get it from the live stream).
#[server(prefix = "/rpc", endpoint = "eval_in_session", protocol = TextRpc)]
pub async fn eval_in_session(session_id: String, expr: String) -> Result<ShownEntry, ServerFnError> {
    let outcome = debugger(Need::Debugger)?.sessions().eval(&session_id, &expr).await.map_err(failed)?;
    let entry = outcome.entry(&expr).ok_or_else(|| ServerFnError::new("the answer was not recorded"))?;
    Ok(crate::transcript::shown(&entry, &session_id))
}

/// A session's transcript as its page opens it: the newest [`crate::transcript::PAGE_ENTRIES`]
/// entries (HTML, `crate::render::repl_transcript`); "" when there is no such session (the page's
/// header says so).
#[server(prefix = "/rpc", endpoint = "repl_transcript", protocol = TextRpc)]
pub async fn repl_transcript(session_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let Some(session) = debugger.sessions().session(&session_id).map_err(failed)? else {
        return Ok(Some(String::new()));
    };
    Ok(Some(crate::render::repl_transcript(&session)))
}

/// Entries `start..end` of a session's transcript (clamped to it; at most [`MAX_ENTRIES`]): the
/// earlier ones a reader asks for, or those a page missed while its live stream was away.
#[server(prefix = "/rpc", endpoint = "repl_entries", protocol = TextRpc)]
pub async fn repl_entries(
    session_id: String,
    start: usize,
    end: usize,
) -> Result<Option<TranscriptPage>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    entries_of(&debugger, &session_id, start, end.min(start.saturating_add(MAX_ENTRIES)))
}

/// The most entries one `repl_entries` answers with.
pub const MAX_ENTRIES: usize = 10_000;

#[cfg(feature = "ssr")]
fn entries_of(
    debugger: &breakroom_debugger::Debugger,
    session_id: &str,
    start: usize,
    end: usize,
) -> Result<Option<TranscriptPage>, ServerFnError> {
    let Some(session) = debugger.sessions().session(session_id).map_err(failed)? else { return Ok(None) };
    let total = session.transcript.len();
    let (start, end) = (start.min(total), end.min(total).max(start.min(total)));
    Ok(Some(TranscriptPage {
        entries: session.transcript[start..end].iter().map(|e| crate::transcript::shown(e, session_id)).collect(),
        first_index: start,
        total,
        language: session.language,
        started_ms: crate::transcript::millis(session.started_at),
    }))
}

/// `/repls`: the filter form and one page of sessions. `from` and `to` are `YYYY-MM-DD` dates
/// (UTC, the whole `to` day included; anything else means no bound); `status` is all, active or
/// closed.
#[server(prefix = "/rpc", endpoint = "sessions_html", protocol = TextRpc)]
pub async fn sessions_html(
    search: String,
    status: String,
    from: String,
    to: String,
    page: usize,
) -> Result<Option<String>, ServerFnError> {
    use crate::format::date_to_epoch;
    use breakroom_debugger::model::{SessionQuery, SessionStatus};
    let filters = crate::render::Filters { search, status, from, to, page };
    let query = SessionQuery {
        search: Some(filters.search.trim().to_string()).filter(|s| !s.is_empty()),
        status: SessionStatus::parse(filters.status.trim()).unwrap_or_default(),
        from: date_to_epoch(&filters.from),
        to: date_to_epoch(&filters.to).map(|t| t + 86_399.999),
        page,
        per_page: 50,
    };
    Ok(Some(crate::render::sessions(
        &debugger(Need::Viewer)?.sessions().session_summaries(&query).map_err(failed)?,
        &filters,
    )))
}

/// One session's row of `/repls` (`crate::render::repls::session_row`), read alone when the
/// session closes; None for an unknown session.
#[server(prefix = "/rpc", endpoint = "session_row", protocol = TextRpc)]
pub async fn session_row(session_id: String) -> Result<Option<String>, ServerFnError> {
    let summary = debugger(Need::Viewer)?.sessions().session_summary(&session_id).map_err(failed)?;
    Ok(summary.map(|s| crate::render::repls::session_row(&s).into_string()))
}

/// `/callstack/{pause_id}`'s header and sessions as HTML (see [`crate::render`]); None for an
/// unknown pause.
#[server(prefix = "/rpc", endpoint = "call_stack_html", protocol = TextRpc)]
pub async fn call_stack_html(pause_id: String) -> Result<Option<String>, ServerFnError> {
    let stack = debugger(Need::Viewer)?.pauses().call_stack(&pause_id).map_err(failed)?;
    Ok(stack.map(|view| crate::render::call_stack_head(&view)))
}

/// `/callstack/{pause_id}`'s frames as HTML, their lines with a line breakpoint marked; empty for
/// an unknown pause (the page's other part says Not found).
#[server(prefix = "/rpc", endpoint = "call_stack_frames_html", protocol = TextRpc)]
pub async fn call_stack_frames_html(pause_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let breakpoints = debugger.breakpoints().breakpoint_records();
    let stack = debugger.pauses().call_stack(&pause_id).map_err(failed)?;
    Ok(Some(stack.map(|view| crate::render::call_stack_frames(&view, &breakpoints)).unwrap_or_default()))
}

#[server(prefix = "/rpc", endpoint = "processes_html", protocol = TextRpc)]
pub async fn processes_html() -> Result<Option<String>, ServerFnError> {
    Ok(Some(crate::render::processes(&debugger(Need::Viewer)?.pauses().process_summaries().map_err(failed)?)))
}

/// One process's row of `/call-tree` (`crate::render::call_tree::process_row`), read alone on its
/// calls and pauses; None for a process that reported no call.
#[server(prefix = "/rpc", endpoint = "call_tree_process_row", protocol = TextRpc)]
pub async fn call_tree_process_row(process_key: String) -> Result<Option<String>, ServerFnError> {
    let summary = debugger(Need::Viewer)?.pauses().process_summary(&process_key).map_err(failed)?;
    Ok(summary.map(|p| crate::render::call_tree::process_row(&p).into_string()))
}

/// One process's call tree, the call `selected` marked: of its newest calls, or of `all` of them
/// (also when `selected` is older than the newest); None for an unknown process.
#[server(prefix = "/rpc", endpoint = "call_tree_html", protocol = TextRpc)]
pub async fn call_tree_html(process_key: String, selected: String, all: bool) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let process_id = debugger.processes().process_id_for_key(&process_key);
    let pauses = debugger.pauses();
    let mut tree = pauses.call_tree_page(&process_key, all).map_err(failed)?;
    let shows_selected = |tree: &breakroom_debugger::model::CallTreePage| {
        selected.is_empty() || tree.nodes.iter().any(|node| node.call_id == selected)
    };
    if tree.as_ref().is_some_and(|tree| !all && !shows_selected(tree)) {
        tree = pauses.call_tree_page(&process_key, true).map_err(failed)?;
    }
    Ok(tree.map(|tree| crate::render::call_tree(&process_key, process_id.as_deref(), &tree, &selected)))
}

#[server(prefix = "/rpc", endpoint = "stored_value_html", protocol = TextRpc)]
pub async fn stored_value_html(cid: String) -> Result<Option<String>, ServerFnError> {
    Ok(debugger(Need::Viewer)?
        .function_breakpoints()
        .stored_value(&cid)
        .ok()
        .map(|value| crate::render::stored_value(&value)))
}
