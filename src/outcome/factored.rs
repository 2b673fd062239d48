//! Final states kept as a product: a union of blocks, each one fixed part
//! (the registers of the threads that write, and the final memory) times
//! one set of register values per reader thread. An engine hands outcomes
//! over this way only where it has shown that the readers are independent
//! given the fixed part (the pomset engine's `factor.rs` argues when); then a state's
//! count of complete pomsets is its block's count times each reader's.
//!
//! IRIW with ten readers has 3^20 final states but 90 reader parts: this
//! keeps the parts, lists the first states in order, and counts the states
//! meeting a condition without visiting them (`count`).

use std::collections::{BinaryHeap, HashMap};
use std::ops::Range;

use super::state::State;
use super::verdict::{kleene_and, kleene_or, Slots};
use crate::syntax::ast::CmpOp;
use crate::syntax::core::{Program, Prop, Term};

/// A state's values, registers then memory, as `State` lists them.
type Values = Vec<Option<i64>>;

/// States as a union of disjoint products (see the module).
#[derive(Clone, Debug)]
pub struct Factored {
    /// One state's names: every state names the same registers, then the
    /// same locations.
    shape: State,
    /// Where each reader's registers sit in a state's values, in order.
    readers: Vec<Range<usize>>,
    /// The readers in classes whose events may coalesce (`coalescing`):
    /// every reader in exactly one class, most alone.
    classes: Vec<Vec<usize>>,
    blocks: Vec<Block>,
}

/// One product of states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// A state's values with the readers' slots left `None`: what every
    /// state of the block shares. Blocks differ here, so they are disjoint.
    pub fixed: Values,
    /// The complete pomsets of the fixed part ending here.
    pub times: usize,
    /// Per reader (in the order of `Factored::readers`): each value of its
    /// registers, in increasing order, with its number of complete pomsets.
    pub parts: Vec<Vec<(Values, usize)>>,
}

/// The most distinct partly evaluated conditions `count` holds at once.
pub const MAX_RESIDUALS: usize = 100_000;

impl Factored {
    /// `blocks` must have distinct fixed parts and sorted, non-empty parts.
    pub fn new(shape: State, readers: Vec<Range<usize>>, blocks: Vec<Block>) -> Factored {
        let classes = (0..readers.len()).map(|i| vec![i]).collect();
        Factored {
            shape,
            readers,
            classes,
            blocks,
        }
    }

    /// The same states, with the readers of each class of `class_of` (a
    /// class per reader) counted as reads whose events may coalesce: each
    /// reads one register, and a state where k of them read one value v
    /// counts the ways to partition those k reads into events, each event
    /// with c(v) pomsets, c(v) a single reader's count for v: Σ_j S(k, j)
    /// c(v)^j, the Touchard polynomial (Bell(k) where c(v) = 1). A read of
    /// `?` has no event and coalesces with none. `None` unless the readers
    /// of a class have the same parts in every block (they are then
    /// interchangeable, which the count needs).
    pub fn coalescing(mut self, class_of: &[usize]) -> Option<Factored> {
        if class_of.len() != self.readers.len() {
            return None;
        }
        let mut classes: Vec<Vec<usize>> = Vec::new();
        let mut ids: Vec<usize> = Vec::new();
        for (i, &c) in class_of.iter().enumerate() {
            match ids.iter().position(|&d| d == c) {
                Some(k) => classes[k].push(i),
                None => {
                    ids.push(c);
                    classes.push(vec![i]);
                }
            }
        }
        let alike = |class: &[usize]| {
            class.len() == 1
                || (class.iter().all(|&i| self.readers[i].len() == 1)
                    && self
                        .blocks
                        .iter()
                        .all(|b| class.iter().all(|&i| b.parts[i] == b.parts[class[0]])))
        };
        if !classes.iter().all(|c| alike(c)) {
            return None;
        }
        self.classes = classes;
        Some(self)
    }

