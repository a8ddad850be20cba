//! Breakroom's session manager. One [`Debugger`] owns every pause, REPL session, eval queue,
//! breakpoint, call record and stored value; the HTTP API and the pages are thin doors into it.
//!
//! Without the `runtime` feature only [`model`] and [`kinds`] (and the breakpoint records the
//! pages show) are built, for the browser. The modules exported are what the server, the app and
//! this crate's own tests and benchmarks use; the rest is the manager's own.

pub mod breakpoints;
pub mod checkpoints;
pub mod kinds;
mod live_events;
pub mod model;
pub mod processes;
pub mod runtimes;
pub mod snapshots;
pub mod steps;
pub mod wire;

#[cfg(feature = "runtime")]
pub mod attach;
#[cfg(feature = "runtime")]
pub mod calls;
#[cfg(feature = "runtime")]
pub mod cid_store;
#[cfg(feature = "runtime")]
pub mod client_shapes;
#[cfg(feature = "runtime")]
pub mod cluster;
#[cfg(feature = "runtime")]
mod debugger;
#[cfg(feature = "runtime")]
mod display;
#[cfg(feature = "runtime")]
pub mod error;
#[cfg(feature = "runtime")]
pub mod eval;
#[cfg(feature = "runtime")]
pub mod ids;
#[cfg(feature = "runtime")]
pub mod interrupts;
#[cfg(feature = "runtime")]
pub mod pauses;
#[cfg(feature = "runtime")]
pub mod pickle;
#[cfg(feature = "runtime")]
mod search;
#[cfg(feature = "runtime")]
pub mod sessions;
#[cfg(feature = "runtime")]
mod snippet;
#[cfg(feature = "runtime")]
pub mod store;

#[cfg(feature = "runtime")]
#[doc(hidden)]
pub use debugger::for_tests;
#[cfg(feature = "runtime")]
pub use debugger::{BreakpointSnapshot, Config, Continued, Debugger, PollReply, RegisteredFunction};
#[cfg(feature = "runtime")]
pub use error::{Error, ErrorKind, Result};
