//! Stack for deep recursion, reused from run to run.
//!
//! Generated traversals recurse one host frame per tree level, so a run on
//! a 10^6-deep tree needs far more stack than a thread has. The entry point
//! of a generated module asks for `levels × per-level` bytes
//! ([`run_with_stack`]); when the current stack has that much left the run
//! stays on it, otherwise it moves to a *segment*: a lazily committed
//! mapping with a guard page below it.
//!
//! `stacker::grow` would map a fresh segment per call and unmap it after,
//! so every run on a tree of more than a few thousand nodes paid two system
//! calls and a page fault for every stack page its recursion touched (on
//! the render benchmark at 1,000 pages, 84 µs against 15 µs for the same
//! 1,000-deep recursion on a warm stack; see `crates/bench/results`). Here
//! each thread keeps its largest segment between runs, so repeated runs
//! touch pages that are already committed (render at 1,000 pages ran at
//! 1.26x the hand-fused time with a fresh segment per run, 1.10x with the
//! kept one: `crates/bench/results/stack-reuse`). In a segment larger than
//! 256 MiB, pages below the top [`KEEP_COMMITTED`] bytes are handed back to
//! the operating system after a run that reached them (`madvise`), so a
//! deep run does not pin its memory.
//!
//! [`remaining`] knows about these segments; generated code asks it (not
//! `stacker::remaining_stack`, which knows only the segments `stacker`
//! made) how much stack is left.
//!
//! Platforms where the stack cannot be switched here (not Unix, or an
//! architecture other than x86-64 and AArch64) use `stacker::grow` and
//! `stacker::remaining_stack` unchanged.
//!
//! This module holds the toolkit's only `unsafe` code: the system calls
//! that make a segment, its guard page and hand its deep pages back, and
//! the switch onto it with `psm::on_stack`. Each block carries a `SAFETY`
//! comment with its proof.

/// How much stack is left below the current frame, where that can be told.
#[inline]
pub fn remaining() -> Option<usize> {
    imp::remaining()
}

/// Runs `f` with at least `need` bytes of stack: on the current stack when
/// it has that much left, else on this thread's reusable segment (made or
/// enlarged first if it is smaller than `need`). A panic in `f` unwinds to
/// the caller as usual.
#[inline]
pub fn run_with_stack<R>(need: usize, f: impl FnOnce() -> R) -> R {
    match remaining() {
        Some(left) if left >= need => f(),
        _ => imp::on_segment(need, f),
    }
}

/// Runs `f` on a segment of at least `size` bytes even if the current stack
/// has room (for code that measures its own bound from the segment's start).
#[inline(never)]
pub fn grow<R>(size: usize, f: impl FnOnce() -> R) -> R {
    imp::on_segment(size, f)
}

/// Bytes at the top of a kept segment that stay committed between runs
/// (what typical runs touch); the rest is returned to the system.
pub const KEEP_COMMITTED: usize = 8 << 20;

