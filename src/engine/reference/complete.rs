//! §1.3's candidate and complete conditions, decided naively: for a fixed
//! rf, for every choice of one disjunct of every c7b and c8b instance,
//! compute the least orders closed under the additive rules by plain
//! iteration over all pairs and triples, then test that they are partial
//! orders and that weak fulfilment's "only if" parts hold.
//!
//! Why the least orders decide: every rule other than c7b and c8b only
//! adds pairs (premise in the orders ⇒ conclusion in the orders), and the
//! pomset's orders may be any superset of what the constructs built
//! (P6-P8, s6-s8, I6-I8 are ⊇). A superset of the least solution can only
//! close more cycles and break more "only if" parts.

use crate::action::{self, Action, Groups, Kind, Mode};
use crate::model::{
    AcyclicUnion, C7a, C7b, C8a, C8b, Model, Orders as OrdersOpt, RfiAcqWeakening, ScOrder,
    TwoOrder,
};

/// Which order: ⊴ (M6), ≤ (M7) or ⊑ (M8).
pub const DEP: usize = 0;
pub const SYNC: usize = 1;
pub const LOC: usize = 2;

/// A relation on events 0..n, as a matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel(pub Vec<Vec<bool>>);

impl Rel {
    pub fn new(n: usize) -> Rel {
        Rel(vec![vec![false; n]; n])
    }

    pub fn has(&self, a: usize, b: usize) -> bool {
        self.0[a][b]
    }

    /// Adds (a, b); whether it was new.
    pub fn add(&mut self, a: usize, b: usize) -> bool {
        let new = !self.0[a][b];
        self.0[a][b] = true;
        new
    }

    /// Transitive closure (Warshall); whether anything was added.
    pub fn close(&mut self) -> bool {
        let n = self.0.len();
        let mut changed = false;
        for k in 0..n {
            for i in 0..n {
                if !self.0[i][k] {
                    continue;
                }
                for j in 0..n {
                    if self.0[k][j] && !self.0[i][j] {
                        self.0[i][j] = true;
                        changed = true;
                    }
                }
            }
        }
        changed
    }

    /// After closure: no event strictly before itself.
    pub fn irreflexive(&self) -> bool {
        (0..self.0.len()).all(|i| !self.0[i][i])
    }
}

/// What the candidate conditions read of one pomset, by position 0..n.
pub struct Frame<'a> {
    pub labels: Vec<Action>,
    /// ⊴ as the constructs built it (s3).
    pub dep: Vec<(usize, usize)>,
    /// SEQ pairs (E1 × E2) with λ1(d) and λ2(e), where s7a and s8a apply.
    pub po: Vec<(usize, usize, Action, Action)>,
    pub rmw: Vec<(usize, usize)>,
    pub model: &'a Model,
    pub groups: &'a dyn Groups,
}

/// The three orders; with `orders = single`, ⊴ and ≤ are one (index SYNC).
#[derive(Clone, Debug)]
pub struct Orders {
    pub rel: [Rel; 3],
    single: bool,
}

impl Orders {
    fn new(n: usize, single: bool) -> Orders {
        Orders {
            rel: [Rel::new(n), Rel::new(n), Rel::new(n)],
            single,
        }
    }

    fn index(&self, k: usize) -> usize {
        if self.single && k == DEP {
            SYNC
        } else {
            k
        }
    }

    pub fn has(&self, k: usize, a: usize, b: usize) -> bool {
        self.rel[self.index(k)].has(a, b)
    }

    fn add(&mut self, k: usize, a: usize, b: usize) -> bool {
        let i = self.index(k);
        a != b && self.rel[i].add(a, b)
    }
}

/// An edge some rule demands: (order, from, to).
pub type Edge = (usize, usize, usize);

/// One alternative of a disjunctive rule: pairs it adds, and ⊑ pairs that
/// must stay absent (weak fulfilment's "only if").
#[derive(Clone, Debug, Default)]
struct Disjunct {
    add: Vec<Edge>,
    forbid: Vec<(usize, usize)>,
}

/// The label relations the fixpoint consults, tabulated once per rf.
struct Table {
    strongly_matches: Vec<Vec<bool>>,
    overlaps: Vec<Vec<bool>>,
}

