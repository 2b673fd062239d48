//! `pomset repl`: the interactive session (`crate::repl`), from a terminal,
//! a pipe or a session file.

use std::path::PathBuf;

use super::args::Ctx;
use super::Color;

/// The examples and notes under `pomset repl --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset repl                         the line editor: history, Tab completion, :help
  pomset repl < book/repl/1-fragments.session
                                      run a session from a pipe and print the transcript
  pomset repl book/repl/2-lb.session  the same from a file

At the prompt, type a fragment such as `r := x; y := r` (threads separated by
`||`) to see its complete pomsets, or a command: :load FILE, :run, :pomsets,
:show N, :explain COND, :set OPTION VALUE, :options, :vary OPTION, :let,
:values, :scopes, :help, :quit. Input waits for balanced braces; Ctrl-C stops
a running query and keeps the session; Ctrl-D quits. The book's \"Exploring in
the REPL\" is a guided tour.";

/// `pomset repl`'s flags.
#[derive(clap::Args, Debug)]
pub struct ReplArgs {
    /// Run this session file instead of reading standard input.
    pub script: Option<PathBuf>,
}

/// `pomset repl`: `--color auto` is left to the session, which knows
/// whether it talks to a terminal.
pub fn repl(args: &ReplArgs, color: Color, cx: Ctx) -> Result<bool, String> {
    let color = match color {
        Color::Always => Some(true),
        Color::Never => Some(false),
        Color::Auto => None,
    };
    crate::repl::start(args.script.as_deref(), color, cx.import).map(|()| true)
}
