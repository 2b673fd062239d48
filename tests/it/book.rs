//! The book cannot drift from the tool: every `litmus` block in book/src
//! and README.md parses without errors and is in canonical form, and every
//! `console` block is a `pomset` command (or `cargo run --release -- ...`)
//! whose output is exactly what follows it.

use std::path::{Path, PathBuf};
use std::process::Command;

use pomset::syntax;

struct Block {
    file: PathBuf,
    line: usize,
    lang: String,
    text: String,
}

fn blocks() -> Vec<Block> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("book/src exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    let mut out = Vec::new();
    for file in files {
        let src = std::fs::read_to_string(&file).expect("readable chapter");
        let mut current: Option<Block> = None;
        for (i, line) in src.lines().enumerate() {
            match (&mut current, line.strip_prefix("```")) {
                (None, Some(lang)) => {
                    current = Some(Block {
                        file: file.clone(),
                        line: i + 1,
                        lang: lang.to_string(),
                        text: String::new(),
                    })
                }
                (Some(_), Some(_)) => out.extend(current.take()),
                (Some(b), None) => {
                    b.text.push_str(line);
                    b.text.push('\n');
                }
                (None, None) => {}
            }
        }
    }
    out
}

#[test]
fn every_litmus_block_parses_and_is_canonical() {
    let litmus: Vec<Block> = blocks()
        .into_iter()
        .filter(|b| b.lang == "litmus")
        .collect();
    assert!(litmus.len() >= 8, "the litmus chapter shows its constructs");
    for b in litmus {
        let place = format!("{}:{}", b.file.display(), b.line);
        match syntax::parse(&b.text) {
            Ok(t) => assert!(
                t.warnings.is_empty(),
                "{place}: {}",
                t.warnings.render(&place, &b.text)
            ),
            Err(d) => panic!("{}", d.render(&place, &b.text)),
        }
        assert_eq!(
            syntax::format(&b.text).ok().as_deref(),
            Some(b.text.as_str()),
            "{place} is not canonical"
        );
    }
}

#[test]
fn every_console_block_shows_real_output() {
    let consoles: Vec<Block> = blocks()
        .into_iter()
        .filter(|b| b.lang == "console")
        .collect();
    assert!(consoles.len() >= 4);
    for b in consoles {
        let place = format!("{}:{}", b.file.display(), b.line);
        let (command, expected) = b.text.split_once('\n').unwrap_or((&b.text, ""));
        let rest = command
            .strip_prefix("$ pomset ")
            .or_else(|| command.strip_prefix("$ cargo run --release -- "))
            .unwrap_or_else(|| panic!("{place}: a console block starts with `$ pomset`"));
        // Through a real shell, as a reader pastes it: quoting and `<` matter.
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("\"$POMSET\" --color never {rest}"))
            .env("POMSET", env!("CARGO_BIN_EXE_pomset"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("sh runs");
        let actual = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // Timings differ from run to run; the book shows the `Time` line
        // (with some number), and everything else must match exactly.
        let stable = |s: &str| {
            s.lines()
                .map(|l| match l.strip_prefix("Time ") {
                    Some(t) => format!("Time {} …", t.split(' ').next().unwrap_or("")),
                    None => l.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(
            stable(actual.trim_end()),
            stable(expected.trim_end()),
            "{place}: `{command}` printed something else"
        );
    }
}

/// Litmus files the book's console blocks refer to are kept with the book,
/// and each appears verbatim in a chapter.
#[test]
fn book_snippets_match_their_chapter_copies() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/snippets");
    let shown: Vec<String> = blocks()
        .into_iter()
        .filter(|b| b.lang == "litmus")
        .map(|b| b.text)
        .collect();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("book/snippets") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|x| x != "litmus") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("snippet");
        let used = shown.contains(&text);
        if path.file_name().is_some_and(|n| n == "bad-mode.litmus") {
            // Shown with its error, not as a litmus block.
            continue;
        }
        assert!(used, "{} must appear verbatim in a chapter", path.display());
        checked += 1;
    }
    assert!(checked >= 2);
}

/// Every chapter in SUMMARY.md exists and has content, and every chapter
/// file is in SUMMARY.md.
#[test]
fn summary_lists_every_chapter() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src");
    let summary = std::fs::read_to_string(dir.join("SUMMARY.md")).expect("SUMMARY.md");
    let linked: Vec<String> = summary
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target.to_string()))
        .collect();
    for chapter in &linked {
        let text = std::fs::read_to_string(dir.join(chapter))
            .unwrap_or_else(|_| panic!("SUMMARY.md links {chapter}, which is missing"));
        assert!(text.len() > 1500, "{chapter} is too short to be a chapter");
        assert!(
            !["TODO", "TBD", "coming soon", "to come", "placeholder"]
                .iter()
                .any(|p| text.contains(p)),
            "{chapter} has a placeholder"
        );
    }
    for entry in std::fs::read_dir(&dir).expect("book/src") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") && name != "SUMMARY.md" {
            assert!(linked.contains(&name), "{name} is not in SUMMARY.md");
            // Links between chapters point at chapters that exist.
            let text = std::fs::read_to_string(dir.join(&name)).expect("chapter");
            for rest in text.split("](").skip(1) {
                let Some((target, _)) = rest.split_once(')') else {
                    continue;
                };
                let file = target.split('#').next().unwrap_or_default();
                if file.ends_with(".md") && !file.contains("://") {
                    assert!(
                        dir.join(file).exists(),
                        "{name} links {file}, which is missing"
                    );
                }
            }
        }
    }
}
