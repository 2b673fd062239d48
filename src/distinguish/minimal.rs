//! Minimal distinguishing programs. A program is minimal when none of its
//! one-step weakenings still distinguishes the models. The steps, each
//! within the vocabulary:
//!
//! - removing one access (a thread left empty goes);
//! - weakening one mode to the next weaker one: reads sc → acq → rlx → wk,
//!   writes sc → rel → rlx → wk, fences sc → ra → acq and rel, an RMW's
//!   halves each as a read and a write (a mode missing from the vocabulary
//!   is skipped over);
//! - replacing an RMW by its read half or its write half alone (`halves`);
//! - narrowing one scope: sys → gpu → cta;
//! - dropping one dependency.

use super::shape::{Dep, Kind, Op, Shape, Space};
use super::{Decision, Pair, Undecided};
use crate::syntax::ast::{Mode, Scope};

/// Whether a distinguishing program is minimal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Minimal {
    Yes,
    /// A weakening (named) that still distinguishes.
    No(String),
    /// No weakening distinguishes, but some were undecided (the first named).
    Unknown(String),
}

impl std::fmt::Display for Minimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Minimal::Yes => write!(f, "yes"),
            Minimal::No(step) => write!(f, "no: {step} still distinguishes"),
            Minimal::Unknown(why) => write!(f, "unknown: {why}"),
        }
    }
}

/// Whether `s` (which distinguishes) is minimal under `pair`. A weakening
/// outside what the models decide (`Undecided::outside`: a data race, a
/// store outside V, a construct a model lacks) distinguishes nothing; one
/// a limit stopped leaves the minimality unknown.
pub fn minimal(space: &Space, pair: &Pair, s: &Shape) -> Minimal {
    minimal_by(space, s, |w| pair.decide_shape(space, w).into())
}

/// Whether a program distinguishes the models: what minimality asks of
/// each weakening, which needs no states (`Pair::distinguishes_known`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Distinguishes {
    Yes,
    No,
    Undecided(Undecided),
}

impl From<Decision> for Distinguishes {
    fn from(d: Decision) -> Distinguishes {
        match d {
            Decision::Same => Distinguishes::No,
            Decision::Differs { .. } => Distinguishes::Yes,
            Decision::Undecided(u) => Distinguishes::Undecided(u),
        }
    }
}

/// `minimal`, with whether each weakening distinguishes told by `decide`.
pub fn minimal_by(
    space: &Space,
    s: &Shape,
    mut decide: impl FnMut(&Shape) -> Distinguishes,
) -> Minimal {
    let mut undecided = None;
    for (step, w) in weakenings(space, s) {
        match decide(&w) {
            Distinguishes::Yes => return Minimal::No(step),
            Distinguishes::Undecided(u) if !u.outside => {
                undecided.get_or_insert(format!("{step}: {}", u.why));
            }
            Distinguishes::Undecided(_) | Distinguishes::No => {}
        }
    }
    match undecided {
        Some(why) => Minimal::Unknown(why),
        None => Minimal::Yes,
    }
}

/// Each one-step weakening of `s`, named (`remove P1's access 0`).
pub fn weakenings(space: &Space, s: &Shape) -> Vec<(String, Shape)> {
    let mut out = Vec::new();
    let v = &space.vocabulary;
    for (t, thread) in s.threads.iter().enumerate() {
        for (i, op) in thread.iter().enumerate() {
            let at = format!("P{t}'s access {i}");
            out.push((format!("removing {at}"), removed(space, s, t, i)));
            for (what, half) in halves(op) {
                let step = format!("replacing {at} by a plain {what}");
                out.push((step, replaced(s, t, i, half)));
            }
            let mut with = |what: String, new: Op| {
                let mut w = s.clone();
                w.threads[t][i] = new;
                out.push((format!("{what} of {at}"), w));
            };
            let class = if op.kind.is_rmw() {
                Kind::Read
            } else {
                op.kind
            };
            for m in weaker(class, op.mode, &v.modes) {
                with(format!("mode {}", m.as_str()), Op { mode: m, ..*op });
            }
            if op.kind.is_rmw() {
                for m in weaker(Kind::Write, op.wmode, &v.modes) {
                    with(format!("write mode {}", m.as_str()), Op { wmode: m, ..*op });
                }
            }
            if let Some(sc) = narrower(op.scope, &v.scopes) {
                with(format!("scope {}", sc.as_str()), Op { scope: sc, ..*op });
            }
            if op.dep != Dep::None {
                with(
                    "no dependency".to_string(),
                    Op {
                        dep: Dep::None,
                        ..*op
                    },
                );
            }
        }
    }
    out
}

/// An RMW's halves as plain accesses of its location, scope and
/// dependency: a read in the read half's mode, and a write in the write
/// half's mode of the RMW's operand (EXCHG's value; FADD's increment, what
/// it writes over the initial 0). None for another access.
pub fn halves(op: &Op) -> Vec<(&'static str, Op)> {
    if !op.kind.is_rmw() {
        return Vec::new();
    }
    let read = Op {
        kind: Kind::Read,
        val: 0,
        wmode: Mode::Rlx,
        ..*op
    };
    let write = Op {
        kind: Kind::Write,
        mode: op.wmode,
        wmode: Mode::Rlx,
        ..*op
    };
    vec![("read", read), ("write", write)]
}

