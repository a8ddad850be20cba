//! Output capture under load: a launched Python process prints 1,000,000 lines. Measured against
//! the real `breakroom` binary: lines captured per second (launch to the last line on
//! `/api/live`), the time from `print` to the line arriving on `/api/live`, lines lost (none
//! expected below the limit), the latency of another request during the flood, and the
//! server's RSS during and after.
//!
//!     cargo bench -p breakroom --bench process_output
//!
//! Prints figures; it asserts nothing. Twice: Python unbuffered (one write per line, what a
//! launched process gets by default) and block-buffered (`PYTHONUNBUFFERED` set empty).

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use support::{rss_mb, start_server_in, Server};

const LINES: u64 = 1_000_000;
/// Every this many lines, the program prints its clock, for the print-to-live latency.
const STAMP_EVERY: u64 = 1_000;

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// What the live stream delivered for one process.
#[derive(Default)]
struct Received {
    lines: u64,
    lagged: u64,
    latencies_ms: Vec<f64>,
    last_line_at: Option<Instant>,
    exited: bool,
}

async fn watch_live(base: String, id: Arc<std::sync::Mutex<Option<String>>>, started: Arc<AtomicBool>) -> Received {
    let http = reqwest::Client::new();
    let mut response = http.get(format!("{base}/api/live")).send().await.expect("live");
    started.store(true, Ordering::SeqCst);
    let mut buffer = String::new();
    let mut got = Received::default();
    while let Ok(Some(chunk)) = response.chunk().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let Some(data) = event.lines().find_map(|l| l.strip_prefix("data:")) else { continue };
            let Ok(event) = serde_json::from_str::<Value>(data.trim_start()) else { continue };
            let mine = id.lock().unwrap().clone();
            match event["type"].as_str() {
                Some("lagged") => got.lagged += 1,
                Some("process_output") if Some(event["process_id"].as_str().unwrap_or("")) == mine.as_deref() => {
                    let arrived = now();
                    for line in event["lines"].as_array().into_iter().flatten() {
                        got.lines += 1;
                        let text = line["text"].as_str().unwrap_or("");
                        if let Some((_, stamp)) = text.split_once(' ') {
                            if let Ok(printed) = stamp.parse::<f64>() {
                                got.latencies_ms.push((arrived - printed) * 1000.0);
                            }
                        }
                    }
                    got.last_line_at = Some(Instant::now());
                }
                Some("process_exited") if event["process"]["id"].as_str() == mine.as_deref() => {
                    got.exited = true;
                    return got;
                }
                _ => {}
            }
        }
    }
    got
}

async fn run(label: &str, server: &Server, env: Value) {
    let http = reqwest::Client::new();
    let pid = server.child.id();
    let program = format!(
        "import time\nfor i in range({LINES}):\n    if i % {STAMP_EVERY} == 0:\n        print(i, time.time())\n    else:\n        print(i)\n"
    );
    let id = Arc::new(std::sync::Mutex::new(None));
    let listening = Arc::new(AtomicBool::new(false));
    let watcher = tokio::spawn(watch_live(server.base.clone(), id.clone(), listening.clone()));
    while !listening.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let launched = Instant::now();
    let process: Value = http
        .post(format!("{}/api/processes", server.base))
        .json(&json!({"command": ["python3", "-c", program], "env": env}))
        .send()
        .await
        .expect("launch")
        .json()
        .await
        .expect("json");
    let process_id = process["id"].as_str().expect("an id").to_string();
    *id.lock().unwrap() = Some(process_id.clone());

    // Meanwhile: another request's latency, and the server's RSS.
    let mut peak_rss: f64 = 0.0;
    let mut other_ms = vec![];
    while !watcher.is_finished() {
        peak_rss = peak_rss.max(rss_mb(pid));
        let asked = Instant::now();
        let _ = http.get(format!("{}/api/paused", server.base)).send().await.map(|r| r.status());
        other_ms.push(asked.elapsed().as_secs_f64() * 1000.0);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let got = watcher.await.expect("watcher");
    let elapsed = got.last_line_at.map(|t| t - launched).unwrap_or_default();
    let record: Value = http
        .get(format!("{}/api/processes/{process_id}", server.base))
        .send()
        .await
        .expect("get")
        .json()
        .await
        .expect("json");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after_rss = rss_mb(pid);
    let mut latencies = got.latencies_ms.clone();
    latencies.sort_by(f64::total_cmp);
    other_ms.sort_by(f64::total_cmp);
    println!("{label}");
    println!(
        "  captured {} lines (record: {} lines, {} dropped), {} on /api/live ({} lagged notices), exited={}",
        LINES, record["stdout"]["lines"], record["stdout"]["dropped"], got.lines, got.lagged, got.exited
    );
    println!(
        "  launch to last line on /api/live: {:.2} s = {:.0} lines/s",
        elapsed.as_secs_f64(),
        got.lines as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    println!(
        "  print -> /api/live: n={} p50={:.2} ms p90={:.2} ms p99={:.2} ms max={:.2} ms",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.9),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "  GET /api/paused during the flood: n={} p50={:.2} ms p99={:.2} ms max={:.2} ms",
        other_ms.len(),
        percentile(&other_ms, 0.5),
        percentile(&other_ms, 0.99),
        other_ms.last().copied().unwrap_or(f64::NAN)
    );
    println!("  server RSS: peak during {peak_rss:.1} MB, 2 s after {after_rss:.1} MB");
}

#[tokio::main]
async fn main() {
    let home = support::bench_home("output");
    let server = start_server_in(&home, &[]);
    println!("server RSS at start: {:.1} MB", rss_mb(server.child.id()));
    run("1,000,000 lines, Python unbuffered (one write per line, the default under Breakroom):", &server, json!({}))
        .await;
    run("1,000,000 lines, Python block-buffered (PYTHONUNBUFFERED=\"\"):", &server, json!({"PYTHONUNBUFFERED": ""}))
        .await;
    drop(server);
    let _ = std::fs::remove_dir_all(&home);
}
