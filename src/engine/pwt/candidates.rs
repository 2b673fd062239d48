//! Candidate pomsets (§1.3), listed: the pomsets of the whole test with an
//! rf that satisfies the candidate conditions (c2a, c6, c7a, c7b, c8a, c8b),
//! complete or not.
//!
//! Deciding outcomes needs only complete pomsets, so `decide` never builds
//! the others. This listing is for people who want to see why a behaviour is
//! missing: a candidate whose κ(e) is not a tautology, whose ✓ is not, or
//! whose rf leaves a read without a source is one step from completeness.
//!
//! Two choices keep the list finite and readable, and the book states them:
//! - Dependencies (↓e, the existential choice of s3): for each event we keep,
//!   for each distinct κ(e) up to equivalence, the smallest dependency sets
//!   that give it. A larger ↓e with an equivalent κ adds order and nothing
//!   else (an augmentation), so it is left out.
//! - rf: each read takes one matching source or none (c2a), and each choice
//!   that satisfies the rules gives one candidate with the least orders.

use std::collections::HashMap;

use super::construct::{Limit, Sem};
use super::decide::{finish, init_prefix, skeleton, Completed, ThreadGroups};
use super::tau::Events;
use crate::action::{Kind, ThreadId};
use crate::engine::pwt::check::{candidates_capped, RfMode, Witness};
use crate::logic::{FormulaId, Notation};
use crate::model::Model;
use crate::outcome::{Limits, Unsupported};
use crate::pomset::Skeleton;
use crate::syntax::core::Program;

/// Dependency sets are enumerated for events whose κ mentions at most this
/// many reads; beyond it only the largest set (the weakest κ) is listed.
const MAX_DEP_READS: u32 = 8;

/// One candidate pomset, as the visitor sees it.
pub struct Candidate<'a> {
    pub skeleton: &'a Skeleton,
    pub witness: &'a Witness,
    /// κ(e) for each event (by skeleton position), printed; `None` when it
    /// is a tautology.
    pub kappa: &'a [Option<String>],
    /// ✓ of each thread whose termination condition is not a tautology.
    pub check: &'a [(String, String)],
    /// c2b, c3 and c5 hold: rf is total and every κ(e) and ✓ is a tautology.
    pub complete: bool,
}

/// What listing the candidates found.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    pub candidates: usize,
    pub complete: usize,
    /// Which limit stopped the listing, if one did.
    pub limit: Option<String>,
}

/// Calls `visit` on every candidate pomset of `p` under `model`.
pub fn candidates_visiting(
    p: &Program,
    model: &Model,
    limits: Limits,
    visit: &mut dyn FnMut(&Sem, &Candidate),
) -> Result<Listing, Unsupported> {
    super::decide::refused_program(p, model)?;
    let mut sem = Sem::new(p, model, limits.max_pomsets, limits.max_partitions);
    sem.complete_only = false;
    let mut listing = Listing::default();
    if let Err(l) = list(&mut sem, p, model, limits, visit, &mut listing) {
        listing.limit = Some(l.text());
    }
    Ok(listing)
}

/// One thread's fragment with one dependency choice, with κ(e) under that
/// choice and ✓, both after the initial writes.
struct Variant {
    completed: Completed,
    kappa: Vec<(u32, FormulaId)>,
    check: FormulaId,
}

