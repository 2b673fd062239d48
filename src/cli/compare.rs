//! `pomset compare`: one verdict per model per condition, and `--mapping`.

use super::args::{engine_named, for_each, Ctx, LimitArgs};
use std::path::PathBuf;

use crate::model::Model;
use crate::workbench::apply_sets;

/// The examples and notes under `pomset compare --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset compare examples/classic --models pwt,rc11
  pomset compare examples/classic/mp.litmus --models rc11,my-model.cat
  pomset compare examples/ --models pwt,rc11 --mapping rc11:pwt
  pomset compare examples/ --models pwt,ptx --mapping pwt:ptx
  pomset compare examples/ --models pwt,vulkan --mapping pwt:vulkan
  pomset compare examples/ --models pwt,vulkan --mapping pwt:vulkan:wk-rlx

Each cell is herd7's observation of the condition under that model:
Sometimes, Always or Never (the outcome is never observed), or Unknown with
the limit that stopped the search. --mapping SRC:TGT lists every test and
condition whose outcome the target model allows and the source model
forbids (a counterexample to compiling SRC's programs to TGT), with the
explain commands for both sides; the exit code is 1 when there is one. The
programs go to TGT by the identity on modes, except to ptx (the PTX
lowering, on every run of ptx) and from pwt to vulkan (the Vulkan mapping,
only here; the variant wk-rlx reads wk as atomic): the book's \"PTX\" and
\"Vulkan\" have the tables. An outcome in a test where TGT raises a
flag its model declares undefined (rc11's and vulkan's data-race, the HRF
models' heterogeneous-race) is listed apart as racy under TGT (undefined
behaviour there), not as a counterexample; ptx declares its data-race
defined, so a racy PTX test is compared like any other.";

/// `pomset compare`'s flags.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// Litmus files, or directories searched for *.litmus and *.lit files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The models, comma-separated: pwt, a bundled cat model (rc11, ptx, hrf-direct, hrf-indirect), or .cat files.
    #[arg(long, default_value = "pwt,rc11", value_parser = super::args::model_list)]
    pub models: super::args::ModelList,
    /// List the outcomes the target allows and the source forbids.
    #[arg(long, value_name = "SRC:TGT")]
    pub mapping: Option<String>,
    /// Set a model option, overriding the file's `model {}` block (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub set: Vec<String>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `pomset compare`: the table, and with `--mapping` the counterexamples.
pub fn compare(args: &CompareArgs, cx: Ctx) -> Result<bool, String> {
    let (paths, models, sets) = (&args.paths, &args.models, &args.set);
    let (mapping, limit_args) = (args.mapping.as_deref(), args.limits);
    use crate::compare::{rows, table, Column};
    use crate::engine::axiomatic::Mapping;
    apply_sets(&mut Model::default(), sets)?;
    let mut columns = Vec::new();
    for m in models.iter() {
        let engine = engine_named(m, cx.color)?;
        columns.push(Column {
            name: m.clone(),
            engine,
        });
    }
    let index = |name: &str| {
        models.iter().position(|m| m == name).ok_or_else(|| {
            format!(
                "--mapping names `{name}`, which is not among --models {}",
                models.join(",")
            )
        })
    };
    let mapping_arg = mapping;
    let mapping = mapping.map(Mapping::parse).transpose()?;
    let pair = match &mapping {
        None => None,
        Some(m) => Some((index(&m.src)?, index(&m.tgt)?)),
    };
    // The mapping's lowering goes on the target's column only.
    if let (Some(m), Some((_, tgt))) = (&mapping, pair) {
        if let (Some(l), Some(column)) = (m.lowering, columns.get_mut(tgt)) {
            column.engine.lower(l);
        }
    }
    let mut all = Vec::new();
    let mut files = Vec::new();
    // One reading for every column: spins reduced only if all allow it.
    let engines: Vec<&dyn crate::engine::Engine> =
        columns.iter().map(|c| c.engine.as_ref()).collect();
    let cx = Ctx {
        import: cx.reading(&engines),
        ..cx
    };
    let parsed = for_each(paths, cx, |path, test| {
        let mut model = test.program.model;
        if apply_sets(&mut model, sets).is_err() {
            return false;
        }
        let found = rows(&test.program, &model, &columns, limit_args.limits());
        files.extend(found.iter().map(|_| path.to_path_buf()));
        all.extend(found);
        true
    })?;
    print!("{}", table(&columns, &all));
    let Some((src, tgt)) = pair else {
        return Ok(parsed);
    };
    let counter = |i: &usize| all[*i].allows(tgt) && all[*i].forbids(src);
    let (racy, bad): (Vec<usize>, Vec<usize>) = (0..all.len())
        .filter(counter)
        .partition(|&i| all[i].is_racy(tgt));
    let (s, t) = (&models[src], &models[tgt]);
    // The target side's explain takes the mapping when it lowers.
    let lowered = match &mapping {
        Some(m) if m.lowering.is_some() => format!(" --mapping {}", mapping_arg.unwrap_or("")),
        _ => String::new(),
    };
    let explain = |i: usize| {
        let (r, path) = (&all[i], files[i].display());
        println!("  {} {}", r.test, r.condition);
        println!("    pomset explain --model {s} {path} '{}'", r.prop);
        println!(
            "    pomset explain --model {t}{lowered} {path} '{}'",
            r.prop
        );
    };
    println!();
    if !racy.is_empty() {
        println!(
            "{} outcome{} {t} allows and {s} forbids in tests racy under {t} (a data race is undefined behaviour there; not counterexamples):",
            racy.len(),
            if racy.len() == 1 { "" } else { "s" }
        );
        for &i in &racy {
            println!("  {} {}: racy under {t}", all[i].test, all[i].condition);
        }
        println!();
    }
    if bad.is_empty() {
        let other = if racy.is_empty() { "" } else { " other" };
        println!("No{other} outcome that {t} allows is forbidden by {s}.");
        return Ok(parsed);
    }
    println!(
        "{} outcome{} {t} allows and {s} forbids:",
        bad.len(),
        if bad.len() == 1 { "" } else { "s" }
    );
    for i in bad {
        explain(i);
    }
    Ok(false)
}
