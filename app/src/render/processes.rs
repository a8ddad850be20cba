//! `/processes` and `/process/{id}` as HTML: the tracked processes, and one process with its
//! output, its pauses and its REPL sessions. Controls carry `data-action` for the page's handlers
//! (`crate::pages::processes`).

use std::fmt::Write;

use breakroom_debugger::model::{EventKind, RecordedEvent};
use breakroom_debugger::processes::crash_reason;
use breakroom_debugger::processes::{
    OutputLine, OutputPage, OutputStream, ProcessDetail, ProcessStatus, TrackedProcess,
};

use super::{esc, titled};
use crate::format::{duration, timestamp};

/// How many of the newest output lines the process page shows; the API pages through the rest.
pub const OUTPUT_TAIL: usize = 2_000;

/// How the process page lays out its two streams.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OutputLayout {
    /// stdout and stderr in two columns.
    SideBySide,
    /// Both streams in one column, in the order the lines were captured.
    Interleaved,
}

impl OutputLayout {
    pub fn parse(text: &str) -> Self {
        match text {
            "interleaved" => OutputLayout::Interleaved,
            _ => OutputLayout::SideBySide,
        }
    }
}

fn status_badge(status: ProcessStatus) -> String {
    let name = match status {
        ProcessStatus::Running => "running",
        ProcessStatus::Paused => "paused",
        ProcessStatus::Exited => "exited",
        ProcessStatus::Crashed => "crashed",
        ProcessStatus::Killed => "killed",
        ProcessStatus::Lost => "lost",
    };
    format!(r#"<span class="badge process-status {name}">{name}</span>"#)
}

fn command_text(command: &[String]) -> String {
    command.join(" ")
}

/// How the process ended, in one line, or None while it runs.
fn ending(p: &TrackedProcess) -> Option<String> {
    if p.status.is_alive() {
        return None;
    }
    Some(match (&p.reason, p.exit_code, &p.signal) {
        (Some(reason), _, _) => reason.clone(),
        (None, Some(code), _) => format!("exit code {code}"),
        (None, None, Some(signal)) => format!("killed by {signal}"),
        (None, None, None) => "ended".to_string(),
    })
}

/// The process list: running and paused ones, recently finished ones (with when they leave the
/// list), or every recorded one with `all`.
pub fn process_list(list: &[TrackedProcess], all: bool, now: f64) -> String {
    let mut out = String::new();
    let toggle = if all {
        r#"<a href="/processes">Show only the active list</a>"#
    } else {
        r#"<a href="/processes?all=1">Show every recorded process</a>"#
    };
    let _ = write!(out, r#"<p class="hint list-scope">{toggle}</p>"#);
    if list.is_empty() {
        out.push_str(concat!(
            r#"<section class="empty"><p>No processes.</p><p class="hint">Launch one below, or run "#,
            r#"<code>breakroom run -- python3 app.py</code>; programs that connect on their own show up too.</p></section>"#
        ));
        return titled(out, if all { "Processes · all" } else { "Processes" });
    }
    out.push_str(concat!(
        r#"<div class="table-wrap"><table class="processes tracked"><thead><tr><th>Process</th><th>Status</th>"#,
        r#"<th>pid</th><th>Command</th><th>Started</th><th>Uptime</th><th>Ended</th></tr></thead><tbody>"#
    ));
    for p in list {
        let leaves = match p.leaves_list_at {
            // The page counts `data-left-ms` down between live updates (`pages::processes`).
            Some(at) if !all && at > now => format!(
                r#"<span class="hint leaves" data-left-ms="{}"> · leaves the list in <span class="left">{}</span></span>"#,
                ((at - now) * 1000.0).round() as i64,
                duration(at - now)
            ),
            _ => String::new(),
        };
        let ended = ending(p).map(|e| esc(&e)).unwrap_or_default();
        let _ = write!(
            out,
            concat!(
                r#"<tr class="process-row {status_class}" data-process-id="{id}"><td><a href="/process/{id}">{name}</a></td>"#,
                r#"<td>{badge}</td><td class="pid">{pid}</td><td class="mono">{command}</td><td>{started}</td>"#,
                r#"<td>{uptime}</td><td class="reason">{ended}{leaves}</td></tr>"#
            ),
            status_class = if p.status == ProcessStatus::Crashed { "crashed" } else { "" },
            id = esc(&p.id),
            name = esc(&p.name),
            badge = status_badge(p.status),
            pid = p.pid.map(|pid| pid.to_string()).unwrap_or_default(),
            command = esc(&command_text(&p.command)),
            started = timestamp(p.started_at),
            uptime = duration(p.uptime_s),
            ended = ended,
            leaves = leaves,
        );
    }
    out.push_str("</tbody></table></div>");
    titled(out, if all { "Processes · all" } else { "Processes" })
}

/// One process: header, the exit or crash banner, Stop, its output (the newest `OUTPUT_TAIL`
/// lines), its pauses and REPL sessions.
pub fn process_page(detail: &ProcessDetail, output: &OutputPage, layout: OutputLayout) -> String {
    let p = &detail.process;
    let mut out = String::new();
    let _ = write!(
        out,
        concat!(
            r#"<header class="page-header process-header" data-process-id="{id}"><h1>{name}</h1>{badge}"#,
            r#"<dl class="meta"><dt>command</dt><dd class="mono">{command}</dd><dt>pid</dt><dd class="pid">{pid}</dd>"#,
            r#"<dt>host</dt><dd>{host}</dd><dt>cwd</dt><dd class="mono">{cwd}</dd><dt>started</dt><dd>{started}</dd>"#,
            r#"<dt>uptime</dt><dd class="uptime">{uptime}</dd></dl><nav class="links">"#,
            r#"<a class="button" href="/process/{id}/timeline">Timeline</a></nav></header>"#
        ),
        id = esc(&p.id),
        name = esc(&p.name),
        badge = status_badge(p.status),
        command = esc(&command_text(&p.command)),
        pid = p.pid.map(|pid| pid.to_string()).unwrap_or_default(),
        host = esc(&p.host),
        cwd = esc(p.cwd.as_deref().unwrap_or("")),
        started = timestamp(p.started_at),
        uptime = duration(p.uptime_s),
    );
    if let Some(ended) = ending(p) {
        let class = match p.status {
            ProcessStatus::Exited => "exit-banner clean",
            _ => "exit-banner crash",
        };
        let _ = write!(out, r#"<p class="{class}" role="status">{}</p>"#, esc(&ended));
    } else {
        out.push_str(r#"<p class="controls"><button type="button" data-action="stop">Stop</button></p><p class="error" hidden></p>"#);
    }
    output_section(&mut out, p, output, layout);
    breakpoint_events(&mut out, &detail.breakpoint_events);
    pauses_and_sessions(&mut out, detail);
    titled(out, &format!("Process · {}", p.name))
}

fn output_section(out: &mut String, p: &TrackedProcess, output: &OutputPage, layout: OutputLayout) {
    let id = esc(&p.id);
    let (toggle_href, toggle_text) = match layout {
        OutputLayout::SideBySide => (format!("/process/{id}?view=interleaved"), "Interleave the streams"),
        OutputLayout::Interleaved => (format!("/process/{id}"), "Side by side"),
    };
    let total = p.stdout.lines + p.stderr.lines;
    let shown_from = output.lines.first().map_or(total, |l| l.seq);
    let _ = write!(
        out,
        r#"<section class="output"><h2>Output</h2><p class="hint output-counts">stdout {} lines, stderr {} lines"#,
        p.stdout.lines, p.stderr.lines
    );
    if output.dropped > 0 {
        let _ = write!(
            out,
            r#" · <span class="dropped">{} oldest lines dropped (over the output limit)</span>"#,
            output.dropped
        );
    }
    if shown_from > output.dropped {
        let _ = write!(out, " · showing the newest {}", output.lines.len());
    }
    let _ = write!(out, r#" · <a class="layout-toggle" href="{}">{toggle_text}</a></p>"#, esc(&toggle_href));
    match layout {
        OutputLayout::Interleaved => {
            out.push_str(r#"<pre class="stream interleaved">"#);
            for line in &output.lines {
                output_line(out, line);
            }
            out.push_str("</pre>");
        }
        OutputLayout::SideBySide => {
            out.push_str(r#"<div class="streams">"#);
            for stream in OutputStream::BOTH {
                let _ = write!(out, r#"<div><h3>{0}</h3><pre class="stream {0}">"#, stream.as_str());
                for line in output.lines.iter().filter(|l| l.stream == stream) {
                    output_line(out, line);
                }
                out.push_str("</pre></div>");
            }
            out.push_str("</div>");
        }
    }
    out.push_str("</section>");
}

/// One captured line, its ANSI colours and styles shown as the terminal would (other escape codes
/// dropped; the text itself is escaped).
fn output_line(out: &mut String, line: &OutputLine) {
    let _ = writeln!(
        out,
        r#"<span class="line {}" data-seq="{}">{}</span>"#,
        line.stream.as_str(),
        line.seq,
        coloured(&line.text)
    );
}

/// Logpoint messages and breakpoint hits of the process, newest last (issue 18).
fn breakpoint_events(out: &mut String, events: &[RecordedEvent]) {
    if events.is_empty() {
        return;
    }
    out.push_str(
        r#"<section class="process-breakpoints"><h2>Logpoints and breakpoint hits</h2><ol class="breakpoint-events">"#,
    );
    for event in events {
        let text = |key: &str| event.data.get(key).and_then(|v| v.as_str()).unwrap_or("").to_string();
        let (class, body) = match event.kind {
            EventKind::Log => ("log", text("message")),
            _ => ("hit", format!("{} · {}", text("action"), text("reason"))),
        };
        let count =
            event.data.get("hit_count").and_then(|v| v.as_u64()).map(|n| format!(" · hit {n}")).unwrap_or_default();
        let _ = write!(
            out,
            r#"<li class="{class}"><span class="hint">{} {}{}</span> <code>{}</code></li>"#,
            timestamp(event.timestamp),
            esc(&text("breakpoint_id")),
            count,
            esc(&body)
        );
    }
    out.push_str("</ol></section>");
}

fn pauses_and_sessions(out: &mut String, detail: &ProcessDetail) {
    out.push_str(r#"<section class="process-pauses"><h2>Pauses</h2>"#);
    if detail.pauses.is_empty() {
        out.push_str(r#"<p class="hint">No call of this process has paused.</p>"#);
    } else {
        out.push_str(r#"<ul class="pause-links">"#);
        for pause in &detail.pauses {
            let state = match (&pause.resumed_at, &pause.resumed_reason) {
                (None, _) => r#"<span class="badge paused">Paused</span>"#.to_string(),
                (Some(_), Some(reason)) => {
                    format!(r#"<span class="badge resumed">Resumed</span> <span class="hint">{}</span>"#, esc(reason))
                }
                (Some(_), None) => r#"<span class="badge resumed">Resumed</span>"#.to_string(),
            };
            let _ = write!(
                out,
                r#"<li><a href="/callstack/{}" class="fn-name">{}</a> {state} <span class="hint">{}</span></li>"#,
                esc(&pause.pause_id),
                esc(&pause.function_name),
                timestamp(pause.paused_at)
            );
        }
        out.push_str("</ul>");
    }
    out.push_str(r#"</section><section class="process-sessions"><h2>REPL sessions</h2>"#);
    if detail.sessions.is_empty() {
        out.push_str(r#"<p class="hint">No REPL session was opened in this process.</p>"#);
    } else {
        out.push_str(r#"<ul class="session-links">"#);
        for s in &detail.sessions {
            let (class, status) = if s.closed_at.is_none() { ("active", "Active") } else { ("closed", "Closed") };
            let reason = s
                .closed_reason
                .as_deref()
                .map(|r| format!(r#" <span class="hint">{}</span>"#, esc(r)))
                .unwrap_or_default();
            let _ = write!(
                out,
                r#"<li><a class="mono" href="/repl/{id}">{id}</a> <span class="fn-name">{name}</span> <span class="badge {class}">{status}</span>{reason}</li>"#,
                id = esc(&s.session_id),
                name = esc(&s.function_name),
            );
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
}

/// `text` as HTML with its SGR codes as styled spans and other codes dropped; should the
/// converter refuse a malformed code, every code is dropped instead.
fn coloured(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return esc(text);
    }
    match ansi_to_html::convert(text) {
        // The converter passes codes other than SGR through (cursor moves, erase line, …).
        Ok(html) => crash_reason::strip_ansi(&html),
        Err(_) => esc(&crash_reason::strip_ansi(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_colours_become_styled_spans_and_the_text_stays_escaped() {
        let html = coloured("\u{1b}[31m<red>\u{1b}[0m plain");
        assert!(html.contains("<span style='color:var(--red,#a00)'>&lt;red&gt;</span>"), "{html}");
        assert!(html.ends_with(" plain") && !html.contains('\u{1b}'), "{html}");
        assert_eq!(coloured("no <codes>"), "no &lt;codes&gt;");
        assert!(!coloured("\u{1b}[2Kcleared \u{1b}[?25l").contains('\u{1b}'), "other codes are dropped");
    }

    #[test]
    fn durations_read_in_the_largest_sensible_unit() {
        assert_eq!(duration(5.2), "5 s");
        assert_eq!(duration(125.0), "2 min 5 s");
        assert_eq!(duration(7_300.0), "2 h 1 min");
    }

    #[test]
    fn logpoint_messages_are_listed_escaped_with_their_breakpoint() {
        let event = |kind, data: serde_json::Value| RecordedEvent {
            sequence: 1,
            timestamp: 0.0,
            kind,
            process_key: None,
            session_id: None,
            data,
        };
        let events = [
            event(EventKind::Log, serde_json::json!({"breakpoint_id": "bp-2", "message": "n=<3>", "hit_count": 4})),
            event(
                EventKind::BreakpointHit,
                serde_json::json!({"breakpoint_id": "bp-1", "action": "pause", "reason": "line"}),
            ),
        ];
        let mut out = String::new();
        breakpoint_events(&mut out, &events);
        assert!(
            out.contains(r#"<li class="log">"#)
                && out.contains("bp-2 · hit 4")
                && out.contains("<code>n=&lt;3&gt;</code>"),
            "{out}"
        );
        assert!(out.contains("<code>pause · line</code>"), "{out}");
    }
}
