//! Conditions over final states, herd7's way: each condition's proposition
//! is evaluated on every complete pomset's final state.

use super::state::{Outcomes, State};
use crate::syntax::ast::{Quantifier, Verdict};
use crate::syntax::core::{Condition, LocId, Program, Prop, RegId, Term};

/// herd7's observation of a proposition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observation {
    Always,
    Sometimes,
    Never,
}

impl Observation {
    pub fn as_str(self) -> &'static str {
        match self {
            Observation::Always => "Always",
            Observation::Sometimes => "Sometimes",
            Observation::Never => "Never",
        }
    }
}

/// One condition, decided.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// Complete pomsets whose final state satisfies / falsifies the proposition.
    pub positive: usize,
    pub negative: usize,
    /// herd7's Ok/No for the quantifier; `None` when a limit made it unknown.
    pub ok: Option<bool>,
    pub observation: Option<Observation>,
    /// The expectation that applies under the model, and whether it was met.
    pub expected: Option<Verdict>,
    pub met: Option<bool>,
    /// The file's stated disagreement with the expected verdict, if it applies.
    pub disputed: Option<String>,
}

/// A register's or location's final value in a state.
fn value(p: &Program, s: &State, t: &Term) -> Option<i64> {
    match t {
        Term::Int(v) => Some(*v),
        Term::Reg(r) => {
            let named = |n: &str| names_register(p, *r, n);
            s.regs.iter().find(|(n, _)| named(n)).and_then(|(_, v)| *v)
        }
        Term::Mem(l) => s
            .mem
            .iter()
            .find(|(n, _)| n == p.loc_name(*l))
            .and_then(|(_, v)| *v),
    }
}

/// Whether a state's register name (`thread:register`) names register `r`,
/// matched without building the name.
fn names_register(p: &Program, r: RegId, name: &str) -> bool {
    let info = &p.regs[r as usize];
    name.strip_prefix(p.thread_name(info.thread))
        .and_then(|rest| rest.strip_prefix(':'))
        .is_some_and(|reg| reg == info.name)
}

/// Whether a state satisfies a proposition.
///
/// An undetermined value (`?`: a register whose read was dropped, R4c, or a
/// location with no last write) is unknown, as SQL's NULL is: a comparison
/// with it is unknown, ¬ keeps unknown, ∧ and ∨ follow Kleene's strong
/// three-valued logic, and a state satisfies the proposition only when it is
/// true. So `r ≠ 0` and `¬(r = 0)` agree, De Morgan's laws hold, and neither
/// `r = 0` nor its negation holds of `r = ?`.
pub fn holds(p: &Program, s: &State, prop: &Prop) -> bool {
    truth(p, s, prop) == Some(true)
}

/// herd7's `filter`: whether a final state counts at all. A state the
/// filter does not hold of (or whose truth is unknown, `?`) is left out.
pub fn kept(p: &Program, s: &State) -> bool {
    p.filter.as_ref().is_none_or(|f| holds(p, s, f))
}

/// A proposition's truth in a state: `None` is unknown.
pub fn truth(p: &Program, s: &State, prop: &Prop) -> Option<bool> {
    truth_with(prop, &|t| value(p, s, t))
}

/// Kleene's strong conjunction (`None`: unknown): false if either is false.
pub fn kleene_and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// Kleene's strong disjunction (`None`: unknown): true if either is true.
pub fn kleene_or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    kleene_and(a.map(|x| !x), b.map(|x| !x)).map(|x| !x)
}

/// A proposition's truth, given each term's value (`None`: `?`).
fn truth_with(prop: &Prop, value: &dyn Fn(&Term) -> Option<i64>) -> Option<bool> {
    match prop {
        Prop::True => Some(true),
        Prop::False => Some(false),
        Prop::Not(a) => truth_with(a, value).map(|b| !b),
        Prop::And(a, b) => kleene_and(truth_with(a, value), truth_with(b, value)),
        Prop::Or(a, b) => kleene_or(truth_with(a, value), truth_with(b, value)),
        Prop::Cmp(a, op, b) => Some(op.holds(value(a)?, value(b)?)),
    }
}

