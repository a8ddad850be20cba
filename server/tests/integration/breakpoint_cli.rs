//! `breakroom breakpoint add | list | remove | clear | enable | disable` (issue 18), the real
//! binary against a real server.

use crate::common;

use std::process::Command;

use common::TestServer;
use serde_json::{json, Value};

async fn items(server: &TestServer) -> Vec<Value> {
    let (_, list) = server.get("/api/breakpoints").await;
    list["items"].as_array().cloned().unwrap_or_default()
}

/// `breakroom breakpoint …` against this server: add each kind, list, disable, remove, clear.
#[tokio::test(flavor = "multi_thread")]
async fn breakpoint_command_line_adds_lists_disables_removes_and_clears() {
    let server = common::start().await;
    let base = server.base.clone();
    let cli = move |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_breakroom"))
            .arg("breakpoint")
            .args(args)
            .env("BREAKROOM_URL", &base)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
    };
    let run = move |args: Vec<&'static str>| {
        let cli = cli.clone();
        tokio::task::spawn_blocking(move || cli(&args))
    };
    let (code, out) = run(vec!["add", "function", "compute", "--condition", "n > 3", "--hit", ">= 2"]).await.unwrap();
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("bp-1") && out.contains("compute") && out.contains("n > 3"), "{out}");
    let (code, out) = run(vec!["add", "line", "app.py:12", "--log", "n={n}", "--disabled"]).await.unwrap();
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = run(vec!["add", "error", "ValueError", "KeyError"]).await.unwrap();
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = run(vec!["add", "line", "app.py:zero"]).await.unwrap();
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("line must be a number"), "{out}");
    let (code, out) = run(vec!["add", "line", "app.py:0"]).await.unwrap();
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("invalid_line"), "{out}");
    let listed = items(&server).await;
    assert_eq!(listed.len(), 3);
    assert_eq!((&listed[1]["log_message"], &listed[1]["enabled"]), (&json!("n={n}"), &json!(false)));
    assert_eq!(listed[2]["exception_types"], json!(["ValueError", "KeyError"]));
    let (code, out) = run(vec!["list"]).await.unwrap();
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.contains("(disabled)") && out.contains("ValueError, KeyError"), "{out}");
    let (code, _) = run(vec!["enable", "bp-2"]).await.unwrap();
    assert_eq!(code, Some(0));
    assert_eq!(items(&server).await[1]["enabled"], true);
    let (code, _) = run(vec!["disable", "bp-1"]).await.unwrap();
    assert_eq!(code, Some(0));
    assert_eq!(items(&server).await[0]["enabled"], false);
    let (code, out) = run(vec!["remove", "bp-9"]).await.unwrap();
    assert_eq!(code, Some(1), "{out}");
    let (code, _) = run(vec!["remove", "bp-3"]).await.unwrap();
    assert_eq!(code, Some(0));
    assert_eq!(items(&server).await.len(), 2);
    let (code, out) = run(vec!["clear"]).await.unwrap();
    assert_eq!(code, Some(0), "{out}");
    assert!(items(&server).await.is_empty());
}
