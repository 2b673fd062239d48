//! The values a program's executions can store: the closure that makes the
//! default V, and the check that a declared V is not left (issue 27 §1).
//!
//! Every engine drops an execution that writes a value outside V, or uses an
//! address outside it, since the pomset semantics has no event for it. So V
//! must hold every value an execution writes, reads (reads return written or
//! initial values) or uses as an address; then nothing is dropped.
//!
//! A value is *derived*: an initial value, or a write's expression over the
//! values its thread read. In an execution each write event occurs once and
//! no value is justified by itself (thin-air freedom: rf ∪ dependency is
//! acyclic), so every written value has a derivation that uses each write
//! site at most once. The closure follows exactly those: each value carries
//! the set of write sites it was derived through, and a write never takes an
//! operand derived through itself. That is an over-approximation (any
//! interleaving of sites is allowed, and a read may read any derived value of
//! its location), which is safe for V: a larger V loses no execution. It
//! terminates (a derivation uses at most as many sites as there are), and
//! `MAX_DERIVATIONS` bounds its cost; `r := x; x := r + 1` gives {0, 1},
//! where following values without their sites would run off to infinity.

use std::collections::BTreeMap;

use super::ast::{RmwOp, UnOp};
use super::core::{Expr, Loc, LocId, Program, RegId, Stmt, ThreadId};

/// The most (value, sites) pairs the closure keeps; past it, the closure is
/// refused with this limit named (declare V).
pub const MAX_DERIVATIONS: usize = 100_000;

/// The write sites a value was derived through, one bit each. Sites past
/// the 64th share no bit, so they may feed themselves: more values, never
/// fewer (the limit then stops a runaway).
type Sites = u64;

/// Values with the minimal sets of sites each was derived through.
#[derive(Clone, Default, PartialEq, Eq)]
struct Derived(BTreeMap<i64, Vec<Sites>>);

impl Derived {
    fn one(v: i64) -> Derived {
        Derived(BTreeMap::from([(v, vec![0])]))
    }

    fn len(&self) -> usize {
        self.0.values().map(Vec::len).sum()
    }

    /// Adds a derivation unless one through fewer sites has the same value;
    /// true if it was new.
    fn add(&mut self, v: i64, sites: Sites) -> bool {
        let known = self.0.entry(v).or_default();
        if known.iter().any(|k| k & sites == *k) {
            return false;
        }
        known.retain(|k| k & sites != sites);
        known.push(sites);
        true
    }

    fn union(&mut self, other: &Derived) -> bool {
        let mut changed = false;
        for (v, all) in &other.0 {
            for s in all {
                changed |= self.add(*v, *s);
            }
        }
        changed
    }

    fn pairs(&self) -> impl Iterator<Item = (i64, Sites)> + '_ {
        self.0
            .iter()
            .flat_map(|(v, all)| all.iter().map(move |s| (*v, *s)))
    }
}

/// A write (or an RMW's write) that may store a value outside a given V.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Left {
    pub thread: ThreadId,
    /// A location's name, or `[computed]` for a computed address.
    pub place: String,
    pub value: i64,
}

/// What the closure found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Closure {
    /// Every value an execution may store, read or use as an address
    /// (initial values included), sorted.
    pub values: Vec<i64>,
    /// With a bound V: the first stores that may leave it, one per
    /// (thread, place, value).
    pub left: Vec<Left>,
}

/// The closure stopped at `MAX_DERIVATIONS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooMany;

/// The values the program's executions may store. With `within`, values
/// outside that V are recorded in `left` and not followed further (the
/// engines drop those executions there), so the walk stays inside V.
pub fn closure(p: &Program, within: Option<&[i64]>) -> Result<Closure, TooMany> {
    let mut w = Walk {
        p,
        within,
        locs: p.locs.iter().map(|l| Derived::one(l.init)).collect(),
        regs: vec![Derived::default(); p.regs.len()],
        addresses: Derived::default(),
        left: Vec::new(),
        site: 0,
        thread: 0,
        changed: false,
    };
    loop {
        w.changed = false;
        w.site = 0;
        for (t, body) in &p.main {
            w.thread = *t;
            w.stmt(body)?;
        }
        let size: usize = w.locs.iter().chain(&w.regs).map(Derived::len).sum();
        if size > MAX_DERIVATIONS {
            return Err(TooMany);
        }
        if !w.changed {
            break;
        }
    }
    let mut values: Vec<i64> = w
        .locs
        .iter()
        .chain([&w.addresses])
        .flat_map(|d| d.0.keys().copied())
        .collect();
    values.sort_unstable();
    values.dedup();
    Ok(Closure {
        values,
        left: w.left,
    })
}

struct Walk<'a> {
    p: &'a Program,
    within: Option<&'a [i64]>,
    /// Per location, the values stored there (initial value included).
    locs: Vec<Derived>,
    regs: Vec<Derived>,
    addresses: Derived,
    left: Vec<Left>,
    /// The next write site (numbered across all threads in the same order
    /// every round, so a site keeps its bit).
    site: u32,
    thread: ThreadId,
    changed: bool,
}

