//! From the surface tree to the core program: resolve names, check modes,
//! scopes, conditions and the value set, and desugar extended expressions.
//! Every user mistake found here becomes a diagnostic with a span and a hint.
//!
//! `mod.rs` walks statements and expressions (the desugaring); `names.rs`
//! resolves locations and threads, `registers.rs` versions registers (SSA),
//! `modes.rs` checks modes, scopes and qualifiers, `settings.rs` reads the
//! `model {}` block and V, `conditions.rs` the conditions.

mod conditions;
mod modes;
mod names;
mod registers;
mod settings;

use std::collections::HashMap;

use super::ast::{self, Mode, Place, Qual, Scope, StmtKind, Suffix};
use super::core::{self, LocId, LocInfo, RegId, RegInfo, ThreadId, ThreadInfo};
use super::diagnostic::{Diagnostic, Diagnostics};
use super::range;
use super::span::{Ident, Span};
use super::values;
use crate::model::{self, Model};

/// The names that are locations even when a file declares none (§1.1 writes x, y, z).
pub const DEFAULT_LOCATIONS: [&str; 4] = ["x", "y", "z", "w"];

/// How often a loop is unrolled when neither the file (`model { unroll = N }`)
/// nor the command line (`--unroll N`) says.
pub const DEFAULT_UNROLL: u32 = 2;

/// The largest bound accepted: nested loops multiply their copies.
pub const MAX_UNROLL: u32 = 64;

/// What the caller decides about checking, beyond the file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `--unroll N`: overrides the file's `unroll` setting.
    pub unroll: Option<u32>,
    /// Decide each spin loop (`syntax::spin`) as its last pass instead of
    /// unrolling it. Exact only under the engines that declare
    /// `engine::Capability::SpinReduction`; the caller checks that.
    pub spin: bool,
}

/// Checks a parsed file and lowers it to the core program. Warnings come back
/// with the program; any error fails the whole file.
pub fn check(file: &ast::File) -> Result<(core::Program, Diagnostics), Diagnostics> {
    check_with(file, Options::default())
}

/// As `check`, with the caller's options.
pub fn check_with(
    file: &ast::File,
    opts: Options,
) -> Result<(core::Program, Diagnostics), Diagnostics> {
    let mut cx = Checker::default();
    cx.unroll = cx.unroll_setting(&file.model, opts.unroll);
    cx.spin = opts.spin;
    cx.declare_locations(file);
    cx.name_threads(&file.threads);
    let main = file
        .threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let tid = i as ThreadId;
            let mut env = Env {
                thread: tid,
                regs: HashMap::new(),
            };
            let body = cx.block(&mut env, &t.body);
            cx.finish_thread(&env);
            (tid, body)
        })
        .collect();
    let main = cx.name_versions(main);
    cx.place_threads(file.scopes.as_ref());
    let model = cx.model(&file.model);
    let conditions = file.conditions.iter().map(|c| cx.condition(c)).collect();
    cx.show(&file.show);
    let filter = file.filter.as_ref().map(|(p, _)| cx.prop(p));
    let (values, values_declared) = cx.values(file);
    if cx.diags.has_errors() {
        return Err(cx.diags);
    }
    let at = cx.thread_spans.first().copied().unwrap_or_default();
    let mut program = core::Program {
        name: file.name.name.clone(),
        comment: file.comment.clone(),
        values,
        values_declared,
        threads: cx.threads,
        regs: cx.regs,
        locs: cx.locs,
        model,
        main,
        filter,
        conditions,
        unroll: cx.cut.then_some(cx.unroll),
        values_left: Vec::new(),
        unassigned: cx.unassigned_names.clone(),
        spins: cx.spins,
    };
    let mut diags = cx.diags;
    close_values(&mut program, &mut diags, at);
    // After the closure: the interval analysis reads the final V.
    let arithmetic = range::Program {
        main: &program.main,
        values: &program.values,
        unassigned: &cx.unassigned,
        roots: &cx.roots,
        fadds: &cx.fadds,
    };
    for d in range::overflows(&arithmetic) {
        diags.push(d);
    }
    if diags.has_errors() {
        return Err(diags);
    }
    Ok((program, diags))
}

