//! The integration tests, in one binary: a module per file, as rust-analyzer
//! and cargo lay theirs out. One binary links the crate once, where one binary
//! per file linked it forty times. Run one file's tests with
//! `cargo test --test it NAME::` (for example `cargo test --test it repl::`).
//!
//! Shared helpers: `gen` (random programs for the oracles), `families` (the
//! scaling families), `cdp` (the Chrome DevTools client of the browser test), `interrupt`
//! (Ctrl-C on a long sweep).
//! Tests run in one process, so none may change process-wide state (the
//! working directory, the environment): cargo starts the binary in the
//! repository, and paths are taken from `CARGO_MANIFEST_DIR`.

mod axiomatic;
mod axiomatic_random;
mod book;
mod candidates;
mod cat_diagnostics;
mod cat_pruning;
mod cdp;
mod cli;
mod diagnostics;
mod differential;
mod distinguish;
mod draw;
mod examples;
mod explain_agreement;
mod factored;
mod families;
mod foreign;
mod gen;
mod gpu_answers;
mod hygiene;
mod interrupt;
mod invariance;
mod json_schema;
mod layering;
mod limits_named;
mod logic_laws;
mod logic_props;
mod models;
mod options_space;
mod reference;
mod refine_oracles;
mod refinement;
mod regressions;
mod regressions_syntax;
mod repl;
mod robustness;
mod roundtrip;
mod sc_inclusion;
mod semantics;
mod serve_api;
mod serve_browser;
mod session;
mod settled;
mod spin;
mod symmetry;
mod transformations;
mod usage_errors;
mod values;
mod verdict_only;
mod vulkan;
