//! The denotation (Fig. 1): from the core program to pomsets with predicate
//! transformers. One function per construct lives in `construct.rs`.

pub mod expr;
