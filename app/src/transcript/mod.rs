//! A REPL transcript as the page shows it (issue 45): typed entries that the server functions
//! return and the live stream carries, rendered by `crate::pages::transcript`'s components.
//!
//! An entry's rich outputs arrive as nbformat data (MIME type → form, `serde_json::Value` on the
//! server). Which forms the page shows, and how, is decided once, here, by [`shown_output`], over
//! any [`Forms`]: the server's `RichOutput` when it answers a server function, and in the browser
//! the live event's entry as the browser's own JSON parser read it (the wasm has no JSON decoder:
//! see `crate::rpc::TextRpc`). What the components get is plain typed data.

use serde::{Deserialize, Serialize};

use breakroom_debugger::model::Language;
use breakroom_debugger::outputs::{
    Table, MIME_HTML, MIME_JPEG, MIME_JSON, MIME_LATEX, MIME_MARKDOWN, MIME_PLAIN, MIME_PNG, MIME_SVG,
};

/// How many entries a transcript opens with, and how many more each "earlier" loads.
pub const PAGE_ENTRIES: usize = 100;

/// The frame's own policy, first in its document: nothing is fetched, nothing runs; inline
/// styles and data: images (what `_repr_html_` tables and plots use) still show.
pub const FRAME_POLICY: &str =
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">";

/// One transcript entry, ready to show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShownEntry {
    pub index: usize,
    /// Empty for a step's mark (`→ prog.py:12 in checkout`), whose text is `output`.
    pub input: String,
    pub output: String,
    pub stdout: String,
    pub is_error: bool,
    pub result_cid: Option<String>,
    /// Epoch milliseconds (the browser reads them without a float parser).
    pub ms: i64,
    /// False when an output shows the value in a richer form than its repr.
    pub repr_shown: bool,
    pub outputs: Vec<ShownOutput>,
}

/// One rich output: its parts, richest first, as a notebook picks them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShownOutput {
    /// nbformat's `output_type` (`execute_result`, `display_data`, `stream`).
    pub output_type: String,
    pub parts: Vec<Part>,
    /// The page of all the table's rows, sortable (server-rendered, `/repl/{id}/table/{handle}`).
    pub table_href: Option<String>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Part {
    /// Markdown, LaTeX or JSON, shown as its text.
    Text(String),
    /// A `data:` URL of an `<img>`: an image runs no script, and SVG is never put inline.
    Image { src: String, alt: String },
    /// Breakroom's own table, every cell text.
    Table(Table),
    /// HTML of a kind Breakroom does not know: the `srcdoc` of an iframe with an empty sandbox,
    /// behind [`FRAME_POLICY`].
    Html(String),
    /// What `display()` showed of a value with no rich form.
    Plain(String),
}

/// A transcript's newest entries (or an earlier run of them): `entries` are
/// `first_index..first_index + entries.len()` of the session's `total`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranscriptPage {
    pub entries: Vec<ShownEntry>,
    pub first_index: usize,
    pub total: usize,
    pub language: Language,
    /// When the session started (epoch ms): the replay's first gap is measured from it.
    pub started_ms: i64,
}

/// An output's forms, wherever they were read from.
pub trait Forms {
    fn output_type(&self) -> String;
    /// A form that is a string (text, base64 of an image).
    fn text(&self, mime: &str) -> Option<String>;
    fn has(&self, mime: &str) -> bool;
    fn table(&self) -> Option<Table>;
    /// A JSON form as indented text.
    fn json(&self, mime: &str) -> Option<String>;
    /// An SVG image as a `data:` URL.
    fn svg_src(&self, svg: &str) -> String;
    /// `breakroom.table.url` of the metadata: the table's pages, when a live object stands behind it.
    fn table_url(&self) -> Option<String>;
    fn notes(&self) -> Vec<String>;
}

/// Epoch seconds as the page's milliseconds.
pub fn millis(epoch: f64) -> i64 {
    (epoch * 1000.0).round() as i64
}

/// Whether the outputs show the value in a form richer than its text.
pub fn shows_the_value<F: Forms>(outputs: &[F]) -> bool {
    outputs.iter().any(|o| o.output_type() == "execute_result" && RICH.iter().any(|mime| o.has(mime)))
}

/// Every form but plain text.
const RICH: [&str; 8] = [
    MIME_HTML,
    MIME_MARKDOWN,
    MIME_LATEX,
    MIME_PNG,
    MIME_JPEG,
    MIME_SVG,
    MIME_JSON,
    breakroom_debugger::outputs::MIME_TABLE,
];

