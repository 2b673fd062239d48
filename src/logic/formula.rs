//! §1.1 formulae and the terms inside them, hash-consed in one arena.
//!
//! Every term and formula lives once in a [`Logic`]; a [`TermId`] or [`FormulaId`]
//! is a `u32` handle, so equality, hashing and copying are O(1). The smart
//! constructors fold constants and drop trivial structure (`tt ∧ φ = φ`,
//! `v = v = tt`), and never change meaning: each fold holds under every
//! assignment, with arithmetic as [`Logic::eval_term`] defines it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

/// §1.1: a memory reference `[ℓ]` is a tagged value, so a location is named by its
/// address, a value.
pub type Addr = i64;

/// §1.1, §1.3: the variables a formula may mention; each ranges over V.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Var {
    /// A register `r`.
    Reg(u32),
    /// The register `s_e` of read event `e` (§1.1: `S_ℰ = {s_e | e ∈ ℰ}`).
    Read(u32),
    /// The memory location `x = [ℓ]`, by its address `ℓ`.
    Loc(Addr),
}

/// A handle to a hash-consed term of a [`Logic`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TermId(pub(crate) u32);

/// A handle to a hash-consed formula of a [`Logic`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct FormulaId(pub(crate) u32);

/// Integer terms (§1.1 expressions, plus locations and `s_e`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Term {
    Value(i64),
    Var(Var),
    Add(TermId, TermId),
    Sub(TermId, TermId),
    /// `a * b` (saturating, as `Add` and `Sub`).
    Mul(TermId, TermId),
    Neg(TermId),
    /// §1.5: the computed location `[L]`; `[ℓ]` for a value `ℓ` is `Var(Loc(ℓ))`.
    Mem(TermId),
    /// `if lhs = rhs then then else els`: what `[M/[ℓ]]` leaves in `[L]`
    /// (`[L][M/[ℓ]] = if L = ℓ then M else [L]`), so substitution stays exact.
    IfEq {
        lhs: TermId,
        rhs: TermId,
        then: TermId,
        els: TermId,
    },
}

/// Comparisons; `>` and `≥` are sugar ([`Logic::gt`], [`Logic::ge`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
}

impl Cmp {
    /// Whether `a op b` holds.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
        }
    }
}

/// §1.1 formulae: tt, ff, `Q_x`, comparisons, ¬ ∧ ∨ ⇒.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Formula {
    True,
    False,
    /// The quiescence symbol `Q_x` of location `x = [ℓ]`.
    Quiescent(Addr),
    Cmp(Cmp, TermId, TermId),
    Not(FormulaId),
    And(FormulaId, FormulaId),
    Or(FormulaId, FormulaId),
    Implies(FormulaId, FormulaId),
}

/// What a node mentions, so substitution can skip the subtrees it cannot change.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Info {
    /// A one-bit-per-variable Bloom filter of the variables below.
    pub vars: u64,
    /// The same for quiescence symbols.
    pub quiescent: u64,
    /// Whether a computed location `[L]` occurs below (it may name any location).
    pub mem: bool,
    /// Number of nodes in the tree (shared nodes counted each time), saturating.
    pub size: u32,
}

impl Info {
    fn join(a: Info, b: Info) -> Info {
        Info {
            vars: a.vars | b.vars,
            quiescent: a.quiescent | b.quiescent,
            mem: a.mem || b.mem,
            size: a.size.saturating_add(b.size).saturating_add(1),
        }
    }
    fn above(a: Info) -> Info {
        Info {
            size: a.size.saturating_add(1),
            ..a
        }
    }
    const LEAF: Info = Info {
        vars: 0,
        quiescent: 0,
        mem: false,
        size: 1,
    };
}

/// The Bloom bit of a variable (or, for quiescence, of an address).
pub(crate) fn var_bit(v: Var) -> u64 {
    let (kind, n) = match v {
        Var::Reg(r) => (1u64, u64::from(r)),
        Var::Read(e) => (2, u64::from(e)),
        Var::Loc(a) => (3, a as u64),
    };
    1 << ((n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ kind.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)) >> 58)
}

