//! What the REPL sessions concept keeps under the one lock ([`SessionParts`], [`SessionState`]),
//! and what it asks of the owner of the state ([`SessionHost`]; see `crate::host`).

use std::future::Future;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::methods::{SessionCall, SessionService};
use super::Sessions;
use crate::error::{Error, Result};
use crate::host::{Host, Ledger};
use crate::model::ReplSession;
use crate::pauses::state::{PauseHost, PauseState};
use crate::pauses::PauseBook;

/// The open sessions, the live pauses their evals queue on, and the store, borrowed from the
/// state for as long as the lock is held.
pub struct SessionParts<'a> {
    pub(crate) store: &'a Ledger,
    pub(crate) sessions: &'a mut Sessions,
    pub(crate) pauses: &'a mut PauseBook,
}

pub trait SessionState: PauseState {
    /// The open sessions, to read.
    fn sessions(&self) -> &Sessions;

    /// The open sessions, the live pauses and the store, to change.
    fn session_parts(&mut self) -> SessionParts<'_>;

    /// Whether a step from this pause runs now (the steps concept keeps them): its sessions
    /// wait for the stop.
    fn is_stepping(&self, pause_id: &str) -> bool;

    /// A session, open (from memory) or closed (from the store).
    fn session(&self, session_id: &str) -> Result<Option<ReplSession>> {
        match self.sessions().get(session_id) {
            Some(open) => Ok(Some(open.clone())),
            None => self.store().session(session_id),
        }
    }

    /// An open session, or why it is not one.
    fn open_session(&self, session_id: &str) -> Result<&ReplSession> {
        match self.sessions().get(session_id) {
            Some(open) => Ok(open),
            None if self.store().has_session(session_id)? => Err(Error::SessionClosed(session_id.to_string())),
            None => Err(Error::SessionNotFound(session_id.to_string())),
        }
    }

    /// The process a session's events are logged under.
    fn session_process_key(&self, session_id: &str) -> Result<String> {
        match self.sessions().get(session_id) {
            Some(open) => Ok(open.process_key.clone()),
            None => Ok(self.store().session(session_id)?.map(|s| s.process_key).unwrap_or_default()),
        }
    }
}

pub trait SessionHost: PauseHost + Host<State: SessionState> {
    /// How long a browser's eval waits for the paused program.
    fn eval_timeout(&self) -> Duration;

    /// The server holding the pause of `session_id`, when it is another one of a cluster.
    fn session_held_elsewhere(&self, session_id: &str) -> Result<Option<String>>;

    /// Runs `call` on the server `holder` and answers at once (no program is waited for).
    fn ask_session_holder_now<T: DeserializeOwned>(&self, holder: &str, call: SessionCall) -> Result<T>;

    /// Runs `call` on the server `holder`, waiting as long as its program may take.
    fn ask_session_holder<T: DeserializeOwned + Send>(
        &self,
        holder: &str,
        call: SessionCall,
    ) -> impl Future<Output = Result<T>> + Send;

    /// REPL sessions, their evals and the REPL's helper requests.
    fn sessions(&self) -> SessionService<'_, Self>
    where
        Self: Sized,
    {
        SessionService { debugger: self }
    }
}
