//! Final states and what a search found: the vocabulary every engine
//! returns and every report reads.

use std::collections::BTreeMap;

use super::orbit::Orbits;
use crate::syntax::core::{Stmt, ThreadId};

/// A final state: each register's and each observed location's value
/// (`None`: not determined, for instance a register whose read was dropped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub regs: Vec<(String, Option<i64>)>,
    pub mem: Vec<(String, Option<i64>)>,
}

/// States order by their values first, then by names. One program's states
/// name the same registers and locations in the same order, so this is the
/// order of the (name, value) pairs, found without comparing the names of
/// every pair (which dominated the cost of keeping a million states).
impl Ord for State {
    fn cmp(&self, other: &State) -> std::cmp::Ordering {
        let mine = self.regs.iter().chain(&self.mem).map(|(_, v)| v);
        let theirs = other.regs.iter().chain(&other.mem).map(|(_, v)| v);
        mine.cmp(theirs)
            .then_with(|| (&self.regs, &self.mem).cmp(&(&other.regs, &other.mem)))
    }
}

impl PartialOrd for State {
    fn partial_cmp(&self, other: &State) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// What deciding a test found.
#[derive(Clone, Debug)]
pub struct Outcomes {
    /// Each final state with the number of complete pomsets (with rf) ending in it.
    pub states: BTreeMap<State, usize>,
    /// Complete pomsets found (each with its rf and orders).
    pub witnesses: usize,
    /// Which limit stopped the search, if one did.
    pub limit: Option<String>,
    /// The logic layer's counters for this test (`--stats`).
    pub stats: crate::logic::Stats,
    /// The engine's own counters (`--stats`), each named as the report
    /// prints it: what its search visited (sc's configurations, a cat
    /// model's steps) and the reductions it took (spin loops decided
    /// as their last pass). Empty for an engine that counts none.
    pub counters: Vec<(&'static str, u64)>,
    /// What the outcomes leave out, one sentence each (values outside V).
    pub notes: Vec<String>,
    /// A cat model's raised flags (`flag ~empty race as data-race`), each
    /// with the number of consistent executions (within `filter`) raising it.
    pub flags: Vec<(String, usize)>,
    /// With `Limits::orbits`, the states of interchangeable threads, one
    /// per orbit; they are then not in `states`.
    pub orbits: Option<Orbits>,
    /// With `Limits::orbits`, where the engine has shown its readers
    /// independent: every state, as a product (`factored`); they are then
    /// not in `states`.
    pub factored: Option<super::factored::Factored>,
}

impl Outcomes {
    /// No state, no witness, no limit.
    pub fn empty() -> Outcomes {
        Outcomes {
            states: BTreeMap::new(),
            witnesses: 0,
            limit: None,
            stats: crate::logic::Stats::default(),
            counters: Vec::new(),
            notes: Vec::new(),
            flags: Vec::new(),
            orbits: None,
            factored: None,
        }
    }

    /// How many final states there are, orbits' members included.
    pub fn state_count(&self) -> usize {
        let orbits = self.orbits.as_ref().map_or(0, Orbits::states);
        let product = self.factored.as_ref().map_or(0, |f| f.states());
        self.states
            .len()
            .saturating_add(orbits)
            .saturating_add(product)
    }
}

/// What a condition-directed search (`goal.rs`) found.
#[derive(Clone, Debug)]
pub struct Settled {
    /// The first final state found that meets the goal; `None` when no
    /// complete pomset ends in one (unless `limit` says the search stopped).
    pub found: Option<State>,
    /// Complete pomsets visited before the search stopped.
    pub witnesses: usize,
    pub limit: Option<String>,
    pub stats: crate::logic::Stats,
    pub notes: Vec<String>,
}

/// Why `if_closure = on` is refused, and what to use instead.
const WHY_NOT_ON: &str =
    "its guards may be any formulas; use if_closure = registers, the reading decided";

/// Why `dropped_read = unchanged` decides no outcome.
const WHY_NOT_UNCHANGED: &str = "only refine's pomset-level check reads it; a test's \
     outcomes are decided with dropped_read = symbol";

/// Why a test cannot be decided under this model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    Option(&'static str, &'static str),
    /// A construct only the Vulkan model defines (a `barrier`, a Vulkan
    /// qualifier, the `sg` scope), with its place in the file.
    VulkanOnly(&'static str, crate::syntax::span::Span),
}

impl std::fmt::Display for Unsupported {
    /// `k = v` for an option; the construct and where to run it for Vulkan.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsupported::Option("if_closure", "on") => write!(f, "if_closure = on ({WHY_NOT_ON})"),
            Unsupported::Option("dropped_read", "unchanged") => {
                write!(f, "dropped_read = unchanged ({WHY_NOT_UNCHANGED})")
            }
            Unsupported::Option(k, v) => write!(f, "{k} = {v}"),
            Unsupported::VulkanOnly(what, _) => write!(
                f,
                "{what}, defined by the Vulkan model only (run with --model vulkan),"
            ),
        }
    }
}

