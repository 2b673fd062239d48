//! `pomset fit`: the settings that satisfy the most stated expectations,
//! and the minimal sets of expectations no setting satisfies together.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use rayon::prelude::*;
use serde::Serialize;

use super::*;
use crate::model::Model;
use crate::outcome::Limits;
use crate::syntax::ast::Verdict;
use crate::syntax::core::Condition;

/// The search's limits, each named in a report that reaches it.
#[derive(Clone, Copy, Debug)]
pub struct FitLimits {
    /// Per decision (each test under each model).
    pub decide: Limits,
    /// `--max-conflict-size`: the largest conflicting set looked for.
    pub max_conflict_size: usize,
    /// `--max-settings`: the most settings of the relevant options searched
    /// (per test and overall).
    pub max_settings: usize,
}

impl Default for FitLimits {
    fn default() -> FitLimits {
        FitLimits {
            decide: Limits::default(),
            max_conflict_size: 8,
            max_settings: 1 << 20,
        }
    }
}

/// An expectation from outside the files (`fit --expect FILE.csv`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct External {
    /// The test's name (`litmus NAME`) or its file's stem.
    pub test: String,
    /// The condition: its number from 1, or its text as printed.
    pub condition: String,
    pub verdict: &'static str,
}

/// Reads `test,condition,verdict` lines (a header line and `#` comments
/// are skipped); errors name the line.
pub fn parse_csv(text: &str) -> Result<Vec<External>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [test, condition, verdict] = fields[..] else {
            return Err(format!(
                "line {}: expected `test,condition,verdict`, found {} fields",
                n + 1,
                fields.len()
            ));
        };
        if n == 0 && test == "test" && verdict == "verdict" {
            continue;
        }
        let verdict = Verdict::parse(&verdict.to_lowercase())
            .filter(|v| *v != Verdict::Unknown)
            .ok_or_else(|| {
                format!(
                    "line {}: `{verdict}` is not a verdict; use allowed, forbidden, always, sometimes or never",
                    n + 1
                )
            })?;
        out.push(External {
            test: test.to_string(),
            condition: condition.to_string(),
            verdict: verdict.as_str(),
        });
    }
    Ok(out)
}

/// One expectation `fit` tries to satisfy.
#[derive(Clone, Debug, Serialize)]
pub struct Expectation {
    pub file: String,
    pub test: String,
    pub condition: String,
    /// As stated: the file's lines, or the CSV's verdict.
    pub stated: String,
    /// The options whose value decides whether it is met.
    pub options: Vec<&'static str>,
    /// When it is met, over `options` (`always`, `never`, or the settings).
    pub needs: String,
}

/// A set of expectations that no setting satisfies together, every proper
/// subset of which some setting does.
#[derive(Clone, Debug, Serialize)]
pub struct Conflict {
    /// Indices into `Fit::expectations`.
    pub members: Vec<usize>,
    /// The options that decide it: the union of its members' options.
    pub options: Vec<&'static str>,
}

/// `pomset fit`'s answer.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub expectations: Vec<Expectation>,
    /// The options that can change some verdict with an expectation.
    pub options: Vec<&'static str>,
    /// Per test, its relevant options.
    pub relevant: BTreeMap<String, Vec<&'static str>>,
    /// Decisions made (distinct test × model pairs).
    pub decisions: usize,
    /// Settings of `options` searched.
    pub settings: usize,
    /// How many expectations the defaults satisfy.
    pub default_satisfies: usize,
    /// How many expectations state a verdict under the defaults: those
    /// `pomset run` checks (the others are stated under other settings
    /// only, and the defaults satisfy them trivially).
    pub stated_by_default: usize,
    /// The most any setting satisfies, and how many settings do.
    pub best_satisfies: usize,
    pub best_count: usize,
    /// The best settings with the fewest non-default options first (at most ten).
    pub best: Vec<Setting>,
    /// Per option, the values that occur among the best settings.
    pub best_values: BTreeMap<&'static str, Vec<&'static str>>,
    /// The minimal conflicting sets, smallest first.
    pub conflicts: Vec<Conflict>,
    /// Whether every minimal conflicting set was found (false: the
    /// `--max-conflict-size` limit stopped the search).
    pub complete: bool,
    /// `--max-conflict-size`, as searched.
    pub max_conflict_size: usize,
    /// A limit that stopped the search before any answer, named.
    pub limit: Option<String>,
    /// Expectations left undecided by a limit under some setting (counted unmet).
    pub undecided: Vec<String>,
}

