//! pomset: a workbench for relaxed-memory semantics.
pub mod action;
pub mod axiomatic;
pub mod cat;
pub mod check;
pub mod cli;
pub mod compare;
pub mod export;
pub mod import;
pub mod interleaving;
pub mod logic;
pub mod memory;
pub mod model;
pub mod pomset;
pub mod reference;
pub mod refinement;
pub mod render;
pub mod repl;
pub mod report;
pub mod semantics;
pub mod serve;
pub mod syntax;
pub mod workbench;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, dead_code)]
    grammar,
    "/litmus.rs"
);
