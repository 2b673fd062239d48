//! The contextual search under any engine: put a refinement's source and
//! target in thread P0 inside the contexts of the grammar (`grammar`: code
//! before and after the fragment, parallel threads), decide both programs
//! with one [`Engine`], and look for an outcome the target reaches and the
//! source never does, or a flag only the target raises.
//!
//! A counterexample rests only on a source decided in full: no limit, no
//! flag, V closed over the context's values (no `values` line unless the
//! refinement declares one, and then no store may leave it), no loop cut by
//! `--unroll`. The outcome is judged as `run` judges `exists`: the
//! condition is written over the names both versions show (a forked
//! thread's registers under P0's name), parsed into each version, and
//! `outcome::verdict::holds` decides it in every state; a register left
//! undetermined (`?`) satisfies no atom, as under `run`. So `run` of the
//! printed source test says Never and of the target test Sometimes.
//!
//! The answer is a distinguishing test, "none in the k contexts of the
//! bound", or unknown with the limit that stopped the search: a cat model
//! has no local check, so this search never says "sound".

use std::collections::BTreeMap;

use super::grammar::{self, Context, Size, Vocabulary};
use crate::engine::{Capability, Engine};
use crate::model::Model;
use crate::outcome::{FlagMeaning, Limits, Outcomes, State};
use crate::refinement::Refinement;
use crate::syntax::{self, core::Program};

/// Contexts a search lists at most: the listing holds them all in memory
/// (about 470 bytes each), so a bound past this is refused by name.
pub const MAX_LISTED: usize = 1_000_000;

/// Whether the contexts of `bound` for `req` are at most `cap`, found by
/// listing at most `cap + 1` of them (so memory and time stay those of
/// `cap`): `Ok(n)` with their number, or `Err(())` when there are more. A
/// command that has no budget (`refine` without `--max-contexts` or
/// `--timeout`) refuses such a bound before its search starts.
pub fn count_at_most(req: &Refinement, bound: Bound, cap: usize) -> Result<usize, ()> {
    let vocab = vocabulary(req);
    let listed = grammar::contexts_within(&vocab, bound.size(), &|n| (n > cap).then(String::new));
    match listed {
        Ok(all) if all.len() <= cap => Ok(all.len()),
        _ => Err(()),
    }
}

/// How far the search looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bound {
    /// Context instructions in all (a guarded reader counts two).
    pub size: usize,
    /// Parallel context threads beside the file's own.
    pub threads: usize,
    /// Contexts tried at most (`None`: every context of the bound).
    pub max_contexts: Option<usize>,
}

impl Default for Bound {
    fn default() -> Bound {
        Bound {
            size: 3,
            threads: 2,
            max_contexts: None,
        }
    }
}

impl Bound {
    /// The bound as the answer names it.
    pub fn text(&self) -> String {
        format!(
            "size ≤ {} with at most {} (the book's context grammar)",
            self.size,
            crate::report::count(self.threads, "parallel thread")
        )
    }

    pub fn size(&self) -> Size {
        Size {
            size: self.size,
            threads: self.threads,
        }
    }
}

/// What the search found.
#[derive(Clone, Debug)]
pub enum Found {
    /// A test whose target version allows an outcome (or raises a flag)
    /// that its source version does not.
    Counterexample(Counterexample),
    /// No context of the bound tells them apart: every one was decided.
    NoneUpTo {
        bound: String,
        /// Contexts in the bound, all tried.
        total: usize,
        /// Of those, the vacuous ones: the source has undefined behaviour
        /// there (a flag its model declares `undefined`, such as a data
        /// race under rc11 or vulkan), so every outcome is allowed to the
        /// target and the context tests nothing.
        vacuous: usize,
        /// Of those, contexts the model does not describe (the source or
        /// the target raises a flag its model declares `unsupported`, such
        /// as a fence under the HRF models): outside the model, they test
        /// nothing either.
        outside: usize,
    },
    /// A limit stopped the search, or left contexts undecided: no verdict.
    Stopped {
        bound: String,
        tried: usize,
        total: usize,
        /// Contexts tried whose source or target a limit left undecided.
        undecided: usize,
        limit: String,
    },
    /// The engine cannot decide these programs, or the bound's contexts
    /// could not be listed (a deadline, too many): no verdict, the reason.
    Unknown(String),
}

