//! `pomset`: the command line. Everything is in the library; see `cli.rs`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) would
    // panic; the default action ends the process quietly, as a Unix tool does.
    #[cfg(unix)]
    // SAFETY: called before any thread starts; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    pomset::cli::run(pomset::cli::Cli::parse())
}
