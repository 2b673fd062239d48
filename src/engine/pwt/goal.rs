//! Condition-directed search (`run --verdict-only`): deciding one condition
//! without enumerating every final state.
//!
//! A verdict needs two facts per condition: whether some final state makes
//! the proposition true, and whether some state does not. Each is a search
//! for one state, a *goal*, that stops at the first state found. Three
//! prunings make it fast, each exact for the goal it serves:
//!
//! 1. **Pinned reads.** A register assigned exactly once, by a read that no
//!    `if` encloses, ends with that read's value, or `?` when the read is
//!    dropped (R4c). So when the goal cannot be met with that final value
//!    whatever the rest of the state is, no pomset in which the read takes it
//!    can end in a goal state, and the read's construction skips it
//!    (`Sem::pinned`). Every complete pomset is built from one pomset of each
//!    read (Fig. 1 is compositional), so this removes exactly the pomsets
//!    whose state misses the goal.
//! 2. **Partial states.** While the product of threads is searched, the
//!    registers of the threads chosen so far are known; a branch is cut when
//!    no values of the remaining registers and locations can meet the goal.
//! 3. **First state.** The search stops at the first state that meets the goal.
//!
//! "Can meet" is decided by `possible`, an over-approximation: the set of
//! truth values (Kleene's three, as `verdict::truth` uses) a proposition can
//! still take when some terms are known and the others free. Over-
//! approximating only weakens the pruning, never the verdict.

use std::collections::HashMap;

use crate::syntax::ast::Quantifier;
use crate::syntax::core::{Condition, Loc, LocId, Program, Prop, RegId, Stmt, Term};

use crate::outcome::State;

/// What a goal search looks for: a state where the proposition is true, or
/// one where it is not (false, or unknown because of a `?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    Holds,
    Fails,
}

/// One goal: a proposition and what the state must make of it; the state
/// must also pass the test's `filter` (herd7's), which the verdicts count
/// only the states of.
#[derive(Clone, Copy, Debug)]
pub struct Goal<'p> {
    pub prop: &'p Prop,
    pub want: Want,
    pub filter: Option<&'p Prop>,
}

/// A term's value as far as it is known: a final value (`None` is `?`), or
/// free (not chosen yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    Value(Option<i64>),
    Free,
}

/// Sets of Kleene truth values as bit masks.
pub const TRUE: u8 = 1;
pub const FALSE: u8 = 2;
pub const UNKNOWN: u8 = 4;
const ALL: u8 = TRUE | FALSE | UNKNOWN;

fn members(mask: u8) -> impl Iterator<Item = Option<bool>> {
    [(TRUE, Some(true)), (FALSE, Some(false)), (UNKNOWN, None)]
        .into_iter()
        .filter(move |(bit, _)| mask & bit != 0)
        .map(|(_, t)| t)
}

fn bit(t: Option<bool>) -> u8 {
    match t {
        Some(true) => TRUE,
        Some(false) => FALSE,
        None => UNKNOWN,
    }
}

/// Applies a Kleene connective to every pair of possible truth values.
fn lift(a: u8, b: u8, op: fn(Option<bool>, Option<bool>) -> Option<bool>) -> u8 {
    let mut out = 0;
    for x in members(a) {
        for y in members(b) {
            out |= bit(op(x, y));
        }
    }
    out
}

