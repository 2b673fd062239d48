//! Printers for formulae in three notations, with minimal parentheses.
//!
//! §1.1: equations bind tighter than the logical operators and `⇒` associates to
//! the right, so `r=v ⇒ s>w ⇒ φ` reads `(r=v) ⇒ ((s>w) ⇒ φ)`; `∧` and `∨` are
//! printed left-associated, `∧` tighter than `∨`.

use std::fmt::{self, Write};

use super::formula::{Addr, Cmp, Formula, FormulaId, Logic, Term, TermId};

/// Which notation to print in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Notation {
    /// `r = 1 => s = 0`, for terminals and files.
    Ascii,
    /// `r=1 ⇒ s=0`, the note's own style.
    Unicode,
    /// `r = 1 \Rightarrow s = 0`, for the TikZ output.
    Latex,
}

/// Names of registers, read registers and locations, as the front end knows them.
pub trait Names {
    fn reg(&self, r: u32) -> String;
    fn read(&self, e: u32) -> String;
    fn loc(&self, addr: Addr) -> String;
}

/// `r0, r1, …` for registers, `s0, …` for read registers `s_e`, `x0, …` for
/// locations (`[-1]` for a negative address).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultNames;

impl Names for DefaultNames {
    fn reg(&self, r: u32) -> String {
        format!("r{r}")
    }
    fn read(&self, e: u32) -> String {
        format!("s{e}")
    }
    fn loc(&self, addr: Addr) -> String {
        if addr >= 0 {
            format!("x{addr}")
        } else {
            format!("[{addr}]")
        }
    }
}

/// A formula ready to print; see [`Logic::display`].
pub struct Display<'a> {
    logic: &'a Logic,
    root: Root,
    notation: Notation,
    names: &'a dyn Names,
}

enum Root {
    Formula(FormulaId),
    Term(TermId),
}

// Binding strengths: a child printed where a tighter one is needed gets parentheses.
const IMPLIES: u8 = 1;
const OR: u8 = 2;
const AND: u8 = 3;
const NOT: u8 = 4;
const ATOM: u8 = 5;
const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const NEG: u8 = 3;

impl Logic {
    /// `f` printed in `notation`, naming variables by `names`.
    pub fn display<'a>(
        &'a self,
        f: FormulaId,
        notation: Notation,
        names: &'a dyn Names,
    ) -> Display<'a> {
        Display {
            logic: self,
            root: Root::Formula(f),
            notation,
            names,
        }
    }

    /// `t` printed in `notation`.
    pub fn display_term<'a>(
        &'a self,
        t: TermId,
        notation: Notation,
        names: &'a dyn Names,
    ) -> Display<'a> {
        Display {
            logic: self,
            root: Root::Term(t),
            notation,
            names,
        }
    }
}

impl fmt::Display for Display<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.root {
            Root::Formula(f) => self.formula(out, f, 0),
            Root::Term(t) => self.term(out, t, 0),
        }
    }
}

