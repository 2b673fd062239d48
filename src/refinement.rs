//! Refinement (§2): is rewriting a source S1 into a target S2 sound, that is
//! `[[S1]] ⊇ [[S2]]`? Two checks:
//!
//! - the pomset-level check: every local pomset of S2 is one of S1 up to a
//!   renaming of events that keeps labels, with equivalent ✓, κ(e) for every
//!   dependency set ↓e, τ^D for every D and the tested postconditions, the
//!   same rmw, and every order SEQ demands of S1 (s7a, s8a) demanded of S2;
//! - the contextual check: when the first fails, small litmus tests that put
//!   the fragment in thread P0 next to up to two threads of accesses on the
//!   same locations, looking for an outcome S2 allows and S1 forbids.
//!
//! A refinement file reuses the litmus grammar: `refine NAME "doc"`, the
//! litmus header (`values`, `model`, ...), `source { S1 } target { S2 }`,
//! optional context threads after `||`, and `expect sound|unsound|undecided`
//! (`undecided`: the answer must be unknown; in a litmus file `expect
//! unknown` states no verdict, so a refinement file spells it apart).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::action::{self, Kind};
use crate::engine::pwt::construct::{Frag, Sem};
use crate::logic::{Addr, FormulaId, Names, Notation, Subst, Var};
use crate::model::{IfClosure, Model};
use crate::syntax::core::{Program, Stmt};
use crate::syntax::lexer::{self, Tok};
use crate::syntax::{self, Diagnostic, Diagnostics, Span};

/// A source, a target, and what surrounds them.
#[derive(Clone, Debug)]
pub struct Refinement {
    pub name: String,
    pub comment: Option<String>,
    /// Thread P0 is `if (1) { S1 } else { S2 }`; further threads are context.
    pub program: Program,
    pub source: Stmt,
    pub target: Stmt,
    /// The header and the two fragments as written, for generated litmus tests.
    pub header: String,
    pub source_text: String,
    pub target_text: String,
    /// Context threads as written (after `||`).
    pub context: Vec<String>,
    pub expect: Option<Verdict>,
    /// `--unroll N`, over the file's `unroll`: for the fragments and every
    /// generated test.
    pub unroll: Option<u32>,
    /// Warnings about the file (the old spelling `expect unknown`).
    pub warnings: Diagnostics,
}

/// The answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Sound,
    Unsound,
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Sound => "sound",
            Verdict::Unsound => "unsound",
            Verdict::Unknown => "unknown",
        }
    }

    /// The verdict an `expect` line names: `undecided` is the answer
    /// unknown (the old `unknown` is read too, with a warning).
    fn parse(s: &str) -> Option<Verdict> {
        match s {
            "sound" => Some(Verdict::Sound),
            "unsound" => Some(Verdict::Unsound),
            "undecided" | "unknown" => Some(Verdict::Unknown),
            _ => None,
        }
    }

    /// The word an `expect` line uses for the verdict.
    pub fn expect_word(self) -> &'static str {
        match self {
            Verdict::Unknown => "undecided",
            v => v.as_str(),
        }
    }
}

/// The bounds of both checks.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Local pomsets per fragment.
    pub max_pomsets: usize,
    /// The contextual check's bound (`None`: no contextual check).
    pub contexts: Option<crate::transform::Bound>,
    /// Each generated litmus test is decided within these; their deadline
    /// (`--timeout`) and cancel flag stop both checks.
    pub run: crate::outcome::Limits,
}

/// The context size the pomset semantics searches by default: its local
/// check gives the verdict, and the search only looks for a test that shows
/// an unsound one (the cat models, with no local check, search size 3).
pub const PWT_CONTEXT_SIZE: usize = 2;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_pomsets: 20_000,
            contexts: Some(crate::transform::Bound {
                size: PWT_CONTEXT_SIZE,
                ..crate::transform::Bound::default()
            }),
            run: crate::outcome::Limits {
                max_pomsets: 50_000,
                ..crate::outcome::Limits::default()
            },
        }
    }
}

/// Why no answer could be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefineError {
    /// The model has an option this check cannot decide under.
    Unsupported(String),
}

impl std::fmt::Display for RefineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefineError::Unsupported(s) => write!(f, "unsupported: {s}"),
        }
    }
}

/// The outcome of [`refine`].
#[derive(Clone, Debug)]
pub struct RefineReport {
    pub name: String,
    pub verdict: Verdict,
    /// How many local pomsets each side has.
    pub source_pomsets: usize,
    pub target_pomsets: usize,
    /// The first target pomset without a match, printed, and why the closest
    /// source pomsets differ.
    pub unmatched: Option<String>,
    /// A litmus test with an outcome the target allows and the source forbids.
    pub counterexample: Option<String>,
    /// The same test with the source in P0, where the outcome is forbidden.
    pub counterexample_source: Option<String>,
    /// Why a pomset-level difference was not taken as a verdict.
    pub undecided: Option<String>,
    /// How many contexts were tried, of how many in the bound, and the
    /// limit that stopped a check.
    pub contexts_tried: usize,
    pub contexts_total: usize,
    /// The contextual check's bound, as the answer names it.
    pub bound: Option<String>,
    pub limit: Option<String>,
    pub expect: Option<Verdict>,
    /// Whether both fragments' local pomsets were enumerated (the counts
    /// above mean nothing when a limit stopped that).
    pub enumerated: bool,
}

impl RefineReport {
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// Whether the verdict is the file's `expect` (true without one).
    pub fn as_expected(&self) -> bool {
        self.expect.is_none_or(|e| e == self.verdict)
    }

