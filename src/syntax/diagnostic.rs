//! Diagnostics in the style of rustc: `file:line:col`, the source line, a caret
//! under the offending text, and a short hint. Rendering is codespan-reporting's.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};

use super::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// One message about one place in a litmus file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Printed under the caret.
    pub label: String,
    /// A short way to fix it.
    pub hint: Option<String>,
    /// Secondary places, such as an earlier definition.
    pub also: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            hint: None,
            also: Vec::new(),
        }
    }

    pub fn warning(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message, span)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_also(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.also.push((span, label.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    fn to_codespan(&self) -> CsDiagnostic<()> {
        let severity = match self.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
        };
        let mut labels = vec![Label::primary((), self.span.range()).with_message(&self.label)];
        for (span, label) in &self.also {
            labels.push(Label::secondary((), span.range()).with_message(label));
        }
        let notes = self.hint.iter().map(|h| format!("hint: {h}")).collect();
        CsDiagnostic::new(severity)
            .with_message(&self.message)
            .with_labels(labels)
            .with_notes(notes)
    }
}

/// All the messages about one file, errors and warnings alike.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics moved into a piece of the text, `len` bytes from
    /// `at` (a condition typed on the command line or at the prompt, parsed
    /// inside a file), if every span lies there. A span may start just past
    /// the piece (an operand missing at its end); it is then shown at its end.
    pub fn within(&self, at: usize, len: usize) -> Option<Diagnostics> {
        let end = at + len;
        let inside = |sp: &Span| sp.start >= at && sp.start <= end;
        let all_inside = self
            .0
            .iter()
            .all(|d| inside(&d.span) && d.also.iter().all(|(sp, _)| inside(sp)));
        if !all_inside {
            return None;
        }
        Some(self.map_spans(|sp| Span::new(sp.start - at, sp.end.clamp(sp.start, end) - at)))
    }

    /// As [`Diagnostics::within`], for a piece the tool wrapped in text of
    /// its own (`exists (` ... `)`, `source {` ... `}`): a span that starts
    /// at the piece's end or in the next `tail` bytes (the wrapper's closing
    /// text up to its first token) is at the piece's end, and its message
    /// and hint no longer name the wrapper's token, which the user never
    /// typed: "unexpected `)`" becomes "unexpected end of {what}".
    pub fn within_wrapped(
        &self,
        at: usize,
        len: usize,
        tail: usize,
        what: &str,
    ) -> Option<Diagnostics> {
        let end = at + len;
        let ends = |sp: &Span| sp.start >= end && sp.start <= end + tail;
        let inside = |sp: &Span| sp.start >= at && sp.start <= end + tail;
        let all_inside = self
            .0
            .iter()
            .all(|d| inside(&d.span) && d.also.iter().all(|(sp, _)| inside(sp)));
        if !all_inside {
            return None;
        }
        let moved = |sp: Span| match ends(&sp) {
            true => Span::new(len, len),
            false => Span::new(sp.start - at, sp.end.clamp(sp.start, end) - at),
        };
        let out = self.0.iter().map(|d| {
            let moved = Diagnostic {
                span: moved(d.span),
                also: d
                    .also
                    .iter()
                    .map(|(sp, l)| (moved(*sp), l.clone()))
                    .collect(),
                ..d.clone()
            };
            match ends(&d.span) {
                true => at_end(moved, what),
                false => moved,
            }
        });
        Some(Diagnostics(out.collect()))
    }

    /// The diagnostics with every span (the main one and the others) moved
    /// by `moved`: into a piece of the text, or onto what a user typed.
    pub fn map_spans(&self, moved: impl Fn(Span) -> Span) -> Diagnostics {
        let moved = self.0.iter().map(|d| Diagnostic {
            span: moved(d.span),
            also: d
                .also
                .iter()
                .map(|(sp, l)| (moved(*sp), l.clone()))
                .collect(),
            ..d.clone()
        });
        Diagnostics(moved.collect())
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    /// Plain text, as in a snapshot or a pipe.
    pub fn render(&self, file_name: &str, src: &str) -> String {
        let file = SimpleFile::new(file_name, src);
        let config = term::Config::default();
        let mut out = String::new();
        for d in &self.0 {
            // Spans come from this very source, so rendering cannot fail; if it
            // ever did, the plain message is still worth printing.
            if term::emit_to_string(&mut out, &config, &file, &d.to_codespan()).is_err() {
                out.push_str(&format!("{}\n", d.message));
            }
        }
        out
    }

    /// To standard error, in colour when it is a terminal.
    pub fn emit_stderr(&self, file_name: &str, src: &str, color: bool) {
        let choice = if color {
            termcolor::ColorChoice::Auto
        } else {
            termcolor::ColorChoice::Never
        };
        let mut stderr = termcolor::StandardStream::stderr(choice);
        let file = SimpleFile::new(file_name, src);
        let config = term::Config::default();
        for d in &self.0 {
            if term::emit_to_write_style(&mut stderr, &config, &file, &d.to_codespan()).is_err() {
                eprintln!("{}", d.message);
            }
        }
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Diagnostics {
        Diagnostics(vec![d])
    }
}

/// `d`, found at the end of a wrapped piece, said without the wrapper's
/// token: the piece ended too soon (or a brace in it closed early).
pub fn at_end(mut d: Diagnostic, what: &str) -> Diagnostic {
    if d.message.starts_with("unexpected `") {
        d.message = format!("unexpected end of {what}");
        d.label = format!("{what} ends here; {}", d.label);
    }
    let names_wrapper = d
        .hint
        .as_deref()
        .is_some_and(|h| h.contains("this `") || h.contains("partner"));
    if names_wrapper {
        d.hint = Some(format!(
            "something is missing at the end of {what}, or a bracket in it is not balanced"
        ));
    }
    d
}

/// The text of the file at `path`, or one line saying why not: a byte
/// sequence that is not UTF-8 is named with its line and column, as every
/// other error in a file is (`path:line:col`).
pub fn read_text(path: &std::path::Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let before = &bytes[..good];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        // Columns count characters, as the other diagnostics do.
        let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
        format!(
            "{}:{line}:{column}: not UTF-8 text (byte 0x{:02x}); save the file as UTF-8",
            path.display(),
            bytes[good]
        )
    })
}
