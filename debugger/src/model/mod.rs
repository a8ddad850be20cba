//! The read-side shapes of the debugger's state: what pages, REST handlers and tests see, one
//! file per concept they show. These compile for the browser too (no runtime dependencies), so
//! the UI shares them. Everything is re-exported here: `crate::model::PausedCall`.

use serde::{Deserialize, Serialize};

pub use crate::kinds::{AfterBehavior, Behavior, CallStatus, GlobalBehavior, Language, StepKind, StopKind};
pub use crate::live_events::{LiveEvent, LiveEventKind};

mod calls;
mod events;
mod orders;
mod pauses;
mod sessions;

pub use calls::*;
pub use events::*;
pub use orders::*;
pub use pauses::*;
pub use sessions::*;

/// What is known of a value in the CID store.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredValue {
    pub cid: String,
    /// Size of the serialized bytes.
    pub size: usize,
    /// `dill` (a pickle) or `json`.
    pub serialization_format: String,
    pub stored_at: f64,
    /// Python-like text of the value when the server can decode it, else a placeholder.
    pub display: String,
}

/// A breakpoint as the main page shows and edits it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakpointView {
    pub function_name: String,
    pub behavior: Behavior,
    pub after_behavior: AfterBehavior,
    pub replacement: Option<String>,
    pub signature: Option<String>,
    /// Registered functions with the same signature: the possible replacements.
    pub replacements: Vec<String>,
}

/// Every breakpoint and the global behaviour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakpointsView {
    pub breakpoints: Vec<BreakpointView>,
    pub global_behavior: GlobalBehavior,
}
