//! Thread symmetry: top-level threads with the same code (up to a renaming of
//! their registers) and interchangeable scope placement.
//!
//! If threads i and j run the same statement, with each register of i
//! playing the part of one register of j, and swapping i and j
//! maps the scope tree to itself, then swapping them maps every complete
//! pomset to a complete pomset (the rules see threads only through the
//! program order and the `=cta`/`=gpu` relations, both preserved) and every
//! final state to the state with i's and j's registers exchanged. So the
//! product of threads need only visit one combination of variants per
//! multiset (`Product::run` keeps each class's choices non-decreasing), and
//! the states of the other arrangements are the permuted ones.
//!
//! The argument needs the threads' variant lists to correspond index by
//! index; `Classes::check_variants` confirms it on the built pomsets (labels
//! equal but for the thread, registers equal by name) and the engine falls
//! back to no symmetry when it does not hold. Not used with `final =
//! observer` (the observer reads after PAR, whose transformer is the last
//! thread's, P4), with forks, or in a condition-directed search.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use super::packed::Packed;
use super::state::State;
use crate::syntax::core::{Expr, Loc, Program, RegId, Stmt};

/// Classes of interchangeable threads, by position in `Program::main`;
/// each class has at least two members, in increasing order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Classes {
    pub classes: Vec<Vec<usize>>,
}

impl Classes {
    /// The symmetry of `p`'s top-level threads.
    pub fn of(p: &Program) -> Classes {
        if p.main.iter().any(|(_, s)| forks(s)) {
            return Classes::default();
        }
        let mut classes: Vec<Vec<usize>> = Vec::new();
        for i in 0..p.main.len() {
            match classes
                .iter_mut()
                .find(|c| interchangeable(p, c[0], i) && c.iter().all(|&j| placement(p, j, i)))
            {
                Some(c) => c.push(i),
                None => classes.push(vec![i]),
            }
        }
        classes.retain(|c| c.len() > 1);
        Classes { classes }
    }

    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The earlier member of `i`'s class just before it, if any.
    pub fn previous(&self, i: usize) -> Option<usize> {
        self.classes.iter().find_map(|c| {
            let at = c.iter().position(|&t| t == i)?;
            at.checked_sub(1).map(|k| c[k])
        })
    }

    /// The number of distinct arrangements of a combination: per class, the
    /// multinomial of how often each variant is chosen.
    pub fn arrangements(&self, choice: &[usize]) -> u64 {
        self.classes
            .iter()
            .map(|c| multinomial(c.iter().map(|&t| choice[t])))
            .product()
    }

    /// The canonical member of an orbit, in place: within each class, the
    /// members' register blocks sorted by value. `values` are a state's
    /// (registers first, as in `State`; the memory after them is left
    /// alone), and `blocks[t]` is where thread t's registers sit in them.
    pub fn canonical_values(&self, values: &mut [Option<i64>], blocks: &[Range<usize>]) {
        for c in &self.classes {
            let mut tuples = tuples(values, c, blocks);
            tuples.sort();
            place(values, c, blocks, &tuples);
        }
    }

    /// Calls `f` on the values of every member of a canonical state's orbit
    /// (registers first), reusing one buffer: no member is kept.
    pub fn each_member(
        &self,
        values: &[Option<i64>],
        blocks: &[Range<usize>],
        f: &mut dyn FnMut(&[Option<i64>]),
    ) {
        let arrangements: Vec<Vec<Vec<Tuple>>> = self
            .classes
            .iter()
            .map(|c| permutations(tuples(values, c, blocks)))
            .collect();
        let mut scratch = values.to_vec();
        self.arrange(0, &arrangements, blocks, &mut scratch, f);
    }

    /// Places class `k`'s arrangements in turn, then the later classes'.
    fn arrange(
        &self,
        k: usize,
        arrangements: &[Vec<Vec<Tuple>>],
        blocks: &[Range<usize>],
        scratch: &mut [Option<i64>],
        f: &mut dyn FnMut(&[Option<i64>]),
    ) {
        let (Some(c), Some(each)) = (self.classes.get(k), arrangements.get(k)) else {
            f(scratch);
            return;
        };
        for a in each {
            place(scratch, c, blocks, a);
            self.arrange(k + 1, arrangements, blocks, scratch, f);
        }
    }

