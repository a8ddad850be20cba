//! What a checkpoint process pins: the pages only it holds. A forked checkpoint shares every page
//! with the program until one side writes it; the pages the program changed since stay behind
//! as the checkpoint's private dirty memory (`Private_Dirty` in /proc/PID/smaps_rollup).

/// The checkpoint process's private dirty bytes; None when the process or the file is not there.
pub fn pinned_bytes(pid: i64) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    private_dirty(&text)
}

/// The parent of a process (/proc/PID/stat): a checkpoint a client reports must be its child.
pub fn parent_pid(pid: i64) -> Option<i64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name in parentheses may hold spaces: the fields start after its last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

fn private_dirty(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Private_Dirty:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_private_dirty_kilobytes_as_bytes() {
        let text = "Rss:  100 kB\nPrivate_Clean:  4 kB\nPrivate_Dirty:  12 kB\n";
        assert_eq!(private_dirty(text), Some(12 * 1024));
        assert_eq!(private_dirty("Rss: 1 kB\n"), None);
    }

    #[test]
    fn the_parent_of_a_child_is_this_process() {
        let mut child = std::process::Command::new("sleep").arg("5").spawn().expect("spawn sleep");
        assert_eq!(parent_pid(child.id() as i64), Some(std::process::id() as i64));
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn this_process_pins_some_memory() {
        assert!(pinned_bytes(std::process::id() as i64).is_some_and(|b| b > 0));
    }
}