impl Frame<'_> {
    fn table(&self, labels: &[Action]) -> Table {
        let grid = |f: &dyn Fn(&Action, &Action) -> bool| -> Vec<Vec<bool>> {
            labels
                .iter()
                .map(|a| labels.iter().map(|b| f(a, b)).collect())
                .collect()
        };
        Table {
            strongly_matches: grid(&|a, b| action::strongly_matches(a, b, self.model, self.groups)),
            overlaps: grid(&|a, b| action::overlaps(a, b)),
        }
    }

    fn n(&self) -> usize {
        self.labels.len()
    }

    /// §10 (`rfi_acq_weakening`): an acq read fulfilled by a relaxed write of
    /// its own thread that is not an RMW's write acts as rlx.
    pub fn effective_labels(&self, rf: &[Option<usize>]) -> Vec<Action> {
        let mut labels = self.labels.clone();
        if self.model.rfi_acq_weakening != RfiAcqWeakening::On {
            return labels;
        }
        for (e, d) in rf.iter().enumerate() {
            let Some(d) = *d else { continue };
            let (w, r) = (&self.labels[d], &self.labels[e]);
            let rmw_write = self.rmw.iter().any(|&(_, x)| x == d);
            if w.thread == r.thread && w.mode.below(Mode::Rlx) && r.mode == Mode::Acq && !rmw_write
            {
                labels[e].mode = Mode::Rlx;
            }
        }
        labels
    }

    /// s3 (⊴ as built), s7a, s8a, M9b, c6, c8a: the rules' fixed pairs.
    fn base_edges(&self, rf: &[Option<usize>], labels: &[Action]) -> Vec<Edge> {
        let mut out: Vec<Edge> = self.dep.iter().map(|&(a, b)| (DEP, a, b)).collect();
        out.extend(self.s7a());
        out.extend(self.s8a());
        out.extend(self.m9b());
        out.extend(self.c6(rf));
        out.extend(self.c8a(rf, labels));
        out
    }

    /// s7a: if λ1(d) sync-delays λ2(e) then d ≤ e (the SEQ's labels,
    /// which a §2 merge may since have changed).
    fn s7a(&self) -> Vec<Edge> {
        self.po
            .iter()
            .filter(|(_, _, ld, le)| action::sync_delays(ld, le, self.model))
            .map(|&(d, e, _, _)| (SYNC, d, e))
            .collect()
    }

    /// s8a: if λ1(d) co-delays λ2(e) then d ⊑ e (`co_delays_rr` is read by `co_delays`).
    fn s8a(&self) -> Vec<Edge> {
        self.po
            .iter()
            .filter(|(_, _, ld, le)| action::co_delays(ld, le, self.model))
            .map(|&(d, e, _, _)| (LOC, d, e))
            .collect()
    }

    /// M9b: d rmw e gives d ≤ e and d ⊑ e; M9b' (with c7a''') only d ⊑ e.
    fn m9b(&self) -> Vec<Edge> {
        let mut out = Vec::new();
        for &(d, e) in &self.rmw {
            if self.model.c7a != C7a::ClosureRmw {
                out.push((SYNC, d, e));
            }
            out.push((LOC, d, e));
        }
        out
    }

    /// c6: rf ⊆ ⊴ (with `orders = single`, the one order).
    fn c6(&self, rf: &[Option<usize>]) -> Vec<Edge> {
        rf_pairs(rf).map(|(d, e)| (DEP, d, e)).collect()
    }

    /// c8a: rf ⊆ ⊑ (`strong`), or only for strongly-overlapping pairs (`weak`).
    fn c8a(&self, rf: &[Option<usize>], labels: &[Action]) -> Vec<Edge> {
        rf_pairs(rf)
            .filter(|&(d, e)| {
                self.model.c8a == C8a::Strong
                    || action::strongly_overlaps(&labels[d], &labels[e], self.groups)
            })
            .map(|(d, e)| (LOC, d, e))
            .collect()
    }

    /// c7b: strongly-fencing d, e are ≤-ordered one way or the other.
    fn c7b(&self, labels: &[Action]) -> Vec<[Disjunct; 2]> {
        let mut out = Vec::new();
        if self.model.c7b != C7b::On {
            return out;
        }
        for d in 0..self.n() {
            for e in d + 1..self.n() {
                if action::strongly_fences(&labels[d], &labels[e], self.groups) {
                    let one = |a, b| Disjunct {
                        add: vec![(SYNC, a, b)],
                        forbid: vec![],
                    };
                    out.push([one(d, e), one(e, d)]);
                }
            }
        }
        out
    }

    /// c8b: if d rf e and λ(c) blocks λ(e) then c ⊑̇ d or e ⊑̇ c (c ≠ d;
    /// for c = d both parts of c ⊑̇ d hold trivially).
    fn c8b(&self, rf: &[Option<usize>], labels: &[Action]) -> Vec<[Disjunct; 2]> {
        let mut out = Vec::new();
        for (d, e) in rf_pairs(rf) {
            for c in 0..self.n() {
                if c != d && action::blocks(&labels[c], &labels[e]) {
                    out.push([self.fulfils(c, d, labels), self.fulfils(e, c, labels)]);
                }
            }
        }
        out
    }

    /// a ⊑̇ b (weak fulfilment): "b ⊑ a only if a = b" and "a ⊑ b if they
    /// strongly overlap" (with `sc_order = sec11`, also if both are sc).
    /// With `c8b = strong`, plain a ⊑ b.
    fn fulfils(&self, a: usize, b: usize, labels: &[Action]) -> Disjunct {
        if self.model.c8b == C8b::Strong {
            return Disjunct {
                add: vec![(LOC, a, b)],
                forbid: vec![],
            };
        }
        let sc = self.model.sc_order == ScOrder::Sec11
            && labels[a].mode == Mode::Sc
            && labels[b].mode == Mode::Sc;
        let strong = action::strongly_overlaps(&labels[a], &labels[b], self.groups) || sc;
        Disjunct {
            add: if strong { vec![(LOC, a, b)] } else { vec![] },
            forbid: if a != b { vec![(b, a)] } else { vec![] },
        }
    }

    /// Whether some orders make this rf a candidate with every edge of
    /// `extra` in them (c2a is the caller's: rf pairs match).
    pub fn feasible(
        &self,
        rf: &[Option<usize>],
        extra: &[Edge],
        give_up: &dyn Fn() -> bool,
    ) -> Option<bool> {
        let labels = self.effective_labels(rf);
        let mut base = self.base_edges(rf, &labels);
        base.extend_from_slice(extra);
        let mut rules = self.c7b(&labels);
        rules.extend(self.c8b(rf, &labels));
        // Every disjunct only adds to the base, so a base that already fails fails all.
        let table = self.table(&labels);
        let least = self.least_orders(rf, &labels, &table, &base);
        if !self.partial_orders(&least) {
            return Some(false);
        }
        // Past 2^32 choices the naive search is hopeless: a stated limit.
        let choices: u64 =
            1u64.checked_shl(u32::try_from(rules.len()).ok().filter(|&k| k <= 32)?)?;
        for pick in 0..choices {
            if pick % 64 == 0 && give_up() {
                return None;
            }
            let mut edges = base.clone();
            let mut forbid = Vec::new();
            for (i, alternatives) in rules.iter().enumerate() {
                let chosen = &alternatives[(pick >> i & 1) as usize];
                edges.extend_from_slice(&chosen.add);
                forbid.extend_from_slice(&chosen.forbid);
            }
            let orders = self.least_orders(rf, &labels, &table, &edges);
            if self.partial_orders(&orders) && forbid.iter().all(|&(a, b)| !orders.has(LOC, a, b)) {
                return Some(true);
            }
        }
        Some(false)
    }

    /// The least orders containing `edges`, closed under transitivity,
    /// c7a, M8a, §12 (`two_order`) and M9c.
    fn least_orders(
        &self,
        rf: &[Option<usize>],
        labels: &[Action],
        table: &Table,
        edges: &[Edge],
    ) -> Orders {
        let mut o = Orders::new(self.n(), self.model.orders == OrdersOpt::Single);
        for &(k, a, b) in edges {
            o.add(k, a, b);
        }
        loop {
            let mut changed = false;
            for k in [DEP, SYNC, LOC] {
                changed |= o.rel[k].close();
            }
            changed |= self.c7a(rf, labels, table, &mut o);
            changed |= self.m8a(table, &mut o);
            changed |= self.two_order(labels, table, &mut o);
            changed |= self.m9c(table, &mut o);
            if !changed {
                return o;
            }
        }
    }

    /// c7a: if d' ≤ d rf e ≤ e' and λ(d') strongly-matches λ(e') then
    /// d' ≤ e' (`closure`, c7a'); `direct`: d' = d and e' = e; `closure_po`
    /// (c7a''): d' in d's thread and e' in e's; `closure_rmw` (c7a'''): rf
    /// replaced by rf;(rmw;rf)*.
    fn c7a(&self, rf: &[Option<usize>], labels: &[Action], table: &Table, o: &mut Orders) -> bool {
        let mut changed = false;
        let n = self.n();
        for (d, e) in self.c7a_pairs(rf) {
            let before: Vec<usize> = (0..n).filter(|&x| x == d || o.has(SYNC, x, d)).collect();
            let after: Vec<usize> = (0..n).filter(|&x| x == e || o.has(SYNC, e, x)).collect();
            for &d2 in &before {
                for &e2 in &after {
                    let shape = match self.model.c7a {
                        C7a::Direct => d2 == d && e2 == e,
                        C7a::ClosurePo => {
                            labels[d2].thread == labels[d].thread
                                && labels[e2].thread == labels[e].thread
                        }
                        C7a::Closure | C7a::ClosureRmw => true,
                    };
                    if shape && table.strongly_matches[d2][e2] {
                        changed |= o.add(SYNC, d2, e2);
                    }
                }
            }
        }
        changed
    }

    /// rf, or with `closure_rmw` the pairs of rf;(rmw;rf)*.
    fn c7a_pairs(&self, rf: &[Option<usize>]) -> Vec<(usize, usize)> {
        let mut pairs: Vec<(usize, usize)> = rf_pairs(rf).collect();
        if self.model.c7a != C7a::ClosureRmw {
            return pairs;
        }
        loop {
            let mut grown = pairs.clone();
            for &(d, e) in &pairs {
                for &(r, w) in &self.rmw {
                    if r != e {
                        continue;
                    }
                    for (w2, e2) in rf_pairs(rf) {
                        if w2 == w && !grown.contains(&(d, e2)) {
                            grown.push((d, e2));
                        }
                    }
                }
            }
            if grown.len() == pairs.len() {
                return pairs;
            }
            pairs = grown;
        }
    }

    /// M8a: if λ(d) overlaps λ(e) then d ≤ e implies d ⊑ e.
    fn m8a(&self, table: &Table, o: &mut Orders) -> bool {
        let mut changed = false;
        for d in 0..self.n() {
            for e in 0..self.n() {
                if o.has(SYNC, d, e) && table.overlaps[d][e] {
                    changed |= o.add(LOC, d, e);
                }
            }
        }
        changed
    }

    /// §12 (`two_order`): d ⊑ e when d ⊴ e and they conflict (overlap, one a write).
    fn two_order(&self, labels: &[Action], table: &Table, o: &mut Orders) -> bool {
        if self.model.two_order != TwoOrder::On {
            return false;
        }
        let mut changed = false;
        for d in 0..self.n() {
            for e in 0..self.n() {
                let (a, b) = (&labels[d], &labels[e]);
                let conflict =
                    table.overlaps[d][e] && (a.kind == Kind::Write || b.kind == Kind::Write);
                if conflict && o.has(DEP, d, e) {
                    changed |= o.add(LOC, d, e);
                }
            }
        }
        changed
    }

    /// M9c: for d rmw e and c overlapping d, in each order: c before e
    /// implies c before d (i), and d before c implies e before c (ii).
    fn m9c(&self, table: &Table, o: &mut Orders) -> bool {
        let mut changed = false;
        for &(d, e) in &self.rmw {
            for c in 0..self.n() {
                if c == d || c == e || !table.overlaps[c][d] {
                    continue;
                }
                for k in [DEP, SYNC, LOC] {
                    if o.has(k, c, e) {
                        changed |= o.add(k, c, d);
                    }
                    if o.has(k, d, c) {
                        changed |= o.add(k, e, c);
                    }
                }
            }
        }
        changed
    }

    /// M6-M8: each order is a partial order (its closure irreflexive);
    /// `acyclic_union`: ≤ ∪ ⊑ acyclic too.
    fn partial_orders(&self, o: &Orders) -> bool {
        if !o.rel.iter().all(Rel::irreflexive) {
            return false;
        }
        if self.model.acyclic_union != AcyclicUnion::On {
            return true;
        }
        let mut union = o.rel[SYNC].clone();
        for a in 0..self.n() {
            for b in 0..self.n() {
                if o.rel[LOC].has(a, b) {
                    union.add(a, b);
                }
            }
        }
        union.close();
        union.irreflexive()
    }
}

/// The (source, read) pairs of rf.
fn rf_pairs(rf: &[Option<usize>]) -> impl Iterator<Item = (usize, usize)> + '_ {
    rf.iter().enumerate().filter_map(|(e, d)| d.map(|d| (d, e)))
}

/// Every total rf (c2a, c2b): each read one matching source.
pub fn every_rf(labels: &[Action]) -> Vec<Vec<Option<usize>>> {
    let mut out = vec![vec![None; labels.len()]];
    for e in 0..labels.len() {
        if labels[e].kind != Kind::Read {
            continue;
        }
        let sources: Vec<usize> = (0..labels.len())
            .filter(|&d| action::matches(&labels[d], &labels[e]))
            .collect();
        out = out
            .into_iter()
            .flat_map(|rf| {
                sources.iter().map(move |&d| {
                    let mut next = rf.clone();
                    next[e] = Some(d);
                    next
                })
            })
            .collect();
    }
    out
}