/// An entry's fields and outputs as the page shows them.
#[allow(clippy::too_many_arguments)]
pub fn shown_entry<F: Forms>(
    index: usize,
    input: String,
    output: String,
    stdout: String,
    is_error: bool,
    result_cid: Option<String>,
    timestamp: f64,
    outputs: &[F],
) -> ShownEntry {
    ShownEntry {
        index,
        input,
        output,
        stdout,
        is_error,
        result_cid,
        ms: millis(timestamp),
        repr_shown: !shows_the_value(outputs),
        outputs: outputs.iter().map(shown_output).collect(),
    }
}

/// The richest forms first, as a notebook picks: a summary, then a picture, then a table;
/// HTML only when none of Breakroom's own forms is there.
pub fn shown_output<F: Forms>(output: &F) -> ShownOutput {
    let mut parts = vec![];
    let image = [MIME_PNG, MIME_JPEG].into_iter().find_map(|mime| output.text(mime).map(|b64| (mime, b64)));
    let svg = output.text(MIME_SVG);
    let table = output.table();
    let own = image.is_some() || svg.is_some() || table.is_some();
    let text = [MIME_MARKDOWN, MIME_LATEX].into_iter().find_map(|mime| output.text(mime));
    let has_text = text.is_some();
    if let Some(text) = text {
        parts.push(Part::Text(text));
    }
    let pictured = image.is_some() || svg.is_some();
    if let Some((mime, b64)) = image {
        parts.push(Part::Image {
            src: format!("data:{mime};base64,{}", b64.trim()),
            alt: "an image the value showed".into(),
        });
    } else if let Some(svg) = svg {
        parts.push(Part::Image { src: output.svg_src(&svg), alt: "an SVG image the value showed".into() });
    }
    if let Some(table) = table {
        parts.push(Part::Table(table));
    } else if let Some(html) = output.text(MIME_HTML).filter(|_| !own) {
        parts.push(Part::Html(format!("{FRAME_POLICY}{html}")));
    } else if let Some(json) = output.json(MIME_JSON).filter(|_| !own) {
        parts.push(Part::Text(json));
    } else if !has_text && !pictured && output.output_type() != "execute_result" {
        // display() of a value with no rich form: its text is all there is.
        if let Some(plain) = output.text(MIME_PLAIN) {
            parts.push(Part::Plain(plain));
        }
    }
    ShownOutput {
        output_type: output.output_type(),
        parts,
        // Each side links the table's page: it needs the session.
        table_href: None,
        notes: output.notes(),
    }
}

#[cfg(feature = "ssr")]
mod server {
    use base64::Engine;
    use breakroom_debugger::model::TranscriptEntry;
    use breakroom_debugger::outputs::{OutputType, RichOutput, Table};

    use super::{shown_entry, Forms, ShownEntry};

    impl Forms for RichOutput {
        fn output_type(&self) -> String {
            match self.output_type {
                OutputType::ExecuteResult => "execute_result",
                OutputType::DisplayData => "display_data",
                OutputType::Stream => "stream",
            }
            .to_string()
        }
        fn text(&self, mime: &str) -> Option<String> {
            RichOutput::text(self, mime).map(str::to_string)
        }
        fn has(&self, mime: &str) -> bool {
            self.data.contains_key(mime)
        }
        fn table(&self) -> Option<Table> {
            RichOutput::table(self)
        }
        fn json(&self, mime: &str) -> Option<String> {
            self.data.get(mime).map(|json| serde_json::to_string_pretty(json).unwrap_or_default())
        }
        fn svg_src(&self, svg: &str) -> String {
            format!("data:image/svg+xml;base64,{}", base64::engine::general_purpose::STANDARD.encode(svg))
        }
        fn table_url(&self) -> Option<String> {
            self.table_handle().map(str::to_string)
        }
        fn notes(&self) -> Vec<String> {
            RichOutput::notes(self).into_iter().map(str::to_string).collect()
        }
    }

    /// A stored entry as the page shows it, its tables linked to their pages in `session_id`.
    pub fn shown(entry: &TranscriptEntry, session_id: &str) -> ShownEntry {
        let mut shown = shown_entry(
            entry.index,
            entry.input.clone(),
            entry.output.clone(),
            entry.stdout.clone(),
            entry.is_error,
            entry.result_cid.clone(),
            entry.timestamp,
            &entry.outputs,
        );
        for (shown, output) in shown.outputs.iter_mut().zip(&entry.outputs) {
            shown.table_href = output.table_handle().map(|handle| super::table_page(session_id, handle));
        }
        shown
    }
}

