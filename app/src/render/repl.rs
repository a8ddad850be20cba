//! `/repl/{id}`: a session's page above the input box (the box is the page's, `crate::pages::repl`).

use maud::{html, Markup, PreEscaped};

use breakroom_debugger::model::{Language, ReplSession};

use super::titled;
use crate::format::timestamp;
use crate::transcript::{markup, millis, shown, PAGE_ENTRIES};

/// The sidebar's part (the stack) up to [`crate::api::SIDEBAR_SLOT`], then header, debug
/// toolbar and source, replay controls (a closed session with entries; the page's handlers find
/// them by their classes), where the transcript goes ([`crate::api::TRANSCRIPT_SLOT`]) and the
/// closing note. An active session's HTML starts with [`crate::api::ACTIVE_SESSION`].
pub fn repl_session(session: &ReplSession, travel: Markup, debug: Markup, stack: Markup) -> String {
    let active = session.is_active();
    let status = if active { "Active" } else { "Closed" };
    let value_text = |value: &serde_json::Value| match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut call_text: Vec<String> = session.pretty_args.iter().map(value_text).collect();
    call_text.extend(session.pretty_kwargs.iter().map(|(k, v)| format!("{k}={}", value_text(v))));
    let tree_href = match &session.call_id {
        Some(call) => format!("/call-tree/{}?selected={call}", session.process_key),
        None => format!("/call-tree/{}", session.process_key),
    };
    let id = &session.session_id;
    let closed_note = match &session.closed_reason {
        Some(reason) => format!("Session closed — {reason}"),
        None => "Breakpoint resumed — session closed".to_string(),
    };
    let body = html! {
        @if active { (PreEscaped(crate::api::ACTIVE_SESSION)) }
        (stack)
        (PreEscaped(crate::api::SIDEBAR_SLOT))
        header.page-header.session-header data-process-key=(session.process_key) {
            h1 { span.fn-name { (session.function_name) } span.args { "(" (call_text.join(", ")) ")" } }
            span class={ "badge " (status.to_ascii_lowercase()) } { (status) }
            " " span class={ "lang lang-" (session.language.as_str()) } title="the program's language" { (session.language.label()) }
            dl.meta {
                dt { "session" } dd.mono { (id) }
                dt { "process" } dd.pid { (session.pid) }
                dt { "started" } dd { (timestamp(session.started_at)) }
                dt { "closed" } dd { (session.closed_at.map(timestamp).unwrap_or_else(|| "—".into())) }
            }
            nav.links {
                a.button href={ "/callstack/" (session.pause_id) } { "View Call Stack" }
                a.button href=(tree_href) { "View Call Tree" }
                a.button href={ "/api/events?session_id=" (id) "&format=jsonl" } download={ "breakroom-" (id) ".jsonl" }
                    title="This session's recorded events, for `breakroom replay FILE`" { "Events (.jsonl)" }
                (travel)
            }
        }
        (debug)
        @if !session.transcript.is_empty() && !active {
            div.replay {
                button.replay-start { "▶ Replay" }
                button.replay-stop hidden { "■ Stop" }
                span.replay-progress hidden {}
                label.hint {
                    "speed "
                    select.replay-speed {
                        option value="0.5" { "0.5×" }
                        option value="1" selected { "1×" }
                        option value="2" { "2×" }
                        option value="4" { "4×" }
                    }
                }
            }
        }
        // The transcript is the page's own (`crate::pages::transcript`): it goes here.
        (PreEscaped(crate::api::TRANSCRIPT_SLOT))
        @if !active {
            p.closed-note { (closed_note) }
        }
    };
    titled(body, &format!("REPL · {}", session.function_name))
}

/// The transcript as its page opens: the newest [`PAGE_ENTRIES`] entries, a button for the
/// earlier ones, and the hint an empty transcript shows (hidden by the stylesheet once an entry
/// is there). The list carries what the page needs to append and prepend (`crate::pages::transcript`):
/// the indexes it holds, the language, and the session's start (`data-ms`, the replay's first time).
pub fn repl_transcript(session: &ReplSession) -> String {
    let total = session.transcript.len();
    let first = total.saturating_sub(PAGE_ENTRIES);
    let id = &session.session_id;
    let entries: Vec<_> = session.transcript[first..].iter().map(|e| shown(e, id)).collect();
    let hint = match (session.is_active(), session.language) {
        (true, Language::Python) => {
            "Type Python below: it runs inside the paused program, with the call's variables in scope."
        }
        (true, Language::Javascript) => {
            "Type JavaScript below: it runs inside the paused program, with the call's arguments in scope."
        }
        (false, _) => "This session ended without any input.",
    };
    html! {
        @if first > 0 {
            button.transcript-earlier type="button" { "Show earlier entries (" (first) " more)" }
        }
        ol.transcript data-ms=(millis(session.started_at)) data-first=(first) data-next=(total)
            data-language=(session.language.as_str()) {
            (PreEscaped(markup::entries(&entries, session.language)))
        }
        p.hint.transcript-hint { (hint) }
    }
    .into_string()
}
