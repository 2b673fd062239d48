//! §1.1, Definition 1.2: satisfiability, tautology (`tt ⊨ φ`), entailment,
//! equivalence and λ-consistency over V.
//!
//! Every question becomes "is this formula satisfiable?", asked of a hash-consed
//! formula, so one cache keyed on the formula id serves them all (`tautology(φ)`
//! and `satisfiable(¬φ)` share an entry). Before the cache come the fast paths:
//! the smart constructors already reduce `φ ⊨ φ`, `φ ∧ ¬φ` and constant cases to
//! tt or ff, which are answered without a solver. After the cache, a query whose
//! search space is small is enumerated (it is faster than building a solver),
//! and only the rest reach varisat.

use super::formula::{FormulaId, FxMap, Logic, Var};
use super::sat;
use super::subst::Subst;

/// Counters of how questions were answered (they feed `--stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Questions asked (`satisfiable`, `tautology`, `entails`, ...).
    pub queries: u64,
    /// Answered by a constant or syntactic fast path.
    pub fast_path: u64,
    /// Answered from the result cache.
    pub cache_hits: u64,
    /// Answered by enumerating a small search space (see [`Logic::set_enumeration_limit`]).
    pub enumerated: u64,
    /// Answered by the SAT solver.
    pub sat_calls: u64,
    /// SAT variables and clauses generated over all calls.
    pub sat_vars: u64,
    pub sat_clauses: u64,
}

impl Stats {
    /// The counters of two runs added up.
    /// The counts since `earlier` (a count taken from the same cache).
    pub fn minus(self, earlier: Stats) -> Stats {
        Stats {
            queries: self.queries - earlier.queries,
            fast_path: self.fast_path - earlier.fast_path,
            cache_hits: self.cache_hits - earlier.cache_hits,
            enumerated: self.enumerated - earlier.enumerated,
            sat_calls: self.sat_calls - earlier.sat_calls,
            sat_vars: self.sat_vars - earlier.sat_vars,
            sat_clauses: self.sat_clauses - earlier.sat_clauses,
        }
    }

    pub fn plus(self, o: Stats) -> Stats {
        Stats {
            queries: self.queries + o.queries,
            fast_path: self.fast_path + o.fast_path,
            cache_hits: self.cache_hits + o.cache_hits,
            enumerated: self.enumerated + o.enumerated,
            sat_calls: self.sat_calls + o.sat_calls,
            sat_vars: self.sat_vars + o.sat_vars,
            sat_clauses: self.sat_clauses + o.sat_clauses,
        }
    }
}

/// The result cache: satisfiability per formula id (V is fixed per [`Logic`]).
pub(crate) struct Cache {
    results: FxMap<FormulaId, bool>,
    enabled: bool,
    enumeration_limit: u64,
    stats: Stats,
}

/// Measured (book, "The logic"): with V = {0,1,2}, enumerating beats one solver
/// call up to about 3^5 = 243 assignments and loses from 3^6 = 729 on.
pub const DEFAULT_ENUMERATION_LIMIT: u64 = 512;

impl Default for Cache {
    fn default() -> Cache {
        Cache {
            results: FxMap::default(),
            enabled: true,
            enumeration_limit: DEFAULT_ENUMERATION_LIMIT,
            stats: Stats::default(),
        }
    }
}

impl Logic {
    /// The counters since creation or the last [`Logic::reset_stats`].
    pub fn stats(&self) -> Stats {
        self.decide.stats
    }

    pub fn reset_stats(&mut self) {
        self.decide.stats = Stats::default();
    }

    /// Turns the result cache on or off (off also empties it).
    pub fn set_cache(&mut self, enabled: bool) {
        self.decide.enabled = enabled;
        if !enabled {
            self.decide.results.clear();
        }
    }

    /// Queries with at most `limit` assignments are decided by enumeration, not
    /// by the solver; 0 sends every non-trivial query to the solver.
    pub fn set_enumeration_limit(&mut self, limit: u64) {
        self.decide.enumeration_limit = limit;
    }

    /// Whether some assignment over V makes `f` true.
    pub fn satisfiable(&mut self, f: FormulaId) -> bool {
        self.decide.stats.queries += 1;
        self.sat(f)
    }

