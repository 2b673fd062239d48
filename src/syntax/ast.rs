//! The surface syntax tree of a litmus file, as written: extended expressions
//! and other sugar are kept so that the formatter can print them back.
//! `core.rs` holds the desugared form that feeds the semantics.
//!
//! Architecture invariant: the syntax layer knows nothing about pomsets.

use super::span::{Ident, Span};

/// Access modes μ (§1.1), ordered wk ⊑ rlx ⊑ rel, acq ⊑ ra ⊑ sc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Wk,
    Rlx,
    Rel,
    Acq,
    Ra,
    Sc,
}

impl Mode {
    pub const ALL: [Mode; 6] = [
        Mode::Wk,
        Mode::Rlx,
        Mode::Rel,
        Mode::Acq,
        Mode::Ra,
        Mode::Sc,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Wk => "wk",
            Mode::Rlx => "rlx",
            Mode::Rel => "rel",
            Mode::Acq => "acq",
            Mode::Ra => "ra",
            Mode::Sc => "sc",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// Scopes σ (§1.1): thread group, processor, system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Vulkan's subgroup (the book's "Vulkan"); not a scope of the note.
    Sg,
    Cta,
    Gpu,
    Sys,
}

impl Scope {
    /// The note's scopes (§1.1); `sg` is Vulkan's only.
    pub const ALL: [Scope; 3] = [Scope::Cta, Scope::Gpu, Scope::Sys];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Sg => "sg",
            Scope::Cta => "cta",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }

    /// A scope by name; Vulkan's `wg`, `qf` and `dv` are read as `cta`,
    /// `gpu` and `sys` (the book's "Vulkan").
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "sg" => Some(Scope::Sg),
            "wg" => Some(Scope::Cta),
            "qf" => Some(Scope::Gpu),
            "dv" => Some(Scope::Sys),
            _ => Scope::ALL.into_iter().find(|m| m.as_str() == s),
        }
    }
}

/// A Vulkan qualifier on an access, fence or barrier (the book's "Vulkan"):
/// per-instruction availability and visibility, non-private, the storage
/// class of an access, and the storage-class and av/vis semantics of a
/// release or acquire. The note defines none of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Qual {
    /// `.av`: MakePointerAvailable, to the access's scope.
    Av,
    /// `.vis`: MakePointerVisible, from the access's scope.
    Vis,
    /// `.nonpriv`: NonPrivatePointer.
    NonPriv,
    /// `.sc0` to `.sc3`: the storage class of the location accessed.
    Class(u8),
    /// `.semsc0` to `.semsc3`: a storage class in the semantics.
    SemSc(u8),
    /// `.semav`: MakeAvailable in the semantics.
    SemAv,
    /// `.semvis`: MakeVisible in the semantics.
    SemVis,
}

/// How many storage classes the Vulkan extension names (`sc0` to `sc3`).
pub const STORAGE_CLASSES: u8 = 4;

impl Qual {
    pub fn name(self) -> String {
        match self {
            Qual::Av => "av".to_string(),
            Qual::Vis => "vis".to_string(),
            Qual::NonPriv => "nonpriv".to_string(),
            Qual::Class(n) => format!("sc{n}"),
            Qual::SemSc(n) => format!("semsc{n}"),
            Qual::SemAv => "semav".to_string(),
            Qual::SemVis => "semvis".to_string(),
        }
    }

    pub fn parse(s: &str) -> Option<Qual> {
        let class = |rest: &str| {
            rest.parse::<u8>()
                .ok()
                .filter(|n| *n < STORAGE_CLASSES && rest.len() == 1)
        };
        match s {
            "av" => Some(Qual::Av),
            "vis" => Some(Qual::Vis),
            "nonpriv" => Some(Qual::NonPriv),
            "semav" => Some(Qual::SemAv),
            "semvis" => Some(Qual::SemVis),
            _ => {
                if let Some(rest) = s.strip_prefix("semsc") {
                    class(rest).map(Qual::SemSc)
                } else {
                    s.strip_prefix("sc").and_then(class).map(Qual::Class)
                }
            }
        }
    }
}

/// The `.mode.scope` suffix of an access; either part may be absent, and
/// Vulkan qualifiers may follow (kept sorted, each at most once).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suffix {
    pub mode: Option<(Mode, Span)>,
    pub scope: Option<(Scope, Span)>,
    pub quals: Vec<(Qual, Span)>,
}

