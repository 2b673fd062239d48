//! Oracles for `refine` (issue 27 §3), on random fragments and random
//! rewrites of them:
//!
//! - reflexivity: every fragment refines itself, under every option value;
//! - soundness against contexts: when `refine` says sound, no context (up to
//!   three threads of reads and writes of the fragment's locations) shows an
//!   outcome for the target that the source lacks, by the ordinary `run`;
//!   when it prints a distinguishing test, that test distinguishes them;
//! - transitivity: A → B and B → C sound make A → C sound.
//!
//! The fragments use registers before assigning them (`q := q + 1`),
//! `if` and loops (`while`, `do ... while`) beside accesses, fences, FADD
//! and forks. Cheap by default; `PROPTEST_CASES=2000` for a long run.

use std::collections::BTreeSet;

use pomset::engine::pwt::decide;
use pomset::model::Model;
use pomset::outcome::verdict;
use pomset::refinement::{parse_refinement, refine, Limits, RefineReport, Verdict};
use pomset::syntax;
use proptest::prelude::*;

const LOCS: [&str; 2] = ["x", "y"];

/// A fragment's statement: the shapes the note's §2 transformations touch.
#[derive(Clone, Debug, PartialEq)]
enum S {
    Write {
        loc: usize,
        mode: &'static str,
        scope: &'static str,
        value: Value,
    },
    Read {
        reg: String,
        loc: usize,
        mode: &'static str,
        scope: &'static str,
    },
    Fence(&'static str),
    Fadd {
        reg: Option<String>,
        loc: usize,
    },
    Let {
        reg: String,
        value: Value,
    },
    If {
        reg: String,
        then: Vec<S>,
        els: Vec<S>,
    },
    Fork(Vec<S>),
    /// Code read as written: a register used before any assignment, or a
    /// loop (issue 38 asks the oracles for both).
    Raw(&'static str),
}

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    Reg(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Reg(r) => write!(f, "{r}"),
        }
    }
}

fn print(ss: &[S]) -> String {
    let mut out = String::new();
    for s in ss {
        out.push_str(&match s {
            S::Write {
                loc,
                mode,
                scope,
                value,
            } => format!("{}.{mode}.{scope} := {value}; ", LOCS[*loc]),
            S::Read {
                reg,
                loc,
                mode,
                scope,
            } => format!("{reg} := {}.{mode}.{scope}; ", LOCS[*loc]),
            S::Fence(mode) => format!("F.{mode}; "),
            S::Fadd { reg: Some(r), loc } => format!("{r} := FADD({}, 1); ", LOCS[*loc]),
            S::Fadd { reg: None, loc } => format!("FADD({}, 1); ", LOCS[*loc]),
            S::Let { reg, value } => format!("{reg} := {value}; "),
            S::If { reg, then, els } => format!(
                "if ({reg} = 1) {{ {}}} else {{ {}}} ",
                print(then),
                print(els)
            ),
            S::Fork(left) => format!("( {}|| skip; ) ", print(left)),
            S::Raw(text) => format!("{text} "),
        });
    }
    if out.is_empty() {
        "skip; ".into()
    } else {
        out
    }
}

/// A raw leaf: proptest draws numbers, `leaf` gives them meaning.
type Raw = (u8, u8, u8, u8);

fn leaf((kind, loc, mode, val): Raw, regs: &mut Vec<String>) -> S {
    let loc = loc as usize % LOCS.len();
    let scope = ["sys", "sys", "gpu", "cta"][mode as usize / 4 % 4];
    let fresh = |regs: &mut Vec<String>| {
        let r = format!("r{}", regs.len());
        regs.push(r.clone());
        r
    };
    match kind % 8 {
        0 | 1 => {
            let value = match regs.last() {
                Some(r) if val % 3 == 2 => Value::Reg(r.clone()),
                _ => Value::Int(1 + i64::from(val % 2)),
            };
            let mode = ["rlx", "rlx", "rel", "sc"][mode as usize % 4];
            S::Write {
                loc,
                mode,
                scope,
                value,
            }
        }
        2 | 3 => S::Read {
            reg: fresh(regs),
            loc,
            mode: ["rlx", "rlx", "acq", "sc"][mode as usize % 4],
            scope,
        },
        4 => S::Fence(["rel", "acq", "sc", "ra"][mode as usize % 4]),
        5 => S::Fadd {
            reg: (val % 2 == 0).then(|| fresh(regs)),
            loc,
        },
        _ => S::Write {
            loc,
            mode: "rlx",
            scope: "sys",
            value: Value::Int(1),
        },
    }
}