    /// The readers' thread names, as their registers are named (`P2` of
    /// `P2:r0`), in order.
    pub fn readers(&self) -> Vec<String> {
        self.readers
            .iter()
            .filter_map(|r| self.shape.regs.get(r.start))
            .filter_map(|(name, _)| name.split_once(':').map(|(t, _)| t.to_string()))
            .fold(Vec::new(), |mut names: Vec<String>, t| {
                // A thread's reads kept apart one by one name it once.
                if names.last() != Some(&t) {
                    names.push(t);
                }
                names
            })
    }

    /// One state's names.
    pub fn shape(&self) -> &State {
        &self.shape
    }

    /// The named state of some values.
    pub fn state(&self, values: &[Option<i64>]) -> State {
        let (regs, mem) = values.split_at(self.shape.regs.len().min(values.len()));
        let name = |pairs: &[(String, Option<i64>)], vs: &[Option<i64>]| {
            pairs
                .iter()
                .zip(vs)
                .map(|((n, _), v)| (n.clone(), *v))
                .collect()
        };
        State {
            regs: name(&self.shape.regs, regs),
            mem: name(&self.shape.mem, mem),
        }
    }

    /// How many final states there are (saturating).
    pub fn states(&self) -> usize {
        self.sum(|_| 1, |_| 1)
    }

    /// How many of them determine every value (no `?`).
    pub fn determined(&self) -> usize {
        let fixed = |b: &Block| usize::from(determined(&b.fixed, &self.readers));
        self.sum(fixed, |(v, _)| usize::from(whole(v)))
    }

    /// How many complete pomsets there are (saturating).
    pub fn pomsets(&self) -> usize {
        usize::try_from(self.total()).unwrap_or(usize::MAX)
    }

    /// `pomsets`, unbounded by `usize` (saturating at u128's).
    fn total(&self) -> u128 {
        let mut total = 0u128;
        for b in &self.blocks {
            let mut n = b.times as u128;
            for class in &self.classes {
                n = n.saturating_mul(class_total(&b.parts[class[0]], class.len()));
            }
            total = total.saturating_add(n);
        }
        total
    }

    /// The complete pomsets of the state of block `b` whose readers take
    /// the values `at` (an index into each reader's part).
    fn weight(&self, b: &Block, at: &[usize]) -> u128 {
        let mut n = b.times as u128;
        for class in &self.classes {
            let part = &b.parts[class[0]];
            let w = match class[..] {
                // A class of one (most readers): its count, no tally.
                [i] => part[at[i]].1 as u128,
                _ => {
                    let mut chosen = vec![0usize; part.len()];
                    for &i in class {
                        chosen[at[i]] += 1;
                    }
                    class_weight(part, &chosen)
                }
            };
            n = n.saturating_mul(w);
        }
        n
    }

    /// The parts held: what memory and `--max-states` count.
    pub fn held(&self) -> usize {
        self.blocks
            .iter()
            .map(|b| b.parts.iter().map(Vec::len).sum::<usize>())
            .sum()
    }

    /// Σ over blocks of `block` (a weight of the block's own) times Π over
    /// readers of Σ `each` over its values (saturating).
    fn sum(
        &self,
        block: impl Fn(&Block) -> usize,
        each: impl Fn(&(Values, usize)) -> usize,
    ) -> usize {
        let mut total = 0u128;
        for b in &self.blocks {
            let mut n = block(b) as u128;
            for part in &b.parts {
                n = n.saturating_mul(part.iter().map(|x| each(x) as u128).sum());
            }
            total = total.saturating_add(n);
        }
        usize::try_from(total).unwrap_or(usize::MAX)
    }

