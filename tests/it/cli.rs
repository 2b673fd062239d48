//! The `pomset` binary as a user runs it: exit codes, output, and help text.

use std::process::{Command, Output};

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
    let dir = std::env::temp_dir().join(format!("pomset-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

#[test]
fn fmt_check_passes_on_the_examples() {
    let out = pomset(&["fmt", "--check", "examples/"]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn fmt_check_fails_on_unformatted_input_and_fmt_fixes_it() {
    let path = temp_file(
        "messy.litmus",
        "litmus M\nx:=1;y.rel:=1;||r:=y.acq;s:=x;\nforbid(r=1/\\s=0)\n",
    );
    let p = path.to_str().expect("utf-8 path");
    let out = pomset(&["fmt", "--check", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("not in canonical form"));
    let out = pomset(&["fmt", p]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(&path).expect("read back"),
        "litmus M\n\nx := 1; y.rel := 1;\n|| r := y.acq; s := x;\n\nforbid (r = 1 /\\ s = 0)\n"
    );
    assert!(pomset(&["fmt", "--check", p]).status.success());
}

#[test]
fn parse_prints_the_core_program() {
    let out = pomset(&["parse", "examples/classic/lb+datas.litmus"]);
    assert!(out.status.success());
    insta::assert_snapshot!(text(&out.stdout));
}

#[test]
fn errors_go_to_stderr_with_location_and_exit_1() {
    let path = temp_file("bad.litmus", "litmus B\nx.acq := 1;\n");
    let out = pomset(&["--color", "never", "check", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("bad.litmus:2:3"), "{err}");
    assert!(err.contains("did you mean `rel`?"), "{err}");
}

#[test]
fn missing_files_are_a_usage_error() {
    let out = pomset(&["fmt", "--check", "no/such/file.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no such file or directory"));
}

#[test]
fn check_reports_each_file() {
    let out = pomset(&["check", "examples/classic/mp.litmus"]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        "examples/classic/mp.litmus: ok (2 threads, 2 locations, V = {0, 1})\n"
    );
}

#[test]
fn help_teaches_with_examples() {
    let out = pomset(&["--help"]);
    assert!(out.status.success());
    insta::assert_snapshot!("help", text(&out.stdout));
    let out = pomset(&["fmt", "--help"]);
    insta::assert_snapshot!("fmt_help", text(&out.stdout));
}

#[test]
fn options_lists_every_model_option() {
    let out = pomset(&["options"]);
    assert!(out.status.success());
    let listing = text(&out.stdout);
    for o in pomset::model::Model::OPTIONS {
        assert!(listing.contains(o.name), "{} missing", o.name);
    }
    insta::assert_snapshot!("options", listing);
}

#[test]
fn refine_checks_files_and_quick_pairs() {
    // 5 000 pomsets per generated test: the two `-closed` files (expected
    // `unknown`) otherwise spend 20 s each in the contexts that need more.
    let out = pomset(&["refine", "--max-pomsets", "5000", "examples/refinements/"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let listing = text(&out.stdout);
    assert_eq!(listing.matches("Expected ").count(), 30);
    let out = pomset(&["refine", "--from", "x := 1; x := 2;", "--to", "x := 2;"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).starts_with("Refinement quick: unsound"));
    let out = pomset(&[
        "refine",
        "--set",
        "merge=binary",
        "--from",
        "x := 1; x := 2;",
        "--to",
        "x := 2;",
    ]);
    assert_eq!(
        text(&out.stdout),
        "Refinement quick: sound (target 2 pomsets, source 5)\n"
    );
    let path = temp_file(
        "wrong.refine",
        "refine W\nsource { x := 1; }\ntarget { skip; }\nexpect sound\n",
    );
    let out = pomset(&["--color", "never", "refine", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "a failed expect exits 1");
    let out = pomset(&["refine", "--help"]);
    insta::assert_snapshot!("refine_help", text(&out.stdout));
}

#[test]
fn repl_reads_a_script_and_no_arguments_without_a_terminal_prints_help() {
    // Without a terminal, `pomset` alone keeps printing the help (exit 2).
    let bare = pomset(&[]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(text(&bare.stderr).contains("pomset repl"));
    let path = temp_file("session.txt", "r := x; y := r\n:quit\n");
    let out = pomset(&["repl", path.to_str().expect("a UTF-8 temp path")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let transcript = text(&out.stdout);
    assert!(
        transcript.starts_with("pomset> r := x; y := r\n"),
        "{transcript}"
    );
    assert!(transcript.contains("1 complete pomset\n"), "{transcript}");
    let help = pomset(&["repl", "--help"]);
    assert!(text(&help.stdout).contains("pomset repl < book/repl/1-fragments.session"));
}

#[test]
fn draw_writes_files_and_run_draws_allowed_conditions() {
    let dir = std::env::temp_dir().join(format!("pomset-draw-{}", std::process::id()));
    let svg = dir.join("mp.svg");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = pomset(&[
        "draw",
        "examples/classic/mp+rel+acq.litmus",
        "--format",
        "svg",
        "-o",
        svg.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let drawn = std::fs::read_to_string(&svg).expect("svg written");
    assert!(drawn.starts_with("<svg") && drawn.contains("W<tspan"));
    let out = pomset(&["draw", "examples/classic/mp.litmus", "--which", "x"]);
    assert_eq!(out.status.code(), Some(2));
    // MP's relaxed outcome is allowed, MP+rel+acq's is forbidden: one file.
    let runs = dir.join("runs");
    let out = pomset(&[
        "run",
        "examples/classic/mp.litmus",
        "examples/classic/mp+rel+acq.litmus",
        "--draw",
        runs.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut files: Vec<String> = std::fs::read_dir(&runs)
        .expect("dir made")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["MP.1.svg"]);
}

/// An option value the semantics does not implement is refused by every
/// command, never silently read as another value.
#[test]
fn every_command_refuses_if_closure_on() {
    let mp = "examples/classic/mp.litmus";
    for args in [
        vec!["pomsets", mp],
        vec!["pomsets", "--candidates", mp],
        vec!["explain", mp],
        vec!["draw", mp],
    ] {
        let mut all = args.clone();
        all.extend(["--set", "if_closure=on"]);
        let out = pomset(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains("if_closure = on")
                && text(&out.stderr).contains("if_closure = registers"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = pomset(&["run", "--set", "if_closure=on", mp]);
    assert!(
        text(&out.stdout).contains("if_closure = on"),
        "run reports it"
    );
    let out = pomset(&[
        "refine",
        "--set",
        "if_closure=on",
        "--from",
        "x := 1;",
        "--to",
        "skip;",
    ]);
    assert!(text(&out.stdout).contains("unsupported: if_closure = on is refused"));
}

/// Every repository path an example in a `--help` names exists, so that a
/// new user can paste it.
#[test]
fn every_path_in_every_help_exists() {
    // Every subcommand clap knows, so a new command's help is checked too.
    use clap::CommandFactory;
    let cli = pomset::cli::Cli::command();
    let commands: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 16, "{commands:?}");
    let mut helps = vec![text(&pomset(&["--help"]).stdout)];
    helps.extend(
        commands
            .iter()
            .map(|c| text(&pomset(&[c.as_str(), "--help"]).stdout)),
    );
    let mut checked = 0;
    for help in &helps {
        for word in help.split(|c: char| c.is_whitespace() || "'\"`()".contains(c)) {
            let word = word.trim_end_matches([',', '.', ':', ';']);
            if !["examples/", "book/", "tests/", "src/"]
                .iter()
                .any(|dir| word.starts_with(dir))
            {
                continue;
            }
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(word);
            assert!(path.exists(), "a --help names {word}, which does not exist");
            checked += 1;
        }
    }
    assert!(
        checked >= 20,
        "only {checked} paths found in the help texts"
    );
}

/// An error in a command-line condition is located in the argument, not at
/// a line past the end of the litmus file.
#[test]
fn condition_errors_are_located_in_the_argument() {
    for args in [
        [
            "pomsets",
            "examples/classic/mp+rel+acq.litmus",
            "--outcome",
            "P1:r = 1 /\\ P1:q = 0",
        ],
        [
            "draw",
            "examples/classic/mp+rel+acq.litmus",
            "--outcome",
            "P1:r = 1 /\\",
        ],
    ] {
        let out = pomset(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("<condition>:1:"), "{err}");
        assert!(!err.contains("mp+rel+acq.litmus:"), "{err}");
    }
    let out = pomset(&[
        "explain",
        "examples/classic/mp+rel+acq.litmus",
        "P1:r = = 1",
    ]);
    assert!(
        text(&out.stderr).contains("<condition>:1:"),
        "{}",
        text(&out.stderr)
    );
}

/// `draw --model`: executions in SVG; a model with errors is reported with
/// its location and exit code 2, never a panic; `draw --help` says so.
#[test]
fn draw_under_a_cat_model() {
    let out = pomset(&[
        "draw",
        "--model",
        "rc11",
        "examples/classic/sb.litmus",
        "--which",
        "candidates",
        "--format",
        "svg",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    assert!(svg.starts_with("<svg") && svg.contains("class=\"edge exfr\""));
    let bad = temp_file("bad-draw.cat", "M\nacyclic po | foo\n");
    let out = pomset(&[
        "--color",
        "never",
        "draw",
        "--model",
        bad.to_str().expect("utf-8 path"),
        "examples/classic/mp.litmus",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("bad-draw.cat:2:14") && err.contains("has errors"),
        "{err}"
    );
    let out = pomset(&[
        "draw",
        "--model",
        "rc11",
        "examples/classic/mp.litmus",
        "--which",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let help = text(&pomset(&["draw", "--help"]).stdout);
    assert!(help.contains("--model <MODEL>") && help.contains("candidate executions"));
}

/// `if_closure = registers` stops at `--max-partitions` with the limit named:
/// C07's last read has two registers in scope (r, s) over V = {0, 1, 2}:
/// 9 valuations, Bell(9) = 21147 partitions, past the default 1000.
#[test]
fn if_closure_stops_at_max_partitions() {
    let c07 = "examples/catalogue/c07-acq-orders-prior-same-loc-read.litmus";
    let out = pomset(&[
        "run",
        "--allow-unknown",
        "--set",
        "if_closure=registers",
        c07,
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Limit reached: --max-partitions 1000"),
        "{stdout}"
    );
    assert!(stdout.contains("Unknown"), "{stdout}");
}

#[test]
fn sc_json_reports_a_register_read_before_assignment_inside_the_array() {
    let path = temp_file(
        "sc-unassigned.litmus",
        "litmus U\nx := 1;\n|| if (r = 0) { y := 1; }\nexists (y = 1)\n",
    );
    let path = path.to_string_lossy();
    let out = pomset(&["run", "--engine", "sc", "--json", &path]);
    let stdout = text(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is JSON only");
    let reports = json.as_array().expect("an array of reports");
    assert_eq!(reports.len(), 1, "{stdout}");
    assert_eq!(reports[0]["name"], "U");
    let why = reports[0]["unsupported"].as_str().unwrap_or_default();
    assert!(
        why.contains("P1:r is read before it is assigned"),
        "{stdout}"
    );
}

#[test]
fn explain_names_the_unroll_cut_for_a_loop_without_reads() {
    let path = temp_file(
        "count.litmus",
        "litmus Count\nr := 0; while (r < 5) { r := r + 1; }\nexists (r = 5)\n",
    );
    let path = path.to_string_lossy();
    let out = pomset(&["explain", &path]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("no path within --unroll 2 produces them"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("a read that no write can fulfil"),
        "{stdout}"
    );
    let out = pomset(&["explain", "--unroll", "6", &path]);
    assert!(
        text(&out.stdout).contains("Reachable"),
        "{}",
        text(&out.stdout)
    );
}

/// A directory of tests run under a model that does not check the files'
/// expectations says so, and counts none of them as met (issue 31).
#[test]
fn a_summary_under_a_cat_model_says_the_expectations_are_not_checked() {
    let out = pomset(&["run", "--model", "rc11", "examples/classic/"]);
    let stdout = text(&out.stdout);
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.contains("decided under RC11") && last.contains("are not checked"),
        "{last}"
    );
    assert!(!last.contains("as expected"), "{last}");
    let pwt = text(&pomset(&["run", "examples/classic/"]).stdout);
    assert!(pwt.lines().last().unwrap_or("").contains("as expected"));
}

/// Of several files, a Vulkan test under the pomset semantics is one skip
/// in the summary, with its reason, not an error block (issue 31).
#[test]
fn a_vulkan_test_among_others_is_a_named_skip() {
    let dir = std::env::temp_dir().join(format!("pomset-skip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for name in ["classic/mp.litmus", "vulkan/barrier-mp.litmus"] {
        let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let to = dir.join(name.replace('/', "-"));
        std::fs::copy(from, to).expect("copy an example");
    }
    let out = pomset(&["run", dir.to_str().expect("a UTF-8 path")]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!stderr.contains("error"), "{stderr}");
    assert!(
        stdout.contains("1 skipped, written for the Vulkan model (run them with --model vulkan)"),
        "{stdout}"
    );
    assert!(stdout.contains("vulkan-barrier-mp.litmus"), "{stdout}");
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
}

/// A directory with no tests in it is a usage error, not a silent success.
#[test]
fn a_directory_without_tests_is_an_error() {
    let dir = std::env::temp_dir().join(format!("pomset-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = pomset(&["run", dir.to_str().expect("a UTF-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no tests under"),
        "{}",
        text(&out.stderr)
    );
}

/// `explain` takes the limits `run` takes, and names the one it reaches.
#[test]
fn explain_names_the_limit_it_reaches() {
    let out = pomset(&[
        "explain",
        "--max-pomsets",
        "1",
        "examples/classic/mp+rel+acq.litmus",
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Limit reached: --max-pomsets 1"),
        "{stdout}"
    );
}

/// Seven writers of x and a reader reading x twice: 5040 candidate
/// executions reach `r = 2 /\ s = 1`, half of them consistent, and the
/// first ones a cat model visits are the inconsistent half.
fn writers_and_a_reader(n: usize) -> String {
    let writers: Vec<String> = (1..=n).map(|v| format!("x := {v};")).collect();
    format!(
        "litmus W{n}R\n\n{}\n|| r := x; s := x;\n\nexists (r = 2 /\\ s = 1)\n",
        writers.join("\n|| ")
    )
}

/// A limit is never a verdict in `explain`: stopped before it finds a way
/// to the outcome, every model says Unknown with the limit named, where
/// the cat models said "none is consistent: forbidden".
#[test]
fn explain_under_a_limit_is_unknown_never_forbidden() {
    let path = temp_file("w7r.litmus", &writers_and_a_reader(7));
    let path = path.to_str().expect("a UTF-8 path");
    let explain = |args: &[&str], file: &str| {
        let out = pomset(&[&["explain"], args, &[file]].concat());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    };
    for (model, name) in [("rc11", "RC11"), ("ptx", "PTX")] {
        let full = explain(&["--model", model], path);
        let allowed =
            format!("5040 candidate executions reach it; 2520 consistent under {name}: allowed");
        assert!(full.contains(&allowed), "{full}");
        // Under a limit: Unknown naming it, or allowed by a witness that
        // run's pruned search found first, the limit then named as where
        // the listing stopped; never forbidden.
        for limit in [["--timeout", "0"], ["--max-steps", "20"]] {
            let out = explain(&[&["--model", model], &limit[..]].concat(), path);
            let unknown = format!("Unknown: Limit reached: {} {};", limit[0], limit[1]);
            let witnessed = format!(
                "stopped at a limit (Limit reached: {} {})",
                limit[0], limit[1]
            );
            assert!(
                out.contains(&unknown) || (out.contains(": allowed") && out.contains(&witnessed)),
                "{model} {limit:?}: {out}"
            );
            assert!(!out.contains("forbidden"), "{model} {limit:?}: {out}");
        }
        // Whatever the deadline, never forbidden: a witness or Unknown.
        let out = explain(&["--model", model, "--timeout", "0.001"], path);
        assert!(!out.contains("forbidden"), "{model}: {out}");
        assert!(
            out.contains(": allowed") || out.contains("Unknown: Limit reached: --timeout 0.001;"),
            "{model}: {out}"
        );
    }
    // Issue 40: explain decides as run does (the pruned search), so a test
    // whose candidates are too many to list is still decided: CoRR-6's
    // reader has 7^6 runs, and the outcome is forbidden under RC11.
    let corr = temp_file("corr6.litmus", &crate::families::corr(6));
    let corr = corr.to_str().expect("a UTF-8 path");
    let out = explain(&["--model", "rc11", "--max-states", "20000"], corr);
    assert!(
        out.contains("no consistent execution under RC11 reaches it (run's pruned search")
            && out.contains(": forbidden")
            && out.contains(
                "the listing below stopped at a limit (Limit reached: --max-states 20000)"
            ),
        "{out}"
    );
    let run = pomset(&["run", "--model", "rc11", "--max-states", "20000", corr]);
    assert!(
        text(&run.stdout).contains("Observation CoRR-6 Never"),
        "{}",
        text(&run.stdout)
    );
    // pwt: MP with release/acquire is forbidden, but not under a limit.
    let mp = "examples/classic/mp+rel+acq.litmus";
    assert!(explain(&[], mp).contains("Forbidden: "));
    for limit in [["--timeout", "0"], ["--max-steps", "1"]] {
        for file in [mp, path] {
            let out = explain(&limit, file);
            let want = format!("Unknown: Limit reached: {} {} ", limit[0], limit[1]);
            assert!(out.contains(&want), "{limit:?} {file}: {out}");
            assert!(!out.contains("Forbidden"), "{limit:?} {file}: {out}");
        }
    }
    assert!(explain(&[], path).contains("Reachable: "));
    // Runs dropped for leaving a declared V leave "none" unsettled too, as
    // in `run` (issue 27 §1): the FADD may write 2, outside V.
    let v = temp_file(
        "v-left.litmus",
        "litmus VLEFT\nvalues {0, 1}\n\nr := FADD(x, 1); s := x;\n|| x := 1;\n\nexists (s = 0 /\\ r = 1)\n",
    );
    let out = explain(&["--model", "rc11"], v.to_str().expect("a UTF-8 path"));
    assert!(
        out.contains("Unknown: 1 thread runs write a value or use an address outside V"),
        "{out}"
    );
    assert!(!out.contains("no candidate execution reaches"), "{out}");
}

/// An undeclared register in a condition is named as missing from every
/// thread, in words a reader can parse.
#[test]
fn an_unknown_register_in_a_condition_is_missing_from_every_thread() {
    let path = temp_file(
        "unknown-reg.litmus",
        "litmus U\nr := x;\n|| x := 1;\nexists (t = 1)\n",
    );
    let out = pomset(&["check", path.to_str().expect("a UTF-8 path")]);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("no thread has a register `t`"), "{stderr}");
}

/// Options a model name carries are the model decided: the report's model
/// line and its expectations are those of `--set` with the same options.
#[test]
fn options_in_a_model_name_are_those_of_set() {
    let file = "examples/catalogue/c06-mp-fences.litmus";
    let stable = |o: Output| -> String {
        text(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with("Time "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let named = stable(pomset(&["run", "--model", "pwt[c7a=direct]", file]));
    let set = stable(pomset(&["run", "--set", "c7a=direct", file]));
    assert_eq!(named, set);
    assert!(named.contains("Model c7a=direct"), "{named}");
    let refused = pomset(&["run", "--model", "sc", "--verdict-only", file]);
    assert!(
        text(&refused.stderr).contains("the model `sc` does not offer --verdict-only; pwt does"),
        "{}",
        text(&refused.stderr)
    );
}

/// `run --stats` is taken under every model, and each prints what its own
/// search counted: the logic layer's queries under the pomset semantics,
/// configurations under sc, steps under a cat model (which asks the logic
/// layer nothing, so no zero counts of it). `--draw` still needs pomsets.
#[test]
fn stats_count_each_engines_own_search() {
    let file = "examples/classic/mp+rel+acq.litmus";
    let stats = |model: &str| -> String {
        let out = pomset(&["run", "--model", model, "--stats", file]);
        assert!(out.status.success(), "{model}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let line = stdout.lines().find(|l| l.starts_with("Stats MP+rel+acq "));
        line.unwrap_or_else(|| panic!("{model}: no Stats line in {stdout}"))
            .to_string()
    };
    for model in ["pwt", "pwt:reference"] {
        let line = stats(model);
        assert!(line.contains(" queries "), "{model}: {line}");
        assert!(
            !line.contains(" steps ") && !line.contains(" configurations "),
            "{line}"
        );
    }
    let counted = |line: &str, name: &str| -> u64 {
        let words: Vec<&str> = line.split(' ').collect();
        let at = words.iter().position(|w| *w == name);
        at.and_then(|i| words.get(i + 1)?.parse().ok())
            .unwrap_or_else(|| panic!("no `{name} N` in {line}"))
    };
    let sc = stats("sc");
    assert!(counted(&sc, "configurations") > 0, "{sc}");
    assert!(
        !sc.contains(" queries ") && !sc.contains("spin-loops"),
        "{sc}"
    );
    for model in ["rc11", "ptx"] {
        let line = stats(model);
        assert!(counted(&line, "steps") > 0, "{model}: {line}");
        assert!(!line.contains(" queries "), "{model}: {line}");
    }
    let refused = pomset(&["run", "--model", "sc", "--draw", "/tmp", file]);
    assert!(
        text(&refused.stderr).contains("the model `sc` does not offer `pomsets` and `run --draw`"),
        "{}",
        text(&refused.stderr)
    );
}

/// `--timeout` is a finite number of seconds, not negative, for every
/// command that takes one: anything else is a usage error naming the flag
/// (NaN used to panic in `run`, `explain`, `refine` and `distinguish`).
#[test]
fn every_command_refuses_a_timeout_that_is_not_seconds() {
    let sb = "examples/classic/sb.litmus";
    let commands: [&[&str]; 9] = [
        &["run", sb],
        &["run", "--verdict-only", sb],
        &["explain", sb],
        &["explain", "--model", "rc11", sb],
        &["pomsets", sb],
        &["compare", "--models", "pwt,rc11", sb],
        &["vary", sb],
        &["refine", "--from", "r1 := x;", "--to", "r1 := x;"],
        &["distinguish", "--models", "pwt,sc"],
    ];
    for command in commands {
        for bad in ["nan", "NaN", "inf", "-inf", "-1", "-0.5", "1e400"] {
            let joined = format!("--timeout={bad}");
            let mut forms = vec![[command, &[&joined[..]]].concat()];
            // clap reads `-inf` after a space as a flag; numbers it takes.
            if bad != "-inf" {
                forms.push([command, &["--timeout", bad]].concat());
            }
            for args in forms {
                let out = pomset(&args);
                let stderr = text(&out.stderr);
                assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
                assert!(
                    stderr.contains("--timeout takes a number of seconds, finite and not negative"),
                    "{args:?}: {stderr}"
                );
                assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
                assert!(out.stdout.is_empty(), "{args:?}");
            }
        }
    }
    // Zero is a timeout: due at once, the verdicts unknown with it named.
    let out = pomset(&["run", "--timeout", "0", "--allow-unknown", sb]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(stdout.contains("Limit reached: --timeout 0 "), "{stdout}");
}

/// `run` with its output in a file writes the report there, and exits 0
/// only with one written: never a quiet success with an empty file.
#[test]
fn run_into_a_file_writes_the_report_or_fails() {
    let dir = std::env::temp_dir().join(format!("pomset-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases: [&[&str]; 6] = [
        &[],
        &["--json"],
        &["--model", "pwt:reference"],
        &["--model", "rc11", "--timeout", "0"],
        &["--timeout", "-1"],
        &["--json", "--timeout", "nan"],
    ];
    for (k, extra) in cases.iter().enumerate() {
        let path = dir.join(format!("run-{k}.out"));
        let file = std::fs::File::create(&path).expect("an output file");
        let args = [
            &["run", "--allow-unknown"],
            *extra,
            &["examples/classic/sb.litmus"],
        ]
        .concat();
        let status = Command::new(env!("CARGO_BIN_EXE_pomset"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(file)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("the pomset binary runs");
        let written = std::fs::read_to_string(&path).expect("read the output back");
        if status.success() {
            assert!(written.contains("SB"), "{args:?}: {written:?}");
        } else {
            assert_eq!(
                status.code(),
                Some(2),
                "{args:?}: only usage errors fail here"
            );
        }
    }
}

/// `run`'s summary counts the verdicts it checked apart from the tests
/// that state none (`expect unknown`), and `--draw` says which condition no
/// complete pomset satisfies instead of writing nothing silently.
#[test]
fn run_summary_separates_checked_verdicts_from_tests_that_state_none() {
    let dir = std::env::temp_dir().join(format!("pomset-summary-{}", std::process::id()));
    let out = pomset(&[
        "run",
        "examples/classic/mp.litmus",
        "examples/classic/mp+rel+acq.litmus",
        "--draw",
        dir.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.ends_with(
            "\n2 tests: 1 verdict checked: 1 as expected, 0 not as expected; 1 states no verdict; 0 unknown (limit or unsupported)\n"
        ),
        "{stdout}"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "drew nothing for condition 1 of MP+rel+acq, forbid (P1:r = 1 /\\ P1:s = 0): no complete pomset satisfies it"
        ),
        "{stderr}"
    );
}

/// A model name that names nothing gets every name and the nearest one;
/// names are read in any case; a mapping to no model lists the mappings.
#[test]
fn unknown_models_and_mappings_are_named_with_the_choices() {
    let mp = "examples/classic/mp.litmus";
    let out = pomset(&["run", "--model", "rc12", mp]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: no model is called `rc12` (did you mean `rc11`?); the models: pwt, pwt:reference, sc, rc11, ptx,"),
        "{stderr}"
    );
    assert!(stderr.contains(", or a .cat file"), "{stderr}");
    assert!(!stderr.contains("os error"), "{stderr}");
    let upper = pomset(&["run", "--model", "RC11", mp]);
    let lower = pomset(&["run", "--model", "rc11", mp]);
    assert_eq!(
        upper.status.code(),
        lower.status.code(),
        "{}",
        text(&upper.stderr)
    );
    // The same report but for the time it took.
    let untimed = |o: &Output| {
        text(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with("Time "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(untimed(&upper), untimed(&lower));
    assert!(untimed(&upper).contains("Observation MP Sometimes 1 3"));
    // A file that does not exist is still a file.
    let out = pomset(&["run", "--model", "no-such.cat", mp]);
    assert!(text(&out.stderr).contains("cannot read model `no-such.cat`"));
    let out = pomset(&[
        "compare",
        "--models",
        "pwt,rc11",
        "--mapping",
        "pwt:foo",
        mp,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--mapping pwt:foo: no model is called `foo`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the mappings: pwt:ptx (the PTX lowering), pwt:vulkan"),
        "{stderr}"
    );
}

/// Every argument of every command says what it is in `--help`.
#[test]
fn every_argument_of_every_command_has_help() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{path} {}", arg.get_id()));
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut cmd = pomset::cli::Cli::command();
    cmd.build();
    let mut missing = Vec::new();
    walk(&cmd, "pomset", &mut missing);
    assert!(missing.is_empty(), "arguments without help: {missing:?}");
    // The walk sees the commands' own arguments, not only the shared ones.
    let explain = text(&pomset(&["explain", "--help"]).stdout);
    assert!(
        explain.contains("<PATH>       The litmus file"),
        "{explain}"
    );
}
