//! `pomset`: the command line. Everything is in the library; see `cli/`.

use clap::Parser;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Counts heap bytes so that searches stop at `--max-memory` (`pomset::memory`).
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) would
    // panic; the default action ends the process quietly, as a Unix tool does.
    #[cfg(unix)]
    // SAFETY: called before any thread starts; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `pomset` alone in a terminal starts the REPL; elsewhere it prints the
    // help, as clap does for a missing command.
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if std::env::args_os().len() == 1 && terminal {
        return pomset::cli::run(pomset::cli::Cli {
            color: pomset::cli::Color::Auto,
            unroll: None,
            no_spin_reduction: false,
            copy_after_loops: false,
            command: pomset::cli::Command::Repl(pomset::cli::ReplArgs { script: None }),
        });
    }
    pomset::cli::run(pomset::cli::Cli::parse())
}
