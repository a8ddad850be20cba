//! A throwaway PostgreSQL cluster for tests: `initdb` into a fresh temporary directory, then
//! `postgres` on a free loopback port with trust auth for user `postgres` and durability off.
//! Std and nix only, so any crate's tests can use it without dev-dependencies.
//!
//! PostgreSQL refuses to run as root, so as root the cluster's files and processes belong to the
//! `postgres` user (std's `CommandExt::uid`, so the postmaster is our direct child, not runuser's).

use std::fs;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, OnceLock};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::errno::Errno;
use nix::sys::prctl::set_pdeathsig;
use nix::sys::signal::{kill, Signal};
use nix::unistd::{geteuid, getppid, Pid, User};

const START_TIMEOUT: Duration = Duration::from_secs(30);
/// A port picked free can be taken before postgres binds it: try again on another.
const ATTEMPTS: usize = 5;
const LOG: &str = "postgres.log";
/// Runs postgres for `shared()`. Started with a parent-death signal of SIGTERM, its trap stops
/// postgres at once (SIGQUIT: immediate shutdown) and deletes the cluster when the test process
/// ends, which no destructor can do for a static. `pg=` first: not inherited from the environment.
const WRAPPER: &str = r#"d=$1; shift; pg=
trap 'if [ -n "$pg" ]; then kill -QUIT "$pg" 2>/dev/null; wait "$pg"; fi; rm -rf "$d"; exit 143' TERM INT HUP
"$@" & pg=$!
wait "$pg""#;

/// The uid and gid the cluster runs as, when we are root.
type Owner = Option<(u32, u32)>;

static COUNTER: AtomicU32 = AtomicU32::new(0);

pub struct TestCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    pid: u32,
    /// The postmaster, which `Drop` stops; `None` for `shared()`, stopped by its wrapper.
    child: Option<Child>,
}

/// How a cluster trades safety for speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// fsync, synchronous commit and full-page writes off: for tests, whose clusters are thrown away.
    Fast,
    /// PostgreSQL's defaults, as users run it: for benchmarks.
    Defaults,
}

impl TestCluster {
    /// A new cluster for tests, stopped and deleted when dropped (not if the process is killed:
    /// `shared()` is).
    pub fn start() -> Result<TestCluster, String> {
        Self::start_with(Durability::Fast)
    }

