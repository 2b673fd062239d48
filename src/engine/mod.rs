//! The engines, as peers: every way to decide a test implements one
//! interface, [`Engine`], and is named one way, [`named`].
//!
//! | name            | engine                                   | module       |
//! |-----------------|------------------------------------------|--------------|
//! | `pwt`           | the pomset semantics (Fig. 1, §1.3)      | `pwt`        |
//! | `pwt:reference` | the same, literally (tiny tests only)     | `reference`  |
//! | `sc`            | sequential consistency by interleaving   | `sc`         |
//! | `rc11`, `ptx`, … | a bundled cat model (`cat::BUNDLED`)     | `axiomatic`  |
//! | `FILE.cat`      | a cat model read from a file             | `axiomatic`  |
//!
//! A name may carry model options in brackets, `pwt[c7a=direct,merge=multi]`,
//! set over the file's `model {}` block and `--set` (quote it in a shell).
//!
//! An engine returns outcomes ([`crate::outcome`]); [`decide`] turns them
//! into the one [`Report`] every front end prints. What an engine does
//! beyond deciding is a [`Capability`] it declares; asking an engine for one
//! it lacks is refused by name ([`require`]), never by a front end's `match`.
//!
//! Architecture invariant: no engine imports another engine, and nothing
//! here imports a front end (`tests/it/layering.rs`). Adding a model is one
//! file under `engine/` plus a line in [`NATIVE`] (or one `.cat` file plus
//! a line in `cat::BUNDLED`).

pub mod axiomatic;
pub mod pwt;
pub mod reference;
pub mod sc;

use crate::model::Model;
use crate::outcome::{Limits, Outcomes};
use crate::render::draw::{DrawOptions, Drawn};
use crate::report::Report;
use crate::syntax::core::{Program, Stmt};
use crate::syntax::Litmus;

/// What an engine may do beyond listing a test's final states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// `run --verdict-only`: a search directed by each condition.
    VerdictOnly,
    /// Searching one arrangement of interchangeable threads (and
    /// `Limits::orbits`: states kept one per orbit).
    Symmetry,
    /// `explain`: why an outcome is reached or not.
    Explain,
    /// `draw`, `run --draw`: pictures of what reaches an outcome.
    Draw,
    /// `pomsets`, `run --draw`: the pomsets themselves.
    Pomsets,
    /// A file's `expect` lines and allow/forbid state the note's verdicts:
    /// only an engine of the pomset semantics checks them.
    Expectations,
    /// The Vulkan extension's constructs (barriers, availability and
    /// visibility qualifiers, the `sg` scope): a model that gives them a
    /// meaning; the others refuse a test that has them.
    Vulkan,
    /// `refine`'s pomset-level check (the note's refinement: every target
    /// pomset is a source pomset, `Engine::refine_locally`), which can prove a
    /// transformation sound; an engine without it has only the context
    /// search, which never says "sound".
    LocalRefine,
    /// Deciding a spin loop as its last pass (`syntax::spin`): exact for
    /// this engine, by the argument in the book's "Spin loops". Only sc
    /// declares it: the pomset semantics' dropped reads and the cat models'
    /// differences and flags break the argument.
    SpinReduction,
    /// Strengthening one access's mode (reads rlx, acq, sc; writes rlx,
    /// rel, sc; each half of an RMW likewise) never adds a final state whose
    /// values are all determined: what `distinguish` relies on to give a
    /// program the verdict `same` from its mode variants
    /// (`distinguish::lattice`). Declared by sc (which ignores modes), pwt
    /// and the bundled cat models the book's "Mode lattice" argues for, each
    /// checked by a property test; never by a model with options set or a
    /// `.cat` file of the user's.
    StrongerModes,
    /// As `StrongerModes`, for every final state, those with a `?` value
    /// included: `distinguish` then takes a distinguishing program's whole
    /// states from its mode variants instead of deciding it
    /// (`distinguish::lattice`). Declared by pwt alone, whose argument in
    /// the book's "The mode lattice" reads a whole final state off a
    /// pomset; checked by the same property test.
    StrongerModesEveryState,
    /// No mode on a chain (see `StrongerModes`) changes a final state or a
    /// flag: every mode variant of a program has its skeleton's outcome, so
    /// `distinguish` decides a skeleton's weakest variant only. Declared by
    /// sc alone, whose interleavings never read a mode; checked by the same
    /// property test.
    ModeBlind,
    /// Every final state the `sc` engine gives a program, this model gives
    /// too, unless it flags the program: SC's states are a floor under
    /// every mode variant's, so `distinguish` stops halving a skeleton's
    /// interval once its weaker end has no determined state beyond SC's.
    /// Declared by sc, pwt (`tests/it/sc_inclusion.rs`) and the bundled cat
    /// models `cat::INCLUDES_SC` names, each argued in the book's "The mode
    /// lattice" and checked by a property test.
    IncludesSc,
}

