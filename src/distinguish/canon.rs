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

use super::shape::{Kind, Op, Shape, Space, LOCATIONS, MAX_VALUES};

/// Locations renamed by first occurrence (`x` first, then `y`, ...), and,
/// when values are names, each location's written values likewise (1 first).
pub fn normalise(space: &Space, s: &Shape) -> Shape {
    let mut r = Renaming::new(space);
    let mut out = s.clone();
    for op in out.threads.iter_mut().flatten() {
        (op.loc, op.val) = r.rename(op);
    }
    out
}

/// Whether `threads` are already normalised (no allocation: the check the
/// enumeration makes on every prefix).
pub fn is_normal<'a>(space: &Space, threads: impl Iterator<Item = &'a [Op]>) -> bool {
    let mut r = Renaming::new(space);
    threads.flatten().all(|op| r.rename(op) == (op.loc, op.val))
}

/// Renaming by first occurrence, as the accesses are met.
#[derive(Clone)]
struct Renaming {
    values: bool,
    /// The new name of each location; `NONE` before it is met.
    locs: [u8; MAX_LOCATIONS],
    next_loc: u8,
    /// The new name of each value written to each (new) location.
    vals: [[u8; MAX_VALUES]; MAX_LOCATIONS],
    next_val: [u8; MAX_LOCATIONS],
}

const NONE: u8 = u8::MAX;
const MAX_LOCATIONS: usize = LOCATIONS.len();

impl Renaming {
    fn new(space: &Space) -> Renaming {
        Renaming {
            values: space.values_are_names(),
            locs: [NONE; MAX_LOCATIONS],
            next_loc: 0,
            vals: [[NONE; MAX_VALUES]; MAX_LOCATIONS],
            next_val: [1; MAX_LOCATIONS],
        }
    }

    /// The new location and value of `op`.
    fn rename(&mut self, op: &Op) -> (u8, u8) {
        if op.kind == Kind::Fence {
            return (op.loc, op.val);
        }
        let old = op.loc as usize % MAX_LOCATIONS;
        if self.locs[old] == NONE {
            self.locs[old] = self.next_loc;
            self.next_loc += 1;
        }
        let loc = self.locs[old];
        let renamed = matches!(op.kind, Kind::Write | Kind::Exchg) && op.val != 0;
        if !self.values || !renamed {
            return (loc, op.val);
        }
        let (l, v) = (loc as usize, op.val as usize % MAX_VALUES);
        if self.vals[l][v] == NONE {
            self.vals[l][v] = self.next_val[l];
            self.next_val[l] += 1;
        }
        (loc, self.vals[l][v])
    }
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

/// Whether `s` is its own canonical form: no thread permutation of it
/// normalises to a smaller shape. The same question as `canonical(s) == s`,
/// asked without building a shape: `Shape`'s order is lexicographic over
/// the threads, so a permutation's first `k` threads, renamed by first
/// occurrence, already decide it against `s` unless they equal `s`'s first
/// `k`; only those prefixes are extended (one renaming per prefix), and a
/// smaller one ends the search. The enumeration asks this of every program
/// of the space, whichever shard it keeps.
pub fn is_canonical(space: &Space, s: &Shape) -> bool {
    if !is_normal(space, s.threads.iter().map(Vec::as_slice)) {
        return false;
    }
    if !space.threads_are_interchangeable() {
        return true;
    }
    !smaller_from(s, 0, 0, &Renaming::new(space))
}

/// Whether some arrangement of the threads not in `used` (a mask) as
/// `s`'s threads `level..`, renamed on from `r`, is less than `s`'s.
fn smaller_from(s: &Shape, level: usize, used: u64, r: &Renaming) -> bool {
    if level == s.threads.len() {
        return false;
    }
    let ours = &s.threads[level];
    for (i, theirs) in s.threads.iter().enumerate() {
        if used >> i & 1 == 1 {
            continue;
        }
        let mut next = r.clone();
        let renamed = theirs.iter().map(|op| {
            let (loc, val) = next.rename(op);
            Op { loc, val, ..*op }
        });
        match renamed.cmp(ours.iter().copied()) {
            std::cmp::Ordering::Less => return true,
            std::cmp::Ordering::Greater => {}
            std::cmp::Ordering::Equal => {
                if smaller_from(s, level + 1, used | 1 << i, &next) {
                    return true;
                }
            }
        }
    }
    false
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
    use crate::distinguish::enumerate::programs;
    use crate::distinguish::shape::{Bound, Vocabulary};

    fn space() -> Space {
        Space {
            bound: Bound::default(),
            vocabulary: Vocabulary::default(),
        }
    }

    /// `is_canonical` (pruned, allocation-free) answers as the definition
    /// does (`canonical(s) == s`) on every arrangement of two or three of a
    /// space's threads, normalised or not, with values as names (FADD
    /// absent) and as numbers (FADD present), and with fences.
    #[test]
    fn is_canonical_is_canonical_form_equality() {
        use crate::distinguish::enumerate::threads;
        use crate::distinguish::shape::Kind;
        use crate::syntax::ast::Mode;
        let spaces = [
            space(),
            Space {
                bound: Bound {
                    values: 3,
                    ..Bound::default()
                },
                vocabulary: Vocabulary {
                    modes: vec![Mode::Rlx, Mode::Acq, Mode::Rel],
                    fences: true,
                    rmws: vec![Kind::Exchg],
                    ..Vocabulary::default()
                },
            },
            Space {
                bound: Bound {
                    values: 3,
                    ..Bound::default()
                },
                vocabulary: Vocabulary {
                    rmws: vec![Kind::Fadd],
                    ..Vocabulary::default()
                },
            },
        ];
        for space in &spaces {
            let ts = threads(space);
            // Every thread in the pairs, a stride of them in the triples.
            let stride = ts.len() / 12 + 1;
            let (mut seen, mut canonical_ones) = (0, 0);
            let mut check = |shape: Shape| {
                let expected = canonical(space, &shape) == shape;
                assert_eq!(is_canonical(space, &shape), expected, "{shape:?}");
                seen += 1;
                canonical_ones += usize::from(expected);
            };
            for a in &ts {
                for b in &ts {
                    check(Shape {
                        threads: vec![a.clone(), b.clone()],
                    });
                }
            }
            for a in ts.iter().step_by(stride) {
                for b in ts.iter().step_by(stride) {
                    for c in ts.iter().step_by(stride) {
                        check(Shape {
                            threads: vec![a.clone(), b.clone(), c.clone()],
                        });
                    }
                }
            }
            assert!(canonical_ones > 0 && canonical_ones < seen);
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
