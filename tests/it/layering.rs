//! Architecture invariants, read off the source:
//! - no library module imports a front end. The front ends are `cli/`,
//!   `main.rs`, `repl/` and `serve/`; every other file under `src/` reaches
//!   the shared operations through `workbench` and the stages below it, so a
//!   third front end adds no third copy;
//! - no engine imports another engine (each folder or file under
//!   `src/engine/` but the interface, `engine/mod.rs`);
//! - the outcome layer (`src/outcome/`) and the report (`src/report.rs`)
//!   import no engine;
//! - `render` imports no engine: an engine hands it plain pictures
//!   (`render::Picture`), never the other way round;
//! - outside `src/engine/`, an engine is what its `mod.rs` exports: no
//!   module names an engine's submodule (`engine::pwt::construct`,
//!   `engine::axiomatic::lower`), only the items at its top
//!   (`engine::pwt::Pwt`, `engine::axiomatic::Mapping`). The one exception
//!   is `src/cat/`, the axiomatic engine's own language, whose evaluator
//!   reads that engine's executions and relations.

use std::path::{Path, PathBuf};

/// The front ends: they may use each other and everything else.
const FRONT_ENDS: &[&str] = &["cli", "main.rs", "repl", "serve"];

/// The paths a library module must not name.
const FORBIDDEN: &[&str] = &[
    "crate::cli",
    "crate::repl",
    "crate::serve",
    "super::cli",
    "super::repl",
    "super::serve",
    "pomset::cli",
    "pomset::repl",
    "pomset::serve",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("src/ is readable");
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether `path` (relative to src/) is a front end.
fn is_front_end(relative: &Path) -> bool {
    let first = relative.components().next();
    first.is_some_and(|c| FRONT_ENDS.iter().any(|f| c.as_os_str() == *f))
}

/// The offending lines of one file's text: each line naming a front end
/// (comments count too, so a doc link cannot hide a dependency).
fn offences(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| FORBIDDEN.iter().any(|f| l.contains(f)) || l.trim() == "use crate::{cli")
        .map(str::to_string)
        .collect()
}

#[test]
fn no_library_module_imports_a_front_end() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for path in files {
        let relative = path.strip_prefix(&src).expect("under src/");
        if is_front_end(relative) || relative == Path::new("lib.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file is readable");
        for line in offences(&text) {
            bad.push(format!("{}: {}", relative.display(), line.trim()));
        }
    }
    assert!(
        bad.is_empty(),
        "library modules import a front end:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_sees_an_import_of_the_command_line() {
    assert_eq!(offences("use crate::cli::apply_sets;").len(), 1);
    assert_eq!(
        offences("    let x = crate::repl::start(None, None);").len(),
        1
    );
    assert!(offences("use crate::workbench::apply_sets;").is_empty());
}