    /// The size of a canonical state's orbit, given its values (registers
    /// first).
    pub fn orbit_size_values(&self, values: &[Option<i64>], blocks: &[Range<usize>]) -> u64 {
        self.classes
            .iter()
            .map(|c| multinomial(tuples(values, c, blocks).into_iter()))
            .product()
    }

    /// A sentence naming the classes, e.g. `P2, P4 and P6; P3 and P5`.
    pub fn describe(&self, p: &Program) -> String {
        self.classes
            .iter()
            .map(|c| {
                let names: Vec<&str> = c.iter().map(|&t| p.thread_name(p.main[t].0)).collect();
                match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} and {last}", rest.join(", "))
                    }
                    _ => names.join(""),
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Final states kept one per orbit (`Limits::orbits`). A test with
/// interchangeable threads has its orbits' sizes summed as states (IRIW
/// with eight relaxed readers: 43 M states in 245 025 orbits), and a report
/// needs only to count them, judge each, and list a few: `each_values`
/// visits them one at a time, keeping none.
#[derive(Clone, Debug)]
pub struct Orbits {
    /// A state's names (registers, then locations); its values unused.
    shape: State,
    classes: Classes,
    blocks: Vec<Range<usize>>,
    /// Each orbit's canonical member, as values (registers, then memory)
    /// packed, with the number of complete pomsets ending anywhere in the orbit.
    canonical: BTreeMap<Packed, usize>,
    /// The search's deadline and Ctrl-C flag: visiting every member can take
    /// as long as the search (IRIW with nine readers has 387 M), so
    /// `each_values` stops at them too.
    stop: Stop,
}

/// A deadline (`--timeout`) and a Ctrl-C flag.
pub type Stop = (
    Option<(std::time::Instant, f64)>,
    Option<&'static std::sync::atomic::AtomicBool>,
);

impl Orbits {
    pub fn new(
        shape: State,
        classes: Classes,
        blocks: Vec<Range<usize>>,
        canonical: BTreeMap<Packed, usize>,
        stop: Stop,
    ) -> Orbits {
        Orbits {
            shape,
            classes,
            blocks,
            canonical,
            stop,
        }
    }

    /// The limit that stops a visit of the members now, if one does.
    pub fn interrupted(&self) -> Option<String> {
        crate::outcome::interrupted(self.stop.0, self.stop.1)
    }

    /// How many orbits there are.
    pub fn orbits(&self) -> usize {
        self.canonical.len()
    }

    /// How many states there are: the orbits' sizes summed.
    pub fn states(&self) -> usize {
        self.each_orbit()
            .fold(0usize, |n, (_, _, size)| n.saturating_add(size))
    }

    /// Each orbit: its canonical values, its total count and its size.
    pub fn each_orbit(&self) -> impl Iterator<Item = (Vec<Option<i64>>, usize, usize)> + '_ {
        self.canonical.iter().map(|(v, &total)| {
            let values = v.values();
            let size = self.classes.orbit_size_values(&values, &self.blocks);
            (values, total, usize::try_from(size).unwrap_or(usize::MAX))
        })
    }

    /// The names of a state (registers, then locations); values unused.
    pub fn shape(&self) -> &State {
        &self.shape
    }

    /// Calls `f` on every state's values (registers, then memory) with its
    /// count, one orbit after another (not in the order of states), in one
    /// reused buffer. By symmetry every member of an orbit ends as many
    /// complete pomsets, so each counts its orbit's total divided by the
    /// orbit's size; never 0 when a limit cut the search short (the
    /// verdicts are unknown then anyway).
    /// `Err` names the limit (`--timeout`, Ctrl-C, `--max-memory`) that
    /// stopped the visit part way.
    pub fn each_values(&self, f: &mut dyn FnMut(&[Option<i64>], usize)) -> Result<(), String> {
        for (values, total, size) in self.each_orbit() {
            if let Some(why) = self.interrupted() {
                return Err(why);
            }
            let each = (total / size.max(1)).max(1);
            self.members(&values, &mut |member| f(member, each));
        }
        Ok(())
    }

    /// The states a report counts and lists: every member (`each_values`)
    /// when the search was complete; when a limit cut it short (`limited`),
    /// whose verdicts are unknown anyway, each orbit's canonical member with
    /// the orbit's total, without visiting every member.
    pub fn each_reported(
        &self,
        limited: bool,
        f: &mut dyn FnMut(&[Option<i64>], usize),
    ) -> Result<(), String> {
        if !limited {
            return self.each_values(f);
        }
        let mut values = Vec::new();
        for (packed, total) in &self.canonical {
            packed.unpack_into(&mut values);
            f(&values, *total);
        }
        Ok(())
    }

    /// Calls `f` on the values of each member of one orbit.
    pub fn members(&self, values: &[Option<i64>], f: &mut dyn FnMut(&[Option<i64>])) {
        self.classes.each_member(values, &self.blocks, f);
    }

    /// A state with these values (registers, then memory).
    pub fn state(&self, values: &[Option<i64>]) -> State {
        let mut s = self.shape.clone();
        fill(&mut s, values);
        s
    }
}

/// Writes values (registers, then memory) into a state of the same shape.
fn fill(state: &mut State, values: &[Option<i64>]) {
    let slots = state.regs.iter_mut().chain(state.mem.iter_mut());
    for (slot, v) in slots.zip(values) {
        slot.1 = *v;
    }
}

/// One thread's register values.
type Tuple = Vec<Option<i64>>;

/// The register values of each member of class `c`, in class order.
fn tuples(values: &[Option<i64>], c: &[usize], blocks: &[Range<usize>]) -> Vec<Tuple> {
    c.iter()
        .map(|&t| values.get(blocks[t].clone()).unwrap_or_default().to_vec())
        .collect()
}

/// Writes `tuples` back into the blocks of class `c`, in class order.
fn place(values: &mut [Option<i64>], c: &[usize], blocks: &[Range<usize>], tuples: &[Tuple]) {
    for (&t, tuple) in c.iter().zip(tuples) {
        if let Some(block) = values.get_mut(blocks[t].clone()) {
            for (slot, v) in block.iter_mut().zip(tuple) {
                *slot = *v;
            }
        }
    }
}

/// k! / Π m_i! for the multiplicities m_i of the items.
fn multinomial<T: Ord>(items: impl Iterator<Item = T>) -> u64 {
    let mut v: Vec<T> = items.collect();
    v.sort();
    let mut out: u64 = 1;
    let mut run = 0u64;
    for (n, i) in (0..v.len()).enumerate() {
        run = if i > 0 && v[i] == v[i - 1] {
            run + 1
        } else {
            1
        };
        out = out * (n as u64 + 1) / run;
    }
    out
}

/// Every distinct ordering of the items (they arrive sorted or not).
fn permutations<T: Ord + Clone>(mut items: Vec<T>) -> Vec<Vec<T>> {
    items.sort();
    let mut out = vec![items.clone()];
    // Next lexicographic permutation, which skips repeats.
    loop {
        let Some(i) = (1..items.len()).rev().find(|&i| items[i - 1] < items[i]) else {
            return out;
        };
        let j = (i..items.len())
            .rev()
            .find(|&j| items[i - 1] < items[j])
            .unwrap_or(i);
        items.swap(i - 1, j);
        items[i..].reverse();
        out.push(items.clone());
    }
}

fn forks(s: &Stmt) -> bool {
    match s {
        Stmt::Par { .. } => true,
        Stmt::If { then, els, .. } => forks(then) || forks(els),
        Stmt::Seq(ss) => ss.iter().any(forks),
        _ => false,
    }
}

/// Whether swapping threads i and j (positions in `main`) maps the scope
/// tree to itself: same gpu, and the same cta or each alone in its cta.
fn placement(p: &Program, i: usize, j: usize) -> bool {
    let (ti, tj) = (
        &p.threads[p.main[i].0 as usize],
        &p.threads[p.main[j].0 as usize],
    );
    let alone = |t: &crate::syntax::core::ThreadInfo| {
        p.threads.iter().filter(|u| u.cta == t.cta).count() == 1
    };
    ti.gpu == tj.gpu && (ti.cta == tj.cta || (alone(ti) && alone(tj)))
}

/// Whether threads i and j run the same code up to a renaming of registers
/// that keeps the order in which a state lists them (by id, fresh ones
/// left out), so that swapping the threads swaps their blocks of a state.
fn interchangeable(p: &Program, i: usize, j: usize) -> bool {
    let mut map = Renaming::default();
    if !same_stmt(p, &p.main[i].1, &p.main[j].1, &mut map) {
        return false;
    }
    let listed = |t: usize| -> Vec<RegId> {
        (0..p.regs.len() as RegId)
            .filter(|&r| p.regs[r as usize].thread == p.main[t].0 && !p.regs[r as usize].fresh)
            .collect()
    };
    let (a, b) = (listed(i), listed(j));
    a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| map.there.get(x) == Some(y))
}