fn and3(x: Option<bool>, y: Option<bool>) -> Option<bool> {
    match (x, y) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or3(x: Option<bool>, y: Option<bool>) -> Option<bool> {
    match (x, y) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// The truth values `prop` can take (a mask of `TRUE`, `FALSE`, `UNKNOWN`)
/// when `lookup` gives what is known of each register and location. Exact
/// when every term is known; otherwise a superset (subformulae are treated
/// as independent).
pub fn possible(prop: &Prop, lookup: &dyn Fn(&Term) -> Known) -> u8 {
    match prop {
        Prop::True => TRUE,
        Prop::False => FALSE,
        Prop::Not(a) => {
            let m = possible(a, lookup);
            (m & UNKNOWN) | (m & TRUE) << 1 | (m & FALSE) >> 1
        }
        Prop::And(a, b) => lift(possible(a, lookup), possible(b, lookup), and3),
        Prop::Or(a, b) => lift(possible(a, lookup), possible(b, lookup), or3),
        Prop::Cmp(a, op, b) => {
            let side = |t: &Term| match t {
                Term::Int(v) => Known::Value(Some(*v)),
                _ => lookup(t),
            };
            match (side(a), side(b)) {
                (Known::Free, _) | (_, Known::Free) => ALL,
                (Known::Value(Some(x)), Known::Value(Some(y))) => bit(Some(op.holds(x, y))),
                _ => UNKNOWN,
            }
        }
    }
}

impl Goal<'_> {
    /// Whether a state whose proposition can take the truth values in
    /// `mask` can meet the goal.
    fn admits(&self, mask: u8) -> bool {
        match self.want {
            Want::Holds => mask & TRUE != 0,
            Want::Fails => mask & (FALSE | UNKNOWN) != 0,
        }
    }

    /// Whether some final state agreeing with `lookup` on what it knows can
    /// meet the goal: its proposition as wanted and the filter true.
    pub fn reachable(&self, lookup: &dyn Fn(&Term) -> Known) -> bool {
        self.admits(possible(self.prop, lookup))
            && self.filter.is_none_or(|f| possible(f, lookup) & TRUE != 0)
    }

    /// Whether a final state meets the goal.
    pub fn met_by(&self, p: &Program, s: &State) -> bool {
        let truth = crate::outcome::verdict::truth(p, s, self.prop);
        crate::outcome::verdict::kept(p, s) && (truth == Some(true)) == (self.want == Want::Holds)
    }
}

/// The goals that decide a condition's verdict: a state that makes it true
/// (`positive > 0`) and one that does not (`negative > 0`), among the states
/// the filter keeps.
pub fn goals<'p>(p: &'p Program, c: &'p Condition) -> [Goal<'p>; 2] {
    [Want::Holds, Want::Fails].map(|want| Goal {
        prop: &c.prop,
        want,
        filter: p.filter.as_ref(),
    })
}

/// Which goal settles `herd7`'s Ok/No for the quantifier: a true state for
/// exists-like conditions, a counterexample for `forall`.
pub fn deciding(q: Quantifier) -> Want {
    match q {
        Quantifier::Forall => Want::Fails,
        _ => Want::Holds,
    }
}

/// Pruning 1: for each register that a single read outside every `if`
/// assigns, the final values (`None`: the read dropped) with which the goal
/// can still be met. Registers left out are not restricted.
pub fn pinned(p: &Program, goal: &Goal) -> HashMap<RegId, Vec<Option<i64>>> {
    let mut out = HashMap::new();
    for (r, _) in read_once(p) {
        let candidates = p.values.iter().map(|&v| Some(v)).chain([None]);
        let allowed: Vec<Option<i64>> = candidates
            .filter(|&v| {
                let lookup = |t: &Term| match t {
                    Term::Reg(x) if *x == r => Known::Value(v),
                    _ => Known::Free,
                };
                goal.reachable(&lookup)
            })
            .collect();
        if allowed.len() < p.values.len() + 1 {
            out.insert(r, allowed);
        }
    }
    out
}

/// A first try for a goal (`settle`): every register that a single read
/// outside every `if` assigns takes one value, the initial value of the
/// location read when the goal admits it (reading the initial value is
/// rarely inconsistent), else the first value it admits. A state found
/// this way is a real final state meeting the goal; when none is found the
/// exact search (`pinned`) follows, so the try changes speed, never a verdict.
pub fn first_try(p: &Program, goal: &Goal) -> HashMap<RegId, Vec<Option<i64>>> {
    let exact = pinned(p, goal);
    let mut out = HashMap::new();
    for (r, loc) in read_once(p) {
        let admitted: Vec<Option<i64>> = match exact.get(&r) {
            Some(vs) => vs.clone(),
            None => p.values.iter().map(|&v| Some(v)).collect(),
        };
        let init = loc.map(|l| Some(p.locs[l as usize].init));
        let pick = init
            .filter(|v| admitted.contains(v))
            .or_else(|| admitted.iter().copied().find(Option::is_some))
            .or_else(|| admitted.first().copied());
        if let Some(v) = pick {
            out.insert(r, vec![v]);
        }
    }
    out
}

