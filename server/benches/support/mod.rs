//! What every benchmark shares: the real `breakroom` binary started on a free port, and its
//! resident memory. The scripted paused call is in `paused.rs`, for the benchmarks that use it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running server, killed when dropped.
pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh data directory for one run of a benchmark: `breakroom-bench-LABEL-PID` in the
/// temporary directory.
pub fn bench_home(label: &str) -> PathBuf {
    std::env::temp_dir().join(format!("breakroom-bench-{label}-{}", std::process::id()))
}

/// `breakroom` with its home in `home` and `extra` arguments; its later output is drained so
/// it never blocks on a full pipe.
pub fn start_server_in(home: &Path, extra: &[&str]) -> Server {
    let bin = std::env::var("BREAKROOM_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_breakroom").to_string());
    let mut child = Command::new(bin)
        .args(["--port", "0"])
        .args(extra)
        .arg("--data-dir")
        .arg(home.join("data"))
        .env("CIDELDILL_HOME", home)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start breakroom");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let base = loop {
        let line = lines.next().expect("breakroom exited").expect("read stdout");
        if let Some(url) = line.split("Server running on ").nth(1) {
            break url.trim().to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    Server { child, base }
}

/// Resident memory of a process, MB.
pub fn rss_mb(pid: impl Into<i64>) -> f64 {
    let pid = pid.into();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}
