//! The names a cat model starts with: herd7's event sets and relations over
//! a candidate execution (`axiomatic::execution`), and the functions
//! `domain`, `range` and `fencerel`. The book's "Axiomatic models" lists them.

use super::Ty;
use crate::engine::axiomatic::execution::{Event, Execution, Kind};
use crate::engine::axiomatic::relation::Rel;
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
    /// The Vulkan extension's names (`VULKAN`).
    Vulkan(VkBuiltin),
}

impl Builtin {
    /// Whether the builtin's value is a function of the candidate's frame
    /// (`cat::frame`): every builtin but rf, co and those made of them.
    pub fn fixed(self) -> bool {
        !matches!(
            self,
            Builtin::Rf
                | Builtin::Co
                | Builtin::Fr
                | Builtin::Rfe
                | Builtin::Rfi
                | Builtin::Coe
                | Builtin::Coi
                | Builtin::Fre
                | Builtin::Fri
        )
    }
}

impl Builtin {
    /// Whether the builtin is made of rf and the frame alone (`rf`, `rfe`,
    /// `rfi`): with `fixed`, what a co-free slot may read (`cat::frame`).
    pub fn reads_rf_only(self) -> bool {
        matches!(self, Builtin::Rf | Builtin::Rfe | Builtin::Rfi)
    }
}

/// One more than the largest `Builtin::code`.
pub const CODES: usize = 768;

impl Builtin {
    /// A number of its own (below `CODES`) for each builtin: what `cat::eval` finds a
    /// computed builtin by (comparing the enums field by field was a
    /// twentieth of Vulkan's time).
    pub fn code(self) -> u16 {
        match self {
            Builtin::All => 0,
            Builtin::W => 1,
            Builtin::R => 2,
            Builtin::F => 3,
            Builtin::M => 4,
            Builtin::IW => 5,
            Builtin::Id => 6,
            Builtin::Po => 7,
            Builtin::Rf => 8,
            Builtin::Co => 9,
            Builtin::Fr => 10,
            Builtin::Rmw => 11,
            Builtin::Addr => 12,
            Builtin::Data => 13,
            Builtin::Ctrl => 14,
            Builtin::Loc => 15,
            Builtin::Int => 16,
            Builtin::Ext => 17,
            Builtin::PoLoc => 18,
            Builtin::Rfe => 19,
            Builtin::Rfi => 20,
            Builtin::Coe => 21,
            Builtin::Coi => 22,
            Builtin::Fre => 23,
            Builtin::Fri => 24,
            Builtin::SameCta => 25,
            Builtin::SameGpu => 26,
            Builtin::Mode(m) => 32 + m as u16,
            Builtin::Scope(s) => 48 + s as u16,
            Builtin::Vulkan(v) => match v {
                VkBuiltin::Cbar => 64,
                VkBuiltin::Av => 65,
                VkBuiltin::Vis => 66,
                VkBuiltin::NonPriv => 67,
                VkBuiltin::SemAv => 68,
                VkBuiltin::SemVis => 69,
                VkBuiltin::SameSg => 70,
                VkBuiltin::SyncBar => 71,
                VkBuiltin::Class(n) => 256 + u16::from(n),
                VkBuiltin::SemSc(n) => 512 + u16::from(n),
            },
        }
    }
}

/// The names the Vulkan extension adds (the book's "Vulkan").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VkBuiltin {
    Cbar,
    Av,
    Vis,
    NonPriv,
    Class(u8),
    SemSc(u8),
    SemAv,
    SemVis,
    SameSg,
    SyncBar,
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

