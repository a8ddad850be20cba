//! The output section as the server renders it: the counts, the layout toggle, and lines in one
//! column or two. The same template renders the newest lines when the page opens and the lines a
//! page fetches after the last one it holds (`super::browser::append` moves them into place).

use maud::{html, Markup, PreEscaped};

use breakroom_debugger::processes::ansi::strip_ansi;
use breakroom_debugger::processes::{OutputLine, OutputPage, OutputStream, TrackedProcess};

use super::{
    OutputLayout, COLUMN_CLASS, COUNTS_CLASS, INTERLEAVED_CLASS, SECTION_CLASS, SHOWN_CLASS, SHOWN_LINES_CLASS,
};

/// One captured line, its ANSI colours and styles shown as the terminal would.
pub fn line(line: &OutputLine) -> Markup {
    html! {
        span class={ "line " (line.stream.as_str()) } data-seq=(line.seq) { (coloured(&line.text)) }
        "\n"
    }
}

/// `text` with its SGR codes as styled spans and other codes dropped; should the converter refuse
/// a malformed code, every code is dropped instead. ansi-to-html escapes the text itself and adds
/// only its own `<span style>`s, so its answer is the one markup here not built by `html!`.
fn coloured(text: &str) -> Markup {
    if !text.contains('\u{1b}') {
        return html! { (text) };
    }
    match ansi_to_html::convert(text) {
        // The converter passes codes other than SGR through (cursor moves, erase line, …).
        Ok(markup) => PreEscaped(strip_ansi(&markup)),
        Err(_) => html! { (strip_ansi(text)) },
    }
}

/// The class of the `pre` a line of `stream` goes to.
fn column_of(layout: OutputLayout, stream: OutputStream) -> &'static str {
    match layout {
        OutputLayout::SideBySide => stream.as_str(),
        OutputLayout::Interleaved => INTERLEAVED_CLASS,
    }
}

fn lines<'a>(all: impl IntoIterator<Item = &'a OutputLine>) -> Markup {
    html! { @for l in all { (line(l)) } }
}

/// The section of process `p`, holding `output` (its newest lines, oldest first).
pub fn output_section(p: &TrackedProcess, output: &OutputPage, layout: OutputLayout) -> String {
    section(&p.id, [p.stdout.lines, p.stderr.lines], output, layout)
}

