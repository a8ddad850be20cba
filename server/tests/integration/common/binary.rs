//! The real `breakroom` binary on a free port, with its own data directory and port file (under
//! a temporary home), for what needs the whole process: launched processes, runtimes, restarts,
//! the command line, signals.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_breakroom");

pub struct BinaryServer {
    pub child: Child,
    pub base: String,
    pub home: PathBuf,
    pub http: reqwest::Client,
    /// The `--token` it was started with, sent with every request.
    token: Option<String>,
}

impl Drop for BinaryServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory that outlives the test (a restarted server reopens it).
pub fn temp_home() -> PathBuf {
    tempfile::tempdir().expect("temp dir").keep()
}

pub async fn start(home: &Path, args: &[&str]) -> BinaryServer {
    start_via(home, args, None).await
}

/// Starts `breakroom` with `args` (through `sh -c` when `shell_prefix` is given, e.g. to ignore
/// SIGINT) and waits for the address it prints.
pub async fn start_via(home: &Path, args: &[&str], shell_prefix: Option<&str>) -> BinaryServer {
    use std::io::{BufRead, BufReader};
    let mut command = match shell_prefix {
        None => Command::new(BIN),
        Some(prefix) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(format!("{prefix} exec \"$0\" \"$@\"")).arg(BIN);
            c
        }
    };
    let mut child = command
        .args(["--port", "0", "--data-dir"])
        .arg(home.join("data"))
        .args(args)
        .env("CIDELDILL_HOME", home)
        .env_remove("BREAKROOM_URL")
        .env_remove("BREAKROOM_TOKEN")
        .stdout(Stdio::piped())
        .spawn()
        .expect("start breakroom");
    let stdout = child.stdout.take().expect("stdout");
    let base = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stdout).lines();
        let base = loop {
            let line = lines.next().expect("server printed its address").expect("read");
            if let Some(url) = line.strip_prefix("Server running on ") {
                break url.replace("0.0.0.0", "127.0.0.1");
            }
        };
        // Keep draining so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        base
    })
    .await
    .unwrap();
    let token = args.iter().position(|a| *a == "--token").and_then(|i| args.get(i + 1)).map(|t| t.to_string());
    BinaryServer { child, base, home: home.to_path_buf(), http: reqwest::Client::new(), token }
}

impl BinaryServer {
    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let r = request.send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.send(reqwest::Method::GET, path, None).await
    }
}
