//! The guards that keep every recursive pass over a cat model within the
//! stack, after the litmus parser's (`syntax::depth`): a bound on the
//! tokens of one statement, checked before parsing, and a bound on the
//! depth of the parsed tree, measured right after parsing with an explicit
//! stack. The compiler bounds the depth of what it builds by inlining
//! functions (`MAX_IR_DEPTH`), and the evaluator computes a chain of `let`s
//! in order rather than by recursion, so neither the source's length nor
//! its `let` chains reach the stack.
//!
//! The parser's bracket guard counts only brackets and prefix `~`; operator
//! chains (`po | po | ...`, `po;po;...`, `po+++...`) are parsed by loops and
//! build trees just as deep without one.

use super::lexer::Tok;
use super::parse::{Expr, ExprKind, File, Stmt};
use crate::syntax::diagnostic::Diagnostic;
use crate::syntax::span::Span;

/// How deep one expression may nest, counting every operator, application
/// and bracket on the way down.
pub const MAX_DEPTH: usize = 256;

/// How many tokens one statement may have: every tree is smaller than its
/// tokens, so even one the depth guard refuses is small enough to drop
/// (dropping recurses too).
pub const MAX_RUN: usize = 4096;

/// How deep a compiled expression may nest once functions are inlined into
/// it (arguments stand in for parameters, so depths add up).
pub const MAX_IR_DEPTH: usize = 1024;

/// How many nodes a model may compile to, functions inlined: a body that
/// uses its parameter twice doubles its argument at each call.
pub const MAX_IR_NODES: usize = 1_000_000;

const HINT: &str = "name a part of the expression with `let` and use the name";

/// Refuses a statement longer than `MAX_RUN` tokens, before parsing.
pub fn check_runs(toks: &[(Tok, Span)]) -> Result<(), Diagnostic> {
    let mut run = 0usize;
    for (tok, span) in toks {
        match tok {
            Tok::Let
            | Tok::And
            | Tok::Include
            | Tok::Acyclic
            | Tok::Irreflexive
            | Tok::Empty
            | Tok::Show
            | Tok::With => run = 0,
            _ => run += 1,
        }
        if run > MAX_RUN {
            return Err(Diagnostic::error(
                format!("a statement is longer than {MAX_RUN} tokens"),
                *span,
            )
            .with_label("one token too many since the last `let`, `and` or check")
            .with_hint(HINT));
        }
    }
    Ok(())
}

/// Refuses an expression deeper than `MAX_DEPTH`, measured with an explicit stack.
pub fn check_depth(file: &File) -> Result<(), Diagnostic> {
    let mut stack: Vec<(&Expr, usize)> = Vec::new();
    for stmt in &file.stmts {
        match stmt {
            Stmt::Let { bindings, .. } => stack.extend(bindings.iter().map(|b| (&b.body, 1))),
            Stmt::Check { expr, .. } => stack.push((expr, 1)),
            Stmt::Show(items) => stack.extend(items.iter().map(|(e, _)| (e, 1))),
            Stmt::With { set, order, .. } => stack.extend([(set, 1), (order, 1)]),
            Stmt::Include { .. } | Stmt::Meaning { .. } => {}
        }
    }
    while let Some((e, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(too_deep(
                e.span,
                format!("operators and brackets nest more than {MAX_DEPTH} deep"),
            ));
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Empty => {}
            ExprKind::Union(a, b)
            | ExprKind::Inter(a, b)
            | ExprKind::Diff(a, b)
            | ExprKind::Seq(a, b)
            | ExprKind::Product(a, b) => stack.extend([(&**a, d), (&**b, d)]),
            ExprKind::Inverse(a)
            | ExprKind::Plus(a)
            | ExprKind::Star(a)
            | ExprKind::Opt(a)
            | ExprKind::Complement(a)
            | ExprKind::Bracket(a) => stack.push((a, d)),
            ExprKind::App(_, args) => stack.extend(args.iter().map(|a| (a, d))),
        }
    }
    Ok(())
}

/// The error for a tree too deep, at `at`.
pub fn too_deep(at: Span, message: String) -> Diagnostic {
    Diagnostic::error(message, at)
        .with_label("too deep")
        .with_hint(HINT)
}
