//! Runtimes on real bash and python processes, through the registry: what a session keeps between
//! commands, timeouts and interrupts, a runtime that dies, isolation, reset, capped history, idle
//! workspaces ended and output cut at its cap.

use std::time::Duration;

use breakroom_debugger::runtimes::{ExecRequest, ExecResult, RuntimeConfig, RuntimeRegistry};
use breakroom_debugger::store::Store;

fn registry(config: RuntimeConfig) -> RuntimeRegistry {
    RuntimeRegistry::new(config, Store::in_memory().unwrap(), tokio::sync::broadcast::channel(64).0)
}

async fn run(r: &RuntimeRegistry, ws: &str, language: &str, command: &str) -> ExecResult {
    let req = ExecRequest { command: Some(command.into()), language: Some(language.into()), ..Default::default() };
    r.exec(ws, req).await.unwrap()
}

#[tokio::test]
async fn bash_keeps_variables_cwd_and_exports_and_separates_the_streams() {
    let r = registry(RuntimeConfig::default());
    let first = run(&r, "w", "bash", "VAR='hello world'").await;
    assert!(first.success && first.started, "{first:?}");
    let out = run(&r, "w", "bash", "echo $VAR; echo oops >&2").await;
    assert_eq!((out.stdout.as_str(), out.stderr.as_str(), out.started), ("hello world\n", "oops\n", false), "{out:?}");
    run(&r, "w", "bash", "cd /tmp && export LOG_LEVEL=DEBUG").await;
    let out = run(&r, "w", "bash", "pwd; sh -c 'echo $LOG_LEVEL'").await;
    assert_eq!(out.stdout, "/tmp\nDEBUG\n");
    let out = run(&r, "w", "bash", "false").await;
    assert_eq!((out.success, out.exit_code), (false, Some(1)));
    let out = run(
        &r,
        "w",
        "bash",
        "for i in 1 2 3\ndo\n  echo \"line $i\"\ndone\nexit_code_is() { return 4; }\nexit_code_is",
    )
    .await;
    assert_eq!((out.stdout.as_str(), out.exit_code), ("line 1\nline 2\nline 3\n", Some(4)));
    let out = run(&r, "w", "bash", "cat; read x; echo \"read:$?\"").await;
    assert_eq!(out.stdout, "read:1\n", "stdin is at EOF: {out:?}");
    let out = run(&r, "w", "bash", "printf 'no newline'").await;
    assert_eq!(out.stdout, "no newline");
    let out = run(&r, "w", "bash", "if then fi").await;
    assert!(!out.success && out.stderr.contains("syntax error"), "{out:?}");
    let state = r.state("w").await.unwrap();
    assert_eq!(state.working_dir.as_deref(), Some("/tmp"));
    assert_eq!(state.env_vars.get("LOG_LEVEL").map(String::as_str), Some("DEBUG"));
    assert_eq!(state.bash_functions, ["exit_code_is"]);
}

#[tokio::test]
async fn python_keeps_definitions_and_imports_and_shows_a_final_expression() {
    let r = registry(RuntimeConfig::default());
    run(&r, "p", "python", "import json\nfrom pathlib import Path\nx = 41\ndef double(n):\n    return n * 2").await;
    let out = run(&r, "p", "python", "x + 1").await;
    assert_eq!((out.stdout.as_str(), out.success), ("42\n", true), "{out:?}");
    let out = run(&r, "p", "python", "print(json.dumps({'a': double(2)}))\nNone").await;
    assert_eq!(out.stdout, "{\"a\": 4}\n");
    let out = run(&r, "p", "python", "def boom():\n    raise ValueError('bad')\nboom()").await;
    assert!(!out.success, "{out:?}");
    assert!(out.stderr.contains("Traceback") && out.stderr.contains("ValueError: bad"), "{}", out.stderr);
    assert!(!out.stderr.contains("_breakroom_driver"), "the driver's frames are hidden: {}", out.stderr);
    let out = run(&r, "p", "python", "input()").await;
    assert!(out.stderr.contains("EOFError"), "stdin is at EOF: {out:?}");
    let state = r.state("p").await.unwrap();
    let imports: Vec<(&str, &str)> = state.imports.iter().map(|i| (i.name.as_str(), i.module.as_str())).collect();
    assert_eq!(imports, [("json", "json"), ("Path", "pathlib")]);
    assert!(state.functions.contains(&"double".to_string()) && state.functions.contains(&"boom".to_string()));
    assert_eq!(state.variables.get("x").map(String::as_str), Some("int"));
    assert_eq!(state.history.len(), 5);
}

