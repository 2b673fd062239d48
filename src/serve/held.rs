//! The states of the latest decisions, held so that the page can fetch them
//! a page at a time (`POST /api/states`) without deciding again. A test may
//! have hundreds of thousands of states: one response carrying them all
//! froze the page, so `decide` answers with the first page and an id.
//!
//! Each state is held as its JSON text (a few hundred bytes), and the store
//! forgets the oldest decisions past `MAX_HELD` of them or `MAX_HELD_STATES`
//! states in all, so it stays within a bounded memory whatever is asked.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::Value;

use crate::report::StateCount;

/// Decisions held at most, and states held at most over all of them.
pub const MAX_HELD: usize = 8;
pub const MAX_HELD_STATES: usize = 160_000;

/// The states of recent decisions, by id; shared by the server's requests.
#[derive(Default)]
pub struct Held {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    kept: VecDeque<Kept>,
    states: usize,
}

struct Kept {
    id: u64,
    rows: Vec<Box<str>>,
}

/// One page of a decision's states.
pub struct Page {
    pub states: Vec<Value>,
    /// Every state of the decision, on this page or not.
    pub total: usize,
}

impl Held {
    /// Holds `states` and returns their id.
    pub fn keep(&self, states: &[StateCount]) -> u64 {
        let rows: Vec<Box<str>> = states
            .iter()
            .map(|s| {
                serde_json::to_string(s)
                    .unwrap_or_default()
                    .into_boxed_str()
            })
            .collect();
        // A request that panicked while holding the lock left whole entries.
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.next += 1;
        let id = inner.next;
        inner.states += rows.len();
        inner.kept.push_back(Kept { id, rows });
        while inner.kept.len() > 1
            && (inner.kept.len() > MAX_HELD || inner.states > MAX_HELD_STATES)
        {
            if let Some(old) = inner.kept.pop_front() {
                inner.states -= old.rows.len();
            }
        }
        id
    }

    /// The states `offset..offset + size` of decision `id`, or `None` when
    /// it is no longer held.
    pub fn page(&self, id: u64, offset: usize, size: usize) -> Option<Page> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let kept = inner.kept.iter().find(|k| k.id == id)?;
        let states = kept
            .rows
            .iter()
            .skip(offset)
            .take(size)
            .filter_map(|row| serde_json::from_str(row).ok())
            .collect();
        Some(Page {
            states,
            total: kept.rows.len(),
        })
    }
}
