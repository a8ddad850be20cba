//! The book's rules without processes: the chain a step back walks, the cap, branches.

use super::book::{Book, LineState};
use super::model::CheckpointStatus;

/// A line of process `p` (key `k1`, pid 10) paused at `pause`.
fn paused(book: &mut Book, pause: &str) {
    book.note_pause("p", "k1", 10, pause, None, None, 1.0);
}

fn take_checkpoint(book: &mut Book, pause: &str, pid: i64, cap: usize, label: Option<&str>) -> (String, Vec<i64>) {
    let (cp, dropped) = book.add("p", "k1", pause, "call", "step", pid, label.map(str::to_string), Some(cap), 2.0);
    (cp.id, dropped)
}

#[test]
fn a_step_back_goes_to_the_newest_checkpoint_before_the_pause_then_the_one_before() {
    let mut book = Book::default();
    paused(&mut book, "a");
    assert_eq!(book.before("k1", "a"), None);
    let (cp_a, _) = take_checkpoint(&mut book, "a", 100, 16, None);
    book.pause_closed("a");
    paused(&mut book, "b");
    let (cp_b, _) = take_checkpoint(&mut book, "b", 101, 16, None);
    book.pause_closed("b");
    paused(&mut book, "c");
    assert_eq!(book.before("k1", "c").as_deref(), Some(cp_b.as_str()));
    // A line woken from cp_b pauses "at b" again: back from there is cp_a.
    let _receiver = book.begin_wake(&cp_b, "main", "t1".into()).expect("held");
    book.note_pause("p", "k2", 20, "b2", None, Some("t1"), 3.0);
    assert_eq!(book.before("k2", "b2").as_deref(), Some(cp_a.as_str()));
    assert_eq!(book.live_line("p").map(|(k, _)| k).as_deref(), Some("k2"));
    assert_eq!(book.line("k1").map(|l| l.state), Some(LineState::Kept));
}

#[test]
fn the_cap_drops_the_oldest_unnamed_checkpoint_and_keeps_named_ones() {
    let mut book = Book::default();
    paused(&mut book, "a");
    let (named, _) = take_checkpoint(&mut book, "a", 100, 2, Some("keep me"));
    let (first, _) = take_checkpoint(&mut book, "a", 101, 2, None);
    let (_, none) = take_checkpoint(&mut book, "a", 102, 2, None);
    assert!(none.is_empty());
    let (_, dropped) = take_checkpoint(&mut book, "a", 103, 2, None);
    assert_eq!(dropped, vec![101]);
    assert_eq!(book.checkpoint(&first).map(|c| c.status), Some(CheckpointStatus::Dropped));
    assert_eq!(book.checkpoint(&named).map(|c| c.status), Some(CheckpointStatus::Held));
    assert!(book.held(&first).is_err());
}

#[test]
fn branch_names_are_checked_and_ending_a_process_returns_every_pid_to_kill() {
    let mut book = Book::default();
    paused(&mut book, "a");
    let (cp, _) = take_checkpoint(&mut book, "a", 100, 16, None);
    assert_eq!(book.create_branch("p", None, &cp, 1.0).as_deref(), Ok("branch-1"));
    assert!(book.create_branch("p", Some("branch-1"), &cp, 1.0).is_err());
    assert!(book.create_branch("p", Some("no spaces"), &cp, 1.0).is_err());
    assert!(book.has_branch("p", "main") && book.has_branch("p", "branch-1"));
    assert_eq!(book.end_process("p"), vec![100]);
    assert_eq!(book.checkpoint(&cp).map(|c| c.status), Some(CheckpointStatus::Ended));
}
