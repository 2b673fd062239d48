//! §1.1 substitutions `[M/r]`, `[M/x]`, `[φ/Q_x]` and their simultaneous forms,
//! memoised per node.
//!
//! §1.5 computed locations: `[L][M/[ℓ]]` is `if L' = ℓ then M else [L']` with
//! `L' = L[M/[ℓ]]`, a term, so substitution stays a homomorphism on formulae and
//! is exact whatever value `L` takes.

use super::formula::{
    addr_bit, var_bit, Addr, Formula, FormulaId, FxMap, Logic, Term, TermId, Var,
};

/// A simultaneous substitution `[M₁/v₁, …, φ₁/Q_ℓ₁, …]`: every replacement is
/// applied to the original formula at once, so replacements are not substituted
/// into each other.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Subst {
    /// Sorted by variable, one entry per variable.
    terms: Vec<(Var, TermId)>,
    /// Sorted by address, one entry per location.
    quiescent: Vec<(Addr, FormulaId)>,
}

impl Subst {
    /// The identity substitution.
    pub fn new() -> Subst {
        Subst::default()
    }

    /// Adds `[m/v]` (replacing an earlier entry for `v`).
    pub fn term(mut self, v: Var, m: TermId) -> Subst {
        match self.terms.binary_search_by_key(&v, |e| e.0) {
            Ok(i) => self.terms[i].1 = m,
            Err(i) => self.terms.insert(i, (v, m)),
        }
        self
    }

    /// Adds `[φ/Q_ℓ]` (replacing an earlier entry for `ℓ`).
    pub fn quiescent(mut self, addr: Addr, phi: FormulaId) -> Subst {
        match self.quiescent.binary_search_by_key(&addr, |e| e.0) {
            Ok(i) => self.quiescent[i].1 = phi,
            Err(i) => self.quiescent.insert(i, (addr, phi)),
        }
        self
    }

    /// Whether this is the identity.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.quiescent.is_empty()
    }

    fn lookup(&self, v: Var) -> Option<TermId> {
        self.terms
            .binary_search_by_key(&v, |e| e.0)
            .ok()
            .map(|i| self.terms[i].1)
    }

    fn lookup_q(&self, addr: Addr) -> Option<FormulaId> {
        self.quiescent
            .binary_search_by_key(&addr, |e| e.0)
            .ok()
            .map(|i| self.quiescent[i].1)
    }

    /// The location entries `[M/[ℓ]]`.
    fn locations(&self) -> impl DoubleEndedIterator<Item = (Addr, TermId)> + '_ {
        self.terms.iter().filter_map(|&(v, m)| match v {
            Var::Loc(a) => Some((a, m)),
            _ => None,
        })
    }
}

/// A substitution interned in one `Logic` (`Logic::interned`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubstId(u32);

/// An interned substitution and what it touches, for the skip test.
struct Interned {
    subst: Subst,
    vars: u64,
    quiescent: u64,
    locations: bool,
}

/// Memo tables: results per (substitution, node).
#[derive(Default)]
pub(crate) struct Memo {
    ids: FxMap<Subst, u32>,
    interned: Vec<Interned>,
    terms: FxMap<(u32, TermId), TermId>,
    formulae: FxMap<(u32, FormulaId), FormulaId>,
    /// `subst_on`'s cut, built here so that a cut met before costs no
    /// allocation.
    scratch: Subst,
}

impl Logic {
    /// `f[σ]`, the simultaneous substitution.
    pub fn subst(&mut self, f: FormulaId, sigma: &Subst) -> FormulaId {
        if sigma.is_empty() {
            return f;
        }
        let sid = self.intern_subst(sigma);
        self.subst_formula(sid, f)
    }

    /// Interns `σ` once, for `subst_interned` on many formulae: the id is
    /// valid in this `Logic` only.
    pub fn interned(&mut self, sigma: &Subst) -> SubstId {
        SubstId(self.intern_subst(sigma))
    }

    /// `f[σ]` for a σ interned by `interned`.
    pub fn subst_interned(&mut self, f: FormulaId, sigma: SubstId) -> FormulaId {
        if self.subst.interned[sigma.0 as usize].subst.is_empty() {
            return f;
        }
        self.subst_formula(sigma.0, f)
    }

