//! Sets and relations over the events of one candidate execution: a set is
//! one `u64`, a relation one `u64` row per event (at most 64 events), as
//! `pomset::order` keeps its orders. Closure is Warshall's algorithm over
//! words; acyclicity is a depth-first search over the rows (`is_acyclic`).

/// The most events one candidate execution may have.
pub const MAX_EVENTS: usize = 64;

/// A set of events, bit `e` for event `e`.
pub type Set = u64;

/// The set `{0, ..., n-1}`.
pub fn full(n: usize) -> Set {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The members of a set, in increasing order.
pub fn members(s: Set) -> impl Iterator<Item = usize> {
    let mut rest = s;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let e = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        Some(e)
    })
}

/// Rows kept inline: a relation on this many events or fewer (most
/// litmus tests' executions, with their initial writes) lives on the stack,
/// so the cat evaluator's many intermediate relations cost a copy, not an
/// allocation (malloc and free were a third of a table's time).
const INLINE: usize = 12;

/// A binary relation on events `0..n`: `has(a, b)` is bit `b` of row `a`.
#[derive(PartialEq, Eq, Hash, Default, Debug)]
pub struct Rel {
    rows: smallvec::SmallVec<[u64; INLINE]>,
}

/// One copy of the rows: `SmallVec`'s own `clone` pushes them one by one
/// through `extend`, which was an eighth of a table's time (the cat
/// evaluator copies relations out of its `let`s).
impl Clone for Rel {
    fn clone(&self) -> Rel {
        Rel {
            rows: smallvec::SmallVec::from_slice(&self.rows),
        }
    }
}

impl Rel {
    /// Row `a` is the set of `b` with `(a, b)`, for each event `a`.
    pub fn rows(&self) -> &[u64] {
        &self.rows
    }

    /// The empty relation on `n` events.
    pub fn new(n: usize) -> Rel {
        Rel {
            rows: smallvec::smallvec![0; n.min(MAX_EVENTS)],
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&r| r == 0)
    }

    pub fn has(&self, a: usize, b: usize) -> bool {
        self.rows.get(a).is_some_and(|r| r >> b & 1 == 1)
    }

    pub fn add(&mut self, a: usize, b: usize) {
        if let Some(r) = self.rows.get_mut(a) {
            *r |= 1 << b;
        }
    }

    /// The events `a` relates to.
    pub fn row(&self, a: usize) -> Set {
        self.rows.get(a).copied().unwrap_or(0)
    }

    /// `[S]`: the identity on a set.
    pub fn identity(n: usize, s: Set) -> Rel {
        let mut r = Rel::new(n);
        for e in members(s & full(n)) {
            r.add(e, e);
        }
        r
    }

    /// `S1 * S2`: the cartesian product.
    pub fn product(n: usize, a: Set, b: Set) -> Rel {
        let mut r = Rel::new(n);
        let b = b & full(n);
        for e in members(a & full(n)) {
            r.rows[e] = b;
        }
        r
    }

    /// The equivalence "same key" on events `0..keys.len()`: `(a, b)` when
    /// both have a key and the keys are equal (events with no key are
    /// related to none). Each key's class is gathered once, not each pair
    /// compared.
    pub fn same<K: PartialEq>(keys: &[Option<K>]) -> Rel {
        let mut r = Rel::new(keys.len());
        let mut classes: Vec<(&K, Set)> = Vec::new();
        for (e, k) in keys.iter().enumerate().take(MAX_EVENTS) {
            let Some(k) = k else { continue };
            match classes.iter_mut().find(|(c, _)| *c == k) {
                Some((_, s)) => *s |= 1 << e,
                None => classes.push((k, 1 << e)),
            }
        }
        for (e, k) in keys.iter().enumerate().take(MAX_EVENTS) {
            if let Some(k) = k {
                r.rows[e] = classes.iter().find(|(c, _)| *c == k).map_or(0, |(_, s)| *s);
            }
        }
        r
    }

