//! The desugared core program that feeds the semantics: every access has its
//! mode and scope, extended expressions are reads into fresh registers
//! (§1.1), names are resolved to small integers, and threads have ids.

use super::ast::{BinOp, CmpOp, Mode, Qual, Quantifier, RmwOp, Scope, UnOp, Verdict};
use super::span::Span;
use crate::model::Model;

pub type ThreadId = u32;
pub type RegId = u32;
pub type LocId = u32;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadInfo {
    pub name: String,
    /// The thread that forked it, for the note's asymmetric composition.
    pub parent: Option<ThreadId>,
    /// Definition 1.1: threads with equal `cta` are =cta; equal `gpu`, =gpu.
    pub cta: u32,
    pub gpu: u32,
    /// Vulkan's subgroups (`sg { ... }` in the tree); a thread outside any
    /// `sg` group is a subgroup of its own.
    pub sg: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    pub name: String,
    pub thread: ThreadId,
    /// Introduced by desugaring an extended expression, or a hidden SSA
    /// version.
    pub fresh: bool,
    /// For a hidden SSA version (an earlier version of a reassigned
    /// register, `_r1`), the source register it is a version of. Where such
    /// a version is free in a fragment's formulas it stands for that
    /// register's value before the fragment (the local refinement check pairs
    /// them by it).
    pub version_of: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocInfo {
    pub name: String,
    /// The value `ℓ` with x = [ℓ] (§1.1), when declared.
    pub address: Option<i64>,
    pub init: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Int(i64),
    Reg(RegId),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// The value of an expression that mentions no register (`None` also
    /// when it overflows: the checker refuses that, see `syntax::range`).
    pub fn constant(&self) -> Option<i64> {
        match self {
            Expr::Int(n) => Some(*n),
            Expr::Reg(_) => None,
            Expr::Unary(UnOp::Neg, a) => a.constant()?.checked_neg(),
            Expr::Unary(UnOp::Not, a) => Some(i64::from(a.constant()? == 0)),
            Expr::Binary(op, a, b) => op.checked_apply(a.constant()?, b.constant()?),
        }
    }
}

/// Vulkan's qualifiers of one instruction, resolved (the book's "Vulkan"):
/// the storage class of an access (sc0 when unwritten), per-instruction
/// availability/visibility, non-private, and the semantics of a release or
/// acquire (storage classes as a bit set, MakeAvailable, MakeVisible).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Vk {
    pub av: bool,
    pub vis: bool,
    pub nonpriv: bool,
    pub class: u8,
    /// Bit n: storage class n is in the semantics.
    pub semsc: u8,
    pub semav: bool,
    pub semvis: bool,
}

impl Vk {
    pub fn from_quals<'a>(quals: impl IntoIterator<Item = &'a Qual>) -> Vk {
        let mut vk = Vk::default();
        for q in quals {
            match *q {
                Qual::Av => vk.av = true,
                Qual::Vis => vk.vis = true,
                Qual::NonPriv => vk.nonpriv = true,
                Qual::Class(n) => vk.class = n,
                Qual::SemSc(n) => vk.semsc |= 1 << n,
                Qual::SemAv => vk.semav = true,
                Qual::SemVis => vk.semvis = true,
            }
        }
        vk
    }

    /// The qualifiers that say this, sorted; the default class is left out.
    pub fn quals(self) -> Vec<Qual> {
        let mut out = Vec::new();
        let flags = [
            (self.av, Qual::Av),
            (self.vis, Qual::Vis),
            (self.nonpriv, Qual::NonPriv),
        ];
        out.extend(flags.iter().filter(|f| f.0).map(|f| f.1));
        if self.class != 0 {
            out.push(Qual::Class(self.class));
        }
        out.extend(
            (0..super::ast::STORAGE_CLASSES)
                .filter(|n| self.semsc & (1 << n) != 0)
                .map(Qual::SemSc),
        );
        out.extend(
            [(self.semav, Qual::SemAv), (self.semvis, Qual::SemVis)]
                .iter()
                .filter(|f| f.0)
                .map(|f| f.1),
        );
        out
    }
}

