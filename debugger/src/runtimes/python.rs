//! The Python side: `python3 -u -c <driver.py>`, a small stdlib-only driver shipped inside the
//! server. It reads JSON-line requests on stdin (`exec`, `state`, `exit`), runs code in
//! `__main__`'s namespace with a REPL's final-expression display, and answers as described in
//! [`super::exec`]. SIGINT raises KeyboardInterrupt only while user code runs.

use serde::Deserialize;
use serde_json::json;

use super::PythonImport;

pub const DRIVER: &str = include_str!("driver.py");

pub fn command() -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new("python3");
    cmd.args(["-u", "-c", DRIVER]);
    cmd
}

fn request(value: serde_json::Value) -> String {
    let mut line = value.to_string();
    line.push('\n');
    line
}

/// A ping: answered once the driver reads requests.
pub fn init(token: &str) -> String {
    request(json!({"op": "ping", "token": token}))
}

pub fn exec_line(code: &str, token: &str) -> String {
    request(json!({"op": "exec", "token": token, "code": code}))
}

pub fn state_line(token: &str) -> String {
    request(json!({"op": "state", "token": token}))
}

pub fn exit_line() -> String {
    request(json!({"op": "exit", "token": ""}))
}

/// The status line's JSON.
#[derive(Debug, Default, Deserialize)]
pub struct Answer {
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub interrupted: bool,
    #[serde(default)]
    pub state: Option<PythonState>,
}

#[derive(Debug, Default, Deserialize)]
pub struct PythonState {
    #[serde(default)]
    pub working_dir: Option<String>,
    #[serde(default)]
    pub imports: Vec<PythonImport>,
    #[serde(default)]
    pub functions: Vec<String>,
    #[serde(default)]
    pub variables: std::collections::BTreeMap<String, String>,
}

/// A status line the driver wrote; one it could not have written reads as a failure.
pub fn answer(rest: &str) -> Answer {
    serde_json::from_str(rest).unwrap_or(Answer { exit_code: Some(1), ..Answer::default() })
}
