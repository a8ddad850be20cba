//! Eval round trip over HTTP: a browser-side caller posts `/api/repl/{id}/eval`, a scripted
//! paused client takes it with its long-poll and posts the result, the caller gets its answer.
//! Measured against the real `breakroom` binary, alone and with 1,000 other pauses held open
//! (each with a client long-polling), and the server's RSS after each.
//!
//!     cargo bench -p breakroom --bench eval_round_trip
//!
//! Prints figures; it asserts nothing (targets: p50 ≤ 0.5 ms, p99 ≤ 2 ms, RSS ≤ 100 MB).

#[path = "support/paused.rs"]
mod paused;
mod support;

use std::time::{Duration, Instant};

use paused::{pause, post, spawn_client};
use serde_json::json;
use support::rss_mb;

const SAMPLES: usize = 2_000;
const HELD_PAUSES: usize = 1_000;

async fn measure(http: &reqwest::Client, base: &str, session_id: &str) -> Vec<Duration> {
    let url = format!("{base}/api/repl/{session_id}/eval");
    for _ in 0..100 {
        post(http, url.clone(), json!({"expr": "a * b"})).await; // warm-up
    }
    let mut times = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let started = Instant::now();
        let outcome = post(http, url.clone(), json!({"expr": "a * b"})).await;
        times.push(started.elapsed());
        assert_eq!(outcome["output"], "42", "{outcome}");
    }
    times.sort();
    times
}

fn report(label: &str, times: &[Duration], rss: f64) {
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)].as_secs_f64() * 1000.0;
    println!(
        "{label:<34} n={:<5} p50={:.3} ms  p90={:.3} ms  p99={:.3} ms  max={:.3} ms  server RSS={rss:.1} MB",
        times.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0)
    );
}

#[tokio::main]
async fn main() {
    let server = support::start_server_in(&support::bench_home("eval"), &[]);
    let base = server.base.clone();
    let pid = server.child.id();
    let caller = reqwest::Client::new();
    let clients = reqwest::Client::builder().pool_max_idle_per_host(HELD_PAUSES + 10).build().expect("client");

    post(&caller, format!("{base}/api/breakpoints"), json!({"function_name": "handler"})).await;
    let pause_id = pause(&caller, &base, 1).await;
    spawn_client(clients.clone(), base.clone(), pause_id.clone());
    let session = post(&caller, format!("{base}/api/repl/start"), json!({"pause_id": pause_id})).await;
    let session_id = session["session_id"].as_str().expect("session id").to_string();
    println!("eval round trip over HTTP, {SAMPLES} evals each, release server at {base}");
    report("1 pause", &measure(&caller, &base, &session_id).await, rss_mb(pid));

    for i in 0..HELD_PAUSES {
        let other = pause(&caller, &base, 10_000 + i as u32).await;
        spawn_client(clients.clone(), base.clone(), other);
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // let every client's poll arrive
    report(
        &format!("with {HELD_PAUSES} more pauses held open"),
        &measure(&caller, &base, &session_id).await,
        rss_mb(pid),
    );
}
