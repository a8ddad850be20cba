//! REPL sessions and their transcripts.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::ids;
use crate::model::{ReplSession, SessionPage, SessionQuery, SessionStatus, TranscriptEntry};

pub const DEFAULT_PER_PAGE: usize = 50;
pub const MAX_PER_PAGE: usize = 500;

#[derive(Default)]
pub struct Sessions {
    by_id: HashMap<String, ReplSession>,
    /// Session ids in the order they started.
    order: Vec<String>,
    /// Each session's searchable text, lowercased once: scanning it for `/repls` search takes
    /// about a millisecond for 10,000 sessions of 50 entries (see benches/session_search.rs).
    text: HashMap<String, String>,
}

impl Sessions {
    /// Adds a session, moving `started_at` on by 1 ms until its id is unique.
    pub fn insert(&mut self, mut session: ReplSession) -> String {
        let mut id = ids::session_id(session.pid, session.started_at);
        while self.by_id.contains_key(&id) {
            session.started_at += 0.001;
            id = ids::session_id(session.pid, session.started_at);
        }
        session.session_id = id.clone();
        self.order.push(id.clone());
        self.text.insert(id.clone(), searchable_text(&session));
        self.by_id.insert(id.clone(), session);
        id
    }

    /// Puts back a session read from the store, keeping its id.
    pub fn restore(&mut self, session: ReplSession) {
        if self.by_id.contains_key(&session.session_id) {
            return;
        }
        self.order.push(session.session_id.clone());
        self.text.insert(session.session_id.clone(), searchable_text(&session));
        self.by_id.insert(session.session_id.clone(), session);
    }

    pub fn get(&self, id: &str) -> Option<&ReplSession> {
        self.by_id.get(id)
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// An open session, or why it is not one.
    pub fn open_mut(&mut self, id: &str) -> Result<&mut ReplSession> {
        let session = self.by_id.get_mut(id).ok_or_else(|| Error::SessionNotFound(id.to_string()))?;
        if session.closed_at.is_some() {
            return Err(Error::SessionClosed(id.to_string()));
        }
        Ok(session)
    }

    pub fn append(
        &mut self,
        id: &str,
        input: String,
        output: String,
        stdout: String,
        is_error: bool,
        result_cid: Option<String>,
        now: f64,
    ) -> Result<TranscriptEntry> {
        let session = self.open_mut(id)?;
        let entry = TranscriptEntry {
            index: session.transcript.len(),
            input,
            output,
            stdout,
            is_error,
            result_cid,
            timestamp: now,
        };
        session.transcript.push(entry.clone());
        if let Some(text) = self.text.get_mut(id) {
            push_entry_text(text, &entry);
        }
        Ok(entry)
    }

    /// Closes a session; closing a closed one changes nothing. Returns whether it was open.
    pub fn close(&mut self, id: &str, now: f64) -> Result<bool> {
        let session = self.by_id.get_mut(id).ok_or_else(|| Error::SessionNotFound(id.to_string()))?;
        if session.closed_at.is_some() {
            return Ok(false);
        }
        session.closed_at = Some(now);
        Ok(true)
    }

    pub fn set_closed_reason(&mut self, id: &str, reason: &str) {
        if let Some(session) = self.by_id.get_mut(id) {
            session.closed_reason = Some(reason.to_string());
        }
    }

    /// Every session still open, oldest first.
    pub fn open_ids(&self) -> Vec<String> {
        self.order.iter().filter(|id| self.by_id.get(*id).is_some_and(|s| s.closed_at.is_none())).cloned().collect()
    }

    pub fn for_pause(&self, pause_id: &str) -> Vec<String> {
        self.order.iter().filter(|id| self.by_id[*id].pause_id == pause_id).cloned().collect()
    }

    /// The sessions of a pause that are still open, oldest first.
    pub fn open_for_pause(&self, pause_id: &str) -> Vec<String> {
        self.order
            .iter()
            .filter(|id| self.by_id.get(*id).is_some_and(|s| s.pause_id == pause_id && s.closed_at.is_none()))
            .cloned()
            .collect()
    }

    pub fn for_call(&self, call_id: &str) -> Vec<String> {
        self.order.iter().filter(|id| self.by_id[*id].call_id.as_deref() == Some(call_id)).cloned().collect()
    }

    /// Matching sessions, newest first, one page of them.
    pub fn list(&self, query: &SessionQuery) -> SessionPage<ReplSession> {
        let needle = query.search.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_lowercase);
        let finder = needle.as_deref().map(memchr::memmem::Finder::new);
        let mut matching: Vec<&ReplSession> = self
            .order
            .iter()
            .map(|id| &self.by_id[id])
            .filter(|s| match query.status {
                SessionStatus::All => true,
                SessionStatus::Active => s.closed_at.is_none(),
                SessionStatus::Closed => s.closed_at.is_some(),
            })
            .filter(|s| query.from.is_none_or(|from| s.started_at >= from))
            .filter(|s| query.to.is_none_or(|to| s.started_at <= to))
            .filter(|s| match &finder {
                None => true,
                Some(finder) => self.text.get(&s.session_id).is_some_and(|t| finder.find(t.as_bytes()).is_some()),
            })
            .collect();
        matching.sort_by(|a, b| b.started_at.total_cmp(&a.started_at));
        let per_page = match query.per_page {
            0 => DEFAULT_PER_PAGE,
            n => n.min(MAX_PER_PAGE),
        };
        let page = query.page.max(1);
        let total = matching.len();
        let sessions = matching.into_iter().skip((page - 1).saturating_mul(per_page)).take(per_page).cloned().collect();
        SessionPage { sessions, total, page, per_page }
    }
}

/// What a search looks in, lowercased: the function name, then every input, output and stdout.
fn searchable_text(session: &ReplSession) -> String {
    let mut text = session.function_name.to_lowercase();
    for entry in &session.transcript {
        push_entry_text(&mut text, entry);
    }
    text
}

fn push_entry_text(text: &mut String, entry: &TranscriptEntry) {
    // A separator no search text contains (searches are trimmed), so matches stay inside a field.
    for field in [&entry.input, &entry.output, &entry.stdout] {
        text.push('\u{0}');
        text.push_str(&field.to_lowercase());
    }
}