/// Per test: the relevant options and every decision made, by model.
struct Explored {
    relevant: Vec<&'static str>,
    cache: HashMap<Model, Decided>,
    limit: Option<String>,
}

/// The option space: every option with more than one decidable value.
fn space() -> Vec<(&'static str, Vec<&'static str>)> {
    Model::OPTIONS
        .iter()
        .map(|o| (o.name, decidable_values(o)))
        .filter(|(_, v)| v.len() > 1)
        .collect()
}

/// Finds the options that change `p`'s verdicts (see the module's doc),
/// deciding each model once.
fn explore(
    p: &Program,
    space: &[(&'static str, Vec<&'static str>)],
    limits: &FitLimits,
) -> Explored {
    let free: Vec<&(&'static str, Vec<&'static str>)> =
        space.iter().filter(|(n, _)| !pinned(&p.model, n)).collect();
    let mut relevant: Vec<&'static str> = Vec::new();
    for c in &p.conditions {
        for e in &c.expectations {
            for (k, _) in &e.when {
                if free.iter().any(|(n, _)| n == k) && !relevant.contains(k) {
                    relevant.push(k);
                }
            }
        }
    }
    let mut cache: HashMap<Model, Decided> = HashMap::new();
    let cells = |m: Model, cache: &mut HashMap<Model, Decided>| -> Vec<Cell> {
        cache
            .entry(m)
            .or_insert_with(|| decide(p, &m, limits.decide))
            .cells
            .clone()
    };
    'grow: loop {
        let spaces: Vec<_> = free
            .iter()
            .filter(|(n, _)| relevant.contains(n))
            .map(|(n, v)| (*n, v.clone()))
            .collect();
        let size = spaces.iter().map(|(_, v)| v.len()).product::<usize>();
        if size > limits.max_settings {
            return Explored {
                relevant,
                cache,
                limit: Some(format!(
                    "{}: {size} settings of its relevant options exceed --max-settings {}",
                    p.name, limits.max_settings
                )),
            };
        }
        for point in product(&spaces) {
            let m = point.apply(p.model, true);
            let here = cells(m, &mut cache);
            for (name, values) in free.iter().filter(|(n, _)| !relevant.contains(n)) {
                for v in values.iter().skip(1) {
                    let mut other = m;
                    let _ = other.set(name, v);
                    if cells(other, &mut cache) != here {
                        relevant.push(name);
                        continue 'grow;
                    }
                }
            }
        }
        break;
    }
    // Keep the order of `Model::OPTIONS`.
    relevant.sort_by_key(|n| Model::OPTIONS.iter().position(|o| o.name == *n));
    Explored {
        relevant,
        cache,
        limit: None,
    }
}

/// A fixed-size set of settings.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// Which expectations `fit` tries to satisfy: the files' own, or a CSV's.
#[derive(Clone, Debug)]
pub enum Source {
    Files,
    Csv(Vec<External>),
}

/// What `fit` found for each test it explored (the relevant options and
/// every decision), by file and name, under one set of limits: a later
/// `fit_with` over some of the same files reuses it instead of deciding
/// them again.
#[derive(Default)]
pub struct Explorations {
    /// The limits the explorations were made under (`Limits`' debug text
    /// with `--max-settings`); other limits start afresh.
    limits: String,
    by_test: HashMap<(String, String), Explored>,
}

/// Searches the option space for the settings that satisfy the most
/// expectations, and the minimal conflicting sets.
pub fn fit(tests: &[Test], source: &Source, limits: FitLimits) -> Result<Fit, String> {
    fit_with(tests, source, limits, &mut Explorations::default())
}

