//! Identifier formats shared with the cideldill protocol (docs/src/protocol.md §3).

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the epoch, as Python's `time.time()`.
pub fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// `"{start_time:.6}+{pid}"`: one debugged process.
pub fn process_key(pid: i64, start_time: f64) -> String {
    format!("{start_time:.6}+{pid}")
}

/// `"{time:.6}-{seq:03}"`; the sequence is global and starts at 1.
pub fn call_id(time: f64, seq: u64) -> String {
    format!("{time:.6}-{seq:03}")
}

/// `"{pid}-{started_at:.6}"`.
pub fn session_id(pid: i64, started_at: f64) -> String {
    format!("{pid}-{started_at:.6}")
}

pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_match_the_protocol() {
        assert_eq!(process_key(6238, 1795331833.7501566), "1795331833.750157+6238");
        assert_eq!(call_id(1795331833.801312, 1), "1795331833.801312-001");
        assert_eq!(call_id(1.0, 1234), "1.000000-1234");
        assert_eq!(session_id(6238, 1795331833.929001), "6238-1795331833.929001");
    }
}
