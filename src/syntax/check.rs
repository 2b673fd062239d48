//! From the surface tree to the core program: resolve names, check modes,
//! scopes, conditions and the value set, and desugar extended expressions.
//! Every user mistake found here becomes a diagnostic with a span and a hint.

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

    fn declare_locations(&mut self, file: &ast::File) {
        let mut first: HashMap<String, Span> = HashMap::new();
        for decl in &file.locations {
            if let Some(prev) = first.get(decl.name.as_str()) {
                let d = Diagnostic::error(
                    format!("location `{}` is declared twice", decl.name),
                    decl.name.span,
                )
                .with_label("second declaration")
                .with_also(*prev, "first declaration");
                self.error(d);
                continue;
            }
            first.insert(decl.name.name.clone(), decl.name.span);
            let id = self.add_location(&decl.name.name);
            if let Some((addr, span)) = decl.address {
                if let Some(other) = self.locs.iter().find(|l| l.address == Some(addr)) {
                    let d = Diagnostic::error(
                        format!("address {addr} is already `{}`", other.name),
                        span,
                    )
                    .with_label("taken")
                    .with_hint("give each location its own address");
                    self.error(d);
                }
                self.locs[id as usize].address = Some(addr);
                self.literals.push((addr, span, Use::Stored));
            }
        }
        let mut seen: HashMap<String, Span> = HashMap::new();
        for entry in &file.init {
            if let Some(prev) = seen.insert(entry.loc.name.clone(), entry.span) {
                let d =
                    Diagnostic::error(format!("`{}` is initialised twice", entry.loc), entry.span)
                        .with_label("second value")
                        .with_also(prev, "first value");
                self.error(d);
            }
            let id = self
                .location(&entry.loc.name)
                .unwrap_or_else(|| self.add_location(&entry.loc.name));
            self.locs[id as usize].init = entry.value;
            self.literals.push((entry.value, entry.span, Use::Stored));
        }
    }

    fn add_location(&mut self, name: &str) -> LocId {
        let id = self.locs.len() as LocId;
        self.locs.push(LocInfo {
            name: name.to_string(),
            address: None,
            init: 0,
        });
        self.loc_ids.insert(name.to_string(), id);
        id
    }

    /// The location a name denotes, declaring x, y, z, w on first use.
    fn location(&mut self, name: &str) -> Option<LocId> {
        if let Some(id) = self.loc_ids.get(name) {
            return Some(*id);
        }
        DEFAULT_LOCATIONS
            .contains(&name)
            .then(|| self.add_location(name))
    }

    fn is_location(&self, name: &str) -> bool {
        self.loc_ids.contains_key(name) || DEFAULT_LOCATIONS.contains(&name)
    }

    fn undeclared(&mut self, name: &Ident, why: &str) {
        let d = Diagnostic::error(format!("`{name}` is used as a location but is not declared"), name.span)
            .with_label(why.to_string())
            .with_hint(format!(
                "declare it in the header: `init {{ {name} = 0 }}` or `locations {{ {name} }}` (x, y, z and w need no declaration)"
            ));
        self.error(d);
    }

    // ------------------------------------------------------------ threads

    /// Top-level threads are P0, P1, ... by position unless labelled; threads
    /// forked inside a thread take the next free numbers in textual order.
    fn name_threads(&mut self, threads: &[ast::Thread]) {
        for (i, t) in threads.iter().enumerate() {
            let name = t
                .label
                .as_ref()
                .map_or_else(|| format!("P{i}"), |l| l.name.clone());
            self.new_thread(name, t.label.as_ref().map_or(t.span, |l| l.span), None);
        }
    }

    fn new_thread(&mut self, name: String, span: Span, parent: Option<ThreadId>) -> ThreadId {
        if let Some(prev) = self.thread_ids.get(&name) {
            let prev_span = self.thread_spans[*prev as usize];
            let d = Diagnostic::error(format!("two threads are called `{name}`"), span)
                .with_label("second thread")
                .with_also(prev_span, "first thread")
                .with_hint("give each thread its own label");
            self.error(d);
        }
        let id = self.threads.len() as ThreadId;
        self.threads.push(ThreadInfo {
            name: name.clone(),
            parent,
            cta: 0,
            gpu: 0,
            sg: 0,
        });
        self.thread_ids.insert(name, id);
        self.thread_spans.push(span);
        id
    }

    fn next_thread_name(&self) -> String {
        (self.threads.len()..)
            .map(|i| format!("P{i}"))
            .find(|n| !self.thread_ids.contains_key(n))
            .unwrap_or_default()
    }

    /// Definition 1.1: =cta and =gpu from the `scopes:` tree.
    fn place_threads(&mut self, scopes: Option<&ast::ScopeNode>) {
        self.placed = vec![false; self.threads.len()];
        let Some(root) = scopes else {
            // No tree: every thread in a cta of its own, all on one gpu.
            for (i, t) in self.threads.iter_mut().enumerate() {
                t.cta = i as u32;
                t.gpu = 0;
                t.sg = i as u32;
            }
            return;
        };
        let mut counters = (0u32, 0u32, 0u32);
        self.place(root, (None, None, None), &mut counters);
        for i in 0..self.threads.len() {
            if self.placed[i] {
                continue;
            }
            self.threads[i].cta = counters.0;
            self.threads[i].gpu = counters.1;
            self.threads[i].sg = counters.2;
            counters.0 += 1;
            counters.1 += 1;
            counters.2 += 1;
            let d = Diagnostic::warning(
                format!("thread {} is not in `scopes:`", self.threads[i].name),
                self.thread_spans[i],
            )
            .with_label("gets a cta and a gpu of its own")
            .with_hint(format!(
                "list it in the tree, for example `cta {{ {} }}`",
                self.threads[i].name
            ));
            self.diags.push(d);
        }
    }

    /// Places a node of the tree inside the given gpu, cta and Vulkan
    /// subgroup (`sg`, inside a cta); `n` counts the groups made so far.
    fn place(
        &mut self,
        node: &ast::ScopeNode,
        (gpu, cta, sg): (Option<u32>, Option<u32>, Option<u32>),
        n: &mut (u32, u32, u32),
    ) {
        match node {
            ast::ScopeNode::Thread(name) => {
                let Some(&id) = self.thread_ids.get(name.as_str()) else {
                    let names: Vec<String> = self.threads.iter().map(|t| t.name.clone()).collect();
                    let d = Diagnostic::error(format!("there is no thread `{name}`"), name.span)
                        .with_label("unknown thread")
                        .with_hint(format!("the threads are {}", names.join(", ")));
                    self.error(d);
                    return;
                };
                if self.placed[id as usize] {
                    let d =
                        Diagnostic::error(format!("thread `{name}` is placed twice"), name.span)
                            .with_label("second place")
                            .with_hint("a thread belongs to exactly one cta");
                    self.error(d);
                    return;
                }
                self.placed[id as usize] = true;
                let t = &mut self.threads[id as usize];
                t.cta = cta.unwrap_or_else(|| bump(&mut n.0));
                t.gpu = gpu.unwrap_or_else(|| bump(&mut n.1));
                t.sg = sg.unwrap_or_else(|| bump(&mut n.2));
            }
            ast::ScopeNode::Group {
                level,
                children,
                span,
            } => {
                let inside = if sg.is_some() {
                    Some("sg")
                } else if cta.is_some() {
                    Some("cta")
                } else if gpu.is_some() {
                    Some("gpu")
                } else {
                    None
                };
                let ok = match level {
                    Scope::Sys => inside.is_none(),
                    Scope::Gpu => inside.is_none(),
                    Scope::Cta => cta.is_none(),
                    Scope::Sg => sg.is_none(),
                };
                if let (false, Some(outer)) = (ok, inside) {
                    let d = Diagnostic::error(
                        format!("a {} group cannot sit inside a {outer}", level.as_str()),
                        *span,
                    )
                    .with_label("misplaced group")
                    .with_hint(if *level == Scope::Sg || outer == "sg" {
                        "nest as sys { gpu { cta { sg { P0 } } } }"
                    } else {
                        "nest as sys { gpu { cta { P0 } } }"
                    });
                    self.error(d);
                    return;
                }
                let inner = match level {
                    Scope::Sys => (None, None, None),
                    Scope::Gpu => (Some(bump(&mut n.1)), None, None),
                    Scope::Cta => (
                        Some(gpu.unwrap_or_else(|| bump(&mut n.1))),
                        Some(bump(&mut n.0)),
                        None,
                    ),
                    Scope::Sg => (
                        Some(gpu.unwrap_or_else(|| bump(&mut n.1))),
                        Some(cta.unwrap_or_else(|| bump(&mut n.0))),
                        Some(bump(&mut n.2)),
                    ),
                };
                for child in children {
                    self.place(child, inner, n);
                }
            }
        }
    }

    // ------------------------------------------------------------ statements

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
                out.push(core::Stmt::Diverge);
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
            let stmt = self.if_(env, c, |_, _| core::Stmt::Diverge, |_, _| core::Stmt::Skip);
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

    /// The bound: `--unroll`, else the file's `unroll = N`, else the default.
    fn unroll_setting(&mut self, settings: &[ast::Setting], cli: Option<u32>) -> u32 {
        let from_file = settings.iter().find(|s| s.name.as_str() == "unroll");
        let file_value = from_file.and_then(|s| match s.value.as_str().parse::<u32>() {
            Ok(n) if (1..=MAX_UNROLL).contains(&n) => Some(n),
            _ => {
                let d = Diagnostic::error(
                    format!("`unroll = {}` is not a loop bound", s.value),
                    s.value.span,
                )
                .with_label(format!("expected a number from 1 to {MAX_UNROLL}"))
                .with_hint("`unroll = 3` runs each loop's body at most 3 times");
                self.error(d);
                None
            }
        });
        cli.or(file_value).unwrap_or(DEFAULT_UNROLL)
    }

    /// herd7's `locations [...]`: every name must resolve; all are shown anyway.
    fn show(&mut self, terms: &[ast::CondTerm]) {
        for t in terms {
            if let ast::CondTerm::Int(_, span) = t {
                let d = Diagnostic::error("`locations [...]` lists names, not values", *span)
                    .with_label("a value")
                    .with_hint("list locations and registers: `locations [x; 1:r0;]`");
                self.error(d);
                continue;
            }
            self.term(t);
        }
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

    /// The register an assignment to `name` writes. The note assumes each
    /// register is assigned once (§1.1), so the desugaring renames apart
    /// (SSA): a register that already has a value on this path of this thread
    /// gets a new version; otherwise the latest version a sibling branch
    /// assigned is reused, so `if (c) { r := x; } else { r := y; }` keeps one
    /// register. Uses then resolve to the version in `env`.
    fn assign_reg(&mut self, env: &mut Env, name: &Ident) -> RegId {
        let visible = env
            .regs
            .get(name.as_str())
            .copied()
            .filter(|&id| self.regs[id as usize].thread == env.thread);
        // The latest version is on this path exactly when it is the visible
        // one (a join or a one-sided IF leaves the newest version visible);
        // else a sibling branch made it, and no path assigns it twice. Fewer
        // versions are fewer registers for `if_closure = registers`.
        let id = match self.latest_version(env.thread, name.as_str()) {
            Some(id) if visible != Some(id) => id,
            _ => self.new_version(env.thread, name.as_str()),
        };
        env.regs.insert(name.name.clone(), id);
        id
    }

    fn latest_version(&self, thread: ThreadId, name: &str) -> Option<RegId> {
        self.versions
            .get(&(thread, name.to_string()))
            .and_then(|v| v.last().copied())
    }

    /// A new core register for source register `name`; its final name is
    /// given by `name_versions` once the thread is done.
    fn new_version(&mut self, thread: ThreadId, name: &str) -> RegId {
        let id = self.regs.len() as RegId;
        self.regs.push(RegInfo {
            name: name.to_string(),
            thread,
            fresh: false,
        });
        self.versions
            .entry((thread, name.to_string()))
            .or_default()
            .push(id);
        id
    }

    /// The join of an `if`: a source register whose version differs between
    /// the branches gets one new version, assigned by a LET at the end of
    /// each branch from that branch's version. Returns the two LET lists.
    fn join(
        &mut self,
        env: &mut Env,
        then_env: &Env,
        els_env: &Env,
    ) -> (Vec<core::Stmt>, Vec<core::Stmt>) {
        let mut names: Vec<&String> = then_env.regs.keys().chain(els_env.regs.keys()).collect();
        names.sort_unstable();
        names.dedup();
        let (mut then_lets, mut els_lets) = (Vec::new(), Vec::new());
        for name in names {
            let joined = match (then_env.regs.get(name), els_env.regs.get(name)) {
                (Some(&t), Some(&e)) if t != e => {
                    let j = self.new_version(env.thread, name);
                    then_lets.push(let_reg(j, t));
                    els_lets.push(let_reg(j, e));
                    j
                }
                (Some(&id), _) | (None, Some(&id)) => id,
                (None, None) => continue,
            };
            env.regs.insert(name.clone(), joined);
        }
        (then_lets, els_lets)
    }

    /// Records the versions a thread ends with: those are the registers its
    /// states and conditions name.
    fn finish_thread(&mut self, env: &Env) {
        for (name, &id) in &env.regs {
            if self.regs[id as usize].thread == env.thread {
                self.finals.insert((env.thread, name.clone()), id);
            }
        }
    }

    /// Names the versions once every thread is done: the final version of
    /// each source register keeps its name and stays visible; earlier ones
    /// are hidden like desugaring temporaries, as `_r1`, `_r2`, ... Visible
    /// registers are then renumbered into the order of first assignment, so
    /// the states list reads as before.
    fn name_versions(&mut self, main: Vec<(ThreadId, core::Stmt)>) -> Vec<(ThreadId, core::Stmt)> {
        self.name_temporaries();
        let mut taken: std::collections::HashSet<(ThreadId, String)> = self
            .regs
            .iter()
            .map(|r| (r.thread, r.name.clone()))
            .collect();
        let mut groups: Vec<(&(ThreadId, String), &Vec<RegId>)> = self.versions.iter().collect();
        groups.sort_unstable_by_key(|(_, v)| v.first().copied());
        let mut order: Vec<(RegId, u8, RegId)> =
            (0..self.regs.len() as RegId).map(|r| (r, 0, r)).collect();
        let mut renames = Vec::new();
        for ((thread, name), versions) in groups {
            let last = versions.last().copied().unwrap_or_default();
            let last = self
                .finals
                .get(&(*thread, name.clone()))
                .copied()
                .unwrap_or(last);
            let first = versions.first().copied().unwrap_or(last);
            order[last as usize] = (first, 0, last);
            let mut k = 0;
            for &v in versions.iter().filter(|&&v| v != last) {
                let hidden = loop {
                    k += 1;
                    let n = format!("_{name}{k}");
                    if taken.insert((*thread, n.clone())) {
                        break n;
                    }
                };
                order[v as usize] = (first, 1, v);
                renames.push((v, hidden));
            }
            self.reg_ids.insert((*thread, name.clone()), last);
        }
        for (v, hidden) in renames {
            let info = &mut self.regs[v as usize];
            info.name = hidden.clone();
            info.fresh = true;
            self.reg_ids.insert((info.thread, hidden), v);
        }
        order.sort_unstable();
        let perm: Vec<RegId> = order.iter().map(|o| o.2).collect();
        if perm.iter().enumerate().all(|(i, &r)| i as RegId == r) {
            return main;
        }
        let mut new_id = vec![0; perm.len()];
        for (i, &old) in perm.iter().enumerate() {
            new_id[old as usize] = i as RegId;
        }
        self.regs = perm
            .iter()
            .map(|&old| self.regs[old as usize].clone())
            .collect();
        for id in self.reg_ids.values_mut() {
            *id = new_id[*id as usize];
        }
        for id in &mut self.unassigned {
            *id = new_id[*id as usize];
        }
        for root in &mut self.roots {
            root.core = renumber_expr(
                std::mem::replace(&mut root.core, core::Expr::Int(0)),
                &new_id,
            );
        }
        for f in &mut self.fadds {
            f.reg = new_id[f.reg as usize];
            f.arg = renumber_expr(std::mem::replace(&mut f.arg, core::Expr::Int(0)), &new_id);
        }
        main.into_iter()
            .map(|(t, s)| (t, renumber_stmt(s, &new_id)))
            .collect()
    }

    /// Names the temporaries `_y1`, `_y2`, ... per thread and base, skipping
    /// any name a source register of the thread has: the names are only for
    /// display (the core printer, explain, draw), and must not read as one
    /// of the user's registers there.
    fn name_temporaries(&mut self) {
        // Names given so far count too: the 11th read of `y` and the first
        // of `y1` would both be `_y11`.
        let mut taken: std::collections::HashSet<(ThreadId, String)> = self
            .regs
            .iter()
            .filter(|r| !r.fresh)
            .map(|r| (r.thread, r.name.clone()))
            .collect();
        let mut count: HashMap<(ThreadId, String), u32> = HashMap::new();
        for &t in &self.temps {
            let (thread, base) = (
                self.regs[t as usize].thread,
                self.regs[t as usize].name.clone(),
            );
            let k = count.entry((thread, base.clone())).or_insert(0);
            let name = loop {
                *k += 1;
                let n = format!("_{base}{k}");
                if taken.insert((thread, n.clone())) {
                    break n;
                }
            };
            self.regs[t as usize].name = name;
        }
    }

    /// A temporary of the desugaring (a read of an extended expression, an
    /// RMW without a result register). Hygienic by construction: it is never
    /// entered into any name table, so no source name resolves to it, and
    /// `name_temporaries` gives it a display name no source register of its
    /// thread has.
    fn fresh_reg(&mut self, thread: ThreadId, base: &str) -> RegId {
        let id = self.regs.len() as RegId;
        self.regs.push(RegInfo {
            name: base.to_string(),
            thread,
            fresh: true,
        });
        self.temps.push(id);
        id
    }

    // ------------------------------------------------------------ expressions

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

    fn use_reg(&mut self, env: &mut Env, name: &Ident) -> RegId {
        if let Some(&id) = env.regs.get(name.as_str()) {
            return id;
        }
        let thread = self.threads[env.thread as usize].name.clone();
        let d = Diagnostic::warning(format!("register `{name}` is read before any assignment in {thread}"), name.span)
            .with_label("never assigned before this point")
            .with_hint(format!(
                "its value ranges over V; if `{name}` is a location, declare it: `locations {{ {name} }}`"
            ));
        self.diags.push(d);
        let id = match self.latest_version(env.thread, name.as_str()) {
            Some(id) => id,
            None => self.new_version(env.thread, name.as_str()),
        };
        self.unassigned.push(id);
        env.regs.insert(name.name.clone(), id);
        id
    }

    // ------------------------------------------------------------ modes

    fn read_mode(&mut self, s: &Suffix) -> Mode {
        match s.mode {
            None => Mode::Rlx,
            Some((m, ms)) => self.legal(m, ms, Access::Read),
        }
    }

    fn write_mode(&mut self, s: &Suffix) -> Mode {
        match s.mode {
            None => Mode::Rlx,
            Some((m, ms)) => self.legal(m, ms, Access::Write),
        }
    }

    fn fence_mode(&mut self, s: &Suffix, span: Span) -> Mode {
        match s.mode {
            Some((m, ms)) => self.legal(m, ms, Access::Fence),
            None => {
                let d = Diagnostic::error("a fence needs a mode", span)
                    .with_label("no mode")
                    .with_hint("fences take rel, acq, ra or sc: `F.sc` is a full fence");
                self.error(d);
                Mode::Sc
            }
        }
    }

    /// Vulkan's per-instruction qualifiers: `.av` on writes, `.vis` on
    /// reads, neither on RMWs; semantics only on atomics (the book's
    /// "Vulkan").
    fn access_quals(&mut self, s: &Suffix, access: Access) {
        let non_atomic = matches!(s.mode, Some((Mode::Wk, _)));
        for (q, span) in &s.quals {
            let semantics = matches!(q, Qual::SemSc(_) | Qual::SemAv | Qual::SemVis);
            let wrong = match (q, access) {
                (Qual::Av, Access::Write) | (Qual::Vis, Access::Read) => None,
                (Qual::Av, _) => Some("`.av` (MakePointerAvailable) goes on writes"),
                (Qual::Vis, _) => Some("`.vis` (MakePointerVisible) goes on reads"),
                _ if semantics && non_atomic => {
                    Some("semantics go on atomics, fences and barriers, not on `wk` accesses")
                }
                _ => None,
            };
            if let Some(why) = wrong {
                let d = Diagnostic::error(format!("`.{}` is not allowed here", q.name()), *span)
                    .with_label("misplaced qualifier")
                    .with_hint(why);
                self.error(d);
            }
        }
    }

    /// Fences and barriers carry semantics, not a storage class or
    /// per-instruction av/vis.
    fn no_access_quals(&mut self, s: &Suffix, what: &str) {
        for (q, span) in &s.quals {
            if matches!(q, Qual::Av | Qual::Vis | Qual::NonPriv | Qual::Class(_)) {
                let d =
                    Diagnostic::error(format!("`.{}` is not allowed on {what}", q.name()), *span)
                        .with_label("an access qualifier")
                        .with_hint(format!(
                            "{what} takes semantics: `.semsc0` to `.semsc3`, `.semav`, `.semvis`"
                        ));
                self.error(d);
            }
        }
    }

    /// `barrier.ra.wg.semsc0(1)`: a control barrier; its mode, when given,
    /// is that of a fence (its memory semantics).
    fn barrier(&mut self, suffix: &Suffix, id: Option<(i64, Span)>, span: Span) -> core::Stmt {
        let mode = suffix.mode.map(|(m, ms)| self.legal(m, ms, Access::Fence));
        self.no_access_quals(suffix, "a barrier");
        if suffix.scope.is_none() {
            let d = Diagnostic::error("a barrier needs an execution scope", span)
                .with_label("no scope")
                .with_hint("write `barrier.wg` (the workgroup, our cta) or `barrier.sg`");
            self.error(d);
        }
        core::Stmt::Barrier {
            mode,
            scope: scope_of(suffix),
            vk: core::Vk::from_quals(suffix.quals.iter().map(|(q, _)| q)),
            id: id.map_or(0, |(n, _)| n),
            at: span,
        }
    }

    /// §1.1: reads take wk/rlx/acq/sc, writes wk/rlx/rel/sc, fences rel/acq/ra/sc.
    fn legal(&mut self, m: Mode, span: Span, access: Access) -> Mode {
        if access.allows(m) {
            return m;
        }
        let (what, allowed, suggestion) = access.describe(m);
        let d = Diagnostic::error(format!("`{}` is not a mode for {what}", m.as_str()), span)
            .with_label(format!("{what} takes {allowed}"))
            .with_hint(suggestion);
        self.error(d);
        m
    }

    // ------------------------------------------------------------ header

    fn model(&mut self, settings: &[ast::Setting]) -> Model {
        let mut model = Model::default();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for s in settings {
            if let Some(prev) = seen.insert(s.name.as_str(), s.name.span) {
                let d = Diagnostic::error(format!("option `{}` is set twice", s.name), s.name.span)
                    .with_label("second setting")
                    .with_also(prev, "first setting");
                self.error(d);
                continue;
            }
            // The loop bound is the checker's, read by `unroll_setting`.
            if s.name.as_str() == "unroll" {
                continue;
            }
            self.setting(&mut model, s);
        }
        model
    }

    /// Applies one `name = value`, reporting unknown names and values.
    fn setting(
        &mut self,
        model: &mut Model,
        s: &ast::Setting,
    ) -> Option<(&'static str, &'static str)> {
        match model.set(s.name.as_str(), s.value.as_str()) {
            Ok(()) => {
                let info = Model::OPTIONS.iter().find(|o| o.name == s.name.as_str())?;
                let value = info.values.iter().find(|v| **v == s.value.as_str())?;
                Some((info.name, *value))
            }
            Err(e @ model::SetError::UnknownOption { .. }) => {
                let d = Diagnostic::error(e.to_string(), s.name.span)
                    .with_label("unknown option")
                    .with_hint("`pomset options` lists every option with its values");
                self.error(d);
                None
            }
            Err(e @ model::SetError::UnknownValue { .. }) => {
                let d = Diagnostic::error(e.to_string(), s.value.span).with_label("unknown value");
                self.error(d);
                None
            }
        }
    }

    fn values(&mut self, file: &ast::File) -> (Vec<i64>, bool) {
        let Some((declared, span)) = &file.values else {
            // The default V starts from 0, 1 and the literals; `close_values`
            // widens it with every value an execution may store.
            let mut values: Vec<i64> = self.literals.iter().map(|l| l.0).chain([0, 1]).collect();
            values.sort_unstable();
            values.dedup();
            return (values, false);
        };
        let mut values = declared.clone();
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            let d = Diagnostic::error("V is empty", *span)
                .with_label("no values")
                .with_hint("write `values {0, 1}`");
            self.error(d);
        }
        let shown = values
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let outside: Vec<(i64, Span)> = self
            .literals
            .iter()
            .filter(|(v, _, u)| *u == Use::Stored && values.binary_search(v).is_err())
            .map(|(v, s, _)| (*v, *s))
            .collect();
        for (v, s) in outside {
            let d = Diagnostic::error(format!("value {v} is outside V = {{{shown}}}"), s)
                .with_label("not in V")
                .with_also(*span, "V is declared here")
                .with_hint("add it to `values`, or drop `values` to use the computed default");
            self.error(d);
        }
        (values, true)
    }

    // ------------------------------------------------------------ conditions

    fn condition(&mut self, c: &ast::Condition) -> core::Condition {
        let prop = self.prop(&c.prop);
        let mut expectations = Vec::new();
        for e in &c.expects {
            let mut scratch = Model::default();
            let when = e
                .when
                .iter()
                .filter_map(|s| self.setting(&mut scratch, s))
                .collect();
            expectations.push(core::Expectation {
                verdict: e.verdict,
                when,
            });
        }
        core::Condition {
            quantifier: c.quantifier,
            prop,
            expectations,
            disputed: c.disputed.clone(),
        }
    }

    fn prop(&mut self, p: &ast::Prop) -> core::Prop {
        match p {
            ast::Prop::True => core::Prop::True,
            ast::Prop::False => core::Prop::False,
            ast::Prop::Not(a) => core::Prop::Not(Box::new(self.prop(a))),
            ast::Prop::And(a, b) => core::Prop::And(Box::new(self.prop(a)), Box::new(self.prop(b))),
            ast::Prop::Or(a, b) => core::Prop::Or(Box::new(self.prop(a)), Box::new(self.prop(b))),
            ast::Prop::Cmp(a, op, b, _) => {
                let (ta, tb) = (self.term(a), self.term(b));
                // A value compared with a final memory value must lie in V;
                // register arithmetic is exact, so a register may end outside V.
                for (lit, other) in [(a, &tb), (b, &ta)] {
                    if let (ast::CondTerm::Int(v, s), core::Term::Mem(_)) = (lit, other) {
                        self.literals.push((*v, *s, Use::Stored));
                    }
                }
                core::Prop::Cmp(ta, *op, tb)
            }
        }
    }

    fn term(&mut self, t: &ast::CondTerm) -> core::Term {
        match t {
            ast::CondTerm::Int(v, s) => {
                self.literals.push((*v, *s, Use::Arithmetic));
                core::Term::Int(*v)
            }
            ast::CondTerm::Mem(name) => match self.loc_ids.get(name.as_str()) {
                Some(&l) => core::Term::Mem(l),
                None => {
                    self.undeclared(name, "`[x]` names the final value of a location");
                    core::Term::Int(0)
                }
            },
            ast::CondTerm::MemAt(a, span) => {
                match self.locs.iter().position(|l| l.address == Some(*a)) {
                    Some(l) => core::Term::Mem(l as LocId),
                    None => {
                        let d = Diagnostic::error(format!("no location has address {a}"), *span)
                            .with_label("unknown address")
                            .with_hint("declare one: `locations { x @ 0 }`");
                        self.error(d);
                        core::Term::Int(0)
                    }
                }
            }
            ast::CondTerm::Reg { thread: None, reg } => {
                if let Some(&l) = self.loc_ids.get(reg.as_str()) {
                    // herd7 writes a location's final value as plain `x`.
                    return core::Term::Mem(l);
                }
                self.unique_reg(reg)
            }
            ast::CondTerm::Reg {
                thread: Some(thread),
                reg,
            } => self.thread_reg(thread, reg),
        }
    }

    fn unique_reg(&mut self, reg: &Ident) -> core::Term {
        let owners: Vec<RegId> = (0..self.regs.len() as RegId)
            .filter(|&r| !self.regs[r as usize].fresh && self.regs[r as usize].name == reg.name)
            .collect();
        match owners.as_slice() {
            [only] => core::Term::Reg(*only),
            [] => {
                let d = self.unknown_reg(reg, None);
                self.error(d);
                core::Term::Int(0)
            }
            several => {
                let names: Vec<String> = several
                    .iter()
                    .map(|r| {
                        format!(
                            "{}:{}",
                            self.threads[self.regs[*r as usize].thread as usize].name, reg
                        )
                    })
                    .collect();
                let d = Diagnostic::error(
                    format!("`{reg}` names a register in several threads"),
                    reg.span,
                )
                .with_label("ambiguous")
                .with_hint(format!("say which: {}", names.join(" or ")));
                self.error(d);
                core::Term::Int(0)
            }
        }
    }

    fn thread_reg(&mut self, thread: &Ident, reg: &Ident) -> core::Term {
        // herd7's `1:r0` names the thread by its position among the top-level threads.
        let by_number = thread
            .as_str()
            .parse::<usize>()
            .ok()
            .filter(|_| !self.thread_ids.contains_key(thread.as_str()))
            .and_then(|i| {
                self.threads
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.parent.is_none())
                    .nth(i)
                    .map(|(id, _)| id as ThreadId)
            });
        let Some(tid) = by_number.or_else(|| self.thread_ids.get(thread.as_str()).copied()) else {
            let names: Vec<String> = self.threads.iter().map(|t| t.name.clone()).collect();
            let d = Diagnostic::error(format!("there is no thread `{thread}`"), thread.span)
                .with_label("unknown thread")
                .with_hint(format!("the threads are {}", names.join(", ")));
            self.error(d);
            return core::Term::Int(0);
        };
        match self.reg_ids.get(&(tid, reg.name.clone())) {
            Some(&r) if !self.regs[r as usize].fresh => core::Term::Reg(r),
            _ => {
                let d = self.unknown_reg(reg, Some(tid));
                self.error(d);
                core::Term::Int(0)
            }
        }
    }

    fn unknown_reg(&self, reg: &Ident, thread: Option<ThreadId>) -> Diagnostic {
        let known: Vec<&RegInfo> = self
            .regs
            .iter()
            .filter(|r| !r.fresh && thread.is_none_or(|t| r.thread == t))
            .collect();
        let place = thread.map_or("any thread".to_string(), |t| {
            self.threads[t as usize].name.clone()
        });
        let near = model::closest(reg.as_str(), known.iter().map(|r| r.name.as_str()));
        let hint = match near {
            Some(n) => format!("did you mean `{n}`?"),
            None if known.is_empty() => "no thread assigns a register".to_string(),
            None => {
                let mut names: Vec<&str> = known.iter().map(|r| r.name.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                format!("the registers are {}", names.join(", "))
            }
        };
        Diagnostic::error(format!("{place} has no register `{reg}`"), reg.span)
            .with_label("unknown register")
            .with_hint(hint)
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
        Stmt::Skip | Stmt::Fence { .. } | Stmt::Diverge | Stmt::Barrier { .. } => s,
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
