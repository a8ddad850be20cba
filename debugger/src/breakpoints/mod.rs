//! Breakpoints: what decides whether a call, a line or an exception pauses.
//!
//! Two models live here, and the records are the canonical one:
//! - [`record`]: the server's breakpoint records (issue 18), each with an id (`bp-N`), a kind
//!   (function, line, error) and its options (condition, hit condition, pattern, log message,
//!   enabled) and hit count. Everything Breakroom's own clients, the pages, MCP and the CLI show
//!   and edit is a record; they are what is stored (`store`) and what running programs follow.
//! - [`by_name`]: cideldill's function breakpoints by name, with their before/after behaviours
//!   and replacements, as an unchanged cideldill client reads them (`GET /api/breakpoints`). A
//!   function record keeps a by-name entry for its function, so those clients pause on it too;
//!   a name added the cideldill way (`POST /api/breakpoints {"function_name"}`) is a by-name
//!   entry only, and the behaviours, the global behaviour and replacements live only here.
//!
//! The `Debugger`'s methods for each are in `by_name` and `by_id`; `gates` decides,
//! at a call or a line, what the records' options say.

#[cfg(feature = "runtime")]
mod by_id;
#[cfg(feature = "runtime")]
pub mod by_name;
#[cfg(feature = "runtime")]
mod gates;
#[cfg(feature = "runtime")]
pub mod hit_reports;
/// A breakpoint's action (pause, log, snapshot), capture limits and hit bounds.
pub mod policy;
/// The check that snapshot and log breakpoints' expressions only read.
#[cfg(feature = "runtime")]
pub mod read_only;
pub mod record;
#[cfg(feature = "runtime")]
mod settings_store;
#[cfg(feature = "runtime")]
pub mod state;
#[cfg(feature = "runtime")]
mod store;

#[cfg(feature = "runtime")]
pub use by_id::BreakpointService;

#[cfg(feature = "runtime")]
pub(crate) use by_id::Records;
#[cfg(feature = "runtime")]
pub use by_id::{BreakpointSnapshot, Follower};