fn list(
    sem: &mut Sem,
    p: &Program,
    model: &Model,
    limits: Limits,
    visit: &mut dyn FnMut(&Sem, &Candidate),
    listing: &mut Listing,
) -> Result<(), Limit> {
    let init_thread = p.threads.len() as ThreadId;
    let (init_events, init_tau) = init_prefix(sem, p, model, init_thread)?;
    let mut threads: Vec<Vec<Variant>> = Vec::new();
    for (tid, body) in &p.main {
        let mut variants = Vec::new();
        for f in sem.denote(body, *tid)? {
            let check = finish(sem, &f, init_tau, f.check);
            let mut combos: Vec<Vec<(u32, Events, FormulaId)>> = vec![Vec::new()];
            for options in dependency_choices(sem, &f, init_tau) {
                let mut next = Vec::new();
                for c in &combos {
                    for &o in &options {
                        let mut c = c.clone();
                        c.push(o);
                        next.push(c);
                    }
                }
                combos = next;
                if combos.len() > limits.max_pomsets {
                    return Err(Limit::Pomsets(limits.max_pomsets));
                }
            }
            for combo in combos {
                variants.push(Variant {
                    completed: Completed {
                        frag: f.clone(),
                        deps: combo.iter().map(|&(id, d, _)| (id, d)).collect(),
                        regs: Vec::new().into(),
                    },
                    kappa: combo.iter().map(|&(id, _, k)| (id, k)).collect(),
                    check,
                });
            }
        }
        threads.push(variants);
    }
    let groups = ThreadGroups { p };
    let mut choice = vec![0usize; threads.len()];
    let mut steps = limits.max_steps;
    loop {
        if let Some((at, secs)) = limits.deadline {
            if std::time::Instant::now() > at {
                listing.limit = Some(format!("--timeout {secs}"));
                return Ok(());
            }
        }
        if threads.iter().any(Vec::is_empty) {
            return Ok(());
        }
        let parts: Vec<&Variant> = threads.iter().zip(&choice).map(|(t, &k)| &t[k]).collect();
        let completed: Vec<&Completed> = parts.iter().map(|v| &v.completed).collect();
        let (sk, ids) = skeleton(&init_events, &completed);
        let position: HashMap<u32, usize> =
            ids.iter().enumerate().map(|(k, &id)| (id, k)).collect();
        // Which κ and ✓ are not tautologies, then their printed forms.
        let mut open_kappa: Vec<(usize, FormulaId)> = Vec::new();
        let mut open_check: Vec<(usize, FormulaId)> = Vec::new();
        for (t, v) in parts.iter().enumerate() {
            for &(id, k) in &v.kappa {
                if !sem.l.tautology(k) {
                    open_kappa.extend(position.get(&id).map(|&pos| (pos, k)));
                }
            }
            if !sem.l.tautology(v.check) {
                open_check.push((t, v.check));
            }
        }
        let names = super::explain::FormulaNames {
            p,
            sem,
            position: Some(&position),
        };
        let mut kappa: Vec<Option<String>> = vec![None; sk.len()];
        for &(pos, k) in &open_kappa {
            kappa[pos] = Some(sem.l.display(k, Notation::Unicode, &names).to_string());
        }
        let check: Vec<(String, String)> = open_check
            .iter()
            .map(|&(t, f)| {
                let shown = sem.l.display(f, Notation::Unicode, &names).to_string();
                (p.thread_name(p.main[t].0).to_string(), shown)
            })
            .collect();
        let kappa_tt = open_kappa.is_empty();
        let budget = steps.min(1_000_000);
        let cap = limits.max_states;
        let (found, used, capped) =
            candidates_capped(&sk, model, &groups, RfMode::Partial, budget, cap);
        steps = steps.saturating_sub(used.max(1));
        let witnesses = match found {
            Ok(w) => w,
            Err(w) if capped => {
                let held = "candidates of one rf search";
                listing.limit = Some(format!("--max-states {cap} ({held})"));
                w
            }
            Err(w) => {
                let given = limits.max_steps;
                listing.limit = Some(format!("--max-steps {given} (the rf search)"));
                w
            }
        };
        for w in &witnesses {
            let total = (0..sk.len())
                .filter(|&e| sk.labels[e].kind == Kind::Read)
                .all(|e| w.rf[e].is_some());
            let complete = total && kappa_tt && check.is_empty();
            listing.candidates += 1;
            listing.complete += usize::from(complete);
            visit(
                sem,
                &Candidate {
                    skeleton: &sk,
                    witness: w,
                    kappa: &kappa,
                    check: &check,
                    complete,
                },
            );
            if listing.candidates >= limits.max_pomsets {
                listing.limit = Some(format!("--max-pomsets {}", limits.max_pomsets));
                return Ok(());
            }
        }
        if listing.limit.is_some() || steps == 0 {
            listing
                .limit
                .get_or_insert_with(|| format!("--max-steps {}", limits.max_steps));
            return Ok(());
        }
        if !super::decide::next_choice(&mut choice, |i| threads[i].len()) {
            return Ok(());
        }
    }
}

/// For each event of `f`: its choices of ↓e with κ(e) under each, keeping
/// the smallest sets for each κ up to equivalence. Inconsistent κ are
/// dropped (M3a).
fn dependency_choices(
    sem: &mut Sem,
    f: &super::construct::Frag,
    init: super::tau::Tau,
) -> Vec<Vec<(u32, Events, FormulaId)>> {
    let reads: Events = f
        .events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .fold(0, |m, e| m | 1 << e.id);
    let mut out = Vec::new();
    for e in &f.events {
        let deps = f.to_events(sem.trees.dep_reads(e.kappa)) & reads;
        let mut kept: Vec<(Events, FormulaId)> = Vec::new();
        for d in dependency_sets(deps) {
            let k = sem.trees.eval(&mut sem.l, e.kappa, f.with_aliases(d));
            let k = finish(sem, f, init, k);
            if !sem.l.satisfiable(k) {
                continue;
            }
            let smaller_equivalent = kept
                .iter()
                .any(|&(d2, k2)| d2 & d == d2 && sem.l.equivalent(k, k2));
            if !smaller_equivalent {
                kept.push((d, k));
            }
        }
        out.push(kept.into_iter().map(|(d, k)| (e.id, d, k)).collect());
    }
    out
}

/// The subsets of `deps`, smallest first; only `deps` itself when it has
/// more than `MAX_DEP_READS` members.
fn dependency_sets(deps: Events) -> Vec<Events> {
    if deps.count_ones() > MAX_DEP_READS {
        return vec![deps];
    }
    let bits: Vec<u32> = (0..64).filter(|b| deps >> b & 1 == 1).collect();
    let mut out: Vec<Events> = (0u64..1 << bits.len())
        .map(|mask| {
            bits.iter()
                .enumerate()
                .filter(|(i, _)| mask >> i & 1 == 1)
                .fold(0, |d, (_, &b)| d | 1 << b)
        })
        .collect();
    out.sort_by_key(|d: &Events| d.count_ones());
    out
}
