//! Runtimes (issue 19) through the real binary, on real bash and python, over REST:
//! variables, imports, cwd, env, history that survives a restart, reset, timeout,
//! isolation, idle cleanup, a dying process, bad input, the non-loopback switch, a server
//! started with SIGINT ignored, and `breakroom runtime`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::binary::{start, start_via, temp_home, BinaryServer, BIN};

impl BinaryServer {
    async fn exec_with(&self, ws: &str, body: Value) -> Value {
        let (status, reply) = self.send(reqwest::Method::POST, &format!("/api/runtimes/{ws}/exec"), Some(body)).await;
        assert_eq!(status, 200, "{reply}");
        reply
    }

    async fn bash(&self, ws: &str, command: &str) -> Value {
        self.exec_with(ws, json!({"command": command})).await
    }

    async fn python(&self, ws: &str, code: &str) -> Value {
        self.exec_with(ws, json!({"command": code, "language": "python"})).await
    }
}

#[tokio::test]
async fn bash_and_python_keep_their_state_between_commands_and_history_survives_a_restart() {
    let home = temp_home();
    let server = start(&home, &[]).await;
    let first = server.bash("ws1", "VAR='hello world'; cd /tmp; export DATABASE_URL=postgresql://localhost/mydb").await;
    assert_eq!((first["success"].clone(), first["started"].clone()), (json!(true), json!(true)), "{first}");
    let out = server.bash("ws1", "echo $VAR; pwd; python3 -c 'import os; print(os.environ[\"DATABASE_URL\"])'").await;
    assert_eq!(out["stdout"], "hello world\n/tmp\npostgresql://localhost/mydb\n", "{out}");
    assert_eq!(out["started"], false);
    server.python("ws1", "import json\nrows = [1, 2, 3]").await;
    let out = server.python("ws1", "json.dumps(rows)").await;
    assert_eq!(out["stdout"], "'[1, 2, 3]'\n");
    let out = server.python("ws1", "rows.append(").await;
    assert_eq!(out["success"], false);
    assert!(out["stderr"].as_str().unwrap().contains("SyntaxError"), "{out}");

    let (status, state) = server.get("/api/runtimes/ws1/state").await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["working_dir"], "/tmp");
    assert_eq!(state["env_vars"]["DATABASE_URL"], "postgresql://localhost/mydb");
    assert_eq!(state["imports"], json!([{"name": "json", "module": "json"}]));
    assert_eq!(state["variables"]["rows"], "list");
    assert_eq!(state["history"].as_array().unwrap().len(), 5);

    let (_, list) = server.get("/api/runtimes").await;
    assert_eq!(list["workspaces"][0]["workspace"], "ws1");
    assert!(list["workspaces"][0]["bash_pid"].is_i64() && list["workspaces"][0]["python_pid"].is_i64());
    drop(server);

    let server = start(&home, &[]).await;
    let (_, page) = server.get("/api/runtimes/ws1/history?limit=2").await;
    let entries = page["history"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["command"], "json.dumps(rows)");
    assert_eq!(entries[0]["stdout"], "'[1, 2, 3]'\n", "what a command printed is kept");
    assert!(entries[1]["stderr"].as_str().unwrap().contains("SyntaxError"), "{page}");
    assert_eq!((entries[1]["language"].clone(), entries[1]["success"].clone()), (json!("python"), json!(false)));
    let out = server.bash("ws1", "echo \"[$VAR]\"").await;
    assert_eq!(out["stdout"], "[]\n", "a new server has new processes");
}

#[tokio::test]
async fn a_timeout_interrupts_even_when_the_server_was_started_with_sigint_ignored() {
    // A server started in the background by a script has SIGINT ignored; runtimes must not.
    let server = start_via(&temp_home(), &[], Some("trap '' INT;")).await;
    server.bash("t", "KEEP=kept").await;
    let out = server.exec_with("t", json!({"command": "sleep 20; echo never", "timeout_ms": 300})).await;
    assert_eq!((out["timed_out"].clone(), out["state_lost"].clone()), (json!(true), json!(false)), "{out}");
    assert_eq!(out["exit_code"], 130);
    assert_eq!(server.bash("t", "echo $KEEP").await["stdout"], "kept\n");
    server.python("t", "n = 5").await;
    let out = server
        .exec_with("t", json!({"command": "import time\ntime.sleep(20)", "language": "python", "timeout_ms": 300}))
        .await;
    assert!(out["stderr"].as_str().unwrap().contains("KeyboardInterrupt"), "{out}");
    assert_eq!(out["state_lost"], false);
    assert_eq!(server.python("t", "n * 2").await["stdout"], "10\n");
}

