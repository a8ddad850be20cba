//! Processes under Breakroom, with real processes and the real binary: launch, output, exit
//! and crash reasons, stop, retention, `lost` after a restart, dead processes closing their
//! pauses, launch errors, and the `breakroom run|ps|logs` commands.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::binary::{start, temp_home, BinaryServer, BIN};

impl BinaryServer {
    async fn launch(&self, command: &[&str]) -> Value {
        let (status, body) =
            self.send(reqwest::Method::POST, "/api/processes", Some(json!({"command": command}))).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// Waits until `check` holds for the process record (up to 20 s).
    async fn wait_for(&self, id: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (_, process) = self.get(&format!("/api/processes/{id}")).await;
            if check(&process) {
                return process;
            }
            assert!(Instant::now() < deadline, "process {id} never {what}: {process}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn wait_ended(&self, id: &str) -> Value {
        self.wait_for(id, "ended", |p| !matches!(p["status"].as_str(), Some("running" | "paused"))).await
    }

    async fn texts(&self, id: &str, stream: &str) -> Vec<String> {
        let (status, page) = self.get(&format!("/api/processes/{id}/output?stream={stream}&limit=10000")).await;
        assert_eq!(status, 200, "{page}");
        page["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap().to_string()).collect()
    }
}

fn id_of(process: &Value) -> String {
    process["id"].as_str().expect("an id").to_string()
}

#[tokio::test]
async fn a_clean_exit_is_exited_with_code_0_and_its_output_kept() {
    let server = start(&temp_home(), &[]).await;
    let process = server.launch(&["python3", "-c", "print('hello'); import sys; print('note', file=sys.stderr)"]).await;
    assert_eq!(process["status"], "running");
    assert_eq!(process["origin"], "launched");
    let id = id_of(&process);
    let ended = server.wait_ended(&id).await;
    assert_eq!(ended["status"], "exited", "{ended}");
    assert_eq!(ended["exit_code"], 0);
    assert_eq!(ended["reason"], Value::Null);
    assert!(ended["uptime_s"].as_f64().unwrap() > 0.0);
    assert_eq!(server.texts(&id, "stdout").await, vec!["hello"]);
    assert_eq!(server.texts(&id, "stderr").await, vec!["note"]);
}

#[tokio::test]
async fn a_non_zero_exit_is_a_crash_named_by_its_code() {
    let server = start(&temp_home(), &[]).await;
    let id = id_of(&server.launch(&["python3", "-c", "import sys; sys.exit(3)"]).await);
    let ended = server.wait_ended(&id).await;
    assert_eq!(ended["status"], "crashed", "{ended}");
    assert_eq!(ended["exit_code"], 3);
    assert_eq!(ended["reason"], "exit code 3");
}

#[tokio::test]
async fn an_uncaught_exception_is_the_crash_reason() {
    let server = start(&temp_home(), &[]).await;
    let id = id_of(&server.launch(&["python3", "-c", "def f():\n    return 1 / 0\nf()"]).await);
    let ended = server.wait_ended(&id).await;
    assert_eq!(ended["status"], "crashed", "{ended}");
    assert_eq!(ended["exit_code"], 1);
    assert_eq!(ended["reason"], "ZeroDivisionError: division by zero");
    let stderr = server.texts(&id, "stderr").await;
    assert_eq!(stderr.first().map(String::as_str), Some("Traceback (most recent call last):"));
}

#[tokio::test]
async fn a_process_killed_by_a_signal_is_named_by_the_signal() {
    let server = start(&temp_home(), &[]).await;
    let kill = |signal: &str| format!("import os, signal; os.kill(os.getpid(), signal.{signal})");
    let killed = id_of(&server.launch(&["python3", "-c", &kill("SIGKILL")]).await);
    let segv = id_of(&server.launch(&["python3", "-c", &kill("SIGSEGV")]).await);
    let killed = server.wait_ended(&killed).await;
    assert_eq!((&killed["status"], &killed["signal"]), (&json!("killed"), &json!("SIGKILL")), "{killed}");
    assert_eq!(killed["reason"], "killed by SIGKILL");
    let segv = server.wait_ended(&segv).await;
    assert_eq!((&segv["status"], &segv["reason"]), (&json!("crashed"), &json!("killed by SIGSEGV")), "{segv}");
}

#[tokio::test]
async fn each_stream_keeps_its_order_and_pages_from_next() {
    let server = start(&temp_home(), &[]).await;
    let program = "import sys\nfor i in range(3000):\n    print(i)\n    print('e%d' % i, file=sys.stderr)";
    let id = id_of(&server.launch(&["python3", "-c", program]).await);
    server.wait_ended(&id).await;
    let expected: Vec<String> = (0..3000).map(|i| i.to_string()).collect();
    // Read back in pages of 1,000 from `next`.
    let mut from = 0;
    let mut stdout = vec![];
    let mut seqs = vec![];
    loop {
        let (_, page) = server.get(&format!("/api/processes/{id}/output?stream=stdout&from={from}&limit=1000")).await;
        let lines = page["lines"].as_array().unwrap().clone();
        if lines.is_empty() {
            break;
        }
        for line in &lines {
            assert_eq!(line["stream"], "stdout");
            stdout.push(line["text"].as_str().unwrap().to_string());
            seqs.push(line["seq"].as_u64().unwrap());
        }
        from = page["next"].as_u64().unwrap();
    }
    assert_eq!(stdout, expected);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    let stderr = server.texts(&id, "stderr").await;
    assert_eq!(stderr, (0..3000).map(|i| format!("e{i}")).collect::<Vec<_>>());
    // Both streams at once: merged in seq order.
    let (_, both) = server.get(&format!("/api/processes/{id}/output?limit=10000")).await;
    let all: Vec<u64> = both["lines"].as_array().unwrap().iter().map(|l| l["seq"].as_u64().unwrap()).collect();
    assert_eq!(all.len(), 6000);
    assert!(all.windows(2).all(|w| w[0] < w[1]));
}

#[tokio::test]
async fn output_over_the_limit_drops_the_oldest_lines_and_counts_them() {
    let server = start(&temp_home(), &["--output-limit", "10000"]).await;
    // 2,000 lines of 10 bytes (9 + newline): 20,000 bytes, twice the limit.
    let id = id_of(&server.launch(&["python3", "-c", "for i in range(2000): print('%09d' % i)"]).await);
    server.wait_ended(&id).await;
    let (_, page) = server.get(&format!("/api/processes/{id}/output?stream=stdout&limit=10000")).await;
    let texts: Vec<&str> = page["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(texts.len(), 1000, "the newest 10,000 bytes are kept");
    assert_eq!(texts.last(), Some(&"000001999"));
    assert_eq!(texts.first(), Some(&"000001000"));
    assert_eq!(page["dropped"], 1000);
    let (_, process) = server.get(&format!("/api/processes/{id}")).await;
    assert_eq!(process["stdout"]["dropped"], 1000);
    assert_eq!(process["stdout"]["lines"], 2000);
}

#[tokio::test]
async fn stop_terminates_then_the_record_can_be_forgotten() {
    let server = start(&temp_home(), &[]).await;
    let id = id_of(&server.launch(&["python3", "-c", "import time; print('up', flush=True); time.sleep(60)"]).await);
    server.wait_for(&id, "printed", |p| p["stdout"]["lines"] == 1).await;
    let (status, body) = server.send(reqwest::Method::DELETE, &format!("/api/processes/{id}"), None).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("process_running")));
    let (status, body) = server.send(reqwest::Method::POST, &format!("/api/processes/{id}/stop"), None).await;
    assert_eq!(status, 200, "{body}");
    let ended = server.wait_ended(&id).await;
    assert_eq!((&ended["status"], &ended["reason"]), (&json!("killed"), &json!("killed by SIGTERM")), "{ended}");
    let (status, _) = server.send(reqwest::Method::POST, &format!("/api/processes/{id}/stop"), None).await;
    assert_eq!(status, 409);
    let (status, _) = server.send(reqwest::Method::DELETE, &format!("/api/processes/{id}"), None).await;
    assert_eq!(status, 200);
    let (status, body) = server.get(&format!("/api/processes/{id}")).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("process_not_found")));
}