/// Where an access goes: a location, or an address computed at run time (§1.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    Named(LocId),
    Computed(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Skip,
    /// LET: r := M.
    Let {
        reg: RegId,
        expr: Expr,
    },
    /// READ: r := [L]^μ_σ.
    Read {
        reg: RegId,
        loc: Loc,
        mode: Mode,
        scope: Scope,
    },
    /// WRITE: [L]^μ_σ := M.
    Write {
        loc: Loc,
        expr: Expr,
        mode: Mode,
        scope: Scope,
    },
    /// FENCE: F^μ_σ.
    Fence {
        mode: Mode,
        scope: Scope,
    },
    /// §1.7: r := CAS/FADD/EXCHG^{μ,ν}_σ([L], args).
    Rmw {
        reg: RegId,
        op: RmwOp,
        read_mode: Mode,
        write_mode: Mode,
        scope: Scope,
        loc: Loc,
        args: Vec<Expr>,
    },
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Box<Stmt>,
    },
    Seq(Vec<Stmt>),
    /// No events and ✓ = ff: this path never terminates, so no complete
    /// pomset and no SC run goes through it. A loop's unrolling ends in
    /// `if (M) { diverge }`, so an execution that needs more iterations than
    /// the bound is not an execution. `bound`: the path is cut by a bound
    /// (a loop's unrolling, or a `diverge` written or imported), so an
    /// execution may go on past it at a larger bound; not for a spin loop's
    /// last pass, whose `diverge` is exact (`syntax::spin`).
    Diverge {
        bound: bool,
    },
    /// PAR: `left` runs as the new thread `thread`; `right` continues the current one.
    Par {
        thread: ThreadId,
        left: Box<Stmt>,
        right: Box<Stmt>,
    },
    /// A Vulkan-qualified access (`body` is one READ, WRITE, FENCE or RMW):
    /// only the Vulkan model gives the qualifiers a meaning; the pomset
    /// semantics refuses it (`at` is the statement's place in the file).
    Vulkan {
        vk: Vk,
        at: Span,
        body: Box<Stmt>,
    },
    /// Vulkan's control barrier (OpControlBarrier) with execution scope
    /// `scope`, optional semantics (`mode` acq, rel or ra, and `vk`'s
    /// storage classes and av/vis flags) and barrier id `id`.
    Barrier {
        mode: Option<Mode>,
        scope: Scope,
        vk: Vk,
        id: i64,
        at: Span,
    },
}

impl Stmt {
    /// The first construct only the Vulkan model defines (a qualifier, a
    /// barrier, the subgroup scope), with its place and name.
    pub fn vulkan_only(&self) -> Option<(Span, &'static str)> {
        match self {
            Stmt::Vulkan { vk, at, .. } => Some((*at, vk_name(vk))),
            Stmt::Barrier { at, .. } => Some((*at, "`barrier`")),
            Stmt::If { then, els, .. } => then.vulkan_only().or_else(|| els.vulkan_only()),
            Stmt::Seq(parts) => parts.iter().find_map(Stmt::vulkan_only),
            Stmt::Par { left, right, .. } => left.vulkan_only().or_else(|| right.vulkan_only()),
            _ => None,
        }
    }

    /// Whether some access in this statement goes to a computed address
    /// (`[L]`, §1.5).
    pub fn computes_an_address(&self) -> bool {
        match self {
            Stmt::Read { loc, .. } | Stmt::Write { loc, .. } | Stmt::Rmw { loc, .. } => {
                matches!(loc, Loc::Computed(_))
            }
            Stmt::If { then, els, .. } => then.computes_an_address() || els.computes_an_address(),
            Stmt::Seq(parts) => parts.iter().any(Stmt::computes_an_address),
            Stmt::Par { left, right, .. } => {
                left.computes_an_address() || right.computes_an_address()
            }
            Stmt::Vulkan { body, .. } => body.computes_an_address(),
            _ => false,
        }
    }

    /// The registers a LET assigns anywhere in this statement. Their values
    /// may leave V (`r := 1 + 1` with V = {0, 1}), unlike those of registers
    /// that only reads assign.
    pub fn let_targets(&self) -> Vec<RegId> {
        match self {
            Stmt::Let { reg, .. } => vec![*reg],
            Stmt::If { then, els, .. } => [then.let_targets(), els.let_targets()].concat(),
            Stmt::Seq(parts) => parts.iter().flat_map(Stmt::let_targets).collect(),
            Stmt::Par { left, right, .. } => [left.let_targets(), right.let_targets()].concat(),
            _ => vec![],
        }
    }
}