#[tokio::test]
async fn a_dying_runtime_is_reported_then_restarted_fresh_and_reset_and_stop_end_processes() {
    let server = start(&temp_home(), &[]).await;
    server.python("d", "a = 1").await;
    let out = server.python("d", "import os\nos._exit(7)").await;
    assert_eq!(out["success"], false);
    assert!(out["notice"].as_str().unwrap().contains("exited with code 7"), "{out}");
    let out = server.python("d", "'a' in globals()").await;
    assert_eq!((out["stdout"].clone(), out["state_lost"].clone()), (json!("False\n"), json!(true)), "{out}");

    server.bash("d", "export GONE=1").await;
    let (status, _) = server.send(reqwest::Method::POST, "/api/runtimes/d/reset", None).await;
    assert_eq!(status, 200);
    let (_, page) = server.get("/api/runtimes/d/history").await;
    assert_eq!(page["history"], json!([]), "a reset clears the history");
    assert_eq!(server.bash("d", "echo \"[$GONE]\"").await["stdout"], "[]\n");

    let (status, _) = server.send(reqwest::Method::DELETE, "/api/runtimes/d", None).await;
    assert_eq!(status, 200);
    let (_, list) = server.get("/api/runtimes").await;
    assert_eq!(list["workspaces"], json!([]));
    let (status, body) = server.send(reqwest::Method::DELETE, "/api/runtimes/d", None).await;
    assert_eq!((status, body["error"].clone()), (404, json!("workspace_not_found")));
}

