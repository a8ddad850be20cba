//! Read-only page content rendered to HTML on the server. A page's server function answers
//! with this HTML; the page shows it with `inner_html`, on the server and after every live
//! refetch alike. None of this is in the wasm: the browser needs no decoder for the data nor view
//! code for markup that has no behaviour of its own (links are followed by the router, `<details>`
//! opens by itself), which is most of what the split pages would otherwise download.
//!
//! Every piece of text and every attribute value goes through [`esc`]: the data comes from the
//! debugged programs (their arguments, sources, REPL output) and must never become markup.

use std::fmt::Write;

use breakroom_debugger::model::{
    BreakpointView, BreakpointsView, CallStackView, CallTreeNode, FrameView, Language, PauseReason, PausedCall,
    ProcessSummary, ReplSession, SessionLink, SessionPage, SessionSummary, StoredValue, TranscriptEntry,
};

use breakroom_debugger::breakpoint_spec::BreakpointRecord;

use crate::format::timestamp;
use crate::highlight;

pub mod breakpoint_records;
pub mod processes;
pub mod runtimes;
pub mod time_travel;
pub mod variables;

/// `text` with `& < > " '` escaped: safe as element content and as a quoted attribute value.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

/// `html` with the page's title at its end, where the page finds it (`crate::pages::title_in`).
fn titled(mut html: String, title: &str) -> String {
    html.push_str(&crate::pages::title_marker(&esc(title)));
    html
}

