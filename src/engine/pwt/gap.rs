//! `monotonicity` (§2) with `final = loc_max`: which final memories the fast
//! engine may leave out, and when that could change a verdict.
//!
//! The fast engine builds an event's stronger labels only where they let it
//! coalesce with another event (`Sem::modes`), because a stronger label only
//! adds constraints to the candidate rules: κ and τ do not depend on modes,
//! so a pomset with stronger labels is complete only if the same pomset with
//! the labels as written is. Registers come from rf and the events' values,
//! which strengthening does not change, so every register state is found.
//! Final memory is where the argument stops: `[x]` is the value of a write
//! that some valid orders put ⊑-above every other write to x, and added
//! constraints can leave no such write, so `[x]` is `?` where the weaker
//! labels gave a value.
//!
//! What the weaker labels miss is bounded, though. For one skeleton and rf,
//! the feasible choices of last writes under stronger labels are a subset of
//! those under the labels as written (each pick is feasible there too), so
//! each maximal choice under stronger labels lies below a maximal choice
//! under the weaker ones: it is a *coarsening* of a state found, the same
//! state with some memory values read as `?`. With the found states S and
//! the true states T, S ⊆ T ⊆ S ∪ coarsenings(S).
//!
//! A condition's truth is three-valued (`verdict::truth`) and monotone in
//! that order: reading a value as `?` can turn true or false into unknown,
//! never one into the other. So a coarsening never adds a state where a
//! condition (or herd7's filter) holds; it can only add a state where it
//! does not, which matters exactly when S has no such state yet (the
//! observation would go from Always to Sometimes, and `forall` from Ok to
//! No). `outcomes` checks this per condition and, where it could matter,
//! decides again building every stronger label literally (exact, as the
//! reference engine does, and slower). Otherwise the verdicts stand and the
//! report says that the state list may omit such coarsenings.

use crate::model::{Final, Model, Monotonicity};
use crate::outcome::verdict::{holds, kept};
use crate::outcome::{Outcomes, State};
use crate::syntax::core::{Condition, Program, Prop, Term};

/// Whether the fast engine's final memories may be incomplete under `model`.
pub fn memory_gap(model: &Model) -> bool {
    model.monotonicity != Monotonicity::Off && model.final_ == Final::LocMax
}

/// The sentence a report carries when the list may omit coarsened states.
pub const NOTE: &str = "with monotonicity, a listed state may also occur with some final memory `?` (stronger labels can leave no last write); such states are not listed, and no verdict depends on them (checked per condition); `--engine reference` lists them";

/// The steps the recheck with every stronger label may take (at most
/// `--max-steps`): a few seconds, where the first pass took milliseconds.
pub const RECHECK_STEPS: u64 = 2_000_000;

/// The limit a recheck that did not finish reports: the states of the
/// labels as written are then not known to be all, so no verdict stands.
pub fn recheck_limit(inner: &str) -> String {
    format!("monotonicity: building every stronger label, to find the final memories they leave `?`, reached {inner} (at most {RECHECK_STEPS} steps; `final = observer` has no such gap)")
}

/// Every state `s` becomes by reading the values of some of the named
/// locations as `?` (itself included).
pub fn coarsenings(s: &State, locations: &[String]) -> Vec<State> {
    let at: Vec<usize> = s
        .mem
        .iter()
        .enumerate()
        .filter(|(_, (name, v))| v.is_some() && locations.contains(name))
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::with_capacity(1 << at.len().min(16));
    for mask in 0u32..(1u32 << at.len().min(16)) {
        let mut c = s.clone();
        for (bit, &i) in at.iter().enumerate() {
            if mask & (1 << bit) != 0 {
                c.mem[i].1 = None;
            }
        }
        out.push(c);
    }
    out
}

/// The locations a proposition reads.
fn locations(p: &Program, prop: &Prop, out: &mut Vec<String>) {
    let mut term = |t: &Term| {
        if let Term::Mem(l) = t {
            let name = p.loc_name(*l).to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
    };
    match prop {
        Prop::Cmp(a, _, b) => {
            term(a);
            term(b);
        }
        Prop::Not(a) => locations(p, a, out),
        Prop::And(a, b) | Prop::Or(a, b) => {
            locations(p, a, out);
            locations(p, b, out);
        }
        Prop::True | Prop::False => {}
    }
}

/// The locations whose final value `c`'s truth (or the filter) depends on.
pub fn condition_locations(p: &Program, c: &Condition) -> Vec<String> {
    let mut out = Vec::new();
    locations(p, &c.prop, &mut out);
    if let Some(f) = &p.filter {
        locations(p, f, &mut out);
    }
    out
}

/// Whether a coarsening of the found states could change `c`'s verdict:
/// no kept state falsifies `c`, but some coarsening of a state that
/// satisfies it is kept and does not.
pub fn could_matter(p: &Program, c: &Condition, o: &Outcomes) -> bool {
    let locs = condition_locations(p, c);
    if locs.is_empty() {
        return false;
    }
    let found: Vec<&State> = o.states.keys().filter(|s| kept(p, s)).collect();
    if found.iter().any(|s| !holds(p, s, &c.prop)) {
        return false;
    }
    found.iter().any(|s| {
        coarsenings(s, &locs)
            .iter()
            .any(|x| kept(p, x) && !holds(p, x, &c.prop))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarsenings_read_each_subset_of_the_named_values_as_unknown() {
        let s = State {
            regs: vec![("P0:r".into(), Some(1))],
            mem: vec![
                ("x".into(), Some(1)),
                ("y".into(), Some(2)),
                ("z".into(), None),
            ],
        };
        let all = coarsenings(&s, &["x".into(), "y".into(), "z".into()]);
        assert_eq!(all.len(), 4);
        assert!(all.iter().all(|c| c.regs == s.regs && c.mem[2].1.is_none()));
        assert!(all
            .iter()
            .any(|c| c.mem[0].1.is_none() && c.mem[1].1.is_none()));
        assert_eq!(coarsenings(&s, &["y".into()]).len(), 2);
    }
}
