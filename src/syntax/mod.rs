//! Text to syntax: the lexer, the grammar glue, the surface tree, the
//! desugared core, the checks between them, and the formatter.

pub mod ast;
pub(crate) mod build;
pub mod check;
pub mod core;
pub mod diagnostic;
pub mod lexer;
pub mod parse;
pub mod span;

pub use diagnostic::{Diagnostic, Diagnostics, Severity};
pub use parse::parse_file;
pub use span::{Ident, Span};
