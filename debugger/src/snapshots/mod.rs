//! Snapshots (issue 34): what a snapshot breakpoint captured in a program that did not stop —
//! its stack, the top frames' locals as a bounded value tree, and its watch expressions' values.
//!
//! (The check that snapshot and log expressions only read is the breakpoints' `read_only`.)
//! - `methods`: the `Debugger`'s doors — a program sends a snapshot (kept while its breakpoint is
//!   active: the first `max_hits` to arrive), pages and agents list and open them.
//! - `store`: the SQLite table, trimmed to the newest `Config::snapshots_kept`.
//! - `watch`: the debug page's watch expressions, evaluated at a pause as a snapshot's are.

/// Whether `text` has the shape of a snapshot's id (`snap-N`): what a list's `before` and
/// `after` cursors must be.
pub fn is_snapshot_id(text: &str) -> bool {
    text.strip_prefix("snap-").is_some_and(|n| !n.is_empty() && n.len() < 19 && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(feature = "runtime")]
pub mod methods;
#[cfg(feature = "runtime")]
pub use methods::SnapshotService;
#[cfg(feature = "runtime")]
mod redact;
#[cfg(feature = "runtime")]
mod store;
#[cfg(feature = "runtime")]
mod watch;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One snapshot, as a program sent it and `GET /api/snapshots/{id}` shows it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// `snap-N`.
    pub snapshot_id: String,
    pub breakpoint_id: String,
    pub process_key: String,
    /// The tracked process it came from.
    #[serde(default)]
    pub process_id: Option<String>,
    /// When the program took it, and when it arrived (epoch seconds).
    pub taken_at: f64,
    pub received_at: f64,
    /// Where the breakpoint was hit.
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default)]
    pub thread: Option<SnapshotThread>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The stack from the hit outwards; the top frames carry their locals.
    pub frames: Vec<SnapshotFrame>,
    #[serde(default)]
    pub expressions: Vec<WatchValue>,
    /// Something was left out to stay within the capture limits.
    #[serde(default)]
    pub truncated: bool,
    #[serde(default)]
    pub size_bytes: u64,
    /// The time the hit added to the program, as it measured it.
    #[serde(default)]
    pub capture_ms: Option<f64>,
    /// How many values were replaced by `[redacted]` (issue 50); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotThread {
    #[serde(default)]
    pub id: Option<i64>,
    #[serde(default)]
    pub name: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotFrame {
    pub file: String,
    pub line: u32,
    pub function: String,
    /// The frame's locals and arguments; absent below the captured frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locals: Option<Vec<CapturedVariable>>,
}

/// A name and its value, in a frame or inside a container.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CapturedVariable {
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub value: CapturedValue,
}

/// A value as captured: its type and bounded repr, and a container's items (bounded too).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CapturedValue {
    #[serde(rename = "type")]
    pub type_name: String,
    pub repr: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub children: Vec<CapturedVariable>,
    /// A container's length, when more items exist than are shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Why the value could not be read (a raising or too slow `__repr__`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A local or watch value that is data (a DataFrame, an array, a list of dicts): its
    /// table or picture, bounded by the breakpoint's `capture.rich_bytes` (issue 52).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<crate::outputs::RichOutput>,
}

impl Snapshot {
    /// Every picture in it (`(mime, base64)`, in the order of the frames' locals, then the watch
    /// expressions): what an agent is shown as image content beside the snapshot's JSON.
    pub fn images(&self) -> Vec<(String, String)> {
        fn walk(value: &CapturedValue, out: &mut Vec<(String, String)>) {
            for output in &value.outputs {
                for mime in [crate::outputs::MIME_PNG, crate::outputs::MIME_JPEG] {
                    if let Some(data) = output.text(mime) {
                        out.push((mime.to_string(), data.trim().to_string()));
                    }
                }
            }
            value.children.iter().for_each(|c| walk(&c.value, out));
        }
        let mut out = Vec::new();
        self.frames.iter().flat_map(|f| f.locals.iter().flatten()).for_each(|l| walk(&l.value, &mut out));
        self.expressions.iter().filter_map(|w| w.value.as_ref()).for_each(|v| walk(v, &mut out));
        out
    }
}

/// A watch expression and what it came to.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WatchValue {
    pub expression: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<CapturedValue>,
    /// It raised, or would have run the program's own code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One line of `GET /api/snapshots`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotSummary {
    pub snapshot_id: String,
    pub breakpoint_id: String,
    pub process_key: String,
    #[serde(default)]
    pub process_id: Option<String>,
    pub taken_at: f64,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub function: Option<String>,
    pub frames: usize,
    /// Each expression and its value's repr (or its error), for a glance.
    pub expressions: Vec<(String, String)>,
    pub truncated: bool,
}

impl Snapshot {
    pub fn summary(&self) -> SnapshotSummary {
        SnapshotSummary {
            snapshot_id: self.snapshot_id.clone(),
            breakpoint_id: self.breakpoint_id.clone(),
            process_key: self.process_key.clone(),
            process_id: self.process_id.clone(),
            taken_at: self.taken_at,
            file: self.file.clone(),
            line: self.line,
            function: self.function.clone(),
            frames: self.frames.len(),
            expressions: self
                .expressions
                .iter()
                .map(|w| {
                    let shown = match (&w.value, &w.error) {
                        (_, Some(error)) => format!("error: {error}"),
                        (Some(v), None) => v.repr.clone(),
                        (None, None) => String::new(),
                    };
                    (w.expression.clone(), shown)
                })
                .collect(),
            truncated: self.truncated,
        }
    }
}

/// What `GET /api/snapshots` may be narrowed to.
#[derive(Clone, Debug, Default)]
pub struct SnapshotFilter {
    pub breakpoint_id: Option<String>,
    pub process_id: Option<String>,
    /// Older than this `snap-N` (the next page).
    pub before: Option<String>,
    /// Newer than this `snap-N` (what came since a list was read; still newest first, so when
    /// more than `limit` came, the newest `limit` of them).
    pub after: Option<String>,
    pub limit: usize,
}

/// Most watch expressions one request evaluates (a snapshot breakpoint's limit too).
pub const MAX_WATCHES: usize = 20;
/// Longest watch expression, in bytes.
pub const MAX_WATCH_BYTES: usize = 2_000;

/// The debug page's watch expressions at a pause (issue 45), each evaluated read-only as a
/// snapshot breakpoint's are: what `POST /api/repl/{id}/watch` answers.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WatchList {
    /// One per expression asked, in order: its value, or why there is none.
    pub expressions: Vec<WatchValue>,
    /// Some values were cut to fit the list's size.
    #[serde(default)]
    pub truncated: bool,
    /// Values replaced by `[redacted]` (issue 50).
    #[serde(default)]
    pub redacted: u64,
}