#[tokio::test]
async fn stop_kills_a_process_that_ignores_sigterm_after_two_seconds() {
    let server = start(&temp_home(), &[]).await;
    let program = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(60)";
    let id = id_of(&server.launch(&["python3", "-c", program]).await);
    server.wait_for(&id, "ready", |p| p["stdout"]["lines"] == 1).await;
    let asked = Instant::now();
    server.send(reqwest::Method::POST, &format!("/api/processes/{id}/stop"), None).await;
    let ended = server.wait_ended(&id).await;
    assert_eq!(ended["signal"], "SIGKILL", "{ended}");
    assert!(asked.elapsed() >= Duration::from_millis(1900), "{:?}", asked.elapsed());
}

#[tokio::test]
async fn launch_errors_are_4xx_naming_the_problem() {
    let server = start(&temp_home(), &[]).await;
    let post = |body: Value| server.send(reqwest::Method::POST, "/api/processes", Some(body));
    for (body, code) in [
        (json!({}), "missing_command"),
        (json!({"command": []}), "missing_command"),
        (json!({"command": [""]}), "empty_command"),
        (json!({"command": ["true"], "cwd": "/no/such/directory"}), "cwd_not_found"),
        (json!({"command": ["true"], "env": {"A=B": "1"}}), "invalid_env"),
        (json!({"command": "python3 app.py"}), "invalid_json"),
        (json!({"command": ["no-such-program-breakroom"]}), "command_not_found"),
    ] {
        let (status, reply) = post(body.clone()).await;
        assert_eq!((status, reply["error"].as_str()), (400, Some(code)), "{body} -> {reply}");
        assert!(reply["message"].as_str().is_some_and(|m| !m.is_empty() && m != code), "{reply}");
    }
    let (_, reply) = post(json!({"command": ["true"], "cwd": "/no/such/directory"})).await;
    assert!(reply["message"].as_str().unwrap().contains("/no/such/directory"), "{reply}");
    // The program the OS refused leaves a crashed record with the OS error.
    let (_, list) = server.get("/api/processes").await;
    let failed = &list["processes"].as_array().unwrap()[0];
    assert_eq!(failed["status"], "crashed", "{list}");
    assert!(failed["reason"].as_str().unwrap().contains("No such file or directory"), "{failed}");
    assert_eq!(list["processes"].as_array().unwrap().len(), 1, "refused requests leave no record");
}

