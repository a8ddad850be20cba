//! An eval's rich outputs, in Jupyter's shape (nbformat's outputs): MIME bundles the Python
//! client builds from the display protocol and from the data types it knows (issue 52). They
//! are stored with their transcript entry and shown by the REPL page, escaped by construction:
//! tables as Breakroom's own table, images as `<img>` (never inline SVG), and HTML of unknown
//! types in a sandboxed iframe only.
//!
//! The server checks what a client sends: each form within its bound, images base64, a table
//! a table; a form past its bound is left out and the output says so (the client does the same
//! first, so this only matters for a client that does not).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// nbformat's `output_type`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputType {
    /// The value of the input's last expression.
    ExecuteResult,
    /// What `display(x)` showed.
    DisplayData,
    Stream,
}

pub const MIME_PLAIN: &str = "text/plain";
pub const MIME_HTML: &str = "text/html";
pub const MIME_MARKDOWN: &str = "text/markdown";
pub const MIME_LATEX: &str = "text/latex";
pub const MIME_PNG: &str = "image/png";
pub const MIME_JPEG: &str = "image/jpeg";
pub const MIME_SVG: &str = "image/svg+xml";
pub const MIME_JSON: &str = "application/json";
/// Breakroom's own table (a DataFrame, a list of dicts, a 2-D array): see [`Table`].
pub const MIME_TABLE: &str = "application/vnd.breakroom.table+json";

/// An image form's bound (its base64 text).
pub const MAX_IMAGE_BYTES: usize = 512 * 1024;
/// Any other form's bound (HTML, SVG, markdown, a table's JSON).
pub const MAX_HTML_BYTES: usize = 256 * 1024;
/// The bound of one answer's outputs together.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// One output: `{"output_type", "data": {mime: form}, "metadata"}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RichOutput {
    pub output_type: OutputType,
    /// MIME type → form: text as a string, images as bare base64 (no `data:` prefix), JSON
    /// types as JSON.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub data: BTreeMap<String, Value>,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub metadata: Map<String, Value>,
}

/// A panel row's value as the panel's "view" shows it: its text and its rich forms.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct View {
    /// The value's bounded repr.
    pub text: String,
    #[serde(default)]
    pub outputs: Vec<RichOutput>,
}

/// A table as the client sends it: the first rows of something with `row_count` rows, each cell
/// already text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub columns: Vec<String>,
    #[serde(default)]
    pub index: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub row_count: u64,
    #[serde(default)]
    pub column_count: u64,
    #[serde(default)]
    pub dtypes: BTreeMap<String, String>,
}

/// What `GET /api/repl/{session}/table/{handle}` asks for: rows `offset..offset + limit`
/// (limit 1 to [`MAX_TABLE_PAGE`]), sorted by the column named `sort` first when given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TablePage {
    pub offset: u64,
    pub limit: u64,
    pub sort: Option<String>,
    pub descending: bool,
}

/// The most rows one page of a table holds.
pub const MAX_TABLE_PAGE: u64 = 1_000;

/// The route a table's pages come from, as its output's metadata gives it (root-relative).
pub fn table_url(session_id: &str, handle: &str) -> String {
    format!("/api/repl/{session_id}/table/{handle}")
}

impl RichOutput {
    /// The client's handle of the live object behind this output's table, when it kept one.
    pub fn table_handle(&self) -> Option<&str> {
        self.metadata.get("breakroom")?.get("table")?.get("handle")?.as_str()
    }

    /// Names the route of the table's pages in the metadata (`breakroom.table.url`), for the
    /// session the output belongs to.
    pub fn link_table(&mut self, session_id: &str) {
        let Some(handle) = self.table_handle().map(str::to_string) else { return };
        let handle_ok = !handle.is_empty() && handle.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if let Some(table) = self.metadata.get_mut("breakroom").and_then(|b| b.get_mut("table")) {
            if handle_ok {
                table["url"] = Value::String(table_url(session_id, &handle));
            } else if let Some(t) = table.as_object_mut() {
                t.remove("handle");
            }
        }
    }

    /// Drops any claim of a live table behind this output (`breakroom.table`): for outputs kept
    /// where no program answers for the table, as a snapshot's.
    pub fn forget_table(&mut self) {
        if let Some(b) = self.metadata.get_mut("breakroom").and_then(Value::as_object_mut) {
            b.remove("table");
        }
    }

    /// A form as text, when it is one.
    pub fn text(&self, mime: &str) -> Option<&str> {
        self.data.get(mime).and_then(Value::as_str)
    }

    /// The table form, when there is a well-formed one.
    pub fn table(&self) -> Option<Table> {
        self.data.get(MIME_TABLE).and_then(|t| serde_json::from_value(t.clone()).ok())
    }

