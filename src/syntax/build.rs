//! Small constructors the grammar's actions call, so that the grammar stays
//! declarative and errors found while parsing carry spans and hints.

use lalrpop_util::ParseError;

use super::ast::*;
use super::diagnostic::Diagnostic;
use super::lexer::Tok;
use super::span::{Ident, Span};

pub type Fallible<T> = Result<T, ParseError<usize, Tok, Diagnostic>>;

fn fail<T>(d: Diagnostic) -> Fallible<T> {
    Err(ParseError::User { error: d })
}

pub enum HeaderItem {
    Values(Vec<i64>, Span),
    Locations(Vec<LocDecl>, Span),
    Init(Vec<InitEntry>, Span),
    Scopes(ScopeNode, Span),
    Model(Vec<Setting>, Span),
}

impl HeaderItem {
    fn keyword(&self) -> &'static str {
        match self {
            HeaderItem::Values(..) => "values",
            HeaderItem::Locations(..) => "locations",
            HeaderItem::Init(..) => "init",
            HeaderItem::Scopes(..) => "scopes",
            HeaderItem::Model(..) => "model",
        }
    }

    fn span(&self) -> Span {
        match self {
            HeaderItem::Values(_, s)
            | HeaderItem::Locations(_, s)
            | HeaderItem::Init(_, s)
            | HeaderItem::Scopes(_, s)
            | HeaderItem::Model(_, s) => *s,
        }
    }
}

pub fn file(
    name: Ident,
    comment: Option<String>,
    items: Vec<HeaderItem>,
    threads: Vec<Thread>,
    (show, filter): (Vec<CondTerm>, Option<(Prop, Span)>),
    conditions: Vec<Condition>,
) -> Fallible<File> {
    let mut file = File {
        name,
        comment,
        values: None,
        locations: Vec::new(),
        init: Vec::new(),
        scopes: None,
        model: Vec::new(),
        threads,
        show,
        filter,
        conditions,
    };
    let mut seen: Vec<(&'static str, Span)> = Vec::new();
    for item in items {
        let (kw, span) = (item.keyword(), item.span());
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == kw) {
            return fail(
                Diagnostic::error(format!("`{kw}` is given twice"), span)
                    .with_label("second one here")
                    .with_also(*first, "first one here")
                    .with_hint(format!("merge the two `{kw}` blocks into one")),
            );
        }
        seen.push((kw, span));
        match item {
            HeaderItem::Values(vs, s) => file.values = Some((vs, s)),
            HeaderItem::Locations(ds, _) => file.locations = ds,
            HeaderItem::Init(es, _) => file.init = es,
            HeaderItem::Scopes(node, _) => file.scopes = Some(node),
            HeaderItem::Model(ss, _) => file.model = ss,
        }
    }
    Ok(file)
}

pub fn scope_group(level: Ident, children: Vec<ScopeNode>, span: Span) -> Fallible<ScopeNode> {
    match Scope::parse(level.as_str()) {
        Some(level) => Ok(ScopeNode::Group {
            level,
            children,
            span,
        }),
        None => fail(
            Diagnostic::error(format!("`{level}` is not a scope"), level.span)
                .with_label("expected `cta`, `gpu` or `sys`")
                .with_hint("nest groups as `gpu { cta { P0 P1 } cta { P2 } }`"),
        ),
    }
}

pub fn cons<T>(x: T, mut rest: Vec<T>) -> Vec<T> {
    rest.insert(0, x);
    rest
}

pub fn reversed<T>(mut v: Vec<T>) -> Vec<T> {
    v.reverse();
    v
}

pub fn snoc<T>(mut v: Vec<T>, x: T) -> Vec<T> {
    v.push(x);
    v
}

pub fn binary(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

pub fn unary(op: UnOp, e: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Unary(op, Box::new(e)),
        span,
    }
}

/// Sorts `.rlx.gpu` into a mode and a scope; at most one of each.
pub fn suffix(parts: Vec<Ident>) -> Fallible<Suffix> {
    let mut suffix = Suffix::default();
    for part in parts {
        if let Some(mode) = Mode::parse(part.as_str()) {
            if let Some((_, first)) = suffix.mode {
                return fail(twice("mode", &part, first));
            }
            suffix.mode = Some((mode, part.span));
        } else if let Some(scope) = Scope::parse(part.as_str()) {
            if let Some((_, first)) = suffix.scope {
                return fail(twice("scope", &part, first));
            }
            suffix.scope = Some((scope, part.span));
        } else if let Some(q) = Qual::parse(part.as_str()) {
            add_qual(&mut suffix.quals, q, &part)?;
        } else {
            return fail(not_mode_or_scope(&part));
        }
    }
    Ok(suffix)
}