#[tokio::test]
async fn finished_processes_leave_the_list_on_schedule_and_history_is_pruned() {
    let server = start(&temp_home(), &["--retain-clean", "1", "--retain-crash", "4", "--keep-processes", "3"]).await;
    let clean = id_of(&server.launch(&["true"]).await);
    let crash = id_of(&server.launch(&["false"]).await);
    server.wait_ended(&clean).await;
    let crashed = server.wait_ended(&crash).await;
    let leaves = crashed["leaves_list_at"].as_f64().unwrap() - crashed["ended_at"].as_f64().unwrap();
    assert!((leaves - 4.0).abs() < 1e-6, "{crashed}");
    let listed = |list: &Value| -> Vec<String> {
        list["processes"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_string()).collect()
    };
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (_, active) = server.get("/api/processes").await;
    assert_eq!(listed(&active), vec![crash.clone()], "the clean exit left after 1 s, the crash stays");
    let (_, all) = server.get("/api/processes?all=true").await;
    assert_eq!(listed(&all), vec![clean.clone(), crash.clone()], "both stay in history");
    // A running process is never pruned; the oldest finished one goes first.
    let sleeper = id_of(&server.launch(&["sleep", "30"]).await);
    let newest = id_of(&server.launch(&["true"]).await);
    let (_, all) = server.get("/api/processes?all=1").await;
    assert_eq!(listed(&all), vec![crash, sleeper.clone(), newest]);
    server.send(reqwest::Method::POST, &format!("/api/processes/{sleeper}/stop"), None).await;
}

