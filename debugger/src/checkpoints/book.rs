//! The rules of time travel, in memory: which checkpoints each process has and on which branch,
//! which lines of the process run (the live one, kept ones), and the wake orders on their way to
//! checkpoint processes. Checkpoint processes die with the server, so nothing here is persisted.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use tokio::sync::{oneshot, Notify};

use super::model::{Branch, Checkpoint, CheckpointStatus, Refusal, WakeOrder};
use crate::error::{Error, Result};

pub const MAIN: &str = "main";
/// Checkpoints kept per process unless the client says otherwise (`cap=`).
pub const DEFAULT_CAP: usize = 16;
const MAX_REFUSALS: usize = 50;

/// One running copy of a process: the original, or one woken from a checkpoint.
#[derive(Clone, Debug)]
pub struct Line {
    pub process_id: String,
    pub pid: i64,
    pub branch: String,
    /// The newest checkpoint before where this line is now.
    pub head: Option<String>,
    /// Its open pause, if paused.
    pub pause: Option<String>,
    pub state: LineState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineState {
    Live,
    /// Left paused by a non-destructive step back or branch.
    Kept,
    Gone,
}

/// The new line a wake produced.
#[derive(Clone, Debug)]
pub struct Woken {
    pub pause_id: String,
    pub pid: i64,
    pub process_key: String,
}

pub(super) struct PendingWake {
    process_id: String,
    checkpoint_id: String,
    branch: String,
    sender: oneshot::Sender<Woken>,
}

#[derive(Default)]
pub(super) struct Slot {
    notify: Arc<Notify>,
    orders: VecDeque<WakeOrder>,
}

pub(super) struct ProcessBook {
    pub(super) checkpoints: Vec<Checkpoint>,
    pub(super) branches: Vec<Branch>,
    pub(super) cap: usize,
    pub(super) refusals: Vec<Refusal>,
    branch_seq: u64,
}

#[derive(Default)]
pub struct Book {
    pub(super) next_id: u64,
    pub(super) processes: HashMap<String, ProcessBook>,
    /// By process key (one per line: a woken line has its own pid).
    pub(super) lines: HashMap<String, Line>,
    pub(super) slots: HashMap<String, Slot>,
    pub(super) pending: HashMap<String, PendingWake>,
    /// Pauses of clients with checkpoints on: why a checkpoint will be refused (None: it will not).
    pub(super) pause_modes: HashMap<String, Option<String>>,
    /// Named checkpoint requests by pause, waiting for the paused client's poll.
    pub(super) named_requests: HashMap<String, String>,
    pub(super) named_labels: HashMap<String, String>,
    pub(super) named_waiters: HashMap<String, oneshot::Sender<String>>,
}

fn book_of<'a>(processes: &'a mut HashMap<String, ProcessBook>, process_id: &str, now: f64) -> &'a mut ProcessBook {
    processes.entry(process_id.to_string()).or_insert_with(|| ProcessBook {
        checkpoints: vec![],
        branches: vec![Branch { name: MAIN.into(), fork_point: None, created_at: now, live: true, kept_pause: None }],
        cap: DEFAULT_CAP,
        refusals: vec![],
        branch_seq: 0,
    })
}

impl Book {
    /// A pause of a client with checkpoints on (`refusal`: why it cannot take one), or of a line
    /// woken from a checkpoint (`wake`). Returns the woken line's answer for whoever woke it.
    #[allow(clippy::too_many_arguments)]
    pub fn note_pause(
        &mut self,
        process_id: &str,
        process_key: &str,
        pid: i64,
        pause_id: &str,
        refusal: Option<String>,
        wake: Option<&str>,
        now: f64,
    ) {
        book_of(&mut self.processes, process_id, now);
        self.pause_modes.insert(pause_id.to_string(), refusal);
        if let Some(pending) = wake.and_then(|token| self.pending.remove(token)) {
            let head = self.parent_of(&pending.checkpoint_id);
            // The line it replaces as the live one: killed or kept by the caller.
            for line in self.lines.values_mut() {
                if line.process_id == pending.process_id && line.state == LineState::Live {
                    line.state = LineState::Kept;
                }
            }
            self.lines.insert(
                process_key.to_string(),
                Line {
                    process_id: pending.process_id,
                    pid,
                    branch: pending.branch,
                    head,
                    pause: Some(pause_id.to_string()),
                    state: LineState::Live,
                },
            );
            let _ = pending.sender.send(Woken {
                pause_id: pause_id.to_string(),
                pid,
                process_key: process_key.to_string(),
            });
            return;
        }
        let has_live = self.lines.values().any(|l| l.process_id == process_id && l.state == LineState::Live);
        let line = self.lines.entry(process_key.to_string()).or_insert_with(|| Line {
            process_id: process_id.to_string(),
            pid,
            branch: MAIN.into(),
            head: None,
            pause: None,
            state: if has_live { LineState::Kept } else { LineState::Live },
        });
        line.pause = Some(pause_id.to_string());
    }

