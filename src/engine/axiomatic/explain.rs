//! `pomset explain --model CAT`: for an outcome, each candidate execution
//! that reaches it and the checks of the model that fail on it, by name,
//! with the cycle or the pair that breaks each.

use super::execution::{Cells, Event, Execution, Kind, Trace};
use super::{candidates_where, final_state};
use crate::cat::{Model, Witness};
use crate::outcome::verdict::{holds, kleene_and, kleene_or};
use crate::outcome::Limits;
use crate::syntax::core::{Program, Prop, RegId, Term};

/// How many executions `explain` describes one by one.
pub const SHOWN: usize = 8;

/// How many candidate executions `explain` lists for illustration once
/// `run`'s pruned search has decided the outcome: past it, the listing
/// stops and says so (the verdict does not rest on it).
pub const ILLUSTRATED: usize = 20_000;

/// Whether a consistent execution reaches the outcome, decided as `run`
/// decides (the lazy search of `search.rs`: parts refuted by a monotone
/// check are cut, so every consistent execution is still visited), with
/// the witness's description when one is found: `None` where that search
/// does not apply or a limit stopped it before a witness.
fn decided(
    p: &Program,
    cells: &Cells,
    model: &Model,
    prop: &Prop,
    limits: &Limits,
) -> Result<Option<Option<Vec<String>>>, String> {
    let Some(checks) = super::search::applies(p, model) else {
        return Ok(None);
    };
    let (mut found, mut error) = (None, None);
    let mut visit =
        |x: &Execution, regs: &[Option<i64>], _times: usize, _: &mut crate::cat::frame::Frames| {
            if !holds(p, &final_state(p, x, regs), prop) {
                return true;
            }
            match model.judge(x) {
                Ok(j) => {
                    if j.consistent() {
                        found = Some(describe(p, cells, x));
                    }
                    found.is_none()
                }
                Err(e) => {
                    error = Some(e.render());
                    false
                }
            }
        };
    let none = crate::outcome::orbit::Classes::default();
    let seen = super::search::candidates(p, model, (&checks, &none), limits, &mut visit)?;
    if let Some(e) = error {
        return Err(e);
    }
    Ok(match (found, seen.limit) {
        (Some(witness), _) => Some(Some(witness)),
        (None, None) => Some(None),
        (None, Some(_)) => None,
    })
}

/// An event as `P0:W^rel x=1`, `init:W x=0`, `P1:F^sc`.
pub fn event_label(p: &Program, cells: &Cells, e: &Event) -> String {
    let thread = super::thread_label(p, e);
    let mode = e.mode.map_or(String::new(), |m| format!("^{}", m.as_str()));
    let place = cells.names.get(e.cell).map_or("?", String::as_str);
    match e.kind {
        Kind::Read => format!("{thread}:R{mode} {place}={}", e.value),
        Kind::Write => format!("{thread}:W{mode} {place}={}", e.value),
        Kind::Fence => format!("{thread}:F{mode}"),
        Kind::Barrier => format!("{thread}:barrier{mode}.{}({})", e.scope.as_str(), e.value),
    }
}

/// The base relations an edge belongs to, as `po,rf`; `…` when none (the
/// edge comes from a derived relation such as hb).
fn edge_names(x: &Execution, a: usize, b: usize) -> String {
    let fr = x.rf.inverse().seq(&x.co);
    let named = [
        ("po", &x.po),
        ("rf", &x.rf),
        ("co", &x.co),
        ("fr", &fr),
        ("rmw", &x.rmw),
        ("addr", &x.addr),
        ("data", &x.data),
        ("ctrl", &x.ctrl),
    ];
    let names: Vec<&str> = named
        .iter()
        .filter(|(_, r)| r.has(a, b))
        .map(|(n, _)| *n)
        .collect();
    if names.is_empty() {
        "…".to_string()
    } else {
        names.join(",")
    }
}

/// One execution's rf and co, on one line each.
fn describe(p: &Program, cells: &Cells, x: &Execution) -> Vec<String> {
    let label = |e: usize| event_label(p, cells, &x.events[e]);
    let rf: Vec<String> =
        x.rf.pairs()
            .map(|(w, r)| format!("{} → {}", label(w), label(r)))
            .collect();
    let co: Vec<String> =
        x.co.pairs()
            .filter(|&(a, b)| !(0..x.len()).any(|c| x.co.has(a, c) && x.co.has(c, b)))
            .map(|(a, b)| format!("{} → {}", label(a), label(b)))
            .collect();
    let mut out = vec![format!(
        "rf: {}",
        if rf.is_empty() {
            "none".into()
        } else {
            rf.join(", ")
        }
    )];
    if !co.is_empty() {
        out.push(format!("co: {}", co.join(", ")));
    }
    out
}

