//! Capturing a launched process's output: pipes read in chunks and split into lines, and one
//! writer thread that stores the lines in batches, off the request path.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt};

use super::store::{ProcessStore, StoredLine};
use super::OutputStream;

/// A line longer than this is cut (a program writing megabytes without a newline).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Splits a byte stream into lines, keeping the unfinished end for the next chunk.
#[derive(Default)]
pub struct LineSplitter {
    partial: Vec<u8>,
}

impl LineSplitter {
    /// Appends the complete lines in `chunk` to `out`, without their `\n` (or `\r\n`).
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<String>) {
        let mut rest = chunk;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.partial.extend_from_slice(&rest[..end]);
            out.push(self.take());
            rest = &rest[end + 1..];
        }
        self.partial.extend_from_slice(rest);
        while self.partial.len() >= MAX_LINE_BYTES {
            let tail = self.partial.split_off(MAX_LINE_BYTES);
            out.push(self.take());
            self.partial = tail;
        }
    }

    /// The last line when the stream ended without a newline.
    pub fn finish(&mut self) -> Option<String> {
        (!self.partial.is_empty()).then(|| self.take())
    }

    fn take(&mut self) -> String {
        if self.partial.last() == Some(&b'\r') {
            self.partial.pop();
        }
        let line = String::from_utf8_lossy(&self.partial).into_owned();
        self.partial.clear();
        line
    }
}

/// Reads `pipe` to its end, handing each chunk's complete lines to `sink` (one call per read,
/// so a fast writer's lines arrive in large batches and a slow one's at once). While
/// `backlogged` says too many lines wait for storage, it stops reading: the pipe fills and the
/// process waits, instead of the server's memory growing.
pub async fn capture(
    mut pipe: impl AsyncRead + Unpin,
    stream: OutputStream,
    sink: impl Fn(OutputStream, Vec<String>),
    backlogged: impl Fn() -> bool,
) {
    let mut splitter = LineSplitter::default();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut lines = vec![];
                splitter.push(&buf[..n], &mut lines);
                if !lines.is_empty() {
                    sink(stream, lines);
                }
                while backlogged() {
                    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                }
            }
        }
    }
    if let Some(last) = splitter.finish() {
        sink(stream, vec![last]);
    }
}

enum Job {
    Lines(Vec<StoredLine>),
    /// Answered once everything sent before it is committed.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// Lines dropped to stay under the limit: (process id, stream, how many).
pub type DroppedReport = Box<dyn Fn(Vec<(String, OutputStream, u64)>) + Send>;

/// The one thread that writes output. Whatever queued while it wrote goes into its next
/// transaction, so the busier the processes, the bigger (and cheaper per line) the batches.
pub struct OutputWriter {
    jobs: mpsc::Sender<Job>,
    /// Lines sent and not yet stored.
    pending: Arc<AtomicUsize>,
}

/// Most lines written in one transaction.
const MAX_BATCH: usize = 50_000;

impl OutputWriter {
    pub fn start(store: Arc<ProcessStore>, limit: u64, on_dropped: DroppedReport) -> Self {
        let (jobs, queue) = mpsc::channel::<Job>();
        let pending = Arc::new(AtomicUsize::new(0));
        let stored = pending.clone();
        let spawned = std::thread::Builder::new().name("breakroom-output".into()).spawn(move || {
            let mut batch: Vec<StoredLine> = vec![];
            let mut flushes = vec![];
            while let Ok(job) = queue.recv() {
                let mut next = Some(job);
                while let Some(job) = next.take() {
                    match job {
                        Job::Lines(lines) => batch.extend(lines),
                        Job::Flush(done) => flushes.push(done),
                    }
                    if batch.len() < MAX_BATCH {
                        next = queue.try_recv().ok();
                    }
                }
                if !batch.is_empty() {
                    match store.append(&batch, limit) {
                        Ok(dropped) if !dropped.is_empty() => on_dropped(dropped),
                        Ok(_) => {}
                        Err(e) => eprintln!("breakroom: process output not stored: {e}"),
                    }
                    stored.fetch_sub(batch.len(), Ordering::Relaxed);
                    batch.clear();
                }
                for done in flushes.drain(..) {
                    let _ = done.send(());
                }
            }
        });
        if let Err(e) = spawned {
            eprintln!("breakroom: cannot start the output writer: {e}");
        }
        OutputWriter { jobs, pending }
    }

    pub fn write(&self, lines: Vec<StoredLine>) {
        self.pending.fetch_add(lines.len(), Ordering::Relaxed);
        if let Err(mpsc::SendError(Job::Lines(lost))) = self.jobs.send(Job::Lines(lines)) {
            self.pending.fetch_sub(lost.len(), Ordering::Relaxed);
        }
    }

    /// Lines waiting to be stored.
    pub fn backlog(&self) -> usize {
        self.pending.load(Ordering::Relaxed)
    }

    /// Waits until every line sent so far is stored.
    pub async fn flush(&self) {
        let (done, stored) = tokio::sync::oneshot::channel();
        if self.jobs.send(Job::Flush(done)).is_ok() {
            let _ = stored.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_across_chunks_come_out_whole() {
        let mut splitter = LineSplitter::default();
        let mut out = vec![];
        splitter.push(b"one\ntw", &mut out);
        splitter.push(b"o\r\nthree", &mut out);
        assert_eq!(out, vec!["one", "two"]);
        assert_eq!(splitter.finish().as_deref(), Some("three"));
        assert_eq!(splitter.finish(), None);
    }

    #[test]
    fn ansi_colours_and_bad_utf8_are_kept_readable() {
        let mut splitter = LineSplitter::default();
        let mut out = vec![];
        splitter.push(b"\x1b[31mred\x1b[0m \xff\n", &mut out);
        assert_eq!(out, vec!["\u{1b}[31mred\u{1b}[0m \u{fffd}"]);
    }
}
