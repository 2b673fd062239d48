//! The pomset engine's text listings (`pomset pomsets`, `--candidates`,
//! the REPL's listing): a complete or candidate pomset as text, its events
//! in the note's notation, rf, and each order's covering edges with the rule
//! that put each one there.

use std::fmt::Write;

use super::candidates::{candidates_visiting, Candidate, Listing};
use super::check::{OrderKind, Reason, Witness};
use super::construct::Sem;
use super::decide::outcomes_visiting;
use crate::action::{Action, Kind, Mode, Scope};
use crate::model::Model;
use crate::outcome::verdict::holds;
use crate::outcome::{Limits, State, Unsupported};
use crate::pomset::Skeleton;
use crate::syntax::core::{Program, Prop};

/// The note's notation in ASCII, with the thread: `P0:Wx1`, `P1:R^acq y1`, `P0:F^sc_cta`.
pub fn label(sem: &Sem, p: &Program, a: &Action) -> String {
    let mut s = String::from(match a.kind {
        Kind::Read => "R",
        Kind::Write => "W",
        Kind::Fence => "F",
    });
    if a.mode != Mode::Rlx || a.kind == Kind::Fence {
        let _ = write!(s, "^{}", a.mode.as_str());
    }
    if a.scope != Scope::Sys {
        let _ = write!(s, "_{}", a.scope.as_str());
    }
    if a.kind != Kind::Fence {
        let loc = sem
            .dense_names
            .get(a.loc as usize)
            .map_or("?", String::as_str);
        let sep = if s.len() > 1 { " " } else { "" };
        let _ = write!(s, "{sep}{loc}{}", a.value);
    }
    let thread = if (a.thread as usize) < p.threads.len() {
        p.thread_name(a.thread).to_string()
    } else {
        "init".to_string()
    };
    format!("{thread}:{s}")
}

/// The rule's name as the note writes it.
pub fn rule(r: Reason) -> &'static str {
    match r {
        Reason::Dependency => "s3",
        Reason::SyncDelays => "s7a",
        Reason::CoDelays => "s8a",
        Reason::C6 => "c6",
        Reason::C7a => "c7a",
        Reason::C7b => "c7b",
        Reason::C8a => "c8a",
        Reason::C8b => "c8b",
        Reason::M8a => "M8a",
        Reason::TwoOrder => "§12",
        Reason::Rmw => "M9b",
        Reason::Atomicity => "M9c",
    }
}

/// One complete pomset, numbered `n`.
pub fn pomset(
    sem: &Sem,
    p: &Program,
    n: usize,
    sk: &Skeleton,
    w: &Witness,
    state: &State,
) -> String {
    let mut out = String::new();
    let show = |v: &Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
    let values: Vec<String> = state
        .regs
        .iter()
        .map(|(k, v)| format!("{k}={}", show(v)))
        .chain(state.mem.iter().map(|(k, v)| format!("[{k}]={}", show(v))))
        .collect();
    let _ = writeln!(out, "Pomset {n}: {}", values.join("; "));
    for (e, a) in sk.labels.iter().enumerate() {
        let _ = writeln!(out, "  e{e:<3} {}", label(sem, p, a));
    }
    rf_and_orders(&mut out, w);
    out
}

/// One candidate pomset, numbered `n`: events as `κ | label` (κ left out
/// when it is a tautology), ✓ when it is not, rf and the orders.
pub fn candidate(sem: &Sem, p: &Program, n: usize, c: &Candidate) -> String {
    let mut out = String::new();
    let mut missing = Vec::new();
    let sk = c.skeleton;
    let unread = (0..sk.len())
        .filter(|&e| sk.labels[e].kind == Kind::Read && c.witness.rf[e].is_none())
        .count();
    if unread > 0 {
        missing.push(format!("{unread} read(s) without rf (c2b)"));
    }
    let open = c.kappa.iter().flatten().count();
    if open > 0 {
        missing.push(format!("{open} κ not a tautology (c3)"));
    }
    if !c.check.is_empty() {
        missing.push("✓ not a tautology (c5)".to_string());
    }
    let status = if c.complete {
        "complete".to_string()
    } else {
        format!("not complete: {}", missing.join(", "))
    };
    let _ = writeln!(out, "Candidate {n} ({status})");
    for (e, a) in sk.labels.iter().enumerate() {
        let kappa = match c.kappa.get(e) {
            Some(Some(k)) => format!("{k} | "),
            _ => String::new(),
        };
        let _ = writeln!(out, "  e{e:<3} {kappa}{}", label(sem, p, a));
    }
    for (thread, check) in c.check {
        let _ = writeln!(out, "  ✓ {thread:<13} {check}");
    }
    rf_and_orders(&mut out, c.witness);
    out
}