/// `counts`: the lines each stream captured (`OutputStream::BOTH`'s order), dropped ones included.
fn section(id: &str, counts: [u64; 2], output: &OutputPage, layout: OutputLayout) -> String {
    let (toggle_href, toggle_text) = match layout {
        OutputLayout::SideBySide => {
            (format!("/process/{}?view=interleaved", crate::render::encode(id)), "Interleave the streams")
        }
        OutputLayout::Interleaved => (format!("/process/{}", crate::render::encode(id)), "Side by side"),
    };
    let total: u64 = counts.iter().sum();
    let shown_from = output.lines.first().map_or(total, |l| l.seq);
    // The next line the page expects: one past the last shown (lines after it come live).
    let next = output.lines.last().map_or(total, |l| l.seq + 1);
    let column = |class: &str| {
        let of = |l: &&OutputLine| column_of(layout, l.stream) == class;
        lines(output.lines.iter().filter(of))
    };
    html! {
        // The attributes are `NEXT_ATTRIBUTE` and `SEQ_ATTRIBUTE` (maud names attributes
        // literally; the tests below hold them together).
        section class=(SECTION_CLASS) data-next=(next) data-layout=(layout.as_str()) {
            h2 { "Output" }
            p class={ "hint " (COUNTS_CLASS) } {
                @for (i, stream) in OutputStream::BOTH.into_iter().enumerate() {
                    @if i > 0 { ", " }
                    (stream.as_str()) " " span class={ "count " (stream.as_str()) } { (counts[i]) } " lines"
                }
                @if output.dropped > 0 {
                    " · " span.dropped { (output.dropped) " oldest lines dropped (over the output limit)" }
                }
                span class=(SHOWN_CLASS) hidden[shown_from <= output.dropped] {
                    " · showing the newest " span class=(SHOWN_LINES_CLASS) { (output.lines.len()) }
                }
                " · " a.layout-toggle href=(toggle_href) { (toggle_text) }
            }
            @match layout {
                OutputLayout::Interleaved => pre class={ (COLUMN_CLASS) " " (INTERLEAVED_CLASS) } {
                    (column(INTERLEAVED_CLASS))
                },
                OutputLayout::SideBySide => div.streams {
                    @for stream in OutputStream::BOTH {
                        div {
                            h3 { (stream.as_str()) }
                            pre class={ (COLUMN_CLASS) " " (stream.as_str()) } { (column(stream.as_str())) }
                        }
                    }
                },
            }
        }
    }
    .into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_colours_become_styled_spans_and_the_text_stays_escaped() {
        let html = coloured("\u{1b}[31m<red>\u{1b}[0m plain").into_string();
        assert!(html.contains("<span style='color:var(--red,#a00)'>&lt;red&gt;</span>"), "{html}");
        assert!(html.ends_with(" plain") && !html.contains('\u{1b}'), "{html}");
        assert_eq!(coloured("no <codes>").into_string(), "no &lt;codes&gt;");
        assert!(!coloured("\u{1b}[2Kcleared \u{1b}[?25l").into_string().contains('\u{1b}'), "other codes are dropped");
    }

    #[test]
    fn a_line_is_one_numbered_span_of_its_stream_and_its_markup_is_text() {
        let l =
            OutputLine { seq: 7, time: 1.5, stream: OutputStream::Stderr, text: "<img src=x onerror=alert(1)>".into() };
        assert_eq!(
            super::line(&l).into_string(),
            "<span class=\"line stderr\" data-seq=\"7\">&lt;img src=x onerror=alert(1)&gt;</span>\n"
        );
        assert_eq!(column_of(OutputLayout::SideBySide, OutputStream::Stderr), "stderr");
        assert_eq!(column_of(OutputLayout::Interleaved, OutputStream::Stdout), INTERLEAVED_CLASS);
        for layout in [OutputLayout::SideBySide, OutputLayout::Interleaved] {
            assert_eq!(OutputLayout::parse(layout.as_str()), layout);
        }
    }
    use crate::output::{NEXT_ATTRIBUTE, SEQ_ATTRIBUTE};

    fn line(seq: u64, stream: OutputStream, text: &str) -> OutputLine {
        OutputLine { seq, time: 0.0, stream, text: text.into() }
    }

    #[test]
    fn the_section_says_which_line_comes_next_and_puts_each_line_in_its_column() {
        let output = OutputPage {
            lines: vec![line(5, OutputStream::Stdout, "a"), line(6, OutputStream::Stderr, "<b>")],
            next: 7,
            dropped: 0,
        };
        let html = section("p/1", [4, 3], &output, OutputLayout::SideBySide);
        assert!(html.contains(&format!("{NEXT_ATTRIBUTE}=\"7\" data-layout=\"side-by-side\"")), "{html}");
        assert!(html.contains(&format!("<span class=\"line stdout\" {SEQ_ATTRIBUTE}=\"5\">")), "{html}");
        assert!(
            html.contains("<pre class=\"stream stdout\"><span class=\"line stdout\" data-seq=\"5\">a</span>"),
            "{html}"
        );
        assert!(
            html.contains("<pre class=\"stream stderr\"><span class=\"line stderr\" data-seq=\"6\">&lt;b&gt;</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"count stdout\">4</span>")
                && html.contains("<span class=\"count stderr\">3</span>")
        );
        // Lines 0 to 4 are not shown: the count of those shown says so.
        assert!(
            html.contains("<span class=\"shown\"> · showing the newest <span class=\"shown-lines\">2</span>"),
            "{html}"
        );
        assert!(html.contains("href=\"/process/p%2F1?view=interleaved\""), "{html}");
        let empty = OutputPage { lines: vec![], next: 0, dropped: 0 };
        let html = section("p", [0, 0], &empty, OutputLayout::Interleaved);
        assert!(
            html.contains(&format!("{NEXT_ATTRIBUTE}=\"0\""))
                && html.contains("<pre class=\"stream interleaved\"></pre>"),
            "{html}"
        );
        assert!(html.contains("<span class=\"shown\" hidden>"), "{html}");
    }
}
