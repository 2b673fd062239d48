//! A memory budget. The binary counts the heap bytes it holds ([`Counting`]
//! is its global allocator), and the long searches (the product of threads,
//! the rf search, the constructs) stop with a named limit once the count
//! passes the budget (`--max-memory`), well before the allocator would fail
//! and abort the process. The library alone counts nothing (a library
//! chooses no allocator), so its budget never trips.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Adds `n` bytes to the count and raises the peak.
fn grow(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    // A read first: most allocations do not raise the peak, and a read
    // leaves the line shared between the threads that decide in parallel.
    if now > PEAK.load(Ordering::Relaxed) {
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

/// The system allocator, counting the bytes it has handed out and not had back.
pub struct Counting;

// SAFETY: every call is forwarded to `System` unchanged; the counter is
// only arithmetic on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            grow(new_size);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
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
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
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
    (LIVE.load(Ordering::Relaxed) > budget).then(|| format!("--max-memory {}", budget >> 20))
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
