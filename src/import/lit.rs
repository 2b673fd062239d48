//! The PwT prototype's `.lit` format (graymalkin/pomsets-with-predicate-
//! transformers): an optional header `name = ...`, `values = {...}`,
//! `comment "..."` ended by `%%`; one program whose threads are blocks
//! joined by `|||`; then `%%` and `allow`/`forbid` outcomes, each with the
//! other models' verdicts `[Power=allow]` and a quoted comment. Registers
//! are the names starting with `r`; every other name is a location.
//!
//! The program is one statement, so its shape decides the threads: a
//! parallel composition is flattened into top-level threads; any other
//! shape stays one thread with nested `( A || B )` (stores before the
//! threads stay stores of that thread). The prototype sequences every
//! program after an initialising rlx write of 0 to every location
//! (`PomsetPTSeq.Init`), which is our default `init`.

use std::collections::BTreeMap;

use super::make;
use super::text::{self, fail, refuse, Cursor, Kind, Read, Spelling};
use crate::syntax::ast::{
    self, BinOp, CmpOp, CondTerm, Mode, Prop, Quantifier, RmwOp, Stmt, StmtKind, UnOp,
};
use crate::syntax::{Diagnostic, Diagnostics, Span};

const SPELLING: Spelling = Spelling {
    puncts: &[
        "|||", ":=", "%%", "'", "&&", "||", "==", "!=", ">=", "<=", "≡", "∧", "∨", "¬", "≥", "≤",
        "!", "=", ">", "<", "*", "/", "+", "-", ";", ".", ",", "(", ")", "[", "]", "{", "}",
    ],
    line_comments: &["//"],
    block_comments: &[],
    top_level_comments: &[],
    ident_extra: "",
};

/// The prototype's keywords (`Lex.mll`): never registers or locations.
const KEYWORDS: &[&str] = &[
    "if",
    "else",
    "do",
    "while",
    "load",
    "store",
    "FADD",
    "CAS",
    "fence",
    "na",
    "nonatomic",
    "rlx",
    "relaxed",
    "acq",
    "acquire",
    "rel",
    "release",
    "sc",
    "sequentially_consistent",
    "exclusive",
    "ex",
    "strong",
    "normal",
    "lock",
    "unlock",
    "skip",
    "print",
    "name",
    "values",
    "comment",
    "allow",
    "forbid",
    "exec",
];

/// Reads a `.lit` file; `file_name` names the test when the header does not.
pub fn read(src: &str, file_name: &str) -> Result<ast::File, Diagnostics> {
    let toks = text::tokens(src, 0, src.len(), &SPELLING)?;
    let mut c = Cursor::new(toks, src.len());
    let mut r = Reader::default();
    let header = r.header(src, &mut c, file_name)?;
    let start = c.here();
    let program = r.seq(&mut c, &["%%"])?;
    c.eat_punct(";");
    let mut file = make::file(&header.name, header.comment.clone(), start);
    if let Some(vs) = header.values {
        file.values = Some(vs);
    }
    let mut notes: Vec<String> = header.comment.into_iter().collect();
    if c.eat_punct("%%") {
        r.outcomes(&mut c, &mut file, &mut notes)?;
    }
    if !c.at_end() {
        return fail(c.expected("the end of the file"));
    }
    if !notes.is_empty() {
        file.comment = Some(notes.join(" | "));
    }
    r.shape(program, start, &mut file);
    file.locations = r
        .locations
        .iter()
        .map(|(n, s)| ast::LocDecl {
            name: make::id(n, *s),
            address: None,
        })
        .collect();
    Ok(file)
}

struct Header {
    name: String,
    values: Option<(Vec<i64>, Span)>,
    comment: Option<String>,
}

#[derive(Default)]
struct Reader {
    locations: BTreeMap<String, Span>,
}

fn is_register(name: &str) -> bool {
    name.starts_with('r') && !KEYWORDS.contains(&name)
}