impl Unsupported {
    /// The refusal as one sentence, for a report: `tail` follows an option.
    pub fn sentence(&self, tail: &str) -> String {
        match self {
            Unsupported::Option("if_closure", "on") => {
                format!("if_closure = on is refused: {WHY_NOT_ON}")
            }
            Unsupported::Option("dropped_read", "unchanged") => {
                format!("dropped_read = unchanged is refused: {WHY_NOT_UNCHANGED}")
            }
            Unsupported::Option(k, v) => format!("{k} = {v} {tail}"),
            Unsupported::VulkanOnly(what, _) => {
                format!("{what} is defined by the Vulkan model only; run with --model vulkan")
            }
        }
    }
}

/// The threads whose registers top-level thread `tid` reports, in every
/// engine's order (the pomset engine's `decide::final_registers`): itself, then its forks as
/// PAR collects them (left's, right's, then the left thread itself).
pub fn reported_threads(tid: ThreadId, body: &Stmt) -> Vec<ThreadId> {
    fn forks(s: &Stmt, out: &mut Vec<ThreadId>) {
        match s {
            Stmt::Seq(parts) => parts.iter().for_each(|s| forks(s, out)),
            Stmt::If { then, els, .. } => {
                forks(then, out);
                forks(els, out);
            }
            Stmt::Par {
                thread,
                left,
                right,
            } => {
                forks(left, out);
                forks(right, out);
                out.push(*thread);
            }
            _ => {}
        }
    }
    let mut out = vec![tid];
    forks(body, &mut out);
    out
}

/// The one line that says an option value is refused, and where to read why.
pub fn unsupported_text(option: &str) -> String {
    format!(
        "{option} is not implemented (the book's \"The semantics\", section \"Not implemented\", says why); choose another value with --set"
    )
}

/// What the pomset semantics refuses, as one line: an option value (with
/// where to read why) or a construct only the Vulkan model defines (with
/// the model to run instead).
pub fn refusal_text(u: &Unsupported) -> String {
    match u {
        Unsupported::Option(..) => unsupported_text(&u.to_string()),
        Unsupported::VulkanOnly(..) => u.sentence(""),
    }
}

/// What a model says a raised flag means: the model's own statement (a
/// cat model's `undefined NAME`, `defined NAME` or `unsupported NAME`),
/// read by every command that compares programs (`refine`, the table,
/// `distinguish`, `compare`, the explorer), never decided per model name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlagMeaning {
    /// Raised in some consistent execution, the program has undefined
    /// behaviour: every outcome is allowed (C++'s and Vulkan's data races,
    /// HRF's heterogeneous races). A context where the source raises it
    /// tests nothing (it is vacuous); a target raising it alone is a
    /// counterexample.
    Undefined,
    /// Raised, the program is still defined and its outcomes are those
    /// listed (PTX's data races: "PTX does not declare racy programs to be
    /// illegal"). Outcomes are compared as for a program without it.
    Defined,
    /// Raised, the model does not describe the program (HRF's fences): no
    /// verdict from that program.
    Unsupported,
    /// The model does not say: no verdict rests on a program raising it.
    Undeclared,
}

impl FlagMeaning {
    /// The word a cat model declares it with (`undefined data-race`).
    pub fn keyword(self) -> &'static str {
        match self {
            FlagMeaning::Undefined => "undefined",
            FlagMeaning::Defined => "defined",
            FlagMeaning::Unsupported => "unsupported",
            FlagMeaning::Undeclared => "undeclared",
        }
    }

    /// How a report explains it, after the flag's name.
    pub fn gloss(self) -> &'static str {
        match self {
            FlagMeaning::Undefined => "undefined behaviour: every outcome allowed",
            FlagMeaning::Defined => "defined behaviour: the outcomes listed stand",
            FlagMeaning::Unsupported => "the model does not describe this program",
            FlagMeaning::Undeclared => "the model does not declare what it means",
        }
    }
}