/// Issue 27 §1. The default V is closed under the program: the literals
/// and every value an execution may store (`syntax::values`), as the
/// integers from the least to the greatest when at most
/// `MAX_DEFAULT_VALUES` of them, else as the set. A declared V is kept,
/// and the stores that may leave it are recorded (`values_left`), so that
/// no verdict rests on the executions the engines drop there.
fn close_values(p: &mut core::Program, diags: &mut Diagnostics, at: Span) {
    if p.values_declared {
        p.values_left = match values::closure(p, Some(&p.values)) {
            Ok(c) => c
                .left
                .iter()
                .map(|l| {
                    let thread = p.thread_name(l.thread);
                    format!("{thread} may write {} to {}", l.value, l.place)
                })
                .collect(),
            Err(values::TooMany) => vec![format!(
                "whether an execution leaves V is not known: the closure stopped at {} derivations",
                values::MAX_DERIVATIONS
            )],
        };
        return;
    }
    let closed = match values::closure(p, None) {
        Ok(c) => c.values,
        Err(values::TooMany) => {
            let d = Diagnostic::error("the default V has no small closure", at)
                .with_label(format!(
                    "the values this program may store passed {} derivations",
                    values::MAX_DERIVATIONS
                ))
                .with_hint("declare the values the test needs: `values {0, 1, 2}`");
            diags.push(d);
            return;
        }
    };
    let mut all: Vec<i64> = p.values.iter().copied().chain(closed).collect();
    all.sort_unstable();
    all.dedup();
    let (lo, hi) = (
        all.first().copied().unwrap_or(0),
        all.last().copied().unwrap_or(1),
    );
    if hi.abs_diff(lo) < MAX_DEFAULT_VALUES {
        p.values = (lo..=hi).collect();
    } else if all.len() as u64 <= MAX_DEFAULT_VALUES {
        p.values = all;
    } else {
        let shown: Vec<String> = all.iter().take(8).map(i64::to_string).collect();
        let d = Diagnostic::error(format!("the default V would have {} values", all.len()), at)
            .with_label(format!(
                "the values this program may store ({}, ...) pass {MAX_DEFAULT_VALUES}",
                shown.join(", ")
            ))
            .with_hint("declare the values the test needs: `values {0, 1, 100}`");
        diags.push(d);
    }
}

/// The most values the computed default V may have; beyond it, declare V.
pub const MAX_DEFAULT_VALUES: u64 = 64;

/// What a literal value is used for, so that a value outside V can be reported.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Any literal: it widens the default V but need not lie in V.
    Arithmetic,
    /// A value that is stored, compared with a final value, or an address.
    Stored,
}

#[derive(Default)]
struct Checker {
    diags: Diagnostics,
    locs: Vec<LocInfo>,
    loc_ids: HashMap<String, LocId>,
    threads: Vec<ThreadInfo>,
    thread_ids: HashMap<String, ThreadId>,
    thread_spans: Vec<Span>,
    regs: Vec<RegInfo>,
    reg_ids: HashMap<(ThreadId, String), RegId>,
    /// The desugaring's temporaries, in creation order, each named by its
    /// base (`y`, `mem`, `cas`) until `name_temporaries`.
    temps: Vec<RegId>,
    /// Every expression with arithmetic, for the overflow check (`range`).
    roots: Vec<range::Root>,
    fadds: Vec<range::Fadd>,
    /// Registers a use reads before any assignment.
    unassigned: Vec<RegId>,
    /// The same registers by thread and source name (`Program::unassigned`).
    unassigned_names: Vec<(ThreadId, String)>,
    /// How deep `expr` is inside an expression (0: at a root).
    expr_depth: u32,
    literals: Vec<(i64, Span, Use)>,
    placed: Vec<bool>,
    /// Every version of a source register, per thread, in creation order (SSA).
    versions: HashMap<(ThreadId, String), Vec<RegId>>,
    /// The version each source register holds at the end of its thread.
    finals: HashMap<(ThreadId, String), RegId>,
    /// How many times a loop's body is unrolled.
    unroll: u32,
    /// Whether some unrolling left a reachable cut (`if (M) { diverge }`).
    cut: bool,
    /// `Options::spin`.
    spin: bool,
    /// How many loops were decided as their last pass (`syntax::spin`).
    spins: u32,
}