    /// Pairs `(a, b)` with `f(a, b)`.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::new(n);
        for a in 0..r.len() {
            for b in 0..r.len() {
                if f(a, b) {
                    r.add(a, b);
                }
            }
        }
        r
    }

    /// Row by row, in place in a copy: collecting an iterator into the
    /// rows went through `SmallVec::extend`, a twentieth of a table's time.
    fn zip(&self, other: &Rel, f: impl Fn(u64, u64) -> u64) -> Rel {
        let mut out = self.clone();
        out.rows.truncate(other.rows.len());
        for (a, &b) in out.rows.iter_mut().zip(&other.rows) {
            *a = f(*a, b);
        }
        out
    }

    pub fn union(&self, other: &Rel) -> Rel {
        self.zip(other, |a, b| a | b)
    }

    pub fn inter(&self, other: &Rel) -> Rel {
        self.zip(other, |a, b| a & b)
    }

    pub fn diff(&self, other: &Rel) -> Rel {
        self.zip(other, |a, b| a & !b)
    }

    /// The complement with respect to all pairs of events.
    pub fn complement(&self) -> Rel {
        let all = full(self.len());
        let mut out = self.clone();
        for r in out.rows.iter_mut() {
            *r = !*r & all;
        }
        out
    }

    /// `r1 ; r2`: relational composition.
    pub fn seq(&self, other: &Rel) -> Rel {
        let mut out = self.clone();
        for r in out.rows.iter_mut() {
            *r = members(*r).fold(0, |acc, m| acc | other.row(m));
        }
        out
    }

    /// `r^-1`.
    pub fn inverse(&self) -> Rel {
        let mut out = Rel::new(self.len());
        for a in 0..self.len() {
            for b in members(self.rows[a]) {
                out.add(b, a);
            }
        }
        out
    }

    /// `r+`: the transitive closure (Warshall over words). Only an event
    /// with an edge in and an edge out can be the middle of a path, and
    /// each row takes row `k` by a mask rather than a branch (so the loop
    /// vectorises).
    pub fn plus(&self) -> Rel {
        let Rel { mut rows } = self.clone();
        let mut middles = self.range() & full(rows.len());
        while middles != 0 {
            let k = middles.trailing_zeros() as usize;
            middles &= middles - 1;
            let rk = rows[k];
            if rk == 0 {
                continue;
            }
            for row in rows.iter_mut() {
                *row |= rk & 0u64.wrapping_sub(*row >> k & 1);
            }
        }
        Rel { rows }
    }

    /// `r*`: reflexive-transitive closure.
    pub fn star(&self) -> Rel {
        self.plus().opt()
    }

    /// `r?`: reflexive closure.
    pub fn opt(&self) -> Rel {
        let mut out = self.clone();
        for (a, r) in out.rows.iter_mut().enumerate() {
            *r |= 1 << a;
        }
        out
    }

    /// `domain(r)`.
    pub fn domain(&self) -> Set {
        (0..self.len())
            .filter(|&a| self.rows[a] != 0)
            .fold(0, |s, a| s | 1 << a)
    }

    /// `range(r)`.
    pub fn range(&self) -> Set {
        self.rows.iter().fold(0, |s, &r| s | r)
    }

    /// An event related to itself.
    pub fn reflexive_at(&self) -> Option<usize> {
        (0..self.len()).find(|&a| self.has(a, a))
    }

    /// Some pair of the relation.
    pub fn some_pair(&self) -> Option<(usize, usize)> {
        let a = (0..self.len()).find(|&a| self.rows[a] != 0)?;
        Some((a, self.rows[a].trailing_zeros() as usize))
    }

    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.len()).flat_map(move |a| members(self.rows[a]).map(move |b| (a, b)))
    }

    /// Acyclicity without the closure: a depth-first search over the rows.
    /// Events are white (not reached), grey (on the current path) or black
    /// (finished: every path from them was explored and found no cycle).
    /// An edge to a grey event closes a cycle (a self-loop is one: the
    /// event is grey when its own row is read); an edge to a black event
    /// leads to no cycle. Each event turns grey and black once, so the cost
    /// is a few word operations per event, where `plus` costs one pass over
    /// the rows per event in the range. The property
    /// `depth_first_search_decides_acyclicity_as_the_closure_does` below
    /// holds this equal to irreflexivity of `plus`.
    pub fn is_acyclic(&self) -> bool {
        let (mut grey, mut black): (Set, Set) = (0, 0);
        let mut path = [0u8; MAX_EVENTS];
        for start in members(self.domain()) {
            if black >> start & 1 == 1 {
                continue;
            }
            path[0] = start as u8;
            let mut depth = 1;
            grey |= 1 << start;
            while depth > 0 {
                let a = path[depth - 1] as usize;
                if self.rows[a] & grey != 0 {
                    return false;
                }
                let next = self.rows[a] & !black;
                if next == 0 {
                    depth -= 1;
                    grey &= !(1 << a);
                    black |= 1 << a;
                } else {
                    let b = next.trailing_zeros();
                    path[depth] = b as u8;
                    depth += 1;
                    grey |= 1 << b;
                }
            }
        }
        true
    }

    pub fn cycle(&self) -> Option<Vec<usize>> {
        let closure = self.plus();
        let start = closure.reflexive_at()?;
        // Breadth first from `start` back to itself, along edges of `self`.
        let mut parent = vec![usize::MAX; self.len()];
        let mut frontier = vec![start];
        let mut seen: Set = 0;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &a in &frontier {
                for b in members(self.rows[a]) {
                    if b == start {
                        let mut path = vec![a];
                        let mut at = a;
                        while at != start {
                            at = parent[at];
                            path.push(at);
                        }
                        path.reverse();
                        return Some(path);
                    }
                    if seen >> b & 1 == 0 {
                        seen |= 1 << b;
                        parent[b] = a;
                        next.push(b);
                    }
                }
            }
            frontier = next;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    #[test]
    fn closure_composition_and_cycles() {
        let mut r = Rel::new(3);
        r.add(0, 1);
        r.add(1, 2);
        assert!(r.plus().has(0, 2));
        assert!(r.is_acyclic());
        assert!(r.seq(&r).has(0, 2) && !r.seq(&r).has(0, 1));
        assert!(r.inverse().has(2, 1));
        assert_eq!(r.domain(), 0b011);
        assert_eq!(r.range(), 0b110);
        r.add(2, 0);
        assert!(!r.is_acyclic());
        assert_eq!(r.cycle(), Some(vec![0, 1, 2]));
        assert!(r.star().has(1, 1) && r.opt().has(2, 2));
        assert_eq!(r.complement().pairs().count(), 9 - 3);
    }

    /// `plus` (Warshall over the events with an edge in) against the
    /// closure by repeated composition, on every relation of 4 events
    /// with at most one edge out of each, and on dense pseudo-random ones
    /// of up to 64 events.
    #[test]
    fn plus_is_the_least_transitive_superset() {
        let by_composition = |r: &Rel| {
            let mut c = r.clone();
            loop {
                let next = c.union(&c.seq(r));
                if next == c {
                    return c;
                }
                c = next;
            }
        };
        for code in 0..5usize.pow(4) {
            let mut r = Rel::new(4);
            let mut c = code;
            for a in 0..4 {
                if c % 5 < 4 {
                    r.add(a, c % 5);
                }
                c /= 5;
            }
            assert_eq!(r.plus(), by_composition(&r), "{r:?}");
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for n in [5, 17, 40, 63, 64] {
            for density in [3u32, 6, 9] {
                let mut r = Rel::new(n);
                for a in 0..n {
                    for b in 0..n {
                        if xorshift(&mut seed) % (u64::from(density) * n as u64) < 2 {
                            r.add(a, b);
                        }
                    }
                }
                assert_eq!(r.plus(), by_composition(&r), "{n} events");
            }
        }
    }

    /// `is_acyclic` (depth first) against irreflexivity of `plus`, on
    /// every relation of 4 events (all 2^16, cycles of every length and
    /// self-loops among them) and on pseudo-random ones of up to 64 events,
    /// sparse (mostly acyclic) and dense, with their acyclic halves (only
    /// edges upwards) so that both answers occur at every size.
    #[test]
    fn depth_first_search_decides_acyclicity_as_the_closure_does() {
        let by_closure = |r: &Rel| r.plus().reflexive_at().is_none();
        for code in 0u32..1 << 16 {
            let mut r = Rel::new(4);
            for bit in 0..16 {
                if code >> bit & 1 == 1 {
                    r.add(bit / 4, bit % 4);
                }
            }
            assert_eq!(r.is_acyclic(), by_closure(&r), "{r:?}");
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let (mut acyclic, mut cyclic) = (0, 0);
        for n in [2, 5, 13, 17, 40, 63, 64] {
            for density in [1u64, 2, 4, 9] {
                for upwards_only in [false, true] {
                    let mut r = Rel::new(n);
                    for a in 0..n {
                        for b in 0..n {
                            let keep = xorshift(&mut seed) % (density * n as u64) < 2;
                            if keep && (!upwards_only || a < b) {
                                r.add(a, b);
                            }
                        }
                    }
                    let expected = by_closure(&r);
                    assert_eq!(r.is_acyclic(), expected, "{n} events");
                    if expected {
                        acyclic += 1;
                    } else {
                        cyclic += 1;
                    }
                }
            }
        }
        assert!(
            acyclic > 10 && cyclic > 10,
            "{acyclic} acyclic, {cyclic} cyclic"
        );
    }
}
