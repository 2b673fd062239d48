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
        // Timings and the heap differ from run to run; the book shows the
        // `Time` line (with some number) and a `Stats` line's `peak-heap`,
        // and everything else must match exactly.
        let stable = |s: &str| {
            s.lines()
                .map(|l| match l.strip_prefix("Time ") {
                    Some(t) => format!("Time {} …", t.split(' ').next().unwrap_or("")),
                    None => match l.split_once(" peak-heap ") {
                        Some((before, _)) if l.starts_with("Stats ") => {
                            format!("{before} peak-heap …")
                        }
                        _ => l.to_string(),
                    },
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

/// The fence problems of one chapter, by CommonMark's rules: a fence opens
/// with three or more backticks or tildes (after up to a container's
/// indentation) and an info string (no backtick in it for a backtick
/// fence); it closes with a run of the same character at least as long,
/// followed by nothing but spaces. A longer run with text after it is no
/// closing fence (the rest of the chapter renders as code), nor is a fence
/// left open at the end.
fn fence_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut open: Option<(char, usize, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start_matches([' ', '\t']);
        let Some(c) = trimmed.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = trimmed.chars().take_while(|x| *x == c).count();
        if run < 3 {
            continue;
        }
        let rest = &trimmed[run..];
        match open {
            None if c == '`' && rest.contains('`') => {} // inline code, not a fence
            None => open = Some((c, run, i + 1)),
            Some((o, n, _)) if o == c && run >= n => {
                if rest.trim_matches([' ', '\t']).is_empty() {
                    open = None;
                } else {
                    problems.push(format!(
                        "line {}: a closing fence carries text: {line}",
                        i + 1
                    ));
                }
            }
            Some(_) => {}
        }
    }
    if let Some((_, _, at)) = open {
        problems.push(format!("line {at}: a fence that is never closed"));
    }
    problems
}

#[test]
fn every_code_fence_is_closed_cleanly() {
    // The scanner finds both faults, and passes what is well formed.
    assert_eq!(
        fence_problems("```text\na\n```\n~~~~\n```\n~~~~\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        fence_problems("  ```text\n  a\n  ``` And the prose.\nmore\n"),
        [
            "line 3: a closing fence carries text:   ``` And the prose.",
            "line 1: a fence that is never closed"
        ]
    );
    assert_eq!(fence_problems("````\n```\n````\n"), Vec::<String>::new());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("book/src exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    assert!(chapters.len() > 10);
    let mut problems = Vec::new();
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).expect("readable chapter");
        for p in fence_problems(&text) {
            problems.push(format!("{}: {p}", chapter.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The tutorial says what the word after a test's name is (the kind of
/// its condition, herd7's), right after the first report that shows it.
#[test]
fn the_tutorial_explains_the_headline_word_where_it_first_appears() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src/tutorial.md");
    let text = std::fs::read_to_string(path).expect("the tutorial");
    let first = text.find("\nTest MP Allowed\n").expect("the first report");
    let after = &text[first..];
    let block_end = after.find("\n```\n").expect("the report's block ends") + 5;
    let paragraph = &after[block_end
        ..after[block_end..]
            .find("\n\n")
            .map_or(after.len(), |e| block_end + e)];
    assert!(
        paragraph.contains("`Allowed`") && paragraph.contains("not a verdict"),
        "{paragraph}"
    );
}

/// Every relative link of the book, the README and examples/README.md
/// names a file of the repository, and a link to a chapter's heading
/// (`chapter.md#id`) names one of its headings (by mdBook's ids); a path
/// in code that leaves the folder (`../x`) names a file too. A reader
/// follows them: a link out of the repository (the project's spec lives
/// outside it) is a dead end.
#[test]
fn every_relative_link_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("book/src"))
        .expect("book/src exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files.push(root.join("README.md"));
    files.push(root.join("examples/README.md"));
    let mut dead = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let dir = file.parent().expect("a folder");
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        let mut targets: Vec<(usize, String)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            for t in between(line, "](", ")").chain(between(line, "`../", "`")) {
                if !t.is_empty() && !t.contains(char::is_whitespace) {
                    targets.push((i + 1, t));
                }
            }
        }
        for (line, target) in targets {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !resolved.exists() {
                dead.push(format!("{shown}:{line}: {target} (no such file)"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if resolved.extension().is_some_and(|x| x == "md") {
                let chapter = std::fs::read_to_string(&resolved).expect("readable");
                let ids = pomset::serve::book::heading_ids(&chapter);
                if !ids.iter().any(|id| id == anchor) {
                    dead.push(format!("{shown}:{line}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

/// The texts of `line` between each `open` and the next `close` (a code
/// path keeps its leading `../`).
fn between<'a>(line: &'a str, open: &'a str, close: &'a str) -> impl Iterator<Item = String> + 'a {
    let keep = if open.starts_with('`') {
        &open[1..]
    } else {
        ""
    };
    line.match_indices(open).filter_map(move |(at, _)| {
        let rest = &line[at + open.len()..];
        rest.find(close)
            .map(|end| format!("{keep}{}", &rest[..end]))
    })
}