impl Walk<'_> {
    fn stmt(&mut self, s: &Stmt) -> Result<(), TooMany> {
        match s {
            Stmt::Skip | Stmt::Fence { .. } | Stmt::Diverge { .. } | Stmt::Barrier { .. } => {}
            Stmt::Let { reg, expr } => {
                let v = self.expr(expr)?;
                self.set_reg(*reg, &v);
            }
            Stmt::Read { reg, loc, .. } => {
                let v = self.read(loc)?;
                self.set_reg(*reg, &v);
            }
            Stmt::Write { loc, expr, .. } => {
                let bit = self.next_site();
                let v = self.expr(expr)?;
                self.write(loc, &v, bit)?;
            }
            Stmt::Rmw {
                reg, op, loc, args, ..
            } => {
                let bit = self.next_site();
                let old = self.read(loc)?;
                self.set_reg(*reg, &old);
                let args = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let new = match (op, args.as_slice()) {
                    (RmwOp::Fadd, [a]) => combine(&old, a, i64::wrapping_add)?,
                    (RmwOp::Exchg, [a]) => a.clone(),
                    // A CAS writes its new value only when it succeeds.
                    (RmwOp::Cas, [_, new]) => new.clone(),
                    _ => Derived::default(),
                };
                self.write(loc, &new, bit)?;
            }
            // Either branch may run: both are followed.
            Stmt::If { then, els, .. } => {
                self.stmt(then)?;
                self.stmt(els)?;
            }
            Stmt::Seq(parts) => {
                for part in parts {
                    self.stmt(part)?;
                }
            }
            Stmt::Par {
                thread,
                left,
                right,
            } => {
                let parent = std::mem::replace(&mut self.thread, *thread);
                self.stmt(left)?;
                self.thread = parent;
                self.stmt(right)?;
            }
            Stmt::Vulkan { body, .. } => self.stmt(body)?,
        }
        Ok(())
    }

    fn next_site(&mut self) -> Sites {
        let bit = 1u64.checked_shl(self.site).unwrap_or(0);
        self.site = self.site.saturating_add(1);
        bit
    }

    fn set_reg(&mut self, reg: RegId, v: &Derived) {
        if let Some(r) = self.regs.get_mut(reg as usize) {
            self.changed |= r.union(v);
        }
    }

    /// The locations an access may reach: a named one, or any for a computed
    /// address (whose values are used as addresses, so they belong in V).
    fn places(&mut self, loc: &Loc) -> Result<Vec<LocId>, TooMany> {
        match loc {
            Loc::Named(l) => Ok(vec![*l]),
            Loc::Computed(e) => {
                let at = self.expr(e)?;
                self.changed |= self.addresses.union(&at);
                Ok((0..self.p.locs.len() as LocId).collect())
            }
        }
    }

    fn read(&mut self, loc: &Loc) -> Result<Derived, TooMany> {
        let mut out = Derived::default();
        for l in self.places(loc)? {
            if let Some(d) = self.locs.get(l as usize) {
                out.union(d);
            }
        }
        Ok(out)
    }

    /// WRITE: stores each value not derived through this very site.
    fn write(&mut self, loc: &Loc, v: &Derived, bit: Sites) -> Result<(), TooMany> {
        let places = self.places(loc)?;
        let place = match loc {
            Loc::Named(l) => self.p.loc_name(*l).to_string(),
            Loc::Computed(_) => "[computed]".to_string(),
        };
        for (value, sites) in v.pairs() {
            if sites & bit != 0 {
                continue;
            }
            if self
                .within
                .is_some_and(|vs| vs.binary_search(&value).is_err())
            {
                let left = Left {
                    thread: self.thread,
                    place: place.clone(),
                    value,
                };
                if !self.left.contains(&left) {
                    self.left.push(left);
                }
                continue;
            }
            for &l in &places {
                if let Some(d) = self.locs.get_mut(l as usize) {
                    self.changed |= d.add(value, sites | bit);
                }
            }
        }
        Ok(())
    }

    fn expr(&self, e: &Expr) -> Result<Derived, TooMany> {
        match e {
            Expr::Int(n) => Ok(Derived::one(*n)),
            // An unassigned register holds 0 (registers start at 0).
            Expr::Reg(r) => Ok(match self.regs.get(*r as usize) {
                Some(d) if !d.0.is_empty() => d.clone(),
                _ => Derived::one(0),
            }),
            Expr::Unary(op, a) => {
                let a = self.expr(a)?;
                let mut out = Derived::default();
                for (v, s) in a.pairs() {
                    let v = match op {
                        UnOp::Neg => v.wrapping_neg(),
                        UnOp::Not => i64::from(v == 0),
                    };
                    out.add(v, s);
                }
                Ok(out)
            }
            Expr::Binary(op, a, b) => {
                combine(&self.expr(a)?, &self.expr(b)?, |x, y| op.apply(x, y))
            }
        }
    }
}

/// Every value of `f` over the two operands' derivations, through the
/// union of their sites.
fn combine(a: &Derived, b: &Derived, f: impl Fn(i64, i64) -> i64) -> Result<Derived, TooMany> {
    if a.len().saturating_mul(b.len()) > MAX_DERIVATIONS {
        return Err(TooMany);
    }
    let mut out = Derived::default();
    for (x, sx) in a.pairs() {
        for (y, sy) in b.pairs() {
            out.add(f(x, y), sx | sy);
        }
    }
    Ok(out)
}
