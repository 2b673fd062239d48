//! Strict orders on up to 64 events, one `u64` row per event, so that
//! closure is Warshall's algorithm over words and acyclicity is a diagonal test.

/// The most events one pomset may have.
pub const MAX_EVENTS: usize = 64;

pub type Event = usize;

/// A relation on events `0..n`; `has(a, b)` means a < b. Closed on demand.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Order {
    rows: Vec<u64>,
}

impl Order {
    pub fn new(n: usize) -> Order {
        assert!(n <= MAX_EVENTS, "pomsets hold at most {MAX_EVENTS} events");
        Order { rows: vec![0; n] }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn has(&self, a: Event, b: Event) -> bool {
        self.rows[a] >> b & 1 == 1
    }

    /// Adds a < b; returns whether it was new.
    pub fn add(&mut self, a: Event, b: Event) -> bool {
        let new = !self.has(a, b);
        self.rows[a] |= 1 << b;
        new
    }

    /// Adds a < b to a closed order, keeping it closed: everything at or
    /// below a comes below b and everything above b. Returns whether it
    /// was new.
    pub fn add_closed(&mut self, a: Event, b: Event) -> bool {
        if self.has(a, b) {
            return false;
        }
        let up = self.rows[b] | 1 << b;
        for x in 0..self.len() {
            if x == a || self.has(x, a) {
                self.rows[x] |= up;
            }
        }
        true
    }

    /// The events above `a`.
    pub fn above(&self, a: Event) -> u64 {
        self.rows[a]
    }

    /// Adds a < b for every b in `bits`; returns whether any was new.
    pub fn add_row(&mut self, a: Event, bits: u64) -> bool {
        let new = bits & !self.rows[a] != 0;
        self.rows[a] |= bits;
        new
    }

    /// The events below `b`: ↓b.
    pub fn below(&self, b: Event) -> u64 {
        self.rows
            .iter()
            .enumerate()
            .fold(0, |m, (a, r)| m | (r >> b & 1) << a)
    }

    pub fn union_with(&mut self, other: &Order) -> bool {
        let mut changed = false;
        for (r, o) in self.rows.iter_mut().zip(&other.rows) {
            changed |= *o & !*r != 0;
            *r |= o;
        }
        changed
    }

    /// Transitive closure (Warshall); returns whether anything was added.
    pub fn close(&mut self) -> bool {
        // Step k ORs row k into every row holding k, so it does nothing when
        // row k is empty or no row holds k. The union of the rows never
        // changes (each step ORs one row into another), so that second test
        // reads a mask computed once. Both skips leave the result as it was.
        // Each step is branchless: a row takes row k under a mask that is
        // all ones when it holds k. Something was added exactly when some
        // row changed, which the XOR of each row before and after records.
        let mut middles = self.rows.iter().fold(0u64, |m, r| m | r);
        let mut added = 0u64;
        while middles != 0 {
            let k = middles.trailing_zeros() as usize;
            middles &= middles - 1;
            let Some(&row_k) = self.rows.get(k) else {
                break;
            };
            if row_k == 0 {
                continue;
            }
            for row in self.rows.iter_mut() {
                let new = *row | row_k & 0u64.wrapping_sub(*row >> k & 1);
                added |= new ^ *row;
                *row = new;
            }
        }
        added != 0
    }

    /// For a closed order: no event lies below itself.
    pub fn is_acyclic(&self) -> bool {
        (0..self.len()).all(|i| !self.has(i, i))
    }

    pub fn edges(&self) -> impl Iterator<Item = (Event, Event)> + '_ {
        // Row by row, each row's members lowest first.
        self.rows.iter().enumerate().flat_map(|(a, &row)| {
            let mut rest = row;
            std::iter::from_fn(move || {
                let b = rest.trailing_zeros() as Event;
                rest &= rest.wrapping_sub(1);
                (b < 64).then_some((a, b))
            })
        })
    }

    /// The edges of a closed acyclic order not implied by two others (the
    /// Hasse diagram), for drawing.
    pub fn reduction(&self) -> Order {
        let mut out = self.clone();
        for (a, b) in self.edges() {
            let via = (0..self.len()).any(|c| c != a && c != b && self.has(a, c) && self.has(c, b));
            if via {
                out.rows[a] &= !(1 << b);
            }
        }
        out
    }

    /// A shortest path a → … → a in the relation, if `a` lies on a cycle.
    pub fn cycle_through(&self, a: Event) -> Option<Vec<Event>> {
        let mut prev = vec![usize::MAX; self.len()];
        let mut queue = std::collections::VecDeque::from([a]);
        let mut seen = 0u64;
        while let Some(x) = queue.pop_front() {
            for y in (0..self.len()).filter(|&y| self.has(x, y)) {
                if y == a {
                    let mut path = vec![x];
                    while *path.last()? != a {
                        let p = prev[*path.last()?];
                        path.push(p);
                    }
                    path.reverse();
                    return Some(path);
                }
                if seen >> y & 1 == 0 {
                    seen |= 1 << y;
                    prev[y] = x;
                    queue.push_back(y);
                }
            }
        }
        None
    }
}

impl std::fmt::Debug for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.edges()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// Closure agrees with reachability computed naively, and says
    /// whether it added an edge.
    #[test]
    fn closure_is_reachability() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..200 {
            let n = 1 + (seed % 9) as usize;
            let mut o = Order::new(n);
            for a in 0..n {
                for b in 0..n {
                    if xorshift(&mut seed).is_multiple_of(5) {
                        o.add(a, b);
                    }
                }
            }
            let mut closed = o.clone();
            let added = closed.close();
            assert_eq!(added, closed != o, "close says whether it added an edge");
            assert!(!closed.clone().close(), "a closed order closes to itself");
            for a in 0..n {
                // Naive DFS reachability in at least one step.
                let mut seen = vec![false; n];
                let mut stack: Vec<usize> = (0..n).filter(|&b| o.has(a, b)).collect();
                while let Some(x) = stack.pop() {
                    if !seen[x] {
                        seen[x] = true;
                        stack.extend((0..n).filter(|&y| o.has(x, y)));
                    }
                }
                for (b, reached) in seen.iter().enumerate() {
                    assert_eq!(closed.has(a, b), *reached);
                }
                if closed.has(a, a) {
                    let cycle = o.cycle_through(a).expect("a cycle");
                    assert_eq!(cycle[0], a);
                    for w in cycle.windows(2) {
                        assert!(o.has(w[0], w[1]));
                    }
                    assert!(o.has(*cycle.last().expect("nonempty"), a));
                }
            }
        }
    }

    /// Adding an edge to a closed order keeps it closed: the same order as
    /// adding the edge, then closing.
    #[test]
    fn add_closed_is_add_then_close() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || xorshift(&mut seed);
        for _ in 0..300 {
            let n = 1 + (next() % 12) as usize;
            let mut o = Order::new(n);
            for _ in 0..n {
                let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
                o.add(a, b);
            }
            o.close();
            let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
            let mut fast = o.clone();
            fast.add_closed(a, b);
            let mut slow = o.clone();
            slow.add(a, b);
            slow.close();
            assert_eq!(fast, slow);
        }
    }

    #[test]
    fn reduction_keeps_only_covering_edges() {
        let mut o = Order::new(3);
        o.add(0, 1);
        o.add(1, 2);
        o.close();
        assert!(o.has(0, 2) && o.is_acyclic());
        let r = o.reduction();
        assert!(r.has(0, 1) && r.has(1, 2) && !r.has(0, 2));
    }
}
