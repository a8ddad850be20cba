//! Processes that a debug client tells about: a client calling in for the first time (a process
//! the server did not launch, or a launched one linking up), a lost one coming back, and a line
//! woken from a checkpoint becoming the process.

use super::{blank, family, ProcessRegistry};
use crate::error::Result;
use crate::processes::{ProcessOrigin, ProcessRole, ProcessStatus, TrackedProcess};

/// What a debug client's call tells about its process.
#[derive(Clone, Debug, Default)]
pub struct ClientSeen {
    pub process_key: String,
    pub pid: i64,
    /// `BREAKROOM_PROCESS_ID`, for a process Breakroom launched.
    pub process_id: Option<String>,
    /// None from a cideldill client, which only talks to localhost.
    pub host: Option<String>,
    pub argv: Option<Vec<String>>,
    /// Its parent pid as it reported it (`os.getppid()`): how a child on another host finds
    /// its parent's record.
    pub parent_pid: Option<i64>,
    /// What it says it is: `helper` for multiprocessing's resource tracker and forkserver.
    pub role: Option<ProcessRole>,
    /// Put there by `breakroom attach`.
    pub attached: bool,
    /// A line woken from a checkpoint: `process_id` names its process even though that record
    /// has a client already.
    pub woken: bool,
    /// Its labels (`BREAKROOM_LABELS`), when it said them (issue 34).
    pub labels: Option<std::collections::BTreeMap<String, String>>,
}

/// A process's name from its command line: the program and its first argument, without
/// directories (`python3 app.py`); None for an empty one.
pub(super) fn name_from_argv(argv: &[String]) -> Option<String> {
    let name = argv.iter().take(2).map(|a| a.rsplit('/').next().unwrap_or(a)).collect::<Vec<_>>().join(" ");
    (!name.is_empty()).then_some(name)
}

impl ProcessRegistry {
    /// A debug client called in. Returns the record when it is new or changed (a launched
    /// process's client linking up, a lost process reconnecting).
    pub fn client_seen(&self, seen: ClientSeen, now: f64) -> Result<Option<TrackedProcess>> {
        let reports_this_host = seen.host.as_deref() == Some(self.host.as_str());
        let known = {
            let records = self.records();
            records
                .by_key
                .get(&seen.process_key)
                .cloned()
                // BREAKROOM_PROCESS_ID names the launched process only (this server is its
                // parent): its children inherit the variable, and are records of their own.
                .or_else(|| {
                    let id = seen.process_id.as_ref()?;
                    let entry = records.entries.get(id.as_str())?;
                    let launched_by_us = seen.parent_pid.is_none_or(|p| p == i64::from(std::process::id()));
                    let unclaimed = entry.process.process_key.is_none() || entry.process.pid == Some(seen.pid);
                    (seen.woken || (launched_by_us && unclaimed)).then(|| id.clone())
                })
                .or_else(|| reports_this_host.then(|| self.same_process_before_exec(&records, seen.pid)).flatten())
        };
        let Some(id) = known else {
            let argv = seen.argv.unwrap_or_default();
            let name = name_from_argv(&argv);
            let parent_id = self.parent_for(&self.records(), seen.pid, seen.parent_pid, reports_this_host);
            let role = match (&parent_id, seen.role) {
                (None, _) => ProcessRole::Program,
                (Some(_), Some(ProcessRole::Helper)) => ProcessRole::Helper,
                (Some(_), _) => ProcessRole::Child,
            };
            let process = TrackedProcess {
                name: name.unwrap_or_else(|| format!("pid {}", seen.pid)),
                command: argv,
                pid: Some(seen.pid),
                host: seen.host.unwrap_or_default(),
                origin: if seen.attached { ProcessOrigin::Attached } else { ProcessOrigin::Connected },
                process_key: Some(seen.process_key),
                parent_id,
                role,
                labels: seen.labels.clone().unwrap_or_default(),
                ..blank(now)
            };
            let created = self.create(process)?;
            if let Some(entry) = self.records().entries.get_mut(&created.id) {
                entry.local_pid = reports_this_host;
                entry.kernel_start = if reports_this_host { family::kernel_start(seen.pid) } else { None };
            }
            return Ok(Some(created));
        };
        let (was_lost, linked, execed, relabelled) = {
            let mut records = self.records();
            records.by_key.insert(seen.process_key.clone(), id.clone());
            let Some(entry) = records.entries.get_mut(&id) else { return Ok(None) };
            entry.local_pid |= reports_this_host;
            if entry.kernel_start.is_none() && reports_this_host {
                entry.kernel_start = family::kernel_start(seen.pid);
            }
            let current = entry.process.process_key.as_deref();
            let execed = current.is_some_and(|k| k != seen.process_key) && entry.process.pid == Some(seen.pid);
            let relabelled = seen.labels.as_ref().is_some_and(|l| *l != entry.process.labels);
            (entry.process.status == ProcessStatus::Lost, current.is_some(), execed, relabelled)
        };
        if !was_lost && linked && !execed && !relabelled {
            return Ok(None);
        }
        self.update(&id, |p| {
            if execed {
                // The same process running a new program: its record follows the new one.
                p.process_key = Some(seen.process_key.clone());
                if let Some(argv) = seen.argv.clone().filter(|a| !a.is_empty()) {
                    p.name = name_from_argv(&argv).unwrap_or_default();
                    p.command = argv;
                }
            }
            p.process_key.get_or_insert(seen.process_key);
            if let Some(labels) = seen.labels.clone() {
                p.labels = labels;
            }
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
