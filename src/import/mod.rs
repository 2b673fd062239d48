//! Tests from other tools: one reader per foreign litmus format, each
//! producing our surface tree (`syntax::ast::File`) with spans into the
//! original text, so the normal checker's diagnostics point into the file
//! the user has. A construct with no faithful meaning in our language is
//! refused with its place and the reason; nothing is guessed.
//!
//! - `herd_c`: herd7's C litmus format, the C11 subset, with `scopes:`.
//! - `ptx`: Dat3M's PTX litmus format (`P0@cta 0,gpu 0`).
//! - `lit`: the OCaml PwT prototype's `.lit` format.
//! - `vulkan`: Dat3M's Vulkan litmus format (`P0@sg 0, wg 0, qf 0`), into
//!   our language's Vulkan extension.
//!
//! `load` is what every front end calls: it recognises the format (by
//! extension or by the header), reads it, and checks the result.

pub mod cfg;
pub mod cond;
pub mod herd_c;
pub mod lit;
pub mod make;
pub mod ptx;
pub mod text;
pub mod vulkan;

use crate::syntax::{self, ast, check, Diagnostics, Litmus};

/// The formats `load` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Our own litmus language.
    Pomset,
    /// herd7's C litmus format (`C NAME`).
    HerdC,
    /// Dat3M's PTX litmus format (`PTX NAME`).
    Ptx,
    /// The PwT prototype's `.lit` format (`name=...`, `%%`, `|||`).
    Lit,
    /// Dat3M's Vulkan litmus format (`VULKAN NAME`).
    Vulkan,
}

impl Format {
    /// How the format is called in messages and in `pomset import`'s comment.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Pomset => "pomset litmus",
            Format::HerdC => "herd7 C litmus",
            Format::Ptx => "Dat3M PTX litmus",
            Format::Lit => "PwT prototype .lit",
            Format::Vulkan => "Dat3M Vulkan litmus",
        }
    }
}

/// What the caller decides about reading, beyond the file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `--unroll N`: how often loops are unrolled (our `while`, and the
    /// backward jumps of PTX code); `None` leaves it to the file.
    pub unroll: Option<u32>,
    /// Decide spin loops as their last pass (`syntax::spin`): set by a
    /// command only when every engine it runs declares
    /// `engine::Capability::SpinReduction` and `--no-spin-reduction` is off.
    pub spin: bool,
    /// `--copy-after-loops`: unroll jumps by following every path, the code
    /// after a loop copied into each exit, the next pass into each path that
    /// goes round again, and the code after a branch into both sides, as
    /// herd7 and Dat3M do; by default each is written once (`cfg::unroll`).
    pub copy_after_loops: bool,
}

impl Options {
    /// The checker's share of these options.
    pub fn check(self) -> check::Options {
        check::Options {
            unroll: self.unroll,
            spin: self.spin,
        }
    }
}

/// The format of a file, from its name and its first line: `C NAME` is
/// herd7's C, `PTX NAME` Dat3M's PTX, `litmus NAME` ours, and a `.lit`
/// file (or one with the prototype's `%%` and `|||`) the prototype's.
pub fn detect(name: &str, src: &str) -> Format {
    let first = text::first_word(src);
    match first {
        Some("litmus") => Format::Pomset,
        Some("C") => Format::HerdC,
        Some("PTX" | "ptx") => Format::Ptx,
        Some("VULKAN" | "Vulkan" | "vulkan") => Format::Vulkan,
        _ if name.ends_with(".lit") => Format::Lit,
        _ if src.contains("|||") || src.contains("%%") => Format::Lit,
        _ => Format::Pomset,
    }
}

/// Reads a foreign file into our surface tree (our own format is parsed).
pub fn to_ast(
    format: Format,
    name: &str,
    src: &str,
    opts: Options,
) -> Result<ast::File, Diagnostics> {
    let unroll = opts.unroll;
    match format {
        Format::Pomset => syntax::parse_file(src).map_err(Diagnostics::from),
        Format::HerdC => herd_c::read(src),
        Format::Ptx => ptx::read(
            src,
            unroll.unwrap_or(check::DEFAULT_UNROLL),
            opts.spin,
            opts.copy_after_loops,
        ),
        Format::Lit => lit::read(src, name),
        Format::Vulkan => vulkan::read(
            src,
            unroll.unwrap_or(check::DEFAULT_UNROLL),
            opts.copy_after_loops,
        ),
    }
}

/// Reads, recognising the format, and checks: the one entry point of
/// `run`, `explain`, `draw`, `pomsets`, `parse`, `check` and the REPL.
pub fn load(name: &str, src: &str, opts: Options) -> Result<Litmus, Diagnostics> {
    let format = detect(name, src);
    let source = to_ast(format, name, src, opts)?;
    let (program, warnings) = check::check_with(&source, opts.check())?;
    Ok(Litmus {
        source,
        program,
        warnings,
    })
}

/// `pomset import`: the test in our syntax, with a comment naming the source.
pub fn import(name: &str, src: &str, opts: Options) -> Result<String, Diagnostics> {
    let format = detect(name, src);
    let file = to_ast(format, name, src, opts)?;
    // Check it too: an import that does not check is no use to keep.
    check::check_with(&file, opts.check())?;
    let mut out = format!(
        "// Imported from {name} ({}) by `pomset import`.\n",
        format.describe()
    );
    out.push_str(&syntax::print::file(&file));
    Ok(out)
}
