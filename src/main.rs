//! `pomset`: the command line. Everything is in the library; see `cli.rs`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    pomset::cli::run(pomset::cli::Cli::parse())
}