impl Capability {
    /// The flag or command that asks for it, for a refusal.
    pub fn asked_by(self) -> &'static str {
        match self {
            Capability::VerdictOnly => "--verdict-only",
            Capability::Symmetry => "thread symmetry",
            Capability::Explain => "`explain`",
            Capability::Draw => "`draw` and --draw",
            Capability::Pomsets => "`pomsets` and `run --draw`",
            Capability::Expectations => "the file's expectations",
            Capability::Vulkan => "the Vulkan extension's constructs",
            Capability::LocalRefine => "the pomset-level refinement check",
            Capability::SpinReduction => "the spin-loop reduction",
            Capability::StrongerModes => "the mode lattice of `distinguish`",
            Capability::StrongerModesEveryState => {
                "the mode lattice of `distinguish` (every state, `?` included)"
            }
            Capability::ModeBlind => "the mode lattice of `distinguish` (modes ignored)",
            Capability::IncludesSc => "the mode lattice of `distinguish` (SC's states as a floor)",
        }
    }
}

/// The qualifiers a model's programs carry (`Engine::qualifiers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qualifiers {
    /// The note's language: modes and scopes.
    Note,
    /// Vulkan's: a release or acquire synchronises only through the
    /// storage classes its semantics name, a plain access is seen only
    /// through availability and visibility.
    Vulkan,
}

/// What the local refinement check found (`Engine::refine_locally`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalRefinement {
    /// A limit stopped denoting the fragments, named.
    Stopped(String),
    /// Both fragments denoted: how many local pomsets each has, and how
    /// the target's matched the source's.
    Denoted {
        source: usize,
        target: usize,
        matching: Matching,
    },
}

/// How the target's pomsets matched the source's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Matching {
    /// Every target pomset is a source pomset: the refinement is sound.
    Every,
    /// The first target pomset with no source twin, shown with the closest
    /// source pomset's difference.
    Unmatched(String),
    /// The deadline or the cancel flag stopped the matching, named.
    Interrupted(String),
}

/// One way to decide a test.
pub trait Engine: Send + Sync {
    /// The name it was chosen by (`pwt`, `rc11`, a file's name).
    fn name(&self) -> &str;

    /// Whether it offers `c`.
    fn can(&self, c: Capability) -> bool;

    /// The final states of `p` under `model`'s options within `limits`, or
    /// the sentence saying why it cannot decide `p`.
    fn outcomes(&self, p: &Program, model: &Model, limits: Limits) -> Result<Outcomes, String>;

    /// The model options this engine decides under: `model` (the file's
    /// `model {}` block with `--set`), with the options its name carries
    /// (`pwt[c7a=direct]`) set over it. The report judges expectations
    /// under these.
    fn options(&self, model: &Model) -> Model {
        *model
    }

    /// `Report::model`: how the report names the model (by default the
    /// options `model` sets).
    fn report_model(&self, _model: &Model) -> Option<Vec<String>> {
        None
    }

    /// The qualifiers its programs carry, which a generated program (a
    /// refinement's context) must write to mean what a program of this
    /// model would: the note's language, or Vulkan's storage-class
    /// semantics, availability and visibility (a cat model that reads the
    /// semantics' storage classes, `SEMSC0` to `SEMSC3`).
    fn qualifiers(&self) -> Qualifiers {
        Qualifiers::Note
    }

