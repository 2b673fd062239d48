//! The names a cat model starts with: herd7's event sets and relations over
//! a candidate execution (`axiomatic::execution`), and the functions
//! `domain`, `range` and `fencerel`. The book's "Axiomatic models" lists them.

use super::Ty;
use crate::axiomatic::execution::{Event, Execution, Kind};
use crate::axiomatic::relation::Rel;
use crate::syntax::ast::{Mode, Scope};

/// A name every model starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `_`: every event.
    All,
    W,
    R,
    F,
    M,
    IW,
    Mode(Mode),
    Scope(Scope),
    Id,
    Po,
    Rf,
    Co,
    Fr,
    Rmw,
    Addr,
    Data,
    Ctrl,
    Loc,
    Int,
    Ext,
    PoLoc,
    Rfe,
    Rfi,
    Coe,
    Coi,
    Fre,
    Fri,
    SameCta,
    SameGpu,
}

/// Every builtin with its name, type and one line for the book.
pub const TABLE: [(&str, Builtin, Ty, &str); 36] = [
    ("_", Builtin::All, Ty::Set, "every event"),
    (
        "W",
        Builtin::W,
        Ty::Set,
        "writes, the initial ones and the write halves of RMWs included",
    ),
    (
        "R",
        Builtin::R,
        Ty::Set,
        "reads, the read halves of RMWs included",
    ),
    ("F", Builtin::F, Ty::Set, "fences"),
    (
        "M",
        Builtin::M,
        Ty::Set,
        "memory accesses: reads and writes",
    ),
    (
        "IW",
        Builtin::IW,
        Ty::Set,
        "the initial writes, one per location",
    ),
    (
        "NA",
        Builtin::Mode(Mode::Wk),
        Ty::Set,
        "accesses of mode wk (C11 non-atomic)",
    ),
    (
        "RLX",
        Builtin::Mode(Mode::Rlx),
        Ty::Set,
        "events of mode rlx",
    ),
    (
        "ACQ",
        Builtin::Mode(Mode::Acq),
        Ty::Set,
        "events of mode acq",
    ),
    (
        "REL",
        Builtin::Mode(Mode::Rel),
        Ty::Set,
        "events of mode rel",
    ),
    (
        "ACQ_REL",
        Builtin::Mode(Mode::Ra),
        Ty::Set,
        "events of mode ra (fences only)",
    ),
    ("SC", Builtin::Mode(Mode::Sc), Ty::Set, "events of mode sc"),
    (
        "CTA",
        Builtin::Scope(Scope::Cta),
        Ty::Set,
        "events of scope cta",
    ),
    (
        "GPU",
        Builtin::Scope(Scope::Gpu),
        Ty::Set,
        "events of scope gpu",
    ),
    (
        "SYS",
        Builtin::Scope(Scope::Sys),
        Ty::Set,
        "events of scope sys (the initial writes too)",
    ),
    ("id", Builtin::Id, Ty::Rel, "the identity"),
    (
        "po",
        Builtin::Po,
        Ty::Rel,
        "program order (initial writes are in no thread, so in no po pair)",
    ),
    (
        "rf",
        Builtin::Rf,
        Ty::Rel,
        "reads-from: a write to the read that takes its value",
    ),
    (
        "co",
        Builtin::Co,
        Ty::Rel,
        "coherence: a total order on each location's writes, the initial write first",
    ),
    ("fr", Builtin::Fr, Ty::Rel, "from-read: rf^-1 ; co"),
    ("rmw", Builtin::Rmw, Ty::Rel, "an RMW's read to its write"),
    (
        "addr",
        Builtin::Addr,
        Ty::Rel,
        "a read to an access whose computed address depends on it",
    ),
    (
        "data",
        Builtin::Data,
        Ty::Rel,
        "a read to a write whose value depends on it",
    ),
    (
        "ctrl",
        Builtin::Ctrl,
        Ty::Rel,
        "a read to every event po-after a branch whose condition depends on it",
    ),
    (
        "loc",
        Builtin::Loc,
        Ty::Rel,
        "pairs of accesses to one location",
    ),
    (
        "int",
        Builtin::Int,
        Ty::Rel,
        "pairs of events of one thread",
    ),
    (
        "ext",
        Builtin::Ext,
        Ty::Rel,
        "pairs of events of different threads (an initial write is in none)",
    ),
    ("po-loc", Builtin::PoLoc, Ty::Rel, "po & loc"),
    ("rfe", Builtin::Rfe, Ty::Rel, "rf & ext"),
    ("rfi", Builtin::Rfi, Ty::Rel, "rf & int"),
    ("coe", Builtin::Coe, Ty::Rel, "co & ext"),
    ("coi", Builtin::Coi, Ty::Rel, "co & int"),
    ("fre", Builtin::Fre, Ty::Rel, "fr & ext"),
    ("fri", Builtin::Fri, Ty::Rel, "fr & int"),
    (
        "same-cta",
        Builtin::SameCta,
        Ty::Rel,
        "pairs of events whose threads share a cta (the scope tree)",
    ),
    (
        "same-gpu",
        Builtin::SameGpu,
        Ty::Rel,
        "pairs of events whose threads share a gpu",
    ),
];

