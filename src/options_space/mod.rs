//! The option space as a tool: `pomset vary` (a matrix of verdicts, tests ×
//! option settings) and `pomset fit` (the settings that satisfy the most
//! stated expectations, and the minimal sets of expectations no setting
//! satisfies together). Plain serde-serialisable values in and out; the
//! command line and the REPL only print them.
//!
//! `fit` never decides the product of every option. For each test it finds
//! the options that can change its verdicts (`relevant`): start from the
//! options its expectations name in `when`, then vary every other option
//! alone at every setting of the relevant ones, adding any that changes a
//! verdict, until none does. Each test is decided once per distinct model
//! (a cache keyed by the model). The global search then reads the cached
//! verdicts for every setting of the union of the relevant options, and the
//! conflict search works on one bit set per expectation (the settings that
//! satisfy it). What this assumes is stated in the book's "Where the note
//! contradicts itself": an option that changes no verdict when varied alone,
//! at any setting of the relevant options, is taken not to matter together
//! with another such option.

use serde::Serialize;

use crate::engine::pwt::{outcomes, refused};
use crate::model::{Model, OptionInfo};
use crate::outcome::verdict::{judge, meets, Observation};
use crate::outcome::Limits;
use crate::syntax::ast::Verdict;
use crate::syntax::core::{Condition, Program};

mod fit;
mod vary;

pub use fit::{
    fit, fit_text, fit_with, parse_csv, Conflict, Expectation, Explorations, External, Fit,
    FitLimits, Source,
};
pub use vary::{render, vary, vary_with, Matrix, Row, Style};

/// One option set to one value.
pub type Assignment = (&'static str, &'static str);

/// A setting: options with their values, on top of each test's own model.
/// Empty is the default column (each file's own options).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Setting(pub Vec<Assignment>);

impl Setting {
    /// The model for a test: `base` (the file's model) with this setting.
    /// With `pin`, options the file sets (differing from the default) keep
    /// the file's value: the note's verdict is stated under them.
    pub fn apply(&self, base: Model, pin: bool) -> Model {
        let mut m = base;
        for (k, v) in &self.0 {
            if pin && pinned(&base, k) {
                continue;
            }
            // Every name and value comes from `Model::OPTIONS`.
            let _ = m.set(k, v);
        }
        m
    }

    /// `default`, or `name=value, name=value`.
    pub fn label(&self) -> String {
        if self.0.is_empty() {
            return "default".to_string();
        }
        self.0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The assignments that differ from the option's default.
    pub fn non_defaults(&self) -> Setting {
        Setting(
            self.0
                .iter()
                .filter(|(k, v)| info(k).is_some_and(|o| o.default != *v))
                .copied()
                .collect(),
        )
    }
}

fn pinned(base: &Model, name: &str) -> bool {
    info(name).is_some_and(|o| base.get(name) != Some(o.default))
}

fn info(name: &str) -> Option<&'static OptionInfo> {
    Model::OPTIONS.iter().find(|o| o.name == name)
}

/// One condition's verdict under one setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cell {
    /// Some complete pomset ends in the state (herd7: Sometimes).
    Allowed,
    /// Every one does (herd7: Always).
    Always,
    /// None does (herd7: Never).
    Forbidden,
    /// A search limit stopped it.
    Unknown,
    /// The setting is refused (an option value no command decides).
    Unsupported,
}

impl Cell {
    pub fn as_str(self) -> &'static str {
        match self {
            Cell::Allowed => "allowed",
            Cell::Always => "always",
            Cell::Forbidden => "forbidden",
            Cell::Unknown => "unknown",
            Cell::Unsupported => "unsupported",
        }
    }

    fn observation(self) -> Option<Observation> {
        match self {
            Cell::Allowed => Some(Observation::Sometimes),
            Cell::Always => Some(Observation::Always),
            Cell::Forbidden => Some(Observation::Never),
            Cell::Unknown | Cell::Unsupported => None,
        }
    }
}

/// One test decided under one model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decided {
    /// The number of final states, when no limit stopped the search.
    pub states: Option<usize>,
    /// The limit that stopped the search, named.
    pub limit: Option<String>,
    /// Why the model cannot decide the test (a refused option value).
    pub unsupported: Option<String>,
    /// One verdict per condition.
    pub cells: Vec<Cell>,
    /// Per condition, herd7's Ok/No for its quantifier (`None`: not known).
    pub ok: Vec<Option<bool>>,
    /// Per condition, whether the verdict is the one the file expects under
    /// this model (`None`: nothing expected, or not known).
    pub met: Vec<Option<bool>>,
}

