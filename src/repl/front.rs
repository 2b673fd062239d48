//! The REPL's front ends: a line editor for a terminal (rustyline: history
//! in a file, completion, multi-line input) and the script mode for a pipe,
//! which echoes each input after the prompt so the transcript reads like what
//! a person would see.

use std::borrow::Cow;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper};

use super::session::{Session, COMMANDS};
use crate::model::Model;

pub const PROMPT: &str = "pomset> ";
pub const CONTINUATION: &str = "   ...> ";

/// Set by the Ctrl-C handler while a query runs; the search stops at its next
/// check and reports the interruption as a limit.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// Whether `input` is a whole input yet: braces and parentheses balance, and
/// a litmus file (which spans lines) ends with an empty line.
pub fn is_complete(input: &str) -> bool {
    let mut depth = 0i64;
    let mut in_string = false;
    for c in input.chars() {
        match c {
            '"' => in_string = !in_string,
            '{' | '(' if !in_string => depth += 1,
            '}' | ')' if !in_string => depth -= 1,
            _ => {}
        }
    }
    if depth > 0 {
        return false;
    }
    !input.trim_start().starts_with("litmus") || input.ends_with('\n') || input.trim().is_empty()
}

/// Runs a session from a script, writing the transcript: each input after
/// the prompt, then its reply. Blank lines between inputs and lines starting
/// with `#` are skipped.
pub fn run_script(input: impl BufRead, out: &mut impl Write, color: bool) -> std::io::Result<()> {
    run_session(Session::new(), input, out, color)
}

/// As `run_script`, in a session made by the caller (`Session::with_import`).
pub fn run_session(
    mut session: Session,
    input: impl BufRead,
    out: &mut impl Write,
    color: bool,
) -> std::io::Result<()> {
    let mut buf = String::new();
    let mut lines = input.lines();
    loop {
        let line = lines.next().transpose()?;
        let Some(line) = line else {
            if !buf.trim().is_empty() {
                let reply = session.eval(&buf);
                write!(out, "{}", reply.output.render(color))?;
            }
            return Ok(());
        };
        // A command never continues a program: an unbalanced fragment ends
        // where the next command starts, so one typo cannot swallow a script.
        if !buf.is_empty() && line.starts_with(':') {
            let reply = session.eval(&buf);
            write!(out, "{}", reply.output.render(color))?;
            buf.clear();
        }
        if buf.is_empty() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            writeln!(out, "{PROMPT}{line}")?;
            buf.push_str(&line);
        } else {
            writeln!(out, "{}", format!("{CONTINUATION}{line}").trim_end())?;
            buf.push('\n');
            buf.push_str(&line);
        }
        if is_complete(&buf) {
            let reply = session.eval(&buf);
            write!(out, "{}", reply.output.render(color))?;
            buf.clear();
            if reply.quit {
                return Ok(());
            }
        }
    }
}

/// Where history is kept: `$XDG_DATA_HOME/pomset/history`, else
/// `~/.local/share/pomset/history`.
fn history_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    let dir = base.join("pomset");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("history"))
}

