//! Formulae over a finite value set, and their SAT-backed decision procedures (issue 3).
//!
//! The semantics (§1.3-§1.5) builds preconditions and predicate transformers out
//! of formulae and asks, millions of times, whether one is a tautology, is
//! satisfiable, or entails another. This layer answers exactly, over the value
//! set V of the litmus test.
//!
//! ```
//! use pomset::logic::{Logic, Var, Notation, DefaultNames};
//!
//! let mut l = Logic::new(&[0, 1]);
//! let r = l.reg(0);
//! let (zero, one) = (l.value(0), l.value(1));
//! let (a, b) = (l.eq(r, zero), l.eq(r, one));
//! let f = l.or(a, b);
//! assert!(l.tautology(f)); // r ranges over V = {0, 1}
//! // A read's transformer (§1.4): (v = s_e ∨ x = s_e) ⇒ ψ[s_e/r].
//! let s = l.read(0);
//! let psi = l.subst_var(b, Var::Reg(0), s);
//! assert_eq!(l.display(psi, Notation::Unicode, &DefaultNames).to_string(), "s0=1");
//! ```
//!
//! Module map: `formula` (the arena, ids, smart constructors), `subst`
//! (memoised substitution), `sat` (the varisat encoding), `decide` (fast paths,
//! cache, stats), `eval` (evaluation and brute force), `print` (three notations).

mod decide;
mod eval;
mod formula;
mod print;
mod sat;
mod subst;

pub use decide::{Stats, DEFAULT_ENUMERATION_LIMIT};
pub use eval::{Assignment, Support, Valuation};
pub(crate) use formula::FxMap;
pub use formula::{Addr, Cmp, Formula, FormulaId, Logic, Term, TermId, Var};
pub use print::{DefaultNames, Display, Names, Notation};
pub use subst::{Subst, SubstId};
