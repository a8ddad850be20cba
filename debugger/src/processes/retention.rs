//! How long a finished process stays in the active list (longer after a crash than after a
//! clean exit, never removed while it runs), and how many records history keeps.

use std::time::Duration;

use super::{ProcessStatus, TrackedProcess};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// In the active list after exit code 0.
    pub clean: Duration,
    /// In the active list after any other end (crash, kill, lost).
    pub crash: Duration,
    /// Records kept in history, newest first; older finished ones are forgotten with their output.
    pub keep: usize,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { clean: Duration::from_secs(30), crash: Duration::from_secs(5 * 60), keep: 1_000 }
    }
}

impl Retention {
    /// When a finished process leaves the active list; None while it runs.
    pub fn leaves_list_at(&self, status: ProcessStatus, ended_at: Option<f64>) -> Option<f64> {
        if status.is_alive() {
            return None;
        }
        let ended_at = ended_at?;
        let kept = if status.is_clean_exit() { self.clean } else { self.crash };
        Some(ended_at + kept.as_secs_f64())
    }

    /// Whether the active list (as opposed to history) shows it at `now`.
    pub fn is_listed(&self, process: &TrackedProcess, now: f64) -> bool {
        match self.leaves_list_at(process.status, process.ended_at) {
            None => true,
            Some(leaves) => now < leaves,
        }
    }

    /// Ids to forget so that at most `keep` records remain: the oldest finished ones first.
    /// Running processes are never forgotten. `processes` is in start order, oldest first.
    pub fn to_forget<'a>(&self, processes: impl Iterator<Item = &'a TrackedProcess>) -> Vec<String> {
        let all: Vec<&TrackedProcess> = processes.collect();
        let mut excess = all.len().saturating_sub(self.keep);
        let mut forget = vec![];
        for process in all {
            if excess == 0 {
                break;
            }
            if !process.status.is_alive() {
                forget.push(process.id.clone());
                excess -= 1;
            }
        }
        forget
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::processes::{ProcessOrigin, StreamCounts};

    fn process(id: &str, status: ProcessStatus, ended_at: Option<f64>) -> TrackedProcess {
        TrackedProcess {
            id: id.into(),
            name: id.into(),
            command: vec![],
            cwd: None,
            pid: None,
            host: String::new(),
            origin: ProcessOrigin::Launched,
            started_at: 0.0,
            ended_at,
            status,
            exit_code: None,
            signal: None,
            reason: None,
            uptime_s: 0.0,
            process_key: None,
            leaves_list_at: None,
            stdout: StreamCounts::default(),
            stderr: StreamCounts::default(),
            parent_id: None,
            role: Default::default(),
            children: vec![],
            not_followed: None,
            labels: Default::default(),
        }
    }

    #[test]
    fn a_crash_stays_listed_longer_than_a_clean_exit() {
        let r = Retention::default();
        let clean = process("a", ProcessStatus::Exited, Some(100.0));
        let crash = process("b", ProcessStatus::Crashed, Some(100.0));
        assert!(r.is_listed(&clean, 129.0));
        assert!(!r.is_listed(&clean, 130.5));
        assert!(r.is_listed(&crash, 130.5));
        assert!(!r.is_listed(&crash, 400.5));
    }

    #[test]
    fn a_running_process_is_always_listed_and_never_forgotten() {
        let r = Retention { keep: 1, ..Retention::default() };
        let running = process("a", ProcessStatus::Running, None);
        let done = process("b", ProcessStatus::Exited, Some(1.0));
        let newer = process("c", ProcessStatus::Exited, Some(2.0));
        assert!(r.is_listed(&running, 1e12));
        assert_eq!(r.to_forget([&running, &done, &newer].into_iter()), vec!["b".to_string(), "c".to_string()]);
    }
}