    /// What a flag this engine raises means (`FlagMeaning`): a cat model's
    /// own declaration (`undefined data-race`); `Undeclared` for a flag it
    /// does not declare. The native engines raise no flag.
    fn flag_meaning(&self, _flag: &str) -> crate::outcome::FlagMeaning {
        crate::outcome::FlagMeaning::Undeclared
    }

    /// Why a verdict of `p` under this model may surprise its reader, one
    /// sentence each (a cat model's releases that order nothing without
    /// storage classes): added to the report's warnings by `decide`, so
    /// every front end says it where it shows the verdict. Not a limit and
    /// not a note on the states (`Outcomes::notes`, which a sweep reads as
    /// incomplete): the states are whole.
    fn hints(&self, _p: &Program) -> Vec<String> {
        Vec::new()
    }

    /// Whether it reads the model options (`Model`) at all: SC and the cat
    /// models decide the same whatever they are set to.
    fn reads_options(&self) -> bool {
        true
    }

    /// Whether where the threads sit (a test's `scopes:` tree) can change
    /// what it decides: false only where nothing it judges reads the
    /// placement (SC; a cat model with no `same-cta`, `same-gpu`,
    /// `per-scope` or Vulkan name), so a test placed otherwise has the
    /// same outcomes and the context search need not try it.
    fn reads_placement(&self) -> bool {
        true
    }

    /// Takes a lowering (`--mapping pwt:vulkan` sets the Vulkan one on its
    /// target); false when the engine has no use for one.
    fn lower(&mut self, _lowering: axiomatic::lower::Lowering) -> bool {
        false
    }

    /// What deciding `p` found, kept to decide `p`'s mode variants without
    /// a search each (`axiomatic::Found`); `None` when the engine keeps
    /// nothing of the kind, or nothing that is sound for its model.
    fn found(&self, _p: &Program, _limits: Limits) -> Option<Result<axiomatic::Found, String>> {
        None
    }

    /// Each condition's verdict alone (`Capability::VerdictOnly`).
    fn verdicts(&self, p: &Program, model: &Model, _limits: Limits) -> Report {
        Report::unsupported(p, model, lacks(self.name(), Capability::VerdictOnly))
    }

    /// `explain`'s text for the conditions `chosen` (`Capability::Explain`).
    fn explain(
        &self,
        _p: &Program,
        _model: &Model,
        _chosen: &[usize],
        _limits: &Limits,
    ) -> Result<String, String> {
        Err(lacks(self.name(), Capability::Explain))
    }

    /// The pictures `draw` renders (`Capability::Draw`), with what they
    /// show ("pomsets", "executions").
    fn pictures(
        &self,
        _test: &Litmus,
        _model: &Model,
        _opts: &DrawOptions,
    ) -> Result<(Drawn, &'static str), String> {
        Err(lacks(self.name(), Capability::Draw))
    }

    /// `refine`'s local check (`Capability::LocalRefine`): whether every
    /// pomset of `target` is one of `source`'s, both fragments of `p`'s
    /// first thread, with at most `max_pomsets` local pomsets each.
    fn refine_locally(
        &self,
        _p: &Program,
        _source: &Stmt,
        _target: &Stmt,
        _model: &Model,
        _max_pomsets: usize,
        _limits: Limits,
    ) -> Result<LocalRefinement, String> {
        Err(lacks(self.name(), Capability::LocalRefine))
    }
}

/// The sentence refusing capability `c` of the engine named `name`.
pub fn lacks(name: &str, c: Capability) -> String {
    let offering: Vec<&str> = NATIVE
        .iter()
        .filter(|n| (n.make)().can(c))
        .map(|n| n.name)
        .collect();
    let cats = if cat_can(c) {
        " and the cat models"
    } else {
        ""
    };
    let verb = if offering.len() == 1 && cats.is_empty() {
        "does"
    } else {
        "do"
    };
    format!(
        "the model `{name}` does not offer {}; {}{cats} {verb}",
        c.asked_by(),
        offering.join(", ")
    )
}

