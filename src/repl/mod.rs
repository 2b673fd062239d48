//! `pomset repl`: explore the semantics interactively. `session` is the pure
//! core (one input in, styled text out); `front` is the line editor for a
//! terminal and the script mode for a pipe; `output` renders text plain or
//! coloured. The book's "Exploring in the REPL" is the guided tour.

pub mod front;
pub mod output;
pub mod session;

use std::io::IsTerminal;
use std::path::Path;

pub use output::{Output, Tone};
pub use session::{Reply, Session};

/// Starts the REPL: a script from `script`, else the line editor when
/// standard input is a terminal, else a script from standard input.
/// `color` is `None` for "when standard output is a terminal".
/// `import` says how files are read (`--unroll`).
pub fn start(
    script: Option<&Path>,
    color: Option<bool>,
    import: crate::import::Options,
) -> Result<(), String> {
    let session = || session::Session::new().with_import(import);
    let color = color.unwrap_or_else(|| std::io::stdout().is_terminal());
    let mut stdout = std::io::stdout().lock();
    match script {
        Some(path) => {
            let file = std::fs::File::open(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            front::run_session(session(), std::io::BufReader::new(file), &mut stdout, color)
                .map_err(|e| format!("cannot run {}: {e}", path.display()))
        }
        None if std::io::stdin().is_terminal() => {
            drop(stdout);
            front::interactive(color, import)
        }
        None => front::run_session(session(), std::io::stdin().lock(), &mut stdout, color)
            .map_err(|e| format!("cannot run the script: {e}")),
    }
}
