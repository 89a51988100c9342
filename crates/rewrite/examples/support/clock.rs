//! Thread CPU time for the benchmark examples (shared with `#[path]`).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::time::Instant;

/// CPU time of the current thread, from `/proc/thread-self/schedstat`
/// (Linux): unlike wall-clock time it does not count the time the thread
/// was preempted, which on a machine shared with other jobs is most of the
/// noise. Falls back to wall-clock time elsewhere.
pub struct Clock {
    schedstat: Option<File>,
    buf: String,
    start: Instant,
}

impl Clock {
    pub fn new() -> Self {
        let mut clock = Clock {
            schedstat: File::open("/proc/thread-self/schedstat").ok(),
            buf: String::new(),
            start: Instant::now(),
        };
        if clock.cpu_ns().is_none() {
            clock.schedstat = None;
        }
        clock
    }

    pub fn is_cpu_time(&self) -> bool {
        self.schedstat.is_some()
    }

    fn cpu_ns(&mut self) -> Option<u64> {
        let f = self.schedstat.as_mut()?;
        f.seek(SeekFrom::Start(0)).ok()?;
        self.buf.clear();
        f.read_to_string(&mut self.buf).ok()?;
        self.buf.split_whitespace().next()?.parse().ok()
    }

    /// Nanoseconds on an arbitrary origin.
    pub fn now(&mut self) -> u64 {
        match self.cpu_ns() {
            Some(ns) => ns,
            None => self.start.elapsed().as_nanos() as u64,
        }
    }
}
