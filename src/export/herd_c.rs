//! `pomset export --to herd-c`: a core program as a herd7 C litmus test, so
//! the same test can run under herd7's C11 models. Written from the core
//! program, so every access has its mode. What herd7's C cannot say is
//! refused with the reason: nested threads, computed addresses, scopes
//! other than sys, RMW mode pairs C has no order for, loops' cuts (herd7
//! unrolls its own loops), several conditions, `init = none`.

use std::fmt::Write;

use crate::model::Init;
use crate::syntax::ast::{BinOp, CmpOp, Mode, Quantifier, RmwOp, Scope, UnOp};
use crate::syntax::core::{Expr, Loc, Program, Prop, RegId, Stmt, Term, ThreadId};

/// How the exported comment opens; V's values follow, comma-separated.
pub const VALUES_NOTE: &str = "exported by pomset; pomset's V is ";

/// The test in herd7's C format, or why it cannot be written.
pub fn export(p: &Program) -> Result<String, String> {
    if p.model.init == Init::None {
        return Err("`init = none`: herd7 always initialises every location".to_string());
    }
    if p.conditions.len() > 1 {
        return Err(format!(
            "{} conditions: a herd7 test has one (split the file)",
            p.conditions.len()
        ));
    }
    if let Some(l) = p.locs.iter().find(|l| l.address.is_some()) {
        return Err(format!(
            "`{}` has an address: herd7's C tests here take no pointer arithmetic",
            l.name
        ));
    }
    if !p.values_left.is_empty() {
        return Err(format!(
            "V is declared, and {}: herd7 has no V and would count the executions pomset drops (widen `values`, or drop it)",
            p.values_left.join(", ")
        ));
    }
    let mut out = String::new();
    let _ = writeln!(out, "C {}", p.name);
    let values: Vec<String> = p.values.iter().map(i64::to_string).collect();
    // V is closed (no execution leaves it), so herd7, which has no V, counts
    // the same executions; the importer reads V back from this comment.
    let mut notes = vec![format!("{VALUES_NOTE}{}", values.join(", "))];
    notes.extend(
        p.model
            .non_defaults()
            .into_iter()
            .map(|m| format!("pomset model option {m}")),
    );
    if let Some(c) = &p.comment {
        notes.push(c.replace("*)", "* )"));
    }
    // herd7 finds the initial state as the first `{` of the file, comment or
    // not, so the comment carries no brace (found running herd7 7.58 on it).
    let comment = notes.join("; ").replace('{', "(").replace('}', ")");
    let _ = writeln!(out, "(* {comment} *)");
    let inits: Vec<String> = p
        .locs
        .iter()
        .map(|l| format!("{} = {};", l.name, l.init))
        .collect();
    let _ = writeln!(out, "{{ {} }}\n", inits.join(" "));
    let params: Vec<String> = p
        .locs
        .iter()
        .map(|l| format!("atomic_int* {}", l.name))
        .collect();
    for (i, (t, body)) in p.main.iter().enumerate() {
        let _ = writeln!(out, "P{i} ({}) {{", params.join(", "));
        let w = Writer { p, thread: *t };
        for r in w.registers() {
            let _ = writeln!(out, "  int {r} = 0;");
        }
        w.stmt(body, 1, &mut out)?;
        let _ = writeln!(out, "}}\n");
    }
    let w = Writer { p, thread: 0 };
    if let Some(f) = &p.filter {
        let _ = writeln!(out, "filter ({})", w.prop(f)?);
    }
    if let Some(c) = p.conditions.first() {
        let q = match c.quantifier {
            Quantifier::Exists | Quantifier::Allow => "exists",
            Quantifier::NotExists | Quantifier::Forbid => "~exists",
            Quantifier::Forall => "forall",
        };
        let _ = writeln!(out, "{q} ({})", w.prop(&c.prop)?);
    }
    Ok(out)
}

struct Writer<'a> {
    p: &'a Program,
    thread: ThreadId,
}

fn order(m: Mode) -> &'static str {
    match m {
        Mode::Wk | Mode::Rlx => "memory_order_relaxed",
        Mode::Acq => "memory_order_acquire",
        Mode::Rel => "memory_order_release",
        Mode::Ra => "memory_order_acq_rel",
        Mode::Sc => "memory_order_seq_cst",
    }
}

