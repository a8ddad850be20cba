//! REPL tools: evaluate Python in a paused call (cideldill's `breakpoint_repl_eval`), and
//! Breakroom's sessions: start one, close it, search the recorded ones, read one's transcript.

use std::time::Duration;

use breakroom_debugger::model::{SessionQuery, SessionStatus};
use breakroom_debugger::outputs;
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde_json::json;

use super::args::{Done, ToolError};
use super::tools::{count, object, ToolSpec};

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "breakpoint_repl_eval",
            Need::Debugger,
            "Evaluates Python (an expression, statements or a block) inside a paused call, with its live arguments and locals. Without `session_id` it uses the pause's open session, starting one if there is none; names assigned stay for the session.",
            object(
                json!({"pause_id": {"type": "string"}, "expression": {"type": "string"}, "session_id": {"type": "string"},
                    "timeout_s": {"type": "number", "description": "give up waiting after this many seconds (default: the server's --eval-timeout)"}}),
                &["pause_id", "expression"],
            ),
            |d, a| {
                Box::pin(async move {
                    let pause_id = a.req("pause_id");
                    let session_id = match a.str("session_id") {
                        Some(id) => id.to_string(),
                        None => open_session(&d, pause_id).await?,
                    };
                    let eval = d.sessions().eval(&session_id, a.req("expression"));
                    let outcome = match a.f64("timeout_s") {
                        None => eval.await,
                        Some(s) if s > 0.0 && s.is_finite() => tokio::time::timeout(Duration::from_secs_f64(s), eval)
                            .await
                            .map_err(|_| ToolError::new("eval_timeout", format!("the paused program did not answer within {s} s")))?,
                        Some(s) => {
                            return Err(ToolError::new("invalid_parameter", format!("timeout_s must be above 0, not {s}"))
                                .with("parameter", "timeout_s"))
                        }
                    }
                    .map_err(|e| ToolError::from(e).with("session_id", session_id.as_str()))?;
                    let text = match (outcome.stdout.is_empty(), outcome.output.is_empty()) {
                        (true, _) => outcome.output.clone(),
                        (false, true) => outcome.stdout.clone(),
                        (false, false) => format!("{}{}", outcome.stdout, outcome.output),
                    };
                    // A plot or an image the value showed: the agent sees it, not only its repr.
                    let images = outcome
                        .outputs
                        .iter()
                        .flat_map(|o| [outputs::MIME_PNG, outputs::MIME_JPEG].map(|mime| (mime, o.text(mime))))
                        .filter_map(|(mime, data)| data.map(|d| (mime.to_string(), d.trim().to_string())))
                        .collect();
                    let mut value = serde_json::to_value(&outcome).unwrap_or_default();
                    value["session_id"] = json!(session_id);
                    value["pause_id"] = json!(pause_id);
                    Done::with_images(Done::new(value, text), images)
                })
            },
        ),
        ToolSpec::new(
            "repl_session_start",
            Need::Debugger,
            "Opens a new REPL session on a paused call (its own namespace over the call's locals); `breakpoint_repl_eval` takes its `session_id`.",
            object(json!({"pause_id": {"type": "string"}}), &["pause_id"]),
            |d, a| {
                Box::pin(async move {
                    let pause_id = a.req("pause_id");
                    let id = pause_id.to_string();
                    let session_id = d
                        .off_workers(move |d| d.sessions().start_session(&id))
                        .await
                        .map_err(|e| ToolError::from(e).with("pause_id", pause_id))?;
                    Done::new(json!({"session_id": session_id, "pause_id": pause_id}), format!("session {session_id} open"))
                })
            },
        ),
        ToolSpec::new(
            "repl_session_close",
            Need::Debugger,
            "Closes a REPL session (the call stays paused); its transcript stays readable.",
            object(json!({"session_id": {"type": "string"}}), &["session_id"]),
            |d, a| {
                Box::pin(async move {
                    let session_id = a.req("session_id");
                    let id = session_id.to_string();
                    d.off_workers(move |d| d.sessions().close_session(&id))
                        .await
                        .map_err(|e| ToolError::from(e).with("session_id", session_id))?;
                    Done::new(json!({"status": "ok", "session_id": session_id}), format!("session {session_id} closed"))
                })
            },
        ),
        ToolSpec::new(
            "repl_session_search",
            Need::Viewer,
            "Recorded REPL sessions, newest first: `search` (text in the function name or transcript), `status` (active, closed, all), `from`/`to` (epoch seconds), `page`, `per_page`.",
            object(
                json!({"search": {"type": "string"}, "status": {"type": "string", "enum": ["active", "closed", "all"]},
                    "from": {"type": "number"}, "to": {"type": "number"},
                    "page": {"type": "integer", "minimum": 1}, "per_page": {"type": "integer", "minimum": 1}}),
                &[],
            ),
            |d, a| {
                Box::pin(async move {
                    let status = a.str("status").unwrap_or("all");
                    let status = SessionStatus::parse(status).ok_or_else(|| {
                        ToolError::new("invalid_parameter", format!("status must be active, closed or all, not {status:?}"))
                            .with("parameter", "status")
                    })?;
                    let query = SessionQuery {
                        search: a.str("search").map(str::to_string),
                        status,
                        from: a.f64("from"),
                        to: a.f64("to"),
                        page: a.u64("page").map_or(0, |n| n as usize),
                        per_page: a.u64("per_page").map_or(0, |n| n as usize),
                    };
                    let page = d.sessions().session_summaries(&query)?;
                    let plus = if page.total_is_lower_bound { "+" } else { "" };
                    let text = format!("{} of {}{plus}", count(page.sessions.len(), "session"), page.total);
                    Done::new(page, text)
                })
            },
        ),
        ToolSpec::new(
            "repl_session_get",
            Need::Viewer,
            "One REPL session, open or closed: its call, arguments and transcript.",
            object(json!({"session_id": {"type": "string"}}), &["session_id"]),
            |d, a| {
                Box::pin(async move {
                    let session_id = a.req("session_id");
                    let session = d.sessions().session(session_id)?.ok_or_else(|| {
                        ToolError::new("session_not_found", format!("no session {session_id}")).with("session_id", session_id)
                    })?;
                    let text = format!("{} on {}: {}", session_id, session.function_name, count(session.transcript.len(), "entry"));
                    Done::new(json!({"session": session}), text)
                })
            },
        ),
    ]
}

/// The pause's newest open session, or a new one.
async fn open_session(d: &Debugger, pause_id: &str) -> Result<String, ToolError> {
    let with_pause = |e| ToolError::from(e).with("pause_id", pause_id);
    for id in d.sessions().sessions_for_pause(pause_id).map_err(with_pause)?.iter().rev() {
        if d.sessions().session(id).map_err(with_pause)?.is_some_and(|s| s.closed_at.is_none()) {
            return Ok(id.clone());
        }
    }
    let id = pause_id.to_string();
    d.off_workers(move |d| d.sessions().start_session(&id)).await.map_err(with_pause)
}
