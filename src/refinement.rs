//! Refinement (§2): is rewriting a source S1 into a target S2 sound, that is
//! `[[S1]] ⊇ [[S2]]`? Two checks:
//!
//! - the pomset-level check, the pomset engine's (`Engine::refine_locally`,
//!   in `engine/pwt/refine.rs`): every local pomset of S2 is one of S1 up to
//!   a renaming of events that keeps labels;
//! - the contextual check: when the first fails, small litmus tests that put
//!   the fragment in thread P0 next to up to two threads of accesses on the
//!   same locations, looking for an outcome S2 allows and S1 forbids.
//!
//! A refinement file reuses the litmus grammar: `refine NAME "doc"`, the
//! litmus header (`values`, `model`, ...), `source { S1 } target { S2 }`,
//! optional context threads after `||`, and `expect sound|unsound|undecided`
//! (`undecided`: the answer must be unknown; in a litmus file `expect
//! unknown` states no verdict, so a refinement file spells it apart).

use std::fmt::Write as _;

use crate::engine::{Engine, LocalRefinement, Matching};
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
    /// Told (contexts tried, contexts in the bound) as the context search
    /// goes: a terminal's progress line.
    pub progress: Option<crate::transform::context::Progress>,
}

/// The most contexts `refine` decides when given no budget (no
/// `--max-contexts`, no `--timeout`): a larger bound is refused before the
/// search, naming both (the largest bundled example has 36 700 at size 3).
pub const DEFAULT_MAX_CONTEXTS: usize = 50_000;

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
            progress: None,
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

    /// The word for the finding, as the table of transformations prints
    /// it (`table::Cell::word`): `unsound*` when the pomset-level check
    /// found a target pomset with no match but no distinguishing test
    /// shows it, `unsound` with a test; else the verdict.
    pub fn word(&self) -> &'static str {
        match (self.verdict, &self.counterexample) {
            (Verdict::Unsound, None) => "unsound*",
            (v, _) => v.as_str(),
        }
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
        let _ = writeln!(s, "Refinement {}: {} ({counts})", self.name, self.word(),);
        if let Some(u) = &self.unmatched {
            let _ = writeln!(s, "Target pomset with no match in the source:");
            s.push_str(u);
        }
        let searched = self.contexts_total > 0 || self.bound.is_some();
        // A search that stopped before it counted its contexts (`undecided`)
        // says so on its one line below, never "none in the 0 contexts".
        if self.verdict != Verdict::Sound
            && searched
            && self.undecided.is_none()
            && (self.contexts_tried > 0 || self.unmatched.is_some())
        {
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
            match self.verdict {
                // The verdict stands; only the search for a test stopped.
                Verdict::Unsound => {
                    let _ = writeln!(s, "No context searched for a distinguishing test: {u}");
                }
                _ => {
                    let _ = writeln!(s, "Unknown: {u}");
                }
            }
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
        if self.word() == "unsound*" {
            let _ = writeln!(
                s,
                "unsound*: a target pomset has no match in the source (the pomset-level check), but no test in the contexts searched shows it in an outcome"
            );
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
    parse_refinement_inner(src, unroll).map_err(|d| holes_named(src, d))
}

/// A transformation schema (`holes` lines, `{N}` holes) is not a
/// refinement: its `holes` line is refused pointing at `pomset
/// transformations`, and an error at a `{N}` no line declares says it is
/// an undeclared hole rather than an unexpected `{`.
fn holes_named(src: &str, d: Diagnostics) -> Diagnostics {
    let mut at = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("holes ") {
            let start = at + line.len() - t.len();
            let span = Span::new(start, at + line.trim_end().len());
            return Diagnostic::error(
                "a `holes` line makes this a transformation schema, a family of refinements",
                span,
            )
            .with_label("a hole, filled with each of its values in turn")
            .with_hint("decide its instances with `pomset transformations FILE`; `pomset refine` takes one refinement, with no holes")
            .into();
        }
        at += line.len();
    }
    let hole = |sp: Span| -> Option<&str> {
        let rest = src.get(sp.start..)?.strip_prefix('{')?;
        let name = &rest[..rest.find('}')?];
        let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric());
        plain.then_some(name)
    };
    let named = d.0.into_iter().map(|x| match hole(x.span).filter(|_| x.is_error()) {
        Some(name) => Diagnostic::error(
            format!("`{{{name}}}` is a hole, and no `holes {name} = ...` line declares it"),
            Span::new(x.span.start, x.span.start + name.len() + 2),
        )
        .with_label("an undeclared hole")
        .with_hint(format!(
            "write a value here; or declare it, `holes {name} = v1 v2`, and decide the schema with `pomset transformations FILE`"
        )),
        None => x,
    });
    Diagnostics(named.collect())
}