/// `fit`, reusing and extending `known` (the same files, already explored).
pub fn fit_with(
    tests: &[Test],
    source: &Source,
    limits: FitLimits,
    known: &mut Explorations,
) -> Result<Fit, String> {
    let space = space();
    // Which (test, condition, fixed verdict) pairs are expectations.
    let targets = targets(tests, source)?;
    let stated_by_default = targets
        .iter()
        .filter(|(t, c, fixed)| {
            fixed.is_some()
                || tests[*t].program.conditions[*c]
                    .expectation(&Model::default())
                    .is_some_and(|v| v != Verdict::Unknown)
        })
        .count();
    let wanted: BTreeSet<usize> = targets.iter().map(|t| t.0).collect();
    let key = |t: &Test| (t.file.clone(), t.program.name.clone());
    let under = format!("{:?} {}", limits.decide, limits.max_settings);
    if known.limits != under {
        *known = Explorations {
            limits: under,
            by_test: HashMap::new(),
        };
    }
    let missing: Vec<&Test> = wanted
        .iter()
        .filter_map(|&i| tests.get(i))
        .filter(|t| !known.by_test.contains_key(&key(t)))
        .collect();
    let found: Vec<((String, String), Explored)> = missing
        .par_iter()
        .map(|t| (key(t), explore(&t.program, &space, &limits)))
        .collect();
    known.by_test.extend(found);
    let explored: Vec<Option<&Explored>> = tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            wanted
                .contains(&i)
                .then(|| known.by_test.get(&key(t)))
                .flatten()
        })
        .collect();
    let decisions = explored.iter().flatten().map(|e| e.cache.len()).sum();
    let mut relevant = BTreeMap::new();
    let mut union: BTreeSet<&'static str> = BTreeSet::new();
    for (t, e) in tests.iter().zip(&explored) {
        if let Some(e) = e {
            if let Some(l) = &e.limit {
                return Ok(empty_fit(decisions, l.clone()));
            }
            relevant.insert(t.program.name.clone(), e.relevant.clone());
            union.extend(e.relevant.iter().copied());
        }
    }
    let spaces: Vec<(&'static str, Vec<&'static str>)> = space
        .iter()
        .filter(|(n, _)| union.contains(n))
        .cloned()
        .collect();
    let size = spaces.iter().map(|(_, v)| v.len()).product::<usize>();
    if size > limits.max_settings {
        return Ok(empty_fit(
            decisions,
            format!(
                "{size} settings of the relevant options exceed --max-settings {}",
                limits.max_settings
            ),
        ));
    }
    let points = product(&spaces);
    let mut expectations = Vec::new();
    let mut sets = Vec::new();
    // Per test: the settings left undecided, and what left them so.
    let mut undecided: Vec<(String, Vec<Setting>, BTreeSet<String>)> = Vec::new();
    for &(t, c, fixed) in &targets {
        let test = &tests[t];
        let p = &test.program;
        let Some(ex) = explored[t] else { continue };
        let cond = &p.conditions[c];
        let expected = |m: &Model| fixed.or_else(|| cond.expectation(m));
        let restrict = |s: &Setting| {
            Setting(
                s.0.iter()
                    .filter(|(k, _)| ex.relevant.contains(k))
                    .copied()
                    .collect(),
            )
        };
        // Satisfied, over the test's own relevant options.
        let local: HashMap<Setting, bool> = product(
            &spaces
                .iter()
                .filter(|(n, _)| ex.relevant.contains(n))
                .cloned()
                .collect::<Vec<_>>(),
        )
        .into_iter()
        .map(|s| {
            let m = s.apply(p.model, true);
            let cell = ex
                .cache
                .get(&m)
                .and_then(|d| d.cells.get(c).copied())
                .unwrap_or(Cell::Unknown);
            let want = expected(&m).filter(|v| *v != Verdict::Unknown);
            let ok = match (want, met(want, cell)) {
                (None, _) => true,
                (Some(_), Some(b)) => b,
                (Some(_), None) => {
                    let why = match ex.cache.get(&m) {
                        Some(Decided { limit: Some(l), .. }) => l.clone(),
                        Some(Decided {
                            unsupported: Some(u),
                            ..
                        }) => u.clone(),
                        _ => "zero states".to_string(),
                    };
                    match undecided.iter_mut().find(|(n, _, _)| *n == p.name) {
                        Some((_, settings, whys)) => {
                            if !settings.contains(&s) {
                                settings.push(s.clone());
                            }
                            whys.insert(why);
                        }
                        None => undecided.push((p.name.clone(), vec![s.clone()], [why].into())),
                    }
                    false
                }
            };
            (s, ok)
        })
        .collect();
        // Only conditions with an expectation under some setting count.
        let states_something = local.keys().any(|s| {
            let m = s.apply(p.model, true);
            expected(&m).is_some_and(|v| v != Verdict::Unknown)
        });
        if !states_something {
            continue;
        }
        let mut bits = Bits::new(points.len());
        for (i, s) in points.iter().enumerate() {
            if local.get(&restrict(s)).copied().unwrap_or(false) {
                bits.set(i);
            }
        }
        let (options, needs) = describe(&local, &ex.relevant);
        let surface = crate::syntax::print::core_to_ast(p);
        expectations.push(Expectation {
            file: test.file.clone(),
            test: p.name.clone(),
            condition: surface
                .conditions
                .get(c)
                .map(|x| crate::syntax::print::prop(&x.prop, 0))
                .unwrap_or_default(),
            stated: match fixed {
                Some(v) => v.as_str().to_string(),
                None => stated(cond),
            },
            options,
            needs,
        });
        sets.push(bits);
    }
    let counts: Vec<usize> = (0..points.len())
        .map(|i| sets.iter().filter(|b| b.get(i)).count())
        .collect();
    let best_satisfies = counts.iter().copied().max().unwrap_or(0);
    let mut best: Vec<Setting> = points
        .iter()
        .zip(&counts)
        .filter(|(_, n)| **n == best_satisfies)
        .map(|(s, _)| s.clone())
        .collect();
    let best_count = best.len();
    let mut best_values: BTreeMap<&'static str, Vec<&'static str>> = BTreeMap::new();
    for (name, values) in &spaces {
        let seen: Vec<&'static str> = values
            .iter()
            .copied()
            .filter(|v| {
                best.iter().any(|s| {
                    s.0.iter()
                        .find(|(k, _)| k == name)
                        .map_or(info(name).is_some_and(|o| o.default == *v), |(_, x)| x == v)
                })
            })
            .collect();
        best_values.insert(name, seen);
    }
    best.sort_by_key(|s| (s.0.len(), s.clone()));
    best.truncate(10);
    let (conflicts, complete) = conflicts(&sets, points.len(), limits.max_conflict_size);
    let conflicts = conflicts
        .into_iter()
        .map(|members| {
            let mut options: Vec<&'static str> = members
                .iter()
                .flat_map(|m| expectations[*m].options.iter().copied())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            options.sort_by_key(|n| Model::OPTIONS.iter().position(|o| o.name == *n));
            Conflict { members, options }
        })
        .collect();
    Ok(Fit {
        expectations,
        options: spaces.iter().map(|(n, _)| *n).collect(),
        relevant,
        decisions,
        settings: points.len(),
        default_satisfies: counts.first().copied().unwrap_or(0),
        stated_by_default,
        best_satisfies,
        best_count,
        best,
        best_values,
        conflicts,
        complete,
        max_conflict_size: limits.max_conflict_size,
        limit: None,
        undecided: undecided
            .into_iter()
            .map(|(t, s, why)| {
                let why: Vec<String> = why.into_iter().collect();
                format!("{} ({})", undecided_text(&t, &s), why.join(", "))
            })
            .collect(),
    })
}

