//! The cat lexer: names (herd7's, with `-` and `.` inside, as in `po-loc`),
//! strings, `0`, operators, and `(* nested comments *)`. Text outside the
//! subset is a located error.

use crate::syntax::diagnostic::Diagnostic;
use crate::syntax::span::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Name(String),
    Str(String),
    /// `0`, the empty relation.
    Zero,
    Let,
    Rec,
    And,
    Include,
    Acyclic,
    Irreflexive,
    Empty,
    As,
    Flag,
    Show,
    With,
    From,
    /// A herd7 keyword this interpreter does not support.
    Unsupported(&'static str),
    Eq,
    Bar,
    Amp,
    Semi,
    Backslash,
    /// `^-1`
    Inv,
    Plus,
    Star,
    Question,
    Tilde,
    LParen,
    RParen,
    LBracket,
    RBracket,
    /// `{}`, the empty set.
    EmptySet,
    Comma,
}

impl Tok {
    /// How a message names the token.
    pub fn describe(&self) -> String {
        match self {
            Tok::Name(n) => format!("name `{n}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Unsupported(k) => format!("`{k}`"),
            other => format!("`{}`", other.text()),
        }
    }

    fn text(&self) -> &'static str {
        match self {
            Tok::Zero => "0",
            Tok::Let => "let",
            Tok::Rec => "rec",
            Tok::And => "and",
            Tok::Include => "include",
            Tok::Acyclic => "acyclic",
            Tok::Irreflexive => "irreflexive",
            Tok::Empty => "empty",
            Tok::As => "as",
            Tok::Flag => "flag",
            Tok::Show => "show",
            Tok::With => "with",
            Tok::From => "from",
            Tok::Eq => "=",
            Tok::Bar => "|",
            Tok::Amp => "&",
            Tok::Semi => ";",
            Tok::Backslash => "\\",
            Tok::Inv => "^-1",
            Tok::Plus => "+",
            Tok::Star => "*",
            Tok::Question => "?",
            Tok::Tilde => "~",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::EmptySet => "{}",
            Tok::Comma => ",",
            Tok::Name(_) | Tok::Str(_) | Tok::Unsupported(_) => "",
        }
    }
}

/// herd7 keywords outside the subset: refused with their name, never read
/// as something else.
const UNSUPPORTED: [&str; 15] = [
    "procedure",
    "call",
    "end",
    "match",
    "if",
    "then",
    "else",
    "forall",
    "do",
    "fun",
    "in",
    "enum",
    "instructions",
    "unshow",
    "begin",
];

fn keyword(name: &str) -> Option<Tok> {
    Some(match name {
        "let" => Tok::Let,
        "rec" => Tok::Rec,
        "and" => Tok::And,
        "include" => Tok::Include,
        "acyclic" => Tok::Acyclic,
        "irreflexive" => Tok::Irreflexive,
        "empty" => Tok::Empty,
        "as" => Tok::As,
        "flag" => Tok::Flag,
        "show" => Tok::Show,
        "with" => Tok::With,
        "from" => Tok::From,
        _ => {
            return UNSUPPORTED
                .iter()
                .find(|k| **k == name)
                .map(|k| Tok::Unsupported(k))
        }
    })
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'\'')
}

/// The tokens of a cat file with their spans.
pub fn lex(src: &str) -> Result<Vec<(Tok, Span)>, Diagnostic> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if src[i..].starts_with("(*") {
            i = comment_end(src, i)?;
            continue;
        }
        if is_name_start(c) {
            while i < b.len() && is_name_char(b[i]) {
                i += 1;
            }
            let name = &src[start..i];
            let tok = keyword(name).unwrap_or_else(|| Tok::Name(name.to_string()));
            out.push((tok, Span::new(start, i)));
            continue;
        }
        if c == b'"' {
            let end = src[i + 1..].find('"').ok_or_else(|| {
                Diagnostic::error("unterminated string", Span::new(start, start + 1))
                    .with_label("this string has no closing quote")
            })?;
            i += end + 2;
            out.push((
                Tok::Str(src[start + 1..i - 1].to_string()),
                Span::new(start, i),
            ));
            continue;
        }
        let (tok, len) = punct(&src[i..]).ok_or_else(|| unknown(src, i))?;
        i += len;
        out.push((tok, Span::new(start, i)));
    }
    Ok(out)
}

/// The end of a `(* ... *)` comment starting at `at`; comments nest.
fn comment_end(src: &str, at: usize) -> Result<usize, Diagnostic> {
    let mut depth = 0;
    let mut i = at;
    while i < src.len() {
        if src[i..].starts_with("(*") {
            depth += 1;
            i += 2;
        } else if src[i..].starts_with("*)") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Ok(i);
            }
        } else {
            i += src[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    Err(
        Diagnostic::error("unterminated comment", Span::new(at, at + 2))
            .with_label("this comment is never closed")
            .with_hint("close it with `*)`"),
    )
}

fn punct(s: &str) -> Option<(Tok, usize)> {
    for (text, tok) in [
        ("^-1", Tok::Inv),
        ("^+", Tok::Plus),
        ("^*", Tok::Star),
        ("{}", Tok::EmptySet),
    ] {
        if s.starts_with(text) {
            return Some((tok, text.len()));
        }
    }
    if s.starts_with("++") || s.starts_with("->") || s.starts_with("||") {
        return None;
    }
    let tok = match s.as_bytes().first()? {
        b'0' if !s.as_bytes().get(1).is_some_and(u8::is_ascii_digit) => Tok::Zero,
        b'=' => Tok::Eq,
        b'|' => Tok::Bar,
        b'&' => Tok::Amp,
        b';' => Tok::Semi,
        b'\\' => Tok::Backslash,
        b'+' => Tok::Plus,
        b'*' => Tok::Star,
        b'?' => Tok::Question,
        b'~' => Tok::Tilde,
        b'(' => Tok::LParen,
        b')' => Tok::RParen,
        b'[' => Tok::LBracket,
        b']' => Tok::RBracket,
        b',' => Tok::Comma,
        _ => return None,
    };
    Some((tok, 1))
}

fn unknown(src: &str, at: usize) -> Diagnostic {
    let len = if src[at..].starts_with("++")
        || src[at..].starts_with("->")
        || src[at..].starts_with("||")
    {
        2
    } else {
        src[at..].chars().next().map_or(1, char::len_utf8)
    };
    let text = &src[at..at + len];
    let hint = match text {
        "++" => "list append is outside the supported cat subset",
        "->" => "functions are written `let f(x) = ...`; `fun x -> ...` is not supported",
        "||" => "union is a single `|`",
        _ => "the cat subset has | & ; \\ ^-1 + * ? ~ [S] and names",
    };
    Diagnostic::error(format!("unexpected `{text}`"), Span::new(at, at + len))
        .with_label("not part of the supported cat subset")
        .with_hint(hint)
}