impl Writer<'_> {
    fn registers(&self) -> Vec<&str> {
        self.p
            .regs
            .iter()
            .filter(|r| r.thread == self.thread)
            .map(|r| r.name.as_str())
            .collect()
    }

    fn reg(&self, r: RegId) -> &str {
        self.p.reg_name(r)
    }

    fn loc(&self, l: &Loc) -> Result<String, String> {
        match l {
            Loc::Named(x) => Ok(self.p.loc_name(*x).to_string()),
            Loc::Computed(_) => Err(
                "a computed address `[L]`: herd7's C tests here take no pointer arithmetic"
                    .to_string(),
            ),
        }
    }

    fn scope(&self, s: Scope) -> Result<(), String> {
        match s {
            Scope::Sys => Ok(()),
            other => Err(format!(
                "an access scoped `{}`: herd7's C11 accesses have no scope",
                other.as_str()
            )),
        }
    }

    fn stmt(&self, s: &Stmt, depth: usize, out: &mut String) -> Result<(), String> {
        let pad = "  ".repeat(depth);
        match s {
            Stmt::Vulkan { .. } | Stmt::Barrier { .. } => {
                return Err(format!(
                    "{} is defined by the Vulkan model only; herd7's C has no such construct",
                    s.vulkan_only().map_or("a Vulkan construct", |v| v.1)
                ))
            }
            Stmt::Skip => {}
            Stmt::Seq(parts) => {
                for part in parts {
                    self.stmt(part, depth, out)?;
                }
            }
            Stmt::Let { reg, expr } => {
                let _ = writeln!(out, "{pad}{} = {};", self.reg(*reg), self.expr(expr));
            }
            Stmt::Read { reg, loc, mode, scope } => {
                self.scope(*scope)?;
                let x = self.loc(loc)?;
                let rhs = match mode {
                    Mode::Wk => format!("*{x}"),
                    m => format!("atomic_load_explicit({x}, {})", order(*m)),
                };
                let _ = writeln!(out, "{pad}{} = {rhs};", self.reg(*reg));
            }
            Stmt::Write { loc, expr, mode, scope } => {
                self.scope(*scope)?;
                let x = self.loc(loc)?;
                let v = self.expr(expr);
                let _ = match mode {
                    Mode::Wk => writeln!(out, "{pad}*{x} = {v};"),
                    m => writeln!(out, "{pad}atomic_store_explicit({x}, {v}, {});", order(*m)),
                };
            }
            Stmt::Fence { mode, scope } => {
                self.scope(*scope)?;
                let _ = writeln!(out, "{pad}atomic_thread_fence({});", order(*mode));
            }
            Stmt::Rmw { reg, op, read_mode, write_mode, scope, loc, args } => {
                self.scope(*scope)?;
                let x = self.loc(loc)?;
                let mo = rmw_order(*read_mode, *write_mode)?;
                let r = self.reg(*reg);
                let arg = |i: usize| args.get(i).map_or("0".to_string(), |a| self.expr(a));
                let _ = match op {
                    RmwOp::Fadd => writeln!(out, "{pad}{r} = atomic_fetch_add_explicit({x}, {}, {mo});", arg(0)),
                    RmwOp::Exchg => writeln!(out, "{pad}{r} = atomic_exchange_explicit({x}, {}, {mo});", arg(0)),
                    // C's CAS leaves the value read in `r` either way.
                    RmwOp::Cas => writeln!(
                        out,
                        "{pad}{r} = {};\n{pad}atomic_compare_exchange_strong_explicit({x}, &{r}, {}, {mo}, {});",
                        arg(0),
                        arg(1),
                        order(*read_mode)
                    ),
                };
            }
            // herd7's C parser takes no empty block: an empty branch is
            // left out (the other one's condition negated), and an IF with
            // two empty branches has nothing for herd7 to run.
            Stmt::If { cond, then, els } => match (is_empty(then), is_empty(els)) {
                (true, true) => {}
                (false, true) => {
                    let _ = writeln!(out, "{pad}if ({}) {{", self.expr(cond));
                    self.stmt(then, depth + 1, out)?;
                    let _ = writeln!(out, "{pad}}}");
                }
                (true, false) => {
                    let _ = writeln!(out, "{pad}if (!({})) {{", self.expr(cond));
                    self.stmt(els, depth + 1, out)?;
                    let _ = writeln!(out, "{pad}}}");
                }
                (false, false) => {
                    let _ = writeln!(out, "{pad}if ({}) {{", self.expr(cond));
                    self.stmt(then, depth + 1, out)?;
                    let _ = writeln!(out, "{pad}}} else {{");
                    self.stmt(els, depth + 1, out)?;
                    let _ = writeln!(out, "{pad}}}");
                }
            },
            Stmt::Par { .. } => {
                return Err("a thread forked inside a thread: herd7's threads are all top-level".to_string())
            }
            Stmt::Diverge { .. } => {
                return Err("a loop's bound (`diverge`): herd7 unrolls loops its own way; export the test without loops".to_string())
            }
        }
        Ok(())
    }

    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Int(n) => n.to_string(),
            Expr::Reg(r) => self.reg(*r).to_string(),
            Expr::Unary(UnOp::Neg, a) => format!("-({})", self.expr(a)),
            Expr::Unary(UnOp::Not, a) => format!("!({})", self.expr(a)),
            Expr::Binary(op, a, b) => {
                let sym = match op {
                    BinOp::Eq => "==",
                    BinOp::And => "&&",
                    BinOp::Or => "||",
                    other => other.as_str(),
                };
                format!("({} {sym} {})", self.expr(a), self.expr(b))
            }
        }
    }

    fn prop(&self, p: &Prop) -> Result<String, String> {
        Ok(match p {
            Prop::True => "true".to_string(),
            Prop::False => "false".to_string(),
            Prop::Not(a) => format!("~({})", self.prop(a)?),
            Prop::And(a, b) => format!("({} /\\ {})", self.prop(a)?, self.prop(b)?),
            Prop::Or(a, b) => format!("({} \\/ {})", self.prop(a)?, self.prop(b)?),
            Prop::Cmp(a, op, b) => {
                if *op != CmpOp::Eq && *op != CmpOp::Ne {
                    return Err(format!(
                        "`{}` in a condition: herd7's conditions compare with = and !=",
                        op.as_str()
                    ));
                }
                if !matches!(a, Term::Int(_)) && !matches!(b, Term::Int(_)) {
                    return Err(
                        "a condition comparing two registers or locations: herd7's conditions compare one with a constant".to_string(),
                    );
                }
                format!("{} {} {}", self.term(a)?, op.as_str(), self.term(b)?)
            }
        })
    }

    fn term(&self, t: &Term) -> Result<String, String> {
        Ok(match t {
            Term::Int(n) => n.to_string(),
            Term::Mem(l) => self.p.loc_name(*l).to_string(),
            Term::Reg(r) => {
                let info = &self.p.regs[*r as usize];
                let index = self
                    .p
                    .main
                    .iter()
                    .position(|(t, _)| *t == info.thread)
                    .ok_or_else(|| "a register of a forked thread in a condition".to_string())?;
                format!("{index}:{}", info.name)
            }
        })
    }
}

/// Whether a statement does nothing herd7 would see written out.
fn is_empty(s: &Stmt) -> bool {
    match s {
        Stmt::Skip => true,
        Stmt::Seq(parts) => parts.iter().all(is_empty),
        _ => false,
    }
}

/// The one C order for an RMW's (read, write) modes.
fn rmw_order(r: Mode, w: Mode) -> Result<&'static str, String> {
    Ok(match (r, w) {
        (Mode::Rlx, Mode::Rlx) => "memory_order_relaxed",
        (Mode::Acq, Mode::Rlx) => "memory_order_acquire",
        (Mode::Rlx, Mode::Rel) => "memory_order_release",
        (Mode::Acq, Mode::Rel) => "memory_order_acq_rel",
        (Mode::Sc, Mode::Sc) => "memory_order_seq_cst",
        _ => {
            return Err(format!(
                "an RMW with modes ({}, {}): C has no memory order for that pair",
                r.as_str(),
                w.as_str()
            ))
        }
    })
}