/// Decides every condition of `p` under `model`.
pub fn decide(p: &Program, model: &Model, limits: Limits) -> Decided {
    // Only verdicts and a count are read: the states may come one per
    // orbit, or as a product of readers kept apart (`Limits::orbits`).
    let limits = Limits {
        orbits: true,
        ..limits
    };
    match outcomes(p, model, limits) {
        Ok(o) => {
            let judged: Vec<_> = p
                .conditions
                .iter()
                .map(|c| judge(p, c, &o, model))
                .collect();
            Decided {
                states: o.limit.is_none().then_some(o.state_count()),
                limit: o.limit.clone(),
                unsupported: None,
                cells: judged
                    .iter()
                    .map(|j| match j.observation {
                        Some(Observation::Sometimes) => Cell::Allowed,
                        Some(Observation::Always) => Cell::Always,
                        Some(Observation::Never) => Cell::Forbidden,
                        None => Cell::Unknown,
                    })
                    .collect(),
                ok: judged.iter().map(|j| j.ok).collect(),
                met: judged.iter().map(|j| j.met).collect(),
            }
        }
        Err(u) => Decided {
            states: None,
            limit: None,
            unsupported: Some(match u {
                crate::outcome::Unsupported::Option(k, v) => {
                    format!("{k} = {v} is not implemented")
                }
                other => other.sentence(""),
            }),
            cells: p.conditions.iter().map(|_| Cell::Unsupported).collect(),
            ok: p.conditions.iter().map(|_| None).collect(),
            met: p.conditions.iter().map(|_| None).collect(),
        },
    }
}

/// Whether a verdict meets an expectation: `None` when there is nothing to
/// meet (no expectation, `unknown`) or the verdict is not known.
pub fn met(expected: Option<Verdict>, cell: Cell) -> Option<bool> {
    meets(expected?, cell.observation()?)
}

/// The values of an option that some command decides, the default first.
pub fn decidable_values(o: &'static OptionInfo) -> Vec<&'static str> {
    let mut values = vec![o.default];
    for v in o.values.iter().filter(|v| **v != o.default) {
        let mut m = Model::default();
        if m.set(o.name, v).is_ok() && refused(&m).is_ok() {
            values.push(v);
        }
    }
    values
}

/// The option named, or an error naming the closest one.
pub fn option_named(name: &str) -> Result<&'static OptionInfo, String> {
    info(name).ok_or_else(|| {
        match crate::model::closest(name, Model::OPTIONS.iter().map(|o| o.name)) {
            Some(s) => format!("unknown model option `{name}` (did you mean `{s}`?)"),
            None => format!("unknown model option `{name}` (see `pomset options`)"),
        }
    })
}

/// Every combination of the given options' values (each list default
/// first), the all-default combination first; each as its non-default
/// assignments.
fn product(options: &[(&'static str, Vec<&'static str>)]) -> Vec<Setting> {
    let mut out = vec![Vec::new()];
    for (name, values) in options {
        let mut next = Vec::with_capacity(out.len() * values.len());
        for v in values {
            for prefix in &out {
                let mut s: Vec<Assignment> = prefix.clone();
                s.push((name, v));
                next.push(s);
            }
        }
        out = next;
    }
    out.into_iter().map(|s| Setting(s).non_defaults()).collect()
}

/// The settings `vary` decides: the default, then every other decidable
/// value of each option alone, or (`product`) every combination.
/// How many settings [`settings`] lists, counted without listing them
/// (`None` past `u128`): a product grows as the product of the options'
/// values, and its caller names the size before deciding.
pub fn settings_count(options: &[&'static OptionInfo], product_of: bool) -> Option<u128> {
    let sizes = options.iter().map(|o| decidable_values(o).len() as u128);
    match product_of {
        true => sizes
            .into_iter()
            .try_fold(1u128, |acc, n| acc.checked_mul(n)),
        false => Some(1 + sizes.map(|n| n.saturating_sub(1)).sum::<u128>()),
    }
}

pub fn settings(options: &[&'static OptionInfo], product_of: bool) -> Vec<Setting> {
    if product_of {
        let spaces: Vec<_> = options
            .iter()
            .map(|o| (o.name, decidable_values(o)))
            .collect();
        return product(&spaces);
    }
    let mut out = vec![Setting::default()];
    for o in options {
        for v in decidable_values(o).into_iter().skip(1) {
            out.push(Setting(vec![(o.name, v)]));
        }
    }
    out
}

/// A test to vary or fit: the file it came from and its program.
#[derive(Clone, Debug)]
pub struct Test {
    pub file: String,
    pub program: Program,
}

/// The stated expectation of a condition, as the file writes it:
/// `forbidden (allowed when rfi_acq_weakening = on)`; `—` for none.
pub fn stated(c: &Condition) -> String {
    let base = c.expectation(&Model::default()).map(Verdict::as_str);
    let conditional: Vec<String> = c
        .expectations
        .iter()
        .filter(|e| !e.when.is_empty())
        .map(|e| {
            let when: Vec<String> = e.when.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!("{} when {}", e.verdict.as_str(), when.join(", "))
        })
        .collect();
    let base = base.unwrap_or("—");
    if conditional.is_empty() {
        base.to_string()
    } else {
        format!("{base} ({})", conditional.join("; "))
    }
}