/// rf and each order's covering edges, with the rule behind each edge.
fn rf_and_orders(out: &mut String, w: &Witness) {
    let rf: Vec<String> =
        w.rf.iter()
            .enumerate()
            .filter_map(|(e, d)| d.map(|d| format!("e{d} → e{e}")))
            .collect();
    let _ = writeln!(
        out,
        "  rf              {}",
        if rf.is_empty() {
            "—".into()
        } else {
            rf.join(", ")
        }
    );
    for (k, name) in [
        (OrderKind::Dep, "dependency ⊴"),
        (OrderKind::Sync, "sync ≤"),
        (OrderKind::Loc, "per-location ⊑"),
    ] {
        let edges: Vec<String> = w
            .orders
            .get(k)
            .reduction()
            .edges()
            .map(|(a, b)| {
                let why = w
                    .edges
                    .iter()
                    .find(|(kind, x, y, _)| *kind == k && *x == a && *y == b);
                let why = why.or_else(|| w.edges.iter().find(|(_, x, y, _)| *x == a && *y == b));
                match why {
                    Some(&(_, _, _, r)) => format!("e{a} → e{b} ({})", rule(r)),
                    None => format!("e{a} → e{b}"),
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "  {name:<15} {}",
            if edges.is_empty() {
                "—".into()
            } else {
                edges.join(", ")
            }
        );
    }
}

/// The complete pomsets a search visits whose final state satisfies
/// `filter`, the first `max` of them as text (numbered from 1 among those
/// that satisfy it), with how many satisfy it and the limit that stopped
/// the search; `pomset pomsets` and the REPL list them.
pub struct Texts {
    pub pomsets: Vec<String>,
    pub matching: usize,
    pub limit: Option<String>,
}

/// The complete pomsets of `p` as text (`Texts`), or what the semantics refuses.
pub fn pomset_texts(
    p: &Program,
    model: &Model,
    filter: Option<&Prop>,
    limits: Limits,
    max: usize,
) -> Result<Texts, Unsupported> {
    let mut pomsets = Vec::new();
    let mut matching = 0usize;
    let mut visit = |sem: &Sem, sk: &Skeleton, w: &Witness, state: &State| {
        if filter.is_some_and(|f| !holds(p, state, f)) {
            return;
        }
        matching += 1;
        if pomsets.len() < max {
            pomsets.push(pomset(sem, p, matching, sk, w, state));
        }
    };
    let o = outcomes_visiting(p, model, limits, Some(&mut visit))?;
    Ok(Texts {
        pomsets,
        matching,
        limit: o.limit,
    })
}

/// The candidate pomsets of `p` (§1.3), complete or not, the first `max`
/// as text, with how many there are and how many are complete; or what the
/// semantics refuses.
pub fn candidate_texts(
    p: &Program,
    model: &Model,
    limits: Limits,
    max: usize,
) -> Result<(Vec<String>, Listing), Unsupported> {
    let mut texts = Vec::new();
    let mut visit = |sem: &Sem, c: &Candidate| {
        if texts.len() < max {
            let n = texts.len() + 1;
            texts.push(candidate(sem, p, n, c));
        }
    };
    let listing = candidates_visiting(p, model, limits, &mut visit)?;
    Ok((texts, listing))
}