/// The builtin functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    Domain,
    Range,
    FenceRel,
    PerScope,
}

pub const FUNCTIONS: [(&str, Function, &str); 4] = [
    (
        "domain",
        Function::Domain,
        "domain(r): the events r relates from",
    ),
    (
        "range",
        Function::Range,
        "range(r): the events r relates to",
    ),
    (
        "fencerel",
        Function::FenceRel,
        "fencerel(S): po ; [S] ; po, pairs separated by an S event",
    ),
    (
        "per-scope",
        Function::PerScope,
        "per-scope(r, s): for each scope instance I, the closure of r with the pairs of s whose narrower scope instance is I; the union of these (HRF-direct's happens-before)",
    ),
];

/// A set's or relation's value in one execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Set(u64),
    Rel(Rel),
}

impl Value {
    pub fn is_empty(&self) -> bool {
        match self {
            Value::Set(s) => *s == 0,
            Value::Rel(r) => r.is_empty(),
        }
    }
}

fn is(x: &Execution, f: impl Fn(&Event) -> bool) -> Value {
    Value::Set(x.set(f))
}

/// The equivalence "same key"; events with no key are related to none.
fn same<K: PartialEq>(x: &Execution, key: impl Fn(&Event) -> Option<K>) -> Rel {
    let keys: Vec<Option<K>> = x.events.iter().map(key).collect();
    let mut r = Rel::new(x.len());
    for (a, ka) in keys.iter().enumerate() {
        let Some(ka) = ka else { continue };
        for (b, kb) in keys.iter().enumerate() {
            if kb.as_ref() == Some(ka) {
                r.add(a, b);
            }
        }
    }
    r
}

/// A builtin's value in an execution.
pub fn value(b: Builtin, x: &Execution) -> Value {
    let n = x.len();
    let fr = || x.rf.inverse().seq(&x.co);
    let int = || same(x, |e| e.thread);
    let threaded = x.set(|e| e.thread.is_some());
    let ext = || Rel::product(n, threaded, threaded).diff(&int());
    let loc = || same(x, |e| (e.kind != Kind::Fence).then_some(e.cell));
    match b {
        Builtin::All => Value::Set(x.all()),
        Builtin::W => is(x, |e| e.kind == Kind::Write),
        Builtin::R => is(x, |e| e.kind == Kind::Read),
        Builtin::F => is(x, |e| e.kind == Kind::Fence),
        Builtin::M => is(x, |e| e.kind != Kind::Fence),
        Builtin::IW => is(x, |e| e.thread.is_none()),
        Builtin::Mode(m) => is(x, |e| e.mode == Some(m)),
        Builtin::Scope(s) => is(x, |e| e.scope == s),
        Builtin::Id => Value::Rel(Rel::identity(n, x.all())),
        Builtin::Po => Value::Rel(x.po.clone()),
        Builtin::Rf => Value::Rel(x.rf.clone()),
        Builtin::Co => Value::Rel(x.co.clone()),
        Builtin::Fr => Value::Rel(fr()),
        Builtin::Rmw => Value::Rel(x.rmw.clone()),
        Builtin::Addr => Value::Rel(x.addr.clone()),
        Builtin::Data => Value::Rel(x.data.clone()),
        Builtin::Ctrl => Value::Rel(x.ctrl.clone()),
        Builtin::Loc => Value::Rel(loc()),
        Builtin::Int => Value::Rel(int()),
        Builtin::Ext => Value::Rel(ext()),
        Builtin::PoLoc => Value::Rel(x.po.inter(&loc())),
        Builtin::Rfe => Value::Rel(x.rf.inter(&ext())),
        Builtin::Rfi => Value::Rel(x.rf.inter(&int())),
        Builtin::Coe => Value::Rel(x.co.inter(&ext())),
        Builtin::Coi => Value::Rel(x.co.inter(&int())),
        Builtin::Fre => Value::Rel(fr().inter(&ext())),
        Builtin::Fri => Value::Rel(fr().inter(&int())),
        Builtin::SameCta => Value::Rel(x.same_cta.clone()),
        Builtin::SameGpu => Value::Rel(x.same_gpu.clone()),
    }
}