    pub fn text(&self) -> String {
        let mut s = String::new();
        let counts = if self.enumerated {
            format!(
                "target {}, source {}",
                crate::report::count(self.target_pomsets, "pomset"),
                self.source_pomsets
            )
        } else {
            "the local pomsets were not all enumerated".to_string()
        };
        let _ = writeln!(
            s,
            "Refinement {}: {} ({counts})",
            self.name,
            self.verdict.as_str(),
        );
        if let Some(u) = &self.unmatched {
            let _ = writeln!(s, "Target pomset with no match in the source:");
            s.push_str(u);
        }
        if self.verdict != Verdict::Sound && (self.contexts_tried > 0 || self.unmatched.is_some()) {
            let bound = self.bound.as_deref().unwrap_or("the bound");
            let total = crate::report::count(self.contexts_total, "context");
            match &self.counterexample {
                Some(c) => {
                    let _ = writeln!(
                        s,
                        "Distinguishing test (context {} of the {total} of {bound}):",
                        self.contexts_tried
                    );
                    s.push_str(c);
                }
                None if self.limit.is_none() => {
                    let _ = writeln!(s, "No distinguishing test in the {total} of {bound}");
                }
                None => {
                    let _ = writeln!(
                        s,
                        "No distinguishing test in the {} tried of the {total} of {bound}",
                        self.contexts_tried
                    );
                }
            }
        }
        if let Some(u) = &self.undecided {
            let _ = writeln!(s, "Unknown: {u}");
        }
        if let Some(l) = &self.limit {
            // A limit is named by its flag (`--timeout 3`); anything else is a reason.
            let by = if l.starts_with("--") {
                "Stopped by"
            } else {
                "Stopped:"
            };
            let _ = writeln!(s, "{by} {l}");
        }
        if let Some(e) = self.expect {
            let _ = writeln!(
                s,
                "Expected {}: {}",
                e.expect_word(),
                if self.as_expected() { "ok" } else { "FAILED" }
            );
        }
        s
    }
}

// ---------------------------------------------------------------- parsing

/// Parses a refinement file. The file goes through the litmus parser with
/// `refine` read as `litmus`, `source` as `if (1)` and `target` as `else`
/// (words of the same length), so every error points into the file as written.
pub fn parse_refinement(src: &str) -> Result<Refinement, Diagnostics> {
    parse_refinement_with(src, None)
}

/// `parse_refinement` with `--unroll N` over the file's `unroll`.
pub fn parse_refinement_with(src: &str, unroll: Option<u32>) -> Result<Refinement, Diagnostics> {
    let mut toks = Vec::new();
    for t in lexer::tokens(src) {
        toks.push(t.map_err(Diagnostics::from)?);
    }
    let whole = Span::new(0, src.len().min(1));
    let Some((s0, Tok::Ident(first), e0)) = toks.first().cloned() else {
        let at = toks.first().map_or(whole, |t| Span::new(t.0, t.2));
        let d = Diagnostic::error("a refinement file starts with `refine NAME`", at)
            .with_label("expected `refine`")
            .with_hint(
                "e.g. `refine R01 \"redundant write\"` then `source { ... } target { ... }`",
            );
        return Err(d.into());
    };
    if first != "refine" {
        let d = Diagnostic::error(
            "a refinement file starts with `refine NAME`",
            Span::new(s0, e0),
        )
        .with_label("expected `refine`")
        .with_hint("litmus tests run with `pomset run`; refinements start with `refine`");
        return Err(d.into());
    }
    let mut masked = src.to_string();
    masked.replace_range(s0..e0, "litmus");
    let mut depth = 0i32;
    let (mut source, mut target) = (None, None);
    let mut expect = None;
    let mut warnings = Vec::new();
    let mut i = 1;
    while i < toks.len() {
        let (s, tok, e) = &toks[i];
        let next_brace = matches!(toks.get(i + 1), Some((_, Tok::LBrace, _)));
        match tok {
            Tok::LBrace => depth += 1,
            Tok::RBrace => depth -= 1,
            Tok::Ident(w) if depth == 0 && w == "source" && next_brace => {
                masked.replace_range(*s..*e, "if (1)");
                source = Some((*s, i));
            }
            Tok::Ident(w) if depth == 0 && w == "target" && next_brace => {
                masked.replace_range(*s..*e, "else  ");
                target = Some((*s, i));
            }
            Tok::Expect if depth == 0 => {
                let Some((_, Tok::Ident(v), ve)) = toks.get(i + 1) else {
                    let d = Diagnostic::error("`expect` needs a verdict", Span::new(*s, *e))
                        .with_hint("write `expect sound`, `expect unsound` or `expect undecided`");
                    return Err(d.into());
                };
                let Some(verdict) = Verdict::parse(v) else {
                    let d = Diagnostic::error("unknown verdict", Span::new(*s, *ve))
                        .with_hint("write `expect sound`, `expect unsound` or `expect undecided`");
                    return Err(d.into());
                };
                if v == "unknown" {
                    let d = Diagnostic::warning(
                        "`expect unknown` in a refinement file is now `expect undecided`",
                        Span::new(*s, *ve),
                    )
                    .with_label("read as `expect undecided`: the answer must be unknown")
                    .with_hint("write `expect undecided`; in a litmus file `expect unknown` states no verdict");
                    warnings.push(d);
                }
                expect = Some(verdict);
                masked.replace_range(*s..*ve, &" ".repeat(ve - s));
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let Some((src_at, _)) = source else {
        let d = Diagnostic::error("no `source { ... }` block", whole).with_hint(
            "a refinement names the program before the rewrite: `source { x := 1; x := 2; }`",
        );
        return Err(d.into());
    };
    let Some((tgt_at, _)) = target else {
        let d = Diagnostic::error("no `target { ... }` block", Span::new(src_at, src_at + 6))
            .with_label("this source has no target")
            .with_hint("follow the source block with the rewritten program: `target { x := 2; }`");
        return Err(d.into());
    };
    if tgt_at < src_at {
        let d = Diagnostic::error(
            "`target` comes before `source`",
            Span::new(tgt_at, tgt_at + 6),
        )
        .with_label("this target")
        .with_hint("write `source { ... }` first, then `target { ... }`");
        return Err(d.into());
    }
    let test = syntax::parse_with(
        &masked,
        syntax::check::Options {
            unroll,
            ..Default::default()
        },
    )?;
    let program = test.program;
    let body = program.main.first().map(|(_, s)| s);
    let split = body.and_then(|b| match b {
        Stmt::If { then, els, .. } => Some(((**then).clone(), (**els).clone())),
        Stmt::Seq(parts) if parts.len() == 1 => match &parts[0] {
            Stmt::If { then, els, .. } => Some(((**then).clone(), (**els).clone())),
            _ => None,
        },
        _ => None,
    });
    let Some((source, target)) = split else {
        let d = Diagnostic::error(
            "the first thread must be exactly `source { ... } target { ... }`",
            Span::new(src_at, src_at + 6),
        )
        .with_hint("put context threads after `||`, not next to the source");
        return Err(d.into());
    };
    let block = |at: usize| -> String {
        // The text between the braces that follow `at`.
        let open = src[at..].find('{').map_or(at, |o| at + o);
        let mut depth = 0;
        for (k, c) in src[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return src[open + 1..open + k].trim().to_string();
                    }
                }
                _ => {}
            }
        }
        String::new()
    };
    let header_start = src[toks[0].2..]
        .find('\n')
        .map_or(src.len(), |n| toks[0].2 + n);
    let header = src[header_start..src_at]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    let target_text = block(tgt_at);
    let after_target = {
        let open = src[tgt_at..].find('{').map_or(tgt_at, |o| tgt_at + o);
        let close = open + src[open..].find(&target_text).unwrap_or(0) + target_text.len();
        src[close..].find('}').map_or(src.len(), |c| close + c + 1)
    };
    let context = masked[after_target..]
        .split("||")
        .skip(1)
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    Ok(Refinement {
        name: program.name.clone(),
        comment: program.comment.clone(),
        source,
        target,
        header,
        source_text: block(src_at),
        target_text,
        context,
        expect,
        program,
        unroll,
        warnings: Diagnostics(warnings),
    })
}

