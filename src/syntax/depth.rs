//! The guards that keep every recursive pass over the surface tree within the
//! stack: a bound on the tokens of one expression or condition, checked before
//! parsing, and a bound on the depth of every tree, measured right after
//! parsing with an explicit stack.
//!
//! The bracket guard (`parse::MAX_NESTING`) counts only brackets; operator
//! chains (`- - - 1`, `!!!b`, `1+1+...+1`, `a || b || ...` inside `if (...)`,
//! `r=1 /\ s=1 /\ ...` in a condition) build trees just as deep without one.
//! The parser itself is an LR automaton with its stack on the heap, so only
//! the passes after it (checking, desugaring, printing, dropping) recurse.

use super::ast::{Expr, ExprKind, File, Place, Prop, Stmt, StmtKind};
use super::diagnostic::Diagnostic;
use super::lexer::{self, Tok};
use super::span::Span;

/// How deep an expression, a condition or a statement may nest, counting
/// every operator and bracket on the way down.
pub const MAX_DEPTH: usize = 256;

/// How many tokens may stand between two of `;`, `,`, `{` and `}`: a bound on
/// the size of one expression or condition, so that even a tree the depth
/// guard refuses is small enough to drop (dropping recurses too).
pub const MAX_RUN: usize = 4096;

const HINT: &str = "litmus tests are small; split the expression into several assignments, \
or the condition into several conditions";

/// Refuses an expression or condition longer than `MAX_RUN` tokens, before parsing.
pub fn check_runs(src: &str) -> Result<(), Diagnostic> {
    let mut run = 0usize;
    for (start, tok, end) in lexer::tokens(src).flatten() {
        match tok {
            Tok::Semi | Tok::Comma | Tok::LBrace | Tok::RBrace => run = 0,
            _ => run += 1,
        }
        if run > MAX_RUN {
            return Err(Diagnostic::error(
                format!("an expression or condition is longer than {MAX_RUN} tokens"),
                Span::new(start, end),
            )
            .with_label("one token too many since the last `;`, `,`, `{` or `}`")
            .with_hint(HINT));
        }
    }
    Ok(())
}

/// One node still to visit; the stack holds it with its depth and the
/// nearest span at or above it.
enum Node<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
    Prop(&'a Prop),
}

/// Refuses a tree deeper than `MAX_DEPTH`, measured with an explicit stack.
pub fn check_depth(file: &File) -> Result<(), Diagnostic> {
    let mut stack: Vec<(Node, usize, Span)> = Vec::new();
    for t in &file.threads {
        stack.extend(t.body.iter().map(|s| (Node::Stmt(s), 1, s.span)));
    }
    for c in &file.conditions {
        stack.push((Node::Prop(&c.prop), 1, c.span));
    }
    while let Some((node, depth, near)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(too_deep(near));
        }
        let d = depth + 1;
        match node {
            Node::Stmt(s) => push_stmt(&mut stack, s, d),
            Node::Expr(e) => push_expr(&mut stack, e, d),
            Node::Prop(p) => push_prop(&mut stack, p, d, near),
        }
    }
    Ok(())
}

fn too_deep(at: Span) -> Diagnostic {
    Diagnostic::error(
        format!("operators and brackets nest more than {MAX_DEPTH} deep"),
        at,
    )
    .with_label("too deep")
    .with_hint(HINT)
}

type Stack<'a> = Vec<(Node<'a>, usize, Span)>;

fn push_stmt<'a>(stack: &mut Stack<'a>, s: &'a Stmt, d: usize) {
    let stmts = |stack: &mut Stack<'a>, body: &'a [Stmt]| {
        stack.extend(body.iter().map(|s| (Node::Stmt(s), d, s.span)));
    };
    match &s.kind {
        StmtKind::Skip | StmtKind::Fence { .. } | StmtKind::Barrier { .. } | StmtKind::Diverge => {}
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            stack.push((Node::Expr(cond), d, cond.span));
            stmts(stack, body);
        }
        StmtKind::Assign { lhs, rhs, .. } => {
            push_place(stack, lhs, d);
            stack.push((Node::Expr(rhs), d, rhs.span));
        }
        StmtKind::Rmw { rmw, .. } => {
            push_place(stack, &rmw.place, d);
            stack.extend(rmw.args.iter().map(|e| (Node::Expr(e), d, e.span)));
        }
        StmtKind::If { cond, then, els } => {
            stack.push((Node::Expr(cond), d, cond.span));
            stmts(stack, then);
            if let Some(els) = els {
                stmts(stack, els);
            }
        }
        StmtKind::Par(threads) => {
            for t in threads {
                stmts(stack, &t.body);
            }
        }
    }
}

fn push_place<'a>(stack: &mut Stack<'a>, place: &'a Place, d: usize) {
    if let Place::Computed(e) = place {
        stack.push((Node::Expr(e), d, e.span));
    }
}

fn push_expr<'a>(stack: &mut Stack<'a>, e: &'a Expr, d: usize) {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Name(..) | ExprKind::AddrOf(_) => {}
        ExprKind::Deref(a, _) | ExprKind::Unary(_, a) => stack.push((Node::Expr(a), d, a.span)),
        ExprKind::Binary(_, a, b) => {
            stack.push((Node::Expr(a), d, a.span));
            stack.push((Node::Expr(b), d, b.span));
        }
    }
}

fn push_prop<'a>(stack: &mut Stack<'a>, p: &'a Prop, d: usize, near: Span) {
    match p {
        Prop::True | Prop::False | Prop::Cmp(..) => {}
        Prop::Not(a) => stack.push((Node::Prop(a), d, prop_span(a, near))),
        Prop::And(a, b) | Prop::Or(a, b) => {
            stack.push((Node::Prop(a), d, prop_span(a, near)));
            stack.push((Node::Prop(b), d, prop_span(b, near)));
        }
    }
}

/// A comparison's own span; a connective is located at its condition.
fn prop_span(p: &Prop, near: Span) -> Span {
    match p {
        Prop::Cmp(_, _, _, s) => *s,
        _ => near,
    }
}
