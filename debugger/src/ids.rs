//! Identifier formats shared with the cideldill protocol (docs/src/protocol.md §3).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

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

/// The largest pid a program can have: Windows' are 32-bit unsigned (a browser page's is 0).
pub const MAX_PID: i64 = u32::MAX as i64;

/// A program's pid and start time as it sent them. Either missing, or a start time that is not a
/// finite number, is `missing_process_identity`; a pid that is not a whole number from 0 to
/// [`MAX_PID`] is `invalid_process_identity` (it was cut to a whole number and kept).
pub(crate) fn process_identity(pid: &Option<Value>, start: &Option<Value>) -> crate::error::Result<(i64, f64)> {
    let start = start.as_ref().and_then(Value::as_f64).filter(|s| s.is_finite());
    let (Some(pid), Some(start)) = (pid.as_ref().filter(|v| !v.is_null()), start) else {
        return Err(crate::error::Error::MissingProcessIdentity);
    };
    // 1234.0 is a whole number too: some JSON writers send every number as a float.
    let whole = pid
        .as_i64()
        .or_else(|| pid.as_f64().filter(|f| f.fract() == 0.0 && f.abs() <= MAX_PID as f64).map(|f| f as i64));
    match whole.filter(|p| (0..=MAX_PID).contains(p)) {
        Some(pid) => Ok((pid, start)),
        None => Err(crate::error::Error::invalid(
            "invalid_process_identity",
            format!("process_pid must be a whole number from 0 to {MAX_PID}, not {pid}"),
        )),
    }
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