    /// Calls `f` on the first `n` states in increasing order of values
    /// (`State`'s order), each with its count; with `determined_only`, on
    /// the first `n` that determine every value. Within a block the states
    /// increase as an odometer over the readers' sorted values, the last
    /// reader fastest (the readers' slots are in increasing order and the
    /// rest is fixed); the blocks are merged.
    pub fn first(&self, n: usize, determined_only: bool, f: &mut dyn FnMut(&[Option<i64>], usize)) {
        // Per block, per reader: the indices of the values listed.
        let parts: Vec<Vec<Vec<usize>>> = self
            .blocks
            .iter()
            .map(|b| {
                b.parts
                    .iter()
                    .map(|p| {
                        (0..p.len())
                            .filter(|&i| !determined_only || whole(&p[i].0))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let usable = |k: usize| {
            let b = &self.blocks[k];
            parts[k].iter().all(|p| !p.is_empty())
                && (!determined_only || determined(&b.fixed, &self.readers))
        };
        // Where the odometer `at` of block k points in the block's parts.
        let full = |k: usize, at: &[usize]| -> Vec<usize> {
            at.iter().zip(&parts[k]).map(|(&i, p)| p[i]).collect()
        };
        let values_at = |k: usize, at: &[usize]| {
            let b = &self.blocks[k];
            let mut v = b.fixed.clone();
            for ((range, part), i) in self.readers.iter().zip(&b.parts).zip(full(k, at)) {
                v[range.clone()].copy_from_slice(&part[i].0);
            }
            v
        };
        let mut heap = BinaryHeap::new();
        for k in (0..self.blocks.len()).filter(|&k| usable(k)) {
            let at = vec![0; self.readers.len()];
            heap.push(std::cmp::Reverse((values_at(k, &at), k, at)));
        }
        let mut listed = 0;
        while let Some(std::cmp::Reverse((v, k, mut at))) = heap.pop() {
            if listed == n {
                return;
            }
            let count = self.weight(&self.blocks[k], &full(k, &at));
            f(&v, usize::try_from(count).unwrap_or(usize::MAX));
            listed += 1;
            // The next state of block k: the odometer, last reader fastest.
            if advance(&mut at, |i| parts[k][i].len()) {
                heap.push(std::cmp::Reverse((values_at(k, &at), k, at)));
            }
        }
    }

    /// The complete pomsets whose state makes `prop` true, and those whose
    /// state does not (false or unknown, `verdict::truth`), without visiting
    /// the states: the proposition is evaluated on the fixed part, then
    /// reader by reader, and the partly evaluated propositions are kept
    /// with the pomsets that lead to each (a product of sums for each).
    /// Only one side is counted, the other is the rest of `pomsets`: the
    /// pomsets making it true, dropping each partly evaluated proposition
    /// once it is known not to be (CoRR's conjunction keeps one), else,
    /// where that needs too many, those not making it true. `Err` names
    /// the bound when both need more than `MAX_RESIDUALS` partly evaluated
    /// propositions at once.
    pub fn count(&self, p: &Program, prop: &Prop) -> Result<(usize, usize), String> {
        let slots = Slots::of(p, &self.shape);
        let start = Residual::of(prop, &slots);
        let total = self.total();
        let true_ = Residual::Known(Some(true));
        let (positive, negative) = match self.count_where(&start, &|r| *r == true_) {
            Ok(yes) => (yes, total.saturating_sub(yes)),
            Err(_) => {
                let no = self.count_where(&start, &|r| *r != true_)?;
                (total.saturating_sub(no), no)
            }
        };
        let fit = |n: u128| usize::try_from(n).unwrap_or(usize::MAX);
        Ok((fit(positive), fit(negative)))
    }

    /// The complete pomsets whose state's residual of `start` ends `wanted`
    /// (every slot is then given, so the residual is known). A residual
    /// already known is final (`given` keeps a known truth), so one known
    /// and not wanted is dropped at once.
    fn count_where(
        &self,
        start: &Residual,
        wanted: &dyn Fn(&Residual) -> bool,
    ) -> Result<u128, String> {
        let dead = |r: &Residual| matches!(r, Residual::Known(_)) && !wanted(r);
        let mut found = 0u128;
        for b in &self.blocks {
            let reader_slot = |s: usize| self.readers.iter().any(|r| r.contains(&s));
            let first = start.given(&|s| (!reader_slot(s)).then(|| b.fixed[s]));
            if dead(&first) {
                continue;
            }
            let mut held: HashMap<Residual, u128> = HashMap::from([(first, b.times as u128)]);
            for class in &self.classes {
                // Per residual, how many of the class's readers took each
                // value so far, the class's weight applied once all have. A
                // class of one (most readers) keeps no tally: each value's
                // count is applied at once.
                let part = &b.parts[class[0]];
                let tally = if class.len() > 1 { part.len() } else { 0 };
                let mut inner: HashMap<(Residual, Vec<usize>), u128> = held
                    .drain()
                    .map(|(r, n)| ((r, vec![0; tally]), n))
                    .collect();
                for &i in class {
                    let range = &self.readers[i];
                    let mut next: HashMap<(Residual, Vec<usize>), u128> = HashMap::new();
                    for ((r, chosen), n) in &inner {
                        for (k, (values, c)) in b.parts[i].iter().enumerate() {
                            let at = |s: usize| range.contains(&s).then(|| values[s - range.start]);
                            let r = r.given(&at);
                            if dead(&r) {
                                continue;
                            }
                            let mut chosen = chosen.clone();
                            let w = match chosen.get_mut(k) {
                                Some(m) => {
                                    *m += 1;
                                    1
                                }
                                None => *c as u128,
                            };
                            let e = next.entry((r, chosen)).or_insert(0);
                            *e = e.saturating_add(n.saturating_mul(w));
                        }
                        if next.len() > MAX_RESIDUALS {
                            return Err(too_many());
                        }
                    }
                    inner = next;
                }
                for ((r, chosen), n) in inner {
                    let w = if tally > 0 {
                        class_weight(part, &chosen)
                    } else {
                        1
                    };
                    let e = held.entry(r).or_insert(0);
                    *e = e.saturating_add(n.saturating_mul(w));
                }
            }
            for (r, n) in held {
                if wanted(&r) {
                    found = found.saturating_add(n);
                }
            }
        }
        Ok(found)
    }

    /// Every state with its count, in order: for checks on small outcomes
    /// (it visits every state).
    pub fn each(&self, f: &mut dyn FnMut(&[Option<i64>], usize)) {
        self.first(usize::MAX, false, f);
    }
}

/// Why `Factored::count` stopped: the named bound on what it holds.
fn too_many() -> String {
    format!(
        "more than {MAX_RESIDUALS} partly evaluated conditions \
         (counting a condition over readers kept apart)"
    )
}

/// The odometer's next position, the last place fastest; false past the end.
fn advance(at: &mut [usize], size: impl Fn(usize) -> usize) -> bool {
    for i in (0..at.len()).rev() {
        at[i] += 1;
        if at[i] < size(i) {
            return true;
        }
        at[i] = 0;
    }
    false
}

/// The pomsets of one class of coalescing readers (`Factored::coalescing`)
/// when `chosen[k]` of them take the values of `part[k]`: per value taken
/// by m readers with c pomsets each, Σ_j S(m, j) c^j if it is determined
/// (the partitions of the m reads into events, each event c ways), else
/// c^m (no event to coalesce). A class of one is its reader's count.
fn class_weight(part: &[(Values, usize)], chosen: &[usize]) -> u128 {
    part.iter()
        .zip(chosen)
        .map(|((v, c), &m)| ways(m, *c as u128, whole(v)))
        .fold(1u128, u128::saturating_mul)
}

/// m reads of one value, c pomsets each: Σ_j S(m, j) c^j when they may
/// coalesce, else c^m.
fn ways(m: usize, c: u128, coalesce: bool) -> u128 {
    if !coalesce || m <= 1 {
        return (0..m).fold(1u128, |n, _| n.saturating_mul(c));
    }
    // S(m, j) by the recurrence S(i, j) = j S(i-1, j) + S(i-1, j-1).
    let mut s = vec![1u128];
    for i in 1..=m {
        let mut next = vec![0u128; i + 1];
        for j in 1..=i {
            let keep = s.get(j).copied().unwrap_or(0).saturating_mul(j as u128);
            next[j] = keep.saturating_add(s[j - 1]);
        }
        s = next;
    }
    let mut power = 1u128;
    let mut total = 0u128;
    for &sj in &s {
        total = total.saturating_add(sj.saturating_mul(power));
        power = power.saturating_mul(c);
    }
    total
}

/// Σ over every way `size` readers of one class take values of `part` of
/// `class_weight`: k! [x^k] Π_v (Σ_m ways(m, c_v) x^m / m!), computed as
/// a sum over how many readers each value takes with binomials for which.
fn class_total(part: &[(Values, usize)], size: usize) -> u128 {
    // total[j]: the weight of every way j labelled readers take the values
    // seen so far.
    let mut total = vec![0u128; size + 1];
    total[0] = 1;
    for (v, c) in part {
        let mut next = vec![0u128; size + 1];
        for j in 0..=size {
            for m in 0..=j {
                let w = binomial(j, m)
                    .saturating_mul(ways(m, *c as u128, whole(v)))
                    .saturating_mul(total[j - m]);
                next[j] = next[j].saturating_add(w);
            }
        }
        total = next;
    }
    total[size]
}

fn binomial(n: usize, k: usize) -> u128 {
    (0..k).fold(1u128, |b, i| {
        b.saturating_mul((n - i) as u128) / (i as u128 + 1)
    })
}

fn whole(v: &[Option<i64>]) -> bool {
    v.iter().all(Option::is_some)
}

/// Whether the fixed part determines every value outside the readers' slots.
fn determined(fixed: &[Option<i64>], readers: &[Range<usize>]) -> bool {
    fixed
        .iter()
        .enumerate()
        .all(|(s, v)| v.is_some() || readers.iter().any(|r| r.contains(&s)))
}

/// A proposition partly evaluated: its terms are slots of a state's
/// values or constants, and a part whose truth is known is folded with
/// Kleene's strong three-valued logic, as `verdict::truth` evaluates it.
/// Folding keeps the truth: for any values of the slots left, the
/// residual's truth is the proposition's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Residual {
    Known(Option<bool>),
    Cmp(Side, CmpOp, Side),
    Not(Box<Residual>),
    And(Box<Residual>, Box<Residual>),
    Or(Box<Residual>, Box<Residual>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Side {
    Value(Option<i64>),
    Slot(usize),
}

impl Residual {
    fn of(prop: &Prop, slots: &Slots) -> Residual {
        let side = |t: &Term| match t {
            Term::Int(v) => Side::Value(Some(*v)),
            // A term the states do not name is `?` in every state.
            _ => slots.position(t).map_or(Side::Value(None), Side::Slot),
        };
        let r = match prop {
            Prop::True => Residual::Known(Some(true)),
            Prop::False => Residual::Known(Some(false)),
            Prop::Cmp(a, op, b) => Residual::Cmp(side(a), *op, side(b)),
            Prop::Not(a) => Residual::Not(Box::new(Residual::of(a, slots))),
            Prop::And(a, b) => Residual::And(
                Box::new(Residual::of(a, slots)),
                Box::new(Residual::of(b, slots)),
            ),
            Prop::Or(a, b) => Residual::Or(
                Box::new(Residual::of(a, slots)),
                Box::new(Residual::of(b, slots)),
            ),
        };
        r.given(&|_| None)
    }

    /// The residual once the slots `at` answers for have those values.
    fn given(&self, at: &dyn Fn(usize) -> Option<Option<i64>>) -> Residual {
        use Residual::{And, Cmp, Known, Not, Or};
        let side = |s: Side| match s {
            Side::Slot(k) => at(k).map_or(s, Side::Value),
            v => v,
        };
        match self {
            Known(t) => Known(*t),
            Cmp(a, op, b) => match (side(*a), side(*b)) {
                (Side::Value(x), Side::Value(y)) => Known(x.zip(y).map(|(x, y)| op.holds(x, y))),
                (a, b) => Cmp(a, *op, b),
            },
            Not(a) => match a.given(at) {
                Known(t) => Known(t.map(|b| !b)),
                a => Not(Box::new(a)),
            },
            // Both known: Kleene's table; one known to decide alone (false
            // for ∧, true for ∨) or to be neutral (true for ∧, false for ∨)
            // folds; else the residual keeps both.
            And(a, b) => match (a.given(at), b.given(at)) {
                (Known(x), Known(y)) => Known(kleene_and(x, y)),
                (Known(Some(false)), _) | (_, Known(Some(false))) => Known(Some(false)),
                (Known(Some(true)), x) | (x, Known(Some(true))) => x,
                (a, b) => And(Box::new(a), Box::new(b)),
            },
            Or(a, b) => match (a.given(at), b.given(at)) {
                (Known(x), Known(y)) => Known(kleene_or(x, y)),
                (Known(Some(true)), _) | (_, Known(Some(true))) => Known(Some(true)),
                (Known(Some(false)), x) | (x, Known(Some(false))) => x,
                (a, b) => Or(Box::new(a), Box::new(b)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(regs: &[&str], mem: &[&str]) -> State {
        State {
            regs: regs.iter().map(|n| (n.to_string(), None)).collect(),
            mem: mem.iter().map(|n| (n.to_string(), None)).collect(),
        }
    }

    /// Two readers of one register each, and a fixed memory: the listing is
    /// the product in order, and the counts multiply.
    #[test]
    fn a_product_lists_in_order_and_counts_multiply() {
        let block = |mem: i64, times| Block {
            fixed: vec![None, None, Some(mem)],
            times,
            parts: vec![
                vec![(vec![None], 1), (vec![Some(0)], 2)],
                vec![(vec![Some(0)], 1), (vec![Some(1)], 3)],
            ],
        };
        let f = Factored::new(
            shape(&["P0:r", "P1:r"], &["x"]),
            vec![0..1, 1..2],
            vec![block(2, 1), block(1, 5)],
        );
        assert_eq!(f.states(), 8);
        assert_eq!(f.determined(), 4);
        assert_eq!(f.pomsets(), 3 * 4 + 5 * 3 * 4);
        let mut listed = Vec::new();
        f.first(100, false, &mut |v, n| listed.push((v.to_vec(), n)));
        // The product by hand: each block's fixed memory, each reader's
        // values, the counts multiplied.
        let mut all = Vec::new();
        for (mem, times) in [(2, 1), (1, 5)] {
            for (a, m) in [(None, 1), (Some(0), 2)] {
                for (b, n) in [(Some(0), 1), (Some(1), 3)] {
                    all.push((vec![a, b, Some(mem)], times * m * n));
                }
            }
        }
        all.sort();
        assert_eq!(listed, all);
        let mut each = Vec::new();
        f.each(&mut |v, n| each.push((v.to_vec(), n)));
        assert_eq!(each, all);
        assert_eq!(listed[0], (vec![None, Some(0), Some(1)], 5));
        let mut first = Vec::new();
        f.first(3, true, &mut |v, n| first.push((v.to_vec(), n)));
        assert_eq!(
            first,
            vec![
                (vec![Some(0), Some(0), Some(1)], 10),
                (vec![Some(0), Some(0), Some(2)], 2),
                (vec![Some(0), Some(1), Some(1)], 30),
            ]
        );
    }

    /// Three reads of one class (they may coalesce) and one reader of its
    /// own: every state's count is the product of the Touchard sums of its
    /// class's values, checked against partitions counted by hand; the
    /// total is the sum of the listed counts (`tests/it/factored.rs` checks
    /// the condition counts against the plain search).
    /// Three reads of one class and a reader of its own, two values each
    /// and `?`, in one block.
    fn class_product() -> Factored {
        // `?` (no event, 1 way), 0 (1 rf), 1 (2 rfs).
        let class_part = vec![(vec![None], 1), (vec![Some(0)], 1), (vec![Some(1)], 2)];
        let block = Block {
            fixed: vec![None, None, None, None, Some(7)],
            times: 3,
            parts: vec![
                class_part.clone(),
                class_part.clone(),
                class_part.clone(),
                vec![(vec![Some(5)], 4), (vec![Some(6)], 1)],
            ],
        };
        Factored::new(
            shape(&["P0:a", "P0:b", "P0:c", "P1:r"], &["x"]),
            vec![0..1, 1..2, 2..3, 3..4],
            vec![block],
        )
        .coalescing(&[9, 9, 9, 2])
        .expect("the class's parts agree")
    }

    #[test]
    fn a_class_of_reads_counts_their_coalescings() {
        let f = class_product();
        // Partitions of m reads into j events, each event c ways, by hand.
        let ways = |m: usize, c: usize, value: Option<i64>| -> usize {
            let stirling = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 1, 3, 1]];
            match value {
                None => c.pow(m as u32),
                Some(_) => (0..=m).map(|j| stirling[m][j] * c.pow(j as u32)).sum(),
            }
        };
        let mut listed = Vec::new();
        f.each(&mut |v, n| listed.push((v.to_vec(), n)));
        assert_eq!(listed.len(), 54);
        for (v, n) in &listed {
            let mut expected = 3 * if v[3] == Some(5) { 4 } else { 1 };
            for (value, c) in [(None, 1), (Some(0), 1), (Some(1), 2)] {
                let m = v[..3].iter().filter(|x| **x == value).count();
                expected *= ways(m, c, value);
            }
            assert_eq!(*n, expected, "{v:?}");
        }
        // All three read 1: S(3,1) 2 + S(3,2) 4 + S(3,3) 8 = 22 ways.
        let all_one = listed.iter().find(|(v, _)| v[..3] == [Some(1); 3]);
        assert_eq!(all_one.map(|x| x.1), Some(3 * 4 * 22));
        let total: usize = listed.iter().map(|x| x.1).sum();
        assert_eq!(f.pomsets(), total);
        assert_eq!(f.states(), 54);
    }

    /// `count` counts one side and takes the other as the rest: both sides,
    /// each counted by `count_where`, add up to every pomset, and the true
    /// side is what visiting every state finds.
    #[test]
    fn both_sides_of_a_count_add_up_to_every_pomset() {
        let f = class_product();
        let eq = |slot, v| Residual::Cmp(Side::Slot(slot), CmpOp::Eq, Side::Value(v));
        let and = |a, b| Residual::And(Box::new(a), Box::new(b));
        let or = |a, b| Residual::Or(Box::new(a), Box::new(b));
        let not = |a| Residual::Not(Box::new(a));
        let props = [
            eq(0, Some(1)),
            and(eq(0, Some(1)), eq(1, Some(1))),
            or(eq(2, Some(0)), eq(3, Some(6))),
            not(and(eq(1, Some(0)), eq(4, Some(7)))),
            // Unknown where a read is `?`: counted with the false.
            Residual::Cmp(Side::Slot(0), CmpOp::Ne, Side::Slot(1)),
        ];
        let true_ = Residual::Known(Some(true));
        for r in &props {
            let yes = f.count_where(r, &|x| *x == true_).expect("small");
            let no = f.count_where(r, &|x| *x != true_).expect("small");
            assert_eq!(yes + no, f.total(), "{r:?}");
            let mut by_hand = 0u128;
            f.each(&mut |v, n| {
                if r.given(&|s| Some(v[s])) == true_ {
                    by_hand += n as u128;
                }
            });
            assert_eq!(yes, by_hand, "{r:?}");
            assert!(yes > 0 && no > 0, "{r:?} splits the states");
        }
    }
}