    pub fn start_with(durability: Durability) -> Result<TestCluster, String> {
        let (bin, dir, owner) = prepare()?;
        match launch(&bin, &dir, owner, false, durability) {
            Ok((child, port)) => Ok(TestCluster { pid: child.id(), child: Some(child), bin, dir, port }),
            Err(e) => {
                let _ = fs::remove_dir_all(&dir);
                Err(e)
            }
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The postmaster's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The data directory (also holds the Unix socket and `postgres.log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates a database no other caller in this process gets, and returns its URL.
    pub fn fresh_database(&self) -> Result<String, String> {
        let name = format!("test_{}_{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let out = Command::new(self.bin.join("createdb"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "postgres", &name])
            .output()
            .map_err(|e| format!("cannot run createdb: {e}"))?;
        if !out.status.success() {
            return Err(format!("createdb {name} failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
        }
        Ok(self.url(&name))
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        let Some(child) = &mut self.child else { return };
        // Fast shutdown (SIGINT): disconnects clients a test left open instead of waiting for them.
        let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGINT);
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
            sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// One cluster per test process, started on first use; it and its directory go when the process
/// ends, however it ends (short of the wrapper itself being SIGKILLed).
pub fn shared() -> Result<&'static TestCluster, String> {
    static SHARED: OnceLock<Result<TestCluster, String>> = OnceLock::new();
    SHARED.get_or_init(start_shared).as_ref().map_err(Clone::clone)
}

fn start_shared() -> Result<TestCluster, String> {
    let (bin, dir, owner) = prepare()?;
    let (tx, rx) = mpsc::channel();
    let (b, d) = (bin.clone(), dir.clone());
    // The parent-death signal fires when the spawning *thread* ends, so this thread never does.
    let spawned = std::thread::Builder::new().name("test-postgres".into()).spawn(move || {
        match launch(&b, &d, owner, true, Durability::Fast) {
            Ok((mut child, port)) => {
                let _ = tx.send(Ok(port));
                let _ = child.wait();
            }
            Err(e) => drop(tx.send(Err(e))),
        }
        // postgres failed or exited by itself: nothing left to keep.
        let _ = fs::remove_dir_all(&d);
        loop {
            std::thread::park();
        }
    });
    spawned.map_err(|e| format!("cannot start a thread: {e}"))?;
    let port = rx.recv().map_err(|_| "the postgres thread ended".to_string())??;
    let pid = fs::read_to_string(dir.join("postmaster.pid"))
        .ok()
        .and_then(|s| s.lines().next()?.trim().parse().ok())
        .ok_or("postgres started but postmaster.pid is unreadable")?;
    Ok(TestCluster { bin, dir, port, pid, child: None })
}

/// Finds the binaries, checks pg_trgm is installed, and runs initdb in a new directory.
fn prepare() -> Result<(PathBuf, PathBuf, Owner), String> {
    let bin = bin_dir()?;
    check_pg_trgm(&bin)?;
    let owner = if geteuid().is_root() {
        let user = User::from_name("postgres").ok().flatten().ok_or(
            "PostgreSQL refuses to run as root and there is no `postgres` user: scripts/setup.sh installs postgresql",
        )?;
        Some((user.uid.as_raw(), user.gid.as_raw()))
    } else {
        None
    };
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let name = format!("breakroom-pg-{}-{}-{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
    // temp_dir is /tmp unless TMPDIR says otherwise; its parents must be traversable by postgres.
    let dir = std::env::temp_dir().join(name);
    fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut initdb = Command::new(bin.join("initdb"));
    initdb.arg("-D").arg(&dir).args(["--auth=trust", "-U", "postgres", "--no-sync", "--encoding=UTF8", "--locale=C"]);
    let chowned = owner.map_or(Ok(()), |(uid, gid)| std::os::unix::fs::chown(&dir, Some(uid), Some(gid)));
    let out = chowned.and_then(|()| as_owner(&mut initdb, owner).current_dir(&dir).output());
    match out {
        Ok(out) if out.status.success() => Ok((bin, dir, owner)),
        failed => {
            let _ = fs::remove_dir_all(&dir);
            Err(match failed {
                Ok(out) => format!("initdb failed: {}", String::from_utf8_lossy(&out.stderr).trim()),
                Err(e) => format!("cannot run initdb in {} (can user postgres reach it? TMPDIR): {e}", dir.display()),
            })
        }
    }
}

/// Debian keeps the server binaries off PATH, one directory per major version (the newest wins);
/// elsewhere `pg_config --bindir` names them.
fn bin_dir() -> Result<PathBuf, String> {
    let entries = fs::read_dir("/usr/lib/postgresql").into_iter().flatten().flatten();
    let mut found: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("initdb").is_file())
        .collect();
    found.sort();
    if let Some((_, bin)) = found.pop() {
        return Ok(bin);
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let bin = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && bin.join("initdb").is_file() {
            return Ok(bin);
        }
    }
    Err("PostgreSQL's server binaries are missing (no initdb in /usr/lib/postgresql/*/bin nor in \
         `pg_config --bindir`): scripts/setup.sh installs postgresql"
        .into())
}

/// The store's migrations create the pg_trgm extension: say so now rather than fail there.
fn check_pg_trgm(bin: &Path) -> Result<(), String> {
    let Ok(out) = Command::new(bin.join("pg_config")).arg("--sharedir").output() else { return Ok(()) };
    let control = Path::new(String::from_utf8_lossy(&out.stdout).trim()).join("extension/pg_trgm.control");
    if !out.status.success() || control.is_file() {
        return Ok(());
    }
    Err(format!("{} is missing (postgresql-contrib): scripts/setup.sh installs it", control.display()))
}

fn as_owner(command: &mut Command, owner: Owner) -> &mut Command {
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid);
    }
    command
}

/// Starts postgres (in the wrapper if `wrapped`) on free ports until one comes up.
fn launch(bin: &Path, dir: &Path, owner: Owner, wrapped: bool, durability: Durability) -> Result<(Child, u16), String> {
    for _ in 0..ATTEMPTS {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let mut child =
            spawn(bin, dir, port, owner, wrapped, durability).map_err(|e| format!("cannot start postgres: {e}"))?;
        let deadline = Instant::now() + START_TIMEOUT;
        while Instant::now() < deadline {
            if !matches!(child.try_wait(), Ok(None)) {
                break; // exited: most likely the port was taken meanwhile
            }
            if accepts(bin, port) {
                return Ok((child, port));
            }
            sleep(Duration::from_millis(20));
        }
        if matches!(child.try_wait(), Ok(None)) {
            // Read before the wrapper's trap deletes the directory.
            let error = format!("postgres did not accept connections within {START_TIMEOUT:?}; {}", log_tail(dir));
            // SIGTERM lets the wrapper stop postgres itself; SIGQUIT is an immediate shutdown.
            let _ = kill(Pid::from_raw(child.id() as i32), if wrapped { Signal::SIGTERM } else { Signal::SIGQUIT });
            let _ = child.wait();
            return Err(error);
        }
    }
    Err(format!("postgres exited at startup {ATTEMPTS} times; {}", log_tail(dir)))
}

fn spawn(bin: &Path, dir: &Path, port: u16, owner: Owner, wrapped: bool, durability: Durability) -> io::Result<Child> {
    let log = fs::OpenOptions::new().create(true).append(true).open(dir.join(LOG))?;
    let mut command = if wrapped { Command::new("sh") } else { Command::new(bin.join("postgres")) };
    if wrapped {
        command.args(["-c", WRAPPER, "sh"]).arg(dir).arg(bin.join("postgres"));
        let parent = std::process::id() as i32;
        // SAFETY: prctl and getppid are async-signal-safe. pre_exec closures run after setuid,
        // which would clear the parent-death signal; if the parent is already gone, give up.
        unsafe {
            command.pre_exec(move || {
                set_pdeathsig(Signal::SIGTERM)?;
                if getppid().as_raw() != parent {
                    return Err(Errno::ESRCH.into()); // no allocation between fork and exec
                }
                Ok(())
            });
        }
    }
    command.arg("-D").arg(dir).args(["-p", &port.to_string()]).arg("-k").arg(dir);
    // Loopback TCP only; room for parallel tests.
    let mut settings = vec!["listen_addresses=127.0.0.1", "max_connections=300"];
    if durability == Durability::Fast {
        settings.extend(["fsync=off", "synchronous_commit=off", "full_page_writes=off"]);
    }
    for setting in settings {
        command.args(["-c", setting]);
    }
    as_owner(&mut command, owner).current_dir(dir).stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log).spawn()
}

/// A TCP connect first: cheap, and fails until postgres listens; then pg_isready, which succeeds
/// only once startup is done and connections are accepted.
fn accepts(bin: &Path, port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
        && Command::new(bin.join("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string(), "-U", "postgres", "-d", "postgres"])
            .status()
            .is_ok_and(|s| s.success())
}

fn log_tail(dir: &Path) -> String {
    let log = fs::read_to_string(dir.join(LOG)).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    let tail = lines[lines.len().saturating_sub(20)..].join("\n");
    format!("its log ({}):\n{tail}", dir.join(LOG).display())
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};

    use super::*;

    const HOLD: &str = "BREAKROOM_TEST_POSTGRES_HOLD";

    fn alive(pid: u32) -> bool {
        kill(Pid::from_raw(pid as i32), None).is_ok()
    }

    fn select_one(cluster: &TestCluster, url: &str) -> String {
        let out = Command::new(cluster.bin.join("psql")).args([url, "-XAtc", "select 1"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    #[test]
    fn a_cluster_serves_fresh_databases_and_drop_removes_it() {
        let started = Instant::now();
        let cluster = TestCluster::start().unwrap();
        let (a_at, a) = (Instant::now(), cluster.fresh_database().unwrap());
        let b = cluster.fresh_database().unwrap();
        eprintln!("cluster up in {:?}; a database in {:?}", a_at - started, a_at.elapsed());
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("postgres://postgres@127.0.0.1:{}/test_", cluster.port())), "{a}");
        assert_eq!((select_one(&cluster, &a), select_one(&cluster, &b)), ("1".into(), "1".into()));
        let (dir, pid, port) = (cluster.dir().to_path_buf(), cluster.pid(), cluster.port());
        assert!(TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok());
        drop(cluster);
        assert!(!dir.exists(), "{} survived", dir.display());
        assert!(!alive(pid), "postmaster {pid} survived");
        assert!(TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err());
    }

    #[test]
    fn shared_is_one_cluster() {
        let cluster = shared().unwrap();
        assert!(std::ptr::eq(cluster, shared().unwrap()));
        assert_eq!(select_one(cluster, &cluster.fresh_database().unwrap()), "1");
    }

    #[test]
    fn the_shared_cluster_ends_with_the_process() {
        let helper = format!("{}::hold_shared_cluster", module_path!().split_once("::").unwrap().1);
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &helper, "--nocapture"])
            .env(HOLD, "1")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = lines.map_while(Result::ok).find(|l| l.starts_with("HOLDING ")).expect("the helper did not start");
        let (pid, dir) = line["HOLDING ".len()..].split_once(' ').unwrap();
        let (pid, dir): (u32, PathBuf) = (pid.parse().unwrap(), dir.into());
        assert!(alive(pid) && dir.exists());
        child.kill().unwrap(); // SIGKILL: no destructor, no atexit, only the kernel's signal
        child.wait().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while (alive(pid) || dir.exists()) && Instant::now() < deadline {
            sleep(Duration::from_millis(20));
        }
        assert!(!alive(pid), "postmaster {pid} outlived its test process");
        assert!(!dir.exists(), "{} outlived its test process", dir.display());
    }

    /// Run by the test above in a child process; does nothing otherwise.
    #[test]
    fn hold_shared_cluster() {
        if std::env::var_os(HOLD).is_none() {
            return;
        }
        let cluster = shared().unwrap();
        println!("HOLDING {} {}", cluster.pid(), cluster.dir().display());
        loop {
            sleep(Duration::from_secs(3600));
        }
    }
}