/// Why a check fails, in words. An edge of a cycle is named by the base
/// relations that hold it, else by the model's first `let` that does.
fn witness_text(
    p: &Program,
    cells: &Cells,
    (model, x): (&Model, &Execution),
    w: &Witness,
) -> String {
    let label = |e: usize| event_label(p, cells, &x.events[e]);
    match w {
        Witness::Cycle(c) => {
            let edges: Vec<(usize, usize)> =
                (0..c.len()).map(|i| (c[i], c[(i + 1) % c.len()])).collect();
            let lets = model.names_of(x, &edges).unwrap_or_default();
            let mut s = String::from("cycle ");
            for (i, &(e, next)) in edges.iter().enumerate() {
                let mut name = edge_names(x, e, next);
                if name == "…" {
                    if let Some(n) = lets.get(i).and_then(|l| l.first()) {
                        name = n.clone();
                    }
                }
                s.push_str(&format!("{} -{name}-> ", label(e)));
            }
            s.push_str(&label(c[0]));
            s
        }
        Witness::Reflexive(e) => format!("{} is related to itself", label(*e)),
        Witness::Pair(a, b) => format!("contains {} → {}", label(*a), label(*b)),
        Witness::Member(e) => format!("contains {}", label(*e)),
        Witness::Holds => "the negated test holds".to_string(),
    }
}

/// The thread runs that can end in `prop`, for `candidates_where`: a run
/// whose own registers already make the proposition false or unknown
/// reaches it in no candidate (`may_hold`), so leaving it out changes no
/// count of the candidates that reach it.
pub(super) fn may_reach<'a>(p: &'a Program, prop: &'a Prop) -> impl Fn(usize, &Trace) -> bool + 'a {
    let threads: Vec<Vec<crate::syntax::core::ThreadId>> = p
        .main
        .iter()
        .map(|(tid, body)| crate::outcome::state::reported_threads(*tid, body))
        .collect();
    move |k: usize, t: &Trace| {
        let own = |r: RegId| {
            let info = p.regs.get(r as usize)?;
            threads[k]
                .contains(&info.thread)
                .then(|| t.regs.get(r as usize).copied().flatten())
        };
        may_hold(prop, &own).contains(&Some(true))
    }
}

/// `explain`'s lines for one outcome.
pub fn explain(
    p: &Program,
    model: &Model,
    prop: &Prop,
    limits: &Limits,
) -> Result<Vec<String>, String> {
    let lowered = model.lowering.map(|l| l.apply(p));
    let p = lowered.as_ref().unwrap_or(p);
    let cells = Cells::new(p);
    let mut lines = Vec::new();
    let (mut reaching, mut consistent, mut shown) = (0usize, 0usize, 0usize);
    let mut error = None;
    let keep = may_reach(p, prop);
    // The verdict as `run` reaches it; the enumeration below illustrates
    // it (and, where it finishes, counts), and is cut once it has listed
    // `ILLUSTRATED` candidates.
    let verdict = decided(p, &cells, model, prop, limits)?;
    let (mut visited, mut illustrated) = (0usize, false);
    let seen = candidates_where(p, limits, keep, |x, regs| {
        visited += 1;
        if verdict.is_some() && visited > ILLUSTRATED {
            illustrated = true;
            return false;
        }
        if !holds(p, &final_state(p, x, regs), prop) {
            return true;
        }
        reaching += 1;
        let j = match model.explain(x) {
            Ok(j) => j,
            Err(e) => {
                error = Some(e.render());
                return false;
            }
        };
        if j.consistent() {
            consistent += 1;
        }
        if shown < SHOWN && (j.consistent() || consistent == 0) {
            shown += 1;
            lines.push(format!("execution {reaching}:"));
            lines.extend(describe(p, &cells, x).into_iter().map(|l| format!("  {l}")));
            if j.consistent() {
                lines.push(format!(
                    "  consistent under {}: the outcome is allowed",
                    model.name
                ));
            }
            for (name, w) in &j.failed {
                lines.push(format!(
                    "  {name} fails: {}",
                    witness_text(p, &cells, (model, x), w)
                ));
            }
        }
        true
    })?;
    if let Some(e) = error {
        return Err(e);
    }
    // The listing was cut (by its budget or a limit) after `run`'s search
    // decided: the verdict is that search's, and the counts are the listing's.
    let listed = (illustrated || seen.limit.is_some())
        .then_some(verdict)
        .flatten();
    if let Some(witness) = listed {
        let allowed = witness.is_some();
        let why = match &seen.limit {
            Some(l) if !illustrated => format!("stopped at a limit (Limit reached: {l})"),
            _ => format!("stopped after {ILLUSTRATED} candidates"),
        };
        let said = if allowed {
            format!(
                "a consistent execution under {} reaches it (run's pruned search found one): allowed",
                model.name
            )
        } else {
            format!(
                "no consistent execution under {} reaches it (run's pruned search, which cuts only parts a monotone check refutes, visited every other candidate): forbidden",
                model.name
            )
        };
        let mut summary = vec![said];
        if let Some(w) = witness.filter(|_| consistent == 0) {
            summary.push("run's witness:".to_string());
            summary.extend(w.into_iter().map(|l| format!("  {l}")));
        }
        summary.push(format!(
            "the listing below {why}: {reaching} of the candidates listed reach it, {consistent} consistent"
        ));
        if shown < reaching {
            lines.push(format!("({} more not shown)", reaching - shown));
        }
        summary.extend(lines);
        return Ok(summary);
    }
    // A consistent execution found is a witness whatever stopped the
    // search; "none" is a verdict only when every candidate was visited.
    let unseen = match &seen.limit {
        Some(l) => Some((format!("Limit reached: {l}"), "so far; raise the limit")),
        None if seen.dropped > 0 && !p.values_left.is_empty() => Some((
            format!(
                "{} thread runs write a value or use an address outside V and are left out",
                seen.dropped
            ),
            "among the others; widen V",
        )),
        None => None,
    };
    let mut summary = match (reaching, consistent, &unseen) {
        (n, 0, Some((why, advice))) => vec![format!(
            "Unknown: {why}; {n} of the candidate executions visited reach it, none consistent under {} ({advice})",
            model.name
        )],
        (0, _, None) => vec!["no candidate execution reaches this outcome".to_string()],
        (n, 0, None) => vec![format!(
            "{n} candidate executions reach it; none is consistent under {}: forbidden",
            model.name
        )],
        (n, k, _) => vec![format!(
            "{n} candidate executions reach it; {k} consistent under {}: allowed",
            model.name
        )],
    };
    if let (Some(l), true) = (&seen.limit, consistent > 0) {
        summary.push(format!("Limit reached: {l} (the list is incomplete)"));
    }
    if shown < reaching {
        lines.push(format!("({} more not shown)", reaching - shown));
    }
    summary.extend(lines);
    Ok(summary)
}

