//! Text to syntax: the lexer, the grammar glue, the surface tree, the
//! desugared core, the checks between them, and the formatter.
//!
//! ```
//! let test = pomset::syntax::parse(
//!     "litmus MP\nx := 1; y.rel := 1;\n|| r := y.acq; s := x;\nforbid (r = 1 /\\ s = 0)\n",
//! ).expect("a well-formed test");
//! assert_eq!(test.program.threads.len(), 2);
//! ```

pub mod ast;
pub(crate) mod build;
pub mod check;
pub mod core;
pub mod depth;
pub mod diagnostic;
pub mod lexer;
pub mod parse;
pub mod print;
mod range;
pub mod span;
pub mod spin;
pub mod values;

pub use diagnostic::{Diagnostic, Diagnostics, Severity};
pub use parse::parse_file;
pub use span::{Ident, Span};

/// A litmus test, checked: the tree as written, the core program that feeds
/// the semantics, and any warnings.
#[derive(Clone, Debug)]
pub struct Litmus {
    pub source: ast::File,
    pub program: core::Program,
    pub warnings: Diagnostics,
}

/// Parses and checks a litmus file.
pub fn parse(src: &str) -> Result<Litmus, Diagnostics> {
    parse_with(src, check::Options::default())
}

/// `parse` with the checker's options (`--unroll`).
pub fn parse_with(src: &str, opts: check::Options) -> Result<Litmus, Diagnostics> {
    let source = parse_file(src)?;
    let (program, warnings) = check::check_with(&source, opts)?;
    Ok(Litmus {
        source,
        program,
        warnings,
    })
}

/// The canonical form of a litmus file. Comments before `litmus NAME` are
/// kept; a comment anywhere else is refused rather than silently dropped.
pub fn format(src: &str) -> Result<String, Diagnostics> {
    let file = parse_file(src)?;
    let leading = src[..file.name.span.start].trim_end();
    if let Some(span) = interior_comment(src, file.name.span.start) {
        let d = Diagnostic::error("the formatter would drop this comment", span)
            .with_label("comment inside the test")
            .with_hint("move comments above `litmus NAME`, or into its quoted description");
        return Err(d.into());
    }
    let body = print::file(&file);
    Ok(if leading.is_empty() {
        body
    } else {
        format!("{leading}\n{body}")
    })
}

/// The first comment after `from`: the lexer skips only white space and comments,
/// so any non-blank text between two tokens is one.
fn interior_comment(src: &str, from: usize) -> Option<Span> {
    let mut prev_end = from;
    for tok in lexer::tokens(src) {
        let (start, end) = match tok {
            Ok((s, _, e)) => (s, e),
            Err(_) => return None,
        };
        if start > prev_end && !src[prev_end..start].trim().is_empty() {
            let gap = &src[prev_end..start];
            let offset = gap.len() - gap.trim_start().len();
            return Some(Span::new(prev_end + offset, start));
        }
        prev_end = prev_end.max(end);
    }
    let tail = &src[prev_end..];
    (!tail.trim().is_empty())
        .then(|| Span::new(prev_end + (tail.len() - tail.trim_start().len()), src.len()))
}
