//! The GPU side of the family answers (issue 73): what a raised flag means
//! is each model's own statement, read by the context search; the contexts
//! speak the model's qualifiers (Vulkan's storage-class semantics); the
//! bounded answers count what tested nothing; the classic fenced shapes and
//! the guarded writers are in the default bound; HRF's scope inclusion is
//! an option of the model.

use pomset::cat::compile::Step;
use pomset::engine::{self, Engine, Qualifiers};
use pomset::outcome::{FlagMeaning, Limits};
use pomset::refinement::{quick, Refinement};
use pomset::transform::{self, context, grammar, table, Bound, Cell, Found};

fn search(r: &Refinement, model: &str, bound: Bound) -> Found {
    let e = engine::named(model).expect("a bundled model");
    let m = e.options(&r.program.model);
    transform::search(r, e.as_ref(), &m, bound, Limits::default())
}

fn sized(size: usize, threads: usize) -> Bound {
    Bound {
        size,
        threads,
        max_contexts: None,
    }
}

/// A counterexample that `run` reproduces under `model`: the source decided
/// in full and defined, never reaching the outcome, the target reaching it.
fn reproduced(found: Found, model: &str) -> String {
    let Found::Counterexample(c) = found else {
        panic!("under {model}: no counterexample: {found:?}");
    };
    let e = engine::named(model).expect("model");
    assert!(
        table::reproduces(&c, e.as_ref()),
        "under {model}: {}",
        c.target_test
    );
    c.target_test
}

/// Every flag of every bundled model has a declared meaning, and each
/// model's is the one its text states.
#[test]
fn every_bundled_flag_has_its_models_meaning() {
    let expected = [
        ("rc11", "data-race", FlagMeaning::Undefined),
        ("ptx", "data-race", FlagMeaning::Defined),
        ("vulkan", "data-race", FlagMeaning::Undefined),
        ("vulkan-2021", "data-race", FlagMeaning::Undefined),
        ("hrf-direct", "heterogeneous-race", FlagMeaning::Undefined),
        ("hrf-direct", "unsupported-fence", FlagMeaning::Unsupported),
        ("hrf-indirect", "heterogeneous-race", FlagMeaning::Undefined),
        (
            "hrf-indirect",
            "unsupported-fence",
            FlagMeaning::Unsupported,
        ),
    ];
    for (name, _) in pomset::cat::BUNDLED {
        let model = pomset::cat::load(name).expect("bundled");
        let e = engine::named(name).expect("bundled");
        for step in &model.steps {
            let Step::Check(c) = step else { continue };
            if !c.flag {
                continue;
            }
            let want = expected
                .iter()
                .find(|(m, f, _)| *m == name && *f == c.name)
                .map(|(_, _, w)| *w)
                .unwrap_or_else(|| panic!("{name}'s flag {} is not listed here", c.name));
            assert_eq!(e.flag_meaning(&c.name), want, "{name}: {}", c.name);
        }
    }
    assert_eq!(
        engine::named("rc11")
            .expect("rc11")
            .flag_meaning("no-such-flag"),
        FlagMeaning::Undeclared
    );
}

/// `undefined NAME` must name a flag, once; `undefined` stays a name a
/// model may bind.
#[test]
fn flag_meanings_are_checked_where_declared() {
    let err = pomset::cat::from_text("t.cat", "T\nflag ~empty po as a\nundefined b\n")
        .expect_err("b is no flag")
        .render();
    assert!(
        err.contains("`b` names no flag") && err.contains("its flags: a"),
        "{err}"
    );
    let err = pomset::cat::from_text("t.cat", "T\nflag ~empty po as a\nundefined a\ndefined a\n")
        .expect_err("two meanings")
        .render();
    assert!(err.contains("declared undefined and defined"), "{err}");
    let m = pomset::cat::from_text("t.cat", "T\nlet undefined = po\nacyclic undefined as x\n")
        .expect("`undefined` as a name");
    assert!(m.meanings.is_empty());
    let m = pomset::cat::from_text(
        "t.cat",
        "T\nflag ~empty po as a\nflag ~empty rf as b\ndefined a, b\n",
    )
    .expect("a list");
    assert_eq!(m.meanings.len(), 2);
}