/// Refuses `c` by name when `engine` lacks it.
pub fn require(engine: &dyn Engine, c: Capability) -> Result<(), String> {
    if engine.can(c) {
        Ok(())
    } else {
        Err(lacks(engine.name(), c))
    }
}

fn cat_can(c: Capability) -> bool {
    axiomatic::CAPABILITIES.contains(&c)
}

/// An engine that is not a cat model: its name, what it is, how to make it.
pub struct Native {
    pub name: &'static str,
    pub about: &'static str,
    pub make: fn() -> Box<dyn Engine>,
}

/// The engines that are not cat models, by name.
pub const NATIVE: &[Native] = &[
    Native {
        name: "pwt",
        about: "the pomset semantics (the default)",
        make: || Box::new(pwt::Pwt),
    },
    Native {
        name: "pwt:reference",
        about: "the pomset semantics by the literal reference engine (tiny tests only)",
        make: || Box::new(reference::Reference),
    },
    Native {
        name: "sc",
        about: "sequential consistency by interleaving",
        make: || Box::new(sc::Sc),
    },
];

/// Why a model name names no model.
#[derive(Debug)]
pub enum NameError {
    /// No such model, or a file that cannot be read; one line.
    Unknown(String),
    /// A cat file with errors, to render against its text.
    Cat(Box<crate::cat::CatError>, String),
}

impl NameError {
    /// One line for a front end that cannot render a cat file's errors.
    pub fn line(&self) -> String {
        match self {
            NameError::Unknown(why) => why.clone(),
            NameError::Cat(_, spec) => format!("the model `{spec}` has errors"),
        }
    }
}

/// The engine a model name names: `pwt`, `pwt:reference`, `sc`, a bundled
/// cat model or a `.cat` file, each optionally with `[OPTION=VALUE,...]`.
pub fn named(spec: &str) -> Result<Box<dyn Engine>, NameError> {
    named_from(spec, true)
}

/// As `named`, without reading files: only the native and bundled models
/// (the explorer, whose requests may not name files).
pub fn named_bundled(spec: &str) -> Result<Box<dyn Engine>, NameError> {
    named_from(spec, false)
}

fn named_from(spec: &str, files: bool) -> Result<Box<dyn Engine>, NameError> {
    let (name, sets) = split_options(spec).map_err(NameError::Unknown)?;
    // A model's name in any case (`RC11`); a file only when it is none.
    let name = canonical(name).unwrap_or(name);
    let engine: Box<dyn Engine> = match NATIVE.iter().find(|n| n.name == name) {
        Some(n) => (n.make)(),
        None if crate::cat::bundled(name).is_none() && (!files || !is_file_name(name)) => {
            return Err(NameError::Unknown(unknown_model(name, files)))
        }
        // A cat model's options are its own (`let NAME[OPTION = VALUE]`),
        // chosen when it is compiled: the note's options are pwt's.
        None => match crate::cat::load_with(name, &sets) {
            Ok(mut m) if !sets.is_empty() => {
                let set: Vec<String> = sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
                m.name = format!("{}[{}]", m.name, set.join(","));
                return Ok(Box::new(axiomatic::Cat::new(m)));
            }
            Ok(m) => Box::new(axiomatic::Cat::new(m)),
            // An option the model does not declare (or a value it does not
            // bind) is named with the model's options, not the models.
            Err(crate::cat::LoadError::Io(why))
                if !sets.is_empty() && !why.starts_with("cannot read") =>
            {
                return Err(NameError::Unknown(format!("{spec}: {why}")))
            }
            Err(crate::cat::LoadError::Io(why)) => {
                return Err(NameError::Unknown(format!(
                    "{why} (the models: {}, or a .cat file)",
                    names().join(", ")
                )))
            }
            Err(crate::cat::LoadError::Cat(e)) => {
                return Err(NameError::Cat(Box::new(e), name.to_string()))
            }
        },
    };
    if sets.is_empty() {
        return Ok(engine);
    }
    // An option the model never reads would be accepted and ignored: the
    // answer would look like the option's when it is the defaults'.
    if !engine.reads_options() {
        let given: Vec<String> = sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
        return Err(NameError::Unknown(format!(
            "{spec}: {name} reads no model option, so `[{}]` would change nothing; the options are the pomset semantics' (`pwt[{}]`)",
            given.join(","),
            given.join(",")
        )));
    }
    let mut check = Model::default();
    for (k, v) in &sets {
        check
            .set(k, v)
            .map_err(|e| NameError::Unknown(format!("{spec}: {e}")))?;
    }
    Ok(Box::new(WithOptions {
        name: spec.to_string(),
        inner: engine,
        sets,
    }))
}

