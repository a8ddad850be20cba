//! `breakroom mcp`: for agents that only launch commands. Relays MCP's stdio framing (one
//! JSON-RPC message per line) to the running server's Streamable HTTP endpoint and back. The
//! server is found as `breakroom run` and the Python client find it (`BREAKROOM_URL`, else the
//! port file); `BREAKROOM_TOKEN` is sent when set.
//!
//! Each line is POSTed in order (the session id of `initialize`'s answer is needed by the next);
//! answers are read concurrently, so a long eval does not hold up other calls. After
//! `notifications/initialized` a GET stream carries what the server sends unasked
//! (`notifications/resources/updated`).

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{Method, Response};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::process_cli::Server;

const SESSION: &str = "mcp-session-id";
const VERSION: &str = "mcp-protocol-version";

/// Runs until stdin ends and every answer has been written; the exit code.
pub async fn run() -> Result<i32, String> {
    let server = Server::find()?;
    let (out, mut lines_out) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = lines_out.recv().await {
            let _ = stdout.write_all(line.as_bytes()).await;
            let _ = stdout.write_all(b"\n").await;
            let _ = stdout.flush().await;
        }
    });
    let mut session = HeaderMap::new();
    let mut answers = JoinSet::new();
    // The GET stream of what the server sends unasked; it never ends by itself.
    let mut listener: Option<tokio::task::JoinHandle<()>> = None;
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = stdin.next_line().await.map_err(|e| format!("reading stdin: {e}"))? {
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(m) => m,
            Err(e) => {
                let _ = out.send(error_line(&Value::Null, -32700, &format!("not JSON: {e}")));
                continue;
            }
        };
        let mut request = server.request(Method::POST, super::PATH).headers(session.clone());
        request = request
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(line);
        match request.send().await {
            Ok(response) if response.status().is_success() => {
                if let Some(id) = response.headers().get(SESSION) {
                    session.insert(SESSION, id.clone());
                }
                if message["method"] == "initialize" {
                    // Read at once: later requests carry the version it agreed on.
                    let answer = relay(response, out.clone()).await;
                    let version = answer.as_ref().and_then(|a| a["result"]["protocolVersion"].as_str());
                    if let Some(version) = version.and_then(|v| HeaderValue::from_str(v).ok()) {
                        session.insert(VERSION, version);
                    }
                } else {
                    let relayed = relay(response, out.clone());
                    answers.spawn(async move {
                        relayed.await;
                    });
                }
            }
            Ok(response) => {
                let status = response.status();
                let body = response.text().await.unwrap_or_default();
                refused(&out, &message, &format!("the server answered {status}: {}", body.trim()));
            }
            Err(e) => {
                let why = crate::process_cli::error_chain(&e);
                refused(&out, &message, &format!("cannot reach the server at {}: {why}", server.base))
            }
        }
        if listener.is_none() && message["method"] == "notifications/initialized" {
            let get =
                server.request(Method::GET, super::PATH).headers(session.clone()).header(ACCEPT, "text/event-stream");
            let out = out.clone();
            listener = Some(tokio::spawn(async move {
                if let Ok(response) = get.send().await {
                    if response.status().is_success() {
                        relay(response, out).await;
                    }
                }
            }));
        }
    }
    // Stdin ended: every request sent gets its answer (evals end by the server's timeout), then
    // the session ends.
    while answers.join_next().await.is_some() {}
    if session.contains_key(SESSION) {
        let _ = server.request(Method::DELETE, super::PATH).headers(session.clone()).send().await;
    }
    if let Some(listener) = listener {
        listener.abort();
    }
    drop(out);
    let _ = writer.await;
    Ok(0)
}

/// An answer on stdout for a request the server did not take, so the agent is not left waiting.
fn refused(out: &mpsc::UnboundedSender<String>, message: &Value, why: &str) {
    eprintln!("breakroom mcp: {why}");
    if let Some(id) = message.get("id") {
        let _ = out.send(error_line(id, -32000, why));
    }
}

fn error_line(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Writes an answer's messages as lines: a JSON body as it is, an event stream event by event.
/// Returns the last message.
fn relay(
    response: Response,
    out: mpsc::UnboundedSender<String>,
) -> impl std::future::Future<Output = Option<Value>> + Send + 'static {
    let is_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    async move {
        let mut response = response;
        if !is_stream {
            return send_json(&out, &response.text().await.unwrap_or_default());
        }
        let mut last = None;
        let mut buffer = String::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            buffer = buffer.replace("\r\n", "\n");
            while let Some(end) = buffer.find("\n\n") {
                let event: String = buffer.drain(..end + 2).collect();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                last = send_json(&out, &data.join("\n")).or(last);
            }
        }
        last
    }
}

/// One message per line: compacted, and only if it is JSON (priming events carry no data).
fn send_json(out: &mpsc::UnboundedSender<String>, text: &str) -> Option<Value> {
    let value = serde_json::from_str::<Value>(text.trim()).ok()?;
    let _ = out.send(value.to_string());
    Some(value)
}
