//! What one server asks another: the doors' calls on a pause or session the other holds, run
//! there on its own debugger exactly as a local door would run them.

use serde::{Deserialize, Serialize};

use super::{Cluster, ClusterHost, Notice, Reply, Waiter, CHANNEL, MAX_PAYLOAD};
use crate::error::{Error, Result};
use crate::live_events::LiveEvent;
use crate::pauses::methods::PauseCall;
use crate::sessions::methods::SessionCall;
use crate::steps::methods::StepCall;
use crate::store::values;

/// A door's call, for the server that holds its pause or session: each concept names its
/// own calls, and the tag `call` tells them apart on the wire.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Request {
    Session(SessionCall),
    Pause(PauseCall),
    Step(StepCall),
}

impl From<SessionCall> for Request {
    fn from(call: SessionCall) -> Self {
        Request::Session(call)
    }
}

impl From<PauseCall> for Request {
    fn from(call: PauseCall) -> Self {
        Request::Pause(call)
    }
}

impl From<StepCall> for Request {
    fn from(call: StepCall) -> Self {
        Request::Step(call)
    }
}

/// One notice from the channel (the listener's thread).
pub(super) fn receive<H: ClusterHost>(
    notice: Notice,
    debugger: &H,
    cluster: &std::sync::Arc<Cluster>,
    runtime: &tokio::runtime::Handle,
) {
    match notice {
        Notice::Event { from, .. } if from == cluster.server_id => {}
        Notice::Event { event, .. } => {
            if matches!(event, LiveEvent::BreakpointsChanged { .. }) {
                // Another server changed the configuration in the store: read it again, and
                // wake the programs here that follow breakpoints.
                if let Err(e) = debugger.reload_configuration() {
                    eprintln!("cluster: cannot reload breakpoints: {e}");
                }
            }
            debugger.publish_from_peer(event);
        }
        Notice::Request { from, to, id, request } if to == cluster.server_id => {
            let (debugger, cluster) = (debugger.clone(), cluster.clone());
            runtime.spawn(async move {
                let request = match request {
                    Some(request) => Ok(request),
                    None => read_request(&cluster, id),
                };
                let reply = match request {
                    Ok(request) => Reply::of(debugger.run_for_peer(request).await),
                    Err(e) => Reply::of(Err(e)),
                };
                if let Err(e) = answer(&cluster, &from, id, reply) {
                    eprintln!("cluster: cannot answer request {id}: {e}");
                }
            });
        }
        Notice::Reply { to, id, reply } if to == cluster.server_id => {
            let Some(waiter) = cluster.waiting().remove(&id) else { return };
            let reply = match reply {
                Some(reply) => reply,
                None => read_reply(cluster, id).unwrap_or_else(|e| Reply::of(Err(e))),
            };
            match waiter {
                Waiter::Async(tx) => drop(tx.send(reply)),
                Waiter::Blocking(tx) => drop(tx.send(reply)),
            }
        }
        Notice::Request { .. } | Notice::Reply { .. } => {}
    }
}

fn read_request(cluster: &Cluster, id: i64) -> Result<Request> {
    let row = cluster.db.query_first("SELECT request FROM cluster_requests WHERE id = ?1", values![id])?;
    let text = row.ok_or_else(|| Error::storage(format!("request {id} is not recorded")))?.text(0)?;
    serde_json::from_str(&text).map_err(|e| Error::storage_caused("a recorded request cannot be read", e))
}

fn read_reply(cluster: &Cluster, id: i64) -> Result<Reply> {
    let row = cluster.db.query_first("SELECT reply FROM cluster_requests WHERE id = ?1", values![id])?;
    let text = row.and_then(|r| r.opt_text(0).ok().flatten()).ok_or_else(|| Error::storage("no recorded reply"))?;
    serde_json::from_str(&text).map_err(|e| Error::storage_caused("a recorded reply cannot be read", e))
}

/// Records the reply with its request and sends it back, in one statement.
fn answer(cluster: &Cluster, origin: &str, id: i64, reply: Reply) -> Result<()> {
    let text = serde_json::to_string(&reply).map_err(|e| Error::storage_caused("", e))?;
    let inline = (text.len() < MAX_PAYLOAD - 300).then_some(reply);
    let payload = serde_json::to_string(&Notice::Reply { to: origin.to_string(), id, reply: inline })
        .map_err(|e| Error::storage_caused("", e))?;
    cluster
        .db
        .execute(
            // Not flushed before it counts, as the request it answers (see `Cluster::send`).
            "WITH answered AS (
                 UPDATE cluster_requests SET reply = ?1, answered_at = extract(epoch from clock_timestamp()) WHERE id = ?2)
             SELECT pg_notify(?3, ?4), set_config('synchronous_commit', 'off', true)",
            values![&text, id, CHANNEL, payload],
        )
        .map(drop)
}