#[cfg(all(unix, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    use super::KEEP_COMMITTED;

    /// Segments up to this size keep every page they committed.
    const KEEP_ALL_BELOW: usize = 256 << 20;
    use std::cell::{Cell, RefCell};

    /// A stack segment: a private anonymous mapping whose lowest page is a
    /// guard (no access), so that running off the end faults instead of
    /// writing into other memory.
    struct Segment {
        /// Start of the mapping (the guard page).
        map: *mut u8,
        /// Length of the mapping, guard included.
        len: usize,
        /// Size of a page.
        page: usize,
    }

    impl Segment {
        /// Maps a segment with at least `size` usable bytes.
        fn new(size: usize) -> Segment {
            // SAFETY: sysconf has no preconditions.
            let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
                p if p > 0 => p as usize,
                _ => 4096,
            };
            let usable = size
                .max(KEEP_COMMITTED)
                .checked_next_multiple_of(page)
                .expect("stack segment size overflows");
            let len = usable
                .checked_add(page)
                .expect("stack segment size overflows");
            // SAFETY: a fresh anonymous private mapping at an address the
            // kernel chooses; it aliases nothing. MAP_NORESERVE: pages are
            // committed only when touched.
            let map = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            assert!(
                map != libc::MAP_FAILED,
                "cannot map a stack segment of {len} bytes: {}",
                std::io::Error::last_os_error()
            );
            // SAFETY: the first page lies inside the mapping just made,
            // which nothing else uses yet.
            let guarded = unsafe { libc::mprotect(map, page, libc::PROT_NONE) };
            let segment = Segment {
                map: map.cast(),
                len,
                page,
            };
            assert!(
                guarded == 0,
                "cannot protect a stack guard page: {}",
                std::io::Error::last_os_error()
            );
            segment
        }

        /// The lowest usable address (just above the guard page).
        fn base(&self) -> usize {
            self.map as usize + self.page
        }

        /// Usable bytes.
        fn usable(&self) -> usize {
            self.len - self.page
        }

        /// Gives every page below the top `KEEP_COMMITTED` bytes back to the
        /// system (the next touch maps a zero page), if the last run went
        /// that deep. Nothing runs on the segment when this is called.
        fn release_deep_pages(&self) {
            let deep = self.usable() - KEEP_COMMITTED.min(self.usable());
            let deep = deep - deep % self.page;
            // A segment of at most `KEEP_ALL_BELOW` bytes is kept as it is
            // (no system call per run): what a run commits is bounded by
            // its depth, and smaller segments serve shallower runs.
            if self.usable() > KEEP_ALL_BELOW
                && deep > 0
                && self.is_resident(self.base() + deep - self.page)
            {
                // SAFETY: [base, base + deep) is inside the mapping, page
                // aligned, and holds no live frame (the segment is idle).
                // MADV_DONTNEED on private anonymous memory only drops its
                // contents.
                unsafe {
                    libc::madvise(self.base() as *mut libc::c_void, deep, libc::MADV_DONTNEED);
                }
            }
        }
    }

    impl Segment {
        /// Whether the page at `addr` (page aligned, inside the segment) is
        /// committed. The stack grows down one page after the other (frames
        /// larger than a page probe every page), so when the highest page of
        /// the deep part is not, no page below it is either, and the run
        /// needs no `madvise` (which would cost more than the check).
        fn is_resident(&self, addr: usize) -> bool {
            let mut state = [0u8; 1];
            // SAFETY: one page inside the mapping; `state` has room for its
            // one status byte.
            let r = unsafe {
                libc::mincore(
                    addr as *mut libc::c_void,
                    self.page,
                    state.as_mut_ptr().cast(),
                )
            };
            // When the kernel cannot tell, release anyway.
            r != 0 || state[0] & 1 == 1
        }
    }

    impl Drop for Segment {
        fn drop(&mut self) {
            // SAFETY: the mapping was made by `Segment::new` with this
            // length and is unmapped once; no frame lives on it (a segment
            // is dropped only while idle: it is out of `SPARE` while used).
            unsafe {
                libc::munmap(self.map.cast(), self.len);
            }
        }
    }

    thread_local! {
        /// This thread's idle segment, kept for the next run. A segment in
        /// use is out of here, so a nested run (a run started from inside
        /// a run) maps its own and never shares one.
        static SPARE: RefCell<Option<Segment>> = const { RefCell::new(None) };
        /// The usable range `(low, high)` of the innermost segment running
        /// on this thread, if any.
        static ACTIVE: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
    }

    pub(super) fn remaining() -> Option<usize> {
        let sp = psm::stack_pointer() as usize;
        match ACTIVE.with(Cell::get) {
            Some((low, high)) if (low..=high).contains(&sp) => Some(sp - low),
            // Not on one of ours (the thread's own stack, or a `stacker`
            // segment that code inside a run made): `stacker` knows.
            _ => stacker::remaining_stack(),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn on_segment<R>(need: usize, f: impl FnOnce() -> R) -> R {
        let segment = SPARE
            .with(|s| s.borrow_mut().take())
            .filter(|s| s.usable() >= need)
            .unwrap_or_else(|| Segment::new(need));
        let range = (segment.base(), segment.base() + segment.usable());
        let outer = ACTIVE.with(|a| a.replace(Some(range)));
        let mut f = Some(f);
        let mut out = None;
        let result = {
            let run = || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if let Some(f) = f.take() {
                        out = Some(f());
                    }
                }))
            };
            // SAFETY: `psm::on_stack` needs a base aligned for the target
            // (page aligned), a size that is a multiple of the stack
            // alignment (whole pages) and fits `isize` (a mapping does), and
            // a callback that does not unwind: `run` catches every panic and
            // returns it as a value. The range is readable and writable,
            // owned by `segment`, which stays alive (and out of `SPARE`, so
            // no nested run can take it) until `on_stack` returns; the guard
            // page below it turns an overflow into a fault.
            unsafe { psm::on_stack(segment.base() as *mut u8, segment.usable(), run) }
        };
        ACTIVE.with(|a| a.set(outer));
        segment.release_deep_pages();
        SPARE.with(|s| {
            let mut spare = s.borrow_mut();
            // Keep the larger of this one and one a nested run left.
            if spare.as_ref().is_none_or(|k| k.usable() < segment.usable()) {
                *spare = Some(segment);
            }
        });
        match result {
            Ok(()) => out.expect("the run stored its result"),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

#[cfg(not(all(unix, any(target_arch = "x86_64", target_arch = "aarch64"))))]
mod imp {
    pub(super) fn remaining() -> Option<usize> {
        stacker::remaining_stack()
    }

    pub(super) fn on_segment<R>(need: usize, f: impl FnOnce() -> R) -> R {
        stacker::grow(need, f)
    }
}

#[cfg(test)]
mod tests {
    use super::{grow, remaining, run_with_stack};

    /// Recursion `depth` frames deep, each holding `FRAME` bytes.
    fn recurse(depth: usize) -> usize {
        const FRAME: usize = 512;
        let buf = std::hint::black_box([depth as u8; FRAME]);
        if depth == 0 {
            return buf[1] as usize;
        }
        recurse(depth - 1) + buf[FRAME - 1] as usize % 2
    }

    #[test]
    fn deep_recursion_runs_on_a_segment_and_the_segment_is_reused() {
        // 200,000 frames of at least 512 bytes: far beyond a test thread's
        // stack.
        let need = 200_000 * 1024;
        let first = run_with_stack(need, || (recurse(200_000), psm::stack_pointer() as usize));
        let second = run_with_stack(need, || (recurse(200_000), psm::stack_pointer() as usize));
        assert_eq!(first.0, 100_000);
        assert_eq!(second.0, 100_000);
        // Same segment, same starting frame address.
        assert_eq!(first.1, second.1);
    }

    #[test]
    fn remaining_is_measured_on_the_segment() {
        let need = 64 << 20;
        let left = run_with_stack(need, || remaining().unwrap_or(0));
        assert!(
            left >= need - (1 << 20) && left <= need + (16 << 20),
            "{left}"
        );
    }

    #[test]
    fn nested_runs_get_their_own_segments() {
        let outer = 32 << 20;
        let (a, b, inner_left) = grow(outer, || {
            let a = psm::stack_pointer() as usize;
            let (b, left) = grow(48 << 20, || (psm::stack_pointer() as usize, remaining()));
            (a, b, left)
        });
        assert!(
            a.abs_diff(b) > 1 << 20,
            "the inner run used the outer segment"
        );
        assert!(inner_left.unwrap_or(0) >= 47 << 20);
        // After both, the larger segment is the spare: a 40 MiB run reuses it.
        let c = grow(40 << 20, || psm::stack_pointer() as usize);
        assert!(c.abs_diff(b) < 1 << 20);
    }

    #[test]
    fn a_panic_unwinds_to_the_caller_and_the_stack_is_usable_after() {
        let caught = std::panic::catch_unwind(|| grow(16 << 20, || panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(grow(16 << 20, || recurse(1000)), 500);
        // Back on the thread's own stack, `remaining` is the thread's.
        assert_eq!(remaining(), stacker::remaining_stack());
    }
}
