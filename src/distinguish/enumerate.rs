//! The programs of a bound: threads of accesses drawn from a vocabulary,
//! each written as a litmus test. [`programs`] lists every program of a
//! [`Space`] once up to symmetry (its canonical form, `canon.rs`), in one
//! fixed order: skeleton by skeleton ([`groups`]), so that a sweep decides
//! a skeleton's mode variants together (`lattice.rs`) and a shard is a set
//! of skeletons (`shard.rs`).

use super::shape::{Dep, Kind, Op, Shape, Space};

/// Every thread the space allows: sequences of 1 to `per_thread` accesses,
/// with the dependencies on an earlier read the vocabulary has.
pub fn threads(space: &Space) -> Vec<Vec<Op>> {
    threads_of(space, &space.ops())
}

/// The threads of accesses drawn from `ops`, as [`threads`].
fn threads_of(space: &Space, ops: &[Op]) -> Vec<Vec<Op>> {
    let mut out = Vec::new();
    let mut layer: Vec<Vec<Op>> = vec![Vec::new()];
    for _ in 0..space.bound.per_thread.min(space.bound.total) {
        let mut next = Vec::new();
        for prefix in &layer {
            let after_read = prefix.iter().any(|o| o.kind.reads() && o.dep != Dep::Ctrl);
            for &op in ops {
                for dep in dep_choices(space, op, after_read) {
                    let mut t = prefix.clone();
                    t.push(Op { dep, ..op });
                    next.push(t);
                }
            }
        }
        out.extend(next.iter().cloned());
        layer = next;
    }
    out
}

/// The dependencies `op` may carry: data for a write, control for any
/// access, each only after a read that surely happens (one not itself
/// under a control dependency: else the register may be unassigned).
pub(super) fn dep_choices(space: &Space, op: Op, after_read: bool) -> Vec<Dep> {
    let mut out = vec![Dep::None];
    if !after_read {
        return out;
    }
    for &d in &space.vocabulary.deps {
        let fits = match d {
            Dep::None => false,
            Dep::Data => op.kind == Kind::Write && op.val == 1,
            Dep::Ctrl => true,
        };
        if fits {
            out.push(d);
        }
    }
    out
}

/// The canonical programs of `space`, each once, in a fixed order: skeleton
/// by skeleton ([`groups`]).
pub fn programs(space: &Space) -> impl Iterator<Item = Shape> + '_ {
    groups(space).flatten()
}

/// The canonical programs of `space` by skeleton: for each canonical
/// skeleton (a program whose modes are each the weakest of its chain,
/// `lattice::skeleton`), in the order [`skeletons`] lists them, the
/// distinct canonical forms of its mode variants, in order. Every
/// canonical program is in exactly one group: the symmetries rename
/// threads, locations and values but never modes, so the canonical
/// skeleton of a program's canonical form is that of the program.
pub fn groups(space: &Space) -> impl Iterator<Item = Vec<Shape>> + '_ {
    skeletons(space).map(move |s| group(space, &s))
}

/// The programs of the canonical skeleton `s`: the distinct canonical forms
/// of its mode variants, in order.
pub fn group(space: &Space, s: &Shape) -> Vec<Shape> {
    framed_group(space, s).into_iter().map(|(f, _)| f).collect()
}

/// `group`, each program with the position on `s`'s coordinates
/// (`lattice::position`) of the first variant of `s` it is the canonical
/// form of: the program in `s`'s frame, where every program of the group
/// shares what the mode lattice learns (`lattice::Known::set_frames`).
pub fn framed_group(space: &Space, s: &Shape) -> Vec<(Shape, Vec<usize>)> {
    let c = super::lattice::coordinates(space, s);
    let mut forms: std::collections::BTreeMap<Shape, Vec<usize>> = Default::default();
    for v in super::lattice::variants(space, s) {
        let p = super::lattice::position(&v, &c);
        forms.entry(super::canon::canonical(space, &v)).or_insert(p);
    }
    forms.into_iter().collect()
}

/// The accesses of skeletons: each of the space's in the weakest mode of
/// its chain, once.
pub fn skeleton_ops(space: &Space) -> Vec<Op> {
    let mut ops: Vec<Op> = space
        .ops()
        .into_iter()
        .map(|op| super::lattice::weakest(space, op))
        .collect();
    ops.sort();
    ops.dedup();
    ops
}

