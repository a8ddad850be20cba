//! A busy process's call tree (`/call-tree/{process_key}`): how long reading it takes as its
//! calls grow, and how long the debugger's state is held meanwhile (every eval, pause and call of
//! every program waits for it).
//!
//! A process reports requests, each a call with two calls inside it (their stacks say which
//! encloses which, as a client reports them), all completed. For each size it reads the tree as
//! the page does (`pauses().call_tree_page`) with the page's cap (the newest
//! `CALL_TREE_NEWEST` calls), and whole (`?all=1`), and prints the median of `--rounds` reads,
//! with how much of a whole read is done with the state held (reading the calls from the store;
//! the tree is built after it is let go).
//!
//! `cargo bench -p breakroom-debugger --bench call_tree` prints the figures. Options:
//! `--sizes 1000,10000` (calls), `--rounds N`.

use std::time::Instant;

use serde_json::json;

use breakroom_debugger::calls::{CallComplete, CallStart};
use breakroom_debugger::store::Location;
use breakroom_debugger::{Config, Debugger};

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(|| default.into())
}

fn frame(function: &str, line: i64) -> serde_json::Value {
    json!({"filename": "/srv/app.py", "lineno": line, "function": function})
}

/// Reports `calls` calls (a request and the two it makes, in turn) of one process.
fn report(debugger: &Debugger, calls: usize) {
    let stacks = [
        vec![frame("serve", 10)],
        vec![frame("handle", 20), frame("serve", 10)],
        vec![frame("query", 30), frame("handle", 20), frame("serve", 10)],
    ];
    let mut open: Vec<String> = vec![];
    for i in 0..calls {
        let depth = i % 3;
        let start = CallStart {
            method_name: Some(["handle", "query", "render"][depth].into()),
            process_pid: Some(json!(4242)),
            process_start_time: Some(json!(1795331833.75)),
            call_site: Some(json!({"stack_trace": stacks[depth]})),
            ..Default::default()
        };
        let call_id = debugger.calls().start_call(start).expect("start").call_id;
        if depth == 0 {
            for done in open.drain(..).rev() {
                let complete = CallComplete {
                    call_id: Some(done),
                    status: Some("success".into()),
                    process_pid: Some(json!(4242)),
                    process_start_time: Some(json!(1795331833.75)),
                    ..Default::default()
                };
                debugger.calls().complete_call(complete).expect("complete");
            }
        }
        open.push(call_id);
    }
}

fn median_ms(rounds: usize, mut read: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let started = Instant::now();
            read();
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let rounds: usize = arg("--rounds", "9").parse().unwrap_or(9);
    let sizes: Vec<usize> = arg("--sizes", "1000,10000").split(',').filter_map(|s| s.trim().parse().ok()).collect();
    let key = "1795331833.750000+4242";
    println!("calls   | shown (newest) ms | shown nodes | whole ms | whole nodes | reading them, state held, ms");
    for calls in sizes {
        let dir = tempfile::tempdir().expect("temp dir");
        let debugger =
            Debugger::open_location(Config::default(), &Location::Directory(dir.path().into())).expect("open");
        report(&debugger, calls);
        let newest = debugger.pauses().call_tree_page(key, false).expect("tree").expect("a tree");
        let whole = debugger.pauses().call_tree_page(key, true).expect("tree").expect("a tree");
        let newest_ms = median_ms(rounds, || {
            debugger.pauses().call_tree_page(key, false).expect("tree");
        });
        let whole_ms = median_ms(rounds, || {
            debugger.pauses().call_tree_page(key, true).expect("tree");
        });
        // The part of a whole read done with the state held (before, all of it was).
        let held_ms = median_ms(rounds, || {
            debugger.pauses().call_records(key).expect("calls");
        });
        println!(
            "{calls:>7} | {newest_ms:>17.1} | {:>11} | {whole_ms:>8.1} | {:>11} | {held_ms:>28.1}",
            newest.nodes.len(),
            whole.nodes.len()
        );
    }
}
