//! The denotation (Fig. 1): from the core program to pomsets with predicate
//! transformers. One function per construct lives in `construct.rs`.

pub mod candidates;
pub mod construct;
pub mod decide;
pub mod explain;
pub mod expr;
pub mod gap;
pub mod goal;
pub mod if_closure;
pub mod symmetry;
pub mod tau;
pub mod verdict;
