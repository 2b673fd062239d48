//! What several commands share: the limits' flags, naming a model, reading and loading files.

use std::path::{Path, PathBuf};

use crate::model::Model;
use crate::syntax;
use crate::workbench::apply_sets;

/// The limits of `run`, `pomsets` and `draw`: reaching one makes the answer
/// Unknown with the limit named, never wrong, and no search outgrows memory.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct LimitArgs {
    /// Give up (verdict unknown) beyond this many local pomsets.
    #[arg(long, default_value_t = 200_000)]
    pub max_pomsets: usize,
    /// With `--set if_closure=registers`: give up (verdict unknown) when one
    /// statement's registers in scope have more partitions of their
    /// valuations than this (Bell(7) = 877 fits, Bell(8) = 4140 does not).
    #[arg(long, default_value_t = crate::outcome::MAX_PARTITIONS)]
    pub max_partitions: usize,
    /// Give up (verdict unknown) beyond this many final states kept (the
    /// text report keeps interchangeable threads' states one per orbit), or
    /// complete pomsets of one rf search held at once (what bounds memory).
    #[arg(long, default_value_t = crate::outcome::MAX_STATES)]
    pub max_states: usize,
    /// Give up (verdict unknown) after this many steps of the rf searches.
    #[arg(long, default_value_t = 50_000_000)]
    pub max_steps: u64,
    /// Give up (verdict unknown) once the heap passes this many megabytes
    /// [default: three quarters of the machine's memory].
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<usize>,
    /// Give up (verdict unknown) after this many seconds per test; `compare`
    /// and `vary` share them among the models or settings of the test.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, allow_negative_numbers = true)]
    pub timeout: Option<f64>,
    /// Search every arrangement of threads with the same code, instead of one
    /// per multiset (the book's Performance chapter: thread symmetry).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Decide every combination of the reader threads' pomsets, instead of
    /// each reader once against the rest (the book's Performance chapter:
    /// readers kept apart).
    #[arg(long)]
    pub no_factor: bool,
    /// Under pwt, decide every combination of the threads' pomsets, instead
    /// of cutting a choice of the first threads' pomsets that no candidate
    /// can contain (the book's Performance chapter: parts cut).
    #[arg(long)]
    pub no_part_cut: bool,
    /// Under the cat models, run the threads in the file's order in the
    /// search, instead of those whose writes no other thread reads last (the
    /// book's Performance chapter: readers run last).
    #[arg(long)]
    pub no_reorder: bool,
    /// Under the cat models, judge every position of a write in its
    /// location's coherence order, instead of first cutting those that a
    /// part of three or four events refutes (the book's Performance chapter:
    /// coherence positions probed).
    #[arg(long)]
    pub no_co_probes: bool,
    /// Under the cat models, judge the parts of candidates only once the
    /// search has taken this many steps; before, only whole candidates are
    /// judged, which is exact and, in a small search, cheaper (the book's
    /// Performance chapter: small searches judge only whole candidates). 0
    /// judges from the first part.
    #[arg(long, value_name = "STEPS", default_value_t = crate::outcome::limits::JUDGE_PARTS_AFTER)]
    pub judge_parts_after: u64,
}

impl LimitArgs {
    /// The limits, with the deadline counted from now; sets the memory budget.
    pub fn limits(&self) -> crate::outcome::Limits {
        if let Some(mb) = self.max_memory {
            crate::memory::set_budget_mb(mb);
        }
        let deadline = self.timeout.map(crate::outcome::limits::deadline_after);
        crate::outcome::Limits {
            max_pomsets: self.max_pomsets,
            max_partitions: self.max_partitions,
            max_steps: self.max_steps,
            max_states: self.max_states,
            deadline,
            cancel: None,
            symmetry: !self.no_symmetry,
            orbits: false,
            factor: !self.no_factor,
            parts: !self.no_part_cut,
            reorder: !self.no_reorder,
            probes: !self.no_co_probes,
            judge_parts_after: self.judge_parts_after,
            one_core: false,
            reuse: false,
            listed: None,
        }
    }
}

/// `--timeout SECONDS`, for every command that takes one: a finite number,
/// not negative (NaN or infinity would make no deadline).
pub fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        // `abs`: -0 is 0, so the limit is not named `--timeout -0`.
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s.abs()),
        _ => Err("--timeout takes a number of seconds, finite and not negative".to_string()),
    }
}

/// What every command is given beyond its arguments: whether to colour
/// diagnostics, and how files are read (`--unroll`).
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub color: bool,
    pub import: crate::import::Options,
    /// Spin loops may be decided as their last pass (no
    /// `--no-spin-reduction`); `reading` asks the engines too.
    pub spin_reduction: bool,
}

impl Ctx {
    /// How to read files for `engines`: spin loops reduced only when the
    /// user allows it and every engine declares the reduction exact.
    pub fn reading(&self, engines: &[&dyn crate::engine::Engine]) -> crate::import::Options {
        let spin = self.spin_reduction
            && engines
                .iter()
                .all(|e| e.can(crate::engine::Capability::SpinReduction));
        crate::import::Options {
            spin,
            ..self.import
        }
    }
}