impl Reader {
    fn header(&mut self, src: &str, c: &mut Cursor, file_name: &str) -> Read<Header> {
        let stem = std::path::Path::new(file_name)
            .file_stem()
            .map_or("imported".to_string(), |s| s.to_string_lossy().to_string());
        let mut h = Header {
            name: stem,
            values: None,
            comment: None,
        };
        let has_header = ["name", "values", "comment", "exec"]
            .iter()
            .any(|w| c.is_word(w))
            && c.peek_at(1)
                .is_some_and(|t| t.kind == Kind::Punct("=") || matches!(t.kind, Kind::Str(_)));
        if !has_header {
            return Ok(h);
        }
        while !c.eat_punct("%%") {
            let (key, span) = c.ident("`name`, `values`, `comment` or `%%`")?;
            match key.as_str() {
                // The rest of the line, so that names like `ex3.5` or `LBa'` survive.
                "name" => {
                    let eq = c.punct("=")?;
                    let line_end = src[eq.end..].find('\n').map_or(src.len(), |i| i + eq.end);
                    h.name = src[eq.end..line_end].trim().trim_matches('"').to_string();
                    while c.peek().is_some_and(|t| t.span.start < line_end) {
                        c.bump();
                    }
                    if h.name.is_empty() {
                        return Err(Diagnostic::error("expected the test's name", span));
                    }
                }
                "values" => {
                    c.punct("=")?;
                    let open = c.punct("{")?;
                    let mut vs = Vec::new();
                    while !c.is_punct("}") {
                        vs.push(c.int("a value")?.0);
                        if !c.eat_punct(",") {
                            break;
                        }
                    }
                    let close = c.punct("}")?;
                    h.values = Some((vs, open.to(close)));
                }
                "comment" => match c.bump().map(|t| t.kind) {
                    Some(Kind::Str(s)) => h.comment = Some(s),
                    _ => return Err(Diagnostic::error("expected a quoted comment", span)),
                },
                // `exec = {...}` selects executions to draw; it does not change the test.
                "exec" => {
                    c.punct("=")?;
                    c.punct("{")?;
                    while c.bump().is_some_and(|t| t.kind != Kind::Punct("}")) {}
                }
                _ => {
                    return Err(
                        Diagnostic::error(format!("unknown header item `{key}`"), span)
                            .with_label("expected name, values, comment or %%"),
                    )
                }
            }
        }
        Ok(h)
    }

