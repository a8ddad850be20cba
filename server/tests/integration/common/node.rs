//! Real Node programs against the test server: written to a temporary directory, run with
//! `node`, killed when dropped. The programs import a client by absolute path.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::TestServer;

/// Breakroom's JavaScript client as the server serves it: its modules joined into one file
/// (`breakroom_server::api::debug_client::source`), written once per test process.
pub fn breakroom_client() -> PathBuf {
    static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("breakroom-js-client-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("breakroom.mjs");
        std::fs::write(&file, breakroom_server::api::debug_client::source()).unwrap();
        file
    })
    .clone()
}

/// The client's entry module on disk, importing its parts (`client-js/lib/`), as a Node program
/// that imports the repository's file runs it.
pub fn breakroom_client_modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../client-js/breakroom.mjs").canonicalize().unwrap()
}

/// Our driver that sends what cideldill's JavaScript client sends (docs/src/js-protocol.md).
pub fn cideldill_driver() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cideldill_js_driver.mjs").canonicalize().unwrap()
}

pub struct NodeProgram {
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for NodeProgram {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl NodeProgram {
    /// Runs `source` (an ES module; `CLIENT` in it is replaced by the client's file URL) with
    /// `BREAKROOM_URL` set to `url`.
    pub fn run_at(url: &str, client: &Path, source: &str) -> NodeProgram {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("app.mjs");
        let client_url = format!("file://{}", client.display());
        std::fs::write(&script, source.replace("CLIENT", &client_url)).unwrap();
        let child = Command::new("node")
            .arg(&script)
            .current_dir(dir.path())
            .env("BREAKROOM_URL", url)
            .env("SERVER_URL", url)
            .env_remove("BREAKROOM_PROCESS_ID")
            .env_remove("BREAKROOM_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs");
        NodeProgram { child, _dir: dir }
    }

    pub fn run(server: &TestServer, client: &Path, source: &str) -> NodeProgram {
        Self::run_at(&server.base, client, source)
    }

    /// Waits for the program to exit; returns (exit code, stdout, stderr).
    pub fn finish(mut self) -> (i32, String, String) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the program did not finish");
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut out = String::new();
        let mut err = String::new();
        use std::io::Read;
        self.child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        self.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (self.child.wait().unwrap().code().unwrap_or(-1), out, err)
    }
}

impl TestServer {
    /// The first paused call of `function` (its `/api/paused` entry), waiting for it to appear.
    pub async fn wait_for_pause(&self, function: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (_, body) = self.get("/api/paused").await;
            let found = body["paused"]
                .as_array()
                .and_then(|list| list.iter().find(|p| p["call_data"]["method_name"] == function).cloned());
            if let Some(pause) = found {
                return pause;
            }
            assert!(Instant::now() < deadline, "{function} did not pause: {body}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// One REPL eval on a session; returns the outcome (`output`, `stdout`, `is_error`).
    pub async fn eval_in(&self, session_id: &str, expr: &str) -> Value {
        let (status, outcome) = self.post(&format!("/api/repl/{session_id}/eval"), json!({"expr": expr})).await;
        assert_eq!(status, 200, "{expr}: {outcome}");
        outcome
    }

    pub async fn resume(&self, pause_id: &str, body: Value) {
        let (status, reply) = self.post(&format!("/api/paused/{pause_id}/continue"), body).await;
        assert_eq!(status, 200, "{reply}");
    }

    pub async fn add_breakpoint(&self, name: &str) {
        let (status, reply) = self.post("/api/breakpoints", json!({"function_name": name})).await;
        assert_eq!(status, 200, "{reply}");
    }
}