/// `s` with access `i` of thread `t` replaced by `op`. When `op` reads
/// nothing, the dependencies on the value read there (up to the thread's
/// next read) are dropped, not moved to an earlier read.
pub fn replaced(s: &Shape, t: usize, i: usize, op: Op) -> Shape {
    let mut w = s.clone();
    w.threads[t][i] = op;
    if op.kind.reads() {
        return w;
    }
    for later in w.threads[t].iter_mut().skip(i + 1) {
        later.dep = Dep::None;
        if later.kind.reads() {
            break;
        }
    }
    w
}

/// `s` without access `i` of thread `t`; a dependency left with no read
/// before it is dropped, and an empty thread goes (but under a scope tree,
/// which names it: then it is `skip;`).
pub fn removed(space: &Space, s: &Shape, t: usize, i: usize) -> Shape {
    let mut w = s.clone();
    w.threads[t].remove(i);
    let mut after_read = false;
    for op in &mut w.threads[t] {
        if !after_read {
            op.dep = Dep::None;
        }
        after_read |= op.kind.reads() && op.dep != Dep::Ctrl;
    }
    if space.threads_are_interchangeable() {
        w.threads.retain(|th| !th.is_empty());
    }
    w
}

/// The modes just below `m` for an access of `class` (Read, Write or
/// Fence), skipping those missing from `vocabulary`.
pub fn weaker(class: Kind, m: Mode, vocabulary: &[Mode]) -> Vec<Mode> {
    let below = |m: Mode| -> Vec<Mode> {
        match (class, m) {
            (Kind::Fence, Mode::Sc) => vec![Mode::Ra],
            (Kind::Fence, Mode::Ra) => vec![Mode::Acq, Mode::Rel],
            (Kind::Fence, _) => vec![],
            (_, Mode::Sc) if class == Kind::Write => vec![Mode::Rel],
            (_, Mode::Sc) => vec![Mode::Acq],
            (_, Mode::Acq | Mode::Rel) => vec![Mode::Rlx],
            (_, Mode::Rlx) => vec![Mode::Wk],
            _ => vec![],
        }
    };
    let mut out = Vec::new();
    let mut todo = below(m);
    while let Some(n) = todo.pop() {
        if vocabulary.contains(&n) {
            if !out.contains(&n) {
                out.push(n);
            }
        } else {
            todo.extend(below(n));
        }
    }
    out.sort();
    out
}

/// The next narrower scope in `vocabulary`: sys, then gpu, then cta.
pub fn narrower(s: Scope, vocabulary: &[Scope]) -> Option<Scope> {
    let order = [Scope::Cta, Scope::Gpu, Scope::Sys];
    let at = order.iter().position(|o| *o == s)?;
    order[..at]
        .iter()
        .rev()
        .find(|o| vocabulary.contains(o))
        .copied()
}

/// The family of `s`: its canonical shape with every mode relaxed (the
/// fences' made `sc`) and every scope `sys`.
pub fn family(space: &Space, s: &Shape) -> Shape {
    let mut f = s.clone();
    for op in f.threads.iter_mut().flatten() {
        op.mode = if op.kind == Kind::Fence {
            Mode::Sc
        } else {
            Mode::Rlx
        };
        op.wmode = Mode::Rlx;
        op.scope = Scope::Sys;
    }
    super::canon::canonical(space, &f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weakening_skips_modes_outside_the_vocabulary() {
        assert_eq!(
            weaker(Kind::Read, Mode::Sc, &[Mode::Rlx, Mode::Sc]),
            vec![Mode::Rlx]
        );
        assert_eq!(
            weaker(Kind::Fence, Mode::Sc, &[Mode::Acq, Mode::Rel, Mode::Sc]),
            vec![Mode::Rel, Mode::Acq]
        );
        assert_eq!(
            weaker(Kind::Write, Mode::Rlx, &[Mode::Rlx, Mode::Rel]),
            vec![]
        );
        assert_eq!(
            narrower(Scope::Sys, &[Scope::Cta, Scope::Sys]),
            Some(Scope::Cta)
        );
    }

    #[test]
    fn an_rmw_weakens_to_its_read_half_or_its_write_half() {
        let fadd = Op {
            kind: Kind::Fadd,
            loc: 1,
            val: 1,
            mode: Mode::Acq,
            wmode: Mode::Rel,
            scope: Scope::Gpu,
            dep: Dep::None,
        };
        let data = Op {
            kind: Kind::Write,
            loc: 0,
            dep: Dep::Data,
            mode: Mode::Rlx,
            wmode: Mode::Rlx,
            ..fadd
        };
        let s = Shape {
            threads: vec![vec![fadd, data]],
        };
        assert_eq!(s.body(), "r0 := FADD.acq.rel.gpu(y, 1); x.gpu := r0;");
        let [(_, read), (_, write)] = halves(&fadd).try_into().expect("two halves");
        assert_eq!(
            replaced(&s, 0, 0, read).body(),
            "r0 := y.acq.gpu; x.gpu := r0;"
        );
        // The value read is gone, and the dependency on it with it.
        assert_eq!(
            replaced(&s, 0, 0, write).body(),
            "y.rel.gpu := 1; x.gpu := 1;"
        );
        assert!(halves(&data).is_empty());
    }
}