#[tokio::test]
async fn the_live_stream_says_when_a_finished_process_leaves_the_list() {
    let server = start(&temp_home(), &["--retain-clean", "1"]).await;
    let mut live = reqwest::get(format!("{}/api/live", server.base)).await.unwrap();
    let id = id_of(&server.launch(&["true"]).await);
    let mut seen = String::new();
    let wanted = format!(r#""type":"process_left_list","process_id":"{id}""#);
    let found = tokio::time::timeout(Duration::from_secs(15), async {
        while let Ok(Some(chunk)) = live.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains(&wanted) {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "no process_left_list for {id} in: {seen}");
    let (_, active) = server.get("/api/processes").await;
    assert_eq!(active["processes"], json!([]), "it left the active list");
}

#[tokio::test]
async fn a_process_running_when_the_server_stops_comes_back_lost() {
    let home = temp_home();
    let mut server = start(&home, &[]).await;
    let id = id_of(&server.launch(&["python3", "-c", "import time; print('up', flush=True); time.sleep(30)"]).await);
    server.wait_for(&id, "printed", |p| p["stdout"]["lines"] == 1).await;
    // The count goes up when the line is read; it is stored by the writer's next batch. Reading
    // the output waits for that batch, so the kill below cannot land between the two.
    assert_eq!(server.texts(&id, "stdout").await, vec!["up"]);
    let pid = server.get(&format!("/api/processes/{id}")).await.1["pid"].as_i64().unwrap();
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let server = start(&home, &[]).await;
    let (_, process) = server.get(&format!("/api/processes/{id}")).await;
    assert_eq!(process["status"], "lost", "{process}");
    assert_eq!(process["reason"], "server restarted while it was running");
    assert_eq!(server.texts(&id, "stdout").await, vec!["up"], "its output survived");
    // The process still runs, in its own group: end it (never a group below 2).
    if let Ok(pgid) = i32::try_from(pid) {
        if pgid > 1 {
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// A Python program that pauses at `breakpoint()` (PYTHONBREAKPOINT=breakroom.set_trace).
const PAUSES: &str = "import time\nx = 41\nbreakpoint()\nprint('resumed', flush=True)\ntime.sleep(30)";

async fn wait_paused(server: &BinaryServer) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, paused) = server.get("/api/paused").await;
        if let Some(first) = paused["paused"].as_array().and_then(|a| a.first()) {
            return first.clone();
        }
        if Instant::now() >= deadline {
            // What the programs said (a client that found no server says so on stderr, then runs
            // on without pausing), for the failure to name its cause.
            let (_, list) = server.get("/api/processes?all=1").await;
            let mut said = vec![];
            for process in list["processes"].as_array().into_iter().flatten() {
                let id = process["id"].as_str().unwrap_or_default();
                said.push(format!("{process}\nstderr: {:?}", server.texts(id, "stderr").await));
            }
            panic!("no pause arrived: {paused}\n{}", said.join("\n"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_launched_process_links_its_pause_and_its_exit_closes_it() {
    let server = start(&temp_home(), &[]).await;
    let id = id_of(&server.launch(&["python3", "-c", PAUSES]).await);
    wait_paused(&server).await;
    let detail = server.wait_for(&id, "paused", |p| p["status"] == "paused").await;
    let pause_id = detail["pauses"][0]["pause_id"].as_str().unwrap().to_string();
    assert!(detail["process_key"].as_str().is_some(), "{detail}");
    let (status, session) =
        server.send(reqwest::Method::POST, "/api/repl/start", Some(json!({"pause_id": pause_id}))).await;
    assert_eq!(status, 200, "{session}");
    server.send(reqwest::Method::POST, &format!("/api/processes/{id}/stop"), None).await;
    let ended = server.wait_ended(&id).await;
    assert_eq!(ended["pauses"][0]["resumed_reason"], "process killed by SIGTERM", "{ended}");
    assert_eq!(ended["sessions"][0]["closed_reason"], "process killed by SIGTERM", "{ended}");
    let (_, paused) = server.get("/api/paused").await;
    assert_eq!(paused["paused"].as_array().map(Vec::len), Some(0), "{paused}");
}

#[tokio::test]
async fn a_connected_client_that_dies_closes_its_pause_within_five_seconds() {
    let server = start(&temp_home(), &[]).await;
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("../client");
    let mut program = Command::new("python3")
        .args(["-c", PAUSES])
        .env("PYTHONPATH", client)
        .env("BREAKROOM_URL", &server.base)
        .env("PYTHONBREAKPOINT", "breakroom.set_trace")
        .env_remove("BREAKROOM_PROCESS_ID")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pause = wait_paused(&server).await;
    let pause_id = pause["id"].as_str().unwrap().to_string();
    let (_, list) = server.get("/api/processes").await;
    let record = list["processes"].as_array().unwrap().iter().find(|p| p["pid"] == program.id()).cloned();
    let record = record.unwrap_or_else(|| panic!("the client's process is listed: {list}"));
    assert_eq!((&record["origin"], &record["status"]), (&json!("connected"), &json!("paused")), "{record}");
    program.kill().unwrap();
    program.wait().unwrap();
    let killed = Instant::now();
    let id = id_of(&record);
    let ended = server.wait_ended(&id).await;
    assert!(killed.elapsed() < Duration::from_secs(5), "{:?}", killed.elapsed());
    assert_eq!(ended["status"], "lost");
    assert_eq!(ended["pauses"][0]["pause_id"], json!(pause_id));
    assert_eq!(ended["pauses"][0]["resumed_reason"], format!("process {} ended", record["pid"]));
}

#[tokio::test]
async fn a_cideldill_client_on_this_host_that_dies_closes_its_pause_too() {
    // cideldill clients report no host name: connecting over loopback with a pid alive here is
    // what places them on this host.
    let server = start(&temp_home(), &[]).await;
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("../client/tests/cideldill_driver.py");
    let mut program = Command::new("python3")
        .arg(&driver)
        .args([server.base.as_str(), "lookup_order"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pause = wait_paused(&server).await;
    let (_, list) = server.get("/api/processes").await;
    let record = list["processes"].as_array().unwrap().iter().find(|p| p["pid"] == program.id()).cloned();
    let record = record.unwrap_or_else(|| panic!("the client's process is listed: {list}"));
    program.kill().unwrap();
    program.wait().unwrap();
    let killed = Instant::now();
    let ended = server.wait_ended(&id_of(&record)).await;
    assert!(killed.elapsed() < Duration::from_secs(5), "{:?}", killed.elapsed());
    assert_eq!(ended["status"], "lost");
    assert_eq!(ended["pauses"][0]["pause_id"], pause["id"]);
    let (_, paused) = server.get("/api/paused").await;
    assert_eq!(paused["paused"], json!([]), "the pause is no longer listed: {paused}");
}

/// Runs the `breakroom` command line against `server`.
fn cli(server: &BinaryServer, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("CIDELDILL_HOME", &server.home)
        .env_remove("BREAKROOM_URL")
        .output()
        .expect("run breakroom")
}

#[tokio::test]
async fn breakroom_run_streams_output_and_exits_with_the_process_code() {
    let server = start(&temp_home(), &[]).await;
    let program = "import sys\nfor i in range(500): print(i)\nprint('oops', file=sys.stderr)\nsys.exit(4)";
    let output = tokio::task::spawn_blocking({
        let (home, base) = (server.home.clone(), server.base.clone());
        move || {
            Command::new(BIN)
                .args(["run", "--name", "counter", "--", "python3", "-c", program])
                .env("CIDELDILL_HOME", &home)
                .env_remove("BREAKROOM_URL")
                .output()
                .map(|o| (o, base))
        }
    })
    .await
    .unwrap()
    .unwrap()
    .0;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert_eq!(stdout.lines().collect::<Vec<_>>(), (0..500).map(|i| i.to_string()).collect::<Vec<_>>());
    assert!(stderr.contains("oops"), "{stderr}");
    assert!(stderr.contains(&format!("{}/process/", server.base)), "prints the page: {stderr}");

    let ps = cli(&server, &["ps"]);
    let listing = String::from_utf8_lossy(&ps.stdout);
    assert!(listing.contains("counter") && listing.contains("crashed") && listing.contains("exit code 4"), "{listing}");
    let id = listing.lines().nth(1).and_then(|l| l.split_whitespace().next()).unwrap().to_string();
    let logs = cli(&server, &["logs", &id]);
    assert_eq!(String::from_utf8_lossy(&logs.stdout).lines().count(), 500);
    let logs = cli(&server, &["logs", &id, "--stderr"]);
    assert_eq!(String::from_utf8_lossy(&logs.stderr).trim(), "oops", "stderr lines go to stderr");
    let missing = cli(&server, &["stop", "nosuchid"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no tracked process"));
}

#[tokio::test]
async fn a_launched_process_imports_the_shipped_client_and_knows_its_server() {
    let server = start(&temp_home(), &[]).await;
    let program = "import os, breakroom\nprint(os.environ['BREAKROOM_URL'])\nprint(os.environ['BREAKROOM_PROCESS_ID'])\nprint(os.environ['PYTHONBREAKPOINT'])";
    let id = id_of(&server.launch(&["python3", "-c", program]).await);
    let ended = server.wait_ended(&id).await;
    assert_eq!(ended["status"], "exited", "{:?}", server.texts(&id, "stderr").await);
    assert_eq!(server.texts(&id, "stdout").await, vec![server.base.clone(), id.clone(), "breakroom.set_trace".into()]);
}
