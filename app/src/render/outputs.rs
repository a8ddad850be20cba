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

use breakroom_debugger::outputs::RichOutput;

use crate::transcript::{markup, shown_output, table_page};

/// `session_id`: the REPL session the outputs belong to, whose tables have pages of their own;
/// None for outputs no live program stands behind (a snapshot's). Which forms show, and how, is
/// the REPL page's own choice and template (`crate::transcript`).
pub fn rich_outputs(outputs: &[RichOutput], session_id: Option<&str>) -> Markup {
    let shown = outputs.iter().map(|output| {
        let mut shown = shown_output(output);
        shown.table_href = session_id.zip(output.table_handle()).map(|(s, h)| table_page(s, h));
        shown
    });
    html! { @for output in shown { (markup::rich_output(&output)) } }
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