/// HRF-Relaxed's scope inclusion (Definition 3.1: one dynamic scope a
/// subset of the other) is the default; PTX's mutual inclusion and OpenCL
/// 2.0's equal scopes are the option's other values. A cta-scoped release
/// in one CTA and a sys-scoped acquire in another are inclusive only
/// under the first.
#[test]
fn hrf_scope_inclusion_is_an_option() {
    let test = pomset::syntax::parse(
        "litmus INCL \"cta release, sys acquire, two CTAs\"\n\
         scopes: sys { cta { P0 } cta { P1 } }\n\
         P0: x.wk := 1; y.rel.cta := 1;\n\
         || P1: r := y.acq.sys; if (r = 1) { s := x.wk; }\n\
         exists (P1:r = 1 /\\ P1:s = 0)\n",
    )
    .expect("parses");
    for base in ["hrf-direct", "hrf-indirect"] {
        for (option, racy) in [
            ("", false),
            ("[inclusion=nested]", false),
            ("[inclusion=mutual]", true),
            ("[inclusion=equal]", true),
        ] {
            let name = format!("{base}{option}");
            let e = engine::named(&name).unwrap_or_else(|e| panic!("{name}: {}", e.line()));
            let o = e
                .outcomes(&test.program, &test.program.model, Limits::default())
                .expect("decides");
            let raised = o.flags.iter().any(|(f, _)| f == "heterogeneous-race");
            assert_eq!(raised, racy, "{name}: {:?}", o.flags);
        }
    }
    for bad in [
        "hrf-direct[inclusion=loose]",
        "hrf-direct[scopes=mutual]",
        "rc11[inclusion=mutual]",
    ] {
        let Err(e) = engine::named(bad) else {
            panic!("{bad} accepted");
        };
        assert!(e.line().contains("option"), "{bad}: {}", e.line());
    }
}

/// A race is defined under PTX: eliminating a weak read across an acquire
/// is unsound there (a racy writer shows it, and `run` reproduces it),
/// while under rc11 and vulkan every context with such a writer is
/// undefined: the answer is bounded and says how many were vacuous.
#[test]
fn ptx_races_are_defined_and_the_others_count_vacuous_contexts() {
    let r = quick(
        "r := x.wk; s := y.acq; t := x.wk;",
        "r := x.wk; s := y.acq; t := r;",
    )
    .expect("parses");
    reproduced(search(&r, "ptx", Bound::default()), "ptx");
    for model in ["rc11", "vulkan"] {
        match search(&r, model, sized(2, 1)) {
            Found::NoneUpTo {
                total,
                vacuous,
                outside,
                ..
            } => {
                assert!(
                    vacuous > 0 && vacuous < total,
                    "{model}: {vacuous} of {total}"
                );
                assert_eq!(outside, 0);
            }
            other => panic!("{model}: {other:?}"),
        }
    }
}

/// The table's cells carry their vacuous contexts: in its JSON records, in
/// its text (`bounded 3/9v`), and as the word `vacuous` where most were.
#[test]
fn table_cells_count_their_vacuous_contexts() {
    let inst = transform::bundled_instances(&["elim-rar".into()]).expect("bundled");
    let engines: Vec<(String, Box<dyn Engine>)> = ["rc11", "ptx"]
        .iter()
        .map(|m| (m.to_string(), engine::named(m).expect("model")))
        .collect();
    let t = table::build(&inst, &engines, sized(1, 1), None, 2, &|_, _| {});
    let mut rc11_vacuous = 0;
    for row in &t.rows {
        let Cell::Bounded { vacuous, .. } = row.cells[0] else {
            continue;
        };
        rc11_vacuous += vacuous;
        // PTX's races are defined: none of its contexts is vacuous.
        if let Cell::Bounded {
            vacuous, outside, ..
        } = row.cells[1]
        {
            assert_eq!(vacuous + outside, 0, "{row:?}");
        }
    }
    assert!(rc11_vacuous > 0);
    let text = t.text();
    assert!(text.contains("v "), "{text}");
    let json = t.json().to_string();
    assert!(json.contains("\"vacuous\":"), "{json}");
    // A record gives its cell back whole.
    for row in &t.rows {
        for cell in &row.cells {
            let back: Cell = serde_json::from_value(serde_json::to_value(cell).expect("json"))
                .expect("a record reads back");
            assert_eq!(&back, cell);
        }
    }
}

/// The classic fenced shapes are in the default bound: an sc fence is not
/// `skip` (store buffering with fences) under rc11 and ptx, and a release
/// fence is not `skip` (message passing) under rc11.
#[test]
fn fences_are_told_from_skip_at_the_default_bound() {
    let sc = quick("F.sc;", "skip;").expect("parses");
    for model in ["rc11", "ptx"] {
        let test = reproduced(search(&sc, model, Bound::default()), model);
        assert!(test.contains("F.sc"), "{model}: {test}");
    }
    let rel = quick("x.rlx := 1; F.rel; y.rlx := 1;", "x.rlx := 1; y.rlx := 1;").expect("parses");
    reproduced(search(&rel, "rc11", Bound::default()), "rc11");
}