/// `value` over many states of one program, trying first where the last
/// state held each name: an engine lists one program's names in the same
/// order in (almost) every state, so a term costs one name comparison, not
/// a scan. A miss falls back to the scan, so the answers are `value`'s.
struct Lookup<'p> {
    p: &'p Program,
    regs: Vec<std::cell::Cell<usize>>,
    locs: Vec<std::cell::Cell<usize>>,
}

impl<'p> Lookup<'p> {
    fn new(p: &'p Program) -> Lookup<'p> {
        Lookup {
            p,
            regs: p.regs.iter().map(|_| Default::default()).collect(),
            locs: p.locs.iter().map(|_| Default::default()).collect(),
        }
    }

    fn find(
        hint: Option<&std::cell::Cell<usize>>,
        pairs: &[(String, Option<i64>)],
        named: impl Fn(&str) -> bool,
    ) -> Option<i64> {
        let hint = hint?;
        if let Some((n, v)) = pairs.get(hint.get()) {
            if named(n) {
                return *v;
            }
        }
        let at = pairs.iter().position(|(n, _)| named(n))?;
        hint.set(at);
        pairs[at].1
    }

    fn value(&self, s: &State, t: &Term) -> Option<i64> {
        let p = self.p;
        match t {
            Term::Int(v) => Some(*v),
            Term::Reg(r) => Self::find(self.regs.get(*r as usize), &s.regs, |n| {
                names_register(p, *r, n)
            }),
            Term::Mem(l) => Self::find(self.locs.get(*l as usize), &s.mem, |n| n == p.loc_name(*l)),
        }
    }

    fn holds(&self, s: &State, prop: &Prop) -> bool {
        truth_with(prop, &|t| self.value(s, t)) == Some(true)
    }

    fn kept(&self, s: &State) -> bool {
        self.p.filter.as_ref().is_none_or(|f| self.holds(s, f))
    }
}

/// Where each register and location sits in the values of states of one
/// shape (registers, then memory, as `State` lists them): conditions over
/// millions of states (orbits' members) are evaluated on their values,
/// without a name compared. Same answers as `truth` on the state.
pub struct Slots {
    regs: Vec<Option<usize>>,
    locs: Vec<Option<usize>>,
}

impl Slots {
    pub fn of(p: &Program, shape: &State) -> Slots {
        let regs = (0..p.regs.len())
            .map(|r| {
                let r = r as RegId;
                shape.regs.iter().position(|(n, _)| names_register(p, r, n))
            })
            .collect();
        let locs = (0..p.locs.len())
            .map(|l| {
                let name = p.loc_name(l as LocId);
                let at = shape.mem.iter().position(|(n, _)| n == name);
                at.map(|i| i + shape.regs.len())
            })
            .collect();
        Slots { regs, locs }
    }

    /// Where a register or location sits in the values, if the shape names it.
    pub fn position(&self, t: &Term) -> Option<usize> {
        match t {
            Term::Int(_) => None,
            Term::Reg(r) => self.regs.get(*r as usize).copied().flatten(),
            Term::Mem(l) => self.locs.get(*l as usize).copied().flatten(),
        }
    }

    /// `truth` on a state of this shape, given by its values.
    pub fn truth(&self, values: &[Option<i64>], prop: &Prop) -> Option<bool> {
        truth_with(prop, &|t| match t {
            Term::Int(v) => Some(*v),
            _ => self.position(t).and_then(|i| *values.get(i)?),
        })
    }

    pub fn holds(&self, values: &[Option<i64>], prop: &Prop) -> bool {
        self.truth(values, prop) == Some(true)
    }

