//! [`Host`]: what a concept's service asks of the one owner of the state, without naming it.
//!
//! The owner ([`crate::Debugger`], last in the concepts' order) holds every concept's state
//! behind one lock and hands out the services. A service that names the owner would make its
//! concept depend on every concept below it; instead each concept states what it needs from the
//! owner as a trait of its own, built on this one (`ProcessHost`, `AttachHost`, ...), and the
//! owner implements them. The owner's wiring between concepts ("a process that ended ends its
//! checkpoints") is then a method of such a trait, written once, in the owner.
//!
//! There is one implementation, so the generic services cost nothing at run time.

use std::sync::MutexGuard;

use serde_json::Value;
use tokio::sync::broadcast;

use crate::cid_store::{SerializedItem, StoredObject, VerifiedObject};
use crate::display::pretty_item;
use crate::error::Result;
use crate::eval::PendingEval;
use crate::model::{EventKind, LiveEvent};
use crate::store::Store;

/// Declares a concept's service: a `Copy` handle on the owner `H` (whatever `H` is, so no
/// `H: Copy` bound as `derive` would add), which the doors reach as `debugger.<concept>()`.
macro_rules! service {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub struct $name<'a, H> {
            pub(crate) debugger: &'a H,
        }

        impl<H> Clone for $name<'_, H> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<H> Copy for $name<'_, H> {}
    };
}
pub(crate) use service;

pub trait Host: Clone + Send + Sync + 'static {
    /// What the one lock guards. A concept sees it through a trait of its own that says which
    /// parts it reads (`ProcessState`, ...).
    type State;

    /// Takes the one lock. It is never held across an await.
    fn state(&self) -> MutexGuard<'_, Self::State>;

    /// Tells the pages, and the other servers on the same database, of a change.
    fn publish(&self, event: LiveEvent);

    /// Every change as it happens.
    fn subscribe(&self) -> broadcast::Receiver<LiveEvent>;
}

/// What every concept's part of the state reaches: the store.
pub trait Stored {
    fn store(&self) -> &Ledger;
}

/// The store, with the live stream that a logpoint's line is told on as it is written: what
/// every concept writes to while it holds the lock. It reads as the [`Store`] it wraps.
pub struct Ledger {
    store: Store,
    live: broadcast::Sender<LiveEvent>,
    to_peers: broadcast::Sender<LiveEvent>,
}

impl std::ops::Deref for Ledger {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl Ledger {
    /// `live` is the pages' stream, `to_peers` what the other servers are told.
    pub fn new(store: Store, live: broadcast::Sender<LiveEvent>, to_peers: broadcast::Sender<LiveEvent>) -> Self {
        Ledger { store, live, to_peers }
    }

    /// Verifies, stores and persists a value a client sent.
    pub fn store_pair(&self, cid: &str, data: &str, format: Option<&str>, now: f64) -> Result<()> {
        self.store.put_object(&VerifiedObject::from_pair(cid, data, format, now)?).map(|_| ())
    }

    pub fn store_item(&self, item: &SerializedItem, now: f64) -> Result<()> {
        match VerifiedObject::from_item(item, now)? {
            Some(verified) => self.store.put_object(&verified).map(|_| ()),
            None => Ok(()),
        }
    }

    /// A stored value by CID (any case).
    pub fn object(&self, cid: &str) -> Result<Option<StoredObject>> {
        self.store.object(&cid.to_ascii_lowercase())
    }

    /// Display text of a client's value, read from the store when it has no repr.
    pub fn pretty(&self, item: &SerializedItem) -> Result<Value> {
        let stored = match (&item.repr, &item.cid) {
            (None, Some(cid)) => self.object(cid)?,
            _ => None,
        };
        Ok(pretty_item(item, stored.as_ref()))
    }

    /// Whether an item refers to a CID the store does not have (it has a CID but no data).
    pub fn is_missing(&self, item: &SerializedItem) -> Result<bool> {
        match (&item.cid, &item.data) {
            (Some(cid), None) => Ok(!self.store.has_object(&cid.to_ascii_lowercase())?),
            _ => Ok(false),
        }
    }

    /// Records eval requests of the program with `process_key` that will get no answer (timed
    /// out, or their session or pause closed).
    pub fn log_unanswered(&self, process_key: &str, unanswered: impl Iterator<Item = PendingEval>) -> Result<()> {
        for pending in unanswered.filter(|p| p.request.kind.is_eval()) {
            let request = &pending.request;
            let event = request.event();
            let session = Some(request.session_id.as_str());
            self.store.append_event(
                pending.requested_at,
                EventKind::EvalRequest,
                Some(process_key),
                session,
                &event,
            )?;
        }
        Ok(())
    }

    /// Appends to the event log; a logpoint's line is told on the live stream at once.
    pub fn log(
        &self,
        now: f64,
        kind: EventKind,
        process_key: &str,
        session_id: Option<&str>,
        data: Value,
    ) -> Result<()> {
        self.store.append_event(now, kind, Some(process_key), session_id, &data)?;
        if let (EventKind::Log, Some(message)) = (kind, data.get("message").and_then(Value::as_str)) {
            let breakpoint_id = data.get("breakpoint_id").and_then(Value::as_str).unwrap_or_default();
            let event = LiveEvent::Logged {
                process_key: process_key.to_string(),
                breakpoint_id: breakpoint_id.to_string(),
                message: message.to_string(),
            };
            let _ = self.to_peers.send(event.clone());
            let _ = self.live.send(event);
        }
        Ok(())
    }
}
