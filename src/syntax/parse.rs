//! From text to the surface tree, with parse errors turned into diagnostics
//! that point at the line and column and suggest a fix.

use lalrpop_util::ParseError;

use super::ast::File;
use super::depth;
use super::diagnostic::Diagnostic;
use super::lexer::{self, Tok};
use super::span::Span;
use crate::grammar;

/// How deeply brackets may nest; deeper input is refused before parsing, so
/// that no recursive pass over the tree can exhaust the stack.
pub const MAX_NESTING: usize = 256;

/// Parses a litmus file into its surface tree (sugar kept).
pub fn parse_file(src: &str) -> Result<File, Diagnostic> {
    check_nesting(src)?;
    depth::check_runs(src)?;
    let file = grammar::FileParser::new()
        .parse(lexer::tokens(src))
        .map_err(|e| to_diagnostic(src, e))?;
    depth::check_depth(&file)?;
    Ok(file)
}

fn check_nesting(src: &str) -> Result<(), Diagnostic> {
    let mut depth = 0usize;
    for (start, tok, end) in lexer::tokens(src).flatten() {
        match tok {
            Tok::LParen | Tok::LBrace | Tok::LBracket => depth += 1,
            Tok::RParen | Tok::RBrace | Tok::RBracket => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return Err(Diagnostic::error(
                format!("brackets nest more than {MAX_NESTING} deep"),
                Span::new(start, end),
            )
            .with_label("too deep")
            .with_hint("litmus tests are small; split the expression or the statement"));
        }
    }
    Ok(())
}

fn to_diagnostic(src: &str, err: ParseError<usize, Tok, Diagnostic>) -> Diagnostic {
    match err {
        ParseError::User { error } => error,
        ParseError::InvalidToken { location } => {
            Diagnostic::error("unknown token", Span::new(location, location + 1))
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let at = Span::new(location.saturating_sub(1), location);
            let d = Diagnostic::error("the file ends too early", at)
                .with_label(format!("expected {} after this", list(&expected)));
            match eof_hint(src, &expected) {
                Some(h) => d.with_hint(h),
                None => d,
            }
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let d = Diagnostic::error(format!("unexpected `{tok}`"), Span::new(l, r))
                .with_label(format!("expected {}", list(&expected)));
            match token_hint(src, l, &tok, &expected) {
                Some(h) => d.with_hint(h),
                None => d,
            }
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            Diagnostic::error(format!("unexpected `{tok}` after the end"), Span::new(l, r))
                .with_label("nothing may follow the conditions")
        }
    }
}

/// The grammar's names for terminals, made readable.
fn list(expected: &[String]) -> String {
    let mut names: Vec<String> = expected.iter().map(|e| readable(e)).collect();
    names.sort();
    names.dedup();
    match names.len() {
        0 => "nothing".to_string(),
        1 => names.remove(0),
        n if n <= 6 => {
            let last = names.pop().unwrap_or_default();
            format!("{} or {}", names.join(", "), last)
        }
        _ => format!(
            "one of {} tokens, such as {}",
            names.len(),
            names[..4].join(", ")
        ),
    }
}

fn readable(terminal: &str) -> String {
    match terminal.trim_matches('"') {
        "ident" => "a name".to_string(),
        "int" => "a number".to_string(),
        "string" => "a string".to_string(),
        "litmus" => "`litmus NAME`".to_string(),
        t => format!("`{}`", t.replace("\\\\", "\\")),
    }
}

fn expects(expected: &[String], terminal: &str) -> bool {
    expected.iter().any(|e| e.trim_matches('"') == terminal)
}

fn eof_hint(_src: &str, expected: &[String]) -> Option<String> {
    if expects(expected, "litmus") {
        return Some("a litmus file starts with `litmus NAME`".to_string());
    }
    if expects(expected, "}") {
        return Some("a `{` is not closed".to_string());
    }
    if expects(expected, ")") {
        return Some("a `(` is not closed".to_string());
    }
    None
}

/// A short fix for the common mistakes.
fn token_hint(src: &str, at: usize, tok: &Tok, expected: &[String]) -> Option<String> {
    let before = src[..at].trim_end();
    if expects(expected, ":=") && follows_bars(before) {
        return Some(
            "`||` separates threads here; a logical or on the right of `:=` needs parentheses: `r := (a || b)`"
                .to_string(),
        );
    }
    match tok {
        Tok::Eq if expects(expected, ":=") => {
            Some("assignment is written `:=`; `=` compares".to_string())
        }
        Tok::Assign
            if before.ends_with(|c: char| c.is_alphanumeric()) && expects(expected, ".") =>
        {
            None
        }
        Tok::Ident(_) | Tok::Skip | Tok::If | Tok::FenceShort | Tok::Fence
            if expects(expected, ";") =>
        {
            Some("separate statements with `;`".to_string())
        }
        Tok::Ident(_) | Tok::Int(_) if expects(expected, "litmus") => {
            Some("a litmus file starts with `litmus NAME`".to_string())
        }
        Tok::Ident(name) if (name == "P" || name.starts_with('P')) && expects(expected, ":=") => {
            Some("a thread label is written `P1:` at the start of the thread".to_string())
        }
        Tok::RParen | Tok::RBrace | Tok::RBracket => {
            let (open, close) = match tok {
                Tok::RParen => ('(', ')'),
                Tok::RBrace => ('{', '}'),
                _ => ('[', ']'),
            };
            let depth = before.matches(open).count() as i64 - before.matches(close).count() as i64;
            if depth <= 0 {
                Some(format!("this `{tok}` has no opening partner"))
            } else if before.ends_with(":=") {
                Some("`:=` needs an expression on its right".to_string())
            } else {
                Some(format!("something is missing before this `{tok}`"))
            }
        }
        Tok::Ident(w) if ["exist", "forbidden", "allowed", "require"].contains(&w.as_str()) => {
            Some("conditions start with exists, ~exists, forall, allow or forbid".to_string())
        }
        _ => None,
    }
}

/// Whether the text ends in `|| name`: a thread that is only a name is
/// almost always the second operand of a logical or.
fn follows_bars(before: &str) -> bool {
    let name_start = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    name_start.len() < before.len() && name_start.trim_end().ends_with("||")
}
