//! The Python processes on this machine (`GET /api/local-processes`), and whether this server
//! may attach to each: read from /proc without stopping anything.

use serde::{Deserialize, Serialize};

use super::target;

/// One Python process of this machine, as the attach table shows it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalPythonProcess {
    pub pid: i64,
    pub user: String,
    /// Read from the interpreter's `Py_Version`; for older Pythons, from its file name. None
    /// when the process cannot be read.
    pub version: Option<String>,
    pub argv: Vec<String>,
    pub attachable: bool,
    /// Why not, when it is not attachable.
    pub why_not: Option<String>,
    /// Its record, when Breakroom already debugs it.
    pub process_id: Option<String>,
}

/// `GET /api/local-processes`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalPythonProcesses {
    /// By pid.
    pub processes: Vec<LocalPythonProcess>,
    /// False when this server may not attach at all (see `why_not` of each).
    pub attach_allowed: bool,
}

/// CAP_SYS_PTRACE in the effective set: tracing other users' processes.
fn has_cap_sys_ptrace() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << 19) != 0)
}

fn yama_scope() -> Option<u32> {
    std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope").ok()?.trim().parse().ok()
}

/// Whether ptrace would let this server trace `pid`, as far as can be told without trying.
pub fn may_trace(pid: i32) -> bool {
    let ours = nix::unistd::geteuid().as_raw();
    let cap = has_cap_sys_ptrace();
    let same_user = target::uid(pid) == Some(ours);
    let yama_ok = match yama_scope() {
        None | Some(0) => true,
        Some(1) | Some(2) => cap,
        Some(_) => false,
    };
    (same_user || cap) && yama_ok
}

/// Why ptrace is refused for `pid`, and what to do about it.
pub fn denied_reason(pid: i32) -> String {
    let ours = nix::unistd::geteuid().as_raw();
    let cap = has_cap_sys_ptrace();
    let theirs = target::uid(pid);
    if theirs.is_some_and(|uid| uid != ours) && !cap {
        let owner = theirs.map(target::user_name).unwrap_or_default();
        return format!(
            "process {pid} belongs to {owner} and this server runs as {}: run the server as that user, or as root",
            target::user_name(ours)
        );
    }
    match yama_scope() {
        Some(1) if !cap => format!(
            "Yama's ptrace_scope is 1 (only parents may trace their children): `sudo sysctl kernel.yama.ptrace_scope=0`, \
             or give the server CAP_SYS_PTRACE (`sudo setcap cap_sys_ptrace=eip $(which breakroom)`) to attach to {pid}"
        ),
        Some(2) if !cap => format!("Yama's ptrace_scope is 2 (admin only): run the server with CAP_SYS_PTRACE to attach to {pid}"),
        Some(3) => "Yama's ptrace_scope is 3: no process may be traced on this machine until it reboots".into(),
        _ if !cap && in_container() => format!(
            "ptrace is not permitted here: a container needs SYS_PTRACE (`docker run --cap-add SYS_PTRACE`) to attach to {pid}"
        ),
        _ => format!("the kernel refuses to let this server trace process {pid}"),
    }
}

fn in_container() -> bool {
    std::path::Path::new("/.dockerenv").exists()
        || std::fs::read_to_string("/proc/1/cgroup").is_ok_and(|c| c.contains("docker") || c.contains("kubepods"))
}

/// Whether the process looks like a Python interpreter by its name alone (readable for any
/// process, unlike its memory map).
fn named_python(pid: i32) -> bool {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).map(|p| p.display().to_string()).unwrap_or_default();
    let first = target::argv(pid).into_iter().next().unwrap_or_default();
    [comm.trim(), exe.rsplit('/').next().unwrap_or(""), first.rsplit('/').next().unwrap_or("")]
        .iter()
        .any(|name| name.starts_with("python"))
}

impl<H: super::AttachHost> super::AttachService<'_, H> {
    /// [`Self::local_python_processes`] off the async workers (it reads /proc and ELF files).
    pub async fn local_python(self) -> LocalPythonProcesses {
        let reader = self.debugger.clone();
        let allowed = self.debugger.processes().registry().config().allow_attach;
        tokio::task::spawn_blocking(move || reader.attach().local_python_processes())
            .await
            .unwrap_or(LocalPythonProcesses { processes: vec![], attach_allowed: allowed })
    }

    /// Every Python process of this machine but this server's own, by pid.
    pub fn local_python_processes(&self) -> LocalPythonProcesses {
        let allowed = self.debugger.processes().registry().config().allow_attach;
        let me = std::process::id() as i32;
        let mut pids: Vec<i32> = std::fs::read_dir("/proc")
            .map(|dir| dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect())
            .unwrap_or_default();
        pids.sort_unstable();
        let processes =
            pids.into_iter().filter(|pid| *pid != me).filter_map(|pid| self.one_local_python(pid, allowed)).collect();
        LocalPythonProcesses { processes, attach_allowed: allowed }
    }

    fn one_local_python(&self, pid: i32, allowed: bool) -> Option<LocalPythonProcess> {
        let readable = target::symbols(pid).ok();
        let python = match &readable {
            Some(symbols) => symbols.is_python(),
            None => named_python(pid),
        };
        if !python {
            return None;
        }
        let version = readable
            .as_ref()
            .and_then(|s| target::python_version(pid, s))
            .map(|v| v.to_string())
            .or_else(|| target::version_from_files(pid));
        let known = self.debugged_local_pid(pid as i64);
        let old = version.as_deref().is_some_and(|v| {
            let minor = v.split('.').nth(1).and_then(|m| m.parse::<u32>().ok()).unwrap_or(0);
            v.starts_with("3.") && minor < 11
        });
        let why_not = if !allowed {
            Some("attach is off on this server (it listens beyond loopback; --allow-attach)".to_string())
        } else if let Some(p) = &known {
            Some(format!("already debugged (process {})", p.id))
        } else if readable.is_none() || !may_trace(pid) {
            Some(denied_reason(pid))
        } else if old {
            Some("Python 3.11 or later is needed".to_string())
        } else {
            None
        };
        Some(LocalPythonProcess {
            pid: pid as i64,
            user: target::uid(pid).map(target::user_name).unwrap_or_default(),
            version,
            argv: target::argv(pid),
            attachable: why_not.is_none(),
            why_not,
            process_id: known.map(|p| p.id),
        })
    }
}