#[tokio::test]
async fn a_timeout_interrupts_the_command_and_keeps_the_session() {
    let r = registry(RuntimeConfig::default());
    run(&r, "t", "bash", "KEEP=yes").await;
    let req = ExecRequest {
        command: Some("echo before; sleep 30; echo after".into()),
        timeout_ms: Some(300),
        ..Default::default()
    };
    let out = r.exec("t", req).await.unwrap();
    assert!(out.timed_out && !out.success && !out.state_lost, "{out:?}");
    assert_eq!(out.stdout, "before\n");
    assert_eq!(run(&r, "t", "bash", "echo $KEEP").await.stdout, "yes\n");
    let req =
        ExecRequest { command: Some("while true; do :; done".into()), timeout_ms: Some(300), ..Default::default() };
    let out = r.exec("t", req).await.unwrap();
    assert!(out.timed_out && !out.state_lost, "a loop of bash itself is interrupted too: {out:?}");
    assert_eq!(run(&r, "t", "bash", "echo $KEEP").await.stdout, "yes\n");

    run(&r, "t", "python", "kept = 7").await;
    let req = ExecRequest {
        command: Some("import time\nwhile True:\n    time.sleep(0.01)".into()),
        language: Some("python".into()),
        timeout_ms: Some(300),
        ..Default::default()
    };
    let out = r.exec("t", req).await.unwrap();
    assert!(out.timed_out && out.stderr.contains("KeyboardInterrupt") && !out.state_lost, "{out:?}");
    assert_eq!(run(&r, "t", "python", "kept").await.stdout, "7\n");
}

#[tokio::test]
async fn an_interrupt_that_is_ignored_restarts_the_process_and_says_state_was_lost() {
    let r = registry(RuntimeConfig::default());
    run(&r, "i", "bash", "GONE=1").await;
    let req =
        ExecRequest { command: Some("trap '' INT; sleep 30".into()), timeout_ms: Some(200), ..Default::default() };
    let out = r.exec("i", req).await.unwrap();
    assert!(out.timed_out && out.state_lost, "{out:?}");
    assert!(out.notice.unwrap_or_default().contains("restarted"));
    assert_eq!(run(&r, "i", "bash", "echo \"[$GONE]\"").await.stdout, "[]\n");
}

#[tokio::test]
async fn a_runtime_that_dies_is_reported_and_restarted_fresh() {
    let r = registry(RuntimeConfig::default());
    run(&r, "d", "bash", "X=1").await;
    let out = run(&r, "d", "bash", "echo bye; exit 3").await;
    assert_eq!(out.stdout, "bye\n");
    assert!(!out.success && out.notice.as_deref().unwrap_or("").contains("exited with code 3"), "{out:?}");
    let out = run(&r, "d", "bash", "echo \"[$X]\"").await;
    assert!(out.success && out.started && out.state_lost, "{out:?}");
    assert_eq!(out.stdout, "[]\n");

    run(&r, "d", "python", "y = 1").await;
    let out = run(&r, "d", "python", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)").await;
    assert!(out.notice.as_deref().unwrap_or("").contains("SIGSEGV"), "{out:?}");
    let out = run(&r, "d", "python", "'y' in globals()").await;
    assert!(out.state_lost && out.notice.is_some(), "{out:?}");
    assert_eq!(out.stdout, "False\n");
}

