//! Failures are logged: a 5xx answer with the request's method, path and the error's cause, a
//! panicking handler as a 500 JSON answer and a log line. `RUST_LOG` picks the level.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::Request;
use axum::routing::get;
use axum::Router;
use base64::Engine;
use breakroom_debugger::cid_store::cid_of;
use serde_json::{json, Value};
use tower::ServiceExt;

/// The real binary, with a file-size limit on its process: SQLite fails for real when a write
/// would grow a file past it. The signal that limit raises is ignored, so the write returns an
/// error instead of killing the server.
struct LimitedServer {
    child: std::process::Child,
    url: String,
    _data: tempfile::TempDir,
}

impl LimitedServer {
    fn start(max_file_blocks: u32) -> LimitedServer {
        let data = tempfile::tempdir().unwrap();
        let script = format!(r#"ulimit -f {max_file_blocks} && trap "" XFSZ && exec "$0" "$@""#);
        let mut child = std::process::Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_breakroom"), "--port", "0", "--data-dir"])
            .arg(data.path().join("history"))
            .env("CIDELDILL_PORT_FILE", data.path().join("port"))
            .env("RUST_LOG", "error")
            .env_remove("BREAKROOM_TOKEN")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        for line in stdout.lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("Server running on ") {
                return LimitedServer { child, url: url.trim().to_string(), _data: data };
            }
        }
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        panic!("breakroom did not start: {err}");
    }

    /// Stops the server and returns what it wrote to stderr.
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let mut err = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let _ = self.child.wait();
        err
    }
}

#[tokio::test]
async fn a_storage_failure_answers_503_and_is_logged_with_method_path_and_cause() {
    // 2,048 blocks is 1 MiB (512-byte blocks, POSIX sh) or 2 MiB (bash): enough to start, too
    // little to store a 4 MiB function.
    let server = LimitedServer::start(2048);
    let code = vec![7u8; 4 * 1024 * 1024];
    let body = json!({
        "function_name": "big",
        "function_cid": cid_of(&code),
        "function_data": base64::engine::general_purpose::STANDARD.encode(&code),
        "function_serialization_format": "dill",
    });
    let response =
        reqwest::Client::new().post(format!("{}/api/functions", server.url)).json(&body).send().await.unwrap();
    let status = response.status().as_u16();
    let answer: Value = response.json().await.unwrap();
    let log = server.stop();

    assert_eq!(status, 503, "{answer}");
    assert_eq!(answer["error"], "storage_unavailable");
    assert!(answer["message"].as_str().is_some_and(|m| m.starts_with("storage: ")), "{answer}");
    let line = log.lines().find(|l| l.contains("request failed")).unwrap_or_else(|| panic!("no failure logged: {log}"));
    for part in ["ERROR", "method=POST", "path=/api/functions", "status=503", "storage_unavailable", "caused by"] {
        assert!(line.contains(part), "{part:?} missing from {line}");
    }
    // The cause is SQLite's own error, with its result code, not only its message.
    assert!(line.contains("SqliteFailure"), "{line}");
}

/// A `tracing` writer into memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

// No handler of Breakroom's panics on purpose, so this one does: the boundary is what is tested.
#[tokio::test]
async fn a_panicking_handler_answers_500_json_and_is_logged_with_method_and_path() {
    let log = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer({
            let log = log.clone();
            move || log.clone()
        })
        .with_ansi(false)
        .with_max_level(tracing::Level::ERROR)
        .finish();
    let _default = tracing::subscriber::set_default(subscriber);
    async fn gives_up() -> &'static str {
        panic!("the handler gave up")
    }
    let routes: Router = Router::new().route("/api/boom", get(gives_up));
    let app = breakroom_server::logging::with_failure_handling(routes);

    let request = Request::builder().method("GET").uri("/api/boom?token=secret").body(Body::empty()).unwrap();
    let response = app.oneshot(request).await.unwrap();

    assert_eq!(response.status(), 500);
    let body = axum::body::to_bytes(response.into_body(), 4096).await.unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"], "internal_error");
    assert!(!body["message"].as_str().unwrap_or("").contains("gave up"), "the panic stays in the log: {body}");
    let log = log.text();
    let line = log.lines().find(|l| l.contains("request failed")).unwrap_or_else(|| panic!("nothing logged: {log}"));
    for part in ["method=GET", "path=/api/boom", "status=500", "panic: the handler gave up"] {
        assert!(line.contains(part), "{part:?} missing from {line}");
    }
    assert!(!log.contains("secret"), "the query (which may hold a token) is not logged: {log}");
}