/// The registers visible at one point of one thread.
#[derive(Clone)]
struct Env {
    thread: ThreadId,
    regs: HashMap<String, RegId>,
}

impl Checker {
    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    // ------------------------------------------------------------ locations

    fn block(&mut self, env: &mut Env, stmts: &[ast::Stmt]) -> core::Stmt {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(env, s, &mut out);
        }
        seq(out)
    }

    fn par(&mut self, env: &mut Env, branches: &[ast::Thread]) -> core::Stmt {
        let Some((last, forked)) = branches.split_last() else {
            return core::Stmt::Skip;
        };
        if let Some(label) = &last.label {
            let current = self.threads[env.thread as usize].name.clone();
            if label.name != current {
                let d = Diagnostic::error(
                    format!("the last branch continues thread {current}"),
                    label.span,
                )
                .with_label(format!("cannot be renamed to `{label}`"))
                .with_hint("label the branches that start new threads, or drop this label");
                self.error(d);
            }
        }
        let mut children = Vec::new();
        for branch in forked {
            let name = branch
                .label
                .as_ref()
                .map_or_else(|| self.next_thread_name(), |l| l.name.clone());
            let span = branch.label.as_ref().map_or(branch.span, |l| l.span);
            let tid = self.new_thread(name, span, Some(env.thread));
            let mut child = Env {
                thread: tid,
                regs: env.regs.clone(),
            };
            let body = self.block(&mut child, &branch.body);
            self.finish_thread(&child);
            children.push((tid, body));
        }
        let mut result = self.block(env, &last.body);
        for (tid, body) in children.into_iter().rev() {
            result = core::Stmt::Par {
                thread: tid,
                left: Box::new(body),
                right: Box::new(result),
            };
        }
        result
    }

    fn stmt(&mut self, env: &mut Env, s: &ast::Stmt, out: &mut Vec<core::Stmt>) {
        match &s.kind {
            StmtKind::Skip => out.push(core::Stmt::Skip),
            StmtKind::Fence { suffix } => {
                let mode = self.fence_mode(suffix, s.span);
                self.no_access_quals(suffix, "a fence");
                out.push(vulkan(
                    suffix,
                    core::Stmt::Fence {
                        mode,
                        scope: scope_of(suffix),
                    },
                ));
            }
            StmtKind::Barrier { suffix, id } => out.push(self.barrier(suffix, *id, s.span)),
            StmtKind::Assign { lhs, suffix, rhs } => self.assign(env, lhs, suffix, rhs, out),
            StmtKind::Rmw { target, rmw } => self.rmw(env, target.as_ref(), rmw, out),
            StmtKind::If { cond, then, els } => {
                let cond = self.expr(env, cond, out);
                let els = els.as_deref().unwrap_or(&[]);
                let stmt = self.if_(
                    env,
                    cond,
                    |cx, e| cx.block(e, then),
                    |cx, e| cx.block(e, els),
                );
                out.push(stmt);
            }
            StmtKind::While { cond, body } if self.is_spin(body, cond) => {
                let c = self.expr(env, cond, out);
                if c.constant() != Some(0) {
                    let stmt = self.if_(
                        env,
                        c,
                        |cx, e| cx.last_pass(e, body, cond),
                        |_, _| core::Stmt::Skip,
                    );
                    out.push(stmt);
                }
            }
            StmtKind::DoWhile { body, cond } if self.is_spin(body, cond) => {
                out.push(self.last_pass(env, body, cond));
            }
            StmtKind::While { cond, body } => self.while_(env, cond, body, self.unroll, out),
            StmtKind::DoWhile { body, cond } => {
                for s in body {
                    self.stmt(env, s, out);
                }
                let more = self.unroll.saturating_sub(1);
                self.while_(env, cond, body, more, out);
            }
            StmtKind::Diverge => {
                // A written or imported cut: the test is bounded as a loop's is.
                self.cut = true;
                out.push(core::Stmt::Diverge { bound: true });
            }
            StmtKind::Par(branches) => out.push(self.par(env, branches)),
        }
    }

    /// IF with the register join: each branch is lowered in its own copy of
    /// the environment, then registers whose versions differ are joined.
    fn if_(
        &mut self,
        env: &mut Env,
        cond: core::Expr,
        then: impl FnOnce(&mut Self, &mut Env) -> core::Stmt,
        els: impl FnOnce(&mut Self, &mut Env) -> core::Stmt,
    ) -> core::Stmt {
        let mut then_env = env.clone();
        let then = then(self, &mut then_env);
        let mut els_env = env.clone();
        let els = els(self, &mut els_env);
        let (then_join, els_join) = self.join(env, &then_env, &els_env);
        core::Stmt::If {
            cond,
            then: Box::new(append(then, then_join)),
            els: Box::new(append(els, els_join)),
        }
    }

    /// Whether `Options::spin` asks for it and `do { body } while (cond)` is
    /// a spin loop.
    fn is_spin(&self, body: &[ast::Stmt], cond: &ast::Expr) -> bool {
        self.spin && super::spin::is_spin(body, cond, &|n| self.is_location(n))
    }

    /// A spin loop's last pass: `S; if (M) { diverge }`. The `diverge` is
    /// exact, not a bound (`syntax::spin` says why), so it sets no cut.
    fn last_pass(&mut self, env: &mut Env, body: &[ast::Stmt], cond: &ast::Expr) -> core::Stmt {
        self.spins += 1;
        let mut out = Vec::new();
        for s in body {
            self.stmt(env, s, &mut out);
        }
        let c = self.expr(env, cond, &mut out);
        if c.constant() != Some(0) {
            let stmt = self.if_(
                env,
                c,
                |_, _| core::Stmt::Diverge { bound: false },
                |_, _| core::Stmt::Skip,
            );
            out.push(stmt);
        }
        seq(out)
    }

    /// `while (M) { S }` unrolled `n` times: `if (M) { S; <n - 1 more> }`,
    /// and after the last copy `if (M) { diverge }`, so a path that needs
    /// another iteration is not an execution (its ✓ is ff). The condition is
    /// lowered afresh for each copy, so its reads are new events.
    fn while_(
        &mut self,
        env: &mut Env,
        cond: &ast::Expr,
        body: &[ast::Stmt],
        n: u32,
        out: &mut Vec<core::Stmt>,
    ) {
        let c = self.expr(env, cond, out);
        if n == 0 {
            if c.constant() == Some(0) {
                return;
            }
            self.cut = true;
            let stmt = self.if_(
                env,
                c,
                |_, _| core::Stmt::Diverge { bound: true },
                |_, _| core::Stmt::Skip,
            );
            out.push(stmt);
            return;
        }
        let stmt = self.if_(
            env,
            c,
            |cx, e| {
                let mut inner = Vec::new();
                for s in body {
                    cx.stmt(e, s, &mut inner);
                }
                cx.while_(e, cond, body, n - 1, &mut inner);
                seq(inner)
            },
            |_, _| core::Stmt::Skip,
        );
        out.push(stmt);
    }

    fn assign(
        &mut self,
        env: &mut Env,
        lhs: &Place,
        suffix: &Suffix,
        rhs: &ast::Expr,
        out: &mut Vec<core::Stmt>,
    ) {
        let name = match lhs {
            Place::Computed(addr) => {
                let loc = self.computed(env, addr, out);
                let expr = self.stored_expr(env, rhs, out);
                let mode = self.write_mode(suffix);
                self.access_quals(suffix, Access::Write);
                out.push(vulkan(
                    suffix,
                    core::Stmt::Write {
                        loc,
                        expr,
                        mode,
                        scope: scope_of(suffix),
                    },
                ));
                return;
            }
            Place::Named(name) => name,
        };
        if let Some(loc) = self.location(name.as_str()) {
            let expr = self.stored_expr(env, rhs, out);
            let mode = self.write_mode(suffix);
            self.access_quals(suffix, Access::Write);
            out.push(vulkan(
                suffix,
                core::Stmt::Write {
                    loc: core::Loc::Named(loc),
                    expr,
                    mode,
                    scope: scope_of(suffix),
                },
            ));
            return;
        }
        if !suffix.is_empty() {
            self.undeclared(name, "it has a mode or scope, so it must be a location");
            return;
        }
        // r := x^μ_σ and r := [L]^μ_σ are READs; anything else is a LET (§1.1).
        if let Some((loc, rsuffix)) = self.single_access(env, rhs, out) {
            let mode = self.read_mode(&rsuffix);
            self.access_quals(&rsuffix, Access::Read);
            let reg = self.assign_reg(env, name);
            out.push(vulkan(
                &rsuffix,
                core::Stmt::Read {
                    reg,
                    loc,
                    mode,
                    scope: scope_of(&rsuffix),
                },
            ));
            return;
        }
        let expr = self.expr(env, rhs, out);
        let reg = self.assign_reg(env, name);
        out.push(core::Stmt::Let { reg, expr });
    }

    /// When `e` is exactly one access (`x.acq` or `[L]`), the place it reads.
    fn single_access(
        &mut self,
        env: &mut Env,
        e: &ast::Expr,
        out: &mut Vec<core::Stmt>,
    ) -> Option<(core::Loc, Suffix)> {
        match &e.kind {
            ast::ExprKind::Name(n, suffix) if self.is_location(n.as_str()) => {
                let loc = self.location(n.as_str())?;
                Some((core::Loc::Named(loc), suffix.clone()))
            }
            ast::ExprKind::Deref(addr, suffix) => {
                let loc = self.computed(env, addr, out);
                Some((loc, suffix.clone()))
            }
            _ => None,
        }
    }

    fn computed(
        &mut self,
        env: &mut Env,
        addr: &ast::Expr,
        out: &mut Vec<core::Stmt>,
    ) -> core::Loc {
        // An address is a root of its own: its read is a leaf of the outer expression.
        let depth = std::mem::take(&mut self.expr_depth);
        let e = self.expr(env, addr, out);
        self.expr_depth = depth;
        // [&x] is x: resolve constant addresses to the location declared there.
        if let Some(a) = e.constant() {
            if let Some(i) = self.locs.iter().position(|l| l.address == Some(a)) {
                return core::Loc::Named(i as LocId);
            }
        }
        core::Loc::Computed(e)
    }

    /// The value of a write or an RMW argument; a constant (after folding:
    /// `-1`, `0 - 1`) must lie in a declared V and widens the default one.
    fn stored_expr(
        &mut self,
        env: &mut Env,
        e: &ast::Expr,
        out: &mut Vec<core::Stmt>,
    ) -> core::Expr {
        let x = self.expr(env, e, out);
        if let Some(v) = x.constant() {
            self.literals.push((v, e.span, Use::Stored));
        }
        x
    }

    fn rmw(
        &mut self,
        env: &mut Env,
        target: Option<&Ident>,
        rmw: &ast::Rmw,
        out: &mut Vec<core::Stmt>,
    ) {
        let loc = match &rmw.place {
            Place::Named(n) => match self.location(n.as_str()) {
                Some(l) => core::Loc::Named(l),
                None => {
                    self.undeclared(n, "the first argument of an RMW is a location");
                    return;
                }
            },
            Place::Computed(addr) => {
                if let Some(t) = target {
                    if mentions(addr, t.as_str()) {
                        let d = Diagnostic::error(
                            format!("the target `{t}` occurs in the address"),
                            addr.span,
                        )
                        .with_label("uses the RMW's own result")
                        .with_hint(
                            "§1.1 requires that r does not occur in L; use another register",
                        );
                        self.error(d);
                    }
                }
                self.computed(env, addr, out)
            }
        };
        // CAS's expected value is only compared with the value read: it widens
        // the default V but may lie outside a declared one (the CAS then fails).
        let args: Vec<core::Expr> = rmw
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| match (rmw.op, i) {
                (ast::RmwOp::Cas, 0) => self.expr(env, a, out),
                _ => self.stored_expr(env, a, out),
            })
            .collect();
        let (read_mode, write_mode) = self.rmw_modes(rmw);
        let reg = match target {
            Some(t) => self.assign_reg(env, t),
            None => self.fresh_reg(env.thread, rmw.op.as_str()),
        };
        if let (ast::RmwOp::Fadd, Some(arg)) = (rmw.op, args.first()) {
            self.fadds.push(range::Fadd {
                reg,
                arg: arg.clone(),
                span: rmw.span,
            });
        }
        let scope = rmw.scope.map_or(Scope::Sys, |(s, _)| s);
        let suffix = Suffix {
            mode: None,
            scope: rmw.scope,
            quals: rmw.quals.clone(),
        };
        self.access_quals(&suffix, Access::RmwRead);
        out.push(vulkan(
            &suffix,
            core::Stmt::Rmw {
                reg,
                op: rmw.op,
                read_mode,
                write_mode,
                scope,
                loc,
                args,
            },
        ));
    }

    /// No mode: rlx, rlx. One mode is shorthand for both halves: acq is
    /// (acq, rlx), rel is (rlx, rel), ra is (acq, rel), others as written.
    fn rmw_modes(&mut self, rmw: &ast::Rmw) -> (Mode, Mode) {
        match rmw.modes.as_slice() {
            [] => (Mode::Rlx, Mode::Rlx),
            [(m, _)] => match m {
                Mode::Acq => (Mode::Acq, Mode::Rlx),
                Mode::Rel => (Mode::Rlx, Mode::Rel),
                Mode::Ra => (Mode::Acq, Mode::Rel),
                m => (*m, *m),
            },
            [(r, rs), (w, ws), ..] => {
                let read = self.legal(*r, *rs, Access::RmwRead);
                let write = self.legal(*w, *ws, Access::RmwWrite);
                (read, write)
            }
        }
    }

    /// Lowers an extended expression; each location occurrence becomes a read
    /// into a fresh register, left to right, pushed onto `out` (§1.1).
    fn expr(&mut self, env: &mut Env, e: &ast::Expr, out: &mut Vec<core::Stmt>) -> core::Expr {
        self.expr_depth += 1;
        let x = self.expr_node(env, e, out);
        self.expr_depth -= 1;
        let arithmetic = matches!(x, core::Expr::Unary(..) | core::Expr::Binary(..));
        if self.expr_depth == 0 && arithmetic {
            self.roots.push(range::Root {
                core: x.clone(),
                ast: e.clone(),
            });
        }
        x
    }

    fn expr_node(&mut self, env: &mut Env, e: &ast::Expr, out: &mut Vec<core::Stmt>) -> core::Expr {
        match &e.kind {
            ast::ExprKind::Int(n) => {
                self.literals.push((*n, e.span, Use::Arithmetic));
                core::Expr::Int(*n)
            }
            ast::ExprKind::Name(n, suffix) => {
                if let Some(loc) = self.location(n.as_str()) {
                    return self.extended_read(env, core::Loc::Named(loc), n.as_str(), suffix, out);
                }
                if !suffix.is_empty() {
                    self.undeclared(n, "it has a mode or scope, so it must be a location");
                    return core::Expr::Int(0);
                }
                core::Expr::Reg(self.use_reg(env, n))
            }
            ast::ExprKind::Deref(addr, suffix) => {
                let loc = self.computed(env, addr, out);
                self.extended_read(env, loc, "mem", suffix, out)
            }
            ast::ExprKind::AddrOf(n) => match self
                .loc_ids
                .get(n.as_str())
                .map(|&l| self.locs[l as usize].address)
            {
                Some(Some(a)) => core::Expr::Int(a),
                _ => {
                    let d = Diagnostic::error(format!("`{n}` has no address"), n.span)
                        .with_label("`&` needs a declared address")
                        .with_hint(format!("declare one: `locations {{ {n} @ 0 }}`"));
                    self.error(d);
                    core::Expr::Int(0)
                }
            },
            ast::ExprKind::Unary(op, a) => {
                let x = core::Expr::Unary(*op, Box::new(self.expr(env, a, out)));
                self.folded(x, e.span)
            }
            ast::ExprKind::Binary(op, a, b) => {
                let a = self.expr(env, a, out);
                let b = self.expr(env, b, out);
                self.folded(core::Expr::Binary(*op, Box::new(a), Box::new(b)), e.span)
            }
        }
    }

    /// A constant expression (`-1`, `0 - 1`) counts as the literal it folds
    /// to, so that it widens the default V like one.
    fn folded(&mut self, x: core::Expr, span: Span) -> core::Expr {
        if let Some(v) = x.constant() {
            self.literals.push((v, span, Use::Arithmetic));
        }
        x
    }

    fn extended_read(
        &mut self,
        env: &mut Env,
        loc: core::Loc,
        base: &str,
        suffix: &Suffix,
        out: &mut Vec<core::Stmt>,
    ) -> core::Expr {
        let mode = self.read_mode(suffix);
        self.access_quals(suffix, Access::Read);
        let reg = self.fresh_reg(env.thread, base);
        out.push(vulkan(
            suffix,
            core::Stmt::Read {
                reg,
                loc,
                mode,
                scope: scope_of(suffix),
            },
        ));
        core::Expr::Reg(reg)
    }
}