fn parse_refinement_inner(src: &str, unroll: Option<u32>) -> Result<Refinement, Diagnostics> {
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
            Tok::Ident(w) if depth == 0 && (w == "source" || w == "target") && next_brace => {
                let slot = match w.as_str() {
                    "source" => &mut source,
                    _ => &mut target,
                };
                if let Some((first, _)) = *slot {
                    let d = Diagnostic::error(format!("a second `{w}` block"), Span::new(*s, *e))
                        .with_label(format!("another {w}"))
                        .with_also(Span::new(first, first + w.len()), format!("the first {w}"))
                        .with_hint("a refinement has one `source { ... }` and one `target { ... }`; context threads go after `||`, and a second pair in a file of its own");
                    return Err(d.into());
                }
                masked.replace_range(*s..*e, if w == "source" { "if (1)" } else { "else  " });
                *slot = Some((*s, i));
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
    format!("{QUICK_HEAD}{from}{QUICK_MIDDLE}{to} }}\n")
}

const QUICK_HEAD: &str = "refine quick\nsource { ";
const QUICK_MIDDLE: &str = " }\ntarget { ";

/// The diagnostics of `quick_text(from, to)` located in what the user
/// typed: `(name, text, diagnostics)` with name `--from` or `--to` when
/// every one lies in that fragment (a missing end named as such, never the
/// `}` the wrapper added), else the whole wrapped file.
pub fn quick_located(from: &str, to: &str, d: &Diagnostics) -> (&'static str, String, Diagnostics) {
    // The closing text after each fragment up to its first token: ` }`.
    const TAIL: usize = 2;
    let at_to = QUICK_HEAD.len() + from.len() + QUICK_MIDDLE.len();
    if let Some(moved) = d.within_wrapped(QUICK_HEAD.len(), from.len(), TAIL, "--from") {
        return ("--from", from.to_string(), moved);
    }
    if let Some(moved) = d.within_wrapped(at_to, to.len(), TAIL, "--to") {
        return ("--to", to.to_string(), moved);
    }
    ("--from/--to", quick_text(from, to), d.clone())
}

// ---------------------------------------------------------------- the check

/// Decides `[[source]] ⊇ [[target]]` under `model`: the pomset engine's
/// local check (`Engine::refine_locally`), then, where it finds a target
/// pomset with no source twin, the context search for a test that shows it.
pub fn refine(
    req: &Refinement,
    model: &Model,
    limits: Limits,
) -> Result<RefineReport, RefineError> {
    let mut report = RefineReport::new(req, Verdict::Sound);
    let p = &req.program;
    let pwt = crate::engine::pwt::Pwt;
    let local = pwt.refine_locally(
        p,
        &req.source,
        &req.target,
        model,
        limits.max_pomsets,
        limits.run,
    );
    let (source, target, matching) = match local.map_err(RefineError::Unsupported)? {
        LocalRefinement::Stopped(stop) => {
            report.verdict = Verdict::Unknown;
            // A distinguishing test still settles it: its outcomes are decided.
            contextual(req, model, limits, &mut report);
            if report.counterexample.is_some() {
                report.verdict = Verdict::Unsound;
            }
            report.limit = Some(match report.limit.take() {
                Some(c) => format!("{stop}; the context search: {c}"),
                None => stop,
            });
            return Ok(report);
        }
        LocalRefinement::Denoted {
            source,
            target,
            matching,
        } => (source, target, matching),
    };
    report.source_pomsets = source;
    report.target_pomsets = target;
    report.enumerated = true;
    match matching {
        Matching::Every => {}
        Matching::Interrupted(l) => {
            report.verdict = Verdict::Unknown;
            report.limit = Some(l);
            return Ok(report);
        }
        Matching::Unmatched(u) => {
            report.verdict = Verdict::Unsound;
            report.unmatched = Some(u);
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
    if model.dropped_read == crate::model::DroppedRead::Unchanged {
        // Only the local check reads it: `run` decides no context's outcomes.
        report.limit = Some(
            "no context searched, since run decides no outcome under dropped_read = unchanged"
                .to_string(),
        );
        return;
    }
    let engine = crate::engine::pwt::Pwt;
    report.bound = Some(context::bound_text(bound, &context::vocabulary(req)));
    match context::search_reporting(req, &engine, model, bound, limits.run, limits.progress) {
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
