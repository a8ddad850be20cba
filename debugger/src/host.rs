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

use tokio::sync::broadcast;

use crate::model::LiveEvent;

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