/// The registers assigned exactly once, by a READ that no IF encloses, with
/// the location read when it is named.
pub(crate) fn read_once(p: &Program) -> Vec<(RegId, Option<LocId>)> {
    let mut assigned: HashMap<RegId, (usize, Option<Option<LocId>>)> = HashMap::new();
    for (_, body) in &p.main {
        count_assignments(body, false, &mut assigned);
    }
    let mut out: Vec<(RegId, Option<LocId>)> = assigned
        .into_iter()
        .filter_map(|(r, (n, read))| match (n, read) {
            (1, Some(loc)) => Some((r, loc)),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out
}

/// Counts the statements that assign each register, noting the location
/// when the register is assigned by a READ that no IF encloses.
fn count_assignments(
    s: &Stmt,
    under_if: bool,
    out: &mut HashMap<RegId, (usize, Option<Option<LocId>>)>,
) {
    let mut note = |r: RegId, plain_read: Option<Option<LocId>>| {
        let e = out.entry(r).or_insert((0, None));
        e.0 += 1;
        e.1 = plain_read;
    };
    match s {
        Stmt::Read { reg, loc, .. } => {
            let named = match loc {
                Loc::Named(l) => Some(*l),
                Loc::Computed(_) => None,
            };
            note(*reg, (!under_if).then_some(named));
        }
        Stmt::Let { reg, .. } | Stmt::Rmw { reg, .. } => note(*reg, None),
        Stmt::If { then, els, .. } => {
            count_assignments(then, true, out);
            count_assignments(els, true, out);
        }
        Stmt::Seq(parts) => parts
            .iter()
            .for_each(|x| count_assignments(x, under_if, out)),
        Stmt::Par { left, right, .. } => {
            count_assignments(left, under_if, out);
            count_assignments(right, under_if, out);
        }
        Stmt::Vulkan { body, .. } => count_assignments(body, under_if, out),
        Stmt::Skip
        | Stmt::Write { .. }
        | Stmt::Fence { .. }
        | Stmt::Barrier { .. }
        | Stmt::Diverge { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::CmpOp;

    fn eq(r: RegId, v: i64) -> Prop {
        Prop::Cmp(Term::Reg(r), CmpOp::Eq, Term::Int(v))
    }

    #[test]
    fn possible_is_exact_when_everything_is_known() {
        let p = Prop::And(Box::new(eq(0, 1)), Box::new(eq(1, 0)));
        let known = |t: &Term| match t {
            Term::Reg(0) => Known::Value(Some(1)),
            Term::Reg(1) => Known::Value(None),
            _ => Known::Free,
        };
        assert_eq!(possible(&p, &known), UNKNOWN);
        let negated = Prop::Not(Box::new(p.clone()));
        assert_eq!(possible(&negated, &known), UNKNOWN);
    }

    #[test]
    fn a_free_term_leaves_every_truth_value_open_and_false_conjuncts_close_them() {
        let p = Prop::And(Box::new(eq(0, 1)), Box::new(eq(1, 0)));
        let half = |t: &Term| match t {
            Term::Reg(0) => Known::Value(Some(0)),
            _ => Known::Free,
        };
        assert_eq!(possible(&p, &half), FALSE);
        let open = |_: &Term| Known::Free;
        assert_eq!(possible(&p, &open), ALL);
        let or = Prop::Or(Box::new(eq(0, 1)), Box::new(eq(1, 0)));
        assert_eq!(possible(&or, &half), ALL);
    }
}