/// The model `name` names in any case (`RC11`, `rc11.cat`), if it names one.
pub fn canonical(name: &str) -> Option<&'static str> {
    let bare = name.strip_suffix(".cat").unwrap_or(name);
    names().into_iter().find(|n| n.eq_ignore_ascii_case(bare))
}

/// Whether `name`, which names no model, is read as a file: it ends in
/// `.cat`, has a directory in it, or exists.
pub(crate) fn is_file_name(name: &str) -> bool {
    name.ends_with(".cat") || name.contains(['/', '\\']) || std::path::Path::new(name).exists()
}

/// No model is called `name`: every name, and the nearest one.
pub fn unknown_model(name: &str, files: bool) -> String {
    let near = crate::model::closest(&name.to_ascii_lowercase(), names().into_iter())
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    let (kind, or_file) = match files {
        true => ("model", ", or a .cat file"),
        false => ("bundled model", ""),
    };
    format!(
        "no {kind} is called `{name}`{near}; the models: {}{or_file}",
        names().join(", ")
    )
}

/// Every model name a user may type, native ones first.
pub fn names() -> Vec<&'static str> {
    NATIVE
        .iter()
        .map(|n| n.name)
        .chain(crate::cat::BUNDLED.iter().map(|(n, _)| *n))
        .collect()
}

/// A comma-separated list of model names (`--models`, the explorer's
/// tables): split at the commas outside brackets, as those inside belong to
/// a model's options (`pwt[merge=binary,monotonicity=modes]`).
pub fn model_list(text: &str) -> Result<Vec<String>, String> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim().to_string());
    if out.iter().any(String::is_empty) {
        return Err(format!("`{text}`: an empty model name in the list"));
    }
    Ok(out)
}

/// Model options as `(OPTION, VALUE)` pairs, in the order given.
type Sets = Vec<(String, String)>;

/// `NAME[K=V,...]` into the name and its options.
fn split_options(spec: &str) -> Result<(&str, Sets), String> {
    let Some((name, rest)) = spec.split_once('[') else {
        return Ok((spec, Vec::new()));
    };
    let Some(inner) = rest.strip_suffix(']') else {
        return Err(format!(
            "`{spec}`: model options go in brackets at the end, as pwt[c7a=direct,merge=multi]"
        ));
    };
    let mut sets = Vec::new();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(format!(
                "`{spec}`: `{part}` is not OPTION=VALUE (see `pomset options`)"
            ));
        };
        sets.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok((name, sets))
}

/// An engine with model options of its own (`pwt[c7a=direct]`), set over
/// the file's and `--set`'s.
struct WithOptions {
    name: String,
    inner: Box<dyn Engine>,
    sets: Vec<(String, String)>,
}

impl WithOptions {
    fn model(&self, model: &Model) -> Model {
        let mut m = *model;
        for (k, v) in &self.sets {
            // Checked when the name was read.
            let _ = m.set(k, v);
        }
        m
    }
}

