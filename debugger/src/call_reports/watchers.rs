//! What a running program's client reports besides its calls: the held poll of its breakpoint
//! watcher, and its breakpoint hits and logpoint messages. Each first notes the process it came
//! from (a program that only watches or only logs is a process too), then goes to the
//! breakpoints; hence it sits here, after both concepts.

use super::CallService;
use crate::breakpoints::hit_reports::HitReport;
use crate::breakpoints::{BreakpointSnapshot, Follower};
use crate::error::Result;
use crate::ids;
use crate::processes::registry::ClientSeen;

impl<H: super::state::CallReportHost> CallService<'_, H> {
    /// `GET /api/breakpoint-changes`: waits (up to the poll hold) until the breakpoints differ
    /// from version `since`, then answers all of them.
    pub async fn breakpoint_changes(self, since: Option<u64>, follower: Option<Follower>) -> BreakpointSnapshot {
        if let Some(f) = follower.as_ref().filter(|f| f.host.is_some()) {
            self.debugger.processes().note_client(ClientSeen {
                process_key: ids::process_key(f.pid, f.start_time),
                pid: f.pid,
                process_id: f.process_id.clone(),
                host: f.host.clone(),
                argv: f.argv.clone(),
                parent_pid: f.parent_pid,
                role: f.role,
                labels: f.labels.clone(),
                ..Default::default()
            });
        }
        self.debugger.breakpoints().breakpoint_changes(since, follower).await
    }

    /// `POST /api/breakpoint-hits`: a hit or logpoint message, or a batch of counts.
    pub fn report_breakpoint_hit(&self, report: HitReport) -> Result<()> {
        if let HitReport::Hit(hit) = &report {
            if let Some(host) = hit.hostname.clone() {
                self.debugger.processes().note_client(ClientSeen {
                    process_key: ids::process_key(hit.process_pid, hit.process_start_time),
                    pid: hit.process_pid,
                    process_id: hit.process_id.clone(),
                    host: Some(host),
                    argv: hit.argv.clone(),
                    ..Default::default()
                });
            }
        }
        self.debugger.breakpoints().report_breakpoint_hit(report)
    }
}
