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
//!
//! Nothing here needs the part's events to be prefixes of the threads:
//! every fixed builtin is a property of one event or of a pair of events
//! (`cat::builtins::value`: the sets, po, the dependencies, rmw, loc, int,
//! ext, the scope and barrier relations), so on the sub-execution induced
//! by any subset of a candidate's events (its rf and co restricted, or
//! contained in the restriction) the levels above hold as they do for a
//! part. The lazy search's probes (`engine::axiomatic::search`,
//! `Search::probe`) judge such sub-executions of three or four events.

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

/// Whether the model reads the storage classes of a release's or an
/// acquire's semantics (`SEMSC0` to `SEMSC3`, Vulkan's): its programs must
/// then write them to synchronise (`Engine::qualifiers`).
pub fn reads_semantics(model: &Model) -> bool {
    use super::builtins::VkBuiltin;
    model.reads(|b| matches!(b, Builtin::Vulkan(VkBuiltin::SemSc(_))))
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

/// Whether every candidate in which a read takes its value from a write of
/// its own thread that comes after it in program order fails one of
/// `checks` (prunable ones): the lazy search then leaves no read pending
/// for such a write (`engine::axiomatic::search`, `Search::may_feed`).
///
/// Such a read `r` and write `w` are a pair `(w, r)` in rf, and `(r, w)`
/// in po and po-loc; both pairs are on one location, in one thread, of
/// distinct memory events, the first from a write (not an initial one) to
/// a read. `covers` proves, from the expression's syntax alone, that an
/// expression holds such a pair on every candidate that has it. An
/// `acyclic` check whose expression holds both pairs has the 2-cycle
/// `w r w`; an `empty` one that holds the first is not empty; an
/// `irreflexive` one of `a ; b` where `a` holds one pair and `b` the other
/// relates `w` (or `r`) to itself. Anything
/// `covers` cannot tell (modes, scopes, dependencies, `domain`, `let rec`,
/// a `with`'s order) counts as not holding it, so the answer errs only
/// towards false: then reads wait for such writes as for any other.
pub fn refutes_own_later_rf(model: &Model, checks: &[usize]) -> bool {
    use super::parse::CheckKind;
    checks.iter().any(|&i| match model.steps.get(i) {
        Some(Step::Check(c)) if !c.flag && !c.negated => match c.kind {
            CheckKind::Acyclic => {
                covers(model, &c.ir, Pair::Rf, 0) && covers(model, &c.ir, Pair::Po, 0)
            }
            CheckKind::Empty => covers(model, &c.ir, Pair::Rf, 0),
            CheckKind::Irreflexive => round_trip(model, &c.ir, 0),
        },
        _ => false,
    })
}

/// Whether `ir` relates the pair's write or read to itself: a sequence
/// of one that holds a pair and one that holds its inverse.
fn round_trip(model: &Model, ir: &Ir, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match ir {
        Ir::Seq(a, b) => [Pair::Rf, Pair::Po]
            .into_iter()
            .any(|p| covers(model, a, p, depth + 1) && covers(model, b, p.inverse(), depth + 1)),
        Ir::Union(a, b) => round_trip(model, a, depth + 1) || round_trip(model, b, depth + 1),
        Ir::Slot(s) => let_body(model, *s).is_some_and(|body| round_trip(model, body, depth + 1)),
        _ => false,
    }
}

/// The two pairs of `refutes_own_later_rf`: `Rf` is `(w, r)`, `Po` is
/// `(r, w)` (each the other's inverse).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pair {
    Rf,
    Po,
}

impl Pair {
    fn inverse(self) -> Pair {
        match self {
            Pair::Rf => Pair::Po,
            Pair::Po => Pair::Rf,
        }
    }

    /// Whether the pair's first event is the write (else the read).
    fn starts_at_write(self) -> bool {
        self == Pair::Rf
    }
}

/// How deep `covers` follows `let`s (a model's are far shallower; deeper
/// counts as not holding).
const MAX_DEPTH: usize = 64;

