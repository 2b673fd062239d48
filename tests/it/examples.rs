//! The bundled examples are the acceptance suite for the front end: each one
//! parses without warnings, is in canonical form, and its core program prints
//! as a litmus file that parses back to the same core. Mutated copies of them
//! never make the parser panic.

use std::path::{Path, PathBuf};

use pomset::syntax;

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let files = pomset::cli::litmus_files(&[root]).expect("examples/ is readable");
    assert!(
        files.len() >= 70,
        "expected the full example corpus, found {}",
        files.len()
    );
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_example_parses_without_warnings() {
    for path in examples() {
        let src = read(&path);
        match syntax::parse(&src) {
            Ok(test) => assert!(
                test.warnings.is_empty(),
                "{}:\n{}",
                path.display(),
                test.warnings.render(&path.display().to_string(), &src)
            ),
            Err(d) => panic!("{}", d.render(&path.display().to_string(), &src)),
        }
    }
}

#[test]
fn every_example_is_in_canonical_form() {
    for path in examples() {
        let src = read(&path);
        let formatted =
            syntax::format(&src).unwrap_or_else(|d| panic!("{}", d.render("example", &src)));
        assert_eq!(
            formatted,
            src,
            "{} is not formatted; run `pomset fmt {}`",
            path.display(),
            path.display()
        );
    }
}

#[test]
fn every_example_states_an_expectation() {
    for path in examples() {
        let test = syntax::parse(&read(&path)).expect("parses");
        assert!(
            !test.program.conditions.is_empty(),
            "{} has no condition",
            path.display()
        );
        for c in &test.program.conditions {
            let stated = !c.expectations.is_empty()
                || matches!(
                    c.quantifier,
                    syntax::ast::Quantifier::Allow | syntax::ast::Quantifier::Forbid
                );
            assert!(
                stated,
                "{}: say `expect unknown` when the note gives no verdict",
                path.display()
            );
        }
    }
}

/// `pomset parse` prints a litmus file; parsing that gives the same core.
#[test]
fn core_printing_is_a_fixed_point() {
    for path in examples() {
        let test = syntax::parse(&read(&path)).expect("parses");
        let printed = syntax::print::core_program(&test.program);
        let again =
            syntax::parse(&printed).unwrap_or_else(|d| panic!("{}", d.render("core", &printed)));
        assert_eq!(
            syntax::print::core_program(&again.program),
            printed,
            "{}",
            path.display()
        );
        assert_eq!(again.program.main.len(), test.program.main.len());
        assert_eq!(again.program.values, test.program.values);
        assert_eq!(again.program.model, test.program.model);
    }
}

#[test]
fn desugared_core_snapshots() {
    let pinned = [
        "classic/mp+rel+acq.litmus",
        "classic/lb+datas.litmus",
        "classic/lb+false-dep.litmus",
        "classic/sb+fences.litmus",
        "classic/iriw+acqs.litmus",
        "classic/2+2w+rels.litmus",
        "classic/corr.litmus",
        "classic/isa2+rel+acqs.litmus",
        "catalogue/c06-mp-fences.litmus",
        "catalogue/c08-c11-rmw-chain-cycle.litmus",
        "catalogue/c13-pub1-sys.litmus",
        "catalogue/c19-rfi-bad-exchg.litmus",
        "catalogue/c31-ctrl-rfi-fre-rfe.litmus",
        "catalogue/c33-data-rfi-fre-rfe.litmus",
        "catalogue/c48-sb-rel.litmus",
        "catalogue/h2-transitive-scoped-sync.litmus",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for name in pinned {
        let test = syntax::parse(&read(&root.join(name))).expect("parses");
        let snapshot = name.trim_end_matches(".litmus").replace('/', "__");
        insta::assert_snapshot!(snapshot, syntax::print::core_program(&test.program));
    }
}

/// A small deterministic generator, so the mutation test is reproducible.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const FRAGMENTS: &[&str] = &[
    ";",
    "||",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ":=",
    ".acq",
    ".rel",
    ".cta",
    ".ra",
    "F",
    "F.sc",
    "if",
    "else",
    "x",
    "r",
    "&",
    "&x",
    "1",
    "-",
    "9999999999999999999",
    "99999999999999999",
    "\"",
    "/*",
    "//",
    "\n",
    "exists",
    "~",
    "/\\",
    "P1:",
    "CAS(",
    "FADD.acq.rel(x,",
    "values {",
    "init {",
    "scopes: gpu {",
    "model {",
    "expect",
    "when",
    "@",
    "é",
    "\u{0}",
    "litmus X",
    "init = none",
    "=",
    "!=",
];

fn mutate(src: &str, rng: &mut XorShift) -> String {
    let mut s: Vec<char> = src.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(s.len() + 1);
        match rng.below(4) {
            0 if !s.is_empty() => {
                let len = 1 + rng.below(8);
                let end = (at + len).min(s.len());
                s.drain(at.min(end)..end);
            }
            1 | 0 => {
                let frag = FRAGMENTS[rng.below(FRAGMENTS.len())];
                for (i, c) in frag.chars().enumerate() {
                    s.insert(at.min(s.len()) + i, c);
                }
            }
            2 if s.len() > 2 => {
                let other = rng.below(s.len());
                let at = at.min(s.len() - 1);
                s.swap(at, other);
            }
            _ => {
                let start = rng.below(s.len() + 1);
                let end = (start + rng.below(20)).min(s.len());
                let copy: Vec<char> = s[start..end].to_vec();
                let at = at.min(s.len());
                s.splice(at..at, copy);
            }
        }
    }
    s.into_iter().collect()
}

#[test]
fn thousands_of_mutated_examples_never_panic() {
    let sources: Vec<String> = examples().iter().map(|p| read(p)).collect();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let (mut accepted, mut rejected) = (0, 0);
    for round in 0..6000 {
        let src = mutate(&sources[round % sources.len()], &mut rng);
        match syntax::parse(&src) {
            Ok(test) => {
                accepted += 1;
                let _ = syntax::print::core_program(&test.program);
            }
            Err(d) => {
                rejected += 1;
                assert!(d.has_errors());
                let _ = d.render("mutant", &src);
            }
        }
        let _ = syntax::format(&src);
    }
    // Both outcomes must occur, or the mutations are not exercising the parser.
    assert!(
        accepted > 100 && rejected > 1000,
        "accepted {accepted}, rejected {rejected}"
    );
}

#[test]
fn pathological_inputs_are_refused_cleanly() {
    let deep = format!(
        "litmus D\nr := {}1{};\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let err = syntax::parse(&deep).expect_err("too deep");
    assert!(err.render("deep", &deep).contains("nest more than"));
    // Issue 27 §1: V may be a sparse set, but not one past MAX_DEFAULT_VALUES.
    let sparse = syntax::parse("litmus S\nx := 1000000;\n").expect("a sparse default V");
    assert_eq!(sparse.program.values, vec![0, 1, 1000000]);
    let writes: String = (0..70).map(|i| format!("x := {};", i * 1000)).collect();
    let wide = format!("litmus W\n{writes}\n");
    let err = syntax::parse(&wide).expect_err("default V too large");
    assert!(err.render("wide", &wide).contains("declare the values"));
    assert!(syntax::parse("").is_err());
    assert!(syntax::parse("litmus").is_err());
}