    /// Whether the pause's client takes checkpoints: None (off), Some(None) (it will),
    /// Some(Some(reason)) (it will refuse, and why).
    pub fn pause_mode(&self, pause_id: &str) -> Option<Option<String>> {
        self.pause_modes.get(pause_id).cloned()
    }

    pub fn pause_closed(&mut self, pause_id: &str) {
        for line in self.lines.values_mut().filter(|l| l.pause.as_deref() == Some(pause_id)) {
            line.pause = None;
        }
    }

    pub fn line(&self, process_key: &str) -> Option<&Line> {
        self.lines.get(process_key)
    }

    pub fn line_mut(&mut self, process_key: &str) -> Option<&mut Line> {
        self.lines.get_mut(process_key)
    }

    /// The live line of a process: its key and record.
    pub fn live_line(&self, process_id: &str) -> Option<(String, Line)> {
        self.lines
            .iter()
            .find(|(_, l)| l.process_id == process_id && l.state == LineState::Live)
            .map(|(k, l)| (k.clone(), l.clone()))
    }

    /// The lines of a process on `branch` (for diffs).
    pub fn keys_on_branch(&self, process_id: &str, branch: &str) -> Vec<String> {
        self.lines
            .iter()
            .filter(|(_, l)| l.process_id == process_id && l.branch == branch)
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// A line stopped existing (its process exited, or it was killed).
    pub fn line_ended(&mut self, process_key: &str) {
        if let Some(line) = self.lines.get_mut(process_key) {
            line.state = LineState::Gone;
            line.pause = None;
        }
    }

    pub fn refuse(&mut self, process_id: &str, pause_id: &str, reason: &str, now: f64) {
        let book = book_of(&mut self.processes, process_id, now);
        book.refusals.push(Refusal { pause_id: pause_id.into(), reason: reason.into(), at: now });
        let excess = book.refusals.len().saturating_sub(MAX_REFUSALS);
        book.refusals.drain(..excess);
    }

    /// Records a checkpoint forked at a pause of the line `process_key`. Returns it and the pids of
    /// the checkpoints dropped for the cap (to be killed).
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        process_id: &str,
        process_key: &str,
        pause_id: &str,
        call_id: &str,
        function_name: &str,
        pid: i64,
        label: Option<String>,
        cap: Option<usize>,
        now: f64,
    ) -> (Checkpoint, Vec<i64>) {
        self.next_id += 1;
        let id = format!("cp-{}", self.next_id);
        let line = self.lines.entry(process_key.to_string()).or_insert_with(|| Line {
            process_id: process_id.to_string(),
            pid: 0,
            branch: MAIN.into(),
            head: None,
            pause: None,
            state: LineState::Live,
        });
        let parent = line.head.replace(id.clone());
        let branch = line.branch.clone();
        let named = label.as_deref().is_some_and(|l| !l.trim().is_empty());
        let checkpoint = Checkpoint {
            id: id.clone(),
            process_id: process_id.to_string(),
            label: label.filter(|_| named).unwrap_or_else(|| format!("{function_name} (#{})", self.next_id)),
            named,
            pause_id: pause_id.to_string(),
            call_id: call_id.to_string(),
            function_name: function_name.to_string(),
            branch,
            taken_at: now,
            parent,
            pid,
            status: CheckpointStatus::Held,
            memory_bytes: None,
        };
        self.slots.insert(id, Slot::default());
        let book = book_of(&mut self.processes, process_id, now);
        if let Some(cap) = cap.filter(|c| *c > 0) {
            book.cap = cap;
        }
        book.checkpoints.push(checkpoint.clone());
        let mut dropped = vec![];
        let held =
            |b: &ProcessBook| b.checkpoints.iter().filter(|c| c.status == CheckpointStatus::Held && !c.named).count();
        while held(book) > book.cap {
            let Some(oldest) = book.checkpoints.iter_mut().find(|c| c.status == CheckpointStatus::Held && !c.named)
            else {
                break;
            };
            oldest.status = CheckpointStatus::Dropped;
            dropped.push((oldest.id.clone(), oldest.pid));
        }
        for (id, _) in &dropped {
            self.close_slot(id);
        }
        (checkpoint, dropped.into_iter().map(|(_, pid)| pid).collect())
    }