/// One test's settings left undecided by a limit, in a line: the setting
/// when there is one, else how many and the assignments they all share.
fn undecided_text(test: &str, settings: &[Setting]) -> String {
    match settings {
        [one] => format!("{test} under {}", one.label()),
        _ => {
            let shared: Vec<String> = settings[0]
                .0
                .iter()
                .filter(|a| settings.iter().all(|s| s.0.contains(a)))
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let with = if shared.is_empty() {
                String::new()
            } else {
                format!(", every one with {}", shared.join(", "))
            };
            format!("{test} under {} settings{with}", settings.len())
        }
    }
}

fn empty_fit(decisions: usize, limit: String) -> Fit {
    Fit {
        expectations: vec![],
        options: vec![],
        relevant: BTreeMap::new(),
        decisions,
        settings: 0,
        default_satisfies: 0,
        stated_by_default: 0,
        best_satisfies: 0,
        best_count: 0,
        best: vec![],
        best_values: BTreeMap::new(),
        conflicts: vec![],
        complete: false,
        max_conflict_size: 0,
        limit: Some(limit),
        undecided: vec![],
    }
}

/// The expectations as (test, condition, fixed verdict): the files' own
/// (`None`: read from the condition under each setting), or the CSV's.
fn targets(
    tests: &[Test],
    source: &Source,
) -> Result<Vec<(usize, usize, Option<Verdict>)>, String> {
    match source {
        // Only conditions that state a verdict under some setting.
        Source::Files => Ok(tests
            .iter()
            .enumerate()
            .flat_map(|(t, test)| {
                test.program
                    .conditions
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| states_a_verdict(c))
                    .map(move |(c, _)| (t, c, None))
            })
            .collect()),
        Source::Csv(rows) => rows
            .iter()
            .map(|r| {
                let t = tests
                    .iter()
                    .position(|t| {
                        t.program.name.eq_ignore_ascii_case(&r.test)
                            || std::path::Path::new(&t.file)
                                .file_stem()
                                .is_some_and(|s| s.eq_ignore_ascii_case(r.test.as_str()))
                    })
                    .ok_or_else(|| format!("no test named `{}` among the files", r.test))?;
                let p = &tests[t].program;
                let surface = crate::syntax::print::core_to_ast(p);
                let c = match r.condition.parse::<usize>() {
                    Ok(n) if n >= 1 && n <= p.conditions.len() => n - 1,
                    _ => surface
                        .conditions
                        .iter()
                        .position(|c| crate::syntax::print::prop(&c.prop, 0) == r.condition)
                        .ok_or_else(|| {
                            format!(
                                "{} has no condition `{}` (give its number from 1 or its text)",
                                p.name, r.condition
                            )
                        })?,
                };
                Ok((t, c, Verdict::parse(r.verdict)))
            })
            .collect(),
    }
}

