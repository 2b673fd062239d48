//! A small tokenizer and cursor shared by the foreign readers: identifiers,
//! integers, quoted strings and punctuation, each with its byte span, so
//! that every refusal points into the original file.

use crate::syntax::{Diagnostic, Diagnostics, Span};

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident(String),
    Int(i64),
    Str(String),
    Punct(&'static str),
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: Kind,
    pub span: Span,
}

/// How a format spells its tokens.
pub struct Spelling {
    /// Punctuation, longest first where one is a prefix of another.
    pub puncts: &'static [&'static str],
    /// Line comments (`//`).
    pub line_comments: &'static [&'static str],
    /// Block comments as (open, close): `/*` `*/`, herd's `(*` `*)`.
    pub block_comments: &'static [(&'static str, &'static str)],
    /// Block comments only outside code, where code is a brace group after
    /// `)` (a C thread's body, `if (...) {`): herd's `(*` `*)` in a C test,
    /// where inside the code `(*b)` is a dereference.
    pub top_level_comments: &'static [(&'static str, &'static str)],
    /// Characters an identifier may hold besides ASCII letters, digits and `_`.
    pub ident_extra: &'static str,
}

/// The first word of a file after blank lines and comments (`//`, `(* *)`).
pub fn first_word(src: &str) -> Option<&str> {
    let mut rest = src;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("(*") {
            rest = after.split_once("*)").map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Splits `src[from..to]` into tokens.
pub fn tokens(src: &str, from: usize, to: usize, sp: &Spelling) -> Result<Vec<Token>, Diagnostic> {
    let mut out = Vec::new();
    let bytes = src.as_bytes();
    let mut i = from;
    // For each open brace, whether it opened code.
    let mut code: Vec<bool> = Vec::new();
    'outer: while i < to {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let rest = &src[i..to];
        for lc in sp.line_comments {
            if rest.starts_with(lc) {
                i += rest.find('\n').unwrap_or(rest.len());
                continue 'outer;
            }
        }
        let top = if !code.last().copied().unwrap_or(false) {
            sp.top_level_comments
        } else {
            &[]
        };
        for (open, close) in sp.block_comments.iter().chain(top) {
            if rest.starts_with(open) {
                let body = rest.strip_prefix(open).unwrap_or(rest);
                let Some(end) = body.find(close) else {
                    return Err(Diagnostic::error(
                        "this comment is not closed",
                        Span::new(i, i + open.len()),
                    )
                    .with_label(format!("no `{close}` after it")));
                };
                i += open.len() + end + close.len();
                continue 'outer;
            }
        }
        if c == b'"' {
            let Some(end) = rest[1..].find('"') else {
                return Err(
                    Diagnostic::error("this string is not closed", Span::new(i, i + 1))
                        .with_label("no closing `\"`"),
                );
            };
            let text = rest[1..1 + end].to_string();
            out.push(Token {
                kind: Kind::Str(text),
                span: Span::new(i, i + end + 2),
            });
            i += end + 2;
            continue;
        }
        if c.is_ascii_digit() {
            let len = rest
                .find(|ch: char| !ch.is_ascii_digit())
                .unwrap_or(rest.len());
            let span = Span::new(i, i + len);
            let Ok(n) = rest[..len].parse::<i64>() else {
                return Err(Diagnostic::error(
                    "this number does not fit in 64 bits",
                    span,
                ));
            };
            out.push(Token {
                kind: Kind::Int(n),
                span,
            });
            i += len;
            continue;
        }
        let is_ident =
            |ch: char| ch.is_ascii_alphanumeric() || ch == '_' || sp.ident_extra.contains(ch);
        if c.is_ascii_alphabetic() || c == b'_' {
            let len = rest.find(|ch: char| !is_ident(ch)).unwrap_or(rest.len());
            out.push(Token {
                kind: Kind::Ident(rest[..len].to_string()),
                span: Span::new(i, i + len),
            });
            i += len;
            continue;
        }
        if let Some(p) = sp.puncts.iter().find(|p| rest.starts_with(**p)) {
            match *p {
                "{" => {
                    let after_paren = out.last().is_some_and(|t| t.kind == Kind::Punct(")"));
                    code.push(after_paren || code.last().copied().unwrap_or(false));
                }
                "}" => {
                    code.pop();
                }
                _ => {}
            }
            out.push(Token {
                kind: Kind::Punct(p),
                span: Span::new(i, i + p.len()),
            });
            i += p.len();
            continue;
        }
        let len = rest.chars().next().map_or(1, char::len_utf8);
        return Err(Diagnostic::error(
            format!("unexpected `{}`", &rest[..len]),
            Span::new(i, i + len),
        )
        .with_label("not part of this format"));
    }
    Ok(out)
}

/// A cursor over tokens with the usual expectations.
pub struct Cursor {
    toks: Vec<Token>,
    pos: usize,
    /// Where the text ends, for "expected ... at the end" errors.
    end: Span,
}

pub type Read<T> = Result<T, Diagnostic>;

impl Cursor {
    pub fn new(toks: Vec<Token>, end: usize) -> Cursor {
        Cursor {
            toks,
            pos: 0,
            end: Span::new(end, end),
        }
    }

    pub fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    pub fn peek_at(&self, k: usize) -> Option<&Token> {
        self.toks.get(self.pos + k)
    }

    /// Where the cursor is, to come back to with `reset`.
    pub fn mark(&self) -> usize {
        self.pos
    }

    pub fn reset(&mut self, mark: usize) {
        self.pos = mark;
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// The span of the next token, or of the end.
    pub fn here(&self) -> Span {
        self.peek().map_or(self.end, |t| t.span)
    }

    pub fn bump(&mut self) -> Option<Token> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += usize::from(t.is_some());
        t
    }

    pub fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token { kind: Kind::Punct(q), .. }) if *q == p)
    }

    pub fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Token { kind: Kind::Ident(q), .. }) if q == w)
    }

    pub fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        self.pos += usize::from(yes);
        yes
    }

    pub fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        self.pos += usize::from(yes);
        yes
    }

    /// An error at the next token: "expected X, found Y".
    pub fn expected(&self, what: &str) -> Diagnostic {
        let found = match self.peek() {
            None => "the end".to_string(),
            Some(t) => describe(&t.kind),
        };
        Diagnostic::error(format!("expected {what}, found {found}"), self.here())
            .with_label(format!("expected {what}"))
    }

    pub fn punct(&mut self, p: &str) -> Read<Span> {
        if self.is_punct(p) {
            return Ok(self.bump().map_or(self.end, |t| t.span));
        }
        Err(self.expected(&format!("`{p}`")))
    }

    pub fn word(&mut self, w: &str) -> Read<Span> {
        if self.is_word(w) {
            return Ok(self.bump().map_or(self.end, |t| t.span));
        }
        Err(self.expected(&format!("`{w}`")))
    }

    pub fn ident(&mut self, what: &str) -> Read<(String, Span)> {
        match self.peek() {
            Some(Token {
                kind: Kind::Ident(s),
                span,
            }) => {
                let out = (s.clone(), *span);
                self.pos += 1;
                Ok(out)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// An integer, with an optional leading `-`.
    pub fn int(&mut self, what: &str) -> Read<(i64, Span)> {
        let start = self.here();
        let neg = self.eat_punct("-");
        match self.peek() {
            Some(Token {
                kind: Kind::Int(n),
                span,
            }) => {
                let out = (if neg { -n } else { *n }, start.to(*span));
                self.pos += 1;
                Ok(out)
            }
            _ => Err(self.expected(what)),
        }
    }
}

fn describe(k: &Kind) -> String {
    match k {
        Kind::Ident(s) => format!("`{s}`"),
        Kind::Int(n) => format!("`{n}`"),
        Kind::Str(_) => "a string".to_string(),
        Kind::Punct(p) => format!("`{p}`"),
    }
}

/// A refusal: the construct has no faithful meaning in our language.
pub fn refuse(what: &str, span: Span, why: &str) -> Diagnostic {
    Diagnostic::error(format!("{what} cannot be imported"), span)
        .with_label("no faithful meaning in pomset's language")
        .with_hint(why.to_string())
}

/// One diagnostic as the error list the readers return.
pub fn fail<T>(d: Diagnostic) -> Result<T, Diagnostics> {
    Err(d.into())
}
