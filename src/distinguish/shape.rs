//! The shape of the programs a sweep visits, in one place that the
//! enumeration (`enumerate.rs`), the canonical form (`canon.rs`), the
//! counting (`count.rs`) and minimality (`minimal.rs`) all use: what an
//! access is, a program's threads, the vocabulary and bound of a space,
//! and how a shape is written as a litmus test, and built as the syntax
//! tree that text parses to (a sweep decides the tree, never parsing).

use std::fmt::Write as _;

use crate::syntax::ast::{self, Mode, Scope};
use crate::syntax::span::{Ident, Span};

/// The most values a location may take in a space (the canonical form's
/// renaming tables are this wide).
pub const MAX_VALUES: usize = 16;

/// The most threads, and accesses per thread, a bound may have: a program
/// of the sweep is one pomset, at most 64 events, and counting the
/// programs of a bound sums over the partitions of its threads.
pub const MAX_THREADS: usize = 8;
pub const MAX_PER_THREAD: usize = 8;

/// The most threads of accesses a sweep lists: the enumeration holds them
/// (the programs are tuples of them, listed lazily), so this is what bounds
/// a sweep's memory whatever its bound: near the cap, a sweep with
/// `--progress` (which lists them twice) peaks at about 160 MB.
pub const MAX_LISTED_THREADS: u128 = 600_000;

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Read,
    Write,
    Fence,
    /// `r := FADD(x, v)`: a read-modify-write adding `v`.
    Fadd,
    /// `r := EXCHG(x, v)`: a read-modify-write writing `v`.
    Exchg,
}

impl Kind {
    /// Whether the access assigns a register (the value read).
    pub fn reads(self) -> bool {
        matches!(self, Kind::Read | Kind::Fadd | Kind::Exchg)
    }

    /// Whether it assigns its register on every path: it reads, and not
    /// under a control dependency (`if (r = 1) { s := x; }` may leave `s`
    /// unassigned).
    pub fn assigns_surely(self, dep: Dep) -> bool {
        self.reads() && dep != Dep::Ctrl
    }

    /// Whether it is a read-modify-write, with two modes.
    pub fn is_rmw(self) -> bool {
        matches!(self, Kind::Fadd | Kind::Exchg)
    }
}

/// How an access depends on the thread's latest read before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dep {
    None,
    /// A write of the value read (`y := r0`): a data dependency.
    Data,
    /// The access inside `if (r0 = 1) { ... }`: a control dependency.
    Ctrl,
}

/// One access of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Op {
    pub kind: Kind,
    /// Index of the location: 0 is `x`, then `y`, `z`, `w`.
    pub loc: u8,
    /// The value a write or EXCHG writes, or FADD's increment; 0 otherwise.
    pub val: u8,
    /// The mode of a read, write or fence, or of an RMW's read half.
    pub mode: Mode,
    /// The mode of an RMW's write half (`Rlx` for the others).
    pub wmode: Mode,
    pub scope: Scope,
    pub dep: Dep,
}

/// A program: its threads, each a list of accesses.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    pub threads: Vec<Vec<Op>>,
}

/// The names of the locations, in index order.
pub const LOCATIONS: [&str; 4] = ["x", "y", "z", "w"];

/// What a program may contain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocabulary {
    /// The modes; each access takes those of them that are legal for it (§1.1).
    pub modes: Vec<Mode>,
    pub scopes: Vec<Scope>,
    pub fences: bool,
    /// The read-modify-writes (`Fadd`, `Exchg`).
    pub rmws: Vec<Kind>,
    /// The dependencies (`Data`, `Ctrl`).
    pub deps: Vec<Dep>,
    /// A `scopes:` header, as written in a litmus file; threads are then
    /// not interchangeable.
    pub scope_tree: Option<String>,
}

impl Default for Vocabulary {
    /// Relaxed reads and writes at system scope, nothing else.
    fn default() -> Vocabulary {
        Vocabulary {
            modes: vec![Mode::Rlx],
            scopes: vec![Scope::Sys],
            fences: false,
            rmws: Vec::new(),
            deps: Vec::new(),
            scope_tree: None,
        }
    }
}

