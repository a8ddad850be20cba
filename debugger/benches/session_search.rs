//! History on disk, not in memory: `/repls` search and the server's memory as history grows.
//!
//! Writes two data directories of closed REPL sessions, 50 entries each: a small one (100
//! sessions, 5,000 entries) and a large one (10,000 sessions, 500,000 entries). For each, a fresh
//! process opens it as the server does (`Debugger::open`) and reports the time that took and its
//! RSS, then its RSS again after a search. Then it times the first page of results for several
//! search terms on the large one, as the server computes it (`Debugger::session_summaries`, what
//! the page and `/api/repl/sessions` call).
//!
//! `cargo bench -p breakroom-debugger --bench session_search` prints the figures. Options:
//! `--sessions N` (large), `--small-sessions N`, `--entries N`, `--rounds N`. With
//! `-- --postgres` the same runs on two databases of a throwaway PostgreSQL cluster
//! (`store::test_postgres`) on PostgreSQL's default settings, as `breakroom --database-url`
//! keeps them (issue 35); `--hold` then keeps the cluster after the figures, printing the large
//! database's URL, so its plans can be read with `psql` and `EXPLAIN ANALYZE` (Ctrl-C ends it).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use breakroom_debugger::model::{ReplSession, SessionQuery, TranscriptEntry};
use breakroom_debugger::store::{test_postgres, Location, Store};
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

/// The search a measuring process runs before it reports its RSS again.
const MEASURED_SEARCH: &str = "quantity_17";

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
        language: Default::default(),
        transcript: (0..entries)
            .map(|j| TranscriptEntry {
                index: j,
                input: format!("order.items[{j}].price * quantity_{}", (i * 7 + j) % 113),
                output: format!("{}", (i * 31 + j * 17) % 10_007),
                stdout: if j % 10 == 0 { format!("checked customer c{i:05}\n") } else { String::new() },
                is_error: false,
                result_cid: None,
                timestamp: started_at + j as f64 * 0.2,
                outputs: vec![],
            })
            .collect(),
    }
}