#[derive(Default)]
struct Renaming {
    there: HashMap<RegId, RegId>,
    back: HashMap<RegId, RegId>,
}

impl Renaming {
    fn pair(&mut self, p: &Program, a: RegId, b: RegId) -> bool {
        if p.regs[a as usize].fresh != p.regs[b as usize].fresh {
            return false;
        }
        *self.there.entry(a).or_insert(b) == b && *self.back.entry(b).or_insert(a) == a
    }
}

fn same_stmt(p: &Program, a: &Stmt, b: &Stmt, m: &mut Renaming) -> bool {
    use Stmt::*;
    match (a, b) {
        (Skip, Skip) => true,
        (Diverge { bound: a }, Diverge { bound: b }) => a == b,
        (Let { reg: r1, expr: e1 }, Let { reg: r2, expr: e2 }) => {
            m.pair(p, *r1, *r2) && same_expr(p, e1, e2, m)
        }
        (
            Read {
                reg: r1,
                loc: l1,
                mode: m1,
                scope: s1,
            },
            Read {
                reg: r2,
                loc: l2,
                mode: m2,
                scope: s2,
            },
        ) => m.pair(p, *r1, *r2) && same_loc(p, l1, l2, m) && m1 == m2 && s1 == s2,
        (
            Write {
                loc: l1,
                expr: e1,
                mode: m1,
                scope: s1,
            },
            Write {
                loc: l2,
                expr: e2,
                mode: m2,
                scope: s2,
            },
        ) => same_loc(p, l1, l2, m) && same_expr(p, e1, e2, m) && m1 == m2 && s1 == s2,
        (
            Fence {
                mode: m1,
                scope: s1,
            },
            Fence {
                mode: m2,
                scope: s2,
            },
        ) => m1 == m2 && s1 == s2,
        (
            Rmw {
                reg: r1,
                op: o1,
                read_mode: a1,
                write_mode: w1,
                scope: s1,
                loc: l1,
                args: x1,
            },
            Rmw {
                reg: r2,
                op: o2,
                read_mode: a2,
                write_mode: w2,
                scope: s2,
                loc: l2,
                args: x2,
            },
        ) => {
            m.pair(p, *r1, *r2)
                && o1 == o2
                && a1 == a2
                && w1 == w2
                && s1 == s2
                && same_loc(p, l1, l2, m)
                && x1.len() == x2.len()
                && x1.iter().zip(x2).all(|(x, y)| same_expr(p, x, y, m))
        }
        (
            If {
                cond: c1,
                then: t1,
                els: e1,
            },
            If {
                cond: c2,
                then: t2,
                els: e2,
            },
        ) => same_expr(p, c1, c2, m) && same_stmt(p, t1, t2, m) && same_stmt(p, e1, e2, m),
        (Seq(x), Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_stmt(p, a, b, m))
        }
        _ => false,
    }
}

