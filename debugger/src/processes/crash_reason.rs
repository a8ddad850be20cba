//! How a process ended, in one status and one line: the exception of the last Python traceback
//! on stderr, else the signal or the exit code.

use std::collections::VecDeque;

use super::ansi::strip_ansi;
use super::ProcessStatus;

/// How many of the last stderr lines are kept to find a traceback in.
pub const STDERR_TAIL_LINES: usize = 200;

/// What the operating system reported when the process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Code(i32),
    Signal(i32),
}

/// The recorded end of a process: (status, reason). `stopped`: a user asked for it to stop.
pub fn diagnose(ending: Ending, stderr_tail: &VecDeque<String>, stopped: bool) -> (ProcessStatus, Option<String>) {
    match ending {
        Ending::Code(0) => (ProcessStatus::Exited, None),
        Ending::Code(code) => {
            let reason = last_exception_line(stderr_tail).unwrap_or_else(|| format!("exit code {code}"));
            let status = if stopped { ProcessStatus::Killed } else { ProcessStatus::Crashed };
            (status, Some(reason))
        }
        Ending::Signal(signal) => {
            let reason = format!("killed by {}", signal_name(signal));
            let status = if stopped || is_termination(signal) { ProcessStatus::Killed } else { ProcessStatus::Crashed };
            (status, Some(reason))
        }
    }
}

/// Signals that end a process on request rather than by a fault.
fn is_termination(signal: i32) -> bool {
    [
        nix::libc::SIGTERM,
        nix::libc::SIGKILL,
        nix::libc::SIGINT,
        nix::libc::SIGHUP,
        nix::libc::SIGQUIT,
        nix::libc::SIGPIPE,
    ]
    .contains(&signal)
}

pub fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {signal}"))
}

/// The exception line of the last traceback: the first unindented line after the last
/// `Traceback (most recent call last):` header (frames and source lines are indented).
pub fn last_exception_line(stderr_tail: &VecDeque<String>) -> Option<String> {
    let lines: Vec<String> = stderr_tail.iter().map(|l| strip_ansi(l)).collect();
    let header = lines.iter().rposition(|l| l.trim_end() == "Traceback (most recent call last):")?;
    lines[header + 1..]
        .iter()
        .find(|l| !l.is_empty() && !l.starts_with(' ') && !l.starts_with('\t'))
        .map(|l| l.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail(lines: &[&str]) -> VecDeque<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_clean_exit_has_no_reason() {
        assert_eq!(diagnose(Ending::Code(0), &tail(&[]), false), (ProcessStatus::Exited, None));
    }

    #[test]
    fn an_uncaught_exception_is_named_by_its_exception_line() {
        let stderr = tail(&[
            "Traceback (most recent call last):",
            "  File \"app.py\", line 3, in <module>",
            "    1 / 0",
            "    ~~^~~",
            "ZeroDivisionError: division by zero",
        ]);
        assert_eq!(
            diagnose(Ending::Code(1), &stderr, false),
            (ProcessStatus::Crashed, Some("ZeroDivisionError: division by zero".into()))
        );
    }

    #[test]
    fn the_last_of_chained_tracebacks_wins() {
        let stderr = tail(&[
            "Traceback (most recent call last):",
            "  File \"a.py\", line 1, in <module>",
            "KeyError: 'x'",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            "  File \"a.py\", line 3, in <module>",
            "\u{1b}[1;35mValueError\u{1b}[0m: \u{1b}[35mbad\u{1b}[0m",
        ]);
        assert_eq!(last_exception_line(&stderr).as_deref(), Some("ValueError: bad"));
    }

    #[test]
    fn without_a_traceback_the_exit_code_is_the_reason() {
        let stderr = tail(&["error: something"]);
        assert_eq!(diagnose(Ending::Code(3), &stderr, false), (ProcessStatus::Crashed, Some("exit code 3".into())));
    }

    #[test]
    fn a_fault_signal_is_a_crash_and_a_termination_signal_a_kill() {
        assert_eq!(
            diagnose(Ending::Signal(nix::libc::SIGSEGV), &tail(&[]), false),
            (ProcessStatus::Crashed, Some("killed by SIGSEGV".into()))
        );
        assert_eq!(
            diagnose(Ending::Signal(nix::libc::SIGKILL), &tail(&[]), false),
            (ProcessStatus::Killed, Some("killed by SIGKILL".into()))
        );
    }
}
