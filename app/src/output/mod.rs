//! A tracked process's output as its page shows it (issue 45): the newest [`OUTPUT_TAIL`] lines,
//! rendered by the server when the page opens, then followed live. A `process_output` event
//! makes the page fetch the lines after the last one it holds, and only those, rendered by the
//! same template as the section (`process_output_after`); the page moves them to the end of
//! their columns and keeps the newest [`OUTPUT_TAIL`]. Nothing refetches the whole output, or
//! the page, for a line.
//!
//! Why the server renders the new lines and the page does not build them from the event: the
//! colouring (ansi-to-html) and the event's readers would have grown the wasm every page loads,
//! and the REPL page's past its budget (measured, see the Benchmarks chapter). The bytes a line
//! costs are its own markup and a request's headers.
//!
//! What the page holds is in the section itself: `data-next`, the number of the line it expects
//! next, and each line's `data-seq`.

#[cfg(feature = "hydrate")]
pub mod browser;
#[cfg(feature = "ssr")]
mod section;
#[cfg(feature = "ssr")]
pub use section::{line, output_section};

/// How many of the newest output lines the process page shows; the API pages through the rest.
pub const OUTPUT_TAIL: usize = 2_000;

/// The hooks the page finds the output by (the template's classes and attributes; the tests of
/// `section` hold them together).
pub const SECTION_CLASS: &str = "output";
/// The section's number of the line it expects next.
pub const NEXT_ATTRIBUTE: &str = "data-next";
/// Each line's number, across both streams of the process.
pub const SEQ_ATTRIBUTE: &str = "data-seq";
/// Each column of lines: a `pre` of this class and its stream's (or [`INTERLEAVED_CLASS`]).
pub const COLUMN_CLASS: &str = "stream";
pub const INTERLEAVED_CLASS: &str = "interleaved";
/// The line under the heading: the counts of each stream, and how many lines show.
pub const COUNTS_CLASS: &str = "output-counts";
pub const SHOWN_CLASS: &str = "shown";
pub const SHOWN_LINES_CLASS: &str = "shown-lines";

/// How the process page lays out its two streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputLayout {
    /// stdout and stderr in two columns.
    SideBySide,
    /// Both streams in one column, in the order the lines were captured.
    Interleaved,
}

impl OutputLayout {
    /// The page's `?view=`: `interleaved`, or anything else for side by side.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "interleaved" => OutputLayout::Interleaved,
            _ => OutputLayout::SideBySide,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OutputLayout::SideBySide => "side-by-side",
            OutputLayout::Interleaved => "interleaved",
        }
    }
}
