//! A memory budget. The binary counts the heap bytes it holds ([`Counting`]
//! is its global allocator), and the long searches (the product of threads,
//! the rf search, the constructs) stop with a named limit once the count
//! passes the budget (`--max-memory`), well before the allocator would fail
//! and abort the process. The library alone counts nothing (a library
//! chooses no allocator), so its budget never trips.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// The heap every call is forwarded to: mimalloc, whose small-object
/// allocation the cat evaluator's many short-lived relations need (glibc's
/// malloc and free were a seventh of the transformation table's time).
static HEAP: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Bytes held, as the threads have shared them: signed, since one thread
/// may share a free of bytes another has not yet shared the allocation of.
static LIVE: AtomicIsize = AtomicIsize::new(0);
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// How far a thread's own tally may drift before it is added to the
/// shared count. Every allocation updating one shared atomic made the two
/// threads that decide a table's rows fight over its cache line: half of
/// their time went to the counter (`perf` on `transformations`). With a
/// tally per thread the count lags the truth by less than this per
/// thread, a rounding far below the budget's unit (a megabyte) times the
/// few threads a search runs.
const BATCH: isize = 1 << 16;

thread_local! {
    /// Bytes this thread allocated less bytes it freed, not yet shared.
    static TALLY: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

/// Adds `n` bytes (negative: frees) to this thread's tally, and the tally
/// to the shared count once it passes `BATCH` either way.
fn change(n: isize) {
    let shared = TALLY
        .try_with(|t| {
            let now = t.get() + n;
            if now.abs() < BATCH {
                t.set(now);
                None
            } else {
                t.set(0);
                Some(now)
            }
        })
        .unwrap_or(Some(n));
    if let Some(d) = shared {
        let now = held(LIVE.fetch_add(d, Ordering::Relaxed).saturating_add(d));
        // A read first: most changes do not raise the peak, and a read
        // leaves the line shared between the threads that decide in parallel.
        if now > PEAK.load(Ordering::Relaxed) {
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
    }
}

/// A shared count as bytes held (never below zero).
fn held(live: isize) -> usize {
    live.max(0).unsigned_abs()
}

/// The heap (`HEAP`), counting the bytes it has handed out and not had back.
pub struct Counting;

// SAFETY: every call is forwarded to `HEAP` unchanged; the counter is
// only arithmetic on the side (a thread-local `Cell` with a constant
// initialiser and no destructor, which never allocates).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = HEAP.alloc(layout);
        if !p.is_null() {
            change(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = HEAP.alloc_zeroed(layout);
        if !p.is_null() {
            change(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HEAP.dealloc(ptr, layout);
        change(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = HEAP.realloc(ptr, layout, new_size);
        if !p.is_null() {
            change(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// The most heap held at once since the start or the last `reset_peak`
/// (0 where the allocator is not `Counting`, as in the library's tests).
pub fn peak_bytes() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Starts a new peak from the bytes held now (one test after another).
pub fn reset_peak() {
    PEAK.store(held(LIVE.load(Ordering::Relaxed)), Ordering::Relaxed);
}

/// Sets the budget in megabytes (`--max-memory`).
pub fn set_budget_mb(mb: usize) {
    BUDGET.store(mb.saturating_mul(1 << 20), Ordering::Relaxed);
}

/// The budget in megabytes, as `--max-memory` would give it.
pub fn budget_mb() -> usize {
    BUDGET.load(Ordering::Relaxed) >> 20
}

/// The budget's limit text, once the bytes held pass it.
pub fn over_budget() -> Option<String> {
    let budget = BUDGET.load(Ordering::Relaxed);
    (held(LIVE.load(Ordering::Relaxed)) > budget).then(|| format!("--max-memory {}", budget >> 20))
}

/// The default budget: three quarters of the machine's memory where Linux
/// says how much that is, else 8 GB; and under a `ulimit -v` or `-d`, half
/// of that limit, so a search stops at the budget (Unknown, the limit named)
/// before an allocation fails and aborts the process. Half, because the
/// limit also covers code, thread stacks and the allocator's own arenas,
/// which the budget does not count.
pub fn default_budget_mb() -> usize {
    let total_kb = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<usize>().ok())
    });
    let machine = total_kb.map_or(8 << 10, |kb| kb / 1024 * 3 / 4);
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    match process_limit_mb(&limits) {
        Some(mb) => machine.min(mb / 2),
        None => machine,
    }
}

/// The smaller of the address-space and data limits in
/// `/proc/self/limits`' text, in megabytes; `None` when both are unlimited.
pub fn process_limit_mb(limits: &str) -> Option<usize> {
    limits
        .lines()
        .filter(|l| l.starts_with("Max address space") || l.starts_with("Max data size"))
        .filter_map(|l| {
            // "Max address space   <soft>   <hard>   bytes": the soft limit.
            let soft = l.split_whitespace().rev().nth(2)?;
            soft.parse::<usize>().ok()
        })
        .min()
        .map(|bytes| bytes >> 20)
}

#[cfg(test)]
mod tests {
    use super::process_limit_mb;

    #[test]
    fn a_ulimit_in_proc_self_limits_bounds_the_budget() {
        let unlimited = "Max data size             unlimited            unlimited            bytes     \nMax address space         unlimited            unlimited            bytes     \n";
        assert_eq!(process_limit_mb(unlimited), None);
        let limited = "Max data size             unlimited            unlimited            bytes     \nMax address space         4096000000           4096000000           bytes     \n";
        assert_eq!(process_limit_mb(limited), Some(3906));
    }
}
