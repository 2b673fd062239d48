//! The one library interface the front ends share: load a test (any format,
//! with option overrides), decide it, list its pomsets, explain, draw,
//! refine and vary. `cli`, the REPL and `serve` are thin layers over it;
//! nothing here knows about a terminal, a prompt or HTTP.
//!
//! ```
//! use pomset::workbench::{self, TestInput};
//! let input = TestInput {
//!     source: "litmus MP\nx := 1; y.rel := 1;\n|| r := y.acq; s := x;\nforbid (r = 1 /\\ s = 0)\n".into(),
//!     ..TestInput::default()
//! };
//! let loaded = workbench::load(&input).expect("a well-formed test");
//! let limits = pomset::outcome::Limits::default();
//! let pwt = pomset::engine::named("pwt").expect("a model");
//! let report = workbench::decide(pwt.as_ref(), &loaded.test.program, &loaded.model, false, limits);
//! // `forbid` is herd7's `~exists`: Ok, the outcome is never observed.
//! assert_eq!(report.conditions[0].ok, Some(true));
//! assert_eq!(report.conditions[0].observation, Some("Never"));
//! ```

mod decide;
mod draw;
mod located;
mod text;
mod vary;

pub use decide::{decide, refine, refine_under, Refined};
pub use draw::{draw, draw_cat, draw_each, draw_witnesses};
pub use located::{Failed, Located, Problem};
pub use text::{
    candidate_listing, explain_text, explain_text_within, model_text, options_table,
    pomset_listing, refusal_text, unsupported_text, CandidateListing, Listing,
};
pub use vary::{vary, Variation, VaryRow};

use serde::{Deserialize, Serialize};

use crate::model::Model;
use crate::syntax::Litmus;

/// Applies `--set name=value` overrides to a model.
pub fn apply_sets(model: &mut Model, sets: &[String]) -> Result<(), String> {
    for s in sets {
        let Some((k, v)) = s.split_once('=') else {
            return Err(format!(
                "--set takes OPTION=VALUE, not `{s}` (see `pomset options`)"
            ));
        };
        model.set(k.trim(), v.trim()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Parses a test in any format `import::load` knows. A `condition` is
/// parsed as one more condition of the file (an `exists`), so it names
/// registers and locations exactly as the file's own conditions do; an error
/// in it is located in the condition as typed.
/// `import` says how the file is read (`--unroll`).
pub fn parse_test(
    name: &str,
    src: &str,
    condition: Option<&str>,
    import: crate::import::Options,
) -> Result<Litmus, Failed> {
    let mut text = src.to_string();
    let at = text.len() + "\nexists (".len();
    if let Some(c) = condition {
        text.push_str(&format!("\nexists ({c})\n"));
    }
    match crate::import::load(name, &text, import) {
        Ok(t) => Ok(t),
        Err(d) => Err(
            match condition
                .and_then(|c| Some((c, d.within_wrapped(at, c.len(), 1, "the condition")?)))
            {
                Some((c, moved)) => Failed {
                    diagnostics: moved,
                    file: "<condition>".into(),
                    text: c.to_string(),
                },
                None => Failed {
                    diagnostics: d,
                    file: name.to_string(),
                    text,
                },
            },
        ),
    }
}

/// A test as a front end hands it over: its text, a name (whose extension
/// may choose the format, as `.lit`), option overrides and an extra
/// condition.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TestInput {
    /// The file name shown in diagnostics; `test.litmus` when empty.
    pub name: String,
    pub source: String,
    /// `OPTION=VALUE` overrides, applied over the file's `model {}` block.
    pub sets: Vec<String>,
    /// One more condition, as `explain`'s and `--outcome`'s argument.
    pub condition: Option<String>,
    /// `--unroll`: how often loops are unrolled, over the file's `model {
    /// unroll = N }`.
    pub unroll: Option<u32>,
}

/// A loaded test: the parsed file and its model with the overrides applied.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub test: Litmus,
    pub model: Model,
    /// The warnings, located.
    pub warnings: Vec<Located>,
}

impl Loaded {
    /// The index of the condition `TestInput::condition` added, if any.
    pub fn added_condition(&self, input: &TestInput) -> Option<usize> {
        input
            .condition
            .as_ref()
            .and_then(|_| self.test.program.conditions.len().checked_sub(1))
    }
}

/// Loads a test: parse (any format), check, apply the overrides.
pub fn load(input: &TestInput) -> Result<Loaded, Problem> {
    let name = if input.name.is_empty() {
        "test.litmus"
    } else {
        input.name.as_str()
    };
    let import = crate::import::Options {
        unroll: input.unroll,
        spin: false,
        copy_after_loops: false,
    };
    let test = parse_test(name, &input.source, input.condition.as_deref(), import)
        .map_err(|f| f.problem())?;
    let mut model = test.program.model;
    apply_sets(&mut model, &input.sets).map_err(Problem::message)?;
    let warnings = located::locate(&test.warnings, &input.source);
    Ok(Loaded {
        test,
        model,
        warnings,
    })
}

/// One option as a front end shows it: its values, default, current value
/// (with the overrides) and doc.
#[derive(Clone, Debug, Serialize)]
pub struct OptionState {
    pub name: &'static str,
    pub values: &'static [&'static str],
    pub default: &'static str,
    pub value: &'static str,
    pub doc: &'static str,
    /// Whether the model decided under reads it (SC and the cat models read
    /// no option: flipping one changes nothing there).
    pub applies: bool,
}

/// Every model option, with its value in `model`.
pub fn options(model: &Model) -> Vec<OptionState> {
    Model::OPTIONS
        .iter()
        .map(|o| OptionState {
            name: o.name,
            values: o.values,
            default: o.default,
            value: model.get(o.name).unwrap_or(o.default),
            doc: o.doc,
            applies: true,
        })
        .collect()
}

/// Every model option, with its value in `model` and whether `engine` reads it.
pub fn options_for(model: &Model, engine: &dyn crate::engine::Engine) -> Vec<OptionState> {
    let applies = engine.reads_options();
    options(model)
        .into_iter()
        .map(|o| OptionState { applies, ..o })
        .collect()
}
