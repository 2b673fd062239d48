//! The `distinguish` sweeps the page is running, held between its
//! requests: the page decides a sweep a chunk (a shard `K/N`) per request,
//! so each request stays within the server's limits and the page shows
//! progress, and the server merges the chunks' records so that every
//! answer carries the summary and the minimal tests of the sweep so far,
//! as `pomset distinguish` prints them. The store forgets the oldest
//! sweeps past `MAX_SWEEPS`.

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::sync::Mutex;

use crate::distinguish::shard::{Merged, Record, Tally};

/// Sweeps held at most.
pub const MAX_SWEEPS: usize = 4;

/// One sweep: what it is of, its records so far, the chunks gone through.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub id: u64,
    pub chunks: usize,
    pub merged: Merged,
    /// The programs decided (their ids), once each.
    pub decided: HashSet<String>,
    pub done: BTreeSet<usize>,
}

#[derive(Default)]
pub struct Sweeps {
    inner: Mutex<(u64, VecDeque<Sweep>)>,
}

impl Sweeps {
    /// A new sweep of `chunks` chunks, empty.
    pub fn open(&self, models: [String; 2], space: String, chunks: usize) -> Sweep {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.0 += 1;
        let sweep = Sweep {
            id: inner.0,
            chunks,
            merged: Merged::new(models, space, Tally::default()),
            decided: HashSet::new(),
            done: BTreeSet::new(),
        };
        inner.1.push_back(sweep.clone());
        while inner.1.len() > MAX_SWEEPS {
            inner.1.pop_front();
        }
        sweep
    }

    /// The sweep `id` as held now, if it still is.
    pub fn get(&self, id: u64) -> Option<Sweep> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.1.iter().find(|s| s.id == id).cloned()
    }

    /// Adds a chunk's records (and, when it went through, the chunk) to
    /// sweep `id`; the sweep as it then is.
    pub fn add(&self, id: u64, chunk: Option<usize>, records: Vec<Record>) -> Option<Sweep> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let sweep = inner.1.iter_mut().find(|s| s.id == id)?;
        for r in records {
            if sweep.decided.insert(r.id.clone()) {
                sweep.merged.tally.add(r);
            }
        }
        if let Some(k) = chunk {
            sweep.done.insert(k);
        }
        Some(sweep.clone())
    }
}