/// Adds a Vulkan qualifier, keeping the list sorted (the formatter prints it
/// in that order) and refusing a repeat.
fn add_qual(quals: &mut Vec<(Qual, Span)>, q: Qual, part: &Ident) -> Fallible<()> {
    if let Some((_, first)) = quals.iter().find(|(p, _)| *p == q) {
        return fail(
            Diagnostic::error(format!("`.{part}` is written twice"), part.span)
                .with_label("second time")
                .with_also(*first, "first time")
                .with_hint(format!("keep one `.{}`", q.name())),
        );
    }
    let at = quals.partition_point(|(p, _)| *p < q);
    quals.insert(at, (q, part.span));
    Ok(())
}

fn twice(what: &str, part: &Ident, first: Span) -> Diagnostic {
    Diagnostic::error(
        format!("an access has one {what}, this is a second"),
        part.span,
    )
    .with_label(format!("second {what}"))
    .with_also(first, format!("first {what}"))
    .with_hint(format!(
        "keep one {what}: modes and scopes are written `x.acq.cta`"
    ))
}

fn not_mode_or_scope(part: &Ident) -> Diagnostic {
    let names = Mode::ALL
        .iter()
        .map(|m| m.as_str())
        .chain(Scope::ALL.iter().map(|s| s.as_str()));
    let hint = match crate::model::closest(part.as_str(), names) {
        Some(near) => format!("did you mean `.{near}`?"),
        None => "modes are wk, rlx, rel, acq, ra, sc; scopes are cta, gpu, sys (Vulkan adds sg and qualifiers such as av, vis, nonpriv)".to_string(),
    };
    Diagnostic::error(format!("`{part}` is neither a mode nor a scope"), part.span)
        .with_label("unknown suffix")
        .with_hint(hint)
}

/// `CAS.acq.rel.gpu(x, M, N)`: up to two modes (read, then write) and one scope.
pub fn rmw(
    op: RmwOp,
    parts: Vec<Ident>,
    place: Place,
    args: Vec<Expr>,
    span: Span,
) -> Fallible<Rmw> {
    let mut modes = Vec::new();
    let mut scope = None;
    let mut quals = Vec::new();
    for part in parts {
        if let Some(mode) = Mode::parse(part.as_str()) {
            if modes.len() == 2 {
                return fail(
                    Diagnostic::error(
                        format!("{} takes at most two modes", op.as_str()),
                        part.span,
                    )
                    .with_label("third mode")
                    .with_hint("the first mode is the read's, the second the write's"),
                );
            }
            modes.push((mode, part.span));
        } else if let Some(s) = Scope::parse(part.as_str()) {
            if let Some((_, first)) = scope {
                return fail(twice("scope", &part, first));
            }
            scope = Some((s, part.span));
        } else if let Some(q) = Qual::parse(part.as_str()) {
            add_qual(&mut quals, q, &part)?;
        } else {
            return fail(not_mode_or_scope(&part));
        }
    }
    if args.len() != op.arity() {
        let shape = match op {
            RmwOp::Cas => "CAS(x, expected, new)",
            RmwOp::Fadd => "FADD(x, increment)",
            RmwOp::Exchg => "EXCHG(x, new)",
        };
        return fail(
            Diagnostic::error(
                format!(
                    "{} takes {} argument(s) after the location, not {}",
                    op.as_str(),
                    op.arity(),
                    args.len()
                ),
                span,
            )
            .with_label("wrong number of arguments")
            .with_hint(format!("write `{shape}`")),
        );
    }
    Ok(Rmw {
        op,
        modes,
        scope,
        quals,
        place,
        args,
        span,
    })
}

pub enum Rhs {
    Expr(Expr),
    Rmw(Rmw),
}

/// `a.mode := M`, or `r := FADD(...)`, whose target must be a plain register.
pub fn assign(lhs: Place, suffix: Suffix, rhs: Rhs, span: Span) -> Fallible<Stmt> {
    let rmw = match rhs {
        Rhs::Expr(rhs) => {
            return Ok(Stmt {
                kind: StmtKind::Assign { lhs, suffix, rhs },
                span,
            })
        }
        Rhs::Rmw(rmw) => rmw,
    };
    match lhs {
        Place::Named(target) if suffix.is_empty() => Ok(Stmt {
            kind: StmtKind::Rmw {
                target: Some(target),
                rmw,
            },
            span,
        }),
        _ => fail(
            Diagnostic::error("the result of an RMW goes to a register", span)
                .with_label("this target is not a plain register")
                .with_hint("write `r := FADD(x, 1)`: the location goes inside the parentheses"),
        ),
    }
}

pub fn expect(verdict: Ident, when: Vec<Setting>, span: Span) -> Fallible<Expect> {
    match Verdict::parse(verdict.as_str()) {
        Some(v) => Ok(Expect {
            verdict: v,
            when,
            span,
        }),
        None => fail(
            Diagnostic::error(format!("`{verdict}` is not a verdict"), verdict.span)
                .with_label("unknown verdict")
                .with_hint("expect one of: allowed, forbidden, always, sometimes, never, unknown"),
        ),
    }
}
