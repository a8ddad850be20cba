//! Steps running now: the REPL sessions that wait for each one's stop, and who waits for its
//! answer. A step is keyed by the pause it started from.

use std::collections::{HashMap, HashSet};

use tokio::sync::oneshot;

use crate::steps::StepReply;

pub struct InFlight {
    /// The pause's open sessions: they stay open and move to the pause where the step stops.
    pub sessions: Vec<String>,
    pub process_key: String,
    /// The step request still waiting for the stop (up to 2 s).
    pub waiter: Option<oneshot::Sender<StepReply>>,
}

#[derive(Default)]
pub struct StepsInFlight {
    by_pause: HashMap<String, InFlight>,
}

impl StepsInFlight {
    pub fn start(&mut self, from_pause: &str, step: InFlight) {
        self.by_pause.insert(from_pause.to_string(), step);
    }

    /// Whether a step from this pause is running (its sessions wait for the stop).
    pub fn is_stepping(&self, from_pause: &str) -> bool {
        self.by_pause.contains_key(from_pause)
    }

    /// The step from this pause has stopped: it is taken out.
    pub fn land(&mut self, from_pause: &str) -> Option<InFlight> {
        self.by_pause.remove(from_pause)
    }

    /// The steps of processes that ended: they will never stop.
    pub fn abandon(&mut self, process_keys: &HashSet<String>) -> Vec<InFlight> {
        let gone: Vec<String> = self
            .by_pause
            .iter()
            .filter(|(_, s)| process_keys.contains(&s.process_key))
            .map(|(k, _)| k.clone())
            .collect();
        gone.into_iter().filter_map(|k| self.by_pause.remove(&k)).collect()
    }
}
