//! A transcript entry's HTML: one maud template, escaped by construction, that the server uses to
//! render a page and the browser uses for every entry it appends (an eval's reply, a live event,
//! earlier entries). The browser inserts what this returns and nothing else.
//!
//! Rich outputs, safe by construction (issue 52):
//! - tables are Breakroom's own table, every cell escaped text;
//! - images, SVG included, are `<img src="data:…">`: an image runs no script, and SVG is never
//!   put inline;
//! - HTML of a kind Breakroom does not know goes into an iframe with an empty `sandbox` through
//!   `srcdoc`, which maud escapes like any attribute, behind a CSP of its own that loads nothing.

use maud::{html, Markup};

use breakroom_debugger::model::Language;
use breakroom_debugger::outputs::Table;

use super::{Part, ShownEntry, ShownOutput};
use crate::highlight;

/// One entry: a `li.entry` carrying its input (`data-input`, for ↑/↓) and its time (`data-ms`,
/// for the replay's pace).
pub fn entry(entry: &ShownEntry, language: Language) -> Markup {
    // A step's mark (`→ prog.py:12 in checkout`): no input, not an eval.
    if entry.input.is_empty() {
        return html! { li.entry.step-mark data-index=(entry.index) data-input="" data-ms=(entry.ms) { (entry.output) } };
    }
    html! {
        li.entry.failed[entry.is_error] data-index=(entry.index) data-input=(entry.input) data-ms=(entry.ms) {
            (input_lines(&entry.input, language))
            @if !entry.stdout.is_empty() {
                pre.stdout { (entry.stdout) }
            }
            @if !entry.output.is_empty() && entry.repr_shown {
                pre.output.error[entry.is_error] { (entry.output) }
            }
            @for output in &entry.outputs { (rich_output(output)) }
            @if let Some(cid) = &entry.result_cid {
                a.object-link.hint href={ "/object/" (cid) } title="the stored value" { "stored value" }
            }
        }
    }
}

/// Entries, in order, as one piece of HTML.
pub fn entries<'a>(entries: impl IntoIterator<Item = &'a ShownEntry>, language: Language) -> String {
    let mut html = String::new();
    for e in entries {
        html.push_str(&entry(e, language).into_string());
    }
    html
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

/// One rich output: its parts, the link to all its table's rows, its notes.
pub fn rich_output(output: &ShownOutput) -> Markup {
    let rows = output.parts.iter().find_map(|p| match p {
        Part::Table(table) => Some(table.row_count),
        _ => None,
    });
    html! {
        div.rich-output data-output-type=(output.output_type) {
            @for part in &output.parts { (part_markup(part)) }
            @if let (Some(href), Some(rows)) = (&output.table_href, rows) {
                // A page the server renders alone: the app's router must not take the click.
                a.table-link href=(href) rel="external" { "all " (rows) " rows, sortable →" }
            }
            @for note in &output.notes {
                p.hint.rich-note { (note) }
            }
        }
    }
}

fn part_markup(part: &Part) -> Markup {
    html! {
        @match part {
            Part::Text(text) => pre.rich-text { (text) },
            Part::Image { src, alt } => img.rich-image src=(src) alt=(alt);,
            Part::Table(table) => (table_markup(table)),
            Part::Html(srcdoc) => iframe.rich-html sandbox="" referrerpolicy="no-referrer"
                title="HTML the value showed (sandboxed)" srcdoc=(srcdoc) {},
            Part::Plain(text) => pre.output { (text) },
        }
    }
}

fn table_markup(table: &Table) -> Markup {
    let shown = table.rows.len();
    let columns = table.column_count.max(table.columns.len() as u64);
    html! {
        div.rich-table {
            p.hint.table-shape {
                (table.row_count) " rows × " (columns) " columns"
                @if (shown as u64) < table.row_count { " · the first " (shown) " shown" }
            }
            @if !table.dtypes.is_empty() {
                p.hint.table-dtypes {
                    @for (i, (column, dtype)) in table.dtypes.iter().enumerate() {
                        @if i > 0 { ", " }
                        (column) ": " (dtype)
                    }
                }
            }
            div.table-scroll {
                table {
                    thead {
                        tr {
                            @if !table.index.is_empty() { th {} }
                            @for column in &table.columns { th { (column) } }
                        }
                    }
                    tbody {
                        @for (i, row) in table.rows.iter().enumerate() {
                            tr {
                                @if let Some(label) = table.index.get(i) { th.row-label { (label) } }
                                @else if !table.index.is_empty() { th {} }
                                @for cell in row { td { (cell) } }
                            }
                        }
                    }
                }
            }
        }
    }
}
