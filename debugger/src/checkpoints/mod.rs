//! Time travel (issue 20): checkpoints are processes a debug client forks when a pause
//! is committed; waking one forks it again into a new live line of the process, paused at the
//! same call. [`model`] is what the API answers, [`book`] the rules, [`memory`] what a checkpoint
//! pins.

#[cfg(feature = "runtime")]
pub mod book;
#[cfg(all(test, feature = "runtime"))]
mod book_tests;
#[cfg(feature = "runtime")]
pub mod memory;
pub mod model;
#[cfg(feature = "runtime")]
pub mod state;
#[cfg(feature = "runtime")]
mod timeline;
/// Time travel's operations on the debugger: step back, rewind, branches.
#[cfg(feature = "runtime")]
mod travel;
#[cfg(feature = "runtime")]
pub use travel::CheckpointService;
