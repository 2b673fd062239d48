//! pomset: a workbench for relaxed-memory semantics.
pub mod action;
pub mod cat;
pub mod cli;
pub mod compare;
pub mod distinguish;
pub mod engine;
pub mod export;
pub mod import;
pub mod logic;
pub mod memory;
pub mod model;
pub mod options_space;
pub mod outcome;
pub mod pomset;
pub mod refinement;
pub mod render;
pub mod repl;
pub mod report;
pub mod serve;
pub mod sweep;
pub mod syntax;
pub mod transform;
pub mod workbench;

/// What the unit tests share.
#[cfg(test)]
pub(crate) mod testing {
    /// Marsaglia's xorshift64: the next state of `state`, stored and
    /// returned; deterministic pseudo-random cases for the unit tests.
    pub fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }
}

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, dead_code)]
    grammar,
    "/litmus.rs"
);