#[cfg(feature = "ssr")]
pub use server::shown;

/// The server-rendered page of all a table's rows.
pub fn table_page(session_id: &str, handle: &str) -> String {
    format!("/repl/{session_id}/table/{handle}")
}

#[cfg(feature = "hydrate")]
pub mod browser;
pub mod markup;

/// The JSON keys of the typed data above and of the live event's entry, as the browser reads them
/// (`browser`, which has no serde: its error messages alone pulled float formatting into the
/// wasm). A test holds them to what serde writes on the server.
pub mod keys {
    pub const INDEX: &str = "index";
    pub const INPUT: &str = "input";
    pub const OUTPUT: &str = "output";
    pub const STDOUT: &str = "stdout";
    pub const IS_ERROR: &str = "is_error";
    pub const RESULT_CID: &str = "result_cid";
    pub const MS: &str = "ms";
    pub const REPR_SHOWN: &str = "repr_shown";
    pub const OUTPUTS: &str = "outputs";
    pub const OUTPUT_TYPE: &str = "output_type";
    pub const PARTS: &str = "parts";
    pub const TABLE_HREF: &str = "table_href";
    pub const NOTES: &str = "notes";
    pub const TEXT: &str = "Text";
    pub const IMAGE: &str = "Image";
    pub const SRC: &str = "src";
    pub const ALT: &str = "alt";
    pub const TABLE: &str = "Table";
    pub const HTML: &str = "Html";
    pub const PLAIN: &str = "Plain";
    pub const COLUMNS: &str = "columns";
    pub const ROWS: &str = "rows";
    pub const ROW_COUNT: &str = "row_count";
    pub const COLUMN_COUNT: &str = "column_count";
    pub const DTYPES: &str = "dtypes";
    pub const ENTRIES: &str = "entries";
    pub const FIRST_INDEX: &str = "first_index";
    pub const TOTAL: &str = "total";
    pub const LANGUAGE: &str = "language";
    pub const STARTED_MS: &str = "started_ms";
    /// The live event's (a `TranscriptEntry`'s) own.
    pub const SESSION_ID: &str = "session_id";
    pub const ENTRY: &str = "entry";
    pub const TIMESTAMP: &str = "timestamp";
    pub const DATA: &str = "data";
    pub const METADATA: &str = "metadata";

    /// Every key of [`super::TranscriptPage`] and what it holds.
    #[cfg(test)]
    pub const PAGE: &[&str] = &[
        INDEX,
        INPUT,
        OUTPUT,
        STDOUT,
        IS_ERROR,
        RESULT_CID,
        MS,
        REPR_SHOWN,
        OUTPUTS,
        OUTPUT_TYPE,
        PARTS,
        TABLE_HREF,
        NOTES,
        TEXT,
        IMAGE,
        SRC,
        ALT,
        TABLE,
        HTML,
        PLAIN,
        COLUMNS,
        ROWS,
        ROW_COUNT,
        COLUMN_COUNT,
        DTYPES,
        ENTRIES,
        FIRST_INDEX,
        TOTAL,
        LANGUAGE,
        STARTED_MS,
    ];
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use breakroom_debugger::model::TranscriptEntry;
    use breakroom_debugger::outputs::RichOutput;
    use serde_json::json;

    use super::*;

    fn entry(outputs: Vec<RichOutput>) -> TranscriptEntry {
        TranscriptEntry {
            index: 3,
            input: "df".into(),
            output: "   a\n0  1".into(),
            stdout: "hi\n".into(),
            is_error: false,
            result_cid: Some("cid".into()),
            timestamp: 1.5,
            outputs,
        }
    }

    fn output(value: serde_json::Value) -> RichOutput {
        serde_json::from_value(value).expect("an output")
    }

