//! Runtime commands over HTTP against the real `breakroom` binary: the first command of a
//! workspace (which starts its bash or Python process) and later commands, p50/p99, for bash
//! and Python; and the resident memory of a workspace's processes.
//!
//!     cargo bench -p breakroom --bench runtime_exec
//!
//! Prints figures; it asserts nothing (goals: later commands p50 ≤ 5 ms, first ≤ 150 ms).

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{rss_mb, Server};

const FIRSTS: usize = 20;
const LATER: usize = 1_000;

/// A server allowing more workspaces than the first-command runs open.
fn start_server() -> Server {
    let home = support::bench_home("runtime");
    support::start_server_in(&home, &["--runtime-max", "100"])
}

async fn exec(http: &reqwest::Client, base: &str, ws: &str, language: &str, command: &str) -> (Duration, Value) {
    let started = Instant::now();
    let reply: Value = http
        .post(format!("{base}/api/runtimes/{ws}/exec"))
        .json(&json!({"command": command, "language": language}))
        .send()
        .await
        .expect("exec")
        .json()
        .await
        .expect("json");
    let took = started.elapsed();
    assert_eq!(reply["success"], true, "{reply}");
    (took, reply)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| ms(samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)]);
    println!(
        "{name:<28} n={:<5} p50 {:>7.2} ms   p99 {:>7.2} ms   max {:>7.2} ms",
        samples.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

#[tokio::main]
async fn main() {
    let http = reqwest::Client::new();
    // A server starts a spare of each language: the first command it ever runs, a second
    // after it started, takes one.
    for (language, command) in [("bash", "true"), ("python", "None")] {
        let mut firsts = vec![];
        for _ in 0..5 {
            let server = start_server();
            tokio::time::sleep(Duration::from_secs(1)).await;
            firsts.push(exec(&http, &server.base, "first", language, command).await.0);
        }
        summary(&format!("{language}: a server's first command, 1 s after it started"), firsts);
    }
    let server = start_server();
    let base = server.base.clone();
    for (language, first_cmd, later_cmd) in [
        ("bash", "echo started", "X=$((X+1)); echo $X"),
        ("python", "print('started')", "x = globals().get('x', 0) + 1\nx"),
    ] {
        // Back to back, each new workspace starts its own process (the spare is still starting);
        // spaced out, each takes the spare started after the previous one.
        for (how, pause) in [("no spare", Duration::ZERO), ("spare ready", Duration::from_millis(1500))] {
            let mut firsts = vec![];
            for i in 0..FIRSTS {
                tokio::time::sleep(pause).await;
                let ws = format!("first-{language}-{i}");
                let (took, reply) = exec(&http, &base, &ws, language, first_cmd).await;
                assert_eq!(reply["started"], true);
                firsts.push(took);
                let _ = http.delete(format!("{base}/api/runtimes/{ws}")).send().await;
            }
            summary(&format!("{language}: first ({how})"), firsts);
        }
        let ws = format!("later-{language}");
        exec(&http, &base, &ws, language, first_cmd).await;
        let mut later = vec![];
        for _ in 0..LATER {
            later.push(exec(&http, &base, &ws, language, later_cmd).await.0);
        }
        summary(&format!("{language}: later commands"), later);
    }
    // One workspace with both processes started, as a user's workspace has them.
    exec(&http, &base, "rss", "bash", "true").await;
    exec(&http, &base, "rss", "python", "None").await;
    let list: Value = http.get(format!("{base}/api/runtimes")).send().await.expect("list").json().await.expect("json");
    let ws = list["workspaces"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|w| w["workspace"] == "rss")
        .cloned()
        .unwrap_or_default();
    let bash = ws["bash_pid"].as_i64().map(rss_mb).unwrap_or(0.0);
    let python = ws["python_pid"].as_i64().map(rss_mb).unwrap_or(0.0);
    println!("RSS per workspace: bash {bash:.1} MB + python {python:.1} MB = {:.1} MB", bash + python);
    println!("server RSS: {:.1} MB", rss_mb(i64::from(server.child.id())));
}