/// A fragment of up to four statements: leaves, sometimes an `if` on an
/// earlier register (its branches sometimes start alike, for hoisting), and
/// sometimes a fork.
fn fragment() -> impl Strategy<Value = Vec<S>> {
    let raw = (0u8..16, 0u8..4, 0u8..16, 0u8..6);
    (prop::collection::vec(raw, 1..5), any::<u8>()).prop_map(|(raws, shape)| {
        let mut regs: Vec<String> = Vec::new();
        let mut out: Vec<S> = Vec::new();
        for (i, &(kind, loc, mode, val)) in raws.iter().enumerate() {
            match kind {
                12 | 13 if !regs.is_empty() => {
                    let reg = regs[val as usize % regs.len()].clone();
                    let head = leaf((0, loc, mode % 4, 0), &mut Vec::new());
                    let other = leaf((6, loc + 1, 0, 0), &mut Vec::new());
                    let (then, els) = if shape >> i & 1 == 1 {
                        (vec![head.clone(), other], vec![head])
                    } else {
                        (vec![head], vec![])
                    };
                    out.push(S::If { reg, then, els });
                }
                14 if shape % 4 == 0 => {
                    let body = leaf((kind % 4, loc, mode, val), &mut vec![]);
                    let body = match body {
                        S::Read { loc, mode, .. } => S::Read {
                            reg: "f0".into(),
                            loc,
                            mode,
                            scope: "sys",
                        },
                        other => other,
                    };
                    out.push(S::Fork(vec![body]));
                }
                15 => out.push(S::Raw(
                    [
                        "q := q + 1;",
                        "x := q;",
                        "if (q = 0) { q := y; }",
                        "while (q = 0) { q := x.rlx; }",
                        "do { y := 1; } while (q = 1);",
                    ][val as usize % 5],
                )),
                _ => out.push(leaf((kind, loc, mode, val), &mut regs)),
            }
        }
        out
    })
}

