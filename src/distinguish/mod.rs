//! Where two models differ: every small program of a bound, each once up to
//! symmetry, decided under two models, keeping those with a final state one
//! model allows and the other forbids, and among them the minimal ones.
//!
//! - `enumerate`: the bound, the vocabulary, the programs as litmus text;
//! - `canon`: the canonical form under thread, location and value renaming;
//! - `count`: how many programs a sweep visits, counted without listing
//!   them (Burnside's lemma over the symmetries);
//! - `minimal`: the one-step weakenings of a program, and whether one still
//!   distinguishes;
//! - `shard`: shards, the JSON Lines records a sweep writes, resuming and
//!   merging them, and the summary table of families.
//!
//! A program is decided through the engine interface only
//! ([`crate::engine::Engine::outcomes`]); one that an engine refuses, stops
//! on a limit, or flags (a data race: undefined behaviour) is undecided,
//! never distinguishing. [`Undecided::outside`] tells a program outside
//! what the models decide from one a limit stopped: minimality needs to.

pub mod canon;
pub mod count;
pub mod enumerate;
pub mod lattice;
pub mod minimal;
pub mod shape;
pub mod shard;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::engine::{Capability, Engine};
use crate::outcome::{FlagMeaning, Limits};
use shape::{Shape, Space};
pub use shard::{Record, Shard};

/// The two models compared, each with its engine.
pub struct Pair {
    pub names: [String; 2],
    engines: [Box<dyn Engine>; 2],
    /// Seconds each engine may spend on one program (then undecided).
    pub timeout: Option<f64>,
    /// Set from outside (a front end's Ctrl-C handler, a budget) to stop
    /// the engines and the sweep; the library installs no handler.
    pub cancel: Option<&'static AtomicBool>,
    /// When the whole sweep must stop (the explorer's request deadline):
    /// the engines stop there as at `timeout`, and the sweep as at `cancel`.
    pub deadline: Option<(std::time::Instant, f64)>,
    /// Whether a sweep may give a program the verdict `same` from its mode
    /// variants (`lattice.rs`) when both engines declare
    /// `Capability::StrongerModes` (`--no-mode-lattice` turns it off).
    pub lattice: bool,
    /// What the sweeps through this pair did: engine runs (one model
    /// deciding one program), and verdicts `same` given by the lattice
    /// without deciding the program.
    pub decided: AtomicU64,
    pub inferred: AtomicU64,
}

/// What deciding a program under both models found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Same,
    /// The states only the first model allows, and those only the second
    /// allows, each as a condition (`P0:r0 = 1 /\ [x] = 1`); of each list,
    /// how many (at its end) the other model reaches with a value left
    /// undetermined (`?`) where the state has one.
    Differs {
        only: [Vec<String>; 2],
        undetermined: [usize; 2],
    },
    /// Why a model gave no complete set of states.
    Undecided(Undecided),
}

/// What the mode lattice says of a program's determined states under the
/// two models (`Pair::pinned_known`).
enum Pinned {
    /// Pinned equal: the verdict is `same`.
    Equal,
    /// Pinned unequal under the same names: the program distinguishes.
    Unequal,
    /// Not pinned: the program is decided in full.
    Open,
}

/// Why a program has no verdict to compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undecided {
    pub why: String,
    /// The program lies outside what the models decide, so it distinguishes
    /// nothing: a model flags it (a data race: undefined behaviour), it may
    /// store a value outside V (`Program::values_left`: its written test
    /// never gets Never, whose absence no found state shows), or it has a
    /// construct a model does not define. Otherwise a limit stopped the
    /// decision, a note says the states may be incomplete, or an engine
    /// failed: whether the program distinguishes is unknown.
    pub outside: bool,
}

impl Undecided {
    fn distinguishes_nothing(why: String) -> Undecided {
        Undecided { why, outside: true }
    }

    fn unknown(why: String) -> Undecided {
        Undecided {
            why,
            outside: false,
        }
    }

    /// The same, with the model it came from named first.
    fn of(self, model: &str) -> Undecided {
        Undecided {
            why: format!("{model}: {}", self.why),
            ..self
        }
    }
}

