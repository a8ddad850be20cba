//! The owner's part in several servers on one database (issue 35): joining, and asking the
//! server that holds a pause or session for what a door wants of it.

use std::sync::Arc;
use std::time::Duration;

use super::Debugger;
use crate::cluster::{Cluster, Request};
use crate::error::{Error, Result};

impl Debugger {
    /// Joins the servers sharing `url` (`--database-url`); see [`crate::cluster::join`].
    pub fn join_cluster(&self, url: &str) -> Result<Arc<Cluster>> {
        crate::cluster::join(self, url)
    }

    /// The server holding `pause_id`, when it is not this one (only with a cluster).
    pub(crate) fn pause_held_elsewhere(&self, pause_id: &str) -> Result<Option<String>> {
        let Some(cluster) = self.cluster() else { return Ok(None) };
        if self.state().pauses.contains(pause_id) {
            return Ok(None);
        }
        cluster.holder_of_pause(pause_id)
    }

    /// The server holding the pause of `session_id`, when it is not this one.
    pub(crate) fn session_held_elsewhere(&self, session_id: &str) -> Result<Option<String>> {
        let Some(cluster) = self.cluster() else { return Ok(None) };
        if self.state().sessions.get(session_id).is_some() {
            return Ok(None);
        }
        cluster.holder_of_session(session_id)
    }

    /// Runs a door's call that may wait for another server's quick answer (`ask_holder_now`:
    /// starting or closing a session, resuming a pause held there) on the blocking pool, so no
    /// runtime worker waits on another server; alone, where it never waits, in place.
    pub async fn off_workers<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Debugger) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        if self.cluster().is_none() {
            return call(self);
        }
        let debugger = self.clone();
        tokio::task::spawn_blocking(move || call(&debugger))
            .await
            .map_err(|e| Error::storage(format!("a call that asks another server failed: {e}")))?
    }

    /// `request` run by `holder`, for a door that answers at once (see [`Debugger::off_workers`]).
    pub(crate) fn ask_holder_now<T: serde::de::DeserializeOwned>(
        &self,
        holder: &str,
        request: impl Into<Request>,
    ) -> Result<T> {
        let request = request.into();
        let cluster = self.cluster().ok_or_else(|| Error::storage("not in a cluster"))?;
        let value = cluster.ask_now(holder, request)?;
        serde_json::from_value(value).map_err(|e| Error::storage_caused("another server's reply", e))
    }

    /// `request` run by `holder`, waiting as long as the program may take.
    pub(crate) async fn ask_holder<T: serde::de::DeserializeOwned>(
        &self,
        holder: &str,
        request: impl Into<Request>,
    ) -> Result<T> {
        let request = request.into();
        let cluster = self.cluster().ok_or_else(|| Error::storage("not in a cluster"))?.clone();
        // The holder's own wait for its program, and the trip there and back.
        let wait = self.inner.config.eval_timeout + Duration::from_secs(5);
        let session_id = match &request {
            Request::Session(
                crate::sessions::methods::SessionCall::Eval { session_id, .. }
                | crate::sessions::methods::SessionCall::CloseSession { session_id },
            ) => Some(session_id.clone()),
            _ => None,
        };
        let value = cluster.ask(holder, request, wait).await.inspect_err(|_| {
            if let Some(session_id) = &session_id {
                cluster.forget_session_holder(session_id);
            }
        })?;
        serde_json::from_value(value).map_err(|e| Error::storage_caused("another server's reply", e))
    }
}
