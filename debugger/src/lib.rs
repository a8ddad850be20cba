//! Breakroom's session manager. Each concept offers its operations as a service that the doors
//! call (`debugger.pauses()`, `debugger.sessions()`, `debugger.breakpoints()`, ...); one
//! [`Debugger`] owns the lock over every concept's state and hands the services out. The HTTP
//! API and the pages are thin doors into them.
//!
//! No concept names the owner: each says in its own traits what it needs of it (`…Host`) and
//! which part of the state it reaches under the lock (`…State`, with its `…Parts`), and the
//! owner, last in the order below, implements them (`debugger/hosts.rs`); see `host`.
//!
//! Without the `runtime` feature only [`model`] and [`kinds`] (and the breakpoint records the
//! pages show) are built, for the browser. The modules exported are what the server, the app and
//! this crate's own tests and benchmarks use; the rest is the manager's own.
//!
//! # The order of the concepts
//!
//! A module may use the modules of its own level and of the levels above it in this list, never
//! one below it. `tests/concept_order.rs` reads this list and every `crate::` path in `src/`, and
//! fails on a new use against the order; the uses that still go against it are listed there, by
//! name, and may only be taken away.
//!
//! 1. `ids`, `error`, `kinds`, `wire`, `pickle`, `snippet`, `client_shapes`, `policy`: foundations
//! 2. `cid_store`, `display`: stored values and how they are shown
//! 3. `model`, `outputs`, `process_records`, `live_events`, `search`, `eval`: the types the pages and the clients see
//! 4. `store`: the one door to SQLite or PostgreSQL
//! 5. `host`: what a concept's service asks of the owner of the state, without naming it
//! 6. `users`, `audit`: who may do what, and the record of what they did
//! 7. `calls`: calls as clients send them, and the records kept of them
//! 8. `breakpoints`: breakpoints of every kind, their gates and hit counts
//! 9. `pauses`: paused calls, the client's held poll, resuming
//! 10. `sessions`: REPL sessions, evals and the REPL's helper requests, conditions asked at a pause
//! 11. `steps`: stepping from a pause to the next line
//! 12. `processes`: launched and connected processes
//! 13. `interrupts`: pause orders for running programs
//! 14. `checkpoints`: time travel (forked copies of a process)
//! 15. `call_reports`: calls as clients report them: the entry that starts pauses and lands steps
//! 16. `snapshots`: snapshot breakpoints (captures that do not pause)
//! 17. `runtimes`: bash and Python runtimes per workspace
//! 18. `attach`: attaching to a running Python process by pid
//! 19. `cluster`: several servers on one PostgreSQL
//! 20. `debugger`: the owner, [`Debugger`], which holds the state of every concept and hands out their services

pub mod breakpoints;
pub mod checkpoints;
pub mod kinds;
mod live_events;
pub mod model;
pub mod outputs;
pub mod process_records;
pub mod processes;
pub mod runtimes;
pub mod snapshots;
pub mod steps;
pub mod wire;

#[cfg(feature = "runtime")]
pub mod attach;
#[cfg(feature = "runtime")]
pub mod audit;
#[cfg(feature = "runtime")]
pub mod call_reports;
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
mod host;
#[cfg(feature = "runtime")]
pub mod ids;
#[cfg(feature = "runtime")]
pub mod interrupts;
#[cfg(feature = "runtime")]
pub mod pauses;
#[cfg(feature = "runtime")]
pub mod pickle;
#[cfg(feature = "runtime")]
pub mod policy;
#[cfg(feature = "runtime")]
mod search;
#[cfg(feature = "runtime")]
pub mod sessions;
#[cfg(feature = "runtime")]
mod snippet;
#[cfg(feature = "runtime")]
pub mod store;
#[cfg(feature = "runtime")]
pub mod users;

#[cfg(feature = "runtime")]
pub use breakpoints::by_name::RegisteredFunction;
#[cfg(feature = "runtime")]
#[doc(hidden)]
pub use debugger::for_tests;
#[cfg(feature = "runtime")]
pub use debugger::{BreakpointSnapshot, Config, Continued, Debugger, PollReply};
#[cfg(feature = "runtime")]
pub use error::{Error, ErrorKind, Result};