    /// `f[σ]` with `σ` first cut to the entries `f` can use: those whose
    /// variable or location is in `f`'s filter (`Info`), and every location
    /// entry when `f` has a computed location. `f[σ]` looks up no other
    /// entry, so the result is the same formula; what changes is the memo
    /// key. Callers that substitute many different `σ` that agree on `f`'s
    /// variables (`construct`'s M3a check: one renaming per fragment, most
    /// of it about events `f` never mentions) then share one memo entry
    /// and one rebuilt formula, where whole-`σ` keys rebuilt `f` each time.
    pub fn subst_on(&mut self, f: FormulaId, sigma: &Subst) -> FormulaId {
        let info = self.finfo(f);
        let mut cut = std::mem::take(&mut self.subst.scratch);
        cut.terms.clear();
        cut.quiescent.clear();
        cut.terms.extend(sigma.terms.iter().filter(|&&(v, _)| {
            var_bit(v) & info.vars != 0 || (info.mem && matches!(v, Var::Loc(_)))
        }));
        cut.quiescent.extend(
            sigma
                .quiescent
                .iter()
                .filter(|&&(a, _)| addr_bit(a) & info.quiescent != 0),
        );
        let r = self.subst(f, &cut);
        self.subst.scratch = cut;
        r
    }

    /// `σ ; τ`: one simultaneous substitution with the meaning of `σ`
    /// then `τ` (`f[σ ; τ]` and `f[σ][τ]` hold in the same valuations):
    /// each entry of `σ` with `τ` applied to its replacement, then each
    /// entry of `τ` whose variable or location `σ` does not replace. Equal
    /// in meaning, not always in form: the smart constructors may simplify
    /// `f[σ]` before `τ` applies, so a caller that reads a formula's syntax
    /// (its registers, say) must take it from `f[σ][τ]`. With location
    /// entries (§1.5) the meaning is still the same: a replaced `[ℓ]` is
    /// `σ`'s replacement evaluated after `τ`, any other `[ℓ]` is `τ`'s.
    pub fn compose(&mut self, sigma: &Subst, tau: &Subst) -> Subst {
        // Both lists are sorted by key, one entry per key: merged in order.
        fn merge<K: Ord + Copy, T: Copy>(
            first: &[(K, T)],
            then: &[(K, T)],
            mut apply: impl FnMut(T) -> T,
        ) -> Vec<(K, T)> {
            let mut out = Vec::with_capacity(first.len() + then.len());
            let (mut i, mut j) = (0, 0);
            loop {
                match (first.get(i), then.get(j)) {
                    (Some(a), Some(b)) if b.0 < a.0 => {
                        out.push(*b);
                        j += 1;
                    }
                    (Some(a), b) => {
                        out.push((a.0, apply(a.1)));
                        i += 1;
                        // σ's entry wins: τ's for the same key is not kept.
                        if b.is_some_and(|b| b.0 == a.0) {
                            j += 1;
                        }
                    }
                    (None, Some(b)) => {
                        out.push(*b);
                        j += 1;
                    }
                    (None, None) => return out,
                }
            }
        }
        Subst {
            terms: merge(&sigma.terms, &tau.terms, |m| self.subst_term(m, tau)),
            quiescent: merge(&sigma.quiescent, &tau.quiescent, |phi| self.subst(phi, tau)),
        }
    }

    /// `t[σ]` for a term.
    pub fn subst_term(&mut self, t: TermId, sigma: &Subst) -> TermId {
        if sigma.is_empty() {
            return t;
        }
        let sid = self.intern_subst(sigma);
        self.subst_in_term(sid, t)
    }

    /// `f[m/v]`: `[M/r]`, `[M/s_e]` or, for `Var::Loc`, `[M/x]`.
    pub fn subst_var(&mut self, f: FormulaId, v: Var, m: TermId) -> FormulaId {
        self.subst(f, &Subst::new().term(v, m))
    }

    /// `f[φ/Q_ℓ]`.
    pub fn subst_quiescent(&mut self, f: FormulaId, addr: Addr, phi: FormulaId) -> FormulaId {
        self.subst(f, &Subst::new().quiescent(addr, phi))
    }

    fn intern_subst(&mut self, sigma: &Subst) -> u32 {
        if let Some(&id) = self.subst.ids.get(sigma) {
            return id;
        }
        let id = self.subst.interned.len() as u32;
        let interned = Interned {
            vars: sigma.terms.iter().fold(0, |m, e| m | var_bit(e.0)),
            quiescent: sigma.quiescent.iter().fold(0, |m, e| m | addr_bit(e.0)),
            locations: sigma.locations().next().is_some(),
            subst: sigma.clone(),
        };
        self.subst.interned.push(interned);
        self.subst.ids.insert(sigma.clone(), id);
        id
    }

    /// Whether substitution `sid` can change a node with this info.
    fn touches(&self, sid: u32, vars: u64, quiescent: u64, mem: bool) -> bool {
        let s = &self.subst.interned[sid as usize];
        vars & s.vars != 0 || quiescent & s.quiescent != 0 || (mem && s.locations)
    }

