//! Whether a process on this host still exists, and this host's name: how a connected client
//! that died while paused is noticed.

use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;

/// True unless the pid certainly names no process (a pid we may not signal still exists).
pub fn pid_is_alive(pid: i64) -> bool {
    let Ok(raw) = i32::try_from(pid) else { return true };
    if raw <= 0 {
        // 0 and negatives address process groups, not one process: never judged dead.
        return true;
    }
    !matches!(kill(Pid::from_raw(raw), None), Err(Errno::ESRCH)) && !is_zombie(raw)
}

/// A process that exited and was not reaped yet (a line woken from a checkpoint is the child of
/// its snapshot process, which does not wait for it) still answers signals: it is gone all the same.
fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rfind(')').map(|at| stat[at + 1..].trim_start().starts_with('Z')))
        .unwrap_or(false)
}

pub fn hostname() -> String {
    nix::unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_reaped_child_is_not() {
        assert!(pid_is_alive(std::process::id() as i64));
        let mut child = std::process::Command::new("true").spawn().expect("spawn true");
        let pid = child.id() as i64;
        child.wait().expect("wait");
        assert!(!pid_is_alive(pid));
    }
}