    /// `kept` on a state of this shape.
    pub fn kept(&self, p: &Program, values: &[Option<i64>]) -> bool {
        p.filter.as_ref().is_none_or(|f| self.holds(values, f))
    }
}

pub fn judge(p: &Program, c: &Condition, o: &Outcomes, model: &crate::model::Model) -> Judgement {
    judge_visiting(p, c, o, model).unwrap_or_else(|_| judgement(c, (0, 0), (false, false), model))
}

/// `judge`, or the limit that stopped the visit of a finished search's
/// orbits part way (the counts would not add up).
pub fn judge_visiting(
    p: &Program,
    c: &Condition,
    o: &Outcomes,
    model: &crate::model::Model,
) -> Result<Judgement, String> {
    let (mut positive, mut negative) = (0usize, 0usize);
    let mut count = |holds: bool, n: usize| {
        let side = if holds { &mut positive } else { &mut negative };
        *side = side.saturating_add(n);
    };
    let lookup = Lookup::new(p);
    for (s, &n) in o.states.iter().filter(|(s, _)| lookup.kept(s)) {
        count(lookup.holds(s, &c.prop), n);
    }
    if let Some(orbits) = &o.orbits {
        let slots = Slots::of(p, orbits.shape());
        let mut each = |values: &[Option<i64>], n| {
            if slots.kept(p, values) {
                count(slots.holds(values, &c.prop), n);
            }
        };
        orbits.each_reported(o.limit.is_some(), &mut each)?;
    }
    if let Some(f) = &o.factored {
        let (holds, fails) = f.count(p, &c.prop)?;
        count(true, holds);
        count(false, fails);
    }
    // Issue 27 §1: no verdict over zero states (it would be vacuous).
    let vacuous = positive.saturating_add(negative) == 0;
    if o.limit.is_some() && !vacuous {
        // Issue 74: a cut search's states are states of the program
        // (`tests/it/limits_named.rs` holds every engine to it), so what
        // they witness stands; the rest is unknown.
        return Ok(witnessed(
            c,
            judgement(c, (positive, negative), (true, true), model),
        ));
    }
    let known = o.limit.is_none() && !vacuous;
    let j = judgement(c, (positive, negative), (known, known), model);
    if p.values_left.is_empty() {
        return Ok(j);
    }
    Ok(witnessed(c, j))
}

/// The verdicts that the states found settle when more states may exist
/// than were found: a search cut by a limit (issue 74), or a declared V
/// that an execution may leave (issue 27 §1: the engines dropped
/// executions, which could only add states). More states only add to
/// `positive` and `negative`, so a count above zero stands and a zero does
/// not: one state making the proposition true settles `exists` (Ok) and
/// `forbid`/`~exists` (No) and meets an `allowed` expectation (fails a
/// `forbidden` one); one not making it true settles `forall` (No) and
/// fails `always`; one of each is `Sometimes` at any completion. `Never`,
/// `Always` and a `forall` that holds are never settled so.
fn witnessed(c: &Condition, mut j: Judgement) -> Judgement {
    let (pos, neg) = (j.positive > 0, j.negative > 0);
    j.ok = match c.quantifier {
        Quantifier::Exists | Quantifier::Allow if pos => Some(true),
        Quantifier::NotExists | Quantifier::Forbid if pos => Some(false),
        Quantifier::Forall if neg => Some(false),
        _ => None,
    };
    j.observation = (pos && neg).then_some(Observation::Sometimes);
    j.met = match j.expected {
        Some(Verdict::Allowed) if pos => Some(true),
        Some(Verdict::Forbidden | Verdict::Never) if pos => Some(false),
        Some(Verdict::Always) if neg => Some(false),
        Some(Verdict::Sometimes) if pos && neg => Some(true),
        _ => None,
    };
    j
}

/// Why the states alone settle no verdict, one sentence each (issue 27 §1):
/// no state is kept, or a declared V may be left.
pub fn unsettled(p: &Program, o: &Outcomes) -> Vec<String> {
    // A product is made only without a filter: its every state is kept.
    let kept =
        o.states.keys().any(|s| kept(p, s)) || o.factored.as_ref().is_some_and(|f| f.states() > 0);
    let none = !kept
        && !o
            .orbits
            .as_ref()
            .is_some_and(|orbits| kept_member(p, orbits, o.limit.is_some()))
        && o.limit.is_none();
    none.then(|| ZERO_STATES.to_string())
        .into_iter()
        .chain(values_left(p))
        .collect()
}

/// Whether some member of the orbits passes the filter. The filter may
/// name one of two interchangeable threads, so a canonical member that
/// fails it says nothing of the others: they are visited when it fails.
fn kept_member(p: &Program, orbits: &super::orbit::Orbits, limited: bool) -> bool {
    let slots = Slots::of(p, orbits.shape());
    if orbits.each_orbit().any(|(v, _, _)| slots.kept(p, &v)) {
        return true;
    }
    let mut any = false;
    // A visit cut by a limit leaves the report unknown anyway.
    let _ = orbits.each_reported(limited, &mut |v, _| any |= slots.kept(p, v));
    any
}

/// The sentence of a report with no kept state.
pub const ZERO_STATES: &str =
    "no execution ends in a kept state (States 0), so every verdict is Unknown: none rests on no state";

/// The sentence naming the stores that may leave a declared V.
pub fn values_left(p: &Program) -> Option<String> {
    if p.values_left.is_empty() {
        return None;
    }
    let shown: Vec<String> = p.values.iter().map(i64::to_string).collect();
    Some(format!(
        "V = {{{}}} is declared, and {}: executions that leave V are dropped, so a verdict no found state witnesses is Unknown (widen `values`, or drop it for the closed default)",
        shown.join(", "),
        p.values_left.join(", ")
    ))
}

/// A condition's verdict from a condition-directed search (`goal.rs`):
/// whether a state making it true was found, and whether one not making it
/// true was (`None`: a limit stopped that search). Either answer alone
/// settles herd7's Ok/No for its quantifier; both settle the observation.
pub fn judge_settled(
    c: &Condition,
    positive: Option<bool>,
    negative: Option<bool>,
    model: &crate::model::Model,
) -> Judgement {
    let count = |found: Option<bool>| usize::from(found == Some(true));
    let mut j = judgement(
        c,
        (count(positive), count(negative)),
        (positive.is_some(), negative.is_some()),
        model,
    );
    if positive == Some(false) && j.observation.is_none() {
        // No state makes it true: Never, whatever the other search found.
        // The caller answers `Some(false)` only beside a state the other
        // search found (`Report::settled`), so `negative` is `Some(true)`
        // here and a `forall` is No: a cut search's zero states are never
        // counted as all of them.
        j = judgement(c, (0, count(negative)), (true, true), model);
    }
    if j.met.is_none() {
        j.met = match (j.expected, positive) {
            (Some(Verdict::Allowed), Some(pos)) => Some(pos),
            (Some(Verdict::Forbidden | Verdict::Never), Some(pos)) => Some(!pos),
            _ => None,
        };
    }
    if j.ok.is_none() {
        // One search may settle Ok/No even when the other was stopped.
        j.ok = match (c.quantifier, positive, negative) {
            (Quantifier::Exists | Quantifier::Allow, Some(pos), _) => Some(pos),
            (Quantifier::NotExists | Quantifier::Forbid, Some(pos), _) => Some(!pos),
            (Quantifier::Forall, _, Some(neg)) => Some(!neg),
            _ => None,
        };
    }
    j
}

/// Whether an observation meets a stated verdict (`None` for `unknown`,
/// which states nothing).
pub fn meets(v: Verdict, obs: Observation) -> Option<bool> {
    Some(match v {
        Verdict::Allowed => obs != Observation::Never,
        Verdict::Forbidden | Verdict::Never => obs == Observation::Never,
        Verdict::Always => obs == Observation::Always,
        Verdict::Sometimes => obs == Observation::Sometimes,
        Verdict::Unknown => return None,
    })
}

/// The verdict from the numbers of complete pomsets whose state makes the
/// proposition true and not true; each number is trusted only when `known`.
fn judgement(
    c: &Condition,
    (positive, negative): (usize, usize),
    known: (bool, bool),
    model: &crate::model::Model,
) -> Judgement {
    let observation = if !(known.0 && known.1) {
        None
    } else if negative == 0 && positive > 0 {
        Some(Observation::Always)
    } else if positive > 0 {
        Some(Observation::Sometimes)
    } else {
        Some(Observation::Never)
    };
    let ok = observation.map(|_| match c.quantifier {
        Quantifier::Exists | Quantifier::Allow => positive > 0,
        Quantifier::NotExists | Quantifier::Forbid => positive == 0,
        Quantifier::Forall => negative == 0,
    });
    let expected = c.expectation(model);
    let met = match (expected, observation) {
        (Some(v), Some(obs)) => meets(v, obs),
        _ => None,
    };
    Judgement {
        positive,
        negative,
        ok,
        observation,
        expected,
        met,
        disputed: c.dispute(model).map(str::to_string),
    }
}
