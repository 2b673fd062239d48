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
    // No transparent huge pages for this process: a pomset search that
    // grows its arena to a gigabyte spent a quarter of its time in the
    // kernel zeroing 2 MB pages (CADP's 2_threads_4_instructions/122_simple
    // under pwt: 2.4 s of system time in 10 s, 0.7 s without, and 13 % more
    // of the search done). Only the faults change, never a result; where
    // the call fails the process runs as before.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integers and only
    // sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
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
