//! herd7's final part, shared by the herd C and PTX readers:
//! `locations [x; 1:r0;]`, `filter P`, then `exists P`, `~exists P`
//! (also `not exists`) or `forall P`, with `/\`, `\/`, `~` and comparisons
//! of `1:r0`, `P1:r0`, `x`, `[x]` and integers.

use super::make;
use super::text::{Cursor, Kind, Read, Token};
use crate::syntax::ast::{CmpOp, CondTerm, File, Prop, Quantifier};

/// Reads the final part into `file`; `is_loc` tells locations from registers.
pub fn read_tail(c: &mut Cursor, file: &mut File, is_loc: &dyn Fn(&str) -> bool) -> Read<()> {
    if c.eat_word("locations") {
        c.punct("[")?;
        while !c.eat_punct("]") {
            let t = term(c, is_loc)?;
            file.show.push(t);
            c.eat_punct(";");
        }
    }
    if c.is_word("filter") {
        let start = c.here();
        c.bump();
        let p = prop(c, is_loc)?;
        file.filter = Some((p, start.to(c.here())));
    }
    while !c.at_end() {
        let start = c.here();
        let q = quantifier(c)?;
        let p = prop(c, is_loc)?;
        c.eat_punct(";");
        file.conditions.push(make::condition(q, p, start));
    }
    Ok(())
}

fn quantifier(c: &mut Cursor) -> Read<Quantifier> {
    if c.eat_word("exists") {
        return Ok(Quantifier::Exists);
    }
    if c.eat_word("forall") {
        return Ok(Quantifier::Forall);
    }
    if c.is_word("final") {
        return Err(super::text::refuse(
            "`final ... with`",
            c.here(),
            "Dat3M's per-model expectation lists have no counterpart; write one `exists` condition",
        ));
    }
    if c.eat_punct("~") || c.eat_word("not") {
        c.word("exists")?;
        return Ok(Quantifier::NotExists);
    }
    Err(c.expected("`exists`, `~exists` or `forall`"))
}

/// `P \/ Q` binds loosest, then `/\`, then `~`.
pub fn prop(c: &mut Cursor, is_loc: &dyn Fn(&str) -> bool) -> Read<Prop> {
    let mut a = conj(c, is_loc)?;
    while c.eat_punct("\\/") || c.eat_punct("||") {
        let b = conj(c, is_loc)?;
        a = Prop::Or(Box::new(a), Box::new(b));
    }
    Ok(a)
}

fn conj(c: &mut Cursor, is_loc: &dyn Fn(&str) -> bool) -> Read<Prop> {
    let mut a = negation(c, is_loc)?;
    while c.eat_punct("/\\") || c.eat_punct("&&") {
        let b = negation(c, is_loc)?;
        a = Prop::And(Box::new(a), Box::new(b));
    }
    Ok(a)
}

fn negation(c: &mut Cursor, is_loc: &dyn Fn(&str) -> bool) -> Read<Prop> {
    if c.eat_punct("~") || c.eat_punct("!") || c.eat_word("not") {
        return Ok(Prop::Not(Box::new(negation(c, is_loc)?)));
    }
    if c.eat_word("true") {
        return Ok(Prop::True);
    }
    if c.eat_word("false") {
        return Ok(Prop::False);
    }
    if c.eat_punct("(") {
        let p = prop(c, is_loc)?;
        c.punct(")")?;
        return Ok(p);
    }
    let start = c.here();
    let a = term(c, is_loc)?;
    let op = cmp(c)?;
    let b = term(c, is_loc)?;
    Ok(Prop::Cmp(a, op, b, start.to(c.here())))
}

fn cmp(c: &mut Cursor) -> Read<CmpOp> {
    for (p, op) in [
        ("==", CmpOp::Eq),
        ("=", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        ("<=", CmpOp::Le),
        (">=", CmpOp::Ge),
        ("<", CmpOp::Lt),
        (">", CmpOp::Gt),
    ] {
        if c.eat_punct(p) {
            return Ok(op);
        }
    }
    Err(c.expected("a comparison such as `=`"))
}

/// `1:r0`, `P1:r0`, `x`, `[x]`, `x[1]` (refused) or an integer.
pub fn term(c: &mut Cursor, is_loc: &dyn Fn(&str) -> bool) -> Read<CondTerm> {
    let tok = c.peek().cloned();
    match tok.map(|t| (t.kind, t.span)) {
        Some((Kind::Int(n), span)) if c.peek_at(1).is_some_and(is_colon) => {
            c.bump();
            c.bump();
            let (r, rs) = c.ident("a register")?;
            Ok(CondTerm::Reg {
                thread: Some(make::id(&format!("P{n}"), span)),
                reg: make::id(&r, rs),
            })
        }
        Some((Kind::Int(_), _)) | Some((Kind::Punct("-"), _)) => {
            let (n, span) = c.int("a value")?;
            Ok(CondTerm::Int(n, span))
        }
        Some((Kind::Punct("["), _)) => {
            c.bump();
            let (x, span) = c.ident("a location")?;
            c.punct("]")?;
            Ok(CondTerm::Mem(make::id(&x, span)))
        }
        Some((Kind::Ident(name), span)) => {
            c.bump();
            if c.eat_punct(":") {
                let (r, rs) = c.ident("a register")?;
                return Ok(CondTerm::Reg {
                    thread: Some(make::id(&name, span)),
                    reg: make::id(&r, rs),
                });
            }
            if c.is_punct("[") {
                return Err(super::text::refuse(
                    "an array element",
                    c.here(),
                    "pomset's locations hold one value each; there are no arrays",
                ));
            }
            if is_loc(&name) {
                Ok(CondTerm::Mem(make::id(&name, span)))
            } else {
                Ok(CondTerm::Reg {
                    thread: None,
                    reg: make::id(&name, span),
                })
            }
        }
        _ => Err(c.expected("a register, a location or a value")),
    }
}

fn is_colon(t: &Token) -> bool {
    t.kind == Kind::Punct(":")
}
