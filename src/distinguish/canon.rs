//! The canonical form of a program under the symmetries that cannot change
//! a verdict: permuting threads (unless a scope tree tells them apart),
//! renaming locations, and renaming the values written to a location
//! (unless values are compared or added: `Space::values_are_names`).
//! Registers are named by position, so renaming them is nothing to undo.
//!
//! The form is the least, in `Shape`'s order, of [`normalise`] applied to
//! each permutation of the threads; `normalise` renames locations and values
//! by first occurrence, which undoes any renaming, so two programs related by
//! the symmetries have one canonical form.

use std::collections::HashMap;

use super::enumerate::{Kind, Shape, Space};

/// Locations renamed by first occurrence (`x` first, then `y`, ...), and,
/// when values are names, each location's written values likewise (1 first).
pub fn normalise(space: &Space, s: &Shape) -> Shape {
    let values = space.values_are_names();
    let mut locs: HashMap<u8, u8> = HashMap::new();
    let mut vals: HashMap<(u8, u8), u8> = HashMap::new();
    let mut next_val: HashMap<u8, u8> = HashMap::new();
    let mut out = s.clone();
    for op in out.threads.iter_mut().flatten() {
        if op.kind == Kind::Fence {
            continue;
        }
        let fresh = locs.len() as u8;
        let loc = *locs.entry(op.loc).or_insert(fresh);
        op.loc = loc;
        if values && matches!(op.kind, Kind::Write | Kind::Exchg) && op.val != 0 {
            let n = next_val.entry(loc).or_insert(1);
            let v = *vals.entry((loc, op.val)).or_insert(*n);
            if v == *n {
                *n += 1;
            }
            op.val = v;
        }
    }
    out
}

/// The canonical form of `s`: the least normalised thread permutation.
pub fn canonical(space: &Space, s: &Shape) -> Shape {
    let mut best = normalise(space, s);
    if !space.threads_are_interchangeable() {
        return best;
    }
    for_each_permutation(s.threads.len(), &mut |perm| {
        let p = Shape {
            threads: perm.iter().map(|&i| s.threads[i].clone()).collect(),
        };
        let n = normalise(space, &p);
        if n < best {
            best = n;
        }
        true
    });
    best
}

/// Whether `s` is its own canonical form (stops at the first smaller one).
pub fn is_canonical(space: &Space, s: &Shape) -> bool {
    if normalise(space, s) != *s {
        return false;
    }
    if !space.threads_are_interchangeable() {
        return true;
    }
    let mut least = true;
    for_each_permutation(s.threads.len(), &mut |perm| {
        let p = Shape {
            threads: perm.iter().map(|&i| s.threads[i].clone()).collect(),
        };
        least = normalise(space, &p) >= *s;
        least
    });
    least
}

/// Calls `f` on each permutation of `0..n` until it returns false.
fn for_each_permutation(n: usize, f: &mut dyn FnMut(&[usize]) -> bool) {
    fn go(prefix: &mut Vec<usize>, n: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
        if prefix.len() == n {
            return f(prefix);
        }
        for i in 0..n {
            if prefix.contains(&i) {
                continue;
            }
            prefix.push(i);
            let go_on = go(prefix, n, f);
            prefix.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
    go(&mut Vec::with_capacity(n), n, f);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distinguish::enumerate::{programs, Bound, Vocabulary};

    fn space() -> Space {
        Space {
            bound: Bound::default(),
            vocabulary: Vocabulary::default(),
        }
    }

    #[test]
    fn store_buffering_has_one_canonical_form() {
        let all: Vec<String> = programs(&space()).map(|s| s.body()).collect();
        let sb = all
            .iter()
            .filter(|b| b.contains("x := 1; r1 := y;") && b.contains("y := 1; r1 := x;"))
            .count();
        assert_eq!(sb, 1, "{all:?}");
    }
}