/// The `--from S1 --to S2` form: a refinement with no header.
pub fn quick(from: &str, to: &str) -> Result<Refinement, Diagnostics> {
    parse_refinement(&quick_text(from, to))
}

/// The refinement file that `quick` parses.
pub fn quick_text(from: &str, to: &str) -> String {
    format!("refine quick\nsource {{ {from} }}\ntarget {{ {to} }}\n")
}

// ---------------------------------------------------------------- the check

/// Decides `[[source]] ⊇ [[target]]` under `model`.
pub fn refine(
    req: &Refinement,
    model: &Model,
    limits: Limits,
) -> Result<RefineReport, RefineError> {
    if let Err(u) = crate::engine::pwt::decide::refused(model) {
        return Err(RefineError::Unsupported(u.sentence("is refused")));
    }
    let mut report = RefineReport::new(req, Verdict::Sound);
    let p = &req.program;
    let mut sem = Sem::new(p, model, limits.max_pomsets, limits.run.max_partitions);
    sem.complete_only = false;
    // Refinement compares pomsets: with `monotonicity`, every stronger label.
    sem.strengthen = true;
    // `--timeout` holds while the fragments are denoted too.
    sem.deadline = limits.run.deadline;
    sem.cancel = limits.run.cancel;
    let thread = p.main.first().map_or(0, |(t, _)| *t);
    let denoted = sem
        .denote(&req.source, thread)
        .and_then(|s| Ok((s, sem.denote(&req.target, thread)?)));
    let (src, tgt) = match denoted {
        Ok(x) => x,
        Err(stop) => {
            report.verdict = Verdict::Unknown;
            // A distinguishing test still settles it: its outcomes are decided.
            contextual(req, model, limits, &mut report);
            if report.counterexample.is_some() {
                report.verdict = Verdict::Unsound;
            }
            report.limit = Some(match report.limit.take() {
                Some(c) => format!("{}; the context search: {c}", stop.text()),
                None => stop.text(),
            });
            return Ok(report);
        }
    };
    report.source_pomsets = src.len();
    report.target_pomsets = tgt.len();
    report.enumerated = true;
    let posts = postconditions(&mut sem, thread);
    let renaming = fork_renaming(p, &req.source, &req.target);
    let fork_posts = renaming
        .threads
        .iter()
        .map(|&(_, f)| (f, register_postconditions(&mut sem, f)))
        .collect();
    let mut cx = Cx {
        sem,
        posts,
        model,
        renaming,
        fork_posts,
    };
    for t in &tgt {
        let mut why = Vec::new();
        let mut found = false;
        for s in &src {
            if let Some(l) = crate::outcome::interrupted(limits.run.deadline, limits.run.cancel) {
                report.verdict = Verdict::Unknown;
                report.limit = Some(l);
                return Ok(report);
            }
            match cx.matches(t, s) {
                Ok(()) => {
                    found = true;
                    break;
                }
                Err(reason) => why.push(reason),
            }
        }
        if !found {
            report.verdict = Verdict::Unsound;
            let mut u = cx.show_frag(t);
            let closest = why
                .iter()
                .filter(|w| !w.starts_with("labels"))
                .min_by_key(|w| w.len());
            match closest {
                Some(w) => {
                    let _ = writeln!(u, "  closest source pomset: {w}");
                }
                None => {
                    let _ = writeln!(u, "  no source pomset has these labels");
                }
            }
            report.unmatched = Some(u);
            break;
        }
    }
    if report.verdict == Verdict::Unsound {
        contextual(req, model, limits, &mut report);
    }
    if report.verdict == Verdict::Unsound
        && report.counterexample.is_none()
        && model.if_closure == IfClosure::Registers
    {
        report.verdict = Verdict::Unknown;
        report.undecided = Some(REGISTERS_GUARDS.to_string());
    }
    Ok(report)
}

