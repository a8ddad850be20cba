//! An eval's rich outputs on the page (issue 52), safe by construction:
//! - tables (a DataFrame, a list of dicts, a 2-D array) are Breakroom's own table, every cell
//!   escaped text;
//! - images, SVG included, are `<img src="data:…">`: an image runs no script, and SVG is never
//!   put inline;
//! - HTML of a type Breakroom does not know (a `_repr_html_`) goes into an iframe with an empty
//!   `sandbox` (no scripts, no same-origin, no forms, no navigation of this page) through
//!   `srcdoc`, which maud escapes like any attribute, behind a CSP of its own that loads nothing;
//! - markdown, LaTeX and JSON are shown as their text.

use base64::Engine;
use maud::{html, Markup};

use breakroom_debugger::outputs::{
    OutputType, RichOutput, Table, MIME_HTML, MIME_JPEG, MIME_JSON, MIME_LATEX, MIME_MARKDOWN, MIME_PLAIN, MIME_PNG,
    MIME_SVG,
};

/// The frame's own policy, first in its document: nothing is fetched, nothing runs; inline
/// styles and data: images (what `_repr_html_` tables and plots use) still show.
const FRAME_POLICY: &str =
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">";

/// `session_id`: the REPL session the outputs belong to, whose tables have pages of their own;
/// None for outputs no live program stands behind (a snapshot's).
pub fn rich_outputs(outputs: &[RichOutput], session_id: Option<&str>) -> Markup {
    html! {
        @for output in outputs {
            div.rich-output data-output-type=(output_type(output.output_type)) {
                (one(output))
                @if let (Some(session_id), Some(handle), Some(table)) = (session_id, output.table_handle(), output.table()) {
                    // A page the server renders alone: the app's router must not take the click.
                    a.table-link href={ "/repl/" (session_id) "/table/" (handle) } rel="external" {
                        "all " (table.row_count) " rows, sortable →"
                    }
                }
                @for note in output.notes() {
                    p.hint.rich-note { (note) }
                }
            }
        }
    }
}

/// Whether the outputs show the eval's value in a form richer than its text.
pub fn shows_the_value(outputs: &[RichOutput]) -> bool {
    outputs.iter().any(|o| o.output_type == OutputType::ExecuteResult && o.data.keys().any(|mime| mime != MIME_PLAIN))
}

fn output_type(kind: OutputType) -> &'static str {
    match kind {
        OutputType::ExecuteResult => "execute_result",
        OutputType::DisplayData => "display_data",
        OutputType::Stream => "stream",
    }
}

/// The richest forms first, as a notebook picks: a summary, then a picture, then a table;
/// HTML only when none of Breakroom's own forms is there.
fn one(output: &RichOutput) -> Markup {
    let image = [MIME_PNG, MIME_JPEG].into_iter().find_map(|mime| output.text(mime).map(|b64| (mime, b64)));
    let svg = output.text(MIME_SVG);
    let table = output.table();
    let own = image.is_some() || svg.is_some() || table.is_some();
    let text = [MIME_MARKDOWN, MIME_LATEX].into_iter().find_map(|mime| output.text(mime));
    let json = output.data.get(MIME_JSON).filter(|_| !own);
    // display() of a value with no rich form: its text is all there is.
    let plain = output.text(MIME_PLAIN).filter(|_| output.output_type != OutputType::ExecuteResult);
    html! {
        @if let Some(text) = text {
            pre.rich-text { (text) }
        }
        @if let Some((mime, b64)) = image {
            img.rich-image src={ "data:" (mime) ";base64," (b64.trim()) } alt="an image the value showed";
        } @else if let Some(svg) = svg {
            img.rich-image src={ "data:image/svg+xml;base64," (base64::engine::general_purpose::STANDARD.encode(svg)) }
                alt="an SVG image the value showed";
        }
        @if let Some(table) = &table {
            (table_markup(table))
        } @else if let Some(html) = output.text(MIME_HTML).filter(|_| !own) {
            iframe.rich-html sandbox="" referrerpolicy="no-referrer" title="HTML the value showed (sandboxed)"
                srcdoc={ (FRAME_POLICY) (html) } {}
        } @else if let Some(json) = json {
            pre.rich-text { (serde_json::to_string_pretty(json).unwrap_or_default()) }
        } @else if text.is_none() && image.is_none() && svg.is_none() {
            @if let Some(plain) = plain {
                pre.output { (plain) }
            }
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