/// A distinguishing test, in both versions, and what tells them apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// The test with the target in P0, its condition reached.
    pub target_test: String,
    /// The same test with the source in P0, its condition not reached.
    pub source_test: String,
    /// The condition, or the flag the target alone raises.
    pub witness: Witness,
    /// Contexts tried, this one included, of `total`.
    pub tried: usize,
    pub total: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Witness {
    /// `exists (...)` over the target's names: reached with the target,
    /// never with the source.
    Outcome(String),
    /// A cat model's flag (undefined behaviour) raised with the target alone.
    Flag(String),
}

/// The grammar's vocabulary for `req`: its locations and one more, its
/// constants and one more.
pub fn vocabulary(req: &Refinement) -> Vocabulary {
    let p = &req.program;
    let mut locs: Vec<String> = p.locs.iter().map(|l| l.name.clone()).collect();
    // A location name neither the program nor `locs` uses.
    let fresh = |locs: &[String]| {
        ["z", "w", "u", "v"]
            .iter()
            .map(|s| s.to_string())
            .chain((0..).map(|k| format!("z{k}")))
            .find(|n| !locs.contains(n) && !p.regs.iter().any(|r| &r.name == n))
            .unwrap_or_else(|| "z".into())
    };
    let fragment_locs = (0..locs.len()).collect();
    locs.push(fresh(&locs));
    let mut values: Vec<i64> = constants(&req.source_text)
        .into_iter()
        .chain(constants(&req.target_text))
        .filter(|&v| v > 0 && v < 16)
        .collect();
    values.sort_unstable();
    values.dedup();
    let more = values.last().copied().unwrap_or(0) + 1;
    if values.is_empty() {
        values.push(1);
        if more == 1 {
            values.push(2);
        }
    } else {
        values.push(more);
    }
    let family = p0_family(p);
    let p0_regs = p
        .regs
        .iter()
        .filter(|r| family.contains(&r.thread))
        .map(|r| r.name.clone())
        .collect();
    // `.sc` as a mode, not the start of a storage class (`.sc1`, `.semsc0`).
    let sc_words = |t: &str| {
        t.match_indices(".sc")
            .any(|(i, _)| !t[i + 3..].starts_with(|c: char| c.is_ascii_alphanumeric()))
    };
    let p0 = p.main.first().map(|(t, _)| *t);
    let unset = p
        .unassigned
        .iter()
        .filter(|(t, _)| Some(*t) == p0)
        .map(|(_, name)| name.clone())
        .collect();
    let gpu_words = |t: &str| t.contains(".gpu");
    // A fork's threads are named after the top-level ones and would sit
    // alone, each on a GPU of its own, in a tree that does not list them.
    let forks = |t: &str| t.contains("||");
    let placed = req
        .header
        .lines()
        .any(|l| l.trim_start().starts_with("scopes"));
    let fence_words = |t: &str| t.contains("F.");
    let fence_fragment = fence_words(&req.source_text) || fence_words(&req.target_text);
    // The classic fenced shapes need two locations.
    if fence_fragment && locs.len() < 2 {
        locs.push(fresh(&locs));
    }
    let release_words = |t: &str| {
        [".rel", ".ra", "F.sc"].iter().any(|w| t.contains(w)) || (sc_words(t) && t.contains(":="))
    };
    Vocabulary {
        vulkan: None,
        fence_fragment,
        fragment_releases: release_words(&req.source_text) || release_words(&req.target_text),
        locs,
        values,
        fragment_locs,
        fragment_sc: sc_words(&req.source_text)
            || sc_words(&req.target_text)
            || req.context.iter().any(|t| sc_words(t)),
        p0_regs,
        unset,
        gpu_scoped: (gpu_words(&req.source_text) || gpu_words(&req.target_text))
            && !(forks(&req.source_text) || forks(&req.target_text))
            && !placed
            && req.context.is_empty(),
    }
}

/// The vocabulary for `req` in the qualifiers `engine`'s programs carry
/// (`Engine::qualifiers`): under Vulkan's, the storage classes the
/// fragments and the file's threads use, and each location's class.
pub fn vocabulary_for(req: &Refinement, engine: &dyn Engine) -> Vocabulary {
    let mut vocab = vocabulary(req);
    if engine.qualifiers() == crate::engine::Qualifiers::Vulkan {
        let texts: Vec<&str> = [req.source_text.as_str(), req.target_text.as_str()]
            .into_iter()
            .chain(req.context.iter().map(String::as_str))
            .collect();
        vocab.vulkan = Some(storage_classes(&vocab.locs, &texts));
    }
    vocab
}