    /// Every object key in `value`, nested ones included (map keys of `dtypes` are data, skipped).
    fn keys_in(value: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, inner) in map {
                    out.insert(key.clone());
                    if key != keys::DTYPES {
                        keys_in(inner, out);
                    }
                }
            }
            serde_json::Value::Array(list) => list.iter().for_each(|v| keys_in(v, out)),
            _ => {}
        }
    }

    #[test]
    fn the_browser_reads_the_keys_the_server_writes() {
        let parts = vec![
            Part::Text("t".into()),
            Part::Image { src: "s".into(), alt: "a".into() },
            Part::Table(Table {
                columns: vec!["a".into()],
                index: vec!["0".into()],
                rows: vec![vec!["1".into()]],
                row_count: 1,
                column_count: 1,
                dtypes: [("a".to_string(), "int64".to_string())].into(),
            }),
            Part::Html("h".into()),
            Part::Plain("p".into()),
        ];
        let mut shown = shown(&entry(vec![]), "s");
        shown.outputs = vec![ShownOutput {
            output_type: "display_data".into(),
            parts,
            table_href: Some("/t".into()),
            notes: vec!["n".into()],
        }];
        let page = TranscriptPage {
            entries: vec![shown],
            first_index: 0,
            total: 1,
            language: Language::Python,
            started_ms: 1,
        };
        let mut written = std::collections::BTreeSet::new();
        keys_in(&serde_json::to_value(&page).expect("json"), &mut written);
        let read: std::collections::BTreeSet<String> = keys::PAGE.iter().map(|k| k.to_string()).collect();
        assert_eq!(written, read);
    }

    #[test]
    fn the_live_event_has_every_key_the_browser_reads_of_it() {
        let stored = entry(vec![output(json!({"output_type": "display_data", "data": {"text/plain": "x"}}))]);
        let event = serde_json::to_value(breakroom_debugger::model::LiveEvent::TranscriptAppended {
            session_id: "1-2.5".into(),
            entry: stored,
        })
        .expect("json");
        assert_eq!(event[keys::SESSION_ID], "1-2.5");
        let entry = &event[keys::ENTRY];
        for key in [
            keys::INDEX,
            keys::INPUT,
            keys::OUTPUT,
            keys::STDOUT,
            keys::IS_ERROR,
            keys::RESULT_CID,
            keys::TIMESTAMP,
            keys::OUTPUTS,
        ] {
            assert!(entry.get(key).is_some(), "{key} not in {entry}");
        }
        let output = &entry[keys::OUTPUTS][0];
        for key in [keys::OUTPUT_TYPE, keys::DATA, keys::METADATA] {
            assert!(output.get(key).is_some(), "{key} not in {output}");
        }
    }

    #[test]
    fn a_table_shown_value_hides_its_repr_and_links_its_page() {
        let table = output(json!({"output_type": "execute_result",
            "data": {"text/plain": "df", "application/vnd.breakroom.table+json":
                {"columns": ["a"], "rows": [["1"]], "row_count": 5000}},
            "metadata": {"breakroom": {"table": {"handle": "t1"}, "notes": ["cut"]}}}));
        let shown = shown(&entry(vec![table]), "1-2.5");
        assert!(!shown.repr_shown);
        let out = &shown.outputs[0];
        assert!(matches!(&out.parts[..], [Part::Table(t)] if t.row_count == 5000));
        assert_eq!(out.table_href.as_deref(), Some("/repl/1-2.5/table/t1"));
        assert_eq!(out.notes, vec!["cut".to_string()]);
    }

    #[test]
    fn unknown_html_becomes_a_frame_document_behind_its_policy_and_a_picture_wins_over_it() {
        let html = output(json!({"output_type": "execute_result",
            "data": {"text/html": "<script>alert(1)</script>", "text/plain": "x"}}));
        let shown = shown(&entry(vec![html]), "s");
        assert_eq!(shown.outputs[0].parts, vec![Part::Html(format!("{FRAME_POLICY}<script>alert(1)</script>"))]);
        let both = output(json!({"output_type": "display_data",
            "data": {"text/html": "<b>x</b>", "image/png": "AAAA\n", "text/plain": "x"}}));
        let shown = shown_output(&both);
        assert_eq!(
            shown.parts,
            vec![Part::Image { src: "data:image/png;base64,AAAA".into(), alt: "an image the value showed".into() }]
        );
    }

    #[test]
    fn a_displayed_value_with_no_rich_form_shows_its_text() {
        let plain = output(json!({"output_type": "display_data", "data": {"text/plain": "hello"}}));
        assert_eq!(shown_output(&plain).parts, vec![Part::Plain("hello".into())]);
        let result = output(json!({"output_type": "execute_result", "data": {"text/plain": "hello"}}));
        assert!(shown_output(&result).parts.is_empty());
        assert!(shown(&entry(vec![result]), "s").repr_shown);
    }
}