#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
    Fence,
    RmwRead,
    RmwWrite,
}

impl Access {
    fn allows(self, m: Mode) -> bool {
        match self {
            Access::Read | Access::RmwRead => {
                matches!(m, Mode::Wk | Mode::Rlx | Mode::Acq | Mode::Sc)
            }
            Access::Write | Access::RmwWrite => {
                matches!(m, Mode::Wk | Mode::Rlx | Mode::Rel | Mode::Sc)
            }
            Access::Fence => matches!(m, Mode::Rel | Mode::Acq | Mode::Ra | Mode::Sc),
        }
    }

    /// What the access is called, what it takes, and a fix for mode `m`.
    fn describe(self, m: Mode) -> (&'static str, &'static str, String) {
        let (what, allowed) = match self {
            Access::Read => ("a read", "wk, rlx, acq or sc"),
            Access::Write => ("a write", "wk, rlx, rel or sc"),
            Access::Fence => ("a fence", "rel, acq, ra or sc"),
            Access::RmwRead => ("the read half of an RMW", "wk, rlx, acq or sc"),
            Access::RmwWrite => ("the write half of an RMW", "wk, rlx, rel or sc"),
        };
        let fix = match (self, m) {
            (Access::Read | Access::RmwRead, Mode::Rel | Mode::Ra) => {
                "did you mean `acq`?".to_string()
            }
            (Access::Write | Access::RmwWrite, Mode::Acq | Mode::Ra) => {
                "did you mean `rel`?".to_string()
            }
            (Access::Fence, _) => {
                "a relaxed fence orders nothing; `F.sc` is a full fence".to_string()
            }
            _ => format!("use one of {allowed}"),
        };
        let fix = match self {
            Access::RmwRead | Access::RmwWrite => {
                format!("{fix} (a single `.ra` sets both halves: acq and rel)")
            }
            _ => fix,
        };
        (what, allowed, fix)
    }
}