/// Whether `ir` holds `pair` on every candidate that has the pair.
fn covers(model: &Model, ir: &Ir, pair: Pair, depth: usize) -> bool {
    use Builtin as B;
    if depth > MAX_DEPTH {
        return false;
    }
    let of = |e: &Ir, p: Pair| covers(model, e, p, depth + 1);
    match ir {
        Ir::Builtin(b) => match pair {
            Pair::Rf => matches!(b, B::Rf | B::Rfi | B::Loc | B::Int),
            Pair::Po => matches!(b, B::Po | B::PoLoc | B::Loc | B::Int),
        },
        Ir::Slot(s) => match let_body(model, *s) {
            Some(body) => of(body, pair),
            None => false,
        },
        Ir::Union(a, b) => of(a, pair) || of(b, pair),
        Ir::Inter(a, b) => of(a, pair) && of(b, pair),
        Ir::Diff(a, b) => of(a, pair) && misses(model, b, pair, depth + 1),
        Ir::Inverse(a) => of(a, pair.inverse()),
        Ir::Plus(a) | Ir::Star(a) | Ir::Opt(a) => of(a, pair),
        Ir::Product(a, b) => {
            has(model, a, pair.starts_at_write(), depth + 1)
                && has(model, b, !pair.starts_at_write(), depth + 1)
        }
        // `[S] ; e` and `e ; [S]` (and `r* ; e`, `e ; r?`): the identity
        // on the pair's end, then the pair.
        Ir::Seq(a, b) => {
            (identity(model, a, pair.starts_at_write(), depth + 1) && of(b, pair))
                || (of(a, pair) && identity(model, b, !pair.starts_at_write(), depth + 1))
        }
        Ir::Complement(a) => misses(model, a, pair, depth + 1),
        _ => false,
    }
}

/// Whether `ir` holds the pair on no candidate that has it.
fn misses(model: &Model, ir: &Ir, pair: Pair, depth: usize) -> bool {
    use Builtin as B;
    if depth > MAX_DEPTH {
        return false;
    }
    let of = |e: &Ir| misses(model, e, pair, depth + 1);
    match ir {
        // Distinct events of one thread, neither an initial write: not in
        // the identity nor in anything external; co relates writes only,
        // and a write is never the source of fr.
        Ir::Builtin(b) => {
            matches!(
                b,
                B::Id | B::Ext | B::Rfe | B::Coe | B::Fre | B::Co | B::Coi
            ) || (pair == Pair::Rf && matches!(b, B::Po | B::PoLoc | B::Fr | B::Fri))
        }
        Ir::Empty(_) | Ir::Bracket(_) => true,
        Ir::Slot(s) => let_body(model, *s).is_some_and(of),
        Ir::Union(a, b) => of(a) && of(b),
        Ir::Inter(a, b) => of(a) || of(b),
        Ir::Diff(a, _) => of(a),
        Ir::Inverse(a) => misses(model, a, pair.inverse(), depth + 1),
        Ir::Product(a, b) => {
            lacks(model, a, pair.starts_at_write(), depth + 1)
                || lacks(model, b, !pair.starts_at_write(), depth + 1)
        }
        _ => false,
    }
}

/// Whether the set `ir` has the pair's write (`write`) or read event.
fn has(model: &Model, ir: &Ir, write: bool, depth: usize) -> bool {
    member(model, ir, write, depth) == Some(true)
}

/// Whether the set `ir` lacks the pair's write (`write`) or read event.
fn lacks(model: &Model, ir: &Ir, write: bool, depth: usize) -> bool {
    member(model, ir, write, depth) == Some(false)
}

/// Whether the set `ir` has the pair's write (`write`) or read event
/// (`Some(true)`), lacks it (`Some(false)`), or the syntax cannot tell.
fn member(model: &Model, ir: &Ir, write: bool, depth: usize) -> Option<bool> {
    use Builtin as B;
    if depth > MAX_DEPTH {
        return None;
    }
    let of = |e: &Ir| member(model, e, write, depth + 1);
    match ir {
        // Neither event is an initial write or a fence; one kind each.
        Ir::Builtin(B::All | B::M) => Some(true),
        Ir::Builtin(B::IW | B::F) => Some(false),
        Ir::Builtin(B::W) => Some(write),
        Ir::Builtin(B::R) => Some(!write),
        Ir::Empty(_) => Some(false),
        Ir::Slot(s) => let_body(model, *s).and_then(of),
        Ir::Union(a, b) => match (of(a), of(b)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Ir::Inter(a, b) => match (of(a), of(b)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Ir::Diff(a, b) => match (of(a), of(b)) {
            (Some(false), _) | (_, Some(true)) => Some(false),
            (Some(true), Some(false)) => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the relation `ir` holds the identity pair on the pair's write
/// (`write`) or read event.
fn identity(model: &Model, ir: &Ir, write: bool, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match ir {
        Ir::Builtin(Builtin::Id) | Ir::Star(_) | Ir::Opt(_) => true,
        Ir::Bracket(s) => has(model, s, write, depth + 1),
        Ir::Slot(s) => {
            let_body(model, *s).is_some_and(|body| identity(model, body, write, depth + 1))
        }
        Ir::Union(a, b) => {
            identity(model, a, write, depth + 1) || identity(model, b, write, depth + 1)
        }
        _ => false,
    }
}

/// The body of the plain `let` that defines slot `s` (not a `let rec`'s
/// or a `with`'s).
fn let_body(model: &Model, s: usize) -> Option<&Ir> {
    match model.defined_by.get(s).and_then(|&i| model.steps.get(i)) {
        Some(Step::Let(_, body)) => Some(body),
        _ => None,
    }
}