/// Links to REPL sessions, with their state, or `empty` as a hint when there are none.
pub fn session_links(out: &mut String, sessions: &[SessionLink], empty: &str) {
    if sessions.is_empty() {
        let _ = write!(out, r#"<p class="hint">{}</p>"#, esc(empty));
        return;
    }
    out.push_str(r#"<ul class="session-links">"#);
    for s in sessions {
        let status = if s.active { "Active" } else { "Closed" };
        let id = esc(&s.session_id);
        let _ = write!(
            out,
            r#"<li><a class="mono" href="/repl/{id}">{id}</a> <span class="badge {}">{status}</span><span class="hint"> {} lines</span></li>"#,
            status.to_ascii_lowercase(),
            s.entries
        );
    }
    out.push_str("</ul>");
}

/// `/callstack/{pause_id}`: the header, the sessions on the pause, the frames innermost first;
/// source lines with a line breakpoint (of `breakpoints`) marked.
pub fn call_stack(view: &CallStackView, breakpoints: &[BreakpointRecord]) -> String {
    let reason = match view.reason {
        PauseReason::Breakpoint => "paused before the call",
        PauseReason::After => "paused after the call returned",
        PauseReason::Exception => "paused on an exception",
    };
    let state = if view.still_paused { "Paused" } else { "Resumed" };
    let mut out = String::new();
    let _ = write!(
        out,
        concat!(
            r#"<header class="page-header"><h1>Call Stack for <span class="fn-name">{name}</span></h1>"#,
            r#"<span class="badge {state_class}">{state}</span>"#,
            r#"<dl class="meta"><dt>process</dt><dd class="pid">{pid}</dd><dt>paused at</dt><dd>{at}</dd>"#,
            r#"<dt>reason</dt><dd>{reason}</dd></dl>"#,
            r#"<nav class="links"><a class="button" href="/call-tree/{key}?selected={call}">View Call Tree</a></nav>"#,
            r#"</header><section class="related"><h2>REPL sessions on this pause</h2>"#,
        ),
        name = esc(&view.function_name),
        state_class = state.to_ascii_lowercase(),
        pid = view.pid,
        at = timestamp(view.paused_at),
        key = esc(&view.process_key),
        call = esc(&view.call_id),
        state = state,
        reason = reason,
    );
    session_links(&mut out, &view.sessions, "None yet: open one from the Paused page while the call is paused.");
    let _ = write!(out, "</section><section><h2>{} frames, innermost first</h2>", view.frames.len());
    if view.frames.is_empty() {
        out.push_str(r#"<p class="hint">The client sent no stack for this call.</p>"#);
    } else {
        out.push_str(r#"<p class="hint">Click a line number to set or remove a line breakpoint there.</p>"#);
        out.push_str(r#"<ol class="frames">"#);
        for (i, frame) in view.frames.iter().enumerate() {
            self::frame(&mut out, frame, i == 0, breakpoints);
        }
        out.push_str("</ol>");
    }
    out.push_str("</section>");
    titled(out, &format!("Call stack · {}", view.function_name))
}

/// A frame: where it is and the line it was at; opens to the source around that line.
fn frame(out: &mut String, frame: &FrameView, open: bool, breakpoints: &[BreakpointRecord]) {
    let has_source = !frame.source_lines.is_empty();
    let _ = write!(
        out,
        r#"<li class="frame"><details{}><summary><span class="fn-name">{}</span><span class="where">{}:{}</span>"#,
        if open && has_source { " open" } else { "" },
        esc(&frame.function),
        esc(&frame.filename),
        frame.lineno
    );
    if let Some(context) = &frame.code_context {
        let _ = write!(out, r#"<code class="context">{}</code>"#, esc(context));
    }
    out.push_str("</summary>");
    if has_source {
        let _ = write!(out, r#"<pre class="source" data-file="{}">"#, esc(&frame.filename));
        for (i, line) in frame.source_lines.iter().enumerate() {
            let n = frame.source_start + i as i64;
            let current = if n == frame.lineno { " current" } else { "" };
            let set = u32::try_from(n).is_ok_and(|n| breakpoints.iter().any(|b| b.is_line_at(&frame.filename, n)));
            let (bp, title) = if set { (" bp", "Remove the line breakpoint") } else { ("", "Set a line breakpoint") };
            let _ = write!(
                out,
                "<span class=\"line{current}{bp}\" data-line=\"{n}\"><span class=\"lineno\" title=\"{title}\">{n:>5} </span>{}\n</span>",
                esc(line)
            );
        }
        out.push_str("</pre>");
    }
    if !frame.locals.is_empty() {
        let _ = write!(out, r#"<p class="locals hint">locals: <code>{}</code></p>"#, esc(&frame.locals.join(", ")));
    }
    out.push_str("</details></li>");
}

/// `<option>`s for `options` (value, label), `current` selected.
fn options(out: &mut String, options: &[(&str, &str)], current: &str) {
    for (value, label) in options {
        let selected = if *value == current { " selected" } else { "" };
        let _ = write!(out, r#"<option value="{}"{selected}>{}</option>"#, esc(value), esc(label));
    }
}

// ---- `/`: paused calls and breakpoints. Controls carry `data-action` (and the card its
// `data-pause-id`, the row its `data-breakpoint`); the page's event handlers act on them.

/// The paused calls, newest last, or how to get one. `process_page` names the tracked process
/// (`/process/{id}`) of a call's process key, when there is one.
pub fn paused_calls(
    calls: &[PausedCall],
    process_page: &dyn Fn(&str) -> Option<String>,
    travel: &dyn Fn(&str) -> String,
) -> String {
    if calls.is_empty() {
        return concat!(
            r#"<section class="empty"><p>Nothing is paused.</p><p class="hint">Wrap a function with "#,
            r#"<code>breakroom.with_debug(fn)</code> (or call <code>breakroom.set_trace()</code>) in a program run with "#,
            r#"<code>BREAKROOM_URL</code> pointing here; the call shows up on this page when it pauses.</p></section>"#
        )
        .to_string();
    }
    let mut out = String::from(r#"<ul class="paused-list">"#);
    for call in calls {
        paused_card(&mut out, call, process_page(&call.process_key), &travel(&call.pause_id));
    }
    out.push_str("</ul>");
    out
}

fn paused_card(out: &mut String, call: &PausedCall, process_id: Option<String>, travel: &str) {
    let (reason_class, reason) = match call.reason {
        PauseReason::Breakpoint => ("breakpoint", "before the call"),
        PauseReason::After => ("after", "after the call returned"),
        PauseReason::Exception => ("exception", "on an exception"),
    };
    let id = esc(&call.pause_id);
    let _ = write!(
        out,
        r#"<li class="paused-card reason-{reason_class}" data-pause-id="{id}"><div class="call"><span class="lang lang-{}" title="the program's language">{}</span> <span class="fn-name">{}</span>(<span class="args">{}</span>)"#,
        call.language.as_str(),
        call.language.label(),
        esc(&call.function_name),
        esc(&call.args_text.join(", "))
    );
    if let Some(result) = &call.result_text {
        let _ = write!(out, r#"<span class="result"> → {}</span>"#, esc(result));
    }
    let _ = write!(
        out,
        concat!(
            r#"</div><dl class="meta"><dt>process</dt><dd class="pid">{}</dd><dt>paused at</dt><dd>{}</dd>"#,
            r#"<dt>reason</dt><dd class="reason">{}</dd></dl><div class="actions">"#
        ),
        match process_id {
            Some(process) => format!(r#"<a class="process-link" href="/process/{}">{}</a>"#, esc(&process), call.pid),
            None => call.pid.to_string(),
        },
        timestamp(call.paused_at),
        reason
    );
    match call.active_sessions.last() {
        Some(session) => {
            let _ = write!(out, r#"<a class="button primary" href="/repl/{}">Go to open REPL</a>"#, esc(session));
        }
        None => out.push_str(r#"<button class="primary" data-action="open-repl">Open REPL</button>"#),
    }
    let _ = write!(
        out,
        r#"<button data-action="continue">Continue</button><a class="button" href="/callstack/{id}">Call stack</a></div>"#
    );
    // Skip and raise replace running the call: only a call that has not run yet can take them.
    if call.reason == PauseReason::Breakpoint && call.result_text.is_none() {
        out.push_str(concat!(
            r#"<details class="more-actions"><summary>Skip or raise instead of running the call</summary>"#,
            r#"<form class="inline" data-action="skip"><label>Return value (JSON) "#,
            r#"<input type="text" name="value" placeholder="null"></label><button type="submit">Skip</button></form>"#,
            r#"<form class="inline" data-action="raise"><label>Exception "#,
            r#"<input type="text" name="type" size="14" value="RuntimeError"></label><label>message "#,
            r#"<input type="text" name="message"></label><button type="submit" class="danger">Raise</button></form>"#,
            r#"</details>"#
        ));
    }
    out.push_str(travel);
    out.push_str(r#"<p class="error" hidden></p></li>"#);
}

pub const BEFORE: &[(&str, &str)] = &[("stop", "pause"), ("go", "run"), ("yield", "follow global")];
pub const AFTER: &[(&str, &str)] = &[
    ("go", "run on"),
    ("stop", "pause after"),
    ("exception", "pause on exception"),
    ("stop_exception", "pause after, and on exception"),
    ("yield", "follow global"),
];
pub const GLOBAL: &[(&str, &str)] = &[
    ("stop", "pause at breakpoints"),
    ("go", "run everything"),
    ("exception", "pause on exceptions"),
    ("stop_exception", "pause at breakpoints and on exceptions"),
];

/// The global behaviour and the breakpoints table.
pub fn breakpoints(view: &BreakpointsView) -> String {
    let mut out = String::from(
        r#"<label class="global">When a call has no breakpoint of its own: <select aria-label="Behaviour" data-action="global">"#,
    );
    options(&mut out, GLOBAL, view.global_behavior.as_str());
    out.push_str("</select></label>");
    if view.breakpoints.is_empty() {
        out.push_str(concat!(
            r#"<p class="hint">No breakpoints. Wrapping a function with <code>with_debug</code> adds one on its name; "#,
            r#"or add one here.</p>"#
        ));
        return out;
    }
    out.push_str(concat!(
        r#"<div class="table-wrap"><table class="breakpoint-table"><thead><tr><th>Function</th>"#,
        r#"<th>Before the call</th><th>After the call</th><th>Replace with</th><th></th></tr></thead><tbody>"#
    ));
    for bp in &view.breakpoints {
        breakpoint_row(&mut out, bp);
    }
    out.push_str("</tbody></table></div>");
    out
}

fn breakpoint_row(out: &mut String, bp: &BreakpointView) {
    let name = esc(&bp.function_name);
    let _ = write!(out, r#"<tr data-breakpoint="{name}"><td class="fn-name">{name}"#);
    if let Some(signature) = &bp.signature {
        let _ = write!(out, r#"<span class="hint signature">{}</span>"#, esc(signature));
    }
    out.push_str(r#"</td><td><select aria-label="Behaviour" data-action="before">"#);
    options(out, BEFORE, bp.behavior.as_str());
    out.push_str(r#"</select></td><td><select aria-label="Behaviour" data-action="after">"#);
    options(out, AFTER, bp.after_behavior.as_str());
    out.push_str("</select></td><td>");
    let current = bp.replacement.clone().unwrap_or_default();
    if bp.replacements.is_empty() && current.is_empty() {
        out.push_str(r#"<span class="hint">—</span>"#);
    } else {
        out.push_str(r#"<select aria-label="Replacement" data-action="replacement">"#);
        let mut choices = vec![("", "(itself)")];
        choices.extend(bp.replacements.iter().map(|r| (r.as_str(), r.as_str())));
        options(out, &choices, &current);
        out.push_str("</select>");
    }
    out.push_str(r#"</td><td><button class="small" data-action="remove">Remove</button></td></tr>"#);
}

// ---- `/repl/{id}`

/// A session's page above the input box: header, replay controls (a closed session with
/// entries; the page's handlers find them by their classes), transcript, closing note. The
/// transcript carries what the page's handlers need: each entry's input (`data-input`, for ↑/↓)
/// and the times (`data-ms`, milliseconds, for the replay's pace). An active session's HTML
/// starts with [`crate::api::ACTIVE_SESSION`].
pub fn repl_session(session: &ReplSession, travel: &str) -> String {
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
    let id = esc(&session.session_id);
    let mut out = String::from(if active { crate::api::ACTIVE_SESSION } else { "" });
    let _ = write!(
        out,
        concat!(
            r#"<header class="page-header session-header"><h1><span class="fn-name">{name}</span>"#,
            r#"<span class="args">({args})</span></h1><span class="badge {status_class}">{status}</span>"#,
            r#" <span class="lang lang-{lang}" title="the program's language">{language}</span>"#,
            r#"<dl class="meta"><dt>session</dt><dd class="mono">{id}</dd><dt>process</dt><dd class="pid">{pid}</dd>"#,
            r#"<dt>started</dt><dd>{started}</dd><dt>closed</dt><dd>{closed}</dd></dl><nav class="links">"#,
            r#"<a class="button" href="/callstack/{pause}">View Call Stack</a>"#,
            r#"<a class="button" href="{tree}">View Call Tree</a>"#,
            r#"<a class="button" href="/api/events?session_id={id}&amp;format=jsonl" download="breakroom-{id}.jsonl" "#,
            r#"title="This session&#x27;s recorded events, for `breakroom replay FILE`">Events (.jsonl)</a>{travel}</nav></header>"#
        ),
        name = esc(&session.function_name),
        args = esc(&call_text.join(", ")),
        lang = session.language.as_str(),
        language = session.language.label(),
        status_class = status.to_ascii_lowercase(),
        status = status,
        id = id,
        pid = session.pid,
        started = timestamp(session.started_at),
        closed = session.closed_at.map(timestamp).unwrap_or_else(|| "—".into()),
        pause = esc(&session.pause_id),
        travel = travel,
        tree = esc(&tree_href),
    );
    if session.transcript.is_empty() {
        let hint = if active {
            match session.language {
                Language::Python => {
                    "Type Python below: it runs inside the paused program, with the call's variables in scope."
                }
                Language::Javascript => {
                    "Type JavaScript below: it runs inside the paused program, with the call's arguments in scope."
                }
            }
        } else {
            "This session ended without any input."
        };
        let _ = write!(out, r#"<p class="hint">{}</p>"#, esc(hint));
    } else if !active {
        out.push_str(concat!(
            r#"<div class="replay"><button class="replay-start">▶ Replay</button>"#,
            r#"<button class="replay-stop" hidden>■ Stop</button><span class="replay-progress" hidden></span>"#,
            r#"<label class="hint">speed <select class="replay-speed"><option value="0.5">0.5×</option>"#,
            r#"<option value="1" selected>1×</option><option value="2">2×</option><option value="4">4×</option>"#,
            r#"</select></label></div>"#
        ));
    }
    let _ = write!(out, r#"<ol class="transcript" data-ms="{}">"#, millis(session.started_at));
    for entry in &session.transcript {
        transcript_entry(&mut out, entry, session.language);
    }
    out.push_str("</ol>");
    if !active {
        let note = match &session.closed_reason {
            Some(reason) => format!("Session closed — {reason}"),
            None => "Breakpoint resumed — session closed".to_string(),
        };
        let _ = write!(out, r#"<p class="closed-note">{}</p>"#, esc(&note));
    }
    titled(out, &format!("REPL · {}", session.function_name))
}

/// Epoch milliseconds: the browser reads them without a float parser.
fn millis(epoch: f64) -> i64 {
    (epoch * 1000.0).round() as i64
}

fn transcript_entry(out: &mut String, entry: &TranscriptEntry, language: Language) {
    let _ = write!(
        out,
        r#"<li class="{}" data-input="{}" data-ms="{}">"#,
        if entry.is_error { "entry failed" } else { "entry" },
        esc(&entry.input),
        millis(entry.timestamp)
    );
    input_lines(out, &entry.input, language);
    if !entry.stdout.is_empty() {
        let _ = write!(out, r#"<pre class="stdout">{}</pre>"#, esc(&entry.stdout));
    }
    if !entry.output.is_empty() {
        let class = if entry.is_error { "output error" } else { "output" };
        let _ = write!(out, r#"<pre class="{class}">{}</pre>"#, esc(&entry.output));
    }
    if let Some(cid) = &entry.result_cid {
        let _ = write!(
            out,
            r#"<a class="object-link hint" href="/object/{}" title="the stored value">stored value</a>"#,
            esc(cid)
        );
    }
    out.push_str("</li>");
}

/// REPL input as its language's prompt shows it (Python `>>> `, Node `> `, then `... `),
/// highlighted in that language.
fn input_lines(out: &mut String, text: &str, language: Language) {
    let first = match language {
        Language::Python => "&gt;&gt;&gt; ",
        Language::Javascript => "&gt; ",
    };
    out.push_str(r#"<pre class="input">"#);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(out, r#"<span class="prompt">{}</span>"#, if i == 0 { first } else { "... " });
        for (kind, piece) in highlight::tokens_in(line, language) {
            let _ = write!(out, r#"<span class="{}">{}</span>"#, kind.class(), esc(&piece));
        }
    }
    out.push_str("</pre>");
}

// ---- `/repls`

/// `/repls`'s filters, as the URL carries them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    pub search: String,
    pub status: String,
    pub from: String,
    pub to: String,
    pub page: usize,
}

impl Filters {
    /// The query string for these filters on another page (empty values left out).
    fn href(&self, page: usize) -> String {
        let mut parts = vec![];
        for (key, value) in [("search", &self.search), ("status", &self.status), ("from", &self.from), ("to", &self.to)]
        {
            if !value.is_empty() {
                parts.push(format!("{key}={}", encode(value)));
            }
        }
        if page > 1 {
            parts.push(format!("page={page}"));
        }
        if parts.is_empty() {
            "/repls".into()
        } else {
            format!("/repls?{}", parts.join("&"))
        }
    }
}

fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The filter form (a plain GET form: it works without wasm) and one page of sessions.
pub fn sessions(page: &SessionPage<SessionSummary>, filters: &Filters) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        concat!(
            r#"<form method="get" action="/repls" class="filters"><input type="search" name="search" "#,
            r#"placeholder="Search function names and transcripts" value="{}" aria-label="Search">"#,
            r#"<label>Status <select name="status">"#
        ),
        esc(&filters.search)
    );
    options(&mut out, &[("", "All"), ("active", "Active"), ("closed", "Closed")], &filters.status);
    let _ = write!(
        out,
        concat!(
            r#"</select></label><label>From <input type="date" name="from" value="{}"></label>"#,
            r#"<label>To <input type="date" name="to" value="{}"></label>"#,
            r#"<button type="submit" class="primary">Search</button><a href="/repls" class="button">Clear</a></form>"#
        ),
        esc(&filters.from),
        esc(&filters.to)
    );
    if page.total == 0 {
        if filters.href(1) != "/repls" {
            out.push_str(r#"<section class="empty"><p>No session matches these filters. <a href="/repls">Show all sessions</a></p></section>"#);
        } else {
            out.push_str(concat!(
                r#"<section class="empty"><p>No REPL sessions yet.</p><p class="hint">Open a REPL on a paused call "#,
                r#"(on <a href="/">the Paused page</a>); every session is listed here, with its transcript searchable.</p></section>"#
            ));
        }
        return out;
    }
    let pages = page.total.div_ceil(page.per_page.max(1));
    let first = (page.page - 1) * page.per_page + 1;
    let last = (first + page.sessions.len()).saturating_sub(1);
    let _ = write!(
        out,
        concat!(
            r#"<p class="hint count">{first}–{last} of {total} sessions</p><div class="table-wrap"><table class="sessions">"#,
            r#"<thead><tr><th>Session</th><th>Function</th><th>Status</th><th>Started</th><th>Closed</th>"#,
            r#"<th>Lines</th><th>Call stack</th></tr></thead><tbody>"#
        ),
        first = first,
        last = last,
        total = page.total
    );
    for s in &page.sessions {
        let status = if s.closed_at.is_none() { "Active" } else { "Closed" };
        let id = esc(&s.session_id);
        let _ = write!(
            out,
            concat!(
                r#"<tr data-session-id="{id}"><td class="mono"><a href="/repl/{id}">{id}</a></td>"#,
                r#"<td class="fn-name">{name}</td><td><span class="badge {status_class}">{status}</span></td>"#,
                r#"<td>{started}</td><td>{closed}</td><td class="num">{lines}</td>"#,
                r#"<td><a href="/callstack/{pause}">Call stack</a></td></tr>"#
            ),
            id = id,
            name = esc(&s.function_name),
            status_class = status.to_ascii_lowercase(),
            status = status,
            started = timestamp(s.started_at),
            closed = s.closed_at.map(timestamp).unwrap_or_else(|| "—".into()),
            lines = s.transcript_len,
            pause = esc(&s.pause_id),
        );
    }
    out.push_str("</tbody></table></div>");
    if pages > 1 {
        out.push_str(r#"<nav class="pagination" aria-label="Pages">"#);
        if page.page > 1 {
            let _ = write!(out, r#"<a rel="prev" href="{}">← Newer</a>"#, esc(&filters.href(page.page - 1)));
        }
        let _ = write!(out, "<span>Page {} of {pages}</span>", page.page);
        if page.page < pages {
            let _ = write!(out, r#"<a rel="next" href="{}">Older →</a>"#, esc(&filters.href(page.page + 1)));
        }
        out.push_str("</nav>");
    }
    let title = match filters.search.trim() {
        "" => "REPL sessions".to_string(),
        search => format!("REPL sessions · {search}"),
    };
    titled(out, &title)
}

// ---- `/call-tree`, `/call-tree/{process_key}`, `/object/{cid}`

/// The debugged processes, or a hint when no call was recorded yet.
pub fn processes(list: &[ProcessSummary]) -> String {
    let mut out = String::from("<h1>Call trees</h1>");
    if list.is_empty() {
        out.push_str(concat!(
            r#"<section class="empty"><p>No calls recorded yet.</p><p class="hint">Every call a debugged program "#,
            r#"reports is recorded here, one tree per process.</p></section>"#
        ));
        return titled(out, "Call trees");
    }
    out.push_str(concat!(
        r#"<div class="table-wrap"><table class="processes"><thead><tr><th>Process</th><th>PID</th><th>Calls</th>"#,
        r#"<th>Paused</th><th>REPL sessions</th><th>First call</th><th>Last call</th></tr></thead><tbody>"#
    ));
    for p in list {
        let key = esc(&p.process_key);
        let _ = write!(
            out,
            concat!(
                r#"<tr><td class="mono"><a href="/call-tree/{key}">{key}</a></td><td class="pid">{pid}</td>"#,
                r#"<td class="num">{calls}</td><td class="num">{paused}</td><td class="num">{sessions}</td>"#,
                r#"<td>{first}</td><td>{last}</td></tr>"#
            ),
            key = key,
            pid = p.pid,
            calls = p.calls,
            paused = p.paused,
            sessions = p.repl_sessions,
            first = timestamp(p.first_call_at),
            last = timestamp(p.last_call_at),
        );
    }
    out.push_str("</tbody></table></div>");
    titled(out, "Call trees")
}

/// One process's calls as a tree (callers first, `--depth` indents), `selected` marked.
/// `process_id` is the tracked process of `process_key`, linked from the header when known.
pub fn call_tree(process_key: &str, process_id: Option<&str>, nodes: &[CallTreeNode], selected: &str) -> String {
    let mut out = String::new();
    let process_link = process_id
        .map(|id| format!(r#" <a class="process-link" href="/process/{}">Process page</a>"#, esc(id)))
        .unwrap_or_default();
    let _ = write!(
        out,
        concat!(
            r#"<h1>Call tree of process <span class="mono">{}</span></h1>"#,
            r#"<p class="hint">{} calls. Calls with REPL sessions carry a REPL badge.{}</p><ol class="call-tree">"#
        ),
        esc(process_key),
        nodes.len(),
        process_link
    );
    for node in nodes {
        let class =
            format!("call-node status-{}{}", node.status, if node.call_id == selected { " selected" } else { "" });
        let id = esc(&node.call_id);
        let _ = write!(
            out,
            r#"<li class="{}" style="--depth: {}" id="call-{id}" data-call-id="{id}"><span class="fn-name">{}</span>(<span class="args">{}</span>)"#,
            esc(&class),
            node.depth,
            esc(&node.function_name),
            esc(&node.args_text.join(", "))
        );
        let outcome = match node.status.as_str() {
            "running" => Some("running…".to_string()),
            _ => node.result_text.as_ref().map(|r| format!("→ {r}")),
        };
        if let Some(outcome) = outcome {
            let _ = write!(out, r#"<span class="result"> {}</span>"#, esc(&outcome));
        }
        let _ = write!(out, r#"<span class="when hint">{}</span>"#, timestamp(node.started_at));
        if let Some(pause) = node.pause_ids.last() {
            let _ = write!(out, r#"<a class="stack-link" href="/callstack/{}">stack</a>"#, esc(pause));
        }
        for s in &node.repl_sessions {
            let sid = esc(&s.session_id);
            let _ = write!(out, r#"<a class="badge repl" href="/repl/{sid}" title="REPL session {sid}">REPL</a>"#);
        }
        out.push_str("</li>");
    }
    out.push_str("</ol>");
    titled(out, &format!("Call tree · process {process_key}"))
}

/// What is known of a stored value.
pub fn stored_value(v: &StoredValue) -> String {
    let html = format!(
        concat!(
            r#"<h1>Stored value</h1><dl class="meta"><dt>CID</dt><dd class="mono cid">{}</dd><dt>format</dt><dd>{}</dd>"#,
            r#"<dt>size</dt><dd>{} bytes</dd><dt>stored</dt><dd>{}</dd></dl><pre class="output value">{}</pre>"#
        ),
        esc(&v.cid),
        esc(&v.serialization_format),
        v.size,
        timestamp(v.stored_at),
        esc(&v.display)
    );
    titled(html, &format!("Stored value · {}", v.cid.get(..12).unwrap_or(&v.cid)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_escapes_markup_and_quotes() {
        assert_eq!(
            esc(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;y&#x27;"
        );
    }

    #[test]
    fn program_data_never_becomes_markup() {
        let frame = FrameView {
            filename: "/tmp/<evil>.py".into(),
            lineno: 2,
            function: "f\"><img src=x onerror=alert(1)>".into(),
            code_context: Some("x = '<b>'".into()),
            source_start: 1,
            source_lines: vec!["</pre><script>1</script>".into(), "x = 1".into()],
            locals: vec!["<a>".into()],
        };
        let mut out = String::new();
        let bp = BreakpointRecord::from_body(
            "bp-1".into(),
            &serde_json::json!({"kind": "line", "file": "<evil>.py", "line": 1}),
            0.0,
        )
        .unwrap();
        super::frame(&mut out, &frame, true, &[bp]);
        assert!(!out.contains("<evil>") && !out.contains("<img") && !out.contains("<script>") && !out.contains("<b>"));
        assert!(out.contains("&lt;/pre&gt;&lt;script&gt;1&lt;/script&gt;"), "{out}");
        assert!(out.contains(r#"<pre class="source" data-file="/tmp/&lt;evil&gt;.py">"#), "{out}");
        assert!(out.contains(r#"<span class="line bp" data-line="1">"#), "the line with a breakpoint is marked: {out}");
        assert!(out.contains(r#"<span class="line current" data-line="2"><span class="lineno" title="Set a line breakpoint">    2 </span>x = 1"#), "{out}");
    }
}
