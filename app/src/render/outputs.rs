//! An eval's rich outputs on the page (issue 52), safe by construction:
//! - tables (a DataFrame, a list of dicts, a 2-D array) are Breakroom's own table, every cell
//!   escaped text;
//! - images, SVG included, are `<img src="data:…">`: an image runs no script, and SVG is never
//!   put inline;
//! - HTML of a type Breakroom does not know (a `_repr_html_`) goes into an iframe with an empty
//!   `sandbox` (no scripts, no same-origin, no forms, no navigation of this page) through
//!   `srcdoc`, which maud escapes like any attribute, behind a CSP of its own that loads nothing;
//! - markdown, LaTeX and JSON are shown as their text.

use maud::{html, Markup};

use breakroom_debugger::outputs::{RichOutput, Table};

use crate::transcript::{shown_output, table_page, Part};

/// `session_id`: the REPL session the outputs belong to, whose tables have pages of their own;
/// None for outputs no live program stands behind (a snapshot's). Which forms show is
/// [`crate::transcript::shown_output`]'s choice, the same as the REPL page's.
pub fn rich_outputs(outputs: &[RichOutput], session_id: Option<&str>) -> Markup {
    html! {
        @for output in outputs {
            @let shown = shown_output(output);
            div.rich-output data-output-type=(shown.output_type) {
                @for part in &shown.parts { (part_markup(part)) }
                @if let (Some(session_id), Some(handle), Some(table)) = (session_id, output.table_handle(), output.table()) {
                    // A page the server renders alone: the app's router must not take the click.
                    a.table-link href=(table_page(session_id, handle)) rel="external" {
                        "all " (table.row_count) " rows, sortable →"
                    }
                }
                @for note in &shown.notes {
                    p.hint.rich-note { (note) }
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_html_is_only_ever_an_escaped_srcdoc_of_a_sandboxed_frame() {
        let output: RichOutput = serde_json::from_value(json!({"output_type": "execute_result",
            "data": {"text/html": "<script>alert(1)</script>\"><img src=x onerror=alert(2)>", "text/plain": "x"}}))
        .expect("an output");
        let html = rich_outputs(&[output], Some("1-2.5")).into_string();
        assert!(!html.contains("<script>") && !html.contains("<img"), "{html}");
        assert!(html.contains(r#"sandbox="""#) && html.contains("srcdoc=\"&lt;meta"), "{html}");
    }
}
