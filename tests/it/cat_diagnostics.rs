//! Bad cat models: each gives a located error (file:line:col, a caret, a
//! hint), never a panic. The exact text is pinned as a snapshot.

use pomset::cat;
use pomset::outcome::Limits;

/// Compiles `src` as `test.cat`, rendering the error as the CLI would.
fn compile_error(src: &str) -> String {
    match cat::from_text("test.cat", src) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.render(),
    }
}

macro_rules! cat_case {
    ($name:ident, $src:expr) => {
        #[test]
        fn $name() {
            let out = compile_error($src);
            assert!(out.contains("test.cat:"), "located: {out}");
            insta::assert_snapshot!(out);
        }
    };
}

cat_case!(unknown_relation, "M\nlet hb = po | rff\nacyclic hb\n");
cat_case!(
    set_where_a_relation_is_needed,
    "M\nlet hb = po ; W\nacyclic hb as bad\n"
);
cat_case!(union_of_a_set_and_a_relation, "M\nlet x = W | rf\n");
cat_case!(acyclic_of_a_set, "M\nacyclic R | W\n");
cat_case!(
    unsupported_construct,
    "M\nprocedure foo() = acyclic po end\n"
);
cat_case!(unterminated_comment, "M\n(* a comment\nacyclic po\n");
cat_case!(wrong_arity, "M\nlet f(a, b) = a | b\nacyclic f(po)\n");
cat_case!(include_not_bundled, "M\ninclude \"cos.cat\"\nacyclic po\n");

#[test]
fn recursion_that_does_not_converge_is_a_located_error() {
    let m = cat::from_text("test.cat", "M\nlet rec osc = ~osc\nacyclic osc\n")
        .expect("compiles: it fails only when evaluated");
    let src = std::fs::read_to_string("examples/classic/mp.litmus").expect("example");
    let t = pomset::syntax::parse(&src).expect("parses");
    let e = pomset::engine::axiomatic::outcomes(&t.program, &m, Limits::default())
        .expect_err("the fixpoint iteration gives up");
    insta::assert_snapshot!(e);
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    // Within the bound on a statement's tokens, the bracket guard refuses.
    let deep = format!("M\nacyclic {}po{}\n", "(".repeat(2000), ")".repeat(2000));
    assert!(compile_error(&deep).contains("nested too deeply"));
    let tildes = format!("M\nacyclic {}po\n", "~".repeat(4000));
    assert!(compile_error(&tildes).contains("nested too deeply"));
    let longer = format!("M\nacyclic {}po\n", "~".repeat(100_000));
    assert!(compile_error(&longer).contains("longer than 4096 tokens"));
}

#[test]
fn garbage_never_panics() {
    for src in [
        "",
        "(*",
        "let",
        "let x =",
        "acyclic",
        "let f(",
        "show",
        "\"",
        "let x = [",
        "x ^",
        "let x = po^-",
        "flag ~",
        "include",
        "let rec",
        "empty 0 as",
    ] {
        let _ = cat::from_text("test.cat", src);
    }
}

/// The states `model` allows for `examples/classic/{name}.litmus`.
fn states(model: &cat::Model, name: &str) -> Vec<String> {
    let src = std::fs::read_to_string(format!("examples/classic/{name}.litmus")).expect("example");
    let t = pomset::syntax::parse(&src).expect("parses");
    let o =
        pomset::engine::axiomatic::outcomes(&t.program, model, Limits::default()).expect("decided");
    o.states.keys().map(|s| format!("{s:?}")).collect()
}

