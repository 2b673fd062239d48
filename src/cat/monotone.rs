//! Which of a model's checks can refute a partial candidate (the lazy
//! search of `engine::axiomatic::search`).
//!
//! A partial candidate is a sub-execution of each of its completions: its
//! events are a prefix of each thread's trace (and the initial writes of
//! the cells touched so far), every relation fixed by the traces is the
//! restriction of the completion's, and rf and co are subsets of the
//! completion's. An expression is *stable* if its value there is the
//! restriction of its value on every completion, *monotone* if it is
//! contained in it. A non-negated `acyclic`, `irreflexive` or `empty` check
//! (not a flag) of a monotone expression that fails on the partial
//! candidate fails on every completion: a cycle, a reflexive pair or a
//! pair of the part is one of the whole. Those checks are the prunable
//! ones; every other check is judged on complete candidates only.

use super::builtins::Builtin;
use super::compile::{Ir, Model, Step};

/// How an expression's value on a partial candidate relates to its value
/// on a completion; ordered from weakest to strongest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// Nothing known (a difference by rf, `per-scope`).
    Unknown,
    /// Contained in the completion's value.
    Monotone,
    /// The completion's value restricted to the partial candidate's events.
    Stable,
}

/// The checks of `model` (indices into `steps`) that refute every
/// completion of a partial candidate on which they fail under every
/// choice of the model's `with` (if any; `Model::refutes` tries each).
///
/// A `with NAME from linearisations(S, r)` is accepted under some strict
/// total order on S extending r. When S and r are monotone, the part's
/// choices include the restriction of each completion's: a completion's
/// order restricted to the part's S (a subset of the completion's) is
/// total there and extends the part's r (contained in the completion's).
/// Under that restriction the slot's value on the part is contained in
/// the completion's, so the slot is monotone. A check monotone in it that
/// fails on the part under every choice then fails on the completion
/// under every choice: the completion is rejected. A part with no choice
/// is not refuted (`Model::refutes`).
pub fn prunable(model: &Model) -> Vec<usize> {
    let mut slots: Vec<Option<Level>> = vec![None; model.slots];
    model
        .checks_by_cost
        .iter()
        .copied()
        .filter(|&i| match model.steps.get(i) {
            Some(Step::Check(c)) if !c.flag && !c.negated => {
                level(model, &c.ir, &mut slots) >= Level::Monotone
            }
            _ => false,
        })
        .collect()
}

/// A builtin's level: rf, co and what is made of them (the builtins that
/// are not `Builtin::fixed`) grow with the candidate; everything else is a
/// property of one or two events or of a thread's prefix (po, the
/// dependencies, rmw, barrier instances).
fn builtin(b: Builtin) -> Level {
    match b.fixed() {
        true => Level::Stable,
        false => Level::Monotone,
    }
}

/// The level of `ir`, slots memoised in `slots`.
fn level(model: &Model, ir: &Ir, slots: &mut Vec<Option<Level>>) -> Level {
    use Level::*;
    let mut of = |e: &Ir| level(model, e, slots);
    match ir {
        Ir::Builtin(b) => builtin(*b),
        Ir::Empty(_) => Stable,
        Ir::Slot(s) => slot(model, *s, slots),
        Ir::Union(a, b) | Ir::Inter(a, b) | Ir::Product(a, b) => {
            let l = of(a);
            l.min(of(b))
        }
        Ir::Diff(a, b) => {
            let (l, r) = (of(a), of(b));
            match r {
                Stable => l,
                _ => Unknown,
            }
        }
        Ir::Complement(a) => match of(a) {
            Stable => Stable,
            _ => Unknown,
        },
        Ir::Inverse(a) | Ir::Bracket(a) => of(a),
        // The identity on every event is stable, so `r?` is as `r` is.
        Ir::Opt(a) => of(a),
        // Paths may pass through events the part does not have yet.
        Ir::Seq(a, b) => {
            let l = of(a);
            l.min(of(b)).min(Monotone)
        }
        Ir::Plus(a) | Ir::Star(a) | Ir::Domain(a) | Ir::Range(a) | Ir::FenceRel(a) => {
            of(a).min(Monotone)
        }
        // Groups are keyed by scope instances compared as bitsets: left out.
        Ir::PerScope(..) => Unknown,
    }
}

/// A slot's level: its `let`'s body's; a `let rec`'s slots are monotone
/// when every body is, taking them as monotone (the least fixpoint of a
/// monotone map grows with its argument); a `with`'s is monotone when
/// its set and order are (`prunable` argues it).
fn slot(model: &Model, s: usize, slots: &mut Vec<Option<Level>>) -> Level {
    if let Some(l) = slots.get(s).copied().flatten() {
        return l;
    }
    let step = model.defined_by.get(s).and_then(|&i| model.steps.get(i));
    let l = match step {
        Some(Step::Let(_, body)) => level(model, body, slots),
        Some(Step::Rec {
            slots: rec, bodies, ..
        }) => {
            for (r, _) in rec {
                slots[*r] = Some(Level::Monotone);
            }
            let l = bodies
                .iter()
                .map(|b| level(model, b, slots))
                .min()
                .unwrap_or(Level::Monotone)
                .min(Level::Monotone);
            for (r, _) in rec {
                slots[*r] = Some(l);
            }
            l
        }
        Some(Step::With { set, order, .. }) => level(model, set, slots)
            .min(level(model, order, slots))
            .min(Level::Monotone),
        _ => Level::Unknown,
    };
    if let Some(slot) = slots.get_mut(s) {
        *slot = Some(l);
    }
    l
}

/// Whether the model uses `per-scope`, whose groups are keyed by scope
/// instances compared as bitsets of event indices: the one construct whose
/// value may change when threads are swapped (the engine's symmetry).
pub fn uses_per_scope(model: &Model) -> bool {
    uses(model, &|ir| matches!(ir, Ir::PerScope(..)))
}

/// Whether the model reads where the threads sit (`Engine::reads_placement`):
/// the placement reaches a candidate only as `same-cta`, `same-gpu`, the
/// Vulkan names (subgroups, barriers: all counted, to be safe) and the
/// scope instances `per-scope` groups by. A model with none of them judges
/// two placements of one program alike.
pub fn reads_placement(model: &Model) -> bool {
    use super::builtins::Builtin;
    uses(model, &|ir| {
        matches!(
            ir,
            Ir::PerScope(..)
                | Ir::Builtin(Builtin::SameCta | Builtin::SameGpu | Builtin::Vulkan(_))
        )
    })
}

/// Whether some expression of the model has a node `hit` picks.
fn uses(model: &Model, hit: &dyn Fn(&Ir) -> bool) -> bool {
    let any = |ir: &Ir| {
        // Iterative: a compiled expression may be deep (`cat::depth` bounds it).
        let mut stack = vec![ir];
        while let Some(ir) = stack.pop() {
            if hit(ir) {
                return true;
            }
            stack.extend(ir.children());
        }
        false
    };
    model.steps.iter().any(|s| match s {
        Step::Let(_, ir) => any(ir),
        Step::Rec { bodies, .. } => bodies.iter().any(any),
        Step::Check(c) => any(&c.ir),
        Step::With { set, order, .. } => any(set) || any(order),
    })
}