/// The Vulkan extension's builtins, with their name, type and one line
/// for the book's "Vulkan" chapter.
pub const VULKAN: [(&str, Builtin, Ty, &str); 19] = [
    (
        "CBAR",
        Builtin::Vulkan(VkBuiltin::Cbar),
        Ty::Set,
        "control barriers (`barrier`)",
    ),
    (
        "AV",
        Builtin::Vulkan(VkBuiltin::Av),
        Ty::Set,
        "writes with `.av` (MakePointerAvailable)",
    ),
    (
        "VIS",
        Builtin::Vulkan(VkBuiltin::Vis),
        Ty::Set,
        "reads with `.vis` (MakePointerVisible)",
    ),
    (
        "NONPRIV",
        Builtin::Vulkan(VkBuiltin::NonPriv),
        Ty::Set,
        "accesses with `.nonpriv` (NonPrivatePointer)",
    ),
    (
        "SC0",
        Builtin::Vulkan(VkBuiltin::Class(0)),
        Ty::Set,
        "accesses of storage class 0 (no class written, or `.sc0`)",
    ),
    (
        "SC1",
        Builtin::Vulkan(VkBuiltin::Class(1)),
        Ty::Set,
        "accesses of storage class 1 (`.sc1`)",
    ),
    (
        "SC2",
        Builtin::Vulkan(VkBuiltin::Class(2)),
        Ty::Set,
        "accesses of storage class 2 (`.sc2`)",
    ),
    (
        "SC3",
        Builtin::Vulkan(VkBuiltin::Class(3)),
        Ty::Set,
        "accesses of storage class 3 (`.sc3`)",
    ),
    (
        "SEMSC0",
        Builtin::Vulkan(VkBuiltin::SemSc(0)),
        Ty::Set,
        "events with storage class 0 in their semantics (`.semsc0`)",
    ),
    (
        "SEMSC1",
        Builtin::Vulkan(VkBuiltin::SemSc(1)),
        Ty::Set,
        "events with storage class 1 in their semantics (`.semsc1`)",
    ),
    (
        "SEMSC2",
        Builtin::Vulkan(VkBuiltin::SemSc(2)),
        Ty::Set,
        "events with storage class 2 in their semantics (`.semsc2`)",
    ),
    (
        "SEMSC3",
        Builtin::Vulkan(VkBuiltin::SemSc(3)),
        Ty::Set,
        "events with storage class 3 in their semantics (`.semsc3`)",
    ),
    (
        "SEMAV",
        Builtin::Vulkan(VkBuiltin::SemAv),
        Ty::Set,
        "events with MakeAvailable in their semantics (`.semav`)",
    ),
    (
        "SEMVIS",
        Builtin::Vulkan(VkBuiltin::SemVis),
        Ty::Set,
        "events with MakeVisible in their semantics (`.semvis`)",
    ),
    (
        "SG",
        Builtin::Scope(Scope::Sg),
        Ty::Set,
        "events of scope sg (subgroup)",
    ),
    (
        "same-sg",
        Builtin::Vulkan(VkBuiltin::SameSg),
        Ty::Rel,
        "pairs of events whose threads share a subgroup (`sg { ... }` in the tree)",
    ),
    (
        "syncbar",
        Builtin::Vulkan(VkBuiltin::SyncBar),
        Ty::Rel,
        "control barriers of one dynamic instance: same id, reached the same number of times",
    ),
    (
        "WG",
        Builtin::Scope(Scope::Cta),
        Ty::Set,
        "events of scope wg (our cta)",
    ),
    (
        "QF",
        Builtin::Scope(Scope::Gpu),
        Ty::Set,
        "events of scope qf (our gpu)",
    ),
];

/// Every builtin name: herd7's, then the Vulkan extension's.
pub fn named() -> impl Iterator<Item = &'static (&'static str, Builtin, Ty, &'static str)> {
    TABLE.iter().chain(VULKAN.iter())
}

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
    Rel::same(&keys)
}

/// A builtin's value in an execution.
pub fn value(b: Builtin, x: &Execution) -> Value {
    let n = x.len();
    let fr = || x.rf.inverse().seq(&x.co);
    let int = || same(x, |e| e.thread);
    let threaded = x.set(|e| e.thread.is_some());
    let ext = || Rel::product(n, threaded, threaded).diff(&int());
    let loc = || same(x, |e| e.kind.is_access().then_some(e.cell));
    match b {
        Builtin::All => Value::Set(x.all()),
        Builtin::W => is(x, |e| e.kind == Kind::Write),
        Builtin::R => is(x, |e| e.kind == Kind::Read),
        Builtin::F => is(x, |e| e.kind == Kind::Fence),
        Builtin::M => is(x, |e| e.kind.is_access()),
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
        Builtin::Vulkan(v) => vulkan(v, x),
    }
}

/// A Vulkan builtin's value. Storage classes are those of accesses in
/// threads (an initial write has none).
fn vulkan(v: VkBuiltin, x: &Execution) -> Value {
    let access = |e: &Event| e.kind.is_access() && e.thread.is_some();
    match v {
        VkBuiltin::Cbar => is(x, |e| e.kind == Kind::Barrier),
        VkBuiltin::Av => is(x, |e| e.vk.av),
        VkBuiltin::Vis => is(x, |e| e.vk.vis),
        VkBuiltin::NonPriv => is(x, |e| e.vk.nonpriv),
        VkBuiltin::Class(n) => is(x, |e| access(e) && e.vk.class == n),
        VkBuiltin::SemSc(n) => is(x, |e| e.vk.semsc & (1 << n) != 0),
        VkBuiltin::SemAv => is(x, |e| e.vk.semav),
        VkBuiltin::SemVis => is(x, |e| e.vk.semvis),
        VkBuiltin::SameSg => Value::Rel(x.same_sg.clone()),
        VkBuiltin::SyncBar => Value::Rel(x.syncbar.clone()),
    }
}

#[cfg(test)]
mod code_tests {
    use super::*;

    /// `Builtin::code` tells every builtin apart (`cat::eval` finds a
    /// computed builtin by it).
    #[test]
    fn codes_are_distinct() {
        let mut all: Vec<Builtin> = TABLE.iter().map(|(_, b, _, _)| *b).collect();
        all.extend(named().map(|(_, b, _, _)| *b));
        all.extend(Mode::ALL.iter().map(|&m| Builtin::Mode(m)));
        for n in 0..4 {
            all.push(Builtin::Vulkan(VkBuiltin::Class(n)));
            all.push(Builtin::Vulkan(VkBuiltin::SemSc(n)));
        }
        for a in &all {
            for b in &all {
                assert_eq!(a == b, a.code() == b.code(), "{a:?} and {b:?}");
            }
            assert!(usize::from(a.code()) < CODES, "{a:?}");
        }
        for n in [0, u8::MAX] {
            for b in [VkBuiltin::Class(n), VkBuiltin::SemSc(n)] {
                assert!(usize::from(Builtin::Vulkan(b).code()) < CODES);
            }
        }
    }
}