impl Engine for WithOptions {
    fn name(&self) -> &str {
        &self.name
    }
    fn options(&self, model: &Model) -> Model {
        self.model(&self.inner.options(model))
    }
    fn can(&self, c: Capability) -> bool {
        // Options may change how modes order events: the argument for the
        // mode lattice is made for each model's defaults only.
        !matches!(
            c,
            Capability::StrongerModes
                | Capability::StrongerModesEveryState
                | Capability::ModeBlind
                | Capability::IncludesSc
        ) && self.inner.can(c)
    }
    fn outcomes(&self, p: &Program, model: &Model, limits: Limits) -> Result<Outcomes, String> {
        self.inner.outcomes(p, &self.model(model), limits)
    }
    fn report_model(&self, model: &Model) -> Option<Vec<String>> {
        self.inner.report_model(&self.model(model))
    }
    fn flag_meaning(&self, flag: &str) -> crate::outcome::FlagMeaning {
        self.inner.flag_meaning(flag)
    }
    fn qualifiers(&self) -> Qualifiers {
        self.inner.qualifiers()
    }
    fn hints(&self, p: &Program) -> Vec<String> {
        self.inner.hints(p)
    }
    fn reads_options(&self) -> bool {
        self.inner.reads_options()
    }
    fn reads_placement(&self) -> bool {
        self.inner.reads_placement()
    }
    fn lower(&mut self, lowering: axiomatic::lower::Lowering) -> bool {
        self.inner.lower(lowering)
    }
    fn verdicts(&self, p: &Program, model: &Model, limits: Limits) -> Report {
        self.inner.verdicts(p, &self.model(model), limits)
    }
    fn explain(
        &self,
        p: &Program,
        model: &Model,
        chosen: &[usize],
        limits: &Limits,
    ) -> Result<String, String> {
        self.inner.explain(p, &self.model(model), chosen, limits)
    }
    fn pictures(
        &self,
        test: &Litmus,
        model: &Model,
        opts: &DrawOptions,
    ) -> Result<(Drawn, &'static str), String> {
        self.inner.pictures(test, &self.model(model), opts)
    }
    fn refine_locally(
        &self,
        p: &Program,
        source: &Stmt,
        target: &Stmt,
        model: &Model,
        max_pomsets: usize,
        limits: Limits,
    ) -> Result<LocalRefinement, String> {
        self.inner
            .refine_locally(p, source, target, &self.model(model), max_pomsets, limits)
    }
}