/// `--model NAME` (`engine::named`); a cat file with errors has them printed.
pub fn engine_named(spec: &str, color: bool) -> Result<Box<dyn crate::engine::Engine>, String> {
    crate::engine::named(spec).map_err(|e| {
        if let crate::engine::NameError::Cat(errors, _) = &e {
            errors.emit_stderr(color);
        }
        e.line()
    })
}

/// The model with the lowering of `--mapping` (whose target must be the
/// model itself and must lower), for `explain`.
pub fn lowered(
    mut engine: Box<dyn crate::engine::Engine>,
    model: &str,
    mapping: Option<&str>,
) -> Result<Box<dyn crate::engine::Engine>, String> {
    let Some(text) = mapping else {
        return Ok(engine);
    };
    let m = crate::engine::axiomatic::Mapping::parse(text)?;
    match m.lowering {
        Some(l) if m.tgt == model && engine.lower(l) => Ok(engine),
        _ => Err(format!(
            "--mapping {text} lowers nothing for --model {model}: it takes a mapping whose target is the model and that lowers (pwt:vulkan, pwt:vulkan:wk-rlx)"
        )),
    }
}

/// Parses a test and applies `--set` to its model. A condition from the
/// command line is parsed as one more condition of the file
/// (`workbench::parse_test`). `None`: the file has errors, already printed.
pub fn load(
    path: &Path,
    condition: Option<&str>,
    sets: &[String],
    cx: Ctx,
) -> Result<Option<(syntax::Litmus, Model)>, String> {
    let src = read(path)?;
    let name = path.display().to_string();
    match crate::workbench::parse_test(&name, &src, condition, cx.import) {
        Ok(t) => {
            let mut model = t.program.model;
            apply_sets(&mut model, sets)?;
            Ok(Some((t, model)))
        }
        Err(failed) => {
            failed.emit_stderr(cx.color);
            Ok(None)
        }
    }
}

/// The litmus files named by `paths`: files as given, directories searched
/// recursively for `*.litmus`, in sorted order.
pub fn litmus_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect(p, &mut out).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("no such file or directory: {}", p.display()));
        }
    }
    if out.is_empty() {
        let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "no tests under {}: a directory is searched for *.litmus and *.lit files",
            named.join(", ")
        ));
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for e in entries {
        if e.is_dir() {
            collect(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "litmus" || x == "lit") {
            out.push(e);
        }
    }
    Ok(())
}

/// Makes the output directory `dir` (and its parents) before any work, so
/// that a path that cannot be one fails at once, named with its flag:
/// `Err` is the message (exit 2).
pub fn output_dir(dir: &Path, flag: &str) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "{flag} {}: it names a file, not a directory",
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{flag} {}: cannot create the directory: {e}", dir.display()))?;
    // A directory we may not write into fails now too, not after the work.
    let probe = dir.join(format!(".pomset-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| {
        format!(
            "{flag} {}: cannot write into the directory: {e}",
            dir.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

pub fn read(path: &Path) -> Result<String, String> {
    crate::syntax::diagnostic::read_text(path)
}

/// Parses each file and hands it to `f`; diagnostics go to standard error.
pub fn for_each(
    paths: &[PathBuf],
    cx: Ctx,
    mut f: impl FnMut(&Path, &syntax::Litmus) -> bool,
) -> Result<bool, String> {
    let mut ok = true;
    for path in litmus_files(paths)? {
        let src = read(&path)?;
        let name = path.display().to_string();
        match crate::import::load(&name, &src, cx.import) {
            Ok(test) => {
                test.warnings.emit_stderr(&name, &src, cx.color);
                ok &= f(&path, &test);
            }
            Err(diags) => {
                diags.emit_stderr(&name, &src, cx.color);
                ok = false;
            }
        }
    }
    Ok(ok)
}

/// A comma-separated list of models, as `--models` takes it: the commas
/// inside a model's brackets (`pwt[merge=binary,monotonicity=modes]`)
/// belong to its options, not to the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelList(pub Vec<String>);

impl std::ops::Deref for ModelList {
    type Target = Vec<String>;
    fn deref(&self) -> &Vec<String> {
        &self.0
    }
}

/// Parses `--models`: splits at the commas outside brackets.
pub fn model_list(text: &str) -> Result<ModelList, String> {
    crate::engine::model_list(text).map(ModelList)
}

#[cfg(test)]
mod tests {
    use super::model_list;

    #[test]
    fn a_models_list_keeps_the_commas_inside_brackets() {
        let l = model_list("pwt[merge=binary,monotonicity=modes], rc11,sc").unwrap();
        assert_eq!(l.0, ["pwt[merge=binary,monotonicity=modes]", "rc11", "sc"]);
        assert!(model_list("pwt,,sc").is_err());
    }
}