    /// Statements separated by `;`, up to one of `ends` (not consumed).
    fn seq(&mut self, c: &mut Cursor, ends: &[&str]) -> Read<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            if c.at_end() || ends.iter().any(|e| c.is_punct(e)) {
                return Ok(out);
            }
            out.push(self.stmt(c)?);
            if !c.eat_punct(";") {
                return Ok(out);
            }
        }
    }

    fn block(&mut self, c: &mut Cursor) -> Read<Vec<Stmt>> {
        c.punct("{")?;
        let body = self.seq(c, &["}"])?;
        c.punct("}")?;
        Ok(body)
    }

    fn stmt(&mut self, c: &mut Cursor) -> Read<Stmt> {
        let start = c.here();
        if c.is_punct("{") {
            let first = self.block(c)?;
            let mut branches = vec![thread(first, start)];
            while c.eat_punct("|||") {
                let s = c.here();
                branches.push(thread(self.block(c)?, s));
            }
            if branches.len() == 1 {
                return Err(c.expected("`|||` after a block"));
            }
            return Ok(make::stmt(StmtKind::Par(branches), start.to(c.here())));
        }
        let (word, span) = c.ident("a statement")?;
        let kind = match word.as_str() {
            "skip" => StmtKind::Skip,
            "if" => {
                let cond = self.bexpr(c)?;
                let then = self.block(c)?;
                let els = if c.eat_word("else") {
                    Some(self.block(c)?)
                } else {
                    None
                };
                StmtKind::If { cond, then, els }
            }
            "while" => {
                let cond = self.bexpr(c)?;
                StmtKind::While {
                    cond,
                    body: self.block(c)?,
                }
            }
            "do" => {
                let body = self.block(c)?;
                c.word("while")?;
                StmtKind::DoWhile {
                    body,
                    cond: self.bexpr(c)?,
                }
            }
            "fence" => {
                c.punct("(")?;
                let (m, ms) = self.ord(c)?;
                c.punct(")")?;
                StmtKind::Fence {
                    suffix: make::suffix(Some(m), None, ms),
                }
            }
            "print" => {
                return Err(refuse(
                    "`print`",
                    span,
                    "printing is output, not an action of the semantics",
                ))
            }
            "lock" | "unlock" => {
                return Err(refuse(
                    &format!("`{word}`"),
                    span,
                    "the prototype's locks have no counterpart in pomset's actions",
                ))
            }
            _ if is_register(&word) => return self.register_stmt(c, &word, span),
            _ => return self.store(c, &word, span),
        };
        Ok(make::stmt(kind, span.to(c.here())))
    }

    /// `r := x`, `r := x.load(ord)`, `r := e`, `r := FADD(...)`, `r := CAS(...)`.
    fn register_stmt(&mut self, c: &mut Cursor, r: &str, span: Span) -> Read<Stmt> {
        c.punct(":=")?;
        let at = c.here();
        if c.is_word("FADD") || c.is_word("CAS") {
            let op = if c.is_word("CAS") {
                RmwOp::Cas
            } else {
                RmwOp::Fadd
            };
            c.bump();
            return self.rmw(c, r, op, span.to(at));
        }
        if let Some(Kind::Ident(x)) = c.peek().map(|t| t.kind.clone()) {
            if !is_register(&x) && !KEYWORDS.contains(&x.as_str()) {
                let (x, xs) = c.ident("a location")?;
                self.location(&x, xs)?;
                let mode = if c.eat_punct(".") {
                    c.word("load")?;
                    c.punct("(")?;
                    let (m, _) = self.ord(c)?;
                    if c.eat_punct(",") {
                        self.exclusivity(c)?;
                    }
                    c.punct(")")?;
                    m
                } else {
                    Mode::Rlx
                };
                let read = make::name(&x, make::suffix(Some(mode), None, xs), xs);
                return Ok(make::assign(r, Default::default(), read, span.to(c.here())));
            }
        }
        let e = self.expr(c)?;
        Ok(make::assign(r, Default::default(), e, span.to(c.here())))
    }

    /// `FADD(x, [strength,] or, ow, e)` and `CAS(x, or, ow, e1, e2)`.
    fn rmw(&mut self, c: &mut Cursor, r: &str, op: RmwOp, span: Span) -> Read<Stmt> {
        c.punct("(")?;
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        c.punct(",")?;
        if op == RmwOp::Fadd && (c.is_word("normal") || c.is_word("strong")) {
            self.strength(c)?;
            c.punct(",")?;
        }
        let (rm, _) = self.ord(c)?;
        c.punct(",")?;
        let (wm, _) = self.ord(c)?;
        let mut args = Vec::new();
        for _ in 0..op.arity() {
            c.punct(",")?;
            args.push(self.expr(c)?);
        }
        c.punct(")")?;
        Ok(make::rmw(
            Some(r),
            op,
            &[rm, wm],
            None,
            &x,
            args,
            span.to(c.here()),
        ))
    }

    /// `x := e` and `x.store(e, ord[, strength])`.
    fn store(&mut self, c: &mut Cursor, x: &str, span: Span) -> Read<Stmt> {
        self.location(x, span)?;
        if c.eat_punct(".") {
            c.word("store")?;
            c.punct("(")?;
            let e = self.expr(c)?;
            c.punct(",")?;
            let (m, ms) = self.ord(c)?;
            if c.eat_punct(",") {
                self.strength(c)?;
            }
            c.punct(")")?;
            return Ok(make::assign(
                x,
                make::suffix(Some(m), None, ms),
                e,
                span.to(c.here()),
            ));
        }
        c.punct(":=")?;
        let e = self.expr(c)?;
        Ok(make::assign(
            x,
            make::suffix(Some(Mode::Rlx), None, span),
            e,
            span.to(c.here()),
        ))
    }

    fn location(&mut self, x: &str, span: Span) -> Read<()> {
        make::declare_location(&mut self.locations, x, span)
    }

    fn ord(&mut self, c: &mut Cursor) -> Read<(Mode, Span)> {
        let (w, span) = c.ident("a memory order such as `relaxed`")?;
        let m = match w.as_str() {
            "na" | "nonatomic" => Mode::Wk,
            "rlx" | "relaxed" => Mode::Rlx,
            "acq" | "acquire" => Mode::Acq,
            "rel" | "release" => Mode::Rel,
            "sc" | "sequentially_consistent" => Mode::Sc,
            _ => {
                return Err(
                    Diagnostic::error(format!("`{w}` is not a memory order"), span)
                        .with_label("expected na, rlx, acq, rel or sc"),
                )
            }
        };
        Ok((m, span))
    }

    fn strength(&mut self, c: &mut Cursor) -> Read<()> {
        let (w, span) = c.ident("`normal` or `strong`")?;
        match w.as_str() {
            "normal" => Ok(()),
            _ => Err(refuse(
                "a strong access",
                span,
                "the prototype's `strong` accesses have no counterpart in pomset's modes",
            )),
        }
    }

    fn exclusivity(&mut self, c: &mut Cursor) -> Read<()> {
        let (w, span) = c.ident("`exclusive` or `not-exclusive`")?;
        match w.as_str() {
            "not" => {
                c.punct("-")?;
                c.ident("`exclusive`")?;
                Ok(())
            }
            _ => Err(refuse("an exclusive load", span, "the prototype's exclusive loads (half an LL/SC pair) have no counterpart; use CAS or FADD")),
        }
    }

    /// `e1 op e2`, `b && b`, `b || b`, `!b`, `(b)`: our expressions hold them all.
    fn bexpr(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        let mut a = self.band(c)?;
        while c.eat_punct("||") || c.eat_punct("∨") {
            let b = self.band(c)?;
            a = make::binary(BinOp::Or, a, b);
        }
        Ok(a)
    }

    fn band(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        let mut a = self.bnot(c)?;
        while c.eat_punct("&&") || c.eat_punct("∧") {
            let b = self.bnot(c)?;
            a = make::binary(BinOp::And, a, b);
        }
        Ok(a)
    }

    fn bnot(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        let start = c.here();
        if (c.is_punct("!") && !c.peek_at(1).is_some_and(|t| t.kind == Kind::Punct("=")))
            || c.is_punct("¬")
        {
            c.bump();
            let a = self.bnot(c)?;
            return Ok(make::unary(UnOp::Not, a, start.to(c.here())));
        }
        if c.is_punct("(") {
            let m = c.mark();
            c.bump();
            if let Ok(b) = self.bexpr(c) {
                if c.eat_punct(")") && !self.at_cmp(c) && !self.at_arith(c) {
                    return Ok(b);
                }
            }
            c.reset(m);
        }
        let a = self.expr(c)?;
        let op = self.cmp(c)?;
        let b = self.expr(c)?;
        Ok(match op {
            Some(op) => make::binary(op, a, b),
            None => make::unary(UnOp::Not, make::binary(BinOp::Eq, a, b), start.to(c.here())),
        })
    }

    fn at_cmp(&self, c: &Cursor) -> bool {
        ["=", "==", "≡", "!", "!=", "<", ">", "<=", ">=", "≤", "≥"]
            .iter()
            .any(|p| c.is_punct(p))
    }

    fn at_arith(&self, c: &Cursor) -> bool {
        ["+", "-", "*", "/"].iter().any(|p| c.is_punct(p))
    }

    /// A comparison; `None` is `! =` written apart (not equal).
    fn cmp(&mut self, c: &mut Cursor) -> Read<Option<BinOp>> {
        if c.eat_punct("!") {
            c.punct("=")?;
            return Ok(None);
        }
        for (p, op) in [
            ("==", BinOp::Eq),
            ("=", BinOp::Eq),
            ("≡", BinOp::Eq),
            ("!=", BinOp::Ne),
            (">=", BinOp::Ge),
            ("≥", BinOp::Ge),
            ("<=", BinOp::Le),
            ("≤", BinOp::Le),
            (">", BinOp::Gt),
            ("<", BinOp::Lt),
        ] {
            if c.eat_punct(p) {
                return Ok(Some(op));
            }
        }
        Err(c.expected("a comparison such as `=`"))
    }

    /// `+ -` over `* /` over atoms (integers, registers, parentheses).
    fn expr(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        let mut a = self.term(c)?;
        loop {
            let op = if c.eat_punct("+") {
                BinOp::Add
            } else if c.eat_punct("-") {
                BinOp::Sub
            } else {
                return Ok(a);
            };
            let b = self.term(c)?;
            a = make::binary(op, a, b);
        }
    }

    fn term(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        let mut a = self.atom(c)?;
        loop {
            if c.is_punct("/") {
                return Err(refuse(
                    "division",
                    c.here(),
                    "pomset's expressions have +, - and * only",
                ));
            }
            if !c.eat_punct("*") {
                return Ok(a);
            }
            let b = self.atom(c)?;
            a = make::binary(BinOp::Mul, a, b);
        }
    }

    fn atom(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        if c.eat_punct("(") {
            let e = self.expr(c)?;
            c.punct(")")?;
            return Ok(e);
        }
        if let Some(Kind::Ident(r)) = c.peek().map(|t| t.kind.clone()) {
            let (_, span) = c.ident("a register")?;
            if !is_register(&r) {
                return Err(Diagnostic::error(format!("`{r}` is not a register"), span)
                    .with_label(
                        "the prototype's expressions name registers (r...) and values only",
                    ));
            }
            return Ok(make::reg(&r, span));
        }
        if c.is_punct("-") {
            let start = c.here();
            c.bump();
            let a = self.atom(c)?;
            return Ok(make::unary(UnOp::Neg, a, start.to(c.here())));
        }
        let (n, span) = c.int("a value or a register")?;
        Ok(make::int(n, span))
    }

    /// `allow P [Model=verdict, ...] "comment"`, separated by `;`.
    fn outcomes(
        &mut self,
        c: &mut Cursor,
        file: &mut ast::File,
        notes: &mut Vec<String>,
    ) -> Read<()> {
        while !c.at_end() {
            let start = c.here();
            let q = if c.eat_word("allow") {
                Quantifier::Allow
            } else if c.eat_word("forbid") {
                Quantifier::Forbid
            } else {
                return Err(c.expected("`allow` or `forbid`"));
            };
            let e = self.bexpr(c)?;
            let prop = to_prop(&e)?;
            let mut others = Vec::new();
            if c.eat_punct("[") {
                while !c.eat_punct("]") {
                    let (m, _) = c.ident("a model name")?;
                    c.punct("=")?;
                    let (v, _) = c.ident("allow or forbid")?;
                    others.push(format!("{m}={v}"));
                    c.eat_punct(",");
                }
            }
            let said = match c.peek().map(|t| t.kind.clone()) {
                Some(Kind::Str(s)) => {
                    c.bump();
                    Some(s)
                }
                _ => None,
            };
            let mut note = format!("{} #{}", q.as_str(), file.conditions.len() + 1);
            if !others.is_empty() {
                note.push_str(&format!(" [{}]", others.join(", ")));
            }
            if let Some(s) = said {
                note.push_str(&format!(": {}", s.trim()));
            }
            if note.contains('[') || note.contains(':') {
                notes.push(note);
            }
            file.conditions
                .push(make::condition(q, prop, start.to(c.here())));
            c.eat_punct(";");
        }
        Ok(())
    }

    /// The program's shape as threads: a parallel composition is flattened
    /// into top-level threads; any other program is one thread, with nested
    /// `( A || B )` where it has them.
    fn shape(&mut self, program: Vec<Stmt>, span: Span, file: &mut ast::File) {
        file.threads = match program.as_slice() {
            [Stmt {
                kind: StmtKind::Par(branches),
                ..
            }] => flatten(branches.clone()),
            _ => vec![thread(program, span)],
        };
    }
}