/// A final state's values in the order of its names; `None` is a value
/// left undetermined (a register whose read the pomset semantics dropped).
type State = Vec<Option<i64>>;

/// The determined states of `mine` that no state of `theirs` equals, as
/// conditions: `mine` allows each and `theirs` forbids it, as the condition
/// judge reads an undetermined value (`?` equals no value, so a state
/// `theirs` reaches only with a read dropped does not witness it). Those no
/// state of `theirs` matches even with `?` read as any value come first;
/// the second number counts the others.
fn only(
    names: &[String],
    mine: &BTreeSet<State>,
    theirs: &BTreeSet<State>,
) -> (Vec<String>, usize) {
    let loose = |t: &State, s: &[i64]| t.iter().zip(s).all(|(t, s)| t.is_none_or(|t| t == *s));
    let exact = |t: &State, s: &[i64]| t.iter().zip(s).all(|(t, s)| *t == Some(*s));
    let text = |s: &[i64]| {
        let parts: Vec<String> = names
            .iter()
            .zip(s)
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        parts.join(" /\\ ")
    };
    let (mut plain, mut against) = (Vec::new(), Vec::new());
    for s in mine
        .iter()
        .filter_map(|s| s.iter().copied().collect::<Option<Vec<i64>>>())
    {
        if theirs.iter().any(|t| exact(t, &s)) {
            continue;
        }
        if theirs.iter().any(|t| loose(t, &s)) {
            against.push(text(&s));
        } else {
            plain.push(text(&s));
        }
    }
    let n = against.len();
    plain.extend(against);
    (plain, n)
}

impl Pair {
    /// The pair of two engines, named as the report will name them.
    pub fn new(names: [String; 2], engines: [Box<dyn Engine>; 2]) -> Pair {
        Pair {
            names,
            engines,
            timeout: None,
            cancel: None,
            deadline: None,
            lattice: true,
            decided: AtomicU64::new(0),
            inferred: AtomicU64::new(0),
        }
    }

    /// The engine of model `i` (0 or 1), as the pair decides with it (a
    /// mapping's target lowered).
    pub fn engine(&self, i: usize) -> &dyn Engine {
        self.engines[i].as_ref()
    }