/// The name of a qualified access's first Vulkan qualifier, for refusals.
fn vk_name(vk: &Vk) -> &'static str {
    match vk.quals().first() {
        Some(Qual::Av) => "the availability qualifier `.av`",
        Some(Qual::Vis) => "the visibility qualifier `.vis`",
        Some(Qual::NonPriv) => "the qualifier `.nonpriv`",
        Some(Qual::Class(_)) => "a storage class (`.sc1` to `.sc3`)",
        Some(Qual::SemSc(_)) => "storage-class semantics (`.semsc0` to `.semsc3`)",
        Some(Qual::SemAv | Qual::SemVis) => {
            "availability/visibility semantics (`.semav`, `.semvis`)"
        }
        // Wrapped without qualifiers: the access's scope is `sg`.
        None => "the subgroup scope `.sg`",
    }
}

/// A final-state term in a condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Int(i64),
    Reg(RegId),
    /// The final value of a location (option `final`).
    Mem(LocId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    True,
    False,
    Cmp(Term, CmpOp, Term),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

/// An expectation, resolved to model settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub verdict: Verdict,
    /// Empty for the unconditional expectation.
    pub when: Vec<(&'static str, &'static str)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub prop: Prop,
    pub expectations: Vec<Expectation>,
    /// A known disagreement with the unconditional expectation (`disputed "why"`).
    pub disputed: Option<String>,
}

impl Condition {
    /// The expectation that applies under `model`: the one whose `when`
    /// settings all hold and name the most options; the unconditional one
    /// otherwise. `allow`/`forbid` imply one when nothing else applies.
    pub fn expectation(&self, model: &Model) -> Option<Verdict> {
        match (self.chosen(model), self.quantifier) {
            (Some(e), _) => Some(e.verdict),
            (None, Quantifier::Allow) => Some(Verdict::Allowed),
            (None, Quantifier::Forbid) => Some(Verdict::Forbidden),
            (None, _) => None,
        }
    }

    /// The stated disagreement that applies under `model`: only the
    /// unconditional expectation (the note's own verdict) can be disputed.
    pub fn dispute(&self, model: &Model) -> Option<&str> {
        match self.chosen(model) {
            Some(e) if !e.when.is_empty() => None,
            _ => self.disputed.as_deref(),
        }
    }

    fn chosen(&self, model: &Model) -> Option<&Expectation> {
        let applies = |e: &&Expectation| e.when.iter().all(|(k, v)| model.get(k) == Some(*v));
        self.expectations
            .iter()
            .filter(applies)
            .max_by_key(|e| e.when.len())
    }
}

/// What a search found of the cuts a bound makes (`Stmt::Diverge` with
/// `bound`; the book's "Loops"): loops as a measure, not only a bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reach {
    /// No execution reaches a cut: an execution that ran a loop more times
    /// would reach one first, so none does, and a larger bound adds nothing.
    Unreached,
    /// A run gets to a cut (SC, where every prefix of a run is a run): at a
    /// larger bound it may go on to a state not counted here, or spin on
    /// and never finish.
    Reached,
    /// Not known: the engine does not look (pwt, the reference), or its
    /// search could not tell (a part it could not refute; a filter or a
    /// limit that left parts unbuilt).
    #[default]
    Unknown,
}

/// A checked, desugared litmus test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: String,
    pub comment: Option<String>,
    /// The value set V, sorted and without repeats.
    pub values: Vec<i64>,
    /// Whether V was written in the file (else it is the computed default).
    pub values_declared: bool,
    pub threads: Vec<ThreadInfo>,
    pub regs: Vec<RegInfo>,
    pub locs: Vec<LocInfo>,
    /// The file's `model {}` block applied to the defaults.
    pub model: Model,
    /// The top-level threads, each with its body.
    pub main: Vec<(ThreadId, Stmt)>,
    /// herd7's `filter`: only final states that satisfy it are kept.
    pub filter: Option<Prop>,
    pub conditions: Vec<Condition>,
    /// `Some(n)` when a loop was unrolled n times and the cut path after the
    /// last iteration is reachable: the states are then those of at most n
    /// iterations.
    pub unroll: Option<u32>,
    /// With a declared V, the stores that may leave it, one sentence each
    /// (`syntax::values`): the engines drop those executions, so no verdict
    /// may rest on their absence (issue 27 §1).
    pub values_left: Vec<String>,
    /// Registers read before any assignment, by thread and source name, in
    /// order of first use: their values are the code's before the program,
    /// which the contextual search of `refine` cannot set.
    pub unassigned: Vec<(ThreadId, String)>,
    /// How many spin loops were lowered as their last pass (`syntax::spin`,
    /// the book's "Spin loops").
    pub spins: u32,
}