impl Suffix {
    pub fn is_empty(&self) -> bool {
        self.mode.is_none() && self.scope.is_none() && self.quals.is_empty()
    }
}

/// A whole litmus file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    pub name: Ident,
    pub comment: Option<String>,
    pub values: Option<(Vec<i64>, Span)>,
    pub locations: Vec<LocDecl>,
    pub init: Vec<InitEntry>,
    pub scopes: Option<ScopeNode>,
    pub model: Vec<Setting>,
    pub threads: Vec<Thread>,
    /// herd7's `locations [x; 1:r0;]`: what to show besides the condition's
    /// terms (every register and location is shown anyway).
    pub show: Vec<CondTerm>,
    /// herd7's `filter P`: only executions whose final state satisfies P count.
    pub filter: Option<(Prop, Span)>,
    pub conditions: Vec<Condition>,
}

/// `x @ 4`: a location, with the address computed accesses `[L]` reach it by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocDecl {
    pub name: Ident,
    pub address: Option<(i64, Span)>,
}

/// `x = 1` in `init { ... }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitEntry {
    pub loc: Ident,
    pub value: i64,
    pub span: Span,
}

/// The thread hierarchy (Definition 1.1): `gpu { cta { P0 P1 } cta { P2 } }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScopeNode {
    Group {
        level: Scope,
        children: Vec<ScopeNode>,
        span: Span,
    },
    Thread(Ident),
}

/// `name = value` in `model { ... }` or after `when`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub name: Ident,
    pub value: Ident,
}

/// A thread: an optional `P1:` label and its statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub label: Option<Ident>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// The place an access goes to: a named location, or a computed address `[L]` (§1.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Named(Ident),
    Computed(Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    Cas,
    Fadd,
    Exchg,
}

impl RmwOp {
    pub fn as_str(self) -> &'static str {
        match self {
            RmwOp::Cas => "CAS",
            RmwOp::Fadd => "FADD",
            RmwOp::Exchg => "EXCHG",
        }
    }

    /// How many value arguments follow the address.
    pub fn arity(self) -> usize {
        match self {
            RmwOp::Cas => 2,
            RmwOp::Fadd | RmwOp::Exchg => 1,
        }
    }
}

/// `CAS.acq.rel.gpu(x, 0, 1)`: the first mode is the read's, the second the write's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rmw {
    pub op: RmwOp,
    pub modes: Vec<(Mode, Span)>,
    pub scope: Option<(Scope, Span)>,
    /// Vulkan qualifiers (sorted, each at most once).
    pub quals: Vec<(Qual, Span)>,
    pub place: Place,
    pub args: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    Skip,
    /// `a := M`: a register assignment, a read or a write, depending on what
    /// `a` and `M` name; `check` decides.
    Assign {
        lhs: Place,
        suffix: Suffix,
        rhs: Expr,
    },
    /// `r := CAS(...)`, or a bare `FADD(x, 1)` whose result is dropped.
    Rmw {
        target: Option<Ident>,
        rmw: Rmw,
    },
    /// `F.sc` or `fence.sc.cta`.
    Fence {
        suffix: Suffix,
    },
    /// `barrier.wg` or `barrier.ra.wg.semsc0(1)`: a Vulkan control barrier
    /// (OpControlBarrier) with its execution scope, optional semantics and
    /// barrier id (default 0). Only the Vulkan model gives it a meaning.
    Barrier {
        suffix: Suffix,
        id: Option<(i64, Span)>,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    /// `while (M) { S }`, unrolled to the bound (`--unroll N`) by the checker.
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// `do { S } while (M)`: S once, then `while (M) { S }`.
    DoWhile {
        body: Vec<Stmt>,
        cond: Expr,
    },
    /// `diverge`: this path never terminates (✓ = ff), so it is no
    /// execution; what a loop's bound cuts.
    Diverge,
    /// `( S1 || S2 )` inside a thread: the note's asymmetric composition. Every
    /// branch but the last is a new thread; the last continues the current one.
    Par(Vec<Thread>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// The comparison this operator is, if it is one.
    pub fn comparison(self) -> Option<CmpOp> {
        match self {
            BinOp::Eq => Some(CmpOp::Eq),
            BinOp::Ne => Some(CmpOp::Ne),
            BinOp::Lt => Some(CmpOp::Lt),
            BinOp::Le => Some(CmpOp::Le),
            BinOp::Gt => Some(CmpOp::Gt),
            BinOp::Ge => Some(CmpOp::Ge),
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::And => "&&",
            BinOp::Or => "||",
            cmp => cmp.comparison().map_or("?", CmpOp::as_str),
        }
    }

    /// Binding strength: higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne => 3,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
            BinOp::Add | BinOp::Sub => 5,
            BinOp::Mul => 6,
        }
    }

    /// Evaluates on integers; booleans are 0 and 1 (§1.1: a condition means M ≠ 0).
    /// Exact: the checker (`syntax::range`) refuses every program in which
    /// an operation could overflow, so the wrapping never happens.
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::And => i64::from(a != 0 && b != 0),
            BinOp::Or => i64::from(a != 0 || b != 0),
            cmp => i64::from(cmp.comparison().is_some_and(|c| c.holds(a, b))),
        }
    }

    /// The value, or `None` when it leaves the 64-bit integers.
    pub fn checked_apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            _ => Some(self.apply(a, b)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Int(i64),
    /// A register, or a location (an extended expression: sugar for a read, §1.1).
    Name(Ident, Suffix),
    /// `[L]`, a read from a computed address (§1.5).
    Deref(Box<Expr>, Suffix),
    /// `&x`: the address of a declared location.
    AddrOf(Ident),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// herd7's quantifiers, plus the note's allow/forbid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
    /// `allow P`: `exists P`, expected to be observable.
    Allow,
    /// `forbid P`: `~exists P`, expected never to be observed.
    Forbid,
}