    fn close_slot(&mut self, id: &str) {
        if let Some(slot) = self.slots.remove(id) {
            // The holder's next poll finds the checkpoint gone and exits.
            slot.notify.notify_waiters();
        }
    }

    pub fn checkpoint(&self, id: &str) -> Option<&Checkpoint> {
        self.processes.values().flat_map(|b| b.checkpoints.iter()).find(|c| c.id == id)
    }

    fn parent_of(&self, id: &str) -> Option<String> {
        self.checkpoint(id).and_then(|c| c.parent.clone())
    }

    /// A held checkpoint, or why it cannot be used.
    pub fn held(&self, id: &str) -> Result<&Checkpoint> {
        let cp = self
            .checkpoint(id)
            .ok_or_else(|| Error::not_found("checkpoint_not_found", format!("no checkpoint {id}")))?;
        match cp.status {
            CheckpointStatus::Held => Ok(cp),
            CheckpointStatus::Dropped => Err(Error::conflict(
                "checkpoint_dropped",
                format!("checkpoint {id} was dropped to keep the process under its cap of checkpoints"),
            )),
            CheckpointStatus::Ended => Err(Error::conflict(
                "checkpoint_ended",
                format!(
                    "checkpoint {id} ended with its process (stopped, forgotten, or its checkpoint's process died)"
                ),
            )),
        }
    }

    /// The newest held checkpoint before `pause_id` on its line: the line's head when the pause
    /// is the line's open one (skipping checkpoints taken at this very pause), else the
    /// checkpoint taken at that pause.
    pub fn before(&self, process_key: &str, pause_id: &str) -> Option<String> {
        let line = self.lines.get(process_key)?;
        if line.pause.as_deref() == Some(pause_id) {
            let mut at = line.head.clone();
            while let Some(id) = at {
                let cp = self.checkpoint(&id)?;
                if cp.pause_id != pause_id && cp.status == CheckpointStatus::Held {
                    return Some(id);
                }
                at = cp.parent.clone();
            }
            return None;
        }
        self.processes
            .values()
            .flat_map(|b| b.checkpoints.iter())
            .filter(|c| c.pause_id == pause_id && c.status == CheckpointStatus::Held)
            .map(|c| c.id.clone())
            .last()
    }

    /// What a checkpoint's held poll waits on.
    pub fn slot_notify(&mut self, id: &str) -> Result<Arc<Notify>> {
        self.held(id)?;
        Ok(self.slots.entry(id.to_string()).or_default().notify.clone())
    }

    /// The next wake order for the checkpoint `id`, if any.
    pub fn take_order(&mut self, id: &str) -> Result<Option<WakeOrder>> {
        self.held(id)?;
        Ok(self.slots.get_mut(id).and_then(|s| s.orders.pop_front()))
    }

    /// The line of `process_id` with this pid ended (the process exited or was lost).
    pub fn pid_ended(&mut self, process_id: &str, pid: i64) {
        for line in self.lines.values_mut().filter(|l| l.process_id == process_id && l.pid == pid) {
            line.state = LineState::Gone;
            line.pause = None;
        }
    }

    pub fn branch(&self, process_id: &str, name: &str) -> Option<&Branch> {
        self.processes.get(process_id)?.branches.iter().find(|b| b.name == name)
    }

    /// Orders the checkpoint `id` to fork a new live line on `branch`; the receiver gets the new
    /// line's pause.
    pub fn begin_wake(&mut self, id: &str, branch: &str, token: String) -> Result<oneshot::Receiver<Woken>> {
        let process_id = self.held(id)?.process_id.clone();
        let (sender, receiver) = oneshot::channel();
        let slot = self.slots.entry(id.to_string()).or_default();
        slot.orders.push_back(WakeOrder { token: token.clone(), process_id: process_id.clone() });
        slot.notify.notify_waiters();
        self.pending.insert(
            token,
            PendingWake { process_id, checkpoint_id: id.to_string(), branch: branch.to_string(), sender },
        );
        Ok(receiver)
    }

