//! The REPL driven as a person drives it: scripted sessions (tests/repl/*.session)
//! whose transcripts are pinned as snapshots, the binary in script mode, and the
//! pieces the line editor relies on.

use crate::families;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use families::corr;
use pomset::repl::front::{is_complete, run_script};
use pomset::repl::{Session, Tone};

/// The transcript of a session file, as `pomset repl FILE` prints it when piped.
fn transcript(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/repl/{name}.session"));
    let script = std::fs::read_to_string(&path).expect("the session file exists");
    let mut out = Vec::new();
    // Paths in the sessions are relative to the repository, as in the book:
    // cargo starts test binaries there (no test changes the working directory).
    run_script(script.as_bytes(), &mut out, false).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the transcript is UTF-8")
}

#[test]
fn exploring_lb() {
    let t = transcript("explore_lb");
    // With relaxed accesses LB's outcome is reachable; with acquire reads it is too
    // under the default model (the note's c7a and c8b leave it to the model).
    assert!(t.contains("9 complete pomsets, 3 shown"), "{t}");
    // :draw numbers pomsets as the last listing did, --outcome included.
    assert!(
        t.contains("pomset> :draw 1\nFRAGMENT: P0:r=1; P1:s=1"),
        "{t}"
    );
    insta::assert_snapshot!("explore_lb", t);
}

#[test]
fn varying_an_option_flips_a_verdict() {
    let t = transcript("vary_option");
    // C06 is forbidden under Fig. 1's c7a (closure) and allowed under the old direct rule.
    assert!(t.contains("direct                      9       No"), "{t}");
    assert!(t.contains("closure (current, default)  8       Ok"), "{t}");
    insta::assert_snapshot!("vary_option", t);
}

#[test]
fn explaining_a_forbidden_outcome() {
    let t = transcript("explain_forbidden");
    assert!(t.contains("Forbidden: 1 combination(s)"), "{t}");
    assert!(t.contains("0 complete pomsets"), "{t}");
    insta::assert_snapshot!("explain_forbidden", t);
}

#[test]
fn a_refinement_under_two_options() {
    let t = transcript("refinement");
    // Dropping a write is unsound without merging, and sound with merge = binary.
    assert!(
        t.contains("pomset> :refine x := 1; x := 2 ~> x := 2\nRefinement quick: unsound"),
        "{t}"
    );
    assert!(
        t.contains(
            "merge = binary\npomset> :refine x := 1; x := 2 ~> x := 2\nRefinement quick: sound"
        ),
        "{t}"
    );
    insta::assert_snapshot!("refinement", t);
}

#[test]
fn errors_keep_the_session_alive() {
    let t = transcript("errors");
    // Every error is followed by more prompts, and the last fragment still runs.
    assert!(t.contains("^ not part of the litmus language"), "{t}");
    // A fragment's error points at the line as typed; a header's, at the header.
    assert!(t.contains("┌─ <input>:1:9"), "{t}");
    assert!(t.contains("2 │ scopes: gpu"), "{t}");
    assert!(t.contains("1 complete pomset\n"), "{t}");
    // :quit ends the session: the input after it is not echoed.
    assert!(t.trim_end().ends_with("pomset> :quit"), "{t}");
    insta::assert_snapshot!("errors", t);
}

#[test]
fn multi_line_input_values_and_scopes() {
    let t = transcript("multiline");
    assert!(t.contains("   ...> } || x.rel.cta := 2"), "{t}");
    assert!(t.contains("P0:R^acq_gpu x2"), "{t}");
    insta::assert_snapshot!("multiline", t);
}

#[test]
fn the_binary_reads_a_session_from_a_pipe() {
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/repl/explain_forbidden.session"),
    )
    .expect("the session file exists");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pomset"))
        .arg("repl")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pomset runs");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(script.as_bytes())
        .expect("the script is written");
    let out = child.wait_with_output().expect("pomset finishes");
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Piped output is plain, and it is exactly the in-process transcript.
    assert!(!stdout.contains('\x1b'));
    assert_eq!(stdout, transcript("explain_forbidden"));
}

#[test]
fn colour_only_when_asked() {
    let mut s = Session::new();
    let reply = s.eval(":load examples/classic/lb.litmus");
    let reply_run = s.eval(":run");
    assert!(!reply.output.has_error());
    assert!(reply_run
        .output
        .lines
        .iter()
        .any(|(tone, line)| *tone == Tone::Good && line == "Ok"));
    assert!(!reply_run.output.render(false).contains('\x1b'));
    assert!(reply_run.output.render(true).contains("\x1b[32mOk\x1b[0m"));
    let bad = s.eval(":nonsense");
    assert!(bad.output.has_error());
    assert!(bad.output.render(true).starts_with("\x1b[1;31merror:"));
}

#[test]
fn set_goes_through_the_models_parser() {
    let mut s = Session::new();
    assert!(!s.eval(":set c7a direct").output.has_error());
    assert!(!s.eval(":set c8a=strong").output.has_error());
    let options = s.eval(":options").output.render(false);
    assert!(options.contains("* c7a"), "{options}");
    assert!(options.contains("* c8a"), "{options}");
    assert!(options.contains("  c7b "), "{options}");
    assert!(s.eval(":set c7a nope").output.has_error());
    s.eval(":unset c7a");
    let options = s.eval(":options").output.render(false);
    assert!(!options.contains("* c7a"), "{options}");
}