    fn subst_in_term(&mut self, sid: u32, t: TermId) -> TermId {
        let info = self.tinfo(t);
        if !self.touches(sid, info.vars, 0, info.mem) {
            return t;
        }
        if let Some(&r) = self.subst.terms.get(&(sid, t)) {
            return r;
        }
        let r = match self.term(t) {
            Term::Value(_) => t,
            Term::Var(v) => self.subst.interned[sid as usize]
                .subst
                .lookup(v)
                .unwrap_or(t),
            Term::Add(a, b) => {
                let (a, b) = (self.subst_in_term(sid, a), self.subst_in_term(sid, b));
                self.add(a, b)
            }
            Term::Sub(a, b) => {
                let (a, b) = (self.subst_in_term(sid, a), self.subst_in_term(sid, b));
                self.sub(a, b)
            }
            Term::Mul(a, b) => {
                let (a, b) = (self.subst_in_term(sid, a), self.subst_in_term(sid, b));
                self.mul(a, b)
            }
            Term::Neg(a) => {
                let a = self.subst_in_term(sid, a);
                self.neg(a)
            }
            Term::Mem(l) => {
                let l = self.subst_in_term(sid, l);
                self.subst_mem(sid, l)
            }
            Term::IfEq {
                lhs,
                rhs,
                then,
                els,
            } => {
                let lhs = self.subst_in_term(sid, lhs);
                let rhs = self.subst_in_term(sid, rhs);
                let then = self.subst_in_term(sid, then);
                let els = self.subst_in_term(sid, els);
                self.if_eq(lhs, rhs, then, els)
            }
        };
        self.subst.terms.insert((sid, t), r);
        r
    }

    /// §1.5: `[L']` after `[M₁/[ℓ₁], …]`: `if L' = ℓ₁ then M₁ else … [L']`.
    fn subst_mem(&mut self, sid: u32, addr: TermId) -> TermId {
        let locations: Vec<(Addr, TermId)> = self.subst.interned[sid as usize]
            .subst
            .locations()
            .rev()
            .collect();
        // A constant address folds to the plain location, which the chain then resolves.
        let mut r = self.mem(addr);
        for (l, m) in locations {
            let l = self.value(l);
            r = self.if_eq(addr, l, m, r);
        }
        r
    }

    fn subst_formula(&mut self, sid: u32, f: FormulaId) -> FormulaId {
        let info = self.finfo(f);
        if !self.touches(sid, info.vars, info.quiescent, info.mem) {
            return f;
        }
        if let Some(&r) = self.subst.formulae.get(&(sid, f)) {
            return r;
        }
        let r = match self.formula(f) {
            Formula::True | Formula::False => f,
            Formula::Quiescent(a) => self.subst.interned[sid as usize]
                .subst
                .lookup_q(a)
                .unwrap_or(f),
            Formula::Cmp(op, a, b) => {
                let (a, b) = (self.subst_in_term(sid, a), self.subst_in_term(sid, b));
                self.cmp(op, a, b)
            }
            Formula::Not(g) => {
                let g = self.subst_formula(sid, g);
                self.not(g)
            }
            Formula::And(g, h) => {
                let (g, h) = (self.subst_formula(sid, g), self.subst_formula(sid, h));
                self.and(g, h)
            }
            Formula::Or(g, h) => {
                let (g, h) = (self.subst_formula(sid, g), self.subst_formula(sid, h));
                self.or(g, h)
            }
            Formula::Implies(g, h) => {
                let (g, h) = (self.subst_formula(sid, g), self.subst_formula(sid, h));
                self.implies(g, h)
            }
        };
        if self.subst.formulae.len() >= FORMULA_MEMO_CAP {
            self.subst.formulae.clear();
        }
        self.subst.formulae.insert((sid, f), r);
        r
    }
}

/// The most (substitution, formula) results the memo holds: reaching it
/// empties the memo (keeping its table), and it fills again. The memo is a
/// cache of a function of the arena alone (`f[σ]` is rebuilt by the same
/// hash-consing constructors, which consult no other cache), so emptying
/// it changes no result, only what is computed twice. A thread of nested
/// unrolled loops substitutes into millions of pairs it never asks about
/// again (CADP's `2_threads_4_instructions/47_simple`: 8.7 million), and
/// the table's growth (zeroed pages, rehashing) cost more than the reuse
/// saved: capped, that file's peak memory went from 540 MB to 350 MB and
/// its time from 4.1 to 5.2 s (a run) to 3.5 to 4.3 s, the user time
/// about the same and most of the system time (zeroing pages) gone.
const FORMULA_MEMO_CAP: usize = 1 << 20;