    /// What stops the sweep now, named: the deadline (`--timeout S`) or
    /// the cancel flag (`cancelled`); `None` while neither has.
    pub fn stopped(&self) -> Option<String> {
        if let Some((at, secs)) = self.deadline {
            if std::time::Instant::now() > at {
                return Some(format!("--timeout {secs}"));
            }
        }
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Some("cancelled".to_string());
        }
        None
    }

    /// The models named `a` and `b` (`engine::named`).
    pub fn named(a: &str, b: &str) -> Result<Pair, String> {
        let make = |n: &str| crate::engine::named(n).map_err(|e| e.line());
        Ok(Pair::new(
            [a.to_string(), b.to_string()],
            [make(a)?, make(b)?],
        ))
    }

    /// The source and target of a mapping `SRC:TGT` (`compare --mapping`),
    /// the target lowering the program as the mapping says.
    pub fn mapping(text: &str) -> Result<Pair, String> {
        let m = crate::engine::axiomatic::Mapping::parse(text)?;
        let mut pair = Pair::named(&m.src, &m.tgt)?;
        if let Some(l) = m.lowering {
            pair.engines[1].lower(l);
        }
        Ok(pair)
    }

    /// Decides the litmus file `text` under both models.
    pub fn decide(&self, text: &str) -> Decision {
        match crate::syntax::parse(text) {
            Ok(test) => self.decide_program(&test.program),
            Err(d) => not_parsed(&d),
        }
    }

    /// Decides `shape` under both models, as `decide` its litmus file
    /// (`Shape::litmus`) but from the syntax tree built directly
    /// (`Shape::file`): no text is written or parsed.
    pub fn decide_shape(&self, space: &Space, shape: &Shape) -> Decision {
        match checked(space, shape) {
            Ok(program) => self.decide_program(&program),
            Err(u) => Decision::Undecided(u),
        }
    }

    /// Decides a checked program under both models.
    pub fn decide_program(&self, p: &crate::syntax::core::Program) -> Decision {
        if let Some(left) = p.values_left.first() {
            return Decision::Undecided(Undecided::distinguishes_nothing(left.clone()));
        }
        let mut sets = Vec::new();
        for (name, engine) in self.names.iter().zip(&self.engines) {
            match self.states(engine.as_ref(), p) {
                Ok(s) => sets.push(s),
                Err(u) => return Decision::Undecided(u.of(name)),
            }
        }
        compare(&sets[0], &sets[1])
    }

    /// Decides `shape` as `decide_shape` does, with what a sweep already
    /// knows of its skeleton (`lattice.rs`): when both engines declare
    /// `Capability::StrongerModes` and `lattice` is on, a program whose
    /// determined states the two models' intervals pin equal is `same`
    /// without being decided; every other program is decided in full, its
    /// answers kept in `known` for the next.
    pub fn decide_known(
        &self,
        space: &Space,
        shape: &Shape,
        known: &mut lattice::Known,
    ) -> Decision {
        match self.pinned_known(space, shape, known) {
            Pinned::Equal => Decision::Same,
            Pinned::Unequal | Pinned::Open => self.decide_known_in_full(space, shape, known),
        }
    }

    /// Whether `shape` distinguishes the models, as `decide_known` would
    /// say, but without the states that tell them apart: a program whose
    /// determined states the lattice pins unequal (under the same names)
    /// distinguishes without being decided in full, since `compare` finds
    /// a difference exactly when the determined states differ. What
    /// minimality asks of each weakening (`minimal::minimal_by`).
    pub fn distinguishes_known(
        &self,
        space: &Space,
        shape: &Shape,
        known: &mut lattice::Known,
    ) -> minimal::Distinguishes {
        match self.pinned_known(space, shape, known) {
            Pinned::Equal => minimal::Distinguishes::No,
            Pinned::Unequal => minimal::Distinguishes::Yes,
            Pinned::Open => self.decide_known_in_full(space, shape, known).into(),
        }
    }

    /// What the mode lattice pins of `shape`'s determined states under
    /// both models (`lattice::determined`), when both engines declare
    /// `Capability::StrongerModes` and `lattice` is on.
    fn pinned_known(&self, space: &Space, shape: &Shape, known: &mut lattice::Known) -> Pinned {
        let by_lattice = self.lattice
            && self
                .engines
                .iter()
                .all(|e| e.can(Capability::StrongerModes));
        if !by_lattice {
            return Pinned::Open;
        }
        // In the group's frame when the sweep gave one: the variant of
        // the group's skeleton whose canonical form `shape` is, so that
        // every program of the group shares what is decided (the verdict
        // is the same for a program and its symmetric images).
        let framed = known.framed(shape);
        let shape = framed.as_ref().unwrap_or(shape);
        let c = lattice::coordinates(space, shape);
        let skeleton = lattice::at(shape, &c, &vec![0; c.len()]);
        let floor = self.floor(space, &skeleton, known);
        let pinned = [0, 1].map(|i| {
            let blind = self.engines[i].can(Capability::ModeBlind);
            let floor = floor
                .as_deref()
                .filter(|_| self.engines[i].can(Capability::IncludesSc));
            let mut seen = known.take_seen(&skeleton, i);
            let d = lattice::determined(&c, shape, blind, floor, &mut seen, |v| {
                self.variant_answer(i, space, v, known)
            });
            known.keep_seen(&skeleton, i, seen);
            d
        });
        match &pinned {
            [Some((na, a)), Some((nb, b))] if na == nb => {
                if a == b {
                    known.inferred += 1;
                    Pinned::Equal
                } else {
                    Pinned::Unequal
                }
            }
            _ => Pinned::Open,
        }
    }

    /// `decide_known` past the lattice: both models' answers for `shape`,
    /// from `known` where they are there, compared.
    fn decide_known_in_full(
        &self,
        space: &Space,
        shape: &Shape,
        known: &mut lattice::Known,
    ) -> Decision {
        // Both models decided it already (an end of an interval): compared
        // as they are.
        if let Some([a, b]) = known.both(shape) {
            return compare(&a, &b);
        }
        // Built only now: a program the lattice answered needs no syntax
        // tree of its own, and what `checked` refuses (a store that may
        // leave V) depends on the values, never the modes, so its variants
        // were refused alike and pinned nothing.
        let program = match known.program(shape, || checked(space, shape)) {
            Ok(p) => p,
            Err(u) => return Decision::Undecided(u),
        };
        let mut sets = Vec::new();
        for (i, name) in self.names.iter().enumerate() {
            let a = match self.every_state(i, space, shape, known) {
                Some(s) => Ok(s),
                None => self.answer(i, space, shape, &program, known),
            };
            match a {
                Ok(s) => sets.push(s),
                Err(u) => return Decision::Undecided(u.of(name)),
            }
        }
        compare(&sets[0], &sets[1])
    }

    /// Model `i`'s every state of `shape`, `?` values included, from its
    /// own skeleton's decided variants (`lattice::every_state`), when the
    /// lattice is on, the engine declares
    /// `Capability::StrongerModesEveryState` and the program was not
    /// decided already. In the program's own skeleton, not its group's
    /// frame: a symmetric image has the same verdict but other states.
    fn every_state(
        &self,
        i: usize,
        space: &Space,
        shape: &Shape,
        known: &mut lattice::Known,
    ) -> Option<std::rc::Rc<lattice::Sets>> {
        let engine = &self.engines[i];
        let by_lattice = self.lattice
            && engine.can(Capability::StrongerModes)
            && engine.can(Capability::StrongerModesEveryState);
        if !by_lattice || known.decided_by(shape, i).is_some() {
            return None;
        }
        let c = lattice::coordinates(space, shape);
        let skeleton = lattice::at(shape, &c, &vec![0; c.len()]);
        let mut seen = known.take_seen(&skeleton, i);
        let sets = lattice::every_state(&c, shape, &mut seen, |v| {
            self.variant_answer(i, space, v, known)
        });
        known.keep_seen(&skeleton, i, seen);
        sets.map(std::rc::Rc::new)
    }

    /// Model `i`'s answer for the variant `v`, as the lattice asks it: from
    /// `known` if decided, else checked (once for both models) and decided.
    fn variant_answer(
        &self,
        i: usize,
        space: &Space,
        v: &Shape,
        known: &mut lattice::Known,
    ) -> lattice::Answer {
        if let Some(a) = known.decided_by(v, i) {
            return a;
        }
        let program = known.program(v, || checked(space, v))?;
        self.answer(i, space, v, &program, known)
    }

    /// Model `i`'s answer for `v` (checked as `program`), decided the first
    /// time, from what its skeleton's search found where that applies
    /// (`Pair::found`), and kept in `known`.
    fn answer(
        &self,
        i: usize,
        space: &Space,
        v: &Shape,
        program: &crate::syntax::core::Program,
        known: &mut lattice::Known,
    ) -> lattice::Answer {
        if let Some(a) = known.decided_by(v, i) {
            return a;
        }
        let found = self.found(i, space, v, known);
        known.answer(v, i, || {
            self.states_by(self.engines[i].as_ref(), program, found.as_deref())
        })
    }

    /// What model `i`'s engine found deciding `v`'s skeleton, to decide `v`
    /// by judging those candidates again (`axiomatic::Found`): only with
    /// the lattice on, for an engine declaring `Capability::StrongerModes`,
    /// and for a program without a control dependency (whose events are
    /// then the same in every run). Searched once per skeleton and kept in
    /// `known`. Only for a program with a read-modify-write: there a search
    /// costs many times a judgement of its candidates (C59's bound: 2.4
    /// times faster), while a search of plain accesses is about as cheap
    /// as judging its candidates again (the three-thread sweeps of the
    /// book's "Speed" were a third slower this way).
    fn found(
        &self,
        i: usize,
        space: &Space,
        v: &Shape,
        known: &mut lattice::Known,
    ) -> Option<std::rc::Rc<crate::engine::axiomatic::Found>> {
        let engine = self.engines[i].as_ref();
        let ops = || v.threads.iter().flatten();
        let branches = ops().any(|o| o.dep == shape::Dep::Ctrl);
        let rmw = ops().any(|o| matches!(o.kind, shape::Kind::Fadd | shape::Kind::Exchg));
        if !self.lattice || branches || !rmw || !engine.can(Capability::StrongerModes) {
            return None;
        }
        let skeleton = lattice::skeleton(space, v);
        if let Some(f) = known.found(&skeleton, i) {
            return f;
        }
        let f = known
            .program(&skeleton, || checked(space, &skeleton))
            .ok()
            .and_then(|p| engine.found(&p, self.limits(engine)))
            .and_then(Result::ok)
            .map(std::rc::Rc::new);
        known.keep_found(&skeleton, i, f.clone());
        f
    }

    /// SC's states of `skeleton`, when a
    /// model of the pair that is not itself blind to modes includes them
    /// (`Capability::IncludesSc`): the floor of `lattice::determined`. The
    /// pair's own `sc`, if it has one, gives them; otherwise the `sc`
    /// engine decides the skeleton once (kept in `known`, slot 2).
    fn floor(
        &self,
        space: &Space,
        skeleton: &Shape,
        known: &mut lattice::Known,
    ) -> Option<std::rc::Rc<lattice::Sets>> {
        let wanted = self
            .engines
            .iter()
            .any(|e| e.can(Capability::IncludesSc) && !e.can(Capability::ModeBlind));
        if !wanted {
            return None;
        }
        let own = (0..2).find(|&i| {
            self.engines[i].name() == "sc" && self.engines[i].can(Capability::ModeBlind)
        });
        let slot = own.unwrap_or(2);
        if let Some(a) = known.decided_by(skeleton, slot) {
            return a.ok();
        }
        let program = known.program(skeleton, || checked(space, skeleton)).ok()?;
        let sc = crate::engine::sc::Sc;
        let engine: &dyn Engine = match own {
            Some(i) => self.engines[i].as_ref(),
            None => &sc,
        };
        known
            .answer(skeleton, slot, || self.states(engine, &program))
            .ok()
    }

    /// The final states of `p` under `engine`: the names, each state's
    /// values in their order, and the determined ones apart (`Sets`); or
    /// why they are not all known.
    fn states(
        &self,
        engine: &dyn Engine,
        p: &crate::syntax::core::Program,
    ) -> Result<lattice::Sets, Undecided> {
        self.states_by(engine, p, None)
    }

    /// The limits an engine decides one program of the sweep within.
    fn limits(&self, engine: &dyn Engine) -> Limits {
        let own = self.timeout.map(crate::outcome::limits::deadline_after);
        // The earlier of the program's own deadline and the sweep's.
        let deadline = match (own, self.deadline) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        Limits {
            deadline,
            cancel: self.cancel,
            symmetry: engine.can(Capability::Symmetry),
            one_core: true,
            reuse: true,
            ..Limits::default()
        }
    }

    /// `states`, from what deciding `p`'s skeleton found when there is
    /// `found` and it lines up with `p` (`axiomatic::Found::outcomes`), else
    /// from a search of `p`'s own.
    fn states_by(
        &self,
        engine: &dyn Engine,
        p: &crate::syntax::core::Program,
        found: Option<&crate::engine::axiomatic::Found>,
    ) -> Result<lattice::Sets, Undecided> {
        if let Some((_, what)) = p.vulkan_only().filter(|_| !engine.can(Capability::Vulkan)) {
            return Err(Undecided::distinguishes_nothing(format!(
                "{what} is defined by the Vulkan model only"
            )));
        }
        let limits = self.limits(engine);
        // An engine's refusal may name a limit of its own (a cat model's
        // linearisations): unknown, like a limit.
        let o = match found.and_then(|f| f.outcomes(p, &limits)) {
            Some(o) => o,
            None => engine.outcomes(p, &p.model, limits),
        }
        .map_err(Undecided::unknown)?;
        if let Some(l) = o.limit {
            return Err(Undecided::unknown(format!("stopped by {l}")));
        }
        if let Some(note) = o.notes.first() {
            return Err(Undecided::unknown(note.clone()));
        }
        // What a flag means is the model's statement: undefined behaviour
        // allows every outcome (the program tells no model apart); a
        // defined flag leaves the states standing; any other, unknown.
        let meaning = |f: &str| engine.flag_meaning(f);
        if let Some((flag, _)) = o
            .flags
            .iter()
            .find(|(f, _)| meaning(f) == FlagMeaning::Undefined)
        {
            return Err(Undecided::distinguishes_nothing(format!("raises {flag}")));
        }
        if let Some((flag, _)) = o
            .flags
            .iter()
            .find(|(f, _)| meaning(f) != FlagMeaning::Defined)
        {
            return Err(Undecided::unknown(format!(
                "raises {flag} ({})",
                meaning(flag).gloss()
            )));
        }
        // The names are those of the first state; every other state must
        // name the same registers and locations in the same order, compared
        // in place rather than written out again for each state.
        let mut names: Option<Vec<String>> = None;
        let mut out = BTreeSet::new();
        for s in o.states.keys() {
            match &names {
                Some(n) => {
                    let (regs, mem) = n.split_at(s.regs.len().min(n.len()));
                    let same = regs.len() == s.regs.len()
                        && mem.len() == s.mem.len()
                        && regs.iter().zip(&s.regs).all(|(a, (b, _))| a == b)
                        && mem.iter().zip(&s.mem).all(|(a, (b, _))| {
                            a.strip_prefix('[').and_then(|a| a.strip_suffix(']'))
                                == Some(b.as_str())
                        });
                    if !same {
                        return Err(Undecided::unknown("states name different values".into()));
                    }
                }
                None => {
                    let these = s.regs.iter().map(|(n, _)| n.clone());
                    let mem = s.mem.iter().map(|(n, _)| format!("[{n}]"));
                    names = Some(these.chain(mem).collect());
                }
            }
            out.insert(s.regs.iter().chain(&s.mem).map(|(_, v)| *v).collect());
        }
        let names = names.ok_or_else(|| Undecided::unknown("no final state".into()))?;
        Ok(lattice::Sets::new(names, out))
    }
}