/// The interactive loop on a terminal.
pub fn interactive(color: bool, import: crate::import::Options) -> Result<(), String> {
    // Tab lists the alternatives, as a shell does, rather than cycling through them.
    let config = rustyline::Config::builder()
        .completion_type(rustyline::CompletionType::List)
        .max_history_size(10_000)
        .map_err(|e| format!("cannot start the line editor: {e}"))?
        .build();
    let mut editor: Editor<ReplHelper, rustyline::history::DefaultHistory> =
        Editor::with_config(config).map_err(|e| format!("cannot start the line editor: {e}"))?;
    let names = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    editor.set_helper(Some(ReplHelper {
        files: FilenameCompleter::new(),
        names: names.clone(),
    }));
    let history = history_path();
    if let Some(h) = &history {
        // A first session has no history file yet.
        let _ = editor.load_history(h);
    }
    // Ctrl-C while a query runs stops that query; at the prompt the line
    // editor sees it as a key and clears the line.
    let _ = ctrlc::set_handler(|| CANCEL.store(true, Ordering::Relaxed));
    let mut session = Session::new().with_import(import).with_cancel(&CANCEL);
    println!(
        "pomset {}: type a fragment such as `r := x; y := r`, or :help. Ctrl-D quits.",
        env!("CARGO_PKG_VERSION")
    );
    loop {
        match editor.readline(PROMPT) {
            Ok(line) => {
                if line.trim().is_empty() {
                    continue;
                }
                let _ = editor.add_history_entry(line.as_str());
                if let Some(h) = &history {
                    let _ = editor.save_history(h);
                }
                CANCEL.store(false, Ordering::Relaxed);
                let reply = session.eval(&line);
                *names.borrow_mut() = session.let_names().map(str::to_string).collect();
                if CANCEL.load(Ordering::Relaxed) {
                    // The terminal echoed ^C; start the answer on a line of its own.
                    println!();
                }
                print!("{}", reply.output.render(color));
                let _ = std::io::stdout().flush();
                if reply.quit {
                    return Ok(());
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => return Ok(()),
            Err(e) => return Err(format!("cannot read input: {e}")),
        }
    }
}

/// Completion of commands, option names and values, `:pomsets` kinds, and
/// file names; the validator waits for balanced braces.
struct ReplHelper {
    files: FilenameCompleter,
    /// The names given with `:let`, completed after `$`.
    names: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
}

fn pairs<'a>(word: &str, candidates: impl Iterator<Item = &'a str>, suffix: &str) -> Vec<Pair> {
    candidates
        .filter(|c| c.starts_with(word))
        .map(|c| Pair {
            display: c.to_string(),
            replacement: format!("{c}{suffix}"),
        })
        .collect()
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        // `$NAME` anywhere: the fragments named with :let.
        let word_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| {
                i + before[i..].chars().next().map_or(1, char::len_utf8)
            });
        if before[..word_start].ends_with('$') {
            let names = self.names.borrow();
            let word = &before[word_start..];
            return Ok((
                word_start,
                pairs(word, names.iter().map(String::as_str), ""),
            ));
        }
        let Some(command) = before.strip_prefix(':') else {
            return Ok((pos, Vec::new()));
        };
        let words: Vec<&str> = command.split_whitespace().collect();
        let ends_in_space = before.ends_with(char::is_whitespace);
        // The word being completed and how many whole words precede it.
        let (word, index) = if ends_in_space || words.is_empty() {
            ("", words.len())
        } else {
            (words[words.len() - 1], words.len() - 1)
        };
        let start = pos - word.len();
        let options = || Model::OPTIONS.iter().map(|o| o.name);
        let candidates = match (index, words.first().copied()) {
            (0, _) => pairs(word, COMMANDS.iter().map(|c| c.name), " "),
            (1, Some("set" | "unset" | "vary")) => pairs(word, options(), " "),
            (2, Some("set")) => {
                let values = Model::OPTIONS
                    .iter()
                    .find(|o| Some(o.name) == words.get(1).copied())
                    .map_or(&[][..], |o| o.values);
                pairs(word, values.iter().copied(), "")
            }
            (1, Some("help")) => pairs(word, COMMANDS.iter().map(|c| c.name), ""),
            (_, Some("pomsets")) => pairs(
                word,
                ["complete", "candidates", "--outcome"].into_iter(),
                " ",
            ),
            (_, Some("values" | "scopes")) => pairs(word, ["default"].into_iter(), ""),
            (_, Some("draw")) if index > 0 && words.get(index - 1) == Some(&"--format") => {
                pairs(word, ["text", "dot", "tikz", "svg"].into_iter(), " ")
            }
            (i, Some("draw")) if i >= 2 && word.starts_with('-') => {
                pairs(word, ["--format", "-o"].into_iter(), " ")
            }
            (_, Some("load")) | (_, Some("draw")) => return self.files.complete(line, pos, ctx),
            _ => Vec::new(),
        };
        Ok((start, candidates))
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(if is_complete(ctx.input()) {
            ValidationResult::Valid(None)
        } else {
            ValidationResult::Incomplete
        })
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        _default: bool,
    ) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Helper for ReplHelper {}