impl Quantifier {
    pub fn as_str(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
            Quantifier::Allow => "allow",
            Quantifier::Forbid => "forbid",
        }
    }
}

/// An expected verdict about the condition's proposition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Some complete execution satisfies it (herd7: Sometimes or Always).
    Allowed,
    /// None does (herd7: Never).
    Forbidden,
    Always,
    Sometimes,
    Never,
    /// The note gives no verdict; nothing is checked.
    Unknown,
}

impl Verdict {
    pub const ALL: [Verdict; 6] = [
        Verdict::Allowed,
        Verdict::Forbidden,
        Verdict::Always,
        Verdict::Sometimes,
        Verdict::Never,
        Verdict::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Forbidden => "forbidden",
            Verdict::Always => "always",
            Verdict::Sometimes => "sometimes",
            Verdict::Never => "never",
            Verdict::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// `expect forbidden when c7a = direct, orders = single`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    pub verdict: Verdict,
    pub when: Vec<Setting>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub prop: Prop,
    pub expects: Vec<Expect>,
    /// `disputed "why"`: this tool's reading is known to disagree with the
    /// note's unconditional verdict, for the stated reason.
    pub disputed: Option<String>,
    pub span: Span,
}

/// A proposition over final registers and memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    True,
    False,
    Cmp(CondTerm, CmpOp, CondTerm, Span),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// `P1:r`, `r`, `[x]`, `[4]` or a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CondTerm {
    Int(i64, Span),
    Reg { thread: Option<Ident>, reg: Ident },
    Mem(Ident),
    MemAt(i64, Span),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_evaluate_as_in_the_note() {
        let cases = [
            (BinOp::Add, 2, 3, 5),
            (BinOp::Sub, 2, 3, -1),
            (BinOp::Mul, 2, 3, 6),
            (BinOp::Eq, 2, 2, 1),
            (BinOp::Ne, 2, 2, 0),
            (BinOp::Lt, 2, 3, 1),
            (BinOp::Le, 3, 3, 1),
            (BinOp::Gt, 2, 3, 0),
            (BinOp::Ge, 2, 3, 0),
            (BinOp::And, 2, 0, 0),
            (BinOp::Or, 0, 5, 1),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(op.apply(a, b), want, "{a} {} {b}", op.as_str());
        }
        assert_eq!(BinOp::Le.as_str(), "<=");
        assert_eq!(BinOp::Le.comparison(), Some(CmpOp::Le));
    }
}