/// A file that does not parse or check: undecided, for a reason unknown.
fn not_parsed(d: &crate::syntax::Diagnostics) -> Decision {
    Decision::Undecided(unparsed(d))
}

fn unparsed(d: &crate::syntax::Diagnostics) -> Undecided {
    let first = d.iter().next().map_or("", |d| d.message.as_str());
    Undecided::unknown(format!("does not parse: {first}"))
}

/// The checked program of `shape`, as `Pair::decide_shape` decides it
/// (built as a syntax tree, or parsed from its litmus text where it cannot
/// be), or why it is undecided before any model runs (a store that may
/// leave V).
fn checked(space: &Space, shape: &Shape) -> Result<crate::syntax::core::Program, Undecided> {
    let program = match shape.file("P", space) {
        Some(file) => crate::syntax::check::check(&file).map(|(p, _)| p),
        None => crate::syntax::parse(&shape.litmus("P", space)).map(|t| t.program),
    }
    .map_err(|d| unparsed(&d))?;
    if let Some(left) = program.values_left.first() {
        return Err(Undecided::distinguishes_nothing(left.clone()));
    }
    Ok(program)
}

/// The verdict of two models' states of one program. Compared on the names
/// both report: a state of one set whose projection is in no projection of
/// the other differs in full too. Only determined states can differ
/// (`only`): two sets with the same determined states over the same names
/// are `same`, which `Pair::decide_known` relies on.
fn compare(a: &lattice::Sets, b: &lattice::Sets) -> Decision {
    let common: Vec<&String> = a.names.iter().filter(|n| b.names.contains(n)).collect();
    let project = |s: &lattice::Sets| -> (Vec<String>, BTreeSet<State>) {
        let at: Vec<usize> = common
            .iter()
            .filter_map(|c| s.names.iter().position(|n| n == *c))
            .collect();
        let names = at.iter().map(|&i| s.names[i].clone()).collect();
        let states = s
            .states
            .iter()
            .map(|st| at.iter().map(|&i| st[i]).collect())
            .collect();
        (names, states)
    };
    let ((names, pa), (_, pb)) = (project(a), project(b));
    let (only_a, ua) = only(&names, &pa, &pb);
    let (only_b, ub) = only(&names, &pb, &pa);
    if only_a.is_empty() && only_b.is_empty() {
        return Decision::Same;
    }
    Decision::Differs {
        only: [only_a, only_b],
        undetermined: [ua, ub],
    }
}

