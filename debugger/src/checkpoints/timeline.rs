//! The book's read side and its named requests: a process's timeline as the API answers it, and
//! the named checkpoints asked of a paused client (taken with its poll).

use tokio::sync::oneshot;

use super::book::{Book, LineState};
use super::model::{Branch, Checkpoint, CheckpointStatus, LivePosition, Timeline, NOT_REWOUND};

impl Book {
    /// The process's timeline; `memory` reads a checkpoint's pinned bytes by pid.
    pub fn timeline(&self, process_id: &str, memory: impl Fn(i64) -> Option<u64>) -> Option<Timeline> {
        let book = self.processes.get(process_id)?;
        let checkpoints: Vec<Checkpoint> = book
            .checkpoints
            .iter()
            .map(|c| Checkpoint {
                memory_bytes: (c.status == CheckpointStatus::Held).then(|| memory(c.pid)).flatten(),
                ..c.clone()
            })
            .collect();
        let lines: Vec<&super::book::Line> = self.lines.values().filter(|l| l.process_id == process_id).collect();
        let branches = book
            .branches
            .iter()
            .map(|b| Branch {
                live: lines.iter().any(|l| l.branch == b.name && l.state == LineState::Live),
                kept_pause: lines
                    .iter()
                    .find(|l| l.branch == b.name && l.state == LineState::Kept)
                    .and_then(|l| l.pause.clone()),
                ..b.clone()
            })
            .collect();
        let live = lines.iter().find(|l| l.state == LineState::Live).map(|l| LivePosition {
            branch: l.branch.clone(),
            pause_id: l.pause.clone(),
            checkpoint: l.head.clone(),
            pid: Some(l.pid),
        });
        Some(Timeline {
            process_id: process_id.to_string(),
            memory_bytes: checkpoints.iter().filter_map(|c| c.memory_bytes).sum(),
            checkpoints,
            branches,
            live,
            cap: book.cap,
            refusals: book.refusals.clone(),
            not_rewound: NOT_REWOUND.to_string(),
        })
    }

    /// Asks the client paused at `pause_id` to take a checkpoint now, under `label`; the receiver gets
    /// the checkpoint's id.
    pub fn request_named(&mut self, pause_id: &str, label: String) -> (String, oneshot::Receiver<String>) {
        let token = crate::ids::new_uuid();
        let (sender, receiver) = oneshot::channel();
        self.named_requests.insert(pause_id.to_string(), token.clone());
        self.named_labels.insert(token.clone(), label);
        self.named_waiters.insert(token.clone(), sender);
        (token, receiver)
    }

    /// The named request waiting for this pause's client (taken with its poll).
    pub fn take_named(&mut self, pause_id: &str) -> Option<String> {
        self.named_requests.remove(pause_id)
    }

    /// Whether this named request still waits for the pause's client to take it.
    pub fn named_waiting(&self, pause_id: &str, token: &str) -> bool {
        self.named_requests.get(pause_id).is_some_and(|t| t == token)
    }

    /// The label asked for with a named request.
    pub fn named_label(&self, token: &str) -> Option<String> {
        self.named_labels.get(token).cloned()
    }

    pub fn named_done(&mut self, token: &str, checkpoint_id: &str) {
        self.named_labels.remove(token);
        if let Some(sender) = self.named_waiters.remove(token) {
            let _ = sender.send(checkpoint_id.to_string());
        }
    }

    pub fn cancel_named(&mut self, pause_id: &str, token: &str) {
        self.named_waiters.remove(token);
        self.named_labels.remove(token);
        if self.named_requests.get(pause_id).is_some_and(|t| t == token) {
            self.named_requests.remove(pause_id);
        }
    }
}
