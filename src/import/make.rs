//! Small constructors for our surface tree, shared by the readers.

use crate::syntax::ast::*;
use crate::syntax::{Ident, Span};

pub fn id(name: &str, span: Span) -> Ident {
    Ident::new(name, span)
}

pub fn int(n: i64, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int(n),
        span,
    }
}

/// A register, or a location read with this suffix (an extended expression).
pub fn name(n: &str, suffix: Suffix, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Name(id(n, span), suffix),
        span,
    }
}

pub fn reg(n: &str, span: Span) -> Expr {
    name(n, Suffix::default(), span)
}

pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span.to(b.span);
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

pub fn unary(op: UnOp, a: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Unary(op, Box::new(a)),
        span,
    }
}

pub fn suffix(mode: Option<Mode>, scope: Option<Scope>, span: Span) -> Suffix {
    Suffix {
        mode: mode.map(|m| (m, span)),
        scope: scope.map(|s| (s, span)),
        quals: Vec::new(),
    }
}

pub fn stmt(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

/// `lhs.suffix := rhs`: a write when `lhs` is a location, else a read or LET.
pub fn assign(lhs: &str, sfx: Suffix, rhs: Expr, span: Span) -> Stmt {
    stmt(
        StmtKind::Assign {
            lhs: Place::Named(id(lhs, span)),
            suffix: sfx,
            rhs,
        },
        span,
    )
}

pub fn rmw(
    target: Option<&str>,
    op: RmwOp,
    modes: &[Mode],
    scope: Option<Scope>,
    loc: &str,
    args: Vec<Expr>,
    span: Span,
) -> Stmt {
    stmt(
        StmtKind::Rmw {
            target: target.map(|t| id(t, span)),
            rmw: Rmw {
                op,
                modes: modes.iter().map(|m| (*m, span)).collect(),
                scope: scope.map(|s| (s, span)),
                quals: Vec::new(),
                place: Place::Named(id(loc, span)),
                args,
                span,
            },
        },
        span,
    )
}

/// A test name our `litmus NAME` token takes: no blanks, quotes or braces.
pub fn test_name(raw: &str) -> String {
    let cleaned: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c.is_whitespace() || matches!(c, '"' | '{' | '}') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if cleaned.is_empty() {
        "imported".to_string()
    } else {
        cleaned
    }
}

/// The words our language reserves: a foreign name spelt so cannot be kept.
/// Notes `name` as a location first seen at `span`; a keyword of our
/// language is refused, since the printed test could not be read back.
pub fn declare_location(
    locations: &mut std::collections::BTreeMap<String, Span>,
    name: &str,
    span: Span,
) -> super::text::Read<()> {
    if RESERVED.contains(&name) {
        return Err(super::text::refuse(
            &format!("the location name `{name}`"),
            span,
            "it is a keyword of pomset's language; rename it",
        ));
    }
    locations.entry(name.to_string()).or_insert(span);
    Ok(())
}

pub const RESERVED: &[&str] = &[
    "values",
    "locations",
    "init",
    "scopes",
    "model",
    "exists",
    "forall",
    "allow",
    "forbid",
    "expect",
    "when",
    "disputed",
    "if",
    "else",
    "skip",
    "F",
    "fence",
    "CAS",
    "FADD",
    "EXCHG",
    "true",
    "false",
    "while",
    "do",
    "diverge",
    "filter",
    "litmus",
];

/// An empty file named `name`, to be filled by a reader.
pub fn file(name: &str, comment: Option<String>, span: Span) -> File {
    File {
        name: id(&test_name(name), span),
        comment,
        values: None,
        locations: Vec::new(),
        init: Vec::new(),
        scopes: None,
        model: Vec::new(),
        threads: Vec::new(),
        show: Vec::new(),
        filter: None,
        conditions: Vec::new(),
    }
}

pub fn setting(name: &str, value: &str, span: Span) -> Setting {
    Setting {
        name: id(name, span),
        value: id(value, span),
    }
}

pub fn condition(quantifier: Quantifier, prop: Prop, span: Span) -> Condition {
    Condition {
        quantifier,
        prop,
        expects: Vec::new(),
        disputed: None,
        span,
    }
}