/// The canonical skeletons of `space`, each once, in a fixed order: by
/// number of threads, then by the threads' indices in the threads of the
/// skeletons' accesses (lexicographically). Prefixes that no canonical
/// program extends are cut: a prefix must be normalised (`canon::is_normal`),
/// and with interchangeable threads no later thread, normalised alone, may
/// be less than the first.
pub fn skeletons(space: &Space) -> Programs<'_> {
    let ops = skeleton_ops(space);
    let threads = threads_of(space, &ops);
    let alone = threads
        .iter()
        .map(|t| {
            let one = Shape {
                threads: vec![t.clone()],
            };
            super::canon::normalise(space, &one).threads.swap_remove(0)
        })
        .collect();
    // A scope tree names every thread: its programs have them all.
    let n = match space.vocabulary.scope_tree {
        Some(_) => space.bound.threads,
        None => 1,
    };
    Programs {
        space,
        threads,
        alone,
        n,
        stack: Vec::new(),
        begun: false,
    }
}

/// The iterator of [`skeletons`]: a depth-first walk over tuples of threads.
pub struct Programs<'a> {
    space: &'a Space,
    threads: Vec<Vec<Op>>,
    /// Each thread normalised on its own.
    alone: Vec<Vec<Op>>,
    /// The number of threads of the programs being listed.
    n: usize,
    /// The index of each thread chosen so far.
    stack: Vec<usize>,
    begun: bool,
}

impl Programs<'_> {
    /// Whether thread `j` may come next after the stack.
    fn fits(&self, j: usize) -> bool {
        let level = self.stack.len();
        let used: usize = self.stack.iter().map(|&i| self.threads[i].len()).sum();
        // Each thread still to come has an access at least.
        if used + self.threads[j].len() + (self.n - level - 1) > self.space.bound.total {
            return false;
        }
        if level > 0
            && self.space.threads_are_interchangeable()
            && self.alone[j] < self.threads[self.stack[0]]
        {
            return false;
        }
        let prefix = self.stack.iter().chain(std::iter::once(&j));
        super::canon::is_normal(self.space, prefix.map(|&i| self.threads[i].as_slice()))
    }

    /// Pushes the first thread from index `from` on that fits.
    fn push_from(&mut self, from: usize) -> bool {
        for j in from..self.threads.len() {
            if self.fits(j) {
                self.stack.push(j);
                return true;
            }
        }
        false
    }

    /// Completes the stack to `n` threads, the first that fit.
    fn fill(&mut self) -> bool {
        while self.stack.len() < self.n {
            if !self.push_from(0) {
                return false;
            }
        }
        true
    }

    /// Moves to the next full stack of `n` threads, if any.
    fn next_leaf(&mut self) -> bool {
        if !self.begun {
            self.begun = true;
            if self.fill() {
                return true;
            }
        }
        loop {
            let Some(last) = self.stack.pop() else {
                return false;
            };
            if self.push_from(last + 1) && self.fill() {
                return true;
            }
        }
    }
}

impl Iterator for Programs<'_> {
    type Item = Shape;
    fn next(&mut self) -> Option<Shape> {
        loop {
            if !self.next_leaf() {
                if self.n >= self.space.bound.threads {
                    return None;
                }
                self.n += 1;
                self.stack.clear();
                self.begun = false;
                continue;
            }
            let shape = Shape {
                threads: self
                    .stack
                    .iter()
                    .map(|&i| self.threads[i].clone())
                    .collect(),
            };
            if super::canon::is_canonical(self.space, &shape) {
                return Some(shape);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distinguish::shape::{Bound, Vocabulary};

    #[test]
    fn a_thread_is_written_as_litmus_statements() {
        let space = Space {
            bound: Bound::default(),
            vocabulary: Vocabulary::default(),
        };
        let t = &threads(&space);
        // Two locations, each read or written with 1: 4 single accesses, 16 pairs.
        assert_eq!(t.len(), 4 + 16);
        let shape = Shape {
            threads: vec![t[0].clone(), t[3].clone()],
        };
        assert_eq!(shape.body(), "r0 := x; || y := 1;");
    }
}