    /// What the client or the server said about forms left out.
    pub fn notes(&self) -> Vec<&str> {
        self.metadata
            .get("breakroom")
            .and_then(|b| b.get("notes"))
            .and_then(Value::as_array)
            .map(|notes| notes.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    fn note(&mut self, text: String) {
        let breakroom = self.metadata.entry("breakroom").or_insert_with(|| Value::Object(Map::new()));
        if !breakroom.is_object() {
            *breakroom = Value::Object(Map::new());
        }
        if let Some(b) = breakroom.as_object_mut() {
            let notes = b.entry("notes").or_insert_with(|| Value::Array(vec![]));
            if !notes.is_array() {
                *notes = Value::Array(vec![]);
            }
            if let Some(list) = notes.as_array_mut() {
                list.push(Value::String(text));
            }
        }
    }
}

#[cfg(feature = "runtime")]
impl RichOutput {
    /// Its text forms and table cells through the value rules, in place (issue 50); images
    /// cannot be scanned and stay as they are.
    pub fn redact(&mut self, policy: &crate::policy::Policy) {
        fn walk(policy: &crate::policy::Policy, value: &mut Value) {
            match value {
                Value::String(text) => {
                    let (redacted, count) = policy.redact_text(text);
                    if count > 0 {
                        *text = redacted;
                    }
                }
                Value::Array(items) => items.iter_mut().for_each(|v| walk(policy, v)),
                Value::Object(fields) => fields.values_mut().for_each(|v| walk(policy, v)),
                _ => {}
            }
        }
        for (mime, form) in self.data.iter_mut() {
            if !mime.starts_with("image/") || mime == MIME_SVG {
                walk(policy, form);
            }
        }
    }
}

fn size(form: &Value) -> usize {
    match form {
        Value::String(text) => text.len(),
        other => other.to_string().len(),
    }
}

fn is_base64(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\n' | b'\r'))
}

/// What a client sent, within the bounds: forms past theirs, images that are not base64 text
/// and tables that are not tables are left out, with a note; then, while the whole passes
/// [`MAX_ANSWER_BYTES`], the last outputs keep only their text.
pub fn checked(sent: Vec<RichOutput>) -> Vec<RichOutput> {
    let mut outputs: Vec<RichOutput> = sent
        .into_iter()
        .map(|mut output| {
            let mimes: Vec<String> = output.data.keys().cloned().collect();
            for mime in mimes {
                let Some(form) = output.data.get(&mime) else { continue };
                let image = mime.starts_with("image/") && mime != MIME_SVG;
                let bound = if image { MAX_IMAGE_BYTES } else { MAX_HTML_BYTES };
                let why = if mime == MIME_PLAIN {
                    (!form.is_string()).then(|| "it is not text".to_string())
                } else if size(form) > bound {
                    Some(format!("{} KB, past its {} KB bound", size(form) / 1024, bound / 1024))
                } else if image && !form.as_str().is_some_and(is_base64) {
                    Some("it is not base64 text".into())
                } else if mime == MIME_TABLE && output.table().is_none() {
                    Some("it is not a table".into())
                } else if !image && !mime.ends_with("json") && !form.is_string() {
                    Some("it is not text".into())
                } else {
                    None
                };
                if let Some(why) = why {
                    output.data.remove(&mime);
                    output.note(format!("{mime} left out: {why}"));
                }
            }
            output
        })
        .collect();
    let mut total: usize = outputs.iter().flat_map(|o| o.data.values()).map(size).sum();
    for output in outputs.iter_mut().rev() {
        if total <= MAX_ANSWER_BYTES {
            break;
        }
        let before: usize = output.data.values().map(size).sum();
        output.data.retain(|mime, _| mime == MIME_PLAIN);
        let after: usize = output.data.values().map(size).sum();
        output.note(format!("shown as text: the answer's outputs pass {} KB", MAX_ANSWER_BYTES / 1024));
        total -= before - after;
    }
    outputs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn output(data: Value) -> RichOutput {
        serde_json::from_value(json!({"output_type": "execute_result", "data": data})).expect("an output")
    }

    #[test]
    fn forms_past_their_bound_or_of_the_wrong_shape_are_left_out_with_a_note() {
        let big_image = "A".repeat(MAX_IMAGE_BYTES + 1);
        let sent = vec![output(json!({
            "text/plain": "x",
            "image/png": big_image,
            "image/jpeg": "<script>",
            "application/vnd.breakroom.table+json": {"rows": 3},
            "text/html": "<b>ok</b>",
        }))];
        let kept = checked(sent);
        assert_eq!(kept[0].data.keys().collect::<Vec<_>>(), vec!["text/html", "text/plain"]);
        let notes = kept[0].notes().join("\n");
        assert!(notes.contains("image/png left out: 512 KB, past its 512 KB bound"), "{notes}");
        assert!(notes.contains("image/jpeg left out: it is not base64 text"), "{notes}");
        assert!(notes.contains("not a table"), "{notes}");
    }

    #[test]
    fn an_answer_past_its_bound_keeps_only_the_text_of_its_last_outputs() {
        let html = "h".repeat(MAX_HTML_BYTES - 10);
        let sent: Vec<RichOutput> = (0..5).map(|_| output(json!({"text/plain": "p", "text/html": html}))).collect();
        let kept = checked(sent);
        let rich = kept.iter().filter(|o| o.data.contains_key(MIME_HTML)).count();
        assert_eq!(rich, 4, "four fit in 1 MB");
        assert!(kept[4].notes()[0].starts_with("shown as text"));
        assert_eq!(kept[4].text(MIME_PLAIN), Some("p"));
    }
}
