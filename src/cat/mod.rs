//! A cat interpreter (herd7's model language) for the subset real models
//! use: `let`, `let rec`, `include`, set and relation algebra, functions,
//! `acyclic`/`irreflexive`/`empty` with `as NAME`, `flag` and `show`.
//!
//! A model is parsed (`parse`), then compiled (`compile`): names resolved,
//! sets and relations told apart (a type error is a located diagnostic, as
//! in the litmus parser), functions inlined at their calls. The compiled
//! model judges one candidate execution at a time (`eval`).

pub mod builtins;
pub mod compile;
pub mod depth;
pub mod eval;
pub mod frame;
pub mod lexer;
pub mod monotone;
pub mod parse;
pub mod share;

use std::path::{Path, PathBuf};

use crate::syntax::diagnostic::{Diagnostic, Diagnostics};

pub use compile::Model;
pub use eval::{Judgement, Witness};

/// Sets and relations, the two types of the cat subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Set,
    Rel,
}

impl Ty {
    pub fn as_str(self) -> &'static str {
        match self {
            Ty::Set => "a set",
            Ty::Rel => "a relation",
        }
    }
}

/// The models bundled in the binary, by name: each a file of `models/`.
pub const BUNDLED: [(&str, &str); 7] = [
    ("rc11", include_str!("../../models/rc11.cat")),
    ("ptx", include_str!("../../models/ptx.cat")),
    ("hrf-direct", include_str!("../../models/hrf-direct.cat")),
    (
        "hrf-indirect",
        include_str!("../../models/hrf-indirect.cat"),
    ),
    ("vulkan", include_str!("../../models/vulkan.cat")),
    ("vulkan-2021", include_str!("../../models/vulkan-2021.cat")),
    // A toy: what adding a model takes (the book's "Command-line reference").
    (
        "sc-axiomatic",
        include_str!("../../models/sc-axiomatic.cat"),
    ),
];

/// Bundled files that models include but that are no model by themselves
/// (they use names their includer defines).
pub const LIBRARY: [(&str, &str); 1] = [(
    "vulkan-common",
    include_str!("../../models/vulkan-common.cat"),
)];

/// A bundled model's (or library file's) text, by `name` or `name.cat`.
pub fn bundled(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".cat").unwrap_or(name);
    BUNDLED
        .iter()
        .chain(LIBRARY.iter())
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
}

/// The bundled models for which strengthening a mode never adds a
/// determined final state (`Capability::StrongerModes`): each relation
/// that modes enter (release and acquire patterns, synchronisation,
/// happens-before, the SC order) grows with a stronger mode, and each
/// constraint on them forbids more as they grow (the book's "Mode
/// lattice"; `tests/it/distinguish.rs` checks it on random programs).
pub const STRONGER_MODES: &[&str] = &[
    "rc11",
    "ptx",
    "sc-axiomatic",
    "vulkan",
    "hrf-direct",
    "hrf-indirect",
];

/// The bundled models that allow every execution of an interleaving
/// (`Capability::IncludesSc`): each axiom is the acyclicity or
/// irreflexivity of relations that an interleaving's order contains, or an
/// emptiness that an interleaving's atomic RMWs give (the book's "The mode
/// lattice"; `tests/it/distinguish.rs` checks it on random programs).
pub const INCLUDES_SC: &[&str] = &["rc11", "ptx", "sc-axiomatic"];

/// The lowering a bundled model's programs go through (PTX's events are
/// PTX instructions: an sc access is a fence.sc and an acquire or release).
fn lowering(name: &str) -> Option<crate::engine::axiomatic::lower::Lowering> {
    (name == "ptx").then_some(crate::engine::axiomatic::lower::Lowering::Ptx)
}

/// One source file of a model (the model's own, or an included one).
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
    /// Where includes are looked for; `None` for a bundled model.
    pub dir: Option<PathBuf>,
}

/// A located error in a cat file, with the file to render it against.
#[derive(Clone, Debug)]
pub struct CatError {
    pub file: String,
    pub text: String,
    pub diagnostics: Diagnostics,
}

impl CatError {
    pub fn new(source: &Source, d: Diagnostic) -> CatError {
        CatError {
            file: source.name.clone(),
            text: source.text.clone(),
            diagnostics: Diagnostics(vec![d]),
        }
    }

    /// The rustc-style rendering, as plain text.
    pub fn render(&self) -> String {
        self.diagnostics.render(&self.file, &self.text)
    }

    /// To standard error, in colour when asked.
    pub fn emit_stderr(&self, color: bool) {
        self.diagnostics.emit_stderr(&self.file, &self.text, color);
    }
}

/// Why a model could not be loaded.
#[derive(Clone, Debug)]
pub enum LoadError {
    /// The file could not be read.
    Io(String),
    /// A located error in the model's text.
    Cat(CatError),
}

impl LoadError {
    pub fn render(&self) -> String {
        match self {
            LoadError::Io(m) => format!("error: {m}\n"),
            LoadError::Cat(e) => e.render(),
        }
    }
}

/// Loads a model by bundled name (`rc11`) or as a `.cat` file.
pub fn load(spec: &str) -> Result<Model, LoadError> {
    load_with(spec, &[])
}

/// `load`, with the options the model declares set (`settings`: OPTION,
/// VALUE). A bundled model's claims (`STRONGER_MODES`, `INCLUDES_SC`) are
/// argued for its defaults only, so a model with an option set away from
/// its default makes none.
pub fn load_with(spec: &str, settings: &[(String, String)]) -> Result<Model, LoadError> {
    if let Some(text) = bundled(spec) {
        let short = spec.strip_suffix(".cat").unwrap_or(spec);
        let mut model = compile::compile_with(
            Source {
                name: format!("{short}.cat"),
                text: text.to_string(),
                dir: None,
            },
            settings,
        )?;
        let defaults = model.options.iter().all(|o| o.chosen == o.values[0]);
        model.lowering = lowering(short);
        model.stronger_modes = defaults && STRONGER_MODES.contains(&short);
        model.includes_sc = defaults && INCLUDES_SC.contains(&short);
        return Ok(model);
    }
    let path = Path::new(spec);
    let text = crate::syntax::diagnostic::read_text(path).map_err(|e| {
        LoadError::Io(match e.strip_prefix(&format!("cannot read {spec}: ")) {
            Some(why) => format!("cannot read model `{spec}`: {why}"),
            None => e,
        })
    })?;
    compile::compile_with(
        Source {
            name: spec.to_string(),
            text,
            dir: path.parent().map(Path::to_path_buf),
        },
        settings,
    )
}

/// Compiles a model from text (the name is used in diagnostics; includes
/// are looked up among the bundled models only).
pub fn from_text(name: &str, text: &str) -> Result<Model, LoadError> {
    compile::compile(Source {
        name: name.to_string(),
        text: text.to_string(),
        dir: None,
    })
}