/// The truth values (`Some(true)`, `Some(false)`, `None`: unknown, as
/// `verdict::truth`) a proposition may take when the registers `known`
/// answers for have those values and every other term (other threads'
/// registers, memory) may be anything, `?` included. An over-approximation
/// (each free term is free at each occurrence), so a value not in the list
/// is one the proposition cannot take.
fn may_hold(prop: &Prop, known: &dyn Fn(RegId) -> Option<Option<i64>>) -> Vec<Option<bool>> {
    const ALL: [Option<bool>; 3] = [Some(true), Some(false), None];
    let term = |t: &Term| match t {
        Term::Int(v) => Some(Some(*v)),
        Term::Reg(r) => known(*r),
        Term::Mem(_) => None,
    };
    let both = |a: &[Option<bool>],
                b: &[Option<bool>],
                f: fn(Option<bool>, Option<bool>) -> Option<bool>| {
        let mut out: Vec<Option<bool>> = Vec::new();
        for &x in a {
            for &y in b {
                let v = f(x, y);
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    };
    match prop {
        Prop::True => vec![Some(true)],
        Prop::False => vec![Some(false)],
        Prop::Cmp(a, op, b) => match (term(a), term(b)) {
            (Some(x), Some(y)) => vec![x.zip(y).map(|(x, y)| op.holds(x, y))],
            _ => ALL.to_vec(),
        },
        Prop::Not(a) => may_hold(a, known)
            .into_iter()
            .map(|v| v.map(|b| !b))
            .collect(),
        Prop::And(a, b) => both(&may_hold(a, known), &may_hold(b, known), kleene_and),
        Prop::Or(a, b) => both(&may_hold(a, known), &may_hold(b, known), kleene_or),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::CmpOp;

    fn is(r: RegId, v: i64) -> Prop {
        Prop::Cmp(Term::Reg(r), CmpOp::Eq, Term::Int(v))
    }

    /// Register 0 is the run's own, at `mine`; register 1 is another
    /// thread's (free); memory is free.
    fn may(prop: &Prop, mine: Option<i64>) -> Vec<Option<bool>> {
        let mut v = may_hold(prop, &|r| (r == 0).then_some(mine));
        v.sort();
        v
    }

    #[test]
    fn a_run_is_kept_exactly_when_its_registers_leave_the_outcome_possible() {
        let (t, f, u) = (Some(true), Some(false), None);
        assert_eq!(may(&is(0, 1), Some(1)), vec![t]);
        assert_eq!(may(&is(0, 1), Some(0)), vec![f]);
        assert_eq!(may(&is(0, 1), None), vec![u]);
        assert_eq!(may(&Prop::Not(Box::new(is(0, 1))), None), vec![u]);
        assert_eq!(may(&is(1, 1), Some(0)), vec![u, f, t]);
        let mem = Prop::Cmp(Term::Mem(0), CmpOp::Eq, Term::Int(1));
        let and = Prop::And(Box::new(is(0, 1)), Box::new(mem.clone()));
        assert_eq!(may(&and, Some(0)), vec![f]);
        assert_eq!(may(&and, Some(1)), vec![u, f, t]);
        let or = Prop::Or(Box::new(is(0, 1)), Box::new(is(1, 2)));
        assert_eq!(may(&or, Some(1)), vec![t]);
        assert_eq!(may(&or, None), vec![u, t]);
    }
}