/// The engines: each folder or file under `src/engine/` but `mod.rs`.
fn engines(src: &Path) -> Vec<String> {
    let dir = src.join("engine");
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .expect("src/engine/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "mod.rs"))
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .collect();
    out.sort();
    out
}

/// The lines of `text` that name one of `engines` as a path: through
/// `crate::engine::E`, `pomset::engine::E`, or a sibling's `super::E`.
fn names_engine(text: &str, engines: &[&str], siblings: bool) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for e in engines {
        paths.push(format!("crate::engine::{e}"));
        paths.push(format!("pomset::engine::{e}"));
        if siblings {
            paths.push(format!("super::{e}::"));
            paths.push(format!("super::super::{e}"));
        }
    }
    text.lines()
        .filter(|l| {
            paths.iter().any(|p| {
                l.match_indices(p.as_str()).any(|(i, _)| {
                    let next = l[i + p.len()..].chars().next();
                    !next.is_some_and(|c| c.is_alphanumeric() || c == '_') || p.ends_with("::")
                })
            })
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn no_engine_imports_another_engine() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = engines(&src);
    assert!(all.len() >= 4, "the engines: {all:?}");
    let mut bad = Vec::new();
    for engine in &all {
        let others: Vec<&str> = all
            .iter()
            .filter(|e| *e != engine)
            .map(String::as_str)
            .collect();
        let mut files = Vec::new();
        let folder = src.join("engine").join(engine);
        if folder.is_dir() {
            rust_files(&folder, &mut files);
        } else {
            files.push(src.join("engine").join(format!("{engine}.rs")));
        }
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            for line in names_engine(&text, &others, true) {
                bad.push(format!("{}: {}", path.display(), line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "an engine imports another:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_outcome_layer_and_the_report_import_no_engine() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = engines(&src);
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let mut files = Vec::new();
    rust_files(&src.join("outcome"), &mut files);
    files.push(src.join("report.rs"));
    let mut bad = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a source file is readable");
        let mut lines = names_engine(&text, &all, false);
        // The interface (`crate::engine::Engine`) is an engine's too.
        lines.extend(
            text.lines()
                .filter(|l| l.contains("crate::engine") || l.contains("pomset::engine"))
                .map(str::to_string),
        );
        lines.dedup();
        for line in lines {
            bad.push(format!("{}: {}", path.display(), line.trim()));
        }
    }
    assert!(
        bad.is_empty(),
        "the outcome layer imports an engine:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_engine_check_sees_a_sibling_and_a_crate_path() {
    let others = ["pwt", "sc"];
    assert_eq!(
        names_engine("use crate::engine::pwt::decide;", &others, true).len(),
        1
    );
    assert_eq!(
        names_engine("    super::sc::outcomes(p)", &others, true).len(),
        1
    );
    assert_eq!(
        names_engine("use pomset::engine::sc;", &others, true).len(),
        1
    );
    // The interface, and a name that only starts like an engine's, are not engines.
    assert!(names_engine("use crate::engine::{Capability, Engine};", &others, true).is_empty());
    assert!(names_engine("use crate::engine::scope;", &others, true).is_empty());
}

/// Issue 40: `render` lays out and prints pictures; it names no engine,
/// nor the interface (comments count, as for the front ends).
#[test]
fn render_imports_no_engine() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join("render"), &mut files);
    assert!(files.len() >= 5, "the render files: {files:?}");
    let mut bad = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a source file is readable");
        for line in text.lines().filter(|l| mentions_engine(l)) {
            bad.push(format!("{}: {}", path.display(), line.trim()));
        }
    }
    assert!(
        bad.is_empty(),
        "render imports an engine:\n{}",
        bad.join("\n")
    );
}

/// Whether a line names the engines' floor as a path.
fn mentions_engine(line: &str) -> bool {
    [
        "crate::engine",
        "pomset::engine",
        "super::engine",
        "super::super::engine",
    ]
    .iter()
    .any(|p| line.contains(p))
}

/// The submodules of each engine: the files and folders under
/// `src/engine/E/` but `mod.rs` (none for an engine that is one file).
fn engine_submodules(src: &Path) -> Vec<(String, Vec<String>)> {
    engines(src)
        .into_iter()
        .map(|e| {
            let dir = src.join("engine").join(&e);
            let mut subs: Vec<String> = match std::fs::read_dir(&dir) {
                Ok(entries) => entries
                    .map(|x| x.expect("a directory entry").path())
                    .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
                    .filter(|n| n != "mod")
                    .collect(),
                Err(_) => Vec::new(),
            };
            subs.sort();
            (e, subs)
        })
        .collect()
}

/// The first names of the paths in a `use` group's text (`a::B, c, {d}`),
/// split at the commas outside nested braces.
fn group_heads(group: &str) -> Vec<String> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(group[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(group[start..].to_string());
    out.iter().map(|p| ident(p.trim_start())).collect()
}

/// The identifier `text` starts with.
fn ident(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The lines of `text` that name a submodule of an engine: `engine::E::SUB`,
/// or `engine::E::{..., SUB::..., ...}` (a group may span lines).
fn names_internals(text: &str, engines: &[(String, Vec<String>)]) -> Vec<String> {
    let mut bad = Vec::new();
    for (e, subs) in engines {
        let path = format!("engine::{e}::");
        for (i, _) in text.match_indices(&path) {
            let rest = &text[i + path.len()..];
            let heads = match rest.strip_prefix('{') {
                Some(group) => {
                    let mut depth = 1usize;
                    let end = group
                        .char_indices()
                        .find(|&(_, c)| {
                            depth = match c {
                                '{' => depth + 1,
                                '}' => depth - 1,
                                _ => depth,
                            };
                            depth == 0
                        })
                        .map_or(group.len(), |(j, _)| j);
                    group_heads(&group[..end])
                }
                None => vec![ident(rest)],
            };
            if heads.iter().any(|h| subs.contains(h)) {
                let start = text[..i].rfind('\n').map_or(0, |n| n + 1);
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                bad.push(text[start..end].trim().to_string());
            }
        }
    }
    bad
}

/// Issue 40: outside `src/engine/` (and `src/cat/`, the axiomatic engine's
/// language), no module reaches into an engine: each is used through the
/// `Engine` interface or the items its `mod.rs` exports.
#[test]
fn no_module_outside_the_engines_names_an_engine_submodule() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let engines = engine_submodules(&src);
    let pwt = engines.iter().find(|(e, _)| e == "pwt").expect("pwt");
    assert!(pwt.1.iter().any(|s| s == "construct"), "{engines:?}");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for path in files {
        let relative = path.strip_prefix(&src).expect("under src/");
        let first = relative.components().next().map(|c| c.as_os_str());
        if first.is_some_and(|c| c == "engine" || c == "cat") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file is readable");
        for line in names_internals(&text, &engines) {
            bad.push(format!("{}: {line}", relative.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "modules outside src/engine/ name an engine's internals:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_internals_check_sees_a_submodule_in_a_path_and_in_a_group() {
    let engines = vec![
        (
            "pwt".to_string(),
            vec!["construct".to_string(), "decide".to_string()],
        ),
        ("sc".to_string(), vec![]),
    ];
    let seen = |t: &str| names_internals(t, &engines).len();
    assert_eq!(seen("use crate::engine::pwt::construct::Sem;"), 1);
    assert_eq!(seen("    crate::engine::pwt::decide::refused(m)"), 1);
    assert_eq!(
        seen("use crate::engine::pwt::{\n    construct::{Frag, Sem},\n    Pwt,\n};"),
        1
    );
    assert_eq!(seen("use pomset::engine::pwt::{Pwt, decide};"), 1);
    // The items an engine's mod.rs exports are its interface.
    assert_eq!(seen("use crate::engine::pwt::{outcomes, refused, Pwt};"), 0);
    assert_eq!(seen("    crate::engine::pwt::refused_program(p, model)"), 0);
    assert_eq!(seen("use crate::engine::sc::Sc;"), 0);
    assert_eq!(seen("use crate::engine::{Engine, Capability};"), 0);
    assert!(mentions_engine("use crate::engine::pwt::Pwt;"));
    assert!(!mentions_engine(
        "/// An engine builds the pictures (`Engine::pictures`)"
    ));
}

/// Issue 31: the `.ci/validate-*` scripts name no machine's directory; the
/// corpus comes from an argument or an environment variable only.
#[test]
fn validate_scripts_hard_code_no_directory() {
    let scripts: Vec<PathBuf> = std::fs::read_dir(".ci")
        .expect(".ci/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("validate-"))
        })
        .collect();
    assert_eq!(scripts.len(), 3, "the three scripts: {scripts:?}");
    for s in &scripts {
        let text = std::fs::read_to_string(s).expect("readable");
        assert!(
            !text.contains("/work/"),
            "{} names a machine's directory",
            s.display()
        );
        assert!(text.contains("--help"), "{} has no --help", s.display());
    }
}

/// Issue 31: without its corpus (no argument, no environment variable) a
/// shell validation script prints a usage naming both and exits 2.
#[test]
fn validate_scripts_without_a_corpus_print_usage_and_exit_2() {
    for (script, env) in [("validate-ptx", "DAT3M"), ("validate-foreign", "CORPUS")] {
        let out = std::process::Command::new(format!(".ci/{script}"))
            .env_remove("DAT3M")
            .env_remove("CORPUS")
            .env_remove("CORPUS_EXT")
            .output()
            .expect("the script runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{script}: {err}");
        assert!(
            err.contains("usage:") && err.contains(env),
            "{script}: {err}"
        );
    }
}

/// The sibling files of `dir` (`src/<dir>/*.rs`, `mod.rs` aside) that each
/// names, as `super::NAME` or `crate::<dir>::NAME`, outside its tests.
fn sibling_imports(dir: &str) -> Vec<(String, Vec<String>)> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut files = Vec::new();
    rust_files(&base, &mut files);
    let names: Vec<String> = files
        .iter()
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_string))
        .filter(|n| n != "mod")
        .collect();
    names
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(base.join(format!("{name}.rs"))).expect("readable");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let named = names
                .iter()
                .filter(|other| *other != name)
                .filter(|other| {
                    code.contains(&format!("super::{other}::"))
                        || code.contains(&format!("super::{other}::{{"))
                        || code.contains(&format!("crate::{dir}::{other}::"))
                })
                .cloned()
                .collect();
            (name.clone(), named)
        })
        .collect()
}

/// Issue 40: the files of `distinguish/` import each other without a
/// cycle (the shapes live in `shape.rs`, which both the enumeration and
/// the canonical form use).
#[test]
fn the_sweep_files_import_each_other_without_a_cycle() {
    let graph = sibling_imports("distinguish");
    assert!(graph.iter().any(|(n, _)| n == "shape"), "{graph:?}");
    // Depth-first search for a cycle.
    fn visit<'g>(
        n: &'g str,
        graph: &'g [(String, Vec<String>)],
        path: &mut Vec<&'g str>,
        done: &mut Vec<&'g str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| *p == n) {
            return Some(path[at..].iter().map(|s| s.to_string()).collect());
        }
        if done.contains(&n) {
            return None;
        }
        path.push(n);
        let next = graph
            .iter()
            .find(|(m, _)| m == n)
            .map_or(&[][..], |(_, e)| e);
        for m in next {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.push(n);
        None
    }
    let mut done = Vec::new();
    for (n, _) in &graph {
        let cycle = visit(n, &graph, &mut Vec::new(), &mut done);
        assert!(cycle.is_none(), "a cycle of imports: {cycle:?}");
    }
    let canon = graph.iter().find(|(n, _)| n == "canon").expect("canon.rs");
    assert_eq!(canon.1, ["shape"]);
}
