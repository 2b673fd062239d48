//! The cat parser: recursive descent over `lexer` tokens into a small AST
//! with spans. Precedence, loosest first: `|`, `;`, `\`, `&`, `*` (cartesian
//! product), prefix `~`, postfix `^-1 + * ?`.
//!
//! ```text
//! model     ::= [NAME | STRING] stmt*
//! stmt      ::= "let" ["rec"] binding ("and" binding)*
//!             | "include" STRING
//!             | ["flag"] ["~"] ("acyclic" | "irreflexive" | "empty") expr ["as" NAME]
//!             | "show" expr ["as" NAME] ("," expr ["as" NAME])*
//!             | "with" NAME "from" "linearisations" "(" expr "," expr ")"
//!             | ("undefined" | "defined" | "unsupported") NAME ("," NAME)*
//! binding   ::= NAME ["[" NAME "=" NAME "]"] ["(" NAME ("," NAME)* ")"] "=" expr
//! ```
//!
//! Two forms are pomset's own, outside herd7's language (the book's
//! "Axiomatic models and comparisons"):
//!
//! - `undefined NAME` (or `defined`, `unsupported`) states what the flag
//!   NAME means when raised: the program has undefined behaviour, is still
//!   defined, or is outside what the model describes. `undefined`,
//!   `defined` and `unsupported` are keywords only at the start of a
//!   statement.
//! - `let NAME[OPTION = VALUE] = e` binds NAME only when the model's
//!   option OPTION is VALUE (`hrf-direct[inclusion=mutual]`); the first
//!   value a model binds for an option is its default.
//!
//! ```text
//! expr      ::= expr "|" expr | expr ";" expr | expr "\" expr | expr "&" expr
//!             | expr "*" expr | "~" expr | expr ("^-1" | "+" | "*" | "?")
//!             | NAME | NAME "(" expr ("," expr)* ")" | "[" expr "]" | "(" expr ")"
//!             | "0" | "{}"
//! ```