fn thread(body: Vec<Stmt>, span: Span) -> ast::Thread {
    let body = if body.is_empty() {
        vec![make::stmt(StmtKind::Skip, span)]
    } else {
        body
    };
    ast::Thread {
        label: None,
        body,
        span,
    }
}

/// `{{A} ||| {B}} ||| {C}` is three threads.
fn flatten(branches: Vec<ast::Thread>) -> Vec<ast::Thread> {
    let mut out = Vec::new();
    for b in branches {
        match b.body.as_slice() {
            [Stmt {
                kind: StmtKind::Par(inner),
                ..
            }] => out.extend(flatten(inner.clone())),
            _ => out.push(b),
        }
    }
    out
}

/// An outcome's condition: comparisons of single registers and values.
fn to_prop(e: &ast::Expr) -> Read<Prop> {
    match &e.kind {
        ast::ExprKind::Binary(BinOp::And, a, b) => {
            Ok(Prop::And(Box::new(to_prop(a)?), Box::new(to_prop(b)?)))
        }
        ast::ExprKind::Binary(BinOp::Or, a, b) => {
            Ok(Prop::Or(Box::new(to_prop(a)?), Box::new(to_prop(b)?)))
        }
        ast::ExprKind::Unary(UnOp::Not, a) => Ok(Prop::Not(Box::new(to_prop(a)?))),
        ast::ExprKind::Binary(op, a, b) if op.comparison().is_some() => {
            let cmp = op.comparison().unwrap_or(CmpOp::Eq);
            Ok(Prop::Cmp(cond_term(a)?, cmp, cond_term(b)?, e.span))
        }
        _ => Err(Diagnostic::error("expected a comparison", e.span)),
    }
}

fn cond_term(e: &ast::Expr) -> Read<CondTerm> {
    match &e.kind {
        ast::ExprKind::Int(n) => Ok(CondTerm::Int(*n, e.span)),
        ast::ExprKind::Unary(UnOp::Neg, a) if matches!(a.kind, ast::ExprKind::Int(_)) => {
            match a.kind {
                ast::ExprKind::Int(n) => Ok(CondTerm::Int(-n, e.span)),
                _ => unreachable_term(e),
            }
        }
        ast::ExprKind::Name(r, _) => Ok(CondTerm::Reg {
            thread: None,
            reg: r.clone(),
        }),
        _ => unreachable_term(e),
    }
}

fn unreachable_term(e: &ast::Expr) -> Read<CondTerm> {
    Err(refuse(
        "arithmetic in an outcome",
        e.span,
        "pomset's conditions compare single registers and values",
    ))
}
