//! `/repls` search as history grows: 10,000 REPL sessions of 50 entries each in a data
//! directory, then the first page of results for several search terms, as the server computes
//! it (`Debugger::session_summaries`, what the page and `/api/repl/sessions` call).
//!
//! `cargo bench -p breakroom-debugger --bench session_search` prints the figures. Options:
//! `--sessions N`, `--entries N`, `--rounds N`.

use std::time::{Duration, Instant};

use breakroom_debugger::model::{ReplSession, SessionQuery, TranscriptEntry};
use breakroom_debugger::store::Store;
use breakroom_debugger::{Config, Debugger};

const FUNCTIONS: &[&str] = &[
    "checkout",
    "apply_discount",
    "load_invoice",
    "charge_card",
    "ship_order",
    "refund",
    "reconcile_ledger",
    "send_receipt",
    "compute_tax",
    "validate_address",
];

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn session(i: usize, entries: usize, start: f64) -> ReplSession {
    let function = FUNCTIONS[i % FUNCTIONS.len()];
    let started_at = start + i as f64;
    ReplSession {
        session_id: format!("{}-{started_at:.6}", 1000 + i % 97),
        pause_id: format!("pause-{i}"),
        pid: (1000 + i % 97) as i64,
        started_at,
        closed_at: Some(started_at + 30.0),
        closed_reason: None,
        function_name: function.to_string(),
        call_id: Some(format!("call-{i}")),
        process_key: format!("{}+{start:.6}", 1000 + i % 97),
        args: vec![],
        kwargs: Default::default(),
        pretty_args: vec![],
        pretty_kwargs: Default::default(),
        signature: "(order, discount)".into(),
        transcript: (0..entries)
            .map(|j| TranscriptEntry {
                index: j,
                input: format!("order.items[{j}].price * quantity_{}", (i * 7 + j) % 113),
                output: format!("{}", (i * 31 + j * 17) % 10_007),
                stdout: if j % 10 == 0 { format!("checked customer c{i:05}\n") } else { String::new() },
                is_error: false,
                result_cid: None,
                timestamp: started_at + j as f64 * 0.2,
            })
            .collect(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_string))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let (sessions, entries, rounds) = (arg("--sessions", 10_000), arg("--entries", 50), arg("--rounds", 200));
    let dir = std::env::temp_dir().join(format!("breakroom-search-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);

    let started = Instant::now();
    {
        let store = Store::open(&dir).expect("open store");
        store.begin().expect("begin");
        for i in 0..sessions {
            let s = session(i, entries, 1_790_000_000.0);
            store.put_session(&s).expect("session");
            for e in &s.transcript {
                store.append_entry(&s.session_id, e).expect("entry");
            }
        }
        store.commit().expect("commit");
    }
    let db_mb = std::fs::metadata(dir.join("breakroom.sqlite3")).map_or(0, |m| m.len()) as f64 / 1e6;
    println!(
        "history: {sessions} sessions x {entries} entries written in {:.1} s, database {db_mb:.0} MB",
        started.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    let debugger = Debugger::open(Config::default(), &dir).expect("open debugger");
    println!("restart (open and load): {:.2} s, RSS {:.0} MB", started.elapsed().as_secs_f64(), rss_mb());

    let searches = [
        ("", "no search (first page)"),
        ("c00042", "rare: one session's stdout"),
        ("apply_disc", "function name: 1 in 10 sessions"),
        ("quantity_17", "input text: ~40% of sessions"),
        ("items", "common: every entry"),
        ("9", "short (under 3 chars): scanned"),
    ];
    println!("first page (50) of /repls, {rounds} rounds each:");
    for (term, what) in searches {
        let query = SessionQuery { search: Some(term.to_string()), page: 1, per_page: 50, ..Default::default() };
        let mut times = Vec::with_capacity(rounds);
        let mut total = 0;
        for _ in 0..rounds {
            let t = Instant::now();
            let page = debugger.session_summaries(&query);
            times.push(t.elapsed());
            total = page.total;
        }
        times.sort();
        println!(
            "  {:<32} {:>6} matches  p50 {:>7.2} ms  p99 {:>7.2} ms",
            format!("{term:?} ({what})"),
            total,
            percentile(&times, 0.5),
            percentile(&times, 0.99)
        );
    }
    drop(debugger);
    let _ = std::fs::remove_dir_all(&dir);
}
