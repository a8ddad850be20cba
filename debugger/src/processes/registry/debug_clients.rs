//! Processes that a debug client tells about: a client calling in for the first time (a process
//! the server did not launch, or a launched one linking up), a lost one coming back, and a line
//! woken from a checkpoint becoming the process.

use super::{blank, ProcessRegistry};
use crate::error::Result;
use crate::processes::{ProcessOrigin, ProcessStatus, TrackedProcess};

/// What a debug client's call tells about its process.
#[derive(Clone, Debug)]
pub struct ClientSeen {
    pub process_key: String,
    pub pid: i64,
    /// `BREAKROOM_PROCESS_ID`, for a process Breakroom launched.
    pub process_id: Option<String>,
    /// None from a cideldill client, which only talks to localhost.
    pub host: Option<String>,
    pub argv: Option<Vec<String>>,
}

impl ProcessRegistry {
    /// A debug client called in. Returns the record when it is new or changed (a launched
    /// process's client linking up, a lost process reconnecting).
    pub fn client_seen(&self, seen: ClientSeen, now: f64) -> Result<Option<TrackedProcess>> {
        let known =
            {
                let records = self.records();
                records.by_key.get(&seen.process_key).cloned().or_else(|| {
                    seen.process_id.as_ref().filter(|id| records.entries.contains_key(id.as_str())).cloned()
                })
            };
        let reports_this_host = seen.host.as_deref() == Some(self.host.as_str());
        let Some(id) = known else {
            let argv = seen.argv.unwrap_or_default();
            let name = argv.iter().take(2).map(|a| a.rsplit('/').next().unwrap_or(a)).collect::<Vec<_>>().join(" ");
            let process = TrackedProcess {
                name: if name.is_empty() { format!("pid {}", seen.pid) } else { name },
                command: argv,
                pid: Some(seen.pid),
                host: seen.host.unwrap_or_default(),
                origin: ProcessOrigin::Connected,
                process_key: Some(seen.process_key),
                ..blank(now)
            };
            let created = self.create(process)?;
            if let Some(entry) = self.records().entries.get_mut(&created.id) {
                entry.local_pid = reports_this_host;
            }
            return Ok(Some(created));
        };
        let (was_lost, linked) = {
            let mut records = self.records();
            records.by_key.insert(seen.process_key.clone(), id.clone());
            let Some(entry) = records.entries.get_mut(&id) else { return Ok(None) };
            entry.local_pid |= reports_this_host;
            (entry.process.status == ProcessStatus::Lost, entry.process.process_key.is_some())
        };
        if !was_lost && linked {
            return Ok(None);
        }
        self.update(&id, |p| {
            p.process_key.get_or_insert(seen.process_key);
            if was_lost {
                p.status = ProcessStatus::Running;
                p.reason = None;
                p.ended_at = None;
            }
        })
        .map(Some)
    }

    /// A line woken from a checkpoint is now the process (issue 20): its pid is the one judged
    /// for liveness (the server did not start it, so its exit is not awaited), and a process
    /// that had ended runs again.
    pub fn relive(&self, id: &str, pid: i64) -> Result<TrackedProcess> {
        if let Some(entry) = self.records().entries.get_mut(id) {
            entry.watched = false;
            entry.local_pid = true;
        }
        self.update(id, |p| {
            p.pid = Some(pid);
            p.status = ProcessStatus::Running;
            p.reason = None;
            p.ended_at = None;
            p.exit_code = None;
            p.signal = None;
        })
    }
}
