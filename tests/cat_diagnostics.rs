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
    let deep = format!(
        "M\nacyclic {}po{}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(compile_error(&deep).contains("nested too deeply"));
    let tildes = format!("M\nacyclic {}po\n", "~".repeat(100_000));
    assert!(compile_error(&tildes).contains("nested too deeply"));
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