/// Whether a condition states a verdict (other than `unknown`) under some setting.
fn states_a_verdict(c: &Condition) -> bool {
    c.expectation(&Model::default())
        .is_some_and(|v| v != Verdict::Unknown)
        || c.expectations.iter().any(|e| e.verdict != Verdict::Unknown)
}

/// Settings over `options` as cubes: each option a set of values. Two
/// cubes equal but for one option merge into one with the union there,
/// until none merge: a short, exact description of a set of settings (not
/// always the shortest).
fn cubes(
    set: &BTreeSet<Setting>,
    options: &[(&'static str, Vec<&'static str>)],
) -> Vec<Vec<BTreeSet<&'static str>>> {
    let mut cubes: BTreeSet<Vec<BTreeSet<&'static str>>> = set
        .iter()
        .map(|s| {
            options
                .iter()
                .map(|(k, _)| {
                    s.0.iter()
                        .filter(|(n, _)| n == k)
                        .map(|(_, v)| *v)
                        .collect()
                })
                .collect()
        })
        .collect();
    'merge: loop {
        for i in 0..options.len() {
            let mut groups: BTreeMap<
                Vec<BTreeSet<&'static str>>,
                Vec<Vec<BTreeSet<&'static str>>>,
            > = BTreeMap::new();
            for c in &cubes {
                let mut key = c.clone();
                key[i] = BTreeSet::new();
                groups.entry(key).or_default().push(c.clone());
            }
            if let Some((mut key, group)) = groups.into_iter().find(|(_, g)| g.len() > 1) {
                for c in &group {
                    cubes.remove(c);
                    key[i].extend(c[i].iter().copied());
                }
                cubes.insert(key);
                continue 'merge;
            }
        }
        return cubes.into_iter().collect();
    }
}

