//! The lexer (logos). Tokens carry byte spans; the grammar in
//! `grammar/litmus.lalrpop` consumes them.

use logos::Logos;
use std::fmt;

use super::diagnostic::Diagnostic;
use super::span::Span;

#[derive(Logos, Clone, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
pub enum Tok {
    /// `litmus NAME`: herd7-style test names such as `2+2W` or `MP+rel+acq`
    /// are one token, so that `+` and `-` inside them need no quoting.
    #[regex(r#"litmus[ \t]+[^ \t\r\n"{}]+"#, |lex| lex.slice()[6..].trim().to_string())]
    Litmus(String),
    #[regex(r#""([^"\\\n]|\\.)*""#, |lex| unescape(lex.slice()))]
    Str(String),
    #[regex("[0-9]+", |lex| lex.slice().parse::<i64>().ok())]
    Int(i64),
    #[regex("[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string(), priority = 1)]
    Ident(String),

    #[token("values")]
    Values,
    #[token("locations")]
    Locations,
    #[token("init")]
    Init,
    #[token("scopes")]
    Scopes,
    #[token("model")]
    Model,
    #[token("exists")]
    Exists,
    #[token("forall")]
    Forall,
    #[token("allow")]
    Allow,
    #[token("forbid")]
    Forbid,
    #[token("expect")]
    Expect,
    #[token("when")]
    When,
    #[token("disputed")]
    Disputed,
    #[token("if")]
    If,
    #[token("while")]
    While,
    #[token("do")]
    Do,
    #[token("diverge")]
    Diverge,
    #[token("filter")]
    Filter,
    #[token("else")]
    Else,
    #[token("skip")]
    Skip,
    #[token("F")]
    FenceShort,
    #[token("fence")]
    Fence,
    #[token("barrier")]
    Barrier,
    #[token("CAS")]
    Cas,
    #[token("FADD")]
    Fadd,
    #[token("EXCHG")]
    Exchg,
    #[token("true")]
    True,
    #[token("false")]
    False,

    #[token(":=")]
    Assign,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("||")]
    Bar2,
    #[token("&&")]
    Amp2,
    #[token("&")]
    Amp,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("/\\")]
    Wedge,
    #[token("\\/")]
    Vee,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("=")]
    Eq,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("@")]
    At,
}

fn unescape(quoted: &str) -> String {
    let inner = &quoted[1..quoted.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Litmus(name) => write!(f, "litmus {name}"),
            Tok::Str(s) => write!(f, "{s:?}"),
            Tok::Int(n) => write!(f, "{n}"),
            Tok::Ident(s) => f.write_str(s),
            other => f.write_str(spelling(other)),
        }
    }
}

/// How a fixed token is written.
fn spelling(tok: &Tok) -> &'static str {
    match tok {
        Tok::Values => "values",
        Tok::Locations => "locations",
        Tok::Init => "init",
        Tok::Scopes => "scopes",
        Tok::Model => "model",
        Tok::Exists => "exists",
        Tok::Forall => "forall",
        Tok::Allow => "allow",
        Tok::Forbid => "forbid",
        Tok::Expect => "expect",
        Tok::When => "when",
        Tok::Disputed => "disputed",
        Tok::If => "if",
        Tok::While => "while",
        Tok::Do => "do",
        Tok::Diverge => "diverge",
        Tok::Filter => "filter",
        Tok::Star => "*",
        Tok::Else => "else",
        Tok::Skip => "skip",
        Tok::FenceShort => "F",
        Tok::Fence => "fence",
        Tok::Barrier => "barrier",
        Tok::Cas => "CAS",
        Tok::Fadd => "FADD",
        Tok::Exchg => "EXCHG",
        Tok::True => "true",
        Tok::False => "false",
        Tok::Assign => ":=",
        Tok::Colon => ":",
        Tok::Semi => ";",
        Tok::Comma => ",",
        Tok::Dot => ".",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::LBrace => "{",
        Tok::RBrace => "}",
        Tok::LBracket => "[",
        Tok::RBracket => "]",
        Tok::Bar2 => "||",
        Tok::Amp2 => "&&",
        Tok::Amp => "&",
        Tok::Bang => "!",
        Tok::Tilde => "~",
        Tok::Wedge => "/\\",
        Tok::Vee => "\\/",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Eq => "=",
        Tok::EqEq => "==",
        Tok::Ne => "!=",
        Tok::Lt => "<",
        Tok::Le => "<=",
        Tok::Gt => ">",
        Tok::Ge => ">=",
        Tok::At => "@",
        Tok::Litmus(_) | Tok::Str(_) | Tok::Int(_) | Tok::Ident(_) => "token",
    }
}

pub type Spanned = (usize, Tok, usize);

/// The token stream the generated parser pulls from.
pub fn tokens(src: &str) -> impl Iterator<Item = Result<Spanned, Diagnostic>> + '_ {
    Tok::lexer(src).spanned().map(|(tok, range)| {
        let span = Span::new(range.start, range.end);
        match tok {
            Ok(tok) => Ok((range.start, tok, range.end)),
            Err(()) => Err(unknown_token(src, span)),
        }
    })
}

fn unknown_token(src: &str, span: Span) -> Diagnostic {
    let text = src.get(span.range()).unwrap_or("");
    let hint = match text {
        "|" => Some("threads are separated by `||`"),
        "^" => Some("write modes and scopes as suffixes: `x.acq.cta` for x^acq_cta"),
        "\"" => Some("a string is closed by `\"` on the same line"),
        "'" => Some("registers are plain names: `r`, `s`, `r1`"),
        t if t.chars().all(|c| c.is_ascii_digit()) => Some("this number does not fit in 64 bits"),
        _ => None,
    };
    let diag = Diagnostic::error(format!("unknown token `{}`", text.escape_debug()), span)
        .with_label("not part of the litmus language");
    match hint {
        Some(h) => diag.with_hint(h),
        None => diag,
    }
}