/// Why a pomset-level difference under `if_closure = registers` is not a
/// verdict (the book's "Checking transformations", §1.6 for refinement).
const REGISTERS_GUARDS: &str = "under if_closure = registers a target pomset may lack a \
     source twin only because the source cannot guard by a later read's symbol, as §1.6's \
     formulas can; a difference without a distinguishing test is no verdict";

/// The postconditions τ is tested against: r = v for each register of the
/// fragment's thread that a context can name, x = v and Q_x for each
/// location, and the disjunction of each two of those on different variables.
/// Hidden registers (earlier versions of a reassigned register, desugaring
/// temporaries) are dead after the fragment, and source and target number
/// them differently.
fn postconditions(sem: &mut Sem, thread: action::ThreadId) -> Vec<FormulaId> {
    let values = sem.program.values.clone();
    let mut atoms: Vec<(u32, FormulaId)> = Vec::new();
    let regs: Vec<u32> = sem
        .regs_of(thread)
        .into_iter()
        .filter(|&r| !sem.program.regs[r as usize].fresh)
        .collect();
    let mut var = 0;
    for r in regs {
        let t = sem.l.reg(r);
        for &v in &values {
            let c = sem.l.value(v);
            atoms.push((var, sem.l.eq(t, c)));
        }
        var += 1;
    }
    for addr in sem.loc_addr.clone() {
        let t = sem.l.loc(addr);
        for &v in &values {
            let c = sem.l.value(v);
            atoms.push((var, sem.l.eq(t, c)));
        }
        atoms.push((var + 1, sem.l.quiescent(addr)));
        var += 2;
    }
    with_pairs(sem, &atoms)
}

/// The atoms, then the disjunction of each two on different variables.
fn with_pairs(sem: &mut Sem, atoms: &[(u32, FormulaId)]) -> Vec<FormulaId> {
    let mut out: Vec<FormulaId> = atoms.iter().map(|a| a.1).collect();
    for (i, a) in atoms.iter().enumerate() {
        for b in &atoms[i + 1..] {
            if a.0 != b.0 {
                out.push(sem.l.or(a.1, b.1));
            }
        }
    }
    out
}

/// The postconditions a forked thread's registers are tested against: r = v
/// for each register a context can name (its final state shows them), and
/// the disjunction of each two of those on different registers.
fn register_postconditions(sem: &mut Sem, thread: action::ThreadId) -> Vec<FormulaId> {
    let values = sem.program.values.clone();
    let mut atoms = Vec::new();
    for (var, r) in (0u32..).zip(sem.regs_of(thread)) {
        if sem.program.regs[r as usize].fresh {
            continue;
        }
        let t = sem.l.reg(r);
        for &v in &values {
            let c = sem.l.value(v);
            atoms.push((var, sem.l.eq(t, c)));
        }
    }
    with_pairs(sem, &atoms)
}

// ------------------------------------------------------- invented names

/// A renaming of what the target invents into what the source invents: the
/// threads its forks allocate, and their registers paired by name. Source
/// and target are elaborated side by side, so the same fragment gets other
/// thread ids, temporaries and SSA names on each side (issue 27 §3).
#[derive(Clone, Debug, Default)]
struct ForkRenaming {
    /// (target thread, source thread).
    threads: Vec<(action::ThreadId, action::ThreadId)>,
    /// (target register, source register) of those threads, by name.
    regs: Vec<(u32, u32)>,
}

/// The threads a statement forks.
fn forked(s: &Stmt, out: &mut Vec<action::ThreadId>) {
    match s {
        Stmt::Par {
            thread,
            left,
            right,
        } => {
            out.push(*thread);
            forked(left, out);
            forked(right, out);
        }
        Stmt::If { then, els, .. } => {
            forked(then, out);
            forked(els, out);
        }
        Stmt::Seq(parts) => parts.iter().for_each(|p| forked(p, out)),
        _ => {}
    }
}

/// The renaming of the target's forked threads into the source's, in the
/// order each side allocates them: a final state names a forked thread by
/// that order (P2:r), so no other pairing is unobservable. Kept only when it
/// keeps Definition 1.1's relations (=cta, =gpu, subgroups) and the parent
/// of each, and the threads have the same registers; else the identity,
/// under which labels of forked events differ and the check says unsound.
fn fork_renaming(p: &Program, source: &Stmt, target: &Stmt) -> ForkRenaming {
    let (mut fs, mut ft) = (Vec::new(), Vec::new());
    forked(source, &mut fs);
    forked(target, &mut ft);
    // Thread ids are allocated in order, and name the threads (P2, P3).
    fs.sort_unstable();
    ft.sort_unstable();
    let threads: Vec<_> = ft.iter().copied().zip(fs.iter().copied()).collect();
    if fs.is_empty() || fs.len() != ft.len() || !keeps_scopes(p, &threads, &fs) {
        return ForkRenaming::default();
    }
    match paired_registers(p, &threads) {
        Some(regs) => ForkRenaming { threads, regs },
        None => ForkRenaming::default(),
    }
}