/// Writes closed sessions as the server leaves them: transcript entries, then the closed
/// session with its search text.
fn write_history(at: &Location, sessions: usize, entries: usize) {
    if let Location::Directory(dir) = at {
        let _ = std::fs::remove_dir_all(dir);
    }
    let started = Instant::now();
    let store = Store::at(at).expect("open store");
    store.begin().expect("begin");
    for i in 0..sessions {
        let s = session(i, entries, 1_790_000_000.0);
        for e in &s.transcript {
            store.append_entry(&s.session_id, e).expect("entry");
        }
        store.put_closed_session(&s).expect("session");
    }
    store.commit().expect("commit");
    if let Location::Postgres(_) = at {
        // What autovacuum does soon after a bulk load: without statistics the planner scans.
        store.execute_for_tests("ANALYZE", &[]).expect("analyze");
    }
    drop(store);
    let db_mb = match at {
        Location::Directory(dir) => {
            std::fs::metadata(dir.join("breakroom.sqlite3")).map_or(0, |m| m.len()) as f64 / 1e6
        }
        Location::Postgres(_) => f64::NAN,
    };
    println!(
        "history: {sessions} sessions x {entries} entries written in {:.1} s, database {db_mb:.0} MB",
        started.elapsed().as_secs_f64()
    );
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

/// In a fresh process (this bench run again with `--measure DIR`): open, RSS, search, RSS.
fn measure(at: &Location) {
    let started = Instant::now();
    let debugger = Debugger::open_location(Config::default(), at).expect("open debugger");
    let open_s = started.elapsed().as_secs_f64();
    let after_open = rss_mb();
    let query = SessionQuery { search: Some(MEASURED_SEARCH.into()), page: 1, per_page: 50, ..Default::default() };
    let page = debugger.sessions().session_summaries(&query).expect("search");
    // The page a browser would then open: one session with its transcript.
    if let Some(first) = page.sessions.first() {
        debugger.sessions().session(&first.session_id).expect("session").expect("listed session exists");
    }
    println!("{open_s} {after_open} {} {}", rss_mb(), page.total);
}

/// Runs [`measure`] in a child process: (reopen seconds, RSS after open, RSS after search).
fn measure_in_child(at: &Location) -> (f64, f64, f64) {
    let exe = std::env::current_exe().expect("this bench's path");
    let place = match at {
        Location::Directory(dir) => dir.display().to_string(),
        Location::Postgres(url) => url.clone(),
    };
    let out = Command::new(exe).arg("--measure").arg(place).output().expect("run the measuring process");
    let text = String::from_utf8_lossy(&out.stdout);
    let figures: Vec<f64> = text.split_whitespace().filter_map(|v| v.parse().ok()).collect();
    match figures.as_slice() {
        [open_s, after_open, after_search, _total] => (*open_s, *after_open, *after_search),
        _ => panic!("the measuring process said {text:?}, {}", String::from_utf8_lossy(&out.stderr)),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--measure") {
        let place = &args[i + 1];
        let at = if place.starts_with("postgres://") {
            Location::Postgres(place.clone())
        } else {
            Location::Directory(Path::new(place).to_path_buf())
        };
        measure(&at);
        return;
    }
    let postgres = args.iter().any(|a| a == "--postgres");
    let cluster = postgres.then(|| {
        test_postgres::TestCluster::start_with(test_postgres::Durability::Defaults)
            .expect("a throwaway PostgreSQL cluster")
    });
    let (sessions, small, entries, rounds) =
        (arg("--sessions", 10_000), arg("--small-sessions", 100), arg("--entries", 50), arg("--rounds", 200));
    let base = std::env::temp_dir().join(format!("breakroom-search-bench-{}", std::process::id()));
    let (small_dir, large_dir) = match &cluster {
        Some(cluster) => (
            Location::Postgres(cluster.fresh_database().expect("database")),
            Location::Postgres(cluster.fresh_database().expect("database")),
        ),
        None => (Location::Directory(base.join("small")), Location::Directory(base.join("large"))),
    };
    println!("store: {}", if postgres { "PostgreSQL (throwaway cluster on loopback)" } else { "SQLite" });
    write_history(&small_dir, small, entries);
    write_history(&large_dir, sessions, entries);

    println!("server side, each in a fresh process (open the data directory, then search {MEASURED_SEARCH:?}):");
    let mut rss = vec![];
    for (dir, count) in [(&small_dir, small), (&large_dir, sessions)] {
        let (open_s, after_open, after_search) = measure_in_child(dir);
        println!(
            "  {:>9} entries: reopen {open_s:.3} s, RSS after open {after_open:.1} MB, after search {after_search:.1} MB",
            count * entries
        );
        rss.push(after_open.max(after_search));
    }
    if let [small_rss, large_rss] = rss.as_slice() {
        println!("  RSS ratio, large / small: {:.2} (goal <= 1.5)", large_rss / small_rss);
    }

    let debugger = Debugger::open_location(Config::default(), &large_dir).expect("open debugger");
    let searches = [
        ("", "no search (first page)"),
        ("c00042", "rare: one session's stdout"),
        ("apply_disc", "function name: 1 in 10 sessions"),
        ("quantity_17", "input text: ~40% of sessions"),
        ("items", "common: every entry"),
        ("9", "short (under 3 chars): short grams"),
    ];
    println!("first page (50) of /repls over {sessions} sessions x {entries} entries, {rounds} rounds each:");
    for (term, what) in searches {
        let query = SessionQuery { search: Some(term.to_string()), page: 1, per_page: 50, ..Default::default() };
        let mut times = Vec::with_capacity(rounds);
        let mut total = 0;
        for _ in 0..rounds {
            let t = Instant::now();
            let page = debugger.sessions().session_summaries(&query).expect("search");
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
    let _ = std::fs::remove_dir_all(&base);
    if let (Some(_), Location::Postgres(url)) = (&cluster, &large_dir) {
        if args.iter().any(|a| a == "--hold") {
            println!("holding the cluster: {url}");
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
    }
}
