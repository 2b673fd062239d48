//! The pomset of §1.3 as the reference engine holds it: plain data, each
//! order as the list of edges the constructs put in (closure and the
//! candidate rules come later, in `complete`).

use std::rc::Rc;

use crate::action::{Action, Kind, ThreadId};
use crate::logic::{FormulaId, Logic, Subst, Var};

/// An event: the id of the access statement (or implicit write) it comes from.
pub type EventId = u32;

/// A set of events D, one bit per id.
pub type Events = u128;

/// Ids must fit in [`Events`].
pub const MAX_EVENTS: u32 = 128;

/// Every event: τ = τ^E (the note's abbreviation) is τ^D with D = all.
pub const ALL: Events = u128::MAX;

pub fn member(d: Events, e: EventId) -> bool {
    d >> e & 1 == 1
}

pub fn single(e: EventId) -> Events {
    1u128 << e
}

/// M4: a family of predicate transformers, τ^D for each D, applied on demand.
pub type Tau = Rc<dyn Fn(&mut Logic, Events, FormulaId) -> FormulaId>;

/// M1-M3: an event with its label λ(e) and precondition κ(e).
#[derive(Clone, Debug)]
pub struct Event {
    pub id: EventId,
    pub label: Action,
    pub kappa: FormulaId,
}

/// (d, e, λ1(d), λ2(e)) of one SEQ.
pub type SeqPair = (EventId, EventId, Action, Action);

/// A pomset (M1-M9) as built by Fig. 1, before rf.
#[derive(Clone)]
pub struct Pomset {
    pub events: Vec<Event>,
    /// M4: τ^D.
    pub tau: Tau,
    /// M5: ✓.
    pub check: FormulaId,
    /// M6: the ⊴ edges s3 chose (d ∈ ↓e); the order is their closure.
    pub dep: Vec<(EventId, EventId)>,
    /// Every (d, e) ∈ E1 × E2 of some SEQ, with λ1(d) and λ2(e): where s7a
    /// and s8a apply, on the labels before a §2 merge changed one.
    pub po: Vec<SeqPair>,
    /// M9: rmw, from an RMW's read to its write (U1).
    pub rmw: Vec<(EventId, EventId)>,
    /// For each thread forked inside, and each top-level thread, the
    /// transformer its registers end under.
    pub forks: Vec<(ThreadId, Tau)>,
}

impl Pomset {
    /// No events, the given transformer and ✓.
    pub fn empty(tau: Tau, check: FormulaId) -> Pomset {
        Pomset {
            events: vec![],
            tau,
            check,
            dep: vec![],
            po: vec![],
            rmw: vec![],
            forks: vec![],
        }
    }

    /// M9: rmw is a partial function, from each read to at most one write.
    /// Coalescing in SEQ or IF may join two RMWs' reads but not their writes.
    pub fn rmw_is_function(&self) -> bool {
        self.rmw
            .iter()
            .all(|&(r, w)| self.rmw.iter().all(|&(r2, w2)| r2 != r || w2 == w))
    }

    /// Definition 1.2: θ_λ = ∧ (s_e = v) over the reads e labelled R v.
    pub fn theta(&self, l: &mut Logic) -> FormulaId {
        let reads: Vec<(u32, i64)> = self
            .events
            .iter()
            .filter(|e| e.label.kind == Kind::Read)
            .map(|e| (e.id, e.label.value))
            .collect();
        l.theta(&reads)
    }

    /// M3a: every κ(e) is λ-consistent. The only reason the reference
    /// engine ever drops a pomset a construct built.
    /// A κ mentioning a register some LET assigns (`unbounded`) is kept: the
    /// register may leave V, where satisfiability over V says nothing.
    pub fn lambda_consistent(&self, l: &mut Logic, unbounded: &[u32]) -> bool {
        let theta = self.theta(l);
        self.events
            .iter()
            .all(|e| l.consistent_or_unbounded(e.kappa, theta, unbounded))
    }
}

/// Right-hand events that are left-hand events: (b, a) when b *is* a
/// (coalescing in s1 or I1, or a §2 merge), and (b, v) when b is a read
/// merged into a write of v, whose s_b is then v (`x := 1; r := x` is
/// `x := 1; r := 1`, §2).
#[derive(Clone, Debug, Default)]
pub struct Renaming {
    pub pairs: Vec<(EventId, EventId)>,
    pub read_values: Vec<(EventId, i64)>,
}

impl Renaming {
    /// `[s_a/s_b]` for each coalesced pair (b, a), `[v/s_b]` for a merged read.
    fn subst(&self, l: &mut Logic) -> Subst {
        self.pairs.iter().fold(Subst::new(), |s, &(b, a)| {
            let to = match self.read_values.iter().find(|(x, _)| *x == b) {
                Some(&(_, v)) => l.value(v),
                None => l.read(a),
            };
            s.term(Var::Read(b), to)
        })
    }
}

/// τ after renaming events: right-hand event b *is* left-hand event a,
/// so τ^D asks about b when a ∈ D and its result speaks of s_a (or of a
/// merged read's value) where it spoke of s_b.
pub fn renamed_tau(tau: Tau, renaming: Rc<Renaming>) -> Tau {
    Rc::new(move |l, d, psi| {
        let mut inner = d;
        for &(b, a) in renaming.pairs.iter() {
            inner &= !single(b);
            if member(d, a) {
                inner |= single(b);
            }
        }
        let out = tau(l, inner, psi);
        let sigma = renaming.subst(l);
        l.subst(out, &sigma)
    })
}

/// The pomset with each right-hand event b of `pairs` renamed to a.
pub fn rename(l: &mut Logic, p: &Pomset, pairs: &[(EventId, EventId)]) -> Pomset {
    let renaming = Renaming {
        pairs: pairs.to_vec(),
        read_values: vec![],
    };
    rename_merging(l, p, &renaming)
}

/// `rename`, with merged reads' symbols replaced by their values.
pub fn rename_merging(l: &mut Logic, p: &Pomset, renaming: &Renaming) -> Pomset {
    let pairs = &renaming.pairs;
    if pairs.is_empty() {
        return p.clone();
    }
    let to = |id: EventId| pairs.iter().find(|(b, _)| *b == id).map_or(id, |(_, a)| *a);
    let sigma = renaming.subst(l);
    let shared = Rc::new(renaming.clone());
    let map = |edges: &[(EventId, EventId)]| edges.iter().map(|&(x, y)| (to(x), to(y))).collect();
    Pomset {
        events: p
            .events
            .iter()
            .map(|e| Event {
                id: to(e.id),
                label: e.label,
                kappa: l.subst(e.kappa, &sigma),
            })
            .collect(),
        tau: renamed_tau(p.tau.clone(), shared.clone()),
        check: l.subst(p.check, &sigma),
        dep: map(&p.dep),
        po: p
            .po
            .iter()
            .map(|&(x, y, lx, ly)| (to(x), to(y), lx, ly))
            .collect(),
        rmw: map(&p.rmw),
        forks: p
            .forks
            .iter()
            .map(|(t, f)| (*t, renamed_tau(f.clone(), shared.clone())))
            .collect(),
    }
}
