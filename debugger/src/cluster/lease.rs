//! Each server's lease: proof, renewed every second, that it still runs. A server that hangs
//! (SIGSTOP, a frozen VM) keeps its PostgreSQL connections open, so an open connection alone
//! does not say it is alive: the others also ask for a lease that has not run out. When a hung
//! server wakes to find its lease expired, its programs have moved on to other servers, so it
//! closes what it held (as a restart would) and takes a new lease.

use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::store::postgres::PgConnection;
use crate::store::values;

use super::{Cluster, ClusterHost};

/// How long a lease lasts without renewal.
pub(crate) const LEASE_S: f64 = 5.0;
/// How often it is renewed: several renewals fit in one lease, so a busy machine does not lose it.
const RENEW_EVERY: Duration = Duration::from_secs(1);

pub use crate::pauses::LEASE_LOST_REASON;

/// The condition, on a row `p` with a `server_id`, that its server is alive: its lease runs and
/// its listening connection is open (a killed server's connection closes at once).
macro_rules! live_server {
    () => {
        "EXISTS (SELECT 1 FROM cluster_servers l WHERE l.server_id = p.server_id
                   AND l.lease_until > extract(epoch from clock_timestamp()))
           AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = 'breakroom:' || p.server_id)"
    };
}
pub(crate) use live_server;

/// Takes this server's first lease.
pub(crate) fn take(db: &PgConnection, server_id: &str) -> Result<()> {
    db.execute(
        "INSERT INTO cluster_servers (server_id, lease_until)
         VALUES (?1, extract(epoch from clock_timestamp())::double precision + ?2::double precision)
         ON CONFLICT (server_id) DO UPDATE SET lease_until = excluded.lease_until",
        values![server_id, LEASE_S],
    )
    .map(drop)
}

/// Renews the lease while it runs; false when it had run out (this server was not renewing).
fn renew(db: &PgConnection, server_id: &str) -> Result<bool> {
    let renewed = db.query_first(
        "UPDATE cluster_servers SET lease_until = extract(epoch from clock_timestamp())::double precision + ?2::double precision
         WHERE server_id = ?1 AND lease_until > extract(epoch from clock_timestamp()) RETURNING server_id",
        values![server_id, LEASE_S],
    )?;
    Ok(renewed.is_some())
}

/// Renews the lease every second on a connection of its own (so no slow statement delays it);
/// on waking to an expired lease, lets go of what this server held and takes a new one.
pub(crate) fn keep<H: ClusterHost>(url: &str, debugger: H, cluster: Arc<Cluster>) -> Result<()> {
    let db = PgConnection::connect(url)?;
    std::thread::Builder::new()
        .name("breakroom-lease".into())
        .spawn(move || {
            // Whether the last renewal reached the database: an expired lease after one that did
            // means this server stopped (the others may have taken over its programs); after
            // the database was away, nobody could have, so the lease is simply taken again.
            let mut reached = true;
            loop {
                std::thread::sleep(RENEW_EVERY);
                let renewed = renew(&db, cluster.server_id());
                let was_reached = std::mem::replace(&mut reached, renewed.is_ok());
                match renewed {
                    Ok(true) => {}
                    Ok(false) if !was_reached => {
                        if let Err(e) = take(&db, cluster.server_id()) {
                            eprintln!("cluster: taking a new lease: {e}");
                        }
                    }
                    Ok(false) => {
                        eprintln!(
                            "cluster: this server's lease ran out while it was not answering; its programs have \
                             moved to other servers, so it closes the pauses and sessions it held"
                        );
                        if let Err(e) = let_go_after_lost_lease(&debugger, &cluster) {
                            eprintln!("cluster: closing what this server held: {e}");
                        }
                        if let Err(e) = take(&db, cluster.server_id()) {
                            eprintln!("cluster: taking a new lease: {e}");
                        }
                    }
                    // The database is away: the others cannot see a lease either; retry.
                    Err(e) => eprintln!("cluster: renewing this server's lease: {e}"),
                }
            }
        })
        .map(drop)
        .map_err(|e| Error::storage_caused("cannot start the lease thread", e))
}

/// Closes every pause and session this server holds, as a restart would: the programs have
/// re-registered their pauses elsewhere, and one still polling here is told to do so.
fn let_go_after_lost_lease<H: ClusterHost>(debugger: &H, cluster: &Cluster) -> Result<()> {
    debugger.let_go_of_everything(LEASE_LOST_REASON)?;
    cluster.db.execute("DELETE FROM cluster_pauses WHERE server_id = ?1", values![cluster.server_id()]).map(drop)
}