/// Under Vulkan the contexts write the storage-class semantics a SPIR-V
/// program would: moving a non-private write below a release is found at
/// the default bound (an acquiring reader with `.semsc0.semvis`), and the
/// counterexample reproduces.
#[test]
fn vulkan_contexts_speak_vulkan() {
    let e = engine::named("vulkan").expect("vulkan");
    assert_eq!(e.qualifiers(), Qualifiers::Vulkan);
    assert_eq!(
        engine::named("rc11").expect("rc11").qualifiers(),
        Qualifiers::Note
    );
    let r = quick(
        "x.wk.nonpriv := 1; y.rel.semsc0.semav := 1;",
        "y.rel.semsc0.semav := 1; x.wk.nonpriv := 1;",
    )
    .expect("parses");
    let test = reproduced(search(&r, "vulkan", Bound::default()), "vulkan");
    assert!(test.contains(".semsc0.semvis"), "{test}");
    // A fragment in storage class 1 gets contexts in class 1.
    let r1 = quick(
        "x.wk.nonpriv := 1; y.rel.sc1.semsc0.semsc1.semav := 1;",
        "y.rel.sc1.semsc0.semsc1.semav := 1; x.wk.nonpriv := 1;",
    )
    .expect("parses");
    let vocab = context::vocabulary_for(&r1, e.as_ref());
    let words = vocab.vulkan.clone().expect("Vulkan words");
    assert_eq!(words.classes, 0b11);
    let y = vocab.locs.iter().position(|l| l == "y").expect("y");
    assert_eq!(
        vocab.qualified(Some(y), "acq"),
        ".acq.sc1.semsc0.semsc1.semvis"
    );
}

/// A guarded writer is the race-free observer of a fragment that releases:
/// it is in the grammar exactly when the source or target releases, and
/// writes its data only inside the guard.
#[test]
fn guarded_writers_come_with_releasing_fragments() {
    let releasing = quick("x.wk := 1; y.rel := 1;", "y.rel := 1; x.wk := 1;").expect("parses");
    let plain = quick("x.wk := 1; y.rlx := 1;", "y.rlx := 1; x.wk := 1;").expect("parses");
    let writers = |r: &Refinement| {
        let vocab = context::vocabulary(r);
        vocab
            .thread_instrs()
            .into_iter()
            .filter(|i| matches!(i, grammar::Instr::GuardedWriter { .. }))
            .count()
    };
    assert!(writers(&releasing) > 0);
    assert_eq!(writers(&plain), 0);
}

/// The prunings stay exact with the new vocabulary: on fragments that
/// release, have a fence, or speak Vulkan, the pruned search finds a
/// counterexample exactly when the brute force over every context of the
/// bound (the classic shapes included) does.
#[test]
fn brute_force_finds_nothing_the_search_misses_in_the_new_vocabulary() {
    // (size 3 for the first: a guarded writer is three instructions)
    let cases = [
        ("rc11", "x.wk := 1; y.rel := 1;", "y.rel := 1; x.wk := 1;"),
        ("ptx", "F.sc;", "skip;"),
        (
            "vulkan",
            "x.wk.nonpriv := 1; y.rel.semsc0.semav := 1;",
            "y.rel.semsc0.semav := 1; x.wk.nonpriv := 1;",
        ),
        (
            "vulkan",
            "r := x.rlx; s := y.acq.semsc0.semvis;",
            "s := y.acq.semsc0.semvis; r := x.rlx;",
        ),
    ];
    for (model, from, to) in cases {
        let r = quick(from, to).expect("parses");
        let e = engine::named(model).expect("model");
        let m = e.options(&r.program.model);
        let bound = if vocab_needs_size_3(from) {
            sized(3, 1)
        } else {
            sized(1, 1)
        };
        let vocab = context::vocabulary_for(&r, e.as_ref());
        if bound.size == 3 {
            assert!(vocab
                .thread_instrs()
                .iter()
                .any(|i| matches!(i, grammar::Instr::GuardedWriter { .. })));
        }
        let all = grammar::enumerate(&vocab, bound.size(), false);
        let brute = all
            .iter()
            .any(|c| context::distinguishes(&r, e.as_ref(), &m, &vocab, c).is_some());
        let found = search(&r, model, bound);
        assert_eq!(
            brute,
            matches!(found, Found::Counterexample(_)),
            "{from} ~> {to} under {model}: {found:?}"
        );
    }
}

/// The first case of the brute force above: a plain write before a release,
/// whose guarded writers need size 3.
fn vocab_needs_size_3(from: &str) -> bool {
    from == "x.wk := 1; y.rel := 1;"
}

/// `compare` counts a test as racy under a model only where the model
/// declares the race undefined: rc11 and vulkan, not ptx.
#[test]
fn compare_reads_racy_from_the_models_declaration() {
    use pomset::compare::{rows, Column};
    let t = pomset::syntax::parse(
        "litmus MP-wk \"message passing on weak data\"\n\
         x.wk := 1; y.rel := 1;\n\
         || r := y.acq; s := x.wk;\n\
         exists (P1:r = 1 /\\ P1:s = 0)\n",
    )
    .expect("parses");
    let columns: Vec<Column> = ["rc11", "ptx", "vulkan"]
        .iter()
        .map(|n| Column {
            name: n.to_string(),
            engine: engine::named(n).expect("model"),
        })
        .collect();
    let row = &rows(&t.program, &t.program.model, &columns, Limits::default())[0];
    assert!(row.is_racy(0), "{row:?}");
    assert!(!row.is_racy(1), "{row:?}");
    assert!(row.is_racy(2), "{row:?}");
}
