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

/// The budget's limit text, once the bytes held pass it.
pub fn over_budget() -> Option<String> {
    let budget = BUDGET.load(Ordering::Relaxed);
    (LIVE.load(Ordering::Relaxed) > budget).then(|| format!("--max-memory {}", budget >> 20))
}

/// The default budget: three quarters of the machine's memory where Linux
/// says how much that is, else 8 GB.
pub fn default_budget_mb() -> usize {
    let total_kb = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<usize>().ok())
    });
    total_kb.map_or(8 << 10, |kb| kb / 1024 * 3 / 4)
}