#[tokio::test]
async fn workspaces_are_isolated_reset_clears_and_history_is_capped() {
    let r = registry(RuntimeConfig { max_history: 3, max_workspaces: 2, ..RuntimeConfig::default() });
    run(&r, "a", "bash", "export ONLY_A=1; cd /tmp").await;
    let b = run(&r, "b", "bash", "echo \"[$ONLY_A]\"; pwd").await;
    assert_ne!(b.stdout, "[1]\n/tmp\n");
    assert!(b.stdout.starts_with("[]\n"));
    let err = r.exec("c", ExecRequest { command: Some("true".into()), ..Default::default() }).await.unwrap_err();
    assert_eq!(err.code(), "too_many_workspaces");
    for i in 0..5 {
        run(&r, "a", "python", &format!("v{i} = {i}")).await;
    }
    let history = r.history("a", 20).unwrap().history;
    let commands: Vec<&str> = history.iter().map(|h| h.command.as_str()).collect();
    assert_eq!(commands, ["v2 = 2", "v3 = 3", "v4 = 4"]);
    r.reset("a").await.unwrap();
    let out = run(&r, "a", "bash", "echo \"[$ONLY_A]\"").await;
    assert_eq!((out.stdout.as_str(), out.started), ("[]\n", true));
    assert_eq!(r.exec("bad name", ExecRequest::default()).await.unwrap_err().code(), "invalid_workspace");
}

#[tokio::test]
async fn idle_workspaces_are_ended() {
    let r = registry(RuntimeConfig { idle_timeout: Duration::from_millis(300), ..RuntimeConfig::default() });
    r.watch_idle();
    let out = run(&r, "idle", "bash", "echo $$").await;
    let pid: i32 = out.stdout.trim().parse().unwrap();
    assert_eq!(r.list().unwrap().workspaces.len(), 1);
    // Waits for the effect, not for a time: the check runs every 100 ms here.
    for _ in 0..100 {
        if r.list().unwrap().workspaces.is_empty() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(r.list().unwrap().workspaces.is_empty());
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "bash {pid} was ended");
}

#[tokio::test]
async fn output_beyond_the_cap_is_cut_with_a_marker() {
    let r = registry(RuntimeConfig { max_output: 1000, ..RuntimeConfig::default() });
    let out = run(&r, "big", "bash", "head -c 5000 /dev/zero | tr '\\0' x; echo; echo done").await;
    assert!(out.stdout.starts_with(&"x".repeat(1000)));
    assert!(out.stdout.contains("4006 more bytes cut"), "{}", &out.stdout[1000..]);
    assert_eq!(run(&r, "big", "bash", "echo next").await.stdout, "next\n");
}

#[tokio::test]
async fn a_command_a_reset_and_an_end_are_told_on_the_live_stream_with_their_workspace() {
    use breakroom_debugger::model::LiveEvent;
    let (live, mut told) = tokio::sync::broadcast::channel(64);
    let r = RuntimeRegistry::new(RuntimeConfig::default(), Store::in_memory().unwrap(), live);
    let changed = |ws: &str| LiveEvent::RuntimesChanged { workspace: ws.into() };
    run(&r, "told", "bash", "echo hi").await;
    // Once as it starts (the workspace is busy), once as it ends, with its history stored.
    assert_eq!(told.try_recv().unwrap(), changed("told"));
    assert_eq!(told.try_recv().unwrap(), changed("told"));
    assert_eq!(r.history("told", 10).unwrap().history.len(), 1);
    r.reset("told").await.unwrap();
    assert_eq!(told.try_recv().unwrap(), changed("told"));
    r.stop("told").unwrap();
    assert_eq!(told.try_recv().unwrap(), changed("told"));
    assert!(told.try_recv().is_err(), "nothing else was told");
    // A refused command changes nothing and tells nothing.
    let req = ExecRequest { command: Some("echo".into()), language: Some("cobol".into()), ..Default::default() };
    assert!(r.exec("told", req).await.is_err());
    assert!(told.try_recv().is_err());
}