/// One cube as `a=x ∧ b≠y ∧ c∈{u, v}` (an option with every value left out).
fn cube_text(
    cube: &[BTreeSet<&'static str>],
    options: &[(&'static str, Vec<&'static str>)],
) -> String {
    let parts: Vec<String> = cube
        .iter()
        .zip(options)
        .filter(|(vs, (_, all))| vs.len() < all.len())
        .map(|(vs, (k, all))| {
            let missing: Vec<&&str> = all.iter().filter(|v| !vs.contains(**v)).collect();
            match (vs.len(), missing.as_slice()) {
                (1, _) => format!("{k}={}", vs.iter().next().copied().unwrap_or_default()),
                (_, [one]) => format!("{k}≠{one}"),
                _ => format!(
                    "{k}∈{{{}}}",
                    all.iter()
                        .filter(|v| vs.contains(**v))
                        .copied()
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            }
        })
        .collect();
    if parts.is_empty() {
        "any".to_string()
    } else {
        parts.join(" ∧ ")
    }
}

/// The options an expectation depends on (varying one changes whether it
/// is met at some setting), and when it is met over them.
fn describe(
    local: &HashMap<Setting, bool>,
    relevant: &[&'static str],
) -> (Vec<&'static str>, String) {
    let value_of = |s: &Setting, k: &str| {
        s.0.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| *v)
            .or_else(|| info(k).map(|o| o.default))
    };
    let options: Vec<&'static str> = relevant
        .iter()
        .copied()
        .filter(|k| {
            local.iter().any(|(s, ok)| {
                local.iter().any(|(s2, ok2)| {
                    ok != ok2
                        && relevant
                            .iter()
                            .all(|o| o == k || value_of(s, o) == value_of(s2, o))
                })
            })
        })
        .collect();
    let project = |s: &Setting| {
        Setting(
            options
                .iter()
                .filter_map(|k| Some((*k, value_of(s, k)?)))
                .collect(),
        )
    };
    let mut yes: BTreeSet<Setting> = BTreeSet::new();
    let mut no: BTreeSet<Setting> = BTreeSet::new();
    for (s, ok) in local {
        if *ok {
            yes.insert(project(s));
        } else {
            no.insert(project(s));
        }
    }
    let spaces: Vec<(&'static str, Vec<&'static str>)> = options
        .iter()
        .filter_map(|k| Some((*k, decidable_values(info(k)?))))
        .collect();
    let show = |set: &BTreeSet<Setting>| {
        let cubes = cubes(set, &spaces);
        let text = cubes
            .iter()
            .map(|c| cube_text(c, &spaces))
            .collect::<Vec<_>>();
        (cubes.len(), text.join(" or "))
    };
    let needs = if no.is_empty() {
        "always".to_string()
    } else if yes.is_empty() {
        "never".to_string()
    } else {
        let (y, yes) = show(&yes);
        let (n, no) = show(&no);
        if y <= n {
            format!("met when {yes}")
        } else {
            format!("unmet when {no}")
        }
    };
    (options, needs)
}

/// Every minimal set of expectations whose sets of satisfying settings
/// have an empty intersection, of at most `max` members, smallest first,
/// and whether the enumeration was complete.
///
/// A set conflicts iff every setting fails one of its members: the minimal
/// conflicting sets are exactly the minimal transversals of the family
/// {the expectations a setting fails : every setting}, enumerated with
/// Berge's algorithm (one edge at a time, keeping the minimal partial
/// transversals). A partial transversal is a subset of every final one it
/// grows into, so dropping those above `max` loses no answer of at most
/// `max` members; whether any was dropped is reported.
fn conflicts(sets: &[Bits], points: usize, max: usize) -> (Vec<Vec<usize>>, bool) {
    // Only expectations some setting fails can be in a conflict.
    let candidates: Vec<usize> = (0..sets.len())
        .filter(|i| sets[*i].count() < points)
        .collect();
    if candidates.len() > 128 {
        return (vec![], false);
    }
    let mut edges: BTreeSet<u128> = BTreeSet::new();
    for p in 0..points {
        let failed = candidates
            .iter()
            .enumerate()
            .filter(|(_, i)| !sets[**i].get(p))
            .fold(0u128, |e, (k, _)| e | 1 << k);
        if failed == 0 {
            // This setting satisfies every expectation: nothing conflicts.
            return (vec![], true);
        }
        edges.insert(failed);
    }
    let edges = minimal_sets(edges.into_iter().collect());
    let mut transversals: Vec<u128> = vec![0];
    let mut complete = true;
    for e in edges {
        let mut next = Vec::new();
        for t in &transversals {
            if t & e != 0 {
                next.push(*t);
                continue;
            }
            for k in 0..128 {
                if e >> k & 1 == 1 {
                    let grown = t | 1 << k;
                    if grown.count_ones() as usize > max {
                        complete = false;
                    } else {
                        next.push(grown);
                    }
                }
            }
        }
        transversals = minimal_sets(next);
    }
    let mut found: Vec<Vec<usize>> = transversals
        .into_iter()
        .map(|t| {
            (0..candidates.len())
                .filter(|k| t >> k & 1 == 1)
                .map(|k| candidates[k])
                .collect()
        })
        .collect();
    found.sort_by_key(|c: &Vec<usize>| (c.len(), c.clone()));
    (found, complete)
}

/// The sets of `sets` that contain no other (duplicates removed).
fn minimal_sets(mut sets: Vec<u128>) -> Vec<u128> {
    sets.sort_by_key(|s| (s.count_ones(), *s));
    sets.dedup();
    let mut kept: Vec<u128> = Vec::new();
    for s in sets {
        if !kept.iter().any(|k| k & s == *k) {
            kept.push(s);
        }
    }
    kept
}

/// `fit`'s answer as text, or (`md`) as Markdown for the book.
pub fn fit_text(f: &Fit, md: bool) -> String {
    let mut out = String::new();
    if let Some(l) = &f.limit {
        let _ = writeln!(out, "Limit reached: {l}; nothing is concluded.");
        return out;
    }
    let code = |s: &str| if md { format!("`{s}`") } else { s.to_string() };
    let list = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")
        }
    };
    let n = f.expectations.len();
    let _ = writeln!(
        out,
        "{n} stated expectations; the options that change a verdict with one: {} ({} settings of them searched, {} decisions).",
        list(&f.options),
        f.settings,
        f.decisions
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "The defaults satisfy {} of {n}{}; the best settings satisfy {} ({} settings{}), with the fewest options changed first:",
        f.default_satisfies,
        match f.stated_by_default == n {
            true => String::new(),
            false => format!(
                " (`pomset run` checks the {} stated under the defaults, a disputed one as not met; the other {} are stated under other settings only)",
                f.stated_by_default,
                n - f.stated_by_default
            ),
        },
        f.best_satisfies,
        f.best_count,
        if f.best_count > f.best.len() {
            format!("; the first {} shown", f.best.len())
        } else {
            String::new()
        }
    );
    let _ = writeln!(out);
    for s in &f.best {
        let _ = writeln!(out, "- {}", code(&s.label()));
    }
    let free: Vec<String> = f
        .best_values
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, v)| format!("{} ∈ {{{}}}", code(k), v.join(", ")))
        .collect();
    let fixed: Vec<String> = f
        .best_values
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(k, v)| code(&format!("{k}={}", v[0])))
        .collect();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Every best setting has {}; among them {}.",
        if fixed.is_empty() {
            "no option fixed".to_string()
        } else {
            fixed.join(", ")
        },
        if free.is_empty() {
            "nothing else varies".to_string()
        } else {
            free.join(", ")
        }
    );
    let _ = writeln!(out);
    let label = |i: usize| {
        let e = &f.expectations[i];
        format!("{} {} ({})", e.test, e.stated, e.condition)
    };
    if f.conflicts.is_empty() && f.complete {
        let _ = writeln!(out, "Some setting satisfies every expectation together.");
    } else if f.conflicts.is_empty() {
        let _ = writeln!(
            out,
            "No conflicting set of at most {} expectations — NOT complete: --max-conflict-size stopped the search; larger sets were not looked for.",
            f.max_conflict_size
        );
    } else {
        let _ = writeln!(
            out,
            "{} minimal conflicting sets (no setting satisfies a set together; every smaller part of it some setting does){}:",
            f.conflicts.len(),
            if f.complete {
                String::new()
            } else {
                " — NOT complete: --max-conflict-size stopped the search; larger sets were not looked for".to_string()
            }
        );
        let _ = writeln!(out);
        for (k, c) in f.conflicts.iter().enumerate() {
            let names: Vec<String> = c
                .members
                .iter()
                .map(|i| f.expectations[*i].test.clone())
                .collect();
            let _ = writeln!(
                out,
                "{}. {}: decided by {}",
                k + 1,
                names.join(" vs "),
                list(&c.options)
            );
            for i in &c.members {
                let e = &f.expectations[*i];
                let _ = writeln!(out, "   - {}: {}", label(*i), code(&e.needs));
            }
        }
    }
    if !f.undecided.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Left undecided by a limit, or by zero states (counted as not met): {}",
            f.undecided.join("; ")
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "The expectations and when each is met:");
    let _ = writeln!(out);
    if md {
        let _ = writeln!(out, "| test | condition | stated | options | met |");
        let _ = writeln!(out, "|---|---|---|---|---|");
    }
    for e in &f.expectations {
        let opts = list(&e.options);
        if md {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {} |",
                e.test,
                e.condition.replace('|', "\\|"),
                e.stated,
                opts,
                code(&e.needs).replace('|', "\\|")
            );
        } else {
            let _ = writeln!(
                out,
                "  {} {} ({}): {} [{}]",
                e.test, e.stated, e.condition, e.needs, opts
            );
        }
    }
    out
}