use super::lexer::{lex, Tok};
use crate::syntax::diagnostic::Diagnostic;
use crate::syntax::span::{Ident, Span};

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Name(String),
    /// `0` or `{}`.
    Empty,
    Union(Box<Expr>, Box<Expr>),
    Inter(Box<Expr>, Box<Expr>),
    Diff(Box<Expr>, Box<Expr>),
    Seq(Box<Expr>, Box<Expr>),
    Product(Box<Expr>, Box<Expr>),
    Inverse(Box<Expr>),
    Plus(Box<Expr>),
    Star(Box<Expr>),
    Opt(Box<Expr>),
    Complement(Box<Expr>),
    /// `[S]`: the identity on a set.
    Bracket(Box<Expr>),
    App(Ident, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Acyclic => "acyclic",
            CheckKind::Irreflexive => "irreflexive",
            CheckKind::Empty => "empty",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Binding {
    pub name: Ident,
    /// `[OPTION = VALUE]`: bound only when the option has that value.
    pub guard: Option<(Ident, Ident)>,
    /// `Some` for a function.
    pub params: Option<Vec<Ident>>,
    pub body: Expr,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Let {
        rec: bool,
        bindings: Vec<Binding>,
        span: Span,
    },
    Include {
        path: String,
        span: Span,
    },
    Check {
        kind: CheckKind,
        negated: bool,
        flag: bool,
        expr: Expr,
        name: Option<Ident>,
        span: Span,
    },
    Show(Vec<(Expr, Option<Ident>)>),
    /// `undefined NAME, ...` (or `defined`, `unsupported`): what the flags
    /// named mean when raised.
    Meaning {
        meaning: crate::outcome::FlagMeaning,
        names: Vec<Ident>,
        span: Span,
    },
    /// `with NAME from linearisations(S, r)`: the rest of the model holds
    /// for some strict total order NAME on the set S that extends r.
    With {
        name: Ident,
        set: Expr,
        order: Expr,
        span: Span,
    },
}

/// A parsed cat file.
#[derive(Clone, Debug)]
pub struct File {
    pub title: Option<String>,
    pub stmts: Vec<Stmt>,
}

/// Parses one cat file.
pub fn parse(src: &str) -> Result<File, Diagnostic> {
    let toks = lex(src)?;
    super::depth::check_runs(&toks)?;
    let mut p = Parser {
        toks,
        at: 0,
        end: src.len(),
        depth: 0,
    };
    let file = p.file()?;
    super::depth::check_depth(&file)?;
    Ok(file)
}

/// The meaning a statement-opening word declares (`undefined NAME`).
fn meaning(word: &str) -> Option<crate::outcome::FlagMeaning> {
    use crate::outcome::FlagMeaning::*;
    match word {
        "undefined" => Some(Undefined),
        "defined" => Some(Defined),
        "unsupported" => Some(Unsupported),
        _ => None,
    }
}

struct Parser {
    toks: Vec<(Tok, Span)>,
    at: usize,
    end: usize,
    /// Nesting of expressions, bounded so that recursion stays within the stack.
    depth: usize,
}

/// The deepest nesting of parentheses, brackets and prefix `~`.
const MAX_NESTING: usize = 200;

type Parsed<T> = Result<T, Diagnostic>;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn span(&self) -> Span {
        self.toks
            .get(self.at)
            .map_or(Span::new(self.end, self.end), |(_, s)| *s)
    }

    fn prev_end(&self) -> usize {
        self.at
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |(_, s)| s.end)
    }

    fn bump(&mut self) -> Option<(Tok, Span)> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.at += 1;
            return true;
        }
        false
    }

    fn unexpected(&self, wanted: &str) -> Diagnostic {
        let found = match self.toks.get(self.at) {
            Some((Tok::Unsupported(k), span)) => {
                return Diagnostic::error(format!("`{k}` is not in the supported cat subset"), *span)
                    .with_label("unsupported construct")
                    .with_hint("the subset is let, let rec, include, acyclic, irreflexive, empty, flag and show (the book's \"Axiomatic models and comparisons\")");
            }
            Some((t, _)) => t.describe(),
            None => "the end of the file".to_string(),
        };
        Diagnostic::error(format!("expected {wanted}, found {found}"), self.span())
            .with_label(format!("expected {wanted}"))
    }

    fn expect(&mut self, tok: &Tok, wanted: &str) -> Parsed<Span> {
        if self.peek() == Some(tok) {
            return Ok(self.bump().map_or(self.span(), |(_, s)| s));
        }
        Err(self.unexpected(wanted))
    }

    fn name(&mut self, wanted: &str) -> Parsed<Ident> {
        match self.toks.get(self.at) {
            Some((Tok::Name(n), span)) => {
                let id = Ident::new(n.clone(), *span);
                self.at += 1;
                Ok(id)
            }
            _ => Err(self.unexpected(wanted)),
        }
    }

    fn file(&mut self) -> Parsed<File> {
        let title = match self.peek() {
            Some(Tok::Name(n) | Tok::Str(n)) => {
                let n = n.clone();
                self.at += 1;
                Some(n)
            }
            _ => None,
        };
        let mut stmts = Vec::new();
        while self.peek().is_some() {
            stmts.push(self.stmt()?);
        }
        Ok(File { title, stmts })
    }

    fn stmt(&mut self) -> Parsed<Stmt> {
        let start = self.span();
        match self.peek() {
            Some(Tok::Let) => {
                self.at += 1;
                let rec = self.eat(&Tok::Rec);
                let mut bindings = vec![self.binding()?];
                while self.eat(&Tok::And) {
                    bindings.push(self.binding()?);
                }
                let span = start.to(Span::new(self.prev_end(), self.prev_end()));
                Ok(Stmt::Let {
                    rec,
                    bindings,
                    span,
                })
            }
            Some(Tok::Include) => {
                self.at += 1;
                match self.bump() {
                    Some((Tok::Str(path), s)) => Ok(Stmt::Include {
                        path,
                        span: start.to(s),
                    }),
                    _ => {
                        self.at -= 1;
                        Err(self.unexpected("a file name in quotes"))
                    }
                }
            }
            Some(Tok::Show) => {
                self.at += 1;
                let mut shown = Vec::new();
                loop {
                    let e = self.expr()?;
                    let name = if self.eat(&Tok::As) {
                        Some(self.name("a name after `as`")?)
                    } else {
                        None
                    };
                    shown.push((e, name));
                    if !self.eat(&Tok::Comma) {
                        return Ok(Stmt::Show(shown));
                    }
                }
            }
            Some(Tok::With) => self.with(start),
            Some(Tok::Name(n))
                if meaning(n).is_some()
                    && matches!(self.toks.get(self.at + 1), Some((Tok::Name(_), _))) =>
            {
                let meaning = meaning(n).unwrap_or(crate::outcome::FlagMeaning::Undeclared);
                self.at += 1;
                let mut names = vec![self.name("a flag's name")?];
                while self.eat(&Tok::Comma) {
                    names.push(self.name("a flag's name")?);
                }
                let span = start.to(Span::new(self.prev_end(), self.prev_end()));
                Ok(Stmt::Meaning {
                    meaning,
                    names,
                    span,
                })
            }
            Some(Tok::Flag | Tok::Tilde | Tok::Acyclic | Tok::Irreflexive | Tok::Empty) => {
                self.check(start)
            }
            _ => Err(self.unexpected(
                "`let`, `include`, `with`, a check, `show` or a flag's meaning (`undefined NAME`)",
            )),
        }
    }

    /// `with NAME from linearisations(S, r)`, the one form of `with` read.
    fn with(&mut self, start: Span) -> Parsed<Stmt> {
        self.at += 1;
        let name = self.name("a name after `with`")?;
        self.expect(&Tok::From, "`from`")?;
        let f = self.name("`linearisations`")?;
        if f.name != "linearisations" {
            return Err(Diagnostic::error(
                format!("`with ... from {}` is not supported", f.name),
                f.span,
            )
            .with_label("not linearisations")
            .with_hint("the subset reads `with NAME from linearisations(SET, REL)` only"));
        }
        self.expect(&Tok::LParen, "`(`")?;
        let set = self.expr()?;
        self.expect(&Tok::Comma, "`,`")?;
        let order = self.expr()?;
        self.expect(&Tok::RParen, "`)`")?;
        let span = start.to(Span::new(self.prev_end(), self.prev_end()));
        Ok(Stmt::With {
            name,
            set,
            order,
            span,
        })
    }

    fn check(&mut self, start: Span) -> Parsed<Stmt> {
        let flag = self.eat(&Tok::Flag);
        let negated = self.eat(&Tok::Tilde);
        let kind = match self.peek() {
            Some(Tok::Acyclic) => CheckKind::Acyclic,
            Some(Tok::Irreflexive) => CheckKind::Irreflexive,
            Some(Tok::Empty) => CheckKind::Empty,
            _ => return Err(self.unexpected("`acyclic`, `irreflexive` or `empty`")),
        };
        self.at += 1;
        let expr = self.expr()?;
        let name = if self.eat(&Tok::As) {
            Some(self.name("a name after `as`")?)
        } else {
            None
        };
        let span = start.to(Span::new(self.prev_end(), self.prev_end()));
        Ok(Stmt::Check {
            kind,
            negated,
            flag,
            expr,
            name,
            span,
        })
    }

    fn binding(&mut self) -> Parsed<Binding> {
        let name = self.name("a name to bind")?;
        let guard = if self.eat(&Tok::LBracket) {
            let option = self.name("an option's name")?;
            self.expect(&Tok::Eq, "`=` after the option's name")?;
            let value = self.name("the option's value")?;
            self.expect(&Tok::RBracket, "`]` after the option's value")?;
            Some((option, value))
        } else {
            None
        };
        let params = if self.eat(&Tok::LParen) {
            let mut ps = vec![self.name("a parameter name")?];
            while self.eat(&Tok::Comma) {
                ps.push(self.name("a parameter name")?);
            }
            self.expect(&Tok::RParen, "`)` after the parameters")?;
            Some(ps)
        } else {
            None
        };
        self.expect(&Tok::Eq, "`=`")?;
        let body = self.expr()?;
        Ok(Binding {
            name,
            guard,
            params,
            body,
        })
    }

    fn expr(&mut self) -> Parsed<Expr> {
        self.nested(|p| p.binary(0))
    }

    /// Runs a nested parse, refusing nesting deeper than `MAX_NESTING`.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Parser) -> Parsed<T>) -> Parsed<T> {
        if self.depth >= MAX_NESTING {
            return Err(
                Diagnostic::error("expression nested too deeply", self.span())
                    .with_label(format!("more than {MAX_NESTING} levels"))
                    .with_hint("name a part with `let`"),
            );
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Levels: 0 `|`, 1 `;`, 2 `\`, 3 `&`, 4 `*`.
    fn binary(&mut self, level: usize) -> Parsed<Expr> {
        if level == 5 {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let op = match (level, self.peek()) {
                (0, Some(Tok::Bar))
                | (1, Some(Tok::Semi))
                | (2, Some(Tok::Backslash))
                | (3, Some(Tok::Amp)) => true,
                (4, Some(Tok::Star)) => self.starts_operand_at(self.at + 1),
                _ => false,
            };
            if !op {
                return Ok(left);
            }
            self.at += 1;
            let right = self.binary(level + 1)?;
            let span = left.span.to(right.span);
            let (l, r) = (Box::new(left), Box::new(right));
            let kind = match level {
                0 => ExprKind::Union(l, r),
                1 => ExprKind::Seq(l, r),
                2 => ExprKind::Diff(l, r),
                3 => ExprKind::Inter(l, r),
                _ => ExprKind::Product(l, r),
            };
            left = Expr { kind, span };
        }
    }

    /// Whether the token at `i` can begin an operand (so a `*` before it is
    /// the cartesian product, not the reflexive-transitive closure).
    fn starts_operand_at(&self, i: usize) -> bool {
        matches!(
            self.toks.get(i).map(|(t, _)| t),
            Some(
                Tok::Name(_) | Tok::LParen | Tok::LBracket | Tok::Tilde | Tok::Zero | Tok::EmptySet
            )
        )
    }

    fn unary(&mut self) -> Parsed<Expr> {
        if self.peek() == Some(&Tok::Tilde) {
            let start = self.span();
            self.at += 1;
            let e = self.nested(Parser::unary)?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Complement(Box::new(e)),
                span,
            });
        }
        let mut e = self.atom()?;
        loop {
            let wrap: fn(Box<Expr>) -> ExprKind = match self.peek() {
                Some(Tok::Inv) => ExprKind::Inverse,
                Some(Tok::Plus) => ExprKind::Plus,
                Some(Tok::Question) => ExprKind::Opt,
                Some(Tok::Star) if !self.starts_operand_at(self.at + 1) => ExprKind::Star,
                _ => return Ok(e),
            };
            let (_, s) = self.bump().unwrap_or((Tok::Star, e.span));
            let span = e.span.to(s);
            e = Expr {
                kind: wrap(Box::new(e)),
                span,
            };
        }
    }

    fn atom(&mut self) -> Parsed<Expr> {
        let start = self.span();
        match self.peek().cloned() {
            Some(Tok::Name(n)) => {
                self.at += 1;
                if self.peek() == Some(&Tok::LParen) && self.span().start == start.end {
                    return self.application(Ident::new(n, start));
                }
                Ok(Expr {
                    kind: ExprKind::Name(n),
                    span: start,
                })
            }
            Some(Tok::Zero | Tok::EmptySet) => {
                self.at += 1;
                Ok(Expr {
                    kind: ExprKind::Empty,
                    span: start,
                })
            }
            Some(Tok::LParen) => {
                self.at += 1;
                let e = self.expr()?;
                let end = self.expect(&Tok::RParen, "`)`")?;
                Ok(Expr {
                    span: start.to(end),
                    ..e
                })
            }
            Some(Tok::LBracket) => {
                self.at += 1;
                let e = self.expr()?;
                let end = self.expect(&Tok::RBracket, "`]`")?;
                Ok(Expr {
                    kind: ExprKind::Bracket(Box::new(e)),
                    span: start.to(end),
                })
            }
            _ => Err(self.unexpected("a set or relation")),
        }
    }

    fn application(&mut self, f: Ident) -> Parsed<Expr> {
        self.at += 1;
        let mut args = vec![self.expr()?];
        while self.eat(&Tok::Comma) {
            args.push(self.expr()?);
        }
        let end = self.expect(&Tok::RParen, "`)` after the arguments")?;
        Ok(Expr {
            span: f.span.to(end),
            kind: ExprKind::App(f, args),
        })
    }
}