    /// `tt ⊨ f`: every assignment over V makes `f` true.
    pub fn tautology(&mut self, f: FormulaId) -> bool {
        self.decide.stats.queries += 1;
        let g = self.not(f);
        !self.sat(g)
    }

    /// `f ⊨ g`.
    pub fn entails(&mut self, f: FormulaId, g: FormulaId) -> bool {
        self.decide.stats.queries += 1;
        if f == g {
            self.decide.stats.fast_path += 1;
            return true;
        }
        let not_g = self.not(g);
        let h = self.and(f, not_g);
        !self.sat(h)
    }

    /// `f ⊨ g` and `g ⊨ f`, in one solver call.
    pub fn equivalent(&mut self, f: FormulaId, g: FormulaId) -> bool {
        self.decide.stats.queries += 1;
        if f == g {
            self.decide.stats.fast_path += 1;
            return true;
        }
        let not_g = self.not(g);
        let not_f = self.not(f);
        let l = self.and(f, not_g);
        let r = self.and(g, not_f);
        let h = self.or(l, r);
        !self.sat(h)
    }

    /// Definition 1.2: `f` is λ-consistent when `f ∧ θ_λ` is satisfiable.
    pub fn consistent_with(&mut self, f: FormulaId, theta: FormulaId) -> bool {
        self.decide.stats.queries += 1;
        let h = self.and(f, theta);
        self.sat(h)
    }

    /// `consistent_with(f, theta(reads))`, decided on `f` with each read's
    /// symbol replaced by its value (`theta_values`).
    pub fn consistent_under(&mut self, f: FormulaId, reads: &[(u32, i64)]) -> bool {
        let (values, rest) = self.theta_values(reads);
        let g = self.subst(f, &values);
        self.consistent_with(g, rest)
    }

    /// θ_λ of `reads` as a substitution and what is left of it: `f ∧ θ` is
    /// satisfiable exactly when `f[σ] ∧ rest` is. Each value of V is a value
    /// its symbol can take, so `f ∧ s_e = v` is satisfiable exactly when
    /// `f[v/s_e]` is, and σ replaces those symbols; a value outside V stays
    /// a conjunct of `rest`, and one symbol given two values makes `rest`
    /// ff. `f[σ]` mentions fewer variables, so small ones are decided by
    /// enumeration instead of an encoding for the solver (the SEQ of an
    /// if-closed statement asks thousands of these: M3a in `construct`,
    /// which builds σ once for every event it checks).
    pub fn theta_values(&mut self, reads: &[(u32, i64)]) -> (Subst, FormulaId) {
        let mut sigma = Subst::new();
        let mut fixed: Vec<(u32, i64)> = Vec::new();
        let mut rest = Vec::new();
        for &(e, v) in reads {
            if !self.values.contains(&v) {
                rest.push((e, v));
                continue;
            }
            match fixed.iter().find(|x| x.0 == e) {
                // One symbol, two values: θ is unsatisfiable.
                Some(&(_, w)) if w != v => return (Subst::new(), self.ff()),
                Some(_) => {}
                None => {
                    fixed.push((e, v));
                    let t = self.value(v);
                    sigma = sigma.term(Var::Read(e), t);
                }
            }
        }
        let rest = self.theta(&rest);
        (sigma, rest)
    }

    /// Fast path, then cache, then enumeration of a small space, then solver.
    fn sat(&mut self, f: FormulaId) -> bool {
        if f == self.tt() || f == self.ff() {
            self.decide.stats.fast_path += 1;
            return f == self.tt();
        }
        if self.decide.enabled {
            if let Some(&r) = self.decide.results.get(&f) {
                self.decide.stats.cache_hits += 1;
                return r;
            }
        }
        let r = self.decide_uncached(f);
        if self.decide.enabled {
            self.decide.results.insert(f, r);
        }
        r
    }

    fn decide_uncached(&mut self, f: FormulaId) -> bool {
        if self.decide.enumeration_limit > 0 {
            let support = self.support(&[f]);
            if self.search_space(&support) <= self.decide.enumeration_limit {
                self.decide.stats.enumerated += 1;
                return self.enumerate_satisfiable(f, &support);
            }
        }
        let (r, effort) = sat::satisfiable(self, f);
        let stats = &mut self.decide.stats;
        stats.sat_calls += 1;
        stats.sat_vars += effort.vars as u64;
        stats.sat_clauses += effort.clauses as u64;
        r
    }
}