/// The storage classes `texts` use: each location's (`x.wk.sc1`, 0 when
/// unwritten), and every class named, in a semantics (`.semsc1`) or on an
/// access; class 0 when none is.
fn storage_classes(locs: &[String], texts: &[&str]) -> grammar::VulkanWords {
    let mut words = grammar::VulkanWords {
        classes: 0,
        class_of: vec![0; locs.len()],
    };
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    for word in texts.iter().flat_map(|t| t.split(|c: char| !is_word(c))) {
        let mut parts = word.split('.');
        let head = parts.next().unwrap_or_default();
        for part in parts {
            let class = |prefix: &str| {
                part.strip_prefix(prefix)
                    .and_then(|n| n.parse::<u8>().ok())
                    .filter(|&n| n < 4)
            };
            if let Some(n) = class("semsc") {
                words.classes |= 1 << n;
            } else if let Some(n) = class("sc") {
                words.classes |= 1 << n;
                if let Some(at) = locs.iter().position(|l| l == head) {
                    words.class_of[at] = n;
                }
            }
        }
    }
    if words.classes == 0 {
        words.classes = 1;
    }
    words
}

/// The integer constants written in a fragment's text.
fn constants(text: &str) -> Vec<i64> {
    text.split(|c: char| !c.is_ascii_digit() && c != '_' && !c.is_alphabetic())
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// Every context of `bound` for `req`, in the order the search tries them.
pub fn contexts(req: &Refinement, bound: Bound) -> (Vocabulary, Vec<Context>) {
    let vocab = vocabulary(req);
    let all = grammar::contexts(&vocab, bound.size());
    (vocab, all)
}

/// Whether one context tells `req`'s source from its target under
/// `engine`: the step of `search`, for checking the enumeration (`None`:
/// it does not, or could not be decided).
pub fn distinguishes(
    req: &Refinement,
    engine: &dyn Engine,
    model: &Model,
    vocab: &Vocabulary,
    ctx: &Context,
) -> Option<Counterexample> {
    let run = crate::transform::table::context_limits(Limits::default());
    match decide_one(req, engine, model, decision_limits(engine, run), vocab, ctx) {
        One::Distinguishes(c) => Some(c),
        _ => None,
    }
}

/// The limits each generated test is decided within: `run`, with every
/// state kept in `Outcomes::states` (no orbits, no product), where the
/// judge reads them.
fn decision_limits(engine: &dyn Engine, run: Limits) -> Limits {
    Limits {
        symmetry: engine.can(Capability::Symmetry),
        orbits: false,
        factor: false,
        listed: None,
        ..run
    }
}

/// The generated tests of one refinement, parsed once for every model
/// that searches them (the table's row: each of its cells tries the same
/// contexts, and parsing each test anew was an eighth of the table's
/// time). Parsing depends only on the test's text and `--unroll`, never on
/// the model, so a shared parse is the one each cell would make.
#[derive(Default)]
pub struct Tests {
    /// By context index: the source's and the target's programs (`None`:
    /// a test that does not parse), in the note's qualifiers.
    parsed: std::cell::RefCell<Vec<Option<std::rc::Rc<Pair>>>>,
    /// The same in Vulkan's (`Engine::qualifiers`): the text differs.
    vulkan: std::cell::RefCell<Vec<Option<std::rc::Rc<Pair>>>>,
}

type Pair = Option<(Program, Program)>;

/// Contexts whose parsed tests `Tests` keeps at most: enough for the
/// table's bound, a bounded memory at larger ones (later contexts are
/// parsed by each cell, as before).
const KEPT: usize = 4096;

impl Tests {
    /// The parsed source and target of context `k`.
    fn get(&self, k: usize, vulkan: bool, parse: impl FnOnce() -> Pair) -> std::rc::Rc<Pair> {
        if k >= KEPT {
            return std::rc::Rc::new(parse());
        }
        let kept = if vulkan { &self.vulkan } else { &self.parsed };
        if let Some(Some(p)) = kept.borrow().get(k) {
            return p.clone();
        }
        let p = std::rc::Rc::new(parse());
        let mut all = kept.borrow_mut();
        if all.len() <= k {
            all.resize(k + 1, None);
        }
        all[k] = Some(p.clone());
        p
    }
}

/// Searches the contexts within `bound` for a test telling `req`'s source
/// and target apart under `engine`, each program decided within `run`
/// (its deadline stops the whole search).
pub fn search(
    req: &Refinement,
    engine: &dyn Engine,
    model: &Model,
    bound: Bound,
    run: Limits,
) -> Found {
    search_sharing(req, engine, model, bound, run, &Tests::default(), None)
}

/// `search`, calling `progress` with (contexts tried, contexts in the
/// bound) before each context: a front end's progress line.
pub fn search_reporting(
    req: &Refinement,
    engine: &dyn Engine,
    model: &Model,
    bound: Bound,
    run: Limits,
    progress: Option<Progress>,
) -> Found {
    search_sharing(req, engine, model, bound, run, &Tests::default(), progress)
}

/// What a progress line is told: (contexts tried, contexts in the bound).
pub type Progress = fn(usize, usize);

/// `search`, with the generated tests parsed once in `tests` for every
/// search of `req` at `bound` that shares it (one per model).
pub fn search_sharing(
    req: &Refinement,
    engine: &dyn Engine,
    model: &Model,
    bound: Bound,
    run: Limits,
    tests: &Tests,
    progress: Option<Progress>,
) -> Found {
    let limits = decision_limits(engine, run);
    let vocab = vocabulary_for(req, engine);
    // A placement on two GPUs changes nothing an engine blind to placement
    // decides: those contexts are listed (their indices key `tests`, shared
    // across models) but skipped, and the bound does not name them.
    let placed = engine.reads_placement();
    let named = bound_text(
        bound,
        &Vocabulary {
            gpu_scoped: vocab.gpu_scoped && placed,
            ..vocab.clone()
        },
    );
    // Listing the bound's contexts is a search of its own: the deadline
    // and a cap on their number hold there too. The clock is read every
    // 4096 steps, so a small bound is always listed whole and a deadline
    // then stops the search between contexts.
    let steps = std::cell::Cell::new(0usize);
    let listed = grammar::contexts_within(&vocab, bound.size(), &|n| {
        if n >= MAX_LISTED {
            return Some(format!(
                "the contexts of {named} are more than the {MAX_LISTED} a search lists (lower --context-size or --context-threads)"
            ));
        }
        steps.set(steps.get() + 1);
        if !steps.get().is_multiple_of(4096) {
            return None;
        }
        crate::outcome::limits::interrupted(run.deadline, run.cancel)
            .map(|l| format!("stopped by {l} while listing the contexts of {named}"))
    });
    let all = match listed {
        Ok(all) => all,
        Err(why) => return Found::Unknown(why),
    };
    let all: Vec<(usize, &Context)> = all
        .iter()
        .enumerate()
        .filter(|(_, c)| placed || c.apart == 0)
        .collect();
    let total = all.len();
    let stopped = |tried, undecided, limit| stopped(&named, tried, total, undecided, limit);
    // A register some thread of the source reads before any assignment,
    // and that no `set` of the grammar gives a value (one of the file's
    // own threads reads it), holds what the code before it left there:
    // the source's outcomes are never all of them, in any context.
    if let Some(why) = reads_unset_register(req, &vocab) {
        return stopped(total, total, Some(why));
    }
    let budget = bound.max_contexts.unwrap_or(usize::MAX);
    let (mut vacuous, mut outside, mut undecided, mut limit) = (0, 0, 0, None::<String>);
    for (k, &(at, ctx)) in all.iter().enumerate() {
        if k >= budget {
            limit = Some(format!("--max-contexts {budget}"));
            return stopped(k, undecided, limit);
        }
        if let Some(l) = crate::outcome::limits::interrupted(run.deadline, run.cancel) {
            return stopped(k, undecided, Some(l));
        }
        if let Some(p) = progress {
            p(k, total);
        }
        let parsed = tests.get(at, vocab.vulkan.is_some(), || parse_pair(req, &vocab, ctx));
        match decide_parsed(req, engine, model, limits, &vocab, ctx, &parsed) {
            One::Distinguishes(mut c) => {
                c.tried = k + 1;
                c.total = total;
                return Found::Counterexample(c);
            }
            One::Same => {}
            One::SourceFlagged => vacuous += 1,
            One::Outside => outside += 1,
            One::Undecided(l) => {
                undecided += 1;
                limit.get_or_insert(l);
            }
            One::Limited(l) => {
                // The limit as the user names it (`--timeout 3 s`), and where.
                let l = match l.strip_prefix("--timeout ") {
                    Some(secs) => format!("--timeout {secs} s"),
                    None => l,
                };
                let l = format!("{l} while deciding generated test {} of {total}", k + 1);
                return stopped(k + 1, undecided + 1, Some(l));
            }
            One::Refused(why) => return Found::Unknown(why),
        }
    }
    match limit {
        Some(l) => stopped(total, undecided, Some(l)),
        // Every context outside the model: nothing was tested.
        None if total > 0 && outside == total => Found::Unknown(format!(
            "the model describes none of the {total} contexts of {named} (in each the source or the target raises a flag it declares `unsupported`)"
        )),
        None => Found::NoneUpTo {
            bound: named,
            total,
            vacuous,
            outside,
        },
    }
}

/// The bound as the answer names it, with the values the grammar's `set`s
/// give the registers the fragment reads before assigning.
pub fn bound_text(bound: Bound, vocab: &Vocabulary) -> String {
    let mut placed = if vocab.gpu_scoped {
        format!("{}, on one GPU or split over two", bound.text())
    } else {
        bound.text()
    };
    if vocab.fence_fragment {
        placed.push_str(", and the classic fenced shapes around it");
    }
    if vocab.vulkan.is_some() {
        placed.push_str(
            ", in Vulkan's qualifiers (the fragment's unqualified statements by the mapping pwt:vulkan)",
        );
    }
    if vocab.unset.is_empty() {
        return placed;
    }
    let values: Vec<String> = vocab.set_values().iter().map(i64::to_string).collect();
    format!(
        "{}, {} first set to each of {}",
        placed,
        vocab
            .unset
            .iter()
            .map(|q| format!("`{q}`"))
            .collect::<Vec<_>>()
            .join(", "),
        values.join(", ")
    )
}

fn stopped(
    bound: &str,
    tried: usize,
    total: usize,
    undecided: usize,
    limit: Option<String>,
) -> Found {
    Found::Stopped {
        bound: bound.to_string(),
        tried,
        total,
        undecided,
        limit: limit.unwrap_or_default(),
    }
}

/// What one context says.
enum One {
    Distinguishes(Counterexample),
    Same,
    /// The source raised a flag its model declares `undefined`: nothing to
    /// tell apart.
    SourceFlagged,
    /// The source or the target raised a flag its model declares
    /// `unsupported`: the model does not describe it.
    Outside,
    /// A value outside a declared V, a cut loop, no execution: no verdict
    /// from this context.
    Undecided(String),
    /// A limit stopped a generated test: the bound cannot be covered, so
    /// the search stops here (every context of a fragment too large to
    /// decide would stop at it too).
    Limited(String),
    /// The engine cannot decide the programs at all.
    Refused(String),
}

fn decide_one(
    req: &Refinement,
    engine: &dyn Engine,
    model: &Model,
    limits: Limits,
    vocab: &Vocabulary,
    ctx: &Context,
) -> One {
    let parsed = parse_pair(req, vocab, ctx);
    decide_parsed(req, engine, model, limits, vocab, ctx, &parsed)
}

/// The source's and the target's test in `ctx`, parsed.
fn parse_pair(req: &Refinement, vocab: &Vocabulary, ctx: &Context) -> Pair {
    let text = |fragment: &str| context_test(req, vocab, ctx, fragment, "");
    match (
        parse(req, &text(&req.source_text)),
        parse(req, &text(&req.target_text)),
    ) {
        (Ok(s), Ok(t)) => Some((in_model(vocab, s.program), in_model(vocab, t.program))),
        _ => None,
    }
}

/// A generated program as the model reads it: under Vulkan's qualifiers,
/// the statements written without any (the fragment's, the file's threads')
/// through the mapping of `--mapping pwt:vulkan` (the book's "Vulkan"): a
/// note-language release gains the storage classes' semantics and
/// MakeAvailable, as a compiler would emit it. A statement that carries
/// Vulkan qualifiers, as every context instruction does, is left as written.
fn in_model(vocab: &Vocabulary, p: Program) -> Program {
    use crate::engine::axiomatic::{Lowering, VulkanReading};
    match vocab.vulkan {
        Some(_) => Lowering::Vulkan(VulkanReading::DEFAULT).apply(&p),
        None => p,
    }
}

/// A generated test as the answer prints it: formatted, and under Vulkan's
/// qualifiers as the model reads it (`in_model`), so that `run --model`
/// decides the printed test as the search did.
fn shown(req: &Refinement, vocab: &Vocabulary, text: &str) -> String {
    if vocab.vulkan.is_none() {
        return printed(text);
    }
    match parse(req, text) {
        Ok(t) => syntax::print::core_program(&in_model(vocab, t.program)),
        Err(_) => printed(text),
    }
}

/// The test of `fragment` (the source's or the target's) in `ctx`, with
/// condition `cond`.
fn context_test(
    req: &Refinement,
    vocab: &Vocabulary,
    ctx: &Context,
    fragment: &str,
    cond: &str,
) -> String {
    let (p0, threads) = ctx.texts(vocab, fragment);
    test_text(req, ctx.scopes_line().as_deref(), &p0, &threads, cond)
}

/// `decide_one` on the tests `parse_pair` made of `ctx`.
fn decide_parsed(
    req: &Refinement,
    engine: &dyn Engine,
    model: &Model,
    limits: Limits,
    vocab: &Vocabulary,
    ctx: &Context,
    parsed: &Pair,
) -> One {
    let text = |fragment: &str, cond: &str| context_test(req, vocab, ctx, fragment, cond);
    let Some((src, tgt)) = parsed else {
        return One::Undecided("a generated test that does not parse".into());
    };
    if let Some(why) = incomplete(src) {
        return One::Undecided(why);
    }
    let so = match engine.outcomes(src, model, limits) {
        Ok(o) => o,
        Err(why) => return One::Refused(why),
    };
    if let Some(l) = so.limit {
        return One::Limited(l);
    }
    if so.states.is_empty() && so.flags.is_empty() {
        // `run` reads no state as Unknown, never as Never.
        return One::Undecided("the source has no execution".into());
    }
    // What the source's flags mean is the model's statement: a program
    // with undefined behaviour allows every outcome (the context is
    // vacuous); a defined flag changes nothing; a program the model does
    // not describe, or whose flag it does not explain, gives no verdict.
    let meaning = |f: &str| engine.flag_meaning(f);
    if so
        .flags
        .iter()
        .any(|(f, _)| meaning(f) == FlagMeaning::Undefined)
    {
        return One::SourceFlagged;
    }
    if so
        .flags
        .iter()
        .any(|(f, _)| meaning(f) == FlagMeaning::Unsupported)
    {
        return One::Outside;
    }
    if let Some((f, _)) = so
        .flags
        .iter()
        .find(|(f, _)| meaning(f) != FlagMeaning::Defined)
    {
        return One::Undecided(format!(
            "the source raises the flag {f} ({})",
            meaning(f).gloss()
        ));
    }
    let to = match engine.outcomes(tgt, model, limits) {
        Ok(o) => o,
        Err(why) => return One::Refused(why),
    };
    // A target the model does not describe tells nothing either.
    if to
        .flags
        .iter()
        .any(|(f, _)| meaning(f) == FlagMeaning::Unsupported)
    {
        return One::Outside;
    }
    // A target that alone has undefined behaviour is a counterexample
    // whatever its outcomes.
    if let Some((f, _)) = to
        .flags
        .iter()
        .find(|(f, _)| meaning(f) == FlagMeaning::Undefined && so.flags.iter().all(|g| &g.0 != f))
    {
        return One::Distinguishes(Counterexample {
            target_test: shown(req, vocab, &text(&req.target_text, "")),
            source_test: shown(req, vocab, &text(&req.source_text, "")),
            witness: Witness::Flag(f.clone()),
            tried: 0,
            total: 0,
        });
    }
    // A target flag the model does not explain may be undefined behaviour
    // the source lacks: only an outcome can then tell them apart (the
    // source being defined, a new outcome is one under either reading).
    let unexplained = to
        .flags
        .iter()
        .find(|(f, _)| !matches!(meaning(f), FlagMeaning::Defined | FlagMeaning::Undefined));
    let same = || match unexplained {
        Some((f, _)) => One::Undecided(format!(
            "the target raises the flag {f} ({})",
            meaning(f).gloss()
        )),
        None => One::Same,
    };
    // The target's states are what it reaches even if a limit stopped it
    // (each is a real execution); only the source must be complete.
    let Some((tc, sc)) = witness(src, &so, tgt, &to) else {
        return same();
    };
    let (s_test, t_test) = (text(&req.source_text, &sc), text(&req.target_text, &tc));
    // The judge of `run`, on the parsed conditions, has the last word.
    if !reaches(req, &t_test, &to) || reaches(req, &s_test, &so) {
        return same();
    }
    One::Distinguishes(Counterexample {
        target_test: shown(req, vocab, &t_test),
        source_test: shown(req, vocab, &s_test),
        witness: Witness::Outcome(
            tc.trim()
                .trim_start_matches("exists (")
                .split(")\n")
                .next()
                .unwrap_or_default()
                .to_string(),
        ),
        tried: 0,
        total: 0,
    })
}

/// The first register the source (in the empty context, beside the file's
/// threads) reads before any assignment, as the checker's warning names it.
fn reads_unset_register(req: &Refinement, vocab: &Vocabulary) -> Option<String> {
    let empty = Context {
        sets: vec![0; vocab.unset.len()],
        pre: None,
        post: None,
        threads: vec![],
        apart: 0,
    };
    let (p0, threads) = empty.texts(vocab, &req.source_text);
    let src = parse(req, &test_text(req, None, &p0, &threads, ""))
        .ok()?
        .program;
    let (thread, name) = src.unassigned.first()?;
    let thread = &src.threads.get(*thread as usize)?.name;
    Some(format!(
        "the source register `{name}` is read before any assignment in {thread}"
    ))
}

/// Why a source program's outcomes cannot be taken as all of them.
fn incomplete(p: &Program) -> Option<String> {
    if let Some(left) = p.values_left.first() {
        return Some(format!("a store outside the declared V ({left})"));
    }
    p.unroll
        .map(|n| format!("--unroll {n} (a loop needs more iterations)"))
}

/// Whether `test`'s first condition holds in some state of `o`, as `run`
/// judges `exists`.
fn reaches(req: &Refinement, test: &str, o: &Outcomes) -> bool {
    let Ok(t) = parse(req, test) else {
        return false;
    };
    let Some(c) = t.program.conditions.first() else {
        return false;
    };
    o.states
        .keys()
        .any(|s| crate::outcome::verdict::holds(&t.program, s, &c.prop))
}

/// A generated test, parsed as the refinement was (`--unroll`).
fn parse(req: &Refinement, text: &str) -> Result<syntax::Litmus, syntax::Diagnostics> {
    syntax::parse_with(
        text,
        syntax::check::Options {
            unroll: req.unroll,
            ..Default::default()
        },
    )
}

fn printed(t: &str) -> String {
    syntax::format(t).unwrap_or_else(|_| t.to_string())
}

/// The test with `p0` in P0, the file's threads and `threads` after it,
/// then `cond`. V is closed over the test's values unless the refinement
/// declares it.
fn test_text(
    req: &Refinement,
    scopes: Option<&str>,
    p0: &str,
    threads: &[String],
    cond: &str,
) -> String {
    let mut t = format!(
        "litmus {}-CTX \"refinement {}: the target in P0; with the source there, the outcome is forbidden\"\n",
        req.name, req.name
    );
    // A declared V bounds the fragments' local check; a generated test
    // takes V closed over its own values, so no store leaves it.
    let mut header: Vec<&str> = req
        .header
        .lines()
        .filter(|l| !l.trim_start().starts_with("values"))
        .collect();
    // The placement's `scopes:` line goes where the header takes it:
    // before a `model` block.
    if let Some(line) = scopes {
        let at = header
            .iter()
            .position(|l| l.trim_start().starts_with("model"))
            .unwrap_or(header.len());
        header.insert(at, line);
    }
    t.push_str(&format!("{}\n{p0}\n", header.join("\n")));
    for th in req.context.iter().chain(threads) {
        t.push_str(&format!("|| {th}\n"));
    }
    t.push_str(cond);
    t
}

/// The observable names of a program's states: each state key (`P1:a`,
/// `[x]`) with the name a condition of the other version would use. The
/// registers of P0's forks go under P0's name; a name two threads of P0's
/// family share is left out (no condition could name it alike in both).
fn observables(p: &Program) -> BTreeMap<String, String> {
    let family = p0_family(p);
    let name_of = |t: u32| {
        p.threads
            .get(t as usize)
            .map(|i| i.name.clone())
            .unwrap_or_default()
    };
    let p0 = family.first().map(|&t| name_of(t)).unwrap_or_default();
    let mut out = BTreeMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for r in p.regs.iter().filter(|r| !r.fresh) {
        let key = format!("{}:{}", name_of(r.thread), r.name);
        let canon = if family.contains(&r.thread) {
            let c = format!("{p0}:{}", r.name);
            *seen.entry(c.clone()).or_default() += 1;
            c
        } else {
            key.clone()
        };
        out.insert(key, canon);
    }
    out.retain(|_, c| seen.get(c).is_none_or(|&n| n == 1));
    out
}

/// P0 and the threads it forks.
fn p0_family(p: &Program) -> Vec<u32> {
    match p.main.first() {
        Some((t, body)) => crate::outcome::state::reported_threads(*t, body),
        None => vec![],
    }
}

/// A target state no source state agrees with on the names both show
/// (determined values only): the `exists` condition for each version.
fn witness(src: &Program, so: &Outcomes, tgt: &Program, to: &Outcomes) -> Option<(String, String)> {
    let (s_names, t_names) = (observables(src), observables(tgt));
    let canon = |names: &BTreeMap<String, String>, st: &State| -> BTreeMap<String, Option<i64>> {
        st.regs
            .iter()
            .filter_map(|(k, v)| names.get(k).map(|c| (c.clone(), *v)))
            .chain(st.mem.iter().map(|(k, v)| (format!("[{k}]"), *v)))
            .collect()
    };
    let sources: Vec<BTreeMap<String, Option<i64>>> =
        so.states.keys().map(|s| canon(&s_names, s)).collect();
    let targets: Vec<BTreeMap<String, Option<i64>>> =
        to.states.keys().map(|s| canon(&t_names, s)).collect();
    // The names both versions show: a location or register only one of
    // them has tells nothing about the other's outcomes.
    let shown = |states: &[BTreeMap<String, Option<i64>>]| -> std::collections::BTreeSet<String> {
        states.iter().flat_map(|s| s.keys().cloned()).collect()
    };
    let (s_shown, t_shown) = (shown(&sources), shown(&targets));
    let common: Vec<&String> = s_shown.intersection(&t_shown).collect();
    for t in &targets {
        let atoms: Vec<(&String, i64)> = t
            .iter()
            .filter(|(k, _)| common.contains(k))
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        if atoms.is_empty() {
            continue;
        }
        let reached = sources
            .iter()
            .any(|s| atoms.iter().all(|(k, v)| s.get(*k) == Some(&Some(*v))));
        if reached {
            continue;
        }
        let cond = |names: &BTreeMap<String, String>| {
            let actual = |c: &str| {
                names
                    .iter()
                    .find(|(_, d)| d.as_str() == c)
                    .map_or(c.to_string(), |(k, _)| k.clone())
            };
            let parts: Vec<String> = atoms
                .iter()
                .map(|(k, v)| format!("{} = {v}", actual(k)))
                .collect();
            format!("exists ({})\n  expect allowed\n", parts.join(" /\\ "))
        };
        return Some((cond(&t_names), cond(&s_names)));
    }
    None
}

/// The answer of the context search, as `refine --model` prints it.
pub fn found_text(head: &str, found: &Found) -> String {
    match found {
        Found::Counterexample(c) => {
            let at = format!("context {} of {}", c.tried, c.total);
            let what = match &c.witness {
                Witness::Outcome(o) => {
                    format!("the target reaches {o}, the source never does")
                }
                Witness::Flag(f) => {
                    format!("the target raises the flag {f}, the source does not")
                }
            };
            format!(
                "{head}: unsound\nDistinguishing test ({at}): {what}\n{}",
                c.target_test
            )
        }
        Found::NoneUpTo {
            bound,
            total,
            vacuous,
            outside,
        } => {
            format!(
                "{head}: {} in the {} of {bound}, every one decided{}\n",
                if mostly_vacuous(*total, *vacuous + *outside) {
                    "vacuous: no counterexample"
                } else {
                    "no counterexample"
                },
                crate::report::count(*total, "context"),
                vacuous_text(*total, *vacuous, *outside)
            )
        }
        Found::Stopped { .. } => {
            format!("{head}: unknown: {}\n", super::table::stopped_text(found))
        }
        Found::Unknown(why) => format!("{head}: unknown: {why}\n"),
    }
}

/// Whether most of a bound's contexts were vacuous (the source undefined
/// there): the answer then says so first, as the table's word `vacuous`.
pub fn mostly_vacuous(total: usize, vacuous: usize) -> bool {
    vacuous > 0 && vacuous * 2 > total
}

/// `; N of the M are vacuous ...`, or nothing: the contexts that tested
/// nothing, undefined (`vacuous`) or outside the model (`outside`).
pub fn vacuous_text(total: usize, vacuous: usize, outside: usize) -> String {
    let mut parts = Vec::new();
    if vacuous > 0 {
        parts.push(format!(
            "{vacuous} of the {total} are vacuous (the source has undefined behaviour there, a flag its model declares `undefined`: every outcome allowed)"
        ));
    }
    if outside > 0 {
        parts.push(format!(
            "{outside} of the {total} are outside the model (the source or the target raises a flag it declares `unsupported`)"
        ));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "; {}, so {} tested",
        parts.join("; "),
        crate::report::count(total - vacuous - outside, "context")
    )
}
