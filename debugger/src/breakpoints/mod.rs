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
//! The `Debugger`'s methods for each are in `by_name_methods` and `records`; `gates` decides,
//! at a call or a line, what the records' options say.

#[cfg(feature = "runtime")]
pub mod by_name;
#[cfg(feature = "runtime")]
mod by_name_methods;
#[cfg(feature = "runtime")]
mod gates;
#[cfg(feature = "runtime")]
pub mod hit_reports;
pub mod record;
#[cfg(feature = "runtime")]
mod records;
#[cfg(feature = "runtime")]
mod store;

#[cfg(feature = "runtime")]
pub(crate) use records::Records;
#[cfg(feature = "runtime")]
pub use records::{BreakpointSnapshot, Follower};