#[tokio::test]
async fn state_answers_at_once_while_a_command_runs_with_the_state_before_it() {
    let server = start(&temp_home(), &[]).await;
    server.bash("s", "cd /tmp").await;
    let (_, before) = server.get("/api/runtimes/s/state").await;
    assert_eq!((before["busy"].clone(), before["working_dir"].clone()), (json!(false), json!("/tmp")));
    let running = {
        let (http, url) = (server.http.clone(), format!("{}/api/runtimes/s/exec", server.base));
        tokio::spawn(async move { http.post(url).json(&json!({"command": "cd /; sleep 3"})).send().await })
    };
    let mut busy = false;
    for _ in 0..200 {
        let (_, list) = server.get("/api/runtimes").await;
        if list["workspaces"][0]["busy"] == json!(true) {
            busy = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(busy, "the command never showed as running");
    let (status, during) = server.get("/api/runtimes/s/state").await;
    assert_eq!(status, 200, "{during}");
    assert_eq!(during["busy"], true, "a state asked for during a command does not wait for it: {during}");
    assert_eq!(during["working_dir"], "/tmp");
    assert!(running.await.unwrap().unwrap().status().is_success());
    let (_, after) = server.get("/api/runtimes/s/state").await;
    assert_eq!((after["busy"].clone(), after["working_dir"].clone()), (json!(false), json!("/")));
}

#[tokio::test]
async fn workspaces_are_isolated_and_idle_ones_are_ended() {
    let server = start(&temp_home(), &["--runtime-idle", "0.5"]).await;
    let a = server.bash("a", "export ONLY_A=1; echo $$").await;
    let b = server.bash("b", "echo \"[$ONLY_A]\" $$").await;
    let pid_a: i32 = a["stdout"].as_str().unwrap().trim().parse().unwrap();
    let b_out = b["stdout"].as_str().unwrap();
    assert!(b_out.starts_with("[] ") && !b_out.contains(&format!(" {pid_a}\n")), "{b_out}");
    // Waits for the effect (the check runs every 0.125 s here), not for a set time.
    for _ in 0..200 {
        let (_, list) = server.get("/api/runtimes").await;
        if list["workspaces"] == json!([]) && !Path::new(&format!("/proc/{pid_a}")).exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("idle workspaces were not ended");
}

#[tokio::test]
async fn bad_names_and_values_are_refused_by_name() {
    let server = start(&temp_home(), &["--runtime-max", "1"]).await;
    let cases = [
        ("/api/runtimes/bad%20name/exec", json!({"command": "true"}), "invalid_workspace"),
        (&*format!("/api/runtimes/{}/exec", "x".repeat(65)), json!({"command": "true"}), "invalid_workspace"),
        ("/api/runtimes/w/exec", json!({}), "missing_command"),
        ("/api/runtimes/w/exec", json!({"command": "true", "language": "node"}), "invalid_language"),
        ("/api/runtimes/w/exec", json!({"command": "true", "timeout_ms": 0}), "invalid_timeout"),
        ("/api/runtimes/w/exec", json!({"command": "a\u{0}b"}), "invalid_command"),
        ("/api/runtimes/w/exec", json!({"command": "true", "idle_timeout_s": -1}), "invalid_idle_timeout"),
    ];
    for (path, body, code) in cases {
        let (status, reply) = server.send(reqwest::Method::POST, path, Some(body)).await;
        assert_eq!((status, reply["error"].as_str()), (400, Some(code)), "{path}: {reply}");
    }
    let (status, reply) = server.get("/api/runtimes/w/history?limit=lots").await;
    assert_eq!((status, reply["error"].as_str()), (400, Some("invalid_limit")));
    // Outside 1 to 1,000 it was cut to the range without a word.
    for limit in ["0", "1001", "99999999999"] {
        let (status, reply) = server.get(&format!("/api/runtimes/w/history?limit={limit}")).await;
        assert_eq!((status, reply["error"].as_str()), (400, Some("invalid_limit")), "{limit}: {reply}");
        assert!(reply["message"].as_str().unwrap().contains("from 1 to 1000"), "{reply}");
    }
    assert_eq!(server.get("/api/runtimes/w/history?limit=1000").await.0, 200);
    server.bash("one", "true").await;
    let (status, reply) =
        server.send(reqwest::Method::POST, "/api/runtimes/two/exec", Some(json!({"command": "true"}))).await;
    assert_eq!((status, reply["error"].as_str()), (409, Some("too_many_workspaces")));
}

#[tokio::test]
async fn runtimes_are_off_beyond_loopback_unless_allowed() {
    let server = start(&temp_home(), &["--host", "0.0.0.0", "--token", "t0ken"]).await;
    let (status, reply) =
        server.send(reqwest::Method::POST, "/api/runtimes/w/exec", Some(json!({"command": "id"}))).await;
    assert_eq!((status, reply["error"].as_str()), (403, Some("runtimes_disabled")), "{reply}");
    let (status, _) = server.get("/api/runtimes").await;
    assert_eq!(status, 403);
    drop(server);
    let server = start(&temp_home(), &["--host", "0.0.0.0", "--token", "t0ken", "--allow-runtimes"]).await;
    assert_eq!(server.bash("w", "echo allowed").await["stdout"], "allowed\n");
}

/// Runs the `breakroom` command line against the server at `base`.
fn cli(home: &Path, base: &str, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("CIDELDILL_HOME", home)
        .env("BREAKROOM_URL", base)
        .env_remove("BREAKROOM_TOKEN")
        .stdin(Stdio::null())
        .output()
        .expect("run breakroom")
}

#[tokio::test]
async fn the_runtime_command_line_runs_commands_and_reads_state_history_and_the_list() {
    let server = start(&temp_home(), &[]).await;
    let run = |args: Vec<&'static str>| {
        let (home, base) = (server.home.clone(), server.base.clone());
        tokio::task::spawn_blocking(move || cli(&home, &base, &args))
    };
    let out = run(vec![
        "runtime",
        "exec",
        "cli",
        "--",
        "export",
        "X=1;",
        "echo",
        "$X;",
        "exit_code() { return 3; };",
        "exit_code",
    ])
    .await
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n");
    assert_eq!(out.status.code(), Some(3));
    let out = run(vec!["runtime", "exec", "cli", "--python", "--", "6 * 7"]).await.unwrap();
    assert_eq!((String::from_utf8_lossy(&out.stdout).to_string(), out.status.code()), ("42\n".to_string(), Some(0)));
    let out = run(vec!["runtime", "exec", "cli", "--timeout", "200", "--", "sleep", "10"]).await.unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted after 200 ms"));
    let out = run(vec!["runtime", "state", "cli"]).await.unwrap();
    let state: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(state["env_vars"]["X"], "1");
    let out = run(vec!["runtime", "history", "cli"]).await.unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("python") && text.contains("6 * 7") && text.contains("t/o"), "{text}");
    let out = run(vec!["runtime", "list"]).await.unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("cli"));
    let out = run(vec!["runtime", "stop", "cli"]).await.unwrap();
    assert!(out.status.success());
    let out = run(vec!["runtime", "stop", "cli"]).await.unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("workspace_not_found"));
}
