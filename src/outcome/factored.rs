//! Final states kept as a product: a union of blocks, each one fixed part
//! (the registers of the threads that write, and the final memory) times
//! one set of register values per reader thread. An engine hands outcomes
//! over this way only where it has shown that the readers are independent
//! given the fixed part (`engine::pwt::factor` argues when); then a state's
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
        Factored {
            shape,
            readers,
            blocks,
        }
    }

    /// The readers' thread names, as their registers are named (`P2` of
    /// `P2:r0`), in order.
    pub fn readers(&self) -> Vec<String> {
        self.readers
            .iter()
            .filter_map(|r| self.shape.regs.get(r.start))
            .filter_map(|(name, _)| name.split_once(':').map(|(t, _)| t.to_string()))
            .collect()
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
        self.sum(|b| b.times, |(_, c)| *c)
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
        let parts: Vec<Vec<Vec<&(Values, usize)>>> = self
            .blocks
            .iter()
            .map(|b| {
                b.parts
                    .iter()
                    .map(|p| {
                        p.iter()
                            .filter(|(v, _)| !determined_only || whole(v))
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
        let values_at = |k: usize, at: &[usize]| {
            let mut v = self.blocks[k].fixed.clone();
            for ((range, part), &i) in self.readers.iter().zip(&parts[k]).zip(at) {
                v[range.clone()].copy_from_slice(&part[i].0);
            }
            let count = at
                .iter()
                .zip(&parts[k])
                .fold(self.blocks[k].times, |n, (&i, part)| {
                    n.saturating_mul(part[i].1)
                });
            (v, count)
        };
        let mut heap = BinaryHeap::new();
        for k in (0..self.blocks.len()).filter(|&k| usable(k)) {
            let at = vec![0; self.readers.len()];
            let (v, _) = values_at(k, &at);
            heap.push(std::cmp::Reverse((v, k, at)));
        }
        let mut listed = 0;
        while let Some(std::cmp::Reverse((_, k, mut at))) = heap.pop() {
            if listed == n {
                return;
            }
            let (v, count) = values_at(k, &at);
            f(&v, count);
            listed += 1;
            // The next state of block k: the odometer, last reader fastest.
            if advance(&mut at, |i| parts[k][i].len()) {
                let (v, _) = values_at(k, &at);
                heap.push(std::cmp::Reverse((v, k, at)));
            }
        }
    }

    /// The complete pomsets whose state makes `prop` true, and those whose
    /// state does not (false or unknown, `verdict::truth`), without visiting
    /// the states: the proposition is evaluated on the fixed part, then
    /// reader by reader, and the partly evaluated propositions are kept
    /// with the pomsets that lead to each (a product of sums for each).
    /// `Err` names the bound when more than `MAX_RESIDUALS` partly
    /// evaluated propositions are needed at once.
    pub fn count(&self, p: &Program, prop: &Prop) -> Result<(usize, usize), String> {
        let slots = Slots::of(p, &self.shape);
        let start = Residual::of(prop, &slots);
        let (mut positive, mut negative) = (0u128, 0u128);
        for b in &self.blocks {
            let reader_slot = |s: usize| self.readers.iter().any(|r| r.contains(&s));
            let first = start.given(&|s| (!reader_slot(s)).then(|| b.fixed[s]));
            let mut held: HashMap<Residual, u128> = HashMap::from([(first, b.times as u128)]);
            for (range, part) in self.readers.iter().zip(&b.parts) {
                let mut next: HashMap<Residual, u128> = HashMap::new();
                for (r, n) in &held {
                    for (values, c) in part {
                        let at = |s: usize| range.contains(&s).then(|| values[s - range.start]);
                        let e = next.entry(r.given(&at)).or_insert(0);
                        *e = e.saturating_add(n.saturating_mul(*c as u128));
                    }
                    if next.len() > MAX_RESIDUALS {
                        return Err(format!(
                            "more than {MAX_RESIDUALS} partly evaluated conditions \
                             (counting a condition over readers kept apart)"
                        ));
                    }
                }
                held = next;
            }
            for (r, n) in held {
                match r {
                    Residual::Known(Some(true)) => positive = positive.saturating_add(n),
                    _ => negative = negative.saturating_add(n),
                }
            }
        }
        let fit = |n: u128| usize::try_from(n).unwrap_or(usize::MAX);
        Ok((fit(positive), fit(negative)))
    }

    /// Every state with its count, in order: for checks on small outcomes
    /// (it visits every state).
    pub fn each(&self, f: &mut dyn FnMut(&[Option<i64>], usize)) {
        self.first(usize::MAX, false, f);
    }
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
}
