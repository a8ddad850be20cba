//! `/repl/{id}`: a session's page above the input box (the box is the page's, `crate::pages::repl`).

use maud::{html, Markup, PreEscaped};

use breakroom_debugger::model::{Language, ReplSession, TranscriptEntry};

use super::{millis, titled};
use crate::format::timestamp;
use crate::highlight;

/// Header, replay controls (a closed session with entries; the page's handlers find them by
/// their classes), transcript, closing note. The transcript carries what the page's handlers
/// need: each entry's input (`data-input`, for ↑/↓) and the times (`data-ms`, milliseconds, for
/// the replay's pace). An active session's HTML starts with [`crate::api::ACTIVE_SESSION`].
pub fn repl_session(session: &ReplSession, travel: Markup, debug: Markup) -> String {
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
    let hint = match (active, session.language) {
        (true, Language::Python) => {
            "Type Python below: it runs inside the paused program, with the call's variables in scope."
        }
        (true, Language::Javascript) => {
            "Type JavaScript below: it runs inside the paused program, with the call's arguments in scope."
        }
        (false, _) => "This session ended without any input.",
    };
    let closed_note = match &session.closed_reason {
        Some(reason) => format!("Session closed — {reason}"),
        None => "Breakpoint resumed — session closed".to_string(),
    };
    let body = html! {
        @if active { (PreEscaped(crate::api::ACTIVE_SESSION)) }
        header.page-header.session-header {
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
        @if session.transcript.is_empty() {
            p.hint { (hint) }
        } @else if !active {
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
        ol.transcript data-ms=(millis(session.started_at)) {
            @for entry in &session.transcript { (transcript_entry(entry, session.language, &session.session_id)) }
        }
        @if !active {
            p.closed-note { (closed_note) }
        }
    };
    titled(body, &format!("REPL · {}", session.function_name))
}

fn transcript_entry(entry: &TranscriptEntry, language: Language, session_id: &str) -> Markup {
    // A step's mark (`→ prog.py:12 in checkout`): no input, not an eval.
    if entry.input.is_empty() {
        return html! { li.entry.step-mark data-input="" data-ms=(millis(entry.timestamp)) { (entry.output) } };
    }
    html! {
        li.entry.failed[entry.is_error] data-input=(entry.input) data-ms=(millis(entry.timestamp)) {
            (input_lines(&entry.input, language))
            @if !entry.stdout.is_empty() {
                pre.stdout { (entry.stdout) }
            }
            // A value shown in a richer form (a table, a picture) is not shown as its repr too.
            @if !entry.output.is_empty() && !super::outputs::shows_the_value(&entry.outputs) {
                pre.output.error[entry.is_error] { (entry.output) }
            }
            @if !entry.outputs.is_empty() {
                (super::outputs::rich_outputs(&entry.outputs, Some(session_id)))
            }
            @if let Some(cid) = &entry.result_cid {
                a.object-link.hint href={ "/object/" (cid) } title="the stored value" { "stored value" }
            }
        }
    }
}

/// REPL input as its language's prompt shows it (Python `>>> `, Node `> `, then `... `),
/// highlighted in that language: each token a span whose class is the token's kind.
fn input_lines(text: &str, language: Language) -> Markup {
    let first = match language {
        Language::Python => ">>> ",
        Language::Javascript => "> ",
    };
    html! {
        pre.input {
            @for (i, line) in text.split('\n').enumerate() {
                @if i > 0 { "\n" }
                span.prompt { (if i == 0 { first } else { "... " }) }
                @for (kind, piece) in highlight::tokens_in(line, language) {
                    span class=(kind.class()) { (piece) }
                }
            }
        }
    }
}
