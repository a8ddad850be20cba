//! Process trees (issue 33): which debugged process started which. A child's parent is its
//! nearest ancestor (by the kernel's parent pids, on this host) that Breakroom debugs, so a
//! worker started through `sh -c` or multiprocessing's forkserver still finds its program.

use std::collections::HashMap;

use super::{ProcessRegistry, Records};
use crate::error::Result;
use crate::processes::{ProcessOrigin, ProcessRole, TrackedProcess};

/// How far up the parent chain a child's debugged ancestor is looked for.
const MAX_ANCESTORS: usize = 64;

impl Records {
    pub(super) fn children_of(&self, id: &str) -> Vec<String> {
        let parent = Some(id);
        self.entries
            .values()
            .filter(|e| e.process.parent_id.as_deref() == parent)
            .map(|e| e.process.id.clone())
            .collect()
    }

    pub(super) fn children_by_parent(&self) -> HashMap<String, Vec<String>> {
        let mut by_parent: HashMap<String, Vec<String>> = HashMap::new();
        for entry in self.entries.values() {
            if let Some(parent) = &entry.process.parent_id {
                by_parent.entry(parent.clone()).or_default().push(entry.process.id.clone());
            }
        }
        by_parent
    }

    /// The alive record of this host with this pid.
    pub(super) fn alive_local(&self, pid: i64, host: &str) -> Option<&str> {
        self.entries
            .values()
            .find(|e| e.process.pid == Some(pid) && e.process.status.is_alive() && e.process.host == host)
            .map(|e| e.process.id.as_str())
    }
}

/// The kernel's parent of a local process (`/proc/{pid}/stat`, field 4).
fn parent_pid(pid: i64) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// When a local process started, in clock ticks since boot (`/proc/{pid}/stat`, field 22): the
/// same across an `exec`, different for another process that got the same pid.
pub(super) fn kernel_start(pid: i64) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

impl ProcessRegistry {
    /// The record a client calling in from `pid` is a child of: its nearest debugged ancestor
    /// on this host, else (another host) the record of the parent pid it reported.
    pub(super) fn parent_for(
        &self,
        records: &Records,
        pid: i64,
        reported_parent: Option<i64>,
        local: bool,
    ) -> Option<String> {
        if local {
            let mut at = pid;
            for _ in 0..MAX_ANCESTORS {
                at = parent_pid(at).filter(|p| *p > 1)?;
                if let Some(id) = records.alive_local(at, &self.host) {
                    return Some(id.to_string());
                }
            }
            return None;
        }
        let parent = reported_parent?;
        records
            .entries
            .values()
            .find(|e| e.process.pid == Some(parent) && e.process.status.is_alive() && !e.local_pid)
            .map(|e| e.process.id.clone())
    }

    /// A forked child that then ran `exec` calls in again from the same pid with a new
    /// interpreter: the record it made before the exec is its own.
    pub(super) fn same_process_before_exec(&self, records: &Records, pid: i64) -> Option<String> {
        let id = records.alive_local(pid, &self.host)?;
        let entry = records.entries.get(id)?;
        let started = kernel_start(pid)?;
        (entry.kernel_start == Some(started)).then(|| id.to_string())
    }

    /// A child a debugged process started where Breakroom cannot follow it (the parent's client
    /// saw the spawn): listed under its parent, with the reason.
    pub fn child_not_followed(
        &self,
        parent_key: &str,
        pid: i64,
        argv: Vec<String>,
        reason: String,
        now: f64,
    ) -> Result<Option<TrackedProcess>> {
        let (parent, host) = {
            let records = self.records();
            let Some(parent) = records.by_key.get(parent_key).cloned() else { return Ok(None) };
            let host = records.entries.get(&parent).map(|e| e.process.host.clone()).unwrap_or_default();
            (parent, host)
        };
        let local = host == self.host;
        let process = TrackedProcess {
            name: super::debug_clients::name_from_argv(&argv).unwrap_or_else(|| format!("pid {pid}")),
            command: argv,
            pid: Some(pid),
            host,
            origin: ProcessOrigin::Connected,
            parent_id: Some(parent),
            role: ProcessRole::Child,
            not_followed: Some(reason),
            ..super::blank(now)
        };
        let created = self.create(process)?;
        if let Some(entry) = self.records().entries.get_mut(&created.id) {
            // Its pid tells when it ends, as for a client on this host.
            entry.local_pid = local;
            entry.kernel_start = if local { kernel_start(pid) } else { None };
        }
        Ok(Some(created))
    }
}