impl Program {
    /// The first construct only the Vulkan model defines, with its place
    /// (the pomset semantics and the SC and reference engines refuse it).
    pub fn vulkan_only(&self) -> Option<(Span, &'static str)> {
        self.main.iter().find_map(|(_, s)| s.vulkan_only())
    }

    /// The note every engine adds when a loop's bound may cut a path (the
    /// cut is reachable in the code), with what its search found of it.
    pub fn bound_note(&self, reach: Reach) -> Option<String> {
        self.unroll.map(|n| {
            let iterations = if n == 1 { "iteration" } else { "iterations" };
            match reach {
                Reach::Unknown => format!(
                    "bounded by --unroll {n}: executions that need more than {n} {iterations} of a loop are not counted (raise --unroll)"
                ),
                Reach::Reached => format!(
                    "bounded by --unroll {n}, and reached: a run gets to a loop's cut, so runs that need more than {n} {iterations} (if any finish) are not counted (raise --unroll)"
                ),
                Reach::Unreached => format!(
                    "bounded by --unroll {n}, never reached: no execution runs a loop to its cut, so these are the states at every larger bound"
                ),
            }
        })
    }

    /// What an engine's notes say of the bound's cuts: the `Reach` whose
    /// `bound_note` they hold (`Unknown` when none: no bound, or an engine
    /// that adds no note).
    pub fn reach_noted<'n>(&self, notes: impl IntoIterator<Item = &'n String>) -> Reach {
        let notes: Vec<&String> = notes.into_iter().collect();
        for reach in [Reach::Reached, Reach::Unreached] {
            if let Some(n) = self.bound_note(reach) {
                if notes.iter().any(|m| **m == n) {
                    return reach;
                }
            }
        }
        Reach::Unknown
    }

    /// The program with every cut of a bound (`Stmt::Diverge` with
    /// `bound`) read as the loop's exit: the path that would go round again
    /// leaves the loop instead and runs on (issue 74). Its executions are
    /// the program's and those that reach a cut; the exact `diverge` of a
    /// spin's last pass stays. No bound is noted (`unroll` is `None`).
    pub fn cut_as_exit(&self) -> Program {
        fn exit(s: &Stmt) -> Stmt {
            match s {
                Stmt::Diverge { bound: true } => Stmt::Skip,
                Stmt::Seq(parts) => Stmt::Seq(parts.iter().map(exit).collect()),
                Stmt::If { cond, then, els } => Stmt::If {
                    cond: cond.clone(),
                    then: Box::new(exit(then)),
                    els: Box::new(exit(els)),
                },
                Stmt::Par {
                    thread,
                    left,
                    right,
                } => Stmt::Par {
                    thread: *thread,
                    left: Box::new(exit(left)),
                    right: Box::new(exit(right)),
                },
                other => other.clone(),
            }
        }
        Program {
            main: self.main.iter().map(|(t, s)| (*t, exit(s))).collect(),
            unroll: None,
            ..self.clone()
        }
    }

    /// The note an engine that takes the spin reduction adds when it was
    /// applied (`syntax::spin`): a reader sees that a loop was decided as
    /// its last pass, and how to have it unrolled instead.
    pub fn spin_note(&self) -> Option<String> {
        let n = self.spins;
        (n > 0).then(|| {
            let loops = if n == 1 { "spin loop" } else { "spin loops" };
            format!(
                "{n} {loops} decided as the last pass, exactly (the book's \"Spin loops\"; --no-spin-reduction unrolls)"
            )
        })
    }

    pub fn reg_name(&self, r: RegId) -> &str {
        self.regs.get(r as usize).map_or("?", |i| i.name.as_str())
    }

    pub fn loc_name(&self, l: LocId) -> &str {
        self.locs.get(l as usize).map_or("?", |i| i.name.as_str())
    }

    pub fn thread_name(&self, t: ThreadId) -> &str {
        self.threads
            .get(t as usize)
            .map_or("?", |i| i.name.as_str())
    }
}