    /// A wake that got no answer: its order must not fire later.
    pub fn cancel_wake(&mut self, id: &str, token: &str) {
        self.pending.remove(token);
        if let Some(slot) = self.slots.get_mut(id) {
            slot.orders.retain(|o| o.token != token);
        }
    }

    pub fn has_branch(&self, process_id: &str, name: &str) -> bool {
        self.processes.get(process_id).is_some_and(|b| b.branches.iter().any(|br| br.name == name))
    }

    /// A new branch forking at `fork_point`; `name` None picks `branch-N`.
    pub fn create_branch(
        &mut self,
        process_id: &str,
        name: Option<&str>,
        fork_point: &str,
        now: f64,
    ) -> Result<String> {
        let book = book_of(&mut self.processes, process_id, now);
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => {
                if n.len() > 64 || !n.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
                    return Err(Error::invalid(
                        "invalid_branch_name",
                        format!("a branch name is 1 to 64 letters, digits, '-', '_' or '.', not {n:?}"),
                    ));
                }
                if book.branches.iter().any(|b| b.name == n) {
                    return Err(Error::conflict(
                        "branch_exists",
                        format!("process {process_id} has a branch {n:?} already"),
                    ));
                }
                n.to_string()
            }
            None => loop {
                book.branch_seq += 1;
                let candidate = format!("branch-{}", book.branch_seq);
                if !book.branches.iter().any(|b| b.name == candidate) {
                    break candidate;
                }
            },
        };
        book.branches.push(Branch {
            name: name.clone(),
            fork_point: Some(fork_point.to_string()),
            created_at: now,
            live: false,
            kept_pause: None,
        });
        Ok(name)
    }

    /// The newest held checkpoint of a branch.
    pub fn newest_on(&self, process_id: &str, branch: &str) -> Option<String> {
        let book = self.processes.get(process_id)?;
        book.checkpoints
            .iter()
            .rev()
            .find(|c| c.branch == branch && c.status == CheckpointStatus::Held)
            .map(|c| c.id.clone())
            .or_else(|| book.branches.iter().find(|b| b.name == branch).and_then(|b| b.fork_point.clone()))
    }

    /// A kept (paused) line on `branch`: its key.
    pub fn kept_on(&self, process_id: &str, branch: &str) -> Option<String> {
        self.lines
            .iter()
            .find(|(_, l)| {
                l.process_id == process_id && l.branch == branch && l.state == LineState::Kept && l.pause.is_some()
            })
            .map(|(k, _)| k.clone())
    }

    /// Makes the line `key` the live one; the live one before it is kept.
    pub fn make_live(&mut self, key: &str) -> Option<Line> {
        let process_id = self.lines.get(key)?.process_id.clone();
        for line in self.lines.values_mut() {
            if line.process_id == process_id && line.state == LineState::Live {
                line.state = LineState::Kept;
            }
        }
        let line = self.lines.get_mut(key)?;
        line.state = LineState::Live;
        Some(line.clone())
    }

    /// Ends a process's checkpoints and kept lines; returns the pids to kill.
    pub fn end_process(&mut self, process_id: &str) -> Vec<i64> {
        let mut pids = vec![];
        let mut ended = vec![];
        if let Some(book) = self.processes.get_mut(process_id) {
            for cp in book.checkpoints.iter_mut().filter(|c| c.status == CheckpointStatus::Held) {
                cp.status = CheckpointStatus::Ended;
                pids.push(cp.pid);
                ended.push(cp.id.clone());
            }
        }
        for id in ended {
            self.close_slot(&id);
        }
        for line in self.lines.values_mut().filter(|l| l.process_id == process_id && l.state == LineState::Kept) {
            line.state = LineState::Gone;
            pids.push(line.pid);
        }
        pids
    }

    /// Every process's checkpoints and kept lines (the server is stopping).
    pub fn end_all(&mut self) -> Vec<i64> {
        let ids: Vec<String> = self.processes.keys().cloned().collect();
        ids.iter().flat_map(|id| self.end_process(id)).collect()
    }

    pub fn has_process(&self, process_id: &str) -> bool {
        self.processes.contains_key(process_id)
    }

    /// The newest process that has checkpoints.
    pub fn newest_process(&self) -> Option<String> {
        self.processes
            .iter()
            .filter_map(|(id, b)| b.checkpoints.last().map(|c| (c.taken_at, id)))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, id)| id.clone())
    }
}