/// Frees outcomes of many states on a thread of their own: freeing a
/// million states takes about a second, which the report, ready by then,
/// need not wait for (the deadline is the answer's, not the allocator's).
/// The next decision waits for them (`settle_drops`), so its peak heap and
/// memory budget count its own outcomes only.
fn drop_aside(o: crate::outcome::Outcomes) {
    const MANY: usize = 100_000;
    let many = o.states.len() > MANY || o.orbits.as_ref().is_some_and(|x| x.orbits() > MANY);
    if !many {
        return;
    }
    PENDING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let freed = std::thread::Builder::new().spawn(move || {
        drop(o);
        PENDING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    });
    // No thread to be had (a `ulimit`): the outcomes went with the closure,
    // freed here, so nothing is pending.
    if freed.is_err() {
        PENDING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Outcomes being freed aside (`drop_aside`).
static PENDING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Waits until the outcomes freed aside are freed.
pub fn settle_drops() {
    while PENDING.load(std::sync::atomic::Ordering::SeqCst) > 0 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Whether an execution of `p` reaches a loop's cut (issue 74), for the
/// report of its outcomes. The engine's own answer where its notes give
/// one (sc exactly; a cat model's lazy search "never reached").
/// Otherwise, when it matters (a bound, no limit, a verdict `Never` or
/// `Always` that more iterations could change), `p` is decided again with
/// every cut read as the loop's exit (`Program::cut_as_exit`): that
/// program's executions are `p`'s and those that reach a cut (a cut's
/// `if (M) { diverge }` becomes `if (M) {}`, which changes only the
/// termination of the path that goes round again: in the pomset semantics
/// its ✓ goes from ¬M to tt, in SC and the cat models its runs and
/// candidates are kept instead of dropped). So a kept final state with
/// every value determined that `p` lacks is one of an execution that
/// reaches a cut: `Reached`. (Determined states only: in the pomset
/// semantics a pomset whose reads are all dropped never shows that its
/// loop ends, at any bound, so it completes only with the cut read as an
/// exit, with `?` values, though no execution reads its way to the cut.)
/// The exit program may be much larger (every path past a cut completes),
/// so it gets the time `p`'s search took; cut by that, it tells nothing.
/// Finding none is left `Unknown`: an execution through a cut may end in
/// a state `p` has, and one that needs a further pass may need the code
/// after the loop to run with the values of that pass, not of the cut, so
/// this search does not show that no execution goes further.
fn cut_reach(
    engine: &dyn Engine,
    p: &Program,
    model: &Model,
    limits: Limits,
    report: &Report,
    spent: std::time::Duration,
) -> crate::syntax::core::Reach {
    use crate::syntax::core::Reach;
    let noted = p.reach_noted(&report.warnings);
    let matters = report
        .conditions
        .iter()
        .any(|c| matches!(c.observation, Some("Never" | "Always")));
    if noted != Reach::Unknown || p.unroll.is_none() || report.limit.is_some() || !matters {
        return noted;
    }
    let exit = p.cut_as_exit();
    // The exit program may have many more executions than `p` (every path
    // past a cut completes): it gets the time `p` took (at least
    // `EXIT_PASS_MIN`), within the request's deadline, and a search cut by
    // that budget tells nothing, so a report costs at most about twice
    // its search.
    let budget = spent.max(EXIT_PASS_MIN);
    let now = std::time::Instant::now();
    let own = now.checked_add(budget).unwrap_or(now);
    let deadline = match limits.deadline {
        Some((at, secs)) if at < own => Some((at, secs)),
        _ => Some((own, budget.as_secs_f64())),
    };
    let limits = Limits { deadline, ..limits };
    match engine.outcomes(&exit, model, limits) {
        Ok(o) if o.limit.is_none() => {
            let wider = Report::listing(&exit, model, &o, std::time::Duration::ZERO, Some(0));
            drop_aside(o);
            match wider.limit.is_none() && wider.determined() > report.determined() {
                true => Reach::Reached,
                false => Reach::Unknown,
            }
        }
        Ok(o) => {
            drop_aside(o);
            Reach::Unknown
        }
        Err(_) => Reach::Unknown,
    }
}

/// The least time the exit pass of `cut_reach` gets, however quick the
/// search before it was. Whether it finishes decides only the wording
/// (`reached` or `maybe reached`), never a verdict or its bounded mark.
const EXIT_PASS_MIN: std::time::Duration = std::time::Duration::from_secs(2);

/// Decides `p` with `engine`: its outcomes as a report, timed, with the
/// peak memory counted from here. `verdict_only` asks for
/// `Capability::VerdictOnly`, refused in the report when the engine lacks it.
pub fn decide(
    engine: &dyn Engine,
    p: &Program,
    model: &Model,
    verdict_only: bool,
    limits: Limits,
) -> Report {
    settle_drops();
    let start = std::time::Instant::now();
    crate::memory::reset_peak();
    // Options a name carries are set here once, so the report's model
    // line and its expectations are those of the model decided.
    let options = engine.options(model);
    let model = &options;
    if verdict_only {
        // The condition-directed searches tell nothing of the cuts: a
        // `Never` under a bound is marked as one that may be reached.
        let mut report = engine.verdicts(p, model, limits);
        report.mark_bounded(p, p.reach_noted(&report.warnings));
        report.warnings.extend(engine.hints(p));
        return report;
    }
    let limits = Limits {
        symmetry: limits.symmetry && engine.can(Capability::Symmetry),
        orbits: limits.orbits && engine.can(Capability::Symmetry),
        ..limits
    };
    let mut report = match engine.outcomes(p, model, limits) {
        Ok(o) => {
            let mut report = Report::listing(p, model, &o, start.elapsed(), limits.listed);
            drop_aside(o);
            let reach = cut_reach(engine, p, model, limits, &report, start.elapsed());
            report.mark_bounded(p, reach);
            report.seconds = start.elapsed().as_secs_f64();
            report
        }
        Err(why) => return Report::unsupported(p, model, why),
    };
    for f in &mut report.flags {
        f.meaning = engine.flag_meaning(&f.name);
    }
    if !engine.can(Capability::Expectations) {
        report = report.without_expectations();
    }
    if let Some(named) = engine.report_model(model) {
        report.model = named;
    }
    report.warnings.extend(engine.hints(p));
    report
}