fn compiled(src: &str) -> cat::Model {
    cat::from_text("test.cat", src).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// Issue 31: 1,500 `let`s, each using the one before, compile and judge
/// (in a test thread's small stack) as the one relation they all equal.
#[test]
fn a_chain_of_1500_lets_judges_like_its_value() {
    let mut chain = String::from("Chain\nlet r0 = po | rf\n");
    for i in 1..=1500 {
        chain.push_str(&format!("let r{i} = r{} | r{}\n", i - 1, i / 2));
    }
    chain.push_str("acyclic r1500 | co | fr\n");
    let direct = compiled("Direct\nacyclic po | rf | co | fr\n");
    let chain = compiled(&chain);
    for name in ["mp", "sb", "lb"] {
        assert_eq!(states(&chain, name), states(&direct, name), "{name}");
    }
}

/// Issue 31: 1,500 mutually recursive bindings, each using the next, reach
/// their fixpoint without recursion.
#[test]
fn a_deep_let_rec_reaches_its_fixpoint() {
    let mut rec = String::from("Rec\nlet rec a0 = a1");
    for i in 1..1500 {
        rec.push_str(&format!("\nand a{i} = a{}", i + 1));
    }
    rec.push_str("\nand a1500 = po | rf\nacyclic a0 | co | fr\n");
    let direct = compiled("Direct\nacyclic po | rf | co | fr\n");
    assert_eq!(states(&compiled(&rec), "mp"), states(&direct, "mp"));
}

/// Issue 31: an expression of 8,000 terms is refused before parsing, with
/// its place and the limit named, for every binary operator.
#[test]
fn a_union_of_8000_terms_is_a_located_error() {
    for op in ["|", ";", "&", "\\"] {
        let long = format!("M\nacyclic {}po\n", format!("po {op} ").repeat(8000));
        let out = compile_error(&long);
        assert!(out.contains("test.cat:2:"), "{op}: {out}");
        assert!(out.contains("longer than 4096 tokens"), "{op}: {out}");
    }
}

/// Issue 31: a chain short enough to read but deeper than the depth bound
/// is refused by depth, postfix operators too; within the bound it compiles.
#[test]
fn a_chain_deeper_than_256_is_a_located_error() {
    for deep in [
        format!("M\nacyclic {}po\n", "po | ".repeat(1000)),
        format!("M\nacyclic {}po\n", "po ; ".repeat(1000)),
        format!("M\nlet x = po{}\nacyclic x\n", " +".repeat(1000)),
        format!("M\nlet x = po{}\nacyclic x\n", "^-1".repeat(1000)),
    ] {
        let out = compile_error(&deep);
        assert!(out.contains("test.cat:2:"), "{out}");
        assert!(out.contains("nest more than 256 deep"), "{out}");
    }
    let within = compiled(&format!("M\nacyclic {}po\n", "po ; ".repeat(200)));
    assert_eq!(within.steps.len(), 1);
}

/// Issue 31: functions that double their argument at each call build an
/// expression too deep (or too large) to evaluate: refused at a call.
#[test]
fn inlining_deeper_than_the_bound_is_a_located_error() {
    let mut m = String::from("M\nlet f0(x) = x | x\n");
    for i in 1..40 {
        m.push_str(&format!("let f{i}(x) = f{}(f{}(x))\n", i - 1, i - 1));
    }
    m.push_str("acyclic f39(po)\n");
    let out = compile_error(&m);
    assert!(out.contains("test.cat:"), "{out}");
    assert!(out.contains("with its functions inlined"), "{out}");
    // A use of every parameter many times multiplies the nodes instead.
    let mut wide = String::from("M\nlet g0(x) = x | x | x | x | x | x | x | x\n");
    for i in 1..12 {
        wide.push_str(&format!("let g{i}(x) = g{}(x) | g{}(x)\n", i - 1, i - 1));
    }
    wide.push_str(&format!(
        "acyclic {}po{}\n",
        "g11(".repeat(8),
        ")".repeat(8)
    ));
    let out = compile_error(&wide);
    assert!(out.contains("more than 1000000 operators"), "{out}");
}

/// Issue 31: functions inlined 800 deep, within the bound, compile and
/// judge in a test thread's small stack; 1,200 deep is refused.
#[test]
fn inlining_within_the_bound_judges_like_its_value() {
    let mut m = String::from(
        "M
let f0(x) = x
",
    );
    for i in 1..=6 {
        m.push_str(&format!(
            "let f{i}(x) = f{}(x){}
",
            i - 1,
            " ; po".repeat(200)
        ));
    }
    let deep = compiled(&format!(
        "{m}acyclic f4(po) | po | rf | co | fr
"
    ));
    let direct = compiled("Direct\nacyclic po | rf | co | fr\n");
    assert_eq!(states(&deep, "mp"), states(&direct, "mp"));
    let out = compile_error(&format!("{m}acyclic f6(po) | po\n"));
    assert!(out.contains("nests more than 1024 deep"), "{out}");
}

/// Issue 31: token mutations of every bundled model (deletions, copies,
/// swaps, truncations, long repetitions) never panic; a refusal is a
/// located error, and an accepted mutant judges a test.
#[test]
fn hundreds_of_mutated_models_never_panic() {
    let mp = pomset::syntax::parse(
        &std::fs::read_to_string("examples/classic/mp.litmus").expect("example"),
    )
    .expect("parses");
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n.max(1) as u64) as usize
    };
    let (mut accepted, mut refused) = (0, 0);
    // A few hundred by default; CAT_FUZZ_CASES=100000 for a longer search.
    let cases = std::env::var("CAT_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    for round in 0..cases {
        let (name, text) = cat::BUNDLED[round % cat::BUNDLED.len()];
        let Ok(lexed) = cat::lexer::lex(text) else {
            panic!("{name} lexes")
        };
        // Each token with the text up to the next, so `f(x)` stays an application.
        let ends = lexed
            .iter()
            .skip(1)
            .map(|(_, s)| s.start)
            .chain([text.len()]);
        let mut toks: Vec<&str> = lexed
            .iter()
            .zip(ends)
            .map(|((_, s), end)| &text[s.start..end])
            .collect();
        for _ in 0..1 + next(2) {
            let at = next(toks.len());
            match next(6) {
                0 => {
                    toks.remove(at.min(toks.len() - 1));
                }
                1 => toks.insert(at, toks[next(toks.len())]),
                2 => {
                    let (other, last) = (next(toks.len()), toks.len() - 1);
                    toks.swap(at.min(last), other);
                }
                // Truncated at a statement, the model usually still compiles and is judged.
                3 => {
                    let starts = ["let", "acyclic", "irreflexive", "empty", "flag", "show"];
                    let cut =
                        (at..toks.len()).find(|&i| starts.iter().any(|k| toks[i].starts_with(k)));
                    toks.truncate(cut.unwrap_or(at));
                }
                4 => {
                    let run = toks[at..(at + 1 + next(4)).min(toks.len())].repeat(next(3000));
                    toks.splice(at..at, run);
                }
                _ => toks.insert(
                    at,
                    ["( ", ") ", "[", "] ", "~", " let ", " rec ", " and ", " = "][next(9)],
                ),
            }
            if toks.is_empty() {
                toks.push("let");
            }
        }
        let src = toks.concat();
        match cat::from_text(&format!("{name}.cat"), &src) {
            Ok(model) => {
                accepted += 1;
                let _ = pomset::engine::axiomatic::outcomes(&mp.program, &model, Limits::default());
            }
            Err(cat::LoadError::Cat(e)) => {
                refused += 1;
                let out = e.render();
                assert!(out.contains(".cat:"), "not located: {out}\n{src}");
            }
            Err(e) => panic!("{}", e.render()),
        }
    }
    // Both outcomes must occur, or the mutations are not exercising the reader.
    eprintln!("accepted {accepted}, refused {refused}");
    assert!(
        accepted > cases / 10 && refused > cases / 3,
        "accepted {accepted}, refused {refused}"
    );
}