pub(crate) fn addr_bit(a: Addr) -> u64 {
    1 << ((a as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// A small multiplicative hasher: ids are already well spread, SipHash is wasted work.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.add(u64::from(*b));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_i64(&mut self, n: i64) {
        self.add(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The logic of one litmus test: the arena of terms and formulae, the value set V,
/// the substitution memo tables, and the decision cache with its [`Stats`](super::Stats).
pub struct Logic {
    pub(crate) terms: Vec<Term>,
    pub(crate) term_info: Vec<Info>,
    term_ids: FxMap<Term, TermId>,
    pub(crate) formulae: Vec<Formula>,
    pub(crate) formula_info: Vec<Info>,
    formula_ids: FxMap<Formula, FormulaId>,
    /// V, sorted and without duplicates.
    pub(crate) values: Rc<[i64]>,
    /// Per term, the values it can take over V (computed lazily; see `decide`).
    pub(crate) domains: Vec<Option<Rc<[i64]>>>,
    pub(crate) subst: super::subst::Memo,
    pub(crate) decide: super::decide::Cache,
}

impl Logic {
    /// A logic whose variables range over `values` (the value set V of §1.1).
    pub fn new(values: &[i64]) -> Logic {
        let mut v = values.to_vec();
        v.sort_unstable();
        v.dedup();
        let mut logic = Logic {
            terms: Vec::new(),
            term_info: Vec::new(),
            term_ids: FxMap::default(),
            formulae: Vec::new(),
            formula_info: Vec::new(),
            formula_ids: FxMap::default(),
            values: v.into(),
            domains: Vec::new(),
            subst: Default::default(),
            decide: Default::default(),
        };
        // tt and ff take ids 0 and 1, so the constant tests below are one compare.
        logic.intern_formula(Formula::True, Info::LEAF);
        logic.intern_formula(Formula::False, Info::LEAF);
        logic
    }

    /// The value set V, sorted.
    pub fn values(&self) -> &[i64] {
        &self.values
    }

    /// The node behind a term handle.
    pub fn term(&self, t: TermId) -> Term {
        self.terms[t.0 as usize]
    }

    /// The node behind a formula handle.
    pub fn formula(&self, f: FormulaId) -> Formula {
        self.formulae[f.0 as usize]
    }

    /// The number of nodes of `f` as a tree (shared subformulae counted each time).
    /// How many formulas the arena holds.
    pub fn formula_count(&self) -> usize {
        self.formulae.len()
    }

    pub fn size(&self, f: FormulaId) -> u32 {
        self.formula_info[f.0 as usize].size
    }

    /// Number of distinct formula and term nodes in the arena.
    pub fn arena_len(&self) -> (usize, usize) {
        (self.formulae.len(), self.terms.len())
    }

    pub(crate) fn tinfo(&self, t: TermId) -> Info {
        self.term_info[t.0 as usize]
    }

    pub(crate) fn finfo(&self, f: FormulaId) -> Info {
        self.formula_info[f.0 as usize]
    }

    fn intern_term(&mut self, t: Term, info: Info) -> TermId {
        if let Some(&id) = self.term_ids.get(&t) {
            return id;
        }
        // A u32 arena overflows only after 2^32 distinct nodes, far past memory.
        let id = TermId(u32::try_from(self.terms.len()).expect("term arena exceeds 2^32 nodes"));
        self.terms.push(t);
        self.term_info.push(info);
        self.domains.push(None);
        self.term_ids.insert(t, id);
        id
    }

    fn intern_formula(&mut self, f: Formula, info: Info) -> FormulaId {
        if let Some(&id) = self.formula_ids.get(&f) {
            return id;
        }
        let id = FormulaId(
            u32::try_from(self.formulae.len()).expect("formula arena exceeds 2^32 nodes"),
        );
        self.formulae.push(f);
        self.formula_info.push(info);
        self.formula_ids.insert(f, id);
        id
    }

    // ---- terms ----

    /// The constant `v`.
    pub fn value(&mut self, v: i64) -> TermId {
        self.intern_term(Term::Value(v), Info::LEAF)
    }

    /// The variable `v`.
    pub fn var(&mut self, v: Var) -> TermId {
        let info = Info {
            vars: var_bit(v),
            ..Info::LEAF
        };
        self.intern_term(Term::Var(v), info)
    }

    /// Register `r`.
    pub fn reg(&mut self, r: u32) -> TermId {
        self.var(Var::Reg(r))
    }

    /// `s_e`, the register of read event `e`.
    pub fn read(&mut self, e: u32) -> TermId {
        self.var(Var::Read(e))
    }

    /// Location `[ℓ]`.
    pub fn loc(&mut self, addr: Addr) -> TermId {
        self.var(Var::Loc(addr))
    }

    /// The constant value of `t`, if it is one.
    pub fn as_value(&self, t: TermId) -> Option<i64> {
        match self.term(t) {
            Term::Value(v) => Some(v),
            _ => None,
        }
    }

    /// `a + b`.
    pub fn add(&mut self, a: TermId, b: TermId) -> TermId {
        match (self.as_value(a), self.as_value(b)) {
            (Some(x), Some(y)) => self.value(x.saturating_add(y)),
            (_, Some(0)) => a,
            (Some(0), _) => b,
            _ => {
                let info = Info::join(self.tinfo(a), self.tinfo(b));
                self.intern_term(Term::Add(a, b), info)
            }
        }
    }

    /// `a - b`.
    pub fn sub(&mut self, a: TermId, b: TermId) -> TermId {
        match (self.as_value(a), self.as_value(b)) {
            (Some(x), Some(y)) => self.value(x.saturating_sub(y)),
            (_, Some(0)) => a,
            // Saturating `a - a` is still 0, so this fold is exact.
            _ if a == b => self.value(0),
            _ => {
                let info = Info::join(self.tinfo(a), self.tinfo(b));
                self.intern_term(Term::Sub(a, b), info)
            }
        }
    }

    /// `a * b`.
    pub fn mul(&mut self, a: TermId, b: TermId) -> TermId {
        match (self.as_value(a), self.as_value(b)) {
            (Some(x), Some(y)) => self.value(x.saturating_mul(y)),
            (_, Some(1)) => a,
            (Some(1), _) => b,
            // Saturation never turns a product with 0 into anything else.
            (_, Some(0)) | (Some(0), _) => self.value(0),
            _ => {
                let info = Info::join(self.tinfo(a), self.tinfo(b));
                self.intern_term(Term::Mul(a, b), info)
            }
        }
    }

    /// `-a`. (`--a` is not folded: with saturation `--i64::MIN ≠ i64::MIN`.)
    pub fn neg(&mut self, a: TermId) -> TermId {
        match self.as_value(a) {
            Some(x) => self.value(x.saturating_neg()),
            None => {
                let info = Info::above(self.tinfo(a));
                self.intern_term(Term::Neg(a), info)
            }
        }
    }

    /// §1.5: the computed location `[L]`; a constant address gives the plain location.
    pub fn mem(&mut self, addr: TermId) -> TermId {
        match self.as_value(addr) {
            Some(l) => self.loc(l),
            None => {
                let info = Info {
                    mem: true,
                    ..Info::above(self.tinfo(addr))
                };
                self.intern_term(Term::Mem(addr), info)
            }
        }
    }

    /// `if lhs = rhs then then else els`.
    pub fn if_eq(&mut self, lhs: TermId, rhs: TermId, then: TermId, els: TermId) -> TermId {
        if lhs == rhs || then == els {
            return then;
        }
        if let (Some(a), Some(b)) = (self.as_value(lhs), self.as_value(rhs)) {
            return if a == b { then } else { els };
        }
        let info = Info::join(
            Info::join(self.tinfo(lhs), self.tinfo(rhs)),
            Info::join(self.tinfo(then), self.tinfo(els)),
        );
        self.intern_term(
            Term::IfEq {
                lhs,
                rhs,
                then,
                els,
            },
            info,
        )
    }

    // ---- formulae ----

    /// tt.
    pub fn tt(&self) -> FormulaId {
        FormulaId(0)
    }

    /// ff.
    pub fn ff(&self) -> FormulaId {
        FormulaId(1)
    }

    /// tt or ff.
    pub fn constant(&self, b: bool) -> FormulaId {
        if b {
            self.tt()
        } else {
            self.ff()
        }
    }

    /// `Q_x` for the location `x = [ℓ]`.
    pub fn quiescent(&mut self, addr: Addr) -> FormulaId {
        let info = Info {
            quiescent: addr_bit(addr),
            ..Info::LEAF
        };
        self.intern_formula(Formula::Quiescent(addr), info)
    }

    /// `a op b`.
    pub fn cmp(&mut self, op: Cmp, a: TermId, b: TermId) -> FormulaId {
        if let (Some(x), Some(y)) = (self.as_value(a), self.as_value(b)) {
            return self.constant(op.holds(x, y));
        }
        if a == b {
            return self.constant(matches!(op, Cmp::Eq | Cmp::Le));
        }
        let info = Info::join(self.tinfo(a), self.tinfo(b));
        self.intern_formula(Formula::Cmp(op, a, b), info)
    }

    /// `a = b`.
    pub fn eq(&mut self, a: TermId, b: TermId) -> FormulaId {
        self.cmp(Cmp::Eq, a, b)
    }

    /// `a ≠ b`.
    pub fn ne(&mut self, a: TermId, b: TermId) -> FormulaId {
        self.cmp(Cmp::Ne, a, b)
    }

    /// `a < b`.
    pub fn lt(&mut self, a: TermId, b: TermId) -> FormulaId {
        self.cmp(Cmp::Lt, a, b)
    }

    /// `a ≤ b`.
    pub fn le(&mut self, a: TermId, b: TermId) -> FormulaId {
        self.cmp(Cmp::Le, a, b)
    }

    /// `a > b`, stored as `b < a`.
    pub fn gt(&mut self, a: TermId, b: TermId) -> FormulaId {
        self.cmp(Cmp::Lt, b, a)
    }

    /// `a ≥ b`, stored as `b ≤ a`.
    pub fn ge(&mut self, a: TermId, b: TermId) -> FormulaId {
        self.cmp(Cmp::Le, b, a)
    }

    /// `¬f`; a negated comparison becomes the opposite comparison.
    pub fn not(&mut self, f: FormulaId) -> FormulaId {
        match self.formula(f) {
            Formula::True => self.ff(),
            Formula::False => self.tt(),
            Formula::Not(g) => g,
            Formula::Cmp(op, a, b) => match op {
                Cmp::Eq => self.cmp(Cmp::Ne, a, b),
                Cmp::Ne => self.cmp(Cmp::Eq, a, b),
                Cmp::Lt => self.cmp(Cmp::Le, b, a),
                Cmp::Le => self.cmp(Cmp::Lt, b, a),
            },
            _ => {
                let info = Info::above(self.finfo(f));
                self.intern_formula(Formula::Not(f), info)
            }
        }
    }

    /// Whether `g` is syntactically `¬f` (in the normal form `not` produces).
    pub fn is_negation(&self, f: FormulaId, g: FormulaId) -> bool {
        match (self.formula(f), self.formula(g)) {
            (Formula::Not(a), _) if a == g => true,
            (_, Formula::Not(b)) if b == f => true,
            (Formula::True, Formula::False) | (Formula::False, Formula::True) => true,
            (Formula::Cmp(p, a, b), Formula::Cmp(q, c, d)) => match (p, q) {
                (Cmp::Eq, Cmp::Ne) | (Cmp::Ne, Cmp::Eq) => a == c && b == d,
                (Cmp::Lt, Cmp::Le) | (Cmp::Le, Cmp::Lt) => a == d && b == c,
                _ => false,
            },
            _ => false,
        }
    }

    /// `f ∧ g`.
    pub fn and(&mut self, f: FormulaId, g: FormulaId) -> FormulaId {
        let (tt, ff) = (self.tt(), self.ff());
        if f == tt || f == g {
            return g;
        }
        if g == tt {
            return f;
        }
        if f == ff || g == ff || self.is_negation(f, g) {
            return ff;
        }
        let info = Info::join(self.finfo(f), self.finfo(g));
        self.intern_formula(Formula::And(f, g), info)
    }

    /// `f ∨ g`.
    pub fn or(&mut self, f: FormulaId, g: FormulaId) -> FormulaId {
        let (tt, ff) = (self.tt(), self.ff());
        if f == ff || f == g {
            return g;
        }
        if g == ff {
            return f;
        }
        if f == tt || g == tt || self.is_negation(f, g) {
            return tt;
        }
        let info = Info::join(self.finfo(f), self.finfo(g));
        self.intern_formula(Formula::Or(f, g), info)
    }

    /// `f ⇒ g`.
    pub fn implies(&mut self, f: FormulaId, g: FormulaId) -> FormulaId {
        let (tt, ff) = (self.tt(), self.ff());
        if f == tt {
            return g;
        }
        if f == ff || g == tt || f == g {
            return tt;
        }
        if g == ff {
            return self.not(f);
        }
        // `φ ⇒ ¬φ` is `¬φ`, which is `g`.
        if self.is_negation(f, g) {
            return g;
        }
        let info = Info::join(self.finfo(f), self.finfo(g));
        self.intern_formula(Formula::Implies(f, g), info)
    }

    /// `f ⇔ g`, as `(f ⇒ g) ∧ (g ⇒ f)`.
    pub fn iff(&mut self, f: FormulaId, g: FormulaId) -> FormulaId {
        let l = self.implies(f, g);
        let r = self.implies(g, f);
        self.and(l, r)
    }

    /// The conjunction of `fs` (tt when empty), left-nested.
    pub fn and_all(&mut self, fs: impl IntoIterator<Item = FormulaId>) -> FormulaId {
        let tt = self.tt();
        fs.into_iter().fold(tt, |acc, f| self.and(acc, f))
    }

    /// The disjunction of `fs` (ff when empty), left-nested.
    pub fn or_all(&mut self, fs: impl IntoIterator<Item = FormulaId>) -> FormulaId {
        let ff = self.ff();
        fs.into_iter().fold(ff, |acc, f| self.or(acc, f))
    }

    /// Definition 1.2: `θ_λ = ∧ (s_e = v)` over the reads `e` labelled `R v`.
    pub fn theta(&mut self, reads: &[(u32, i64)]) -> FormulaId {
        let mut acc = self.tt();
        for &(e, v) in reads {
            let s = self.read(e);
            let v = self.value(v);
            let atom = self.eq(s, v);
            acc = self.and(acc, atom);
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_have_fixed_ids() {
        let mut l = Logic::new(&[0, 1]);
        assert_eq!(l.formula(l.tt()), Formula::True);
        assert_eq!(l.formula(l.ff()), Formula::False);
        let (one, two) = (l.value(1), l.value(2));
        assert_eq!(l.eq(one, two), l.ff());
    }

    #[test]
    fn negation_is_recognised_in_normal_form() {
        let mut l = Logic::new(&[0, 1]);
        let (r, s) = (l.reg(0), l.reg(1));
        let lt = l.lt(r, s);
        let not_lt = l.not(lt);
        assert_eq!(l.formula(not_lt), Formula::Cmp(Cmp::Le, s, r));
        assert!(l.is_negation(lt, not_lt));
        assert_eq!(l.and(lt, not_lt), l.ff());
        assert_eq!(l.implies(lt, not_lt), not_lt);
    }

    #[test]
    fn sizes_count_tree_nodes() {
        let mut l = Logic::new(&[0, 1]);
        let (r, one) = (l.reg(0), l.value(1));
        let f = l.eq(r, one);
        assert_eq!(l.size(f), 3);
        let q = l.quiescent(0);
        let g = l.and(f, q);
        assert_eq!(l.size(g), 5);
    }
}