/// Decides `shape` and, when it distinguishes, whether it is minimal: the
/// record a sweep writes, each program decided on its own.
/// Refuses a bound whose threads of accesses (what the enumeration holds
/// in memory, `count::threads`) pass `shape::MAX_LISTED_THREADS`, before
/// any is listed: the one bound on a sweep's memory, whatever its budget.
pub fn check_held(space: &Space) -> Result<(), String> {
    let cap = shape::MAX_LISTED_THREADS;
    let threads = count::threads(space, &enumerate::skeleton_ops(space));
    if threads.is_none_or(|n| n > cap) {
        let n = threads.map_or("too many to count".to_string(), |n| n.to_string());
        return Err(format!(
            "the bound's threads of accesses number {n}, more than the {cap} a sweep lists (they are held in memory): lower --per-thread, --values, --locations, or the --modes, --rmws and --deps"
        ));
    }
    Ok(())
}

pub fn record(space: &Space, pair: &Pair, shape: &Shape) -> Record {
    let decision = pair.decide_shape(space, shape);
    finish(space, shape, decision, |w| {
        pair.decide_shape(space, w).into()
    })
}

/// `record` within a sweep: with what `known` holds of the skeleton
/// (`Pair::decide_known`), for the program and its weakenings.
pub fn record_known(
    space: &Space,
    pair: &Pair,
    shape: &Shape,
    known: &mut lattice::Known,
) -> Record {
    let decision = pair.decide_known(space, shape, known);
    finish(space, shape, decision, |w| {
        pair.distinguishes_known(space, w, known)
    })
}

