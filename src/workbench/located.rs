//! Errors as a front end shows them: located at line:col with a hint, and
//! rendered rustc-style for a terminal.

use serde::Serialize;

use crate::syntax::diagnostic::Severity;
use crate::syntax::Diagnostics;

/// One diagnostic at a place: 1-based line and column (in characters), the
/// message, the label under the caret and a hint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Located {
    pub severity: &'static str,
    /// The file the place is in (`<condition>` for a condition as typed).
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
    pub message: String,
    pub label: String,
    pub hint: Option<String>,
}

/// Why a request could not be answered: a message, the located diagnostics
/// (empty for a bad option or an unsupported construct named in the
/// message), and the diagnostics rendered as the terminal shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub message: String,
    pub diagnostics: Vec<Located>,
    pub rendered: String,
}

impl Problem {
    /// A problem with no place (a bad `--set`, an unknown option).
    pub fn message(message: impl Into<String>) -> Problem {
        let message = message.into();
        Problem {
            rendered: format!("error: {message}"),
            message,
            diagnostics: Vec::new(),
        }
    }
}

/// A text that failed to load: its diagnostics and the text they point into
/// (the condition as typed when every error lies there).
#[derive(Clone, Debug)]
pub struct Failed {
    pub diagnostics: Diagnostics,
    pub file: String,
    pub text: String,
}

impl Failed {
    /// Prints the diagnostics to standard error, as the command line does.
    pub fn emit_stderr(&self, color: bool) {
        self.diagnostics.emit_stderr(&self.file, &self.text, color);
    }

    /// Plain text, as the REPL prints it.
    pub fn render(&self) -> String {
        self.diagnostics.render(&self.file, &self.text)
    }

    /// The located form, with the first error as the message.
    pub fn problem(&self) -> Problem {
        let mut diagnostics = locate(&self.diagnostics, &self.text);
        for d in &mut diagnostics {
            d.file.clone_from(&self.file);
        }
        let message = diagnostics
            .iter()
            .find(|d| d.severity == "error")
            .map(|d| format!("{}:{}:{}: {}", d.file, d.line, d.col, d.message))
            .unwrap_or_else(|| "the test has errors".to_string());
        Problem {
            message,
            diagnostics,
            rendered: self.render(),
        }
    }
}

/// Each diagnostic with its span turned into line:col within `text`.
pub fn locate(diagnostics: &Diagnostics, text: &str) -> Vec<Located> {
    diagnostics
        .iter()
        .map(|d| {
            let (line, col) = line_col(text, d.span.start);
            let (end_line, end_col) = line_col(text, d.span.end.max(d.span.start));
            Located {
                severity: match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                file: String::new(),
                line,
                col,
                end_line,
                end_col,
                message: d.message.clone(),
                label: d.label.clone(),
                hint: d.hint.clone(),
            }
        })
        .collect()
}

/// The 1-based line and column (in characters) of byte `at`, clamped to the text.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::line_col;

    #[test]
    fn lines_and_columns_count_from_one_in_characters() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("λx\ny", 3), (1, 3));
        assert_eq!(line_col("ab", 99), (1, 3));
    }
}
