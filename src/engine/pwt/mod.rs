//! The pomset engine: the denotation (Fig. 1) from the core program to
//! pomsets with predicate transformers, one function per construct in
//! `construct.rs`; the candidate conditions and rf search in `check`;
//! completeness and outcomes in `decide.rs`.

pub mod candidates;
pub mod check;
pub mod construct;
pub mod decide;
pub mod explain;
pub mod expr;
pub mod gap;
pub mod goal;
pub mod if_closure;
pub mod tau;