impl Display<'_> {
    fn name(&self, out: &mut fmt::Formatter<'_>, name: String) -> fmt::Result {
        if self.notation != Notation::Latex {
            return out.write_str(&name);
        }
        // LaTeX: a trailing run of digits becomes a subscript, `r1` → `r_{1}`.
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        if stem.is_empty() || stem.len() == name.len() {
            return out.write_str(&name);
        }
        write!(out, "{}_{{{}}}", stem, &name[stem.len()..])
    }

    fn open(&self, out: &mut fmt::Formatter<'_>, paren: bool) -> fmt::Result {
        if paren {
            out.write_char('(')?;
        }
        Ok(())
    }

    fn close(&self, out: &mut fmt::Formatter<'_>, paren: bool) -> fmt::Result {
        if paren {
            out.write_char(')')?;
        }
        Ok(())
    }

    fn symbol(
        &self,
        ascii: &'static str,
        unicode: &'static str,
        latex: &'static str,
    ) -> &'static str {
        match self.notation {
            Notation::Ascii => ascii,
            Notation::Unicode => unicode,
            Notation::Latex => latex,
        }
    }

    fn formula(&self, out: &mut fmt::Formatter<'_>, f: FormulaId, need: u8) -> fmt::Result {
        let (op, prec, l, r, lneed, rneed) = match self.logic.formula(f) {
            Formula::True => return out.write_str(self.symbol("tt", "tt", "\\mathsf{tt}")),
            Formula::False => return out.write_str(self.symbol("ff", "ff", "\\mathsf{ff}")),
            Formula::Quiescent(a) => {
                out.write_str("Q_")?;
                let name = self.names.loc(a);
                if self.notation == Notation::Latex {
                    out.write_char('{')?;
                    self.name(out, name)?;
                    return out.write_char('}');
                }
                return out.write_str(&name);
            }
            Formula::Cmp(op, a, b) => {
                let paren = need > ATOM;
                self.open(out, paren)?;
                self.term(out, a, SUM)?;
                out.write_str(self.cmp_symbol(op))?;
                self.term(out, b, SUM)?;
                return self.close(out, paren);
            }
            Formula::Not(g) => {
                let paren = need > NOT;
                self.open(out, paren)?;
                out.write_str(self.symbol("!", "¬", "\\neg "))?;
                self.formula(out, g, NOT)?;
                return self.close(out, paren);
            }
            Formula::And(g, h) => (
                self.symbol(" && ", " ∧ ", " \\land "),
                AND,
                g,
                h,
                AND,
                AND + 1,
            ),
            Formula::Or(g, h) => (self.symbol(" || ", " ∨ ", " \\lor "), OR, g, h, OR, OR + 1),
            Formula::Implies(g, h) => (
                self.symbol(" => ", " ⇒ ", " \\Rightarrow "),
                IMPLIES,
                g,
                h,
                IMPLIES + 1,
                IMPLIES,
            ),
        };
        let paren = need > prec;
        self.open(out, paren)?;
        self.formula(out, l, lneed)?;
        out.write_str(op)?;
        self.formula(out, r, rneed)?;
        self.close(out, paren)
    }

    fn cmp_symbol(&self, op: Cmp) -> &'static str {
        match op {
            Cmp::Eq => self.symbol(" = ", "=", " = "),
            Cmp::Ne => self.symbol(" != ", "≠", " \\neq "),
            Cmp::Lt => self.symbol(" < ", "<", " < "),
            Cmp::Le => self.symbol(" <= ", "≤", " \\leq "),
        }
    }

    fn term(&self, out: &mut fmt::Formatter<'_>, t: TermId, need: u8) -> fmt::Result {
        let plus = self.symbol(" + ", "+", " + ");
        let minus = self.symbol(" - ", "-", " - ");
        match self.logic.term(t) {
            Term::Value(v) => {
                let paren = v < 0 && need > NEG;
                self.open(out, paren)?;
                write!(out, "{v}")?;
                self.close(out, paren)
            }
            Term::Var(super::Var::Reg(r)) => self.name(out, self.names.reg(r)),
            Term::Var(super::Var::Read(e)) => self.name(out, self.names.read(e)),
            Term::Var(super::Var::Loc(a)) => self.name(out, self.names.loc(a)),
            Term::Add(a, b) | Term::Sub(a, b) => {
                let op = if matches!(self.logic.term(t), Term::Add(..)) {
                    plus
                } else {
                    minus
                };
                let paren = need > SUM;
                self.open(out, paren)?;
                self.term(out, a, SUM)?;
                out.write_str(op)?;
                self.term(out, b, SUM + 1)?;
                self.close(out, paren)
            }
            Term::Mul(a, b) => {
                let paren = need > PRODUCT;
                self.open(out, paren)?;
                self.term(out, a, PRODUCT)?;
                out.write_str(self.symbol(" * ", "·", " \\cdot "))?;
                self.term(out, b, PRODUCT + 1)?;
                self.close(out, paren)
            }
            Term::Neg(a) => {
                let paren = need > NEG;
                self.open(out, paren)?;
                out.write_char('-')?;
                self.term(out, a, NEG + 1)?;
                self.close(out, paren)
            }
            Term::Mem(l) => {
                out.write_char('[')?;
                self.term(out, l, 0)?;
                out.write_char(']')
            }
            Term::IfEq {
                lhs,
                rhs,
                then,
                els,
            } => {
                out.write_char('(')?;
                self.term(out, lhs, SUM)?;
                out.write_str(self.cmp_symbol(Cmp::Eq))?;
                self.term(out, rhs, SUM)?;
                out.write_str(self.symbol(" ? ", " ? ", " \\mathrel{?} "))?;
                self.term(out, then, SUM)?;
                out.write_str(" : ")?;
                self.term(out, els, SUM)?;
                out.write_char(')')
            }
        }
    }
}
