//! The typed data as the browser reads it: JSON the browser's own parser turned into objects,
//! walked by key ([`super::keys`], with `crate::browser_json`).

use js_sys::{Array, Object, JSON};
use wasm_bindgen::JsValue;

use breakroom_debugger::model::Language;
use breakroom_debugger::outputs::{Table, MIME_TABLE};

use super::keys::*;
use super::{shown_entry, table_page, Forms, Part, ShownEntry, ShownOutput, TranscriptPage};
use crate::browser_json::{get, list, number, string, strings, whole, FromJs};

impl FromJs for TranscriptPage {
    fn from_js(value: &JsValue) -> Option<Self> {
        Some(TranscriptPage {
            entries: list(value, ENTRIES).iter().map(ShownEntry::from_js).collect::<Option<_>>()?,
            first_index: whole(value, FIRST_INDEX)? as usize,
            total: whole(value, TOTAL)? as usize,
            language: match string(value, LANGUAGE)?.as_str() {
                "javascript" => Language::Javascript,
                _ => Language::Python,
            },
            started_ms: number(value, STARTED_MS)? as i64,
        })
    }
}

impl FromJs for ShownEntry {
    fn from_js(value: &JsValue) -> Option<Self> {
        Some(ShownEntry {
            index: whole(value, INDEX)? as usize,
            input: string(value, INPUT)?,
            output: string(value, OUTPUT)?,
            stdout: string(value, STDOUT)?,
            is_error: get(value, IS_ERROR)?.as_bool()?,
            result_cid: string(value, RESULT_CID),
            ms: number(value, MS)? as i64,
            repr_shown: get(value, REPR_SHOWN)?.as_bool()?,
            outputs: list(value, OUTPUTS).iter().map(ShownOutput::from_js).collect::<Option<_>>()?,
        })
    }
}

impl FromJs for ShownOutput {
    fn from_js(value: &JsValue) -> Option<Self> {
        Some(ShownOutput {
            output_type: string(value, OUTPUT_TYPE)?,
            parts: list(value, PARTS).iter().map(Part::from_js).collect::<Option<_>>()?,
            table_href: string(value, TABLE_HREF),
            notes: strings(list(value, NOTES)),
        })
    }
}

impl FromJs for Part {
    fn from_js(value: &JsValue) -> Option<Self> {
        if let Some(text) = string(value, TEXT) {
            Some(Part::Text(text))
        } else if let Some(image) = get(value, IMAGE) {
            Some(Part::Image { src: string(&image, SRC)?, alt: string(&image, ALT)? })
        } else if let Some(table) = get(value, TABLE) {
            Table::from_js(&table).map(Part::Table)
        } else if let Some(html) = string(value, HTML) {
            Some(Part::Html(html))
        } else {
            string(value, PLAIN).map(Part::Plain)
        }
    }
}

impl FromJs for Table {
    fn from_js(value: &JsValue) -> Option<Self> {
        let dtypes = get(value, DTYPES)
            .map(|d| {
                Object::entries(&Object::from(d))
                    .iter()
                    .filter_map(|pair| {
                        let pair = Array::from(&pair);
                        Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Table {
            columns: strings(list(value, COLUMNS)),
            index: strings(list(value, INDEX)),
            rows: list(value, ROWS).into_iter().map(|row| strings(Array::from(&row).to_vec())).collect(),
            row_count: whole(value, ROW_COUNT)?,
            column_count: whole(value, COLUMN_COUNT).unwrap_or(0),
            dtypes,
        })
    }
}

/// One output of a live event's entry, its forms left as the parser's objects.
struct LiveOutput {
    output_type: String,
    data: JsValue,
    metadata: JsValue,
}

impl Forms for LiveOutput {
    fn output_type(&self) -> String {
        self.output_type.clone()
    }
    fn text(&self, mime: &str) -> Option<String> {
        string(&self.data, mime)
    }
    fn has(&self, mime: &str) -> bool {
        get(&self.data, mime).is_some()
    }
    fn table(&self) -> Option<Table> {
        Table::from_js(&get(&self.data, MIME_TABLE)?)
    }
    fn json(&self, mime: &str) -> Option<String> {
        JSON::stringify_with_replacer_and_space(&get(&self.data, mime)?, &JsValue::NULL, &JsValue::from(2))
            .ok()
            .map(String::from)
    }
    fn svg_src(&self, svg: &str) -> String {
        format!("data:image/svg+xml;charset=utf-8,{}", String::from(js_sys::encode_uri_component(svg)))
    }
    fn table_url(&self) -> Option<String> {
        string(&get(&get(&self.metadata, "breakroom")?, "table")?, "handle")
    }
    fn notes(&self) -> Vec<String> {
        get(&self.metadata, "breakroom").map(|b| strings(list(&b, NOTES))).unwrap_or_default()
    }
}

/// The entry a live `transcript_appended` event (its JSON text) carries, as the page shows it;
/// None when the event is of another session than `session_id`.
pub fn appended(event: &str, session_id: &str) -> Option<ShownEntry> {
    let event = JSON::parse(event).ok()?;
    let event = &event;
    if string(event, SESSION_ID)? != session_id {
        return None;
    }
    let entry = get(event, ENTRY)?;
    let outputs: Vec<LiveOutput> = list(&entry, OUTPUTS)
        .iter()
        .filter_map(|o| {
            Some(LiveOutput {
                output_type: string(o, OUTPUT_TYPE)?,
                data: get(o, DATA)?,
                metadata: get(o, METADATA).unwrap_or_else(|| Object::new().into()),
            })
        })
        .collect();
    let mut shown = shown_entry(
        whole(&entry, INDEX)? as usize,
        string(&entry, INPUT)?,
        string(&entry, OUTPUT)?,
        string(&entry, STDOUT)?,
        get(&entry, IS_ERROR)?.as_bool()?,
        string(&entry, RESULT_CID),
        number(&entry, TIMESTAMP)?,
        &outputs,
    );
    for (shown, output) in shown.outputs.iter_mut().zip(&outputs) {
        shown.table_href = output.table_url().map(|handle| table_page(session_id, &handle));
    }
    Some(shown)
}
