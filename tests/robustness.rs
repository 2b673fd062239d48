//! What a new user trips over (issue 20): long input refused with a located
//! error instead of a stack overflow, limits that stop every search before it
//! exhausts memory, and exit codes that do not hide an undecided expectation.
//! The long inputs are generated here, not checked in.

use std::process::{Command, Output};

use pomset::repl::Session;
use pomset::syntax;

fn pomset(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pomset"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the pomset binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pomset-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

/// The fragments of issue 20 that overflowed the stack, at `n` operators.
fn chains(n: usize) -> Vec<(&'static str, String)> {
    let ors = vec!["r = 1"; n].join(" || ");
    vec![
        ("minus", format!("r := {}1", "- ".repeat(n))),
        ("not", format!("r := {}1", "!".repeat(n))),
        ("plus", format!("r := 1{}", " + 0".repeat(n))),
        ("or in if", format!("r := x; if ({ors}) {{ y := 1 }}")),
    ]
}

fn litmus(fragment: &str, condition: &str) -> String {
    format!("litmus DEEP\n{fragment};\nexists ({condition})\n")
}

fn conjuncts(n: usize) -> String {
    vec!["r = 1"; n].join(" /\\ ")
}

/// Every long chain is refused by parse, check and fmt, with the limit named.
#[test]
fn long_operator_chains_are_refused_not_overflowed() {
    // 300 is past the depth bound, 11,000 past the length bound (issue 20's size).
    for n in [300, 11_000] {
        let mut inputs: Vec<(&str, String)> = chains(n)
            .into_iter()
            .map(|(what, f)| (what, litmus(&f, "r = 1")))
            .collect();
        inputs.push(("conjuncts", litmus("r := 1", &conjuncts(n))));
        for (what, src) in inputs {
            let err = syntax::parse(&src).expect_err(what).render("deep.litmus", &src);
            assert!(
                err.contains("nest more than 256 deep") || err.contains("longer than 4096 tokens"),
                "{what} at {n}: {err}"
            );
            assert!(err.contains("deep.litmus:"), "{what} at {n} is located: {err}");
            assert!(err.contains("hint:"), "{what} at {n}: {err}");
            assert!(syntax::format(&src).is_err(), "{what} at {n}");
        }
    }
}

/// Chains within the bounds still parse and mean what they say.
#[test]
fn chains_within_the_bound_still_parse() {
    for (what, fragment) in chains(100) {
        let src = litmus(&fragment, &conjuncts(100));
        assert!(syntax::parse(&src).is_ok(), "{what}: {src}");
        assert!(syntax::format(&src).is_ok(), "{what}");
    }
    // `- - ... 1` with an even number of minus signs is 1; `!!...1` too.
    let test = syntax::parse(&litmus(&format!("r := {}1", "- ".repeat(100)), "r = 1"))
        .expect("100 minus signs parse");
    let states = pomset::semantics::decide::outcomes(
        &test.program,
        &test.program.model,
        Default::default(),
    )
    .expect("supported");
    let report = pomset::report::Report::new(
        &test.program,
        &test.program.model,
        &states,
        std::time::Duration::ZERO,
    );
    assert!(
        report.text_listing(&test.program, false).contains("Ok"),
        "{}",
        report.text_listing(&test.program, false)
    );
}

/// The REPL answers a long chain with an error and keeps the session.
#[test]
fn the_repl_survives_long_chains() {
    let mut s = Session::new();
    for (what, fragment) in chains(11_000) {
        let reply = s.eval(&fragment).output.render(false);
        assert!(reply.contains("error"), "{what}: {reply}");
    }
    let reply = s.eval("r := x; y := r").output.render(false);
    assert!(reply.contains("complete pomset"), "{reply}");
}

/// `refine --from` goes through the same guard.
#[test]
fn refine_from_refuses_long_chains() {
    for (what, fragment) in chains(11_000) {
        let r = pomset::refinement::quick(&fragment, "r := 1");
        assert!(r.is_err(), "{what}");
    }
}

/// The binary, on a file: exit 1 and a file:line:col location, for every command.
#[test]
fn the_binary_refuses_long_chains_with_a_location() {
    let src = litmus(&format!("r := {}1", "- ".repeat(11_000)), "r = 1");
    let path = temp_file("minus.litmus", &src);
    let path = path.to_str().expect("a UTF-8 temp path");
    for command in ["check", "run", "parse"] {
        let out = pomset(&[command, path]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command}: {err}");
        assert!(err.contains("minus.litmus:2:"), "{command}: {err}");
    }
    let out = pomset(&["fmt", "--check", path]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}