/// The record of `shape` decided as `decision`, with its minimality (by
/// `decide`) when it distinguishes.
fn finish(
    space: &Space,
    shape: &Shape,
    decision: Decision,
    decide: impl FnMut(&Shape) -> minimal::Distinguishes,
) -> Record {
    let mut r = Record::of(shape, &decision);
    if let Decision::Differs { .. } = decision {
        r.minimal = Some(minimal::minimal_by(space, shape, decide).to_string());
        r.family = Some(minimal::family(space, shape).body());
        r.program = Some(program_text(&shape.litmus("P", space)));
    }
    r
}

/// A litmus file without its `litmus NAME` line: what a record keeps.
fn program_text(litmus: &str) -> String {
    litmus
        .split_once('\n')
        .map_or("", |(_, rest)| rest)
        .to_string()
}

/// Decides every program of `shard` not in `done`, calling `each` with its
/// record. Returns whether it went through the whole shard: false when
/// `pair.cancel` was set or `pair.deadline` passed (`Pair::stopped` names
/// which), and then the program being decided is dropped (its record would
/// name the interruption, not a verdict) and left for a resumed sweep.
pub fn sweep(
    space: &Space,
    pair: &Pair,
    shard: Shard,
    done: &std::collections::HashSet<String>,
    each: &mut dyn FnMut(&Shape, Record),
) -> bool {
    let cancelled = || pair.stopped().is_some();
    let mut known = lattice::Known::default();
    let through = 'groups: {
        for (skeleton, group) in shard.framed_groups(space) {
            known.clear();
            known.set_frames(space, &skeleton, &group);
            for (shape, _) in group {
                // A fresh sweep has nothing done: no text to write per program.
                if !done.is_empty() && done.contains(&shape.body()) {
                    continue;
                }
                if cancelled() {
                    break 'groups false;
                }
                let r = record_known(space, pair, &shape, &mut known);
                if cancelled() {
                    break 'groups false;
                }
                each(&shape, r);
            }
        }
        true
    };
    pair.decided.fetch_add(known.decided, Ordering::Relaxed);
    pair.inferred.fetch_add(known.inferred, Ordering::Relaxed);
    through
}