/// Whether renaming `threads` keeps who shares a cta, gpu or subgroup with
/// whom, and who forked whom: the relations scopes and labels depend on.
fn keeps_scopes(
    p: &Program,
    threads: &[(action::ThreadId, action::ThreadId)],
    source_forks: &[action::ThreadId],
) -> bool {
    let map = |u: action::ThreadId| threads.iter().find(|x| x.0 == u).map_or(u, |x| x.1);
    let info = |u: action::ThreadId| p.threads.get(u as usize);
    let others = (0..p.threads.len() as u32)
        .filter(|u| !source_forks.contains(u) && !threads.iter().any(|x| x.0 == *u));
    let all: Vec<action::ThreadId> = threads.iter().map(|x| x.0).chain(others).collect();
    threads.iter().all(|&(u, _)| {
        let parent_kept = info(u).map(|i| i.parent.map(map)) == info(map(u)).map(|i| i.parent);
        parent_kept
            && all
                .iter()
                .all(|&w| match (info(u), info(w), info(map(u)), info(map(w))) {
                    (Some(a), Some(b), Some(c), Some(d)) => {
                        (a.cta == b.cta) == (c.cta == d.cta)
                            && (a.gpu == b.gpu) == (c.gpu == d.gpu)
                            && (a.sg == b.sg) == (c.sg == d.sg)
                    }
                    _ => false,
                })
    })
}

/// The registers a context can name in each renamed thread, paired by name;
/// None when the two threads do not have the same ones.
fn paired_registers(
    p: &Program,
    threads: &[(action::ThreadId, action::ThreadId)],
) -> Option<Vec<(u32, u32)>> {
    let named = |t: action::ThreadId| -> Vec<(String, u32)> {
        let mut v: Vec<(String, u32)> = (0u32..)
            .zip(&p.regs)
            .filter(|(_, r)| r.thread == t && !r.fresh)
            .map(|(id, r)| (r.name.clone(), id))
            .collect();
        v.sort();
        v
    };
    let mut out = Vec::new();
    for &(tt, ts) in threads {
        let (a, b) = (named(tt), named(ts));
        if a.len() != b.len() || a.iter().zip(&b).any(|(x, y)| x.0 != y.0) {
            return None;
        }
        out.extend(a.iter().zip(&b).map(|(x, y)| (x.1, y.1)));
    }
    Some(out)
}

/// The target pomset with its forked threads renamed into the source's.
fn rename_threads(f: &Frag, threads: &[(action::ThreadId, action::ThreadId)]) -> Frag {
    if threads.is_empty() {
        return f.clone();
    }
    let map = |u: action::ThreadId| threads.iter().find(|x| x.0 == u).map_or(u, |x| x.1);
    let relabel = |a: action::Action| action::Action {
        thread: map(a.thread),
        ..a
    };
    let mut out = f.clone();
    for e in &mut out.events {
        e.label = relabel(e.label);
    }
    for q in &mut out.seq_labels {
        q.2 = relabel(q.2);
        q.3 = relabel(q.3);
    }
    for k in &mut out.forks {
        k.0 = map(k.0);
    }
    out
}

/// Above this many ways to pair invented registers, only the first is tried.
const MAX_REGISTER_PAIRINGS: usize = 64;

/// The ways to pair the registers the target invents (temporaries, earlier
/// SSA versions: `fresh`) with the source's, read off the events: a
/// target read's register goes to the register of the source read its
/// event is matched with. A register without such a read keeps its name.
fn invented_registers(sem: &Sem, t: &Frag, s: &Frag, sigma: &[(u32, u32)]) -> Vec<Vec<(u32, u32)>> {
    let fresh = |r: u32| sem.program.regs.get(r as usize).is_some_and(|i| i.fresh);
    let reads = |f: &Frag| -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = std::iter::once(f.tau)
            .chain(f.forks.iter().map(|k| k.1))
            .flat_map(|tau| sem.trees.read_registers(tau))
            .filter(|&(_, r)| fresh(r))
            .map(|(e, r)| (f.alias_root(e), r))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let (rt, rs) = (reads(t), reads(s));
    let to_s = |e: u32| sigma.iter().find(|p| p.0 == e).map(|p| p.1);
    let mut options: Vec<(u32, Vec<u32>)> = Vec::new();
    for &(e, r) in &rt {
        let images: Vec<u32> = rs
            .iter()
            .filter(|x| Some(x.0) == to_s(e))
            .map(|x| x.1)
            .collect();
        match options.iter_mut().find(|o| o.0 == r) {
            Some(o) => o.1.retain(|x| images.contains(x)),
            None => options.push((r, images)),
        }
    }
    let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new()];
    for (r, images) in options.into_iter().filter(|o| !o.1.is_empty()) {
        let mut next = Vec::new();
        for m in &out {
            for &x in images.iter().filter(|x| !m.iter().any(|p| p.1 == **x)) {
                let mut with = m.clone();
                with.push((r, x));
                next.push(with);
            }
        }
        if next.is_empty() {
            continue;
        }
        next.truncate(MAX_REGISTER_PAIRINGS);
        out = next;
    }
    out
}

struct Cx<'a> {
    sem: Sem<'a>,
    posts: Vec<FormulaId>,
    model: &'a Model,
    renaming: ForkRenaming,
    /// Each source fork's register postconditions.
    fork_posts: Vec<(action::ThreadId, Vec<FormulaId>)>,
}

