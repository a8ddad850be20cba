//! Processes Breakroom tracks: the ones it launches (`breakroom run`, `POST /api/processes`) and
//! debug clients that connect on their own. A record lives from launch (or first call) to exit
//! and after: exit code or signal, a one-line crash reason, uptime, and for launched processes
//! their stdout and stderr as separate streams of timestamped lines.
//!
//! The records' shapes are `crate::process_records` (re-exported here), which earlier concepts and
//! the pages use; the tracking itself (launching, capturing output, retention, storage) is behind
//! the `runtime` feature.

pub mod ansi;
#[cfg(feature = "runtime")]
pub mod client_bundle;
#[cfg(feature = "runtime")]
pub mod crash_reason;
/// What this concept asks of the owner of the state.
#[cfg(feature = "runtime")]
pub mod host;
#[cfg(feature = "runtime")]
pub mod launch;
#[cfg(feature = "runtime")]
pub mod liveness;
#[cfg(feature = "runtime")]
pub mod output;
#[cfg(feature = "runtime")]
pub mod registry;
#[cfg(feature = "runtime")]
pub mod retention;
#[cfg(feature = "runtime")]
pub mod store;
/// The debugger's side of tracked processes: launching, watching, closing their pauses.
#[cfg(feature = "runtime")]
mod tracked;

#[cfg(feature = "runtime")]
pub use registry::{ProcessConfig, ProcessRegistry};
#[cfg(feature = "runtime")]
pub use tracked::ProcessService;

pub use crate::process_records::*;