impl Vocabulary {
    /// The vocabulary in words, as `distinguish`'s flags and the explorer's
    /// form give it: modes (`rlx,acq`), scopes (`sys`), read-modify-writes
    /// (`fadd`, `exchg`) and dependencies (`data`, `ctrl`).
    pub fn parse(
        modes: &[String],
        scopes: &[String],
        fences: bool,
        rmws: &[String],
        deps: &[String],
        scope_tree: Option<String>,
    ) -> Result<Vocabulary, String> {
        let modes = modes
            .iter()
            .map(|m| {
                Mode::parse(m.trim())
                    .ok_or_else(|| format!("--modes: no mode `{m}` (wk, rlx, rel, acq, ra, sc)"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let scopes = scopes
            .iter()
            .map(|s| {
                Scope::parse(s.trim())
                    .ok_or_else(|| format!("--scopes: no scope `{s}` (cta, gpu, sys)"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let rmws = rmws
            .iter()
            .map(|k| match k.trim() {
                "fadd" => Ok(Kind::Fadd),
                "exchg" => Ok(Kind::Exchg),
                _ => Err(format!("--rmws: no read-modify-write `{k}` (fadd, exchg)")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let deps = deps
            .iter()
            .map(|d| match d.trim() {
                "data" => Ok(Dep::Data),
                "ctrl" => Ok(Dep::Ctrl),
                _ => Err(format!("--deps: no dependency `{d}` (data, ctrl)")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Vocabulary {
            modes,
            scopes,
            fences,
            rmws,
            deps,
            scope_tree,
        })
    }
}

/// The size of the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// At most this many threads.
    pub threads: usize,
    /// At most this many accesses (fences included) in a thread.
    pub per_thread: usize,
    /// At most this many accesses in all.
    pub total: usize,
    /// At most this many locations (up to 4).
    pub locations: u8,
    /// V = {0, ..., values - 1}; writes write 1 ..= values - 1.
    pub values: u8,
}

impl Default for Bound {
    fn default() -> Bound {
        Bound {
            threads: 2,
            per_thread: 2,
            total: 4,
            locations: 2,
            values: 2,
        }
    }
}

/// A bound and a vocabulary: the programs a sweep visits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Space {
    pub bound: Bound,
    pub vocabulary: Vocabulary,
}

impl Space {
    /// The bound that holds the release-sequence shape of C59: three
    /// threads of at most two accesses over two locations, values 0 to 2,
    /// rlx, acq and rel, and FADD (`--threads 3 --per-thread 2 --values 3
    /// --modes rlx,acq,rel --rmws fadd`; the book's "What the search finds
    /// for the seeds").
    pub fn c59_bound() -> Space {
        Space {
            bound: Bound {
                threads: 3,
                per_thread: 2,
                total: 6,
                locations: 2,
                values: 3,
            },
            vocabulary: Vocabulary {
                modes: vec![Mode::Rlx, Mode::Acq, Mode::Rel],
                rmws: vec![Kind::Fadd],
                ..Vocabulary::default()
            },
        }
    }

    /// Refuses a bound the programs cannot be written in.
    pub fn check(&self) -> Result<(), String> {
        let b = &self.bound;
        if b.locations == 0 || b.locations as usize > LOCATIONS.len() {
            return Err(format!(
                "--locations takes 1 to {}, not {}",
                LOCATIONS.len(),
                b.locations
            ));
        }
        if b.values as usize > MAX_VALUES {
            return Err(format!("--values takes at most {}", MAX_VALUES));
        }
        if b.values < 2 {
            return Err("--values takes at least 2 (0, the initial value, and 1)".to_string());
        }
        if b.threads == 0 || b.per_thread == 0 || b.total == 0 {
            return Err("--threads, --per-thread and --total take at least 1".to_string());
        }
        if b.threads > MAX_THREADS || b.per_thread > MAX_PER_THREAD {
            return Err(format!(
                "--threads and --per-thread take at most {MAX_THREADS} and {MAX_PER_THREAD} (a program is one pomset of at most 64 events)"
            ));
        }
        if self.vocabulary.modes.is_empty() || self.vocabulary.scopes.is_empty() {
            return Err("--modes and --scopes name at least one each".to_string());
        }
        if self.vocabulary.rmws.iter().any(|k| !k.is_rmw()) {
            return Err("--rmws takes fadd and exchg".to_string());
        }
        Ok(())
    }

    /// The errors of `--scope-tree`, located in the tree as typed: it is
    /// the `scopes:` header of programs of `--threads` threads (P0, P1,
    /// ...), checked as such before the sweep (else every program would be
    /// undecided for a reason the user never sees). `None` when it checks;
    /// else the text the errors point into (the tree, or, should one lie
    /// outside it, the whole program) and the errors.
    pub fn scope_tree_errors(&self) -> Option<(String, crate::syntax::Diagnostics)> {
        let tree = self.vocabulary.scope_tree.as_deref()?;
        let head = "litmus TREE\nscopes: ";
        let threads = vec!["skip;"; self.bound.threads.max(1)].join("\n|| ");
        let src = format!("{head}{tree}\n\n{threads}\n");
        let errors = match crate::syntax::parse(&src) {
            Ok(_) => return None,
            Err(d) => {
                crate::syntax::Diagnostics(d.0.into_iter().filter(|d| d.is_error()).collect())
            }
        };
        if errors.is_empty() {
            return None;
        }
        // The closing text up to its first token: two newlines, `skip`.
        Some(
            match errors.within_wrapped(head.len(), tree.len(), 2, "the scope tree") {
                Some(moved) => (tree.to_string(), moved),
                None => (src, errors),
            },
        )
    }

    /// The space in one line, as a record's header states it: a resumed
    /// or merged file must have been written for the same space.
    pub fn describe(&self) -> String {
        let (b, v) = (&self.bound, &self.vocabulary);
        let names = |xs: Vec<&str>| {
            if xs.is_empty() {
                "none".to_string()
            } else {
                xs.join(",")
            }
        };
        format!(
            "threads={} per-thread={} total={} locations={} values={} modes={} scopes={} fences={} rmws={} deps={} scope-tree={}",
            b.threads,
            b.per_thread,
            b.total,
            b.locations,
            b.values,
            names(v.modes.iter().map(|m| m.as_str()).collect()),
            names(v.scopes.iter().map(|m| m.as_str()).collect()),
            if v.fences { "yes" } else { "no" },
            names(v.rmws.iter().map(|k| if *k == Kind::Fadd { "fadd" } else { "exchg" }).collect()),
            names(v.deps.iter().filter(|d| **d != Dep::None).map(|d| if *d == Dep::Data { "data" } else { "ctrl" }).collect()),
            v.scope_tree.as_deref().unwrap_or("none"),
        )
    }

    /// Whether renaming the written values (per location, 0 kept) cannot
    /// change a verdict: only when values are compared or added nowhere.
    pub fn values_are_names(&self) -> bool {
        let v = &self.vocabulary;
        !v.rmws.contains(&Kind::Fadd)
            && !v.deps.contains(&Dep::Ctrl)
            && !v.deps.contains(&Dep::Data)
    }

    /// Whether threads may be permuted: not under a scope tree.
    pub fn threads_are_interchangeable(&self) -> bool {
        self.vocabulary.scope_tree.is_none()
    }

    /// Every access without dependency the vocabulary allows, in order.
    pub fn ops(&self) -> Vec<Op> {
        let v = &self.vocabulary;
        let b = &self.bound;
        let mut out = Vec::new();
        let legal = |kind: Kind| -> Vec<Mode> {
            v.modes
                .iter()
                .copied()
                .filter(|m| legal_mode(kind, *m))
                .collect()
        };
        let op = |kind, loc, val, mode, wmode, scope| Op {
            kind,
            loc,
            val,
            mode,
            wmode,
            scope,
            dep: Dep::None,
        };
        for &scope in &v.scopes {
            for loc in 0..b.locations {
                for &m in &legal(Kind::Read) {
                    out.push(op(Kind::Read, loc, 0, m, Mode::Rlx, scope));
                }
                for val in 1..b.values {
                    for &m in &legal(Kind::Write) {
                        out.push(op(Kind::Write, loc, val, m, Mode::Rlx, scope));
                    }
                }
                for &kind in &v.rmws {
                    for val in 1..b.values {
                        for &m in &legal(Kind::Read) {
                            for &w in &legal(Kind::Write) {
                                out.push(op(kind, loc, val, m, w, scope));
                            }
                        }
                    }
                }
            }
            if v.fences {
                for &m in &legal(Kind::Fence) {
                    out.push(op(Kind::Fence, 0, 0, m, Mode::Rlx, scope));
                }
            }
        }
        out.sort();
        out
    }
}

/// Whether `m` is a mode of an access of `kind` (an RMW's read half for an
/// RMW), as the book's "Modes and scopes" table says.
pub fn legal_mode(kind: Kind, m: Mode) -> bool {
    match kind {
        Kind::Read | Kind::Fadd | Kind::Exchg => {
            matches!(m, Mode::Wk | Mode::Rlx | Mode::Acq | Mode::Sc)
        }
        Kind::Write => matches!(m, Mode::Wk | Mode::Rlx | Mode::Rel | Mode::Sc),
        Kind::Fence => matches!(m, Mode::Rel | Mode::Acq | Mode::Ra | Mode::Sc),
    }
}

impl Shape {
    /// How many accesses (fences included) it has.
    pub fn size(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }

    /// The threads as litmus text, one line, threads separated by `||`:
    /// the program's name in records and the body of its test.
    pub fn body(&self) -> String {
        let mut out = String::with_capacity(24 * self.threads.len());
        for (i, t) in self.threads.iter().enumerate() {
            if i > 0 {
                out.push_str(" || ");
            }
            thread_text(t, &mut out);
        }
        out
    }

    /// The program as a litmus file, without condition.
    pub fn litmus(&self, name: &str, space: &Space) -> String {
        let mut out = format!("litmus {name}\n");
        let max = self.max_value(space);
        let vs: Vec<String> = (0..=max).map(|v| v.to_string()).collect();
        out.push_str(&format!("values {{{}}}\n", vs.join(", ")));
        if let Some(tree) = &space.vocabulary.scope_tree {
            out.push_str(&format!("scopes: {tree}\n"));
        }
        out.push('\n');
        for (i, t) in self.threads.iter().enumerate() {
            let sep = if i == 0 { "" } else { "|| " };
            out.push_str(sep);
            thread_text(t, &mut out);
            out.push('\n');
        }
        out
    }

    /// The syntax tree `parse_file(&self.litmus(name, space))` gives, built
    /// without text (spans are empty: they never take part in equality).
    /// `None` where the text is the only form: under a scope tree (its
    /// header is text), and with no thread (the text does not parse).
    pub fn file(&self, name: &str, space: &Space) -> Option<ast::File> {
        if space.vocabulary.scope_tree.is_some() || self.threads.is_empty() {
            return None;
        }
        let values = (0..=self.max_value(space)).map(|v| v as i64).collect();
        let threads = self
            .threads
            .iter()
            .map(|t| ast::Thread {
                label: None,
                body: thread_tree(t),
                span: Span::default(),
            })
            .collect();
        Some(ast::File {
            name: ident(name.to_string()),
            comment: None,
            values: Some((values, Span::default())),
            locations: Vec::new(),
            init: Vec::new(),
            scopes: None,
            model: Vec::new(),
            threads,
            show: Vec::new(),
            filter: None,
            conditions: Vec::new(),
        })
    }

    /// The largest value an execution may hold: FADDs add up.
    fn max_value(&self, space: &Space) -> u64 {
        let top = u64::from(space.bound.values - 1);
        let added: u64 = self
            .threads
            .iter()
            .flatten()
            .filter(|o| o.kind == Kind::Fadd)
            .map(|o| u64::from(o.val))
            .sum();
        top + added
    }
}

/// One thread as litmus statements; the register of access `i` is `r{i}`.
/// A thread emptied by `minimal::removed` under a scope tree is `skip;`.
fn thread_text(ops: &[Op], out: &mut String) {
    if ops.is_empty() {
        out.push_str("skip;");
        return;
    }
    let mut latest: Option<usize> = None;
    for (i, op) in ops.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match (op.dep, latest) {
            (Dep::Ctrl, Some(r)) => {
                let _ = write!(out, "if (r{r} = 1) {{ ");
                op_text(i, op, latest, out);
                out.push_str(" }");
            }
            _ => op_text(i, op, latest, out),
        }
        // A read under `if` may not happen: no later access depends on it.
        if op.kind.reads() && op.dep != Dep::Ctrl {
            latest = Some(i);
        }
    }
}

/// One thread as statements, as `thread_text` writes it.
fn thread_tree(ops: &[Op]) -> Vec<ast::Stmt> {
    if ops.is_empty() {
        return vec![stmt(ast::StmtKind::Skip)];
    }
    let mut out = Vec::with_capacity(ops.len());
    let mut latest: Option<usize> = None;
    for (i, op) in ops.iter().enumerate() {
        let s = op_tree(i, op, latest);
        let s = match (op.dep, latest) {
            (Dep::Ctrl, Some(r)) => {
                let cond = expr(ast::ExprKind::Binary(
                    ast::BinOp::Eq,
                    Box::new(register(r)),
                    Box::new(expr(ast::ExprKind::Int(1))),
                ));
                stmt(ast::StmtKind::If {
                    cond,
                    then: vec![s],
                    els: None,
                })
            }
            _ => s,
        };
        out.push(s);
        // A read under `if` may not happen: no later access depends on it.
        if op.kind.reads() && op.dep != Dep::Ctrl {
            latest = Some(i);
        }
    }
    out
}

/// One access as a statement, as `op_text` writes it.
fn op_tree(i: usize, op: &Op, latest: Option<usize>) -> ast::Stmt {
    let loc = || ident(LOCATIONS[op.loc as usize % LOCATIONS.len()].to_string());
    let reg = |i: usize| ident(format!("r{i}"));
    let scope = (op.scope != Scope::Sys).then_some((op.scope, Span::default()));
    let one = |m: Mode| ast::Suffix {
        mode: (m != Mode::Rlx).then_some((m, Span::default())),
        scope,
        quals: Vec::new(),
    };
    let kind = match op.kind {
        Kind::Read => ast::StmtKind::Assign {
            lhs: ast::Place::Named(reg(i)),
            suffix: ast::Suffix::default(),
            rhs: expr(ast::ExprKind::Name(loc(), one(op.mode))),
        },
        Kind::Write => ast::StmtKind::Assign {
            lhs: ast::Place::Named(loc()),
            suffix: one(op.mode),
            rhs: match (op.dep, latest) {
                (Dep::Data, Some(r)) => register(r),
                _ => expr(ast::ExprKind::Int(i64::from(op.val))),
            },
        },
        Kind::Fence => ast::StmtKind::Fence {
            suffix: ast::Suffix {
                mode: Some((op.mode, Span::default())),
                scope,
                quals: Vec::new(),
            },
        },
        Kind::Fadd | Kind::Exchg => {
            let both = [op.mode, op.wmode];
            let modes = if both.iter().all(|m| *m == Mode::Rlx) {
                Vec::new()
            } else {
                both.iter().map(|m| (*m, Span::default())).collect()
            };
            let rmw = ast::Rmw {
                op: if op.kind == Kind::Fadd {
                    ast::RmwOp::Fadd
                } else {
                    ast::RmwOp::Exchg
                },
                modes,
                scope,
                quals: Vec::new(),
                place: ast::Place::Named(loc()),
                args: vec![expr(ast::ExprKind::Int(i64::from(op.val)))],
                span: Span::default(),
            };
            ast::StmtKind::Rmw {
                target: Some(reg(i)),
                rmw,
            }
        }
    };
    stmt(kind)
}

fn ident(name: String) -> Ident {
    Ident::new(name, Span::default())
}

fn stmt(kind: ast::StmtKind) -> ast::Stmt {
    ast::Stmt {
        kind,
        span: Span::default(),
    }
}

fn expr(kind: ast::ExprKind) -> ast::Expr {
    ast::Expr {
        kind,
        span: Span::default(),
    }
}

/// The register `r{r}` as an expression.
fn register(r: usize) -> ast::Expr {
    expr(ast::ExprKind::Name(
        ident(format!("r{r}")),
        ast::Suffix::default(),
    ))
}

/// `.mode.scope`, leaving out the defaults `rlx` and `sys`.
/// An access's modes and scope as written after it (`.acq.gpu`).
fn suffix(modes: &[Mode], scope: Scope, out: &mut String) {
    if !modes.iter().all(|m| *m == Mode::Rlx) {
        for m in modes {
            out.push('.');
            out.push_str(m.as_str());
        }
    }
    if scope != Scope::Sys {
        out.push('.');
        out.push_str(scope.as_str());
    }
}

/// Access `i` as a statement, written into `out` (one buffer per program:
/// a record's id is written for every program of a sweep).
fn op_text(i: usize, op: &Op, latest: Option<usize>, out: &mut String) {
    let loc = LOCATIONS[op.loc as usize % LOCATIONS.len()];
    match op.kind {
        Kind::Read => {
            let _ = write!(out, "r{i} := {loc}");
            suffix(&[op.mode], op.scope, out);
            out.push(';');
        }
        Kind::Write => {
            out.push_str(loc);
            suffix(&[op.mode], op.scope, out);
            let _ = match (op.dep, latest) {
                (Dep::Data, Some(r)) => write!(out, " := r{r};"),
                _ => write!(out, " := {};", op.val),
            };
        }
        Kind::Fence => {
            let _ = write!(out, "F.{}{};", op.mode.as_str(), scope_suffix(op.scope));
        }
        Kind::Fadd | Kind::Exchg => {
            let name = if op.kind == Kind::Fadd {
                "FADD"
            } else {
                "EXCHG"
            };
            let _ = write!(out, "r{i} := {name}");
            suffix(&[op.mode, op.wmode], op.scope, out);
            let _ = write!(out, "({loc}, {});", op.val);
        }
    }
}

fn scope_suffix(scope: Scope) -> String {
    if scope == Scope::Sys {
        String::new()
    } else {
        format!(".{}", scope.as_str())
    }
}