/// An access or fence with Vulkan qualifiers (or the Vulkan-only scope
/// `sg`) wrapped so that only the Vulkan model reads it.
fn vulkan(suffix: &Suffix, s: core::Stmt) -> core::Stmt {
    let vk = core::Vk::from_quals(suffix.quals.iter().map(|(q, _)| q));
    let sg = suffix.scope.filter(|(sc, _)| *sc == Scope::Sg);
    if vk == core::Vk::default() && sg.is_none() {
        return s;
    }
    let at = suffix.quals.first().map(|q| q.1).or(sg.map(|x| x.1));
    core::Stmt::Vulkan {
        vk,
        at: at.unwrap_or_default(),
        body: Box::new(s),
    }
}

fn scope_of(s: &Suffix) -> Scope {
    s.scope.map_or(Scope::Sys, |(sc, _)| sc)
}

fn bump(n: &mut u32) -> u32 {
    *n += 1;
    *n - 1
}

fn seq(mut stmts: Vec<core::Stmt>) -> core::Stmt {
    match stmts.len() {
        0 => core::Stmt::Skip,
        1 => stmts.remove(0),
        _ => core::Stmt::Seq(stmts),
    }
}

/// Whether register `name` occurs in `e`.
fn mentions(e: &ast::Expr, name: &str) -> bool {
    match &e.kind {
        ast::ExprKind::Name(n, _) => n.as_str() == name,
        ast::ExprKind::Deref(a, _) | ast::ExprKind::Unary(_, a) => mentions(a, name),
        ast::ExprKind::Binary(_, a, b) => mentions(a, name) || mentions(b, name),
        ast::ExprKind::Int(_) | ast::ExprKind::AddrOf(_) => false,
    }
}

