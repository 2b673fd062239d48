//! What the REPL prints: text in tones, rendered with ANSI colour for a
//! terminal and plain for a pipe or a snapshot.

/// The role of a piece of output; the renderer picks the colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Plain,
    /// A title: a test's name, a table's header.
    Heading,
    /// A verdict that holds: `Ok`, "as expected", an allowed outcome.
    Good,
    /// A verdict that fails: `No`, "NOT AS EXPECTED".
    Bad,
    /// An error message; the session goes on.
    Error,
    /// A hint or an aside: what to type next.
    Hint,
}

impl Tone {
    fn ansi(self) -> Option<&'static str> {
        match self {
            Tone::Plain => None,
            Tone::Heading => Some("\x1b[1m"),
            Tone::Good => Some("\x1b[32m"),
            Tone::Bad => Some("\x1b[31m"),
            Tone::Error => Some("\x1b[1;31m"),
            Tone::Hint => Some("\x1b[2m"),
        }
    }
}

/// One reply's text, as lines with tones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub lines: Vec<(Tone, String)>,
}

impl Output {
    /// Adds one line (or several, if `text` holds newlines) in one tone.
    pub fn push(&mut self, tone: Tone, text: impl AsRef<str>) {
        for line in text.as_ref().trim_end_matches('\n').split('\n') {
            self.lines.push((tone, line.to_string()));
        }
    }

    pub fn plain(&mut self, text: impl AsRef<str>) {
        self.push(Tone::Plain, text);
    }

    pub fn error(&mut self, text: impl AsRef<str>) {
        self.push(Tone::Error, format!("error: {}", text.as_ref()));
    }

    pub fn hint(&mut self, text: impl AsRef<str>) {
        self.push(Tone::Hint, text);
    }

    /// Whether any line is an error.
    pub fn has_error(&self) -> bool {
        self.lines.iter().any(|(t, _)| *t == Tone::Error)
    }

    /// The text with a newline after each line, coloured when `color`.
    pub fn render(&self, color: bool) -> String {
        let mut out = String::new();
        for (tone, line) in &self.lines {
            match tone.ansi().filter(|_| color && !line.is_empty()) {
                Some(code) => {
                    out.push_str(code);
                    out.push_str(line);
                    out.push_str("\x1b[0m");
                }
                None => out.push_str(line),
            }
            out.push('\n');
        }
        out
    }
}
