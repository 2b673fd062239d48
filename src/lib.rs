//! pomset: a workbench for relaxed-memory semantics.
pub mod logic;
