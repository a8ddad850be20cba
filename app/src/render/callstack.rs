//! `/callstack/{pause_id}` in two parts: what changes while the page is open (the header with the
//! pause's badge, the sessions on the pause), and the frames innermost first, which never change
//! but for the marks of line breakpoints. The page reads each again on its own events
//! (`crate::pages::callstack`).

use maud::{html, Markup};

use breakroom_debugger::breakpoints::record::BreakpointRecord;
use breakroom_debugger::model::{CallStackView, FrameView, PauseReason};

use super::{session_links, titled};
use crate::format::timestamp;

/// The header and the sessions: what a session starting or closing on the pause, or the pause
/// going on, changes.
pub fn call_stack_head(view: &CallStackView) -> String {
    let reason = match view.reason {
        PauseReason::Breakpoint => "paused before the call",
        PauseReason::After => "paused after the call returned",
        PauseReason::Exception => "paused on an exception",
    };
    let state = if view.still_paused { "Paused" } else { "Resumed" };
    let body = html! {
        header.page-header {
            h1 { "Call Stack for " span.fn-name { (view.function_name) } }
            span class={ "badge " (state.to_ascii_lowercase()) } { (state) }
            dl.meta {
                dt { "process" } dd.pid { (view.pid) }
                dt { "paused at" } dd { (timestamp(view.paused_at)) }
                dt { "reason" } dd { (reason) }
            }
            nav.links {
                a.button href={ "/call-tree/" (view.process_key) "?selected=" (view.call_id) } { "View Call Tree" }
            }
        }
        section.related {
            h2 { "REPL sessions on this pause" }
            (session_links(&view.sessions, "None yet: open one from the Paused page while the call is paused."))
        }
    };
    titled(body, &format!("Call stack · {}", view.function_name))
}

/// The frames: source lines with a line breakpoint (of `breakpoints`) marked.
pub fn call_stack_frames(view: &CallStackView, breakpoints: &[BreakpointRecord]) -> String {
    html! {
        section.frames-part {
            h2 { (view.frames.len()) " frames, innermost first" }
            @if view.frames.is_empty() {
                p.hint { "The client sent no stack for this call." }
            } @else {
                p.hint { "Click a line number to set or remove a line breakpoint there." }
                ol.frames {
                    @for (i, f) in view.frames.iter().enumerate() {
                        (frame(f, i == 0, breakpoints))
                    }
                }
            }
        }
    }
    .into_string()
}

/// A frame: where it is and the line it was at; opens to the source around that line.
fn frame(frame: &FrameView, open: bool, breakpoints: &[BreakpointRecord]) -> Markup {
    let has_source = !frame.source_lines.is_empty();
    html! {
        li.frame {
            details open[open && has_source] {
                summary {
                    span.fn-name { (frame.function) }
                    span.where { (frame.filename) ":" (frame.lineno) }
                    @if let Some(context) = &frame.code_context {
                        code.context { (context) }
                    }
                }
                @if has_source {
                    pre.source data-file=(frame.filename) {
                        @for (i, line) in frame.source_lines.iter().enumerate() {
                            @let n = frame.source_start + i as i64;
                            @let set = u32::try_from(n).is_ok_and(|n| breakpoints.iter().any(|b| b.is_line_at(&frame.filename, n)));
                            @let title = if set { "Remove the line breakpoint" } else { "Set a line breakpoint" };
                            span.line.current[n == frame.lineno].bp[set] data-line=(n) {
                                span.lineno title=(title) { (format!("{n:>5} ")) }
                                (line) "\n"
                            }
                        }
                    }
                }
                @if !frame.locals.is_empty() {
                    p.locals.hint { "locals: " code { (frame.locals.join(", ")) } }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let spec = breakroom_debugger::breakpoints::record::BreakpointSpec::line("<evil>.py", 1);
        let bp = BreakpointRecord::from_spec("bp-1".into(), &spec, 0.0).unwrap();
        let out = super::frame(&frame, true, &[bp]).into_string();
        assert!(!out.contains("<evil>") && !out.contains("<img") && !out.contains("<script>") && !out.contains("<b>"));
        assert!(out.contains("&lt;/pre&gt;&lt;script&gt;1&lt;/script&gt;"), "{out}");
        assert!(out.contains(r#"<pre class="source" data-file="/tmp/&lt;evil&gt;.py">"#), "{out}");
        assert!(out.contains(r#"<span class="line bp" data-line="1">"#), "the line with a breakpoint is marked: {out}");
        assert!(out.contains(r#"<span class="line current" data-line="2"><span class="lineno" title="Set a line breakpoint">    2 </span>x = 1"#), "{out}");
    }
}