fn same_loc(p: &Program, a: &Loc, b: &Loc, m: &mut Renaming) -> bool {
    match (a, b) {
        (Loc::Named(x), Loc::Named(y)) => x == y,
        (Loc::Computed(x), Loc::Computed(y)) => same_expr(p, x, y, m),
        _ => false,
    }
}

fn same_expr(p: &Program, a: &Expr, b: &Expr, m: &mut Renaming) -> bool {
    match (a, b) {
        (Expr::Int(x), Expr::Int(y)) => x == y,
        (Expr::Reg(x), Expr::Reg(y)) => m.pair(p, *x, *y),
        (Expr::Unary(o1, x), Expr::Unary(o2, y)) => o1 == o2 && same_expr(p, x, y, m),
        (Expr::Binary(o1, x1, y1), Expr::Binary(o2, x2, y2)) => {
            o1 == o2 && same_expr(p, x1, x2, m) && same_expr(p, y1, y2, m)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multinomials_count_distinct_arrangements() {
        assert_eq!(multinomial([1, 1, 2].into_iter()), 3);
        assert_eq!(multinomial([1, 2, 3].into_iter()), 6);
        assert_eq!(multinomial([4, 4, 4, 4].into_iter()), 1);
        assert_eq!(multinomial([1, 1, 2, 2].into_iter()), 6);
        assert_eq!(permutations(vec![2, 1, 1]).len(), 3);
        assert_eq!(permutations(vec![1, 2, 2, 1]).len(), 6);
    }
}
