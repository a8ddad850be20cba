//! The REPL sessions that are open right now, with their transcripts. A session leaves memory
//! when it closes; from then on it is read from the store (`store::sessions`), so memory holds
//! only what live pauses use, however long the history.

mod conditions;
pub(crate) mod helpers;
pub(crate) mod methods;
mod search;
pub mod state;

pub use methods::SessionService;
pub(crate) mod store;

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::ids;
use crate::model::{ReplSession, TranscriptEntry};
use crate::search::{Needle, SearchText};

pub const DEFAULT_PER_PAGE: usize = 50;
pub const MAX_PER_PAGE: usize = 500;

#[derive(Default)]
pub struct Sessions {
    by_id: HashMap<String, OpenSession>,
    /// Session ids in the order they started.
    order: Vec<String>,
}

struct OpenSession {
    pub(crate) session: ReplSession,
    /// The frame selected for its evals (pdb's up/down); None: the pause's own.
    frame: Option<usize>,
    /// Searched in memory until the session closes and its text goes into the store's index.
    text: SearchText,
}

impl Sessions {
    /// Adds a session, moving `started_at` on by 1 ms until its id is unique: not open here and
    /// not `taken` (by a closed session in the store).
    pub fn insert(&mut self, mut session: ReplSession, taken: impl Fn(&str) -> Result<bool>) -> Result<String> {
        let mut id = ids::session_id(session.pid, session.started_at);
        while self.by_id.contains_key(&id) || taken(&id)? {
            session.started_at += 0.001;
            id = ids::session_id(session.pid, session.started_at);
        }
        session.session_id = id.clone();
        self.restore(session);
        Ok(id)
    }

    /// Puts back an open session read from the store, keeping its id.
    pub fn restore(&mut self, session: ReplSession) {
        if self.by_id.contains_key(&session.session_id) {
            return;
        }
        self.order.push(session.session_id.clone());
        let text = SearchText::of(&session);
        self.by_id.insert(session.session_id.clone(), OpenSession { session, text, frame: None });
    }

    /// An open session.
    pub fn get(&self, id: &str) -> Option<&ReplSession> {
        self.by_id.get(id).map(|open| &open.session)
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The entry that would be appended next, not appended yet: an answer is stored first, and
    /// only then joins the transcript (`push`), so a failed store leaves nothing half-done.
    #[allow(clippy::too_many_arguments)]
    pub fn next_entry(
        &self,
        id: &str,
        input: String,
        output: String,
        stdout: String,
        is_error: bool,
        result_cid: Option<String>,
        now: f64,
    ) -> Result<TranscriptEntry> {
        let open = self.by_id.get(id).ok_or_else(|| Error::SessionNotFound(id.to_string()))?;
        Ok(TranscriptEntry {
            index: open.session.transcript.len(),
            input,
            output,
            stdout,
            is_error,
            result_cid,
            timestamp: now,
            outputs: vec![],
        })
    }

    /// Appends an entry made by `next_entry`.
    pub fn push(&mut self, id: &str, entry: TranscriptEntry) {
        if let Some(open) = self.by_id.get_mut(id) {
            open.text.push_entry(&entry);
            open.session.transcript.push(entry);
        }
    }

    /// Closes an open session: it leaves memory, and is returned (with its transcript) to be
    /// stored. None when it is not open here.
    pub fn close(&mut self, id: &str, now: f64, reason: Option<&str>) -> Option<ReplSession> {
        let mut session = self.by_id.remove(id)?.session;
        self.order.retain(|other| other != id);
        session.closed_at = Some(now);
        session.closed_reason = reason.map(str::to_string);
        Some(session)
    }

    /// A step stopped: the session goes on in the pause where it stopped. False when the
    /// session is not open.
    pub fn move_to_pause(&mut self, id: &str, pause_id: &str, call_id: &str, function_name: &str) -> bool {
        let Some(open) = self.by_id.get_mut(id) else { return false };
        open.session.pause_id = pause_id.to_string();
        open.session.call_id = Some(call_id.to_string());
        open.session.function_name = function_name.to_string();
        open.frame = None;
        true
    }

    pub fn select_frame(&mut self, id: &str, frame: usize) {
        if let Some(open) = self.by_id.get_mut(id) {
            open.frame = Some(frame);
        }
    }

    /// The frame selected in an open session.
    pub fn frame_of(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).and_then(|open| open.frame)
    }

    /// Every open session, oldest first.
    pub fn open_ids(&self) -> Vec<String> {
        self.order.clone()
    }

    /// The open sessions of a pause, oldest first.
    pub fn open_for_pause(&self, pause_id: &str) -> Vec<String> {
        self.order.iter().filter(|id| self.get(id).is_some_and(|s| s.pause_id == pause_id)).cloned().collect()
    }

    /// The open sessions whose text matches `needle`.
    pub fn matching(&self, needle: &Needle) -> Vec<String> {
        self.order.iter().filter(|id| self.by_id.get(*id).is_some_and(|s| s.text.contains(needle))).cloned().collect()
    }
}
