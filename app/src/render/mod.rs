//! Read-only page content rendered to HTML on the server. A page's server function answers
//! with this HTML; the page shows it with `inner_html`, on the server and after every live
//! refetch alike. None of this is in the wasm: the browser needs no decoder for the data nor view
//! code for markup that has no behaviour of its own (links are followed by the router, `<details>`
//! opens by itself), which is most of what the split pages would otherwise download.
//!
//! The data comes from the debugged programs (their arguments, sources, REPL output, process
//! names) and must never become markup: these pages can run code in every debugged process, so an
//! injected script is remote code execution. So the HTML is written with `maud`'s `html!`
//! templates, which escape every value spliced into text or an attribute; the only way to put
//! markup in is to wrap it in `PreEscaped`, which this crate does for exactly two producers that
//! escape the text themselves: the syntax highlighter's classes around escaped tokens
//! (`repl::input_lines`) and ansi-to-html's colour spans (`crate::output::coloured`).
//!
//! Why maud and not Leptos `view!` rendered on the server: the templates are checked at compile
//! time and compile to plain string pushes (no reactive runtime, no hydration markers to strip,
//! no process-wide SSR state to share with the pages being rendered around them), and it is a
//! small, maintained crate (0.27, 2025) enabled only by the `ssr` feature, so the wasm is
//! unchanged.
//!
//! One module per page, named like its page in `crate::pages`.

use maud::{html, Markup, Render};

use breakroom_debugger::model::SessionLink;

pub mod breakpoint_records;
pub mod call_tree;
pub mod callstack;
pub mod debug;
pub mod object;
pub mod outputs;
pub mod paused;
pub mod process_family;
pub mod processes;
pub mod repl;
pub mod repls;
pub mod runtimes;
pub mod shell;
pub mod sign_in;
pub mod snapshot;
pub mod snapshots;
pub mod table_page;
pub mod time_travel;
pub mod variables;
pub mod watch;

pub use call_tree::{call_tree, processes};
pub use callstack::{call_stack_frames, call_stack_head};
pub use object::stored_value;
pub use paused::{breakpoints, paused_calls};
pub use repl::{repl_session, repl_transcript};
pub use repls::{sessions, Filters};

/// The page's title where the page finds it (`crate::pages::title_in`): a comment at the end of
/// its HTML, the title escaped inside it (which also keeps `-->` out).
struct TitleMarker<'a>(&'a str);

impl Render for TitleMarker<'_> {
    fn render_to(&self, buffer: &mut String) {
        buffer.push_str(&crate::pages::title_marker(&html! { (self.0) }.into_string()));
    }
}

/// `body` with the page's title at its end.
fn titled(body: Markup, title: &str) -> String {
    html! { (body) (TitleMarker(title)) }.into_string()
}

/// `<option>`s for `options` (value, label), `current` selected.
fn options<'a>(options: impl IntoIterator<Item = (&'a str, &'a str)>, current: &str) -> Markup {
    html! {
        @for (value, label) in options {
            option value=(value) selected[value == current] { (label) }
        }
    }
}

/// Links to REPL sessions, with their state, or `empty` as a hint when there are none.
pub fn session_links(sessions: &[SessionLink], empty: &str) -> Markup {
    html! {
        @if sessions.is_empty() {
            p.hint { (empty) }
        } @else {
            ul.session-links {
                @for s in sessions {
                    @let status = if s.active { "Active" } else { "Closed" };
                    li data-session-id=(s.session_id) {
                        a.mono href={ "/repl/" (s.session_id) } { (s.session_id) }
                        " "
                        span class={ "badge " (status.to_ascii_lowercase()) } { (status) }
                        span.hint { " " span.lines { (s.entries) } " lines" }
                    }
                }
            }
        }
    }
}

/// `value` percent-encoded for a query string or one path segment.
pub(crate) fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_title_with_markup_stays_inside_its_marker() {
        let html = super::titled(maud::html! { h1 { "f" } }, "</title><script>x</script> -->");
        assert!(!html.contains("<script>"), "{html}");
        assert_eq!(crate::pages::title_in(&html).as_deref(), Some("</title><script>x</script> -->"));
    }
}
