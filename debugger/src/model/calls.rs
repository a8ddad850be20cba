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

/// How many of a process's newest calls its call tree shows unless asked for all of them: a busy
/// service reports calls without end, and its page reads the tree again on each one.
pub const CALL_TREE_NEWEST: usize = 1_000;

/// A process's call tree as its page shows it (`pauses().call_tree_page`).
#[derive(Clone, Debug, PartialEq)]
pub struct CallTreePage {
    /// Depth first, of the calls shown.
    pub nodes: Vec<CallTreeNode>,
    /// How many calls the process reported: more than the nodes when only the newest are shown.
    pub total: u64,
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