fn stronger(mode: &'static str, read: bool) -> Option<&'static str> {
    match (mode, read) {
        ("rlx", false) => Some("rel"),
        ("rlx", true) => Some("acq"),
        ("rel", false) | ("acq", true) => Some("sc"),
        _ => None,
    }
}

fn wider(scope: &'static str) -> Option<&'static str> {
    match scope {
        "cta" => Some("gpu"),
        "gpu" => Some("sys"),
        _ => None,
    }
}

/// Every rewrite of §2's kinds that applies at the top level: reorder two
/// adjacent statements, eliminate a redundant read or write (merge), drop a
/// read, forward a store, strengthen a mode or a scope, hoist a common first
/// statement out of an `if`.
fn rewrites(f: &[S]) -> Vec<Vec<S>> {
    let mut out = Vec::new();
    let with = |i: usize, n: usize, new: Vec<S>| -> Vec<S> {
        let mut g = f[..i].to_vec();
        g.extend(new);
        g.extend_from_slice(&f[i + n..]);
        g
    };
    for i in 0..f.len() {
        if i + 1 < f.len() {
            out.push(with(i, 2, vec![f[i + 1].clone(), f[i].clone()]));
            match (&f[i], &f[i + 1]) {
                (
                    S::Read { reg, loc, .. },
                    S::Read {
                        reg: r2, loc: l2, ..
                    },
                ) if loc == l2 => {
                    let value = Value::Reg(reg.clone());
                    let keep = f[i].clone();
                    out.push(with(
                        i,
                        2,
                        vec![
                            keep,
                            S::Let {
                                reg: r2.clone(),
                                value,
                            },
                        ],
                    ));
                }
                (S::Write { loc, .. }, S::Write { loc: l2, .. }) if loc == l2 => {
                    out.push(with(i, 2, vec![f[i + 1].clone()]));
                }
                (S::Write { loc, value, .. }, S::Read { reg, loc: l2, .. }) if loc == l2 => {
                    let (keep, value) = (f[i].clone(), value.clone());
                    out.push(with(
                        i,
                        2,
                        vec![
                            keep,
                            S::Let {
                                reg: reg.clone(),
                                value,
                            },
                        ],
                    ));
                }
                _ => {}
            }
        }
        match &f[i] {
            S::Read {
                reg,
                loc,
                mode,
                scope,
            } => {
                out.push(with(i, 1, vec![]));
                if let Some(m) = stronger(mode, true) {
                    let (reg, loc, scope) = (reg.clone(), *loc, *scope);
                    out.push(with(
                        i,
                        1,
                        vec![S::Read {
                            reg,
                            loc,
                            mode: m,
                            scope,
                        }],
                    ));
                }
                if let Some(w) = wider(scope) {
                    let (reg, loc, mode) = (reg.clone(), *loc, *mode);
                    out.push(with(
                        i,
                        1,
                        vec![S::Read {
                            reg,
                            loc,
                            mode,
                            scope: w,
                        }],
                    ));
                }
            }
            S::Write {
                loc,
                mode,
                scope,
                value,
            } => {
                if let Some(m) = stronger(mode, false) {
                    let (value, loc, scope) = (value.clone(), *loc, *scope);
                    out.push(with(
                        i,
                        1,
                        vec![S::Write {
                            loc,
                            mode: m,
                            scope,
                            value,
                        }],
                    ));
                }
                if let Some(w) = wider(scope) {
                    let (value, loc, mode) = (value.clone(), *loc, *mode);
                    out.push(with(
                        i,
                        1,
                        vec![S::Write {
                            loc,
                            mode,
                            scope: w,
                            value,
                        }],
                    ));
                }
            }
            S::Fence(m) if *m != "sc" => out.push(with(i, 1, vec![S::Fence("sc")])),
            S::If { reg, then, els } if !then.is_empty() && then.first() == els.first() => {
                let rest = S::If {
                    reg: reg.clone(),
                    then: then[1..].to_vec(),
                    els: els[1..].to_vec(),
                };
                out.push(with(i, 1, vec![then[0].clone(), rest]));
            }
            _ => {}
        }
    }
    out
}

/// A fragment and one of its rewrites (the identity when none applies).
fn rewritten() -> impl Strategy<Value = (Vec<S>, Vec<S>)> {
    (fragment(), any::<u16>()).prop_map(|(f, k)| {
        let all = rewrites(&f);
        let g = all
            .get(k as usize % all.len().max(1))
            .cloned()
            .unwrap_or_else(|| f.clone());
        (f, g)
    })
}

/// A chain A → B → C of two rewrites.
fn chain() -> impl Strategy<Value = (Vec<S>, Vec<S>, Vec<S>)> {
    (rewritten(), any::<u16>()).prop_map(|((a, b), k)| {
        let all = rewrites(&b);
        let c = all
            .get(k as usize % all.len().max(1))
            .cloned()
            .unwrap_or_else(|| b.clone());
        (a, b, c)
    })
}

/// Every one-option variation of the default model the semantics decides.
fn settings() -> Vec<Model> {
    let mut out = vec![Model::default()];
    for o in Model::OPTIONS {
        for v in o.values.iter().filter(|v| **v != o.default) {
            let mut m = Model::default();
            if m.set(o.name, v).is_ok() && decide::refused(&m).is_ok() {
                out.push(m);
            }
        }
    }
    out
}

fn limits() -> Limits {
    Limits {
        max_pomsets: 5_000,
        contexts: Some(pomset::transform::Bound {
            size: 1,
            threads: 1,
            max_contexts: Some(40),
        }),
        run: pomset::outcome::Limits {
            max_pomsets: 20_000,
            max_states: 20_000,
            ..pomset::outcome::Limits::default()
        },
    }
}

/// `refine` on two fragments; None when the pair does not parse (a rewrite
/// can move a register's use above its assignment) or the model is refused.
fn judge(from: &[S], to: &[S], model: &Model) -> Option<RefineReport> {
    // The same V as the programs the contexts build, so both speak of one V.
    let text = format!(
        "refine R\nvalues {{0, 1, 2, 3}}\nsource {{ {} }}\ntarget {{ {} }}\n",
        print(from),
        print(to)
    );
    let q = parse_refinement(&text).ok()?;
    refine(&q, model, limits()).ok()
}

/// One context thread: one or two accesses to the fragment's locations.
fn context_thread() -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
    prop::collection::vec((0u8..6, 0u8..2, 1u8..3), 1..3)
}

fn print_context(k: usize, ops: &[(u8, u8, u8)]) -> String {
    let prefix = ["a", "b", "c"][k];
    let mut out = String::new();
    for (i, &(kind, loc, _)) in ops.iter().enumerate() {
        let x = LOCS[loc as usize % LOCS.len()];
        out.push_str(&match kind {
            0 | 1 => format!("{prefix}{i} := {x}; "),
            2 => format!("{prefix}{i} := {x}.acq; "),
            // Writes of 1 keep FADDs within V = {0, 1, 2, 3} (else the run is skipped).
            3 | 4 => format!("{x} := 1; "),
            _ => format!("{x}.rel := 1; "),
        });
    }
    out
}

fn program(fragment: &[S], contexts: &[Vec<(u8, u8, u8)>]) -> String {
    let mut t = format!("litmus CTX\nvalues {{0, 1, 2, 3}}\n{}\n", print(fragment));
    for (k, c) in contexts.iter().enumerate() {
        t.push_str(&format!("|| {}\n", print_context(k, c)));
    }
    t
}

/// The final states of a program under `model` by the ordinary `run`, and
/// whether the run says it may leave some out (a value outside V); None
/// when a limit stopped it.
fn states(text: &str, model: &Model) -> Option<(BTreeSet<pomset::outcome::State>, bool)> {
    let test = syntax::parse(text).ok()?;
    let o = decide::outcomes(&test.program, model, limits().run).ok()?;
    if let Some(l) = &o.limit {
        log(&format!("run stopped by {l}"));
        return None;
    }
    Some((o.states.into_keys().collect(), !o.notes.is_empty()))
}

type Projected = Vec<(String, Option<i64>)>;

/// The states of `a` on the registers and locations the states of `b` name too.
fn project(
    a: &BTreeSet<pomset::outcome::State>,
    b: &BTreeSet<pomset::outcome::State>,
) -> BTreeSet<Projected> {
    let names = |s: &pomset::outcome::State| -> BTreeSet<String> {
        s.regs.iter().chain(&s.mem).map(|x| x.0.clone()).collect()
    };
    let common: BTreeSet<String> = b.iter().flat_map(names).collect();
    // Sorted by name: the two programs may declare registers in other orders.
    a.iter()
        .map(|s| {
            let mut v: Projected = s
                .regs
                .iter()
                .chain(&s.mem)
                .filter(|x| common.contains(&x.0))
                .cloned()
                .collect();
            v.sort();
            v
        })
        .collect()
}

/// Whether the condition of a printed test holds in some state of its run.
fn condition_holds(text: &str, model: &Model) -> Option<bool> {
    let test = syntax::parse(text).ok()?;
    // `run`'s own bounds: with its condition a test can need more than
    // refine's generated runs (issue 27 §3's oracle found one under
    // `monotonicity = modes`).
    let o = decide::outcomes(&test.program, model, pomset::outcome::Limits::default()).ok()?;
    if o.limit.is_some() {
        return None;
    }
    let cond = test.program.conditions.first()?;
    Some(
        o.states
            .keys()
            .any(|s| verdict::holds(&test.program, s, &cond.prop)),
    )
}

/// With `REFINE_ORACLE_LOG` set, one line per case, for counting long runs.
fn log(what: &str) {
    if std::env::var_os("REFINE_ORACLE_LOG").is_some() {
        eprintln!("oracle: {what}");
    }
}

fn model_of(k: usize) -> Model {
    let all = settings();
    all[k % all.len()]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every fragment refines itself, under every option value.
    #[test]
    fn every_fragment_refines_itself(f in fragment(), k in any::<usize>()) {
        let model = model_of(k);
        let r = judge(&f, &f, &model);
        log(&match &r {
            None => "reflexive skipped".to_string(),
            Some(r) if r.verdict() == Verdict::Unknown => format!(
                "reflexive unknown ({})",
                r.limit.as_deref().or(r.undecided.as_deref()).unwrap_or("?")
            ),
            Some(_) => "reflexive checked".to_string(),
        });
        if let Some(r) = r {
            prop_assert!(
                r.verdict() != Verdict::Unsound,
                "{} under {model:?}:\n{}",
                print(&f),
                r.text()
            );
        }
    }

    /// A sound rewrite adds no outcome in any generated context; a printed
    /// distinguishing test distinguishes.
    #[test]
    fn sound_rewrites_add_no_outcome_in_context(
        (f, g) in rewritten(),
        contexts in prop::collection::vec(context_thread(), 1..4),
        k in any::<usize>(),
    ) {
        let model = model_of(k);
        let Some(r) = judge(&f, &g, &model) else {
            log("context skipped (does not parse)");
            return Ok(());
        };
        log(&format!("context verdict {}", r.verdict().as_str()));
        if r.verdict() == Verdict::Sound {
            let (Some((src, src_partial)), Some((tgt, tgt_partial))) = (
                states(&program(&f, &contexts), &model),
                states(&program(&g, &contexts), &model),
            ) else {
                log("context skipped (limit)");
                return Ok(());
            };
            // A register only one side assigns (`r := x` to `skip`) is no outcome of the other.
            let (src, tgt) = (project(&src, &tgt), project(&tgt, &src));
            let extra: Vec<_> = tgt.difference(&src).collect();
            if src_partial || tgt_partial {
                // The source's missing state may be one its run left out.
                log(if extra.is_empty() {
                    "context compared (values outside V left out)"
                } else {
                    "context skipped (values outside V)"
                });
                return Ok(());
            }
            log("context compared");
            prop_assert!(
                extra.is_empty(),
                "{} → {} judged sound under {model:?}, but with {contexts:?} the target has {extra:?}",
                print(&f),
                print(&g)
            );
        }
        if let (Some(t), Some(s)) = (&r.counterexample, &r.counterexample_source) {
            match (condition_holds(t, &model), condition_holds(s, &model)) {
                (Some(in_target), Some(in_source)) => {
                    log("context distinguishing test checked");
                    prop_assert!(in_target && !in_source, "{t}\n{s}");
                }
                _ => log("context distinguishing test skipped (limit)"),
            }
        }
    }

    /// A → B and B → C sound make A → C sound.
    #[test]
    fn sound_rewrites_compose((a, b, c) in chain(), k in any::<usize>()) {
        let model = model_of(k);
        let sound = |x: &[S], y: &[S]| {
            judge(x, y, &model).map(|r| r.verdict() == Verdict::Sound)
        };
        if sound(&a, &b) == Some(true) && sound(&b, &c) == Some(true) {
            log("chain checked");
            let r = judge(&a, &c, &model);
            prop_assert!(
                r.as_ref().is_some_and(|r| r.verdict() != Verdict::Unsound),
                "{} → {} → {} under {model:?}:\n{}",
                print(&a),
                print(&b),
                print(&c),
                r.map(|r| r.text()).unwrap_or_default()
            );
        }
    }
}
