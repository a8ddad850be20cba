//! The parts of the server's pages (`crate::render`) that the browser finds again to update them
//! in place (`crate::pages`, the live stream): a selector for each, and the attribute that names
//! what a part stands for, where the page reads one. The browser code names a part only by these
//! constants; `server/tests/integration/parts.rs` renders every page with data and checks each part
//! is on its page, so a class or an attribute renamed in a template fails a test instead of
//! leaving a page that silently stops updating. (As `crate::controls` does for the buttons.)
//! Plain `&'static str`s: the wasm gets the same literals it had.

/// `/`'s list of paused calls, once something is paused.
pub const PAUSED_LIST: &str = "ul.paused-list";
/// A paused call's card, in that list.
pub const PAUSED_CARD: &str = ".paused-card";
/// The pause a card stands for.
pub const PAUSE_ID: &str = "data-pause-id";

/// `/`'s breakpoint records: a form each.
pub const RECORD_FORMS: &str = "section.breakpoints form[data-record]";
/// The breakpoint a record's form stands for.
pub const RECORD: &str = "data-record";

/// `/processes`' table of tracked processes: the body holds a row per process.
pub const TRACKED_ROWS: &str = "table.processes.tracked tbody";
/// The tracked process a row stands for.
pub const PROCESS_ID: &str = "data-process-id";

/// A process page's header, once its program called in (it names its key then).
pub const PROCESS_HEADER: &str = ".process-header[data-process-key]";
/// A REPL page's header.
pub const SESSION_HEADER: &str = "header.session-header";
/// The program (its process key) a process page's or a REPL page's header stands for.
pub const PROCESS_KEY: &str = "data-process-key";

/// A process timeline's header.
pub const TIMELINE_HEADER: &str = "header.timeline-header";
/// The program's lines (process keys, space-separated) a timeline's header stands for.
pub const PROCESS_KEYS: &str = "data-process-keys";

/// The calls of a process's call tree that paused.
pub const CALL_TREE_PAUSED: &str = "ol.call-tree li[data-pause-ids]";
/// The pauses (space-separated ids) of a call in the tree.
pub const PAUSE_IDS: &str = "data-pause-ids";

/// A listed REPL session: the call stack's sessions, `/repls`' rows.
pub const SESSION_ROWS: &str = "[data-session-id]";
/// The session a listed session stands for.
pub const SESSION_ID: &str = "data-session-id";
/// A listed session's entry count, inside its row.
pub const SESSION_LINES: &str = ".lines";

/// A time the page counts down between updates: a finished process leaving `/processes`, an
/// idle workspace on `/runtimes`.
pub const COUNT_DOWN: &str = "[data-left-ms]";
/// The milliseconds left, which the page moves on.
pub const LEFT_MS: &str = "data-left-ms";
/// The time left as text, inside a count down.
pub const COUNT_DOWN_TEXT: &str = ".left";

/// A REPL page's transcript.
pub const TRANSCRIPT: &str = "ol.transcript";
/// Its entries.
pub const TRANSCRIPT_ENTRIES: &str = ".transcript .entry";
