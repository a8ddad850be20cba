//! The idle check: every few seconds (a quarter of the shortest timeout, between 0.1 s and
//! 5 s), workspaces unused past their idle timeout are ended (`exit`, SIGTERM, SIGKILL).

use std::time::Duration;

use super::RuntimeRegistry;

/// How often workspaces are checked for a server whose default idle timeout is `idle`.
pub fn check_interval(idle: Duration) -> Duration {
    (idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(5))
}

impl RuntimeRegistry {
    /// Runs the idle check for as long as the registry lives.
    pub fn watch_idle(&self) {
        let weak = std::sync::Arc::downgrade(&self.shared());
        let interval = check_interval(self.config().idle_timeout);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(registry) = weak.upgrade() else { return };
                RuntimeRegistry::from_shared(registry).end_idle();
            }
        });
    }
}