impl Cx<'_> {
    /// Whether target pomset `t` is source pomset `s` up to renaming; else why not.
    /// Up to a renaming of what the fragment invents: forked threads and
    /// their registers, in allocation order (`ForkRenaming`), events (`bijections`), temporaries
    /// and SSA versions (`invented_registers`), R4c's symbols (`fresh_choices`).
    fn matches(&mut self, t: &Frag, s: &Frag) -> Result<(), String> {
        let t = &rename_threads(t, &self.renaming.threads);
        let mut lt: Vec<_> = t.events.iter().map(|e| e.label).collect();
        let mut ls: Vec<_> = s.events.iter().map(|e| e.label).collect();
        lt.sort();
        ls.sort();
        if lt != ls {
            return Err("labels differ".into());
        }
        let mut first_reason = None;
        let (fresh_s, fresh_t) = (self.absent_reads(s), self.absent_reads(t));
        for sigma in bijections(t, s) {
            for invented in invented_registers(&self.sem, t, s, &sigma) {
                let regs = [self.renaming.regs.clone(), invented].concat();
                for choice in fresh_choices(&fresh_s, &fresh_t) {
                    match self.matches_with(t, s, &sigma, &choice, &regs) {
                        Ok(()) => return Ok(()),
                        Err(r) => {
                            first_reason.get_or_insert(r);
                        }
                    }
                }
            }
        }
        Err(first_reason.unwrap_or_else(|| "labels differ".into()))
    }

    /// The reads without an event (R4c) in the thread and in its forks.
    fn absent_reads(&self, f: &Frag) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = std::iter::once(f.tau)
            .chain(f.forks.iter().map(|k| k.1))
            .flat_map(|tau| self.sem.trees.absent_reads(tau))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// `regs`: (target register, source register), renamed apart.
    fn matches_with(
        &mut self,
        t: &Frag,
        s: &Frag,
        sigma: &[(u32, u32)],
        fresh: &[(u32, Var)],
        regs: &[(u32, u32)],
    ) -> Result<(), String> {
        let to_s = |e: u32| sigma.iter().find(|p| p.0 == e).map_or(e, |p| p.1);
        // rmw.
        let mut rt: Vec<_> = t.rmw.iter().map(|&(a, b)| (to_s(a), to_s(b))).collect();
        let mut rs = s.rmw.clone();
        rt.sort();
        rs.sort();
        if rt != rs {
            return Err("rmw differs".into());
        }
        // s7a/s8a: every order the source demands, the target demands.
        let req_t = required(self.model, t);
        let req_t: BTreeSet<_> = closure(&req_t)
            .into_iter()
            .map(|(a, b)| (to_s(a), to_s(b)))
            .collect();
        for (a, b) in required(self.model, s) {
            if !req_t.contains(&(a, b)) {
                let to_t = |e: u32| sigma.iter().find(|p| p.1 == e).map_or(e, |p| p.0);
                return Err(format!(
                    "the source orders e{} < e{} (s7a/s8a), the target does not",
                    to_t(a),
                    to_t(b)
                ));
            }
        }
        // Renamings into the source's names.
        let mut st = Subst::new();
        for &(b, v) in &t.merged {
            let v = self.sem.l.value(v);
            st = st.term(Var::Read(b), v);
        }
        for &(b, _) in &t.alias {
            let r = self.sem.l.read(to_s(t.alias_root(b)));
            st = st.term(Var::Read(b), r);
        }
        for &(te, se) in sigma {
            let r = self.sem.l.read(se);
            st = st.term(Var::Read(te), r);
        }
        let mut back = Subst::new();
        for &(rt, rs) in regs {
            let (x, y) = (self.sem.l.reg(rs), self.sem.l.reg(rt));
            st = st.term(Var::Reg(rt), x);
            back = back.term(Var::Reg(rs), y);
        }
        let mut ss = Subst::new();
        for &(b, v) in &s.merged {
            let v = self.sem.l.value(v);
            ss = ss.term(Var::Read(b), v);
        }
        for &(b, _) in &s.alias {
            let r = self.sem.l.read(s.alias_root(b));
            ss = ss.term(Var::Read(b), r);
        }
        for &(f, v) in fresh {
            let r = self.sem.l.var(v);
            ss = ss.term(Var::Read(f), r);
        }
        let names = self.names();
        // Definition 1.2: compare under θ_λ, each read's symbol holding its label's value.
        let reads: Vec<(u32, i64)> = s
            .events
            .iter()
            .filter(|e| e.label.kind == Kind::Read)
            .map(|e| (e.id, e.label.value))
            .collect();
        let theta = self.sem.l.theta(&reads);
        let equiv = |l: &mut crate::logic::Logic, hyp: FormulaId, a: FormulaId, b: FormulaId| {
            let iff = l.iff(a, b);
            l.entails(hyp, iff)
        };
        // ✓.
        let (ct, cs) = (
            self.sem.l.subst(t.check, &st),
            self.sem.l.subst(s.check, &ss),
        );
        if !equiv(&mut self.sem.l, theta, ct, cs) {
            return Err(format!(
                "✓ differs: target {}, source {}",
                self.show(ct, &names),
                self.show(cs, &names)
            ));
        }
        // κ and τ matter only where ✓ holds: a context that completes the
        // pomset makes ✓ a tautology (s5, I5 guard it by the condition).
        let theta = self.sem.l.and(theta, cs);
        let reads_t = read_ids(t);
        let with_alias = |f: &Frag, d: u64| f.with_aliases(d);
        let map_d = |d: u64| {
            (0..64)
                .filter(|b| d >> b & 1 == 1)
                .fold(0u64, |m, b| m | 1 << to_s(b))
        };
        // κ(e) for every ↓e.
        for e in &t.events {
            let Some(se) = s.events.iter().find(|x| x.id == to_s(e.id)) else {
                return Err("events differ".into());
            };
            let back = sigma
                .iter()
                .filter(|p| self.sem.trees.dep_reads(se.kappa) >> p.1 & 1 == 1)
                .fold(0u64, |m, p| m | 1 << p.0);
            let cand = t.to_events(self.sem.trees.dep_reads(e.kappa) | back) & reads_t;
            for d in subsets(cand) {
                let kt = self
                    .sem
                    .trees
                    .eval(&mut self.sem.l, e.kappa, with_alias(t, d));
                let ks = self
                    .sem
                    .trees
                    .eval(&mut self.sem.l, se.kappa, with_alias(s, map_d(d)));
                let (kt, ks) = (self.sem.l.subst(kt, &st), self.sem.l.subst(ks, &ss));
                if !equiv(&mut self.sem.l, theta, kt, ks) {
                    return Err(format!(
                        "κ differs with ↓e = {}: target {}, source {}",
                        show_set(d),
                        self.show(kt, &names),
                        self.show(ks, &names)
                    ));
                }
            }
        }
        // τ^D for every D and each tested postcondition.
        for d in subsets(reads_t) {
            for &psi in &self.posts.clone() {
                let at = self
                    .sem
                    .trees
                    .apply(&mut self.sem.l, t.tau, with_alias(t, d), psi);
                let as_ =
                    self.sem
                        .trees
                        .apply(&mut self.sem.l, s.tau, with_alias(s, map_d(d)), psi);
                let (at, as_) = (self.sem.l.subst(at, &st), self.sem.l.subst(as_, &ss));
                if !equiv(&mut self.sem.l, theta, at, as_) {
                    return Err(format!(
                        "τ^D({}) differs with D = {}: target {}, source {}",
                        self.show(psi, &names),
                        show_set(d),
                        self.show(at, &names),
                        self.show(as_, &names)
                    ));
                }
            }
        }
        // Each forked thread's registers, under the transformer they end under.
        if s.forks.iter().any(|k| !t.forks.iter().any(|j| j.0 == k.0)) {
            return Err("the forked threads differ".into());
        }
        for &(thread, ft) in &t.forks {
            let Some(&(_, fs)) = s.forks.iter().find(|k| k.0 == thread) else {
                return Err("the forked threads differ".into());
            };
            let posts = self
                .fork_posts
                .iter()
                .find(|k| k.0 == thread)
                .map_or(vec![], |k| k.1.clone());
            for d in subsets(reads_t) {
                for &psi in &posts {
                    let psi_t = self.sem.l.subst(psi, &back);
                    let at = self
                        .sem
                        .trees
                        .apply(&mut self.sem.l, ft, with_alias(t, d), psi_t);
                    let as_ =
                        self.sem
                            .trees
                            .apply(&mut self.sem.l, fs, with_alias(s, map_d(d)), psi);
                    let (at, as_) = (self.sem.l.subst(at, &st), self.sem.l.subst(as_, &ss));
                    if !equiv(&mut self.sem.l, theta, at, as_) {
                        return Err(format!(
                            "τ^D({}) of a forked thread differs with D = {}: target {}, source {}",
                            self.show(psi, &names),
                            show_set(d),
                            self.show(at, &names),
                            self.show(as_, &names)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn names(&self) -> FormulaNames {
        FormulaNames {
            regs: self
                .sem
                .program
                .regs
                .iter()
                .map(|r| r.name.clone())
                .collect(),
            locs: self
                .sem
                .dense
                .iter()
                .map(|(a, d)| (*a, self.sem.dense_names[*d as usize].clone()))
                .collect(),
        }
    }

    fn show(&self, f: FormulaId, names: &FormulaNames) -> String {
        self.sem.l.display(f, Notation::Unicode, names).to_string()
    }

    /// A local pomset: events with κ for ↓e = ∅, the SEQ orders, ✓.
    fn show_frag(&mut self, f: &Frag) -> String {
        let names = self.names();
        let mut s = String::new();
        if f.events.is_empty() {
            s.push_str("  (no events)\n");
        }
        for e in &f.events {
            let k = self.sem.trees.eval(&mut self.sem.l, e.kappa, 0);
            let label = crate::engine::pwt::text::label(&self.sem, self.sem.program, &e.label);
            let _ = writeln!(s, "  e{}: {} | {label}", e.id, self.show(k, &names));
        }
        for (a, b) in required(self.model, f) {
            let _ = writeln!(s, "  e{a} < e{b} (s7a/s8a)");
        }
        let _ = writeln!(s, "  ✓ = {}", self.show(f.check, &names));
        s
    }
}

struct FormulaNames {
    regs: Vec<String>,
    locs: Vec<(Addr, String)>,
}

impl Names for FormulaNames {
    fn reg(&self, r: u32) -> String {
        self.regs
            .get(r as usize)
            .cloned()
            .unwrap_or_else(|| format!("r{r}"))
    }
    fn read(&self, e: u32) -> String {
        format!("s{e}")
    }
    fn loc(&self, addr: Addr) -> String {
        self.locs
            .iter()
            .find(|l| l.0 == addr)
            .map_or_else(|| format!("[{addr}]"), |l| l.1.clone())
    }
}

fn show_set(d: u64) -> String {
    let ids: Vec<String> = (0..64)
        .filter(|b| d >> b & 1 == 1)
        .map(|b| format!("e{b}"))
        .collect();
    format!("{{{}}}", ids.join(", "))
}

fn read_ids(f: &Frag) -> u64 {
    f.events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .fold(0, |m, e| m | 1 << e.id)
}

/// Every subset of a mask.
fn subsets(mask: u64) -> Vec<u64> {
    let mut out = vec![0];
    let mut sub = mask;
    while sub != 0 {
        out.push(sub);
        sub = (sub - 1) & mask;
    }
    out
}

/// The pairs SEQ orders (s7a: co-delays, s8a: sync-delays).
fn required(model: &Model, f: &Frag) -> Vec<(u32, u32)> {
    let label = |id: u32| f.events.iter().find(|e| e.id == id).map(|e| e.label);
    let delays = |x: &action::Action, y: &action::Action| {
        action::co_delays(x, y, model) || action::sync_delays(x, y, model)
    };
    let mut out: Vec<(u32, u32)> =
        f.po.iter()
            .filter(|&&(a, b)| match (label(a), label(b)) {
                (Some(x), Some(y)) => delays(&x, &y),
                _ => false,
            })
            .copied()
            .collect();
    // After a §2 merge, s7a/s8a read λ1(d) and λ2(e), kept with the pair.
    out.extend(
        f.seq_labels
            .iter()
            .filter(|(_, _, x, y)| delays(x, y))
            .map(|&(a, b, _, _)| (a, b)),
    );
    out.sort();
    out.dedup();
    out
}

fn closure(pairs: &[(u32, u32)]) -> BTreeSet<(u32, u32)> {
    let mut set: BTreeSet<(u32, u32)> = pairs.iter().copied().collect();
    loop {
        let mut add = Vec::new();
        for &(a, b) in &set {
            for &(c, d) in &set {
                if b == c && !set.contains(&(a, d)) {
                    add.push((a, d));
                }
            }
        }
        if add.is_empty() {
            return set;
        }
        set.extend(add);
    }
}

/// Every label-preserving bijection from the target's events to the source's.
fn bijections(t: &Frag, s: &Frag) -> Vec<Vec<(u32, u32)>> {
    let mut out = vec![Vec::new()];
    for e in &t.events {
        let mut next = Vec::new();
        for m in &out {
            for x in s
                .events
                .iter()
                .filter(|x| x.label == e.label && !m.iter().any(|p: &(u32, u32)| p.1 == x.id))
            {
                let mut with = m.clone();
                with.push((e.id, x.id));
                next.push(with);
            }
        }
        out = next;
    }
    out
}

/// What each of the source's arbitrary symbols s (R4c) stands for: its
/// register unchanged (so that dropping a relaxed read refines to SKIP), or
/// one of the target's arbitrary symbols (renaming a bound symbol).
fn fresh_choices(src: &[(u32, u32)], tgt: &[(u32, u32)]) -> Vec<Vec<(u32, Var)>> {
    let mut out = vec![Vec::new()];
    for &(f, reg) in src {
        let mut next = Vec::new();
        for m in &out {
            let mut options = vec![Var::Reg(reg)];
            options.extend(tgt.iter().map(|t| Var::Read(t.0)));
            for o in options {
                let mut with: Vec<(u32, Var)> = m.clone();
                with.push((f, o));
                next.push(with);
            }
        }
        out = next;
    }
    out
}

// ---------------------------------------------------------------- contexts

impl RefineReport {
    fn new(req: &Refinement, verdict: Verdict) -> RefineReport {
        RefineReport {
            name: req.name.clone(),
            verdict,
            source_pomsets: 0,
            target_pomsets: 0,
            unmatched: None,
            counterexample: None,
            counterexample_source: None,
            undecided: None,
            contexts_tried: 0,
            contexts_total: 0,
            bound: None,
            limit: None,
            expect: req.expect,
            enumerated: false,
        }
    }
}

/// The contextual search alone, whatever the pomset-level verdict: a litmus
/// test with an outcome the target allows and the source forbids, if one of
/// the contexts of the bound gives one. A sound verdict should never have one.
pub fn distinguishing_test(req: &Refinement, model: &Model, limits: Limits) -> Option<String> {
    let mut report = RefineReport::new(req, Verdict::Unknown);
    contextual(req, model, limits, &mut report);
    report.counterexample
}

/// The contextual check: the one search of `transform::context` under the
/// pomset engine, within `limits.contexts` (none when that is `None`).
fn contextual(req: &Refinement, model: &Model, limits: Limits, report: &mut RefineReport) {
    use crate::transform::{context, Found};
    let Some(bound) = limits.contexts else {
        return;
    };
    let engine = crate::engine::pwt::Pwt;
    report.bound = Some(bound.text());
    match context::search(req, &engine, model, bound, limits.run) {
        Found::Counterexample(c) => {
            report.contexts_tried = c.tried;
            report.contexts_total = c.total;
            report.counterexample = Some(c.target_test);
            report.counterexample_source = Some(c.source_test);
        }
        Found::NoneUpTo { total, .. } => {
            report.contexts_tried = total;
            report.contexts_total = total;
        }
        Found::Stopped {
            tried,
            total,
            undecided,
            limit,
            ..
        } => {
            report.contexts_tried = tried;
            report.contexts_total = total;
            report.limit = Some(if undecided > 0 {
                format!(
                    "{limit} ({} left undecided)",
                    crate::report::count(undecided, "context")
                )
            } else {
                limit
            });
        }
        Found::Unknown(why) => report.undecided = Some(why),
    }
}

/// The `*.refine` files among `paths`, directories searched recursively, sorted.
pub fn refinement_files(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let p = entry?.path();
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|e| e == "refine") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}