/// `j := r`, the LET that joins a register's versions at the end of a branch.
fn let_reg(j: RegId, r: RegId) -> core::Stmt {
    core::Stmt::Let {
        reg: j,
        expr: core::Expr::Reg(r),
    }
}

/// `s` followed by `more`, as one sequence.
fn append(s: core::Stmt, more: Vec<core::Stmt>) -> core::Stmt {
    if more.is_empty() {
        return s;
    }
    let mut all = match s {
        core::Stmt::Skip => Vec::new(),
        core::Stmt::Seq(ss) => ss,
        s => vec![s],
    };
    all.extend(more);
    seq(all)
}

/// `s` with every register id `r` replaced by `new_id[r]`.
fn renumber_stmt(s: core::Stmt, new_id: &[RegId]) -> core::Stmt {
    use core::Stmt;
    let r = |id: RegId| new_id[id as usize];
    let e = |x: core::Expr| renumber_expr(x, new_id);
    let l = |loc: core::Loc| match loc {
        core::Loc::Computed(a) => core::Loc::Computed(renumber_expr(a, new_id)),
        named => named,
    };
    let b = |s: Box<Stmt>| Box::new(renumber_stmt(*s, new_id));
    match s {
        Stmt::Skip | Stmt::Fence { .. } | Stmt::Diverge { .. } | Stmt::Barrier { .. } => s,
        Stmt::Vulkan { vk, at, body } => Stmt::Vulkan {
            vk,
            at,
            body: b(body),
        },
        Stmt::Let { reg, expr } => Stmt::Let {
            reg: r(reg),
            expr: e(expr),
        },
        Stmt::Read {
            reg,
            loc,
            mode,
            scope,
        } => Stmt::Read {
            reg: r(reg),
            loc: l(loc),
            mode,
            scope,
        },
        Stmt::Write {
            loc,
            expr,
            mode,
            scope,
        } => Stmt::Write {
            loc: l(loc),
            expr: e(expr),
            mode,
            scope,
        },
        Stmt::Rmw {
            reg,
            op,
            read_mode,
            write_mode,
            scope,
            loc,
            args,
        } => Stmt::Rmw {
            reg: r(reg),
            op,
            read_mode,
            write_mode,
            scope,
            loc: l(loc),
            args: args.into_iter().map(e).collect(),
        },
        Stmt::If { cond, then, els } => Stmt::If {
            cond: e(cond),
            then: b(then),
            els: b(els),
        },
        Stmt::Seq(ss) => Stmt::Seq(ss.into_iter().map(|s| renumber_stmt(s, new_id)).collect()),
        Stmt::Par {
            thread,
            left,
            right,
        } => Stmt::Par {
            thread,
            left: b(left),
            right: b(right),
        },
    }
}

fn renumber_expr(x: core::Expr, new_id: &[RegId]) -> core::Expr {
    use core::Expr;
    match x {
        Expr::Int(_) => x,
        Expr::Reg(id) => Expr::Reg(new_id[id as usize]),
        Expr::Unary(op, a) => Expr::Unary(op, Box::new(renumber_expr(*a, new_id))),
        Expr::Binary(op, a, b) => Expr::Binary(
            op,
            Box::new(renumber_expr(*a, new_id)),
            Box::new(renumber_expr(*b, new_id)),
        ),
    }
}
