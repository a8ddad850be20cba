//! The recorded calls of a debugged process, as `/call-tree` lists them.

use super::SessionLink;
use crate::kinds::CallStatus;
use serde::{Deserialize, Serialize};

/// A debugged process, as `/call-tree` lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessSummary {
    pub process_key: String,
    pub pid: i64,
    pub first_call_at: f64,
    pub last_call_at: f64,
    pub calls: usize,
    pub paused: usize,
    pub repl_sessions: usize,
}

/// One recorded call in a process's call tree, in depth-first order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallTreeNode {
    pub call_id: String,
    pub function_name: String,
    /// Nesting level: 0 for calls with no recorded caller.
    pub depth: usize,
    pub parent: Option<String>,
    pub args_text: Vec<String>,
    pub status: CallStatus,
    pub result_text: Option<String>,
    pub started_at: f64,
    pub completed_at: Option<f64>,
    pub pause_ids: Vec<String>,
    pub repl_sessions: Vec<SessionLink>,
}