#[test]
fn input_is_complete_when_braces_balance() {
    assert!(is_complete("r := x; y := r"));
    assert!(!is_complete("if (r == 1) {"));
    assert!(!is_complete("if (r == 1) {\n  y := 1;"));
    assert!(is_complete("if (r == 1) {\n  y := 1;\n}"));
    assert!(is_complete(":scopes gpu { cta { P0 } }"));
    // A litmus file spans lines and ends with an empty line.
    assert!(!is_complete("litmus SB\nx := 1;"));
    assert!(is_complete("litmus SB\nx := 1;\n"));
    // Braces inside a description do not count.
    assert!(!is_complete("litmus A \"{\"\nx := 1;"));
    assert!(is_complete("litmus A \"{\"\nx := 1;\n"));
}

#[test]
fn ctrl_c_stops_a_query_and_keeps_the_session() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static CANCELLED: AtomicBool = AtomicBool::new(false);
    let mut s = Session::new().with_cancel(&CANCELLED);
    s.eval(":load examples/classic/iriw.litmus");
    CANCELLED.store(true, Ordering::Relaxed);
    let run = s.eval(":run").output.render(false);
    assert!(run.contains("Limit reached: interrupted (Ctrl-C)"), "{run}");
    assert!(run.contains("Unknown"), "{run}");
    CANCELLED.store(false, Ordering::Relaxed);
    let run = s.eval(":run").output.render(false);
    assert!(!run.contains("interrupted"), "{run}");
}

#[test]
fn every_book_session_is_shown_in_the_chapter() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chapter = std::fs::read_to_string(root.join("book/src/repl.md")).expect("the chapter");
    let mut shown = 0;
    for entry in std::fs::read_dir(root.join("book/repl")).expect("book/repl") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("a file name").to_string_lossy();
        // tests/it/book.rs runs each console block and compares its output.
        let command = format!("```console\n$ pomset repl book/repl/{name}\n");
        assert!(
            chapter.contains(&command),
            "book/repl/{name} is not shown in repl.md"
        );
        shown += 1;
    }
    assert!(shown >= 5);
}

/// `:run` keeps states as `pomset run` does (one per orbit, readers kept
/// apart): CoRR with six reads, whose reader alone has 941 977 pomsets, is
/// decided in full, with `run`'s counts.
#[test]
fn run_decides_a_reader_too_big_to_build_whole() {
    let src = corr(6);
    let path =
        std::env::temp_dir().join(format!("pomset-repl-corr6-{}.litmus", std::process::id()));
    std::fs::write(&path, src).expect("a temporary file");
    let mut s = Session::new();
    let loaded = s.eval(&format!(":load {}", path.display()));
    assert!(
        !loaded.output.has_error(),
        "{}",
        loaded.output.render(false)
    );
    let run = s.eval(":run").output.render(false);
    let _ = std::fs::remove_file(&path);
    assert!(!run.contains("Limit"), "{run}");
    assert!(run.contains("States 262144"), "{run}");
    assert!(
        run.contains("Observation CoRR-6 Sometimes 1 941976"),
        "{run}"
    );
}

/// `:refine S1 ~> S2` typed literally: the error points at what was typed
/// (`S1`), not into the refinement file the REPL wraps it in.
#[test]
fn a_bad_refine_points_at_the_typed_line() {
    let mut s = Session::new();
    let out = s.eval(":refine S1 ~> S2").output;
    assert!(out.has_error());
    let shown = out.render(false);
    // `S1` alone is a statement cut short: at its end, not at the `}` the
    // REPL wrapped it in.
    assert!(shown.contains("┌─ <input>:1:3"), "{shown}");
    assert!(shown.contains("unexpected end of S1"), "{shown}");
    assert!(shown.contains("1 │ S1 ~> S2"), "{shown}");
    assert!(
        !shown.contains("<refine>") && !shown.contains("source {"),
        "{shown}"
    );
    // A fragment of one's own, typed after a bad one, still decides.
    let out = s
        .eval(":refine x := 1; x := 2 ~> x := 2")
        .output
        .render(false);
    assert!(out.contains("Refinement quick: unsound"), "{out}");
}

#[test]
fn refine_and_scopes_errors_are_located_in_what_was_typed() {
    let mut s = Session::new();
    // S1 ends too soon: at its end, not at the `}` the REPL wraps it in.
    let reply = s.eval(":refine x := ~> x := 1").output;
    assert!(reply.has_error());
    let shown = reply.render(false);
    assert!(shown.contains("unexpected end of S1"), "{shown}");
    assert!(shown.contains("<input>:1:5"), "{shown}");
    assert!(!shown.contains("`}`"), "{shown}");
    // A scope tree is checked when it is given, located in it, and not kept.
    let reply = s.eval(":scopes gpu { cta { P0 } ) }").output;
    assert!(reply.has_error());
    let shown = reply.render(false);
    assert!(shown.contains("<input>:1:"), "{shown}");
    assert!(!shown.contains("litmus HEADER"), "{shown}");
    let kept = s.eval(":scopes").output.render(false);
    assert!(kept.contains("the default"), "{kept}");
    let reply = s.eval(":scopes gpu { cta { P0 } cta { P1 } }").output;
    assert!(!reply.has_error(), "{}", reply.render(false));
}
