//! What users and the audit trail cost an eval (issue 48): the eval round trip of
//! `eval_round_trip`, against a server without users, and against one with users, where the
//! caller is a debugger (`Authorization: Bearer`), the paused client a program credential, each
//! eval is checked against both and written to the audit trail. The two servers take turns,
//! three rounds each, so that the machine's drift falls on both.
//!
//!     cargo bench -p breakroom --bench auth_round_trip
//!
//! Prints figures; it asserts nothing (goal: users and audit add at most 0.1 ms to the p50).

#[path = "support/paused.rs"]
mod paused;
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use paused::{pause, post, spawn_client};
use serde_json::json;
use support::{bench_home, rss_mb, start_server_in, Server};

const SAMPLES: usize = 2_000;
const ROUNDS: usize = 3;

fn binary() -> String {
    std::env::var("BREAKROOM_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_breakroom").to_string())
}

/// `breakroom --data-dir HOME/data ARGS`; the token it prints last.
fn add(home: &Path, args: &[&str]) -> String {
    let out = Command::new(binary()).arg("--data-dir").arg(home.join("data")).args(args).output().expect("breakroom");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().lines().last().expect("a token").to_string()
}

fn client(token: Option<&str>) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = token {
        headers.insert(reqwest::header::AUTHORIZATION, format!("Bearer {token}").parse().expect("header"));
    }
    reqwest::Client::builder().default_headers(headers).build().expect("client")
}

struct Setup {
    server: Server,
    caller: reqwest::Client,
    eval_url: String,
}

async fn setup(label: &str, with_users: bool) -> Setup {
    let home = bench_home(&format!("auth-{label}"));
    let (person, program) = if with_users {
        (
            Some(add(&home, &["user", "add", "dan", "--role", "debugger"])),
            Some(add(&home, &["token", "add-program", "bench"])),
        )
    } else {
        (None, None)
    };
    let server = start_server_in(&home, &[]);
    let base = server.base.clone();
    let caller = client(person.as_deref());
    let programs = client(program.as_deref());
    post(&programs, format!("{base}/api/breakpoints"), json!({"function_name": "handler"})).await;
    let pause_id = pause(&programs, &base, 1).await;
    spawn_client(programs, base.clone(), pause_id.clone());
    let session = post(&caller, format!("{base}/api/repl/start"), json!({"pause_id": pause_id})).await;
    let session_id = session["session_id"].as_str().expect("session id").to_string();
    Setup { server, caller, eval_url: format!("{base}/api/repl/{session_id}/eval") }
}

async fn measure(setup: &Setup, times: &mut Vec<Duration>) {
    for _ in 0..100 {
        post(&setup.caller, setup.eval_url.clone(), json!({"expr": "a * b"})).await;
        // warm-up
    }
    for _ in 0..SAMPLES {
        let started = Instant::now();
        let outcome = post(&setup.caller, setup.eval_url.clone(), json!({"expr": "a * b"})).await;
        times.push(started.elapsed());
        assert_eq!(outcome["output"], "42", "{outcome}");
    }
}

fn p50(times: &mut [Duration]) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

fn pct(times: &[Duration], p: f64) -> f64 {
    times[((times.len() as f64 * p) as usize).min(times.len() - 1)].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let open = setup("open", false).await;
    let guarded = setup("users", true).await;
    println!("eval round trip over HTTP, {ROUNDS} rounds x {SAMPLES} evals each, taking turns");
    let (mut without, mut with) = (vec![], vec![]);
    for round in 1..=ROUNDS {
        let (mut a, mut b) = (vec![], vec![]);
        measure(&open, &mut a).await;
        measure(&guarded, &mut b).await;
        println!("round {round}: no users p50={:.3} ms   users + audit p50={:.3} ms", p50(&mut a), p50(&mut b));
        without.extend(a);
        with.extend(b);
    }
    let (a, b) = (p50(&mut without), p50(&mut with));
    println!(
        "all: no users p50={a:.3} ms p99={:.3} ms   users + audit p50={b:.3} ms p99={:.3} ms   difference {:+.3} ms",
        pct(&without, 0.99),
        pct(&with, 0.99),
        b - a
    );
    println!(
        "server RSS after {} evals each: no users {:.1} MB, users + audit {:.1} MB",
        ROUNDS * SAMPLES,
        rss_mb(open.server.child.id()),
        rss_mb(guarded.server.child.id())
    );
}
