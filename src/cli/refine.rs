//! `pomset refine`: is a transformation sound?

use crate::workbench::apply_sets;

/// The refinements to decide, each with its name: the `--from/--to` pair,
/// or every file under `paths`.
fn inputs(
    paths: &[std::path::PathBuf],
    quick_pair: Option<(String, String)>,
) -> Result<Vec<(String, String)>, String> {
    use crate::refinement::{quick_text, refinement_files};
    if let Some((from, to)) = quick_pair {
        return Ok(vec![("--from/--to".into(), quick_text(&from, &to))]);
    }
    if paths.is_empty() {
        return Err("give refinement files, or --from and --to".into());
    }
    let mut out = Vec::new();
    for path in refinement_files(paths)? {
        let src = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        out.push((path.display().to_string(), src));
    }
    Ok(out)
}

/// `pomset refine`: each file (or the `--from/--to` pair); Ok(false) when a
/// verdict differs from its `expect` or a file does not parse.
pub fn refine_files(
    paths: &[std::path::PathBuf],
    quick_pair: Option<(String, String)>,
    sets: &[String],
    (max_contexts, max_pomsets, timeout): (usize, usize, Option<f64>),
    color: bool,
) -> Result<bool, String> {
    use crate::refinement::{parse_refinement, refine, Limits};
    let inputs = inputs(paths, quick_pair)?;
    let mut ok = true;
    for (name, src) in inputs {
        let req = match parse_refinement(&src) {
            Ok(r) => r,
            Err(d) => {
                d.emit_stderr(&name, &src, color);
                ok = false;
                continue;
            }
        };
        let mut model = req.program.model;
        apply_sets(&mut model, sets)?;
        let mut limits = Limits {
            max_contexts,
            max_pomsets,
            ..Limits::default()
        };
        limits.run.deadline = timeout.map(crate::outcome::limits::deadline_after);
        match refine(&req, &model, limits) {
            Ok(report) => {
                print!("{}", report.text());
                ok &= report.as_expected();
            }
            Err(e) => {
                println!("Refinement {}: {e}", req.name);
                ok = false;
            }
        }
    }
    Ok(ok)
}

/// `pomset refine --model NAME` for a model other than `pwt`: the context
/// search alone, under that model's engine.
pub fn refine_under(
    paths: &[std::path::PathBuf],
    quick_pair: Option<(String, String)>,
    model: &str,
    bound: crate::transform::Bound,
    color: bool,
) -> Result<bool, String> {
    use crate::refinement::parse_refinement;
    use crate::transform::{search, Found, Witness};
    let engine = super::args::engine_named(model, color)?;
    let inputs = inputs(paths, quick_pair)?;
    let mut ok = true;
    for (name, src) in inputs {
        let req = match parse_refinement(&src) {
            Ok(r) => r,
            Err(d) => {
                d.emit_stderr(&name, &src, color);
                ok = false;
                continue;
            }
        };
        let head = format!("Refinement {} under {model}", req.name);
        match search(&req, engine.as_ref(), &req.program.model, bound) {
            Found::Counterexample(c) => {
                println!("{head}: unsound");
                match &c.witness {
                    Witness::Outcome(o) => println!(
                        "Distinguishing test ({} tried): the target reaches {o}, the source never does",
                        crate::report::count(c.tried, "context")
                    ),
                    Witness::Flag(f) => println!(
                        "Distinguishing test ({} tried): the target raises the flag {f}, the source does not",
                        crate::report::count(c.tried, "context")
                    ),
                }
                print!("{}", c.target_test);
            }
            Found::NoneUpTo {
                bound,
                tried,
                skipped,
            } => {
                println!("{head}: no counterexample up to {bound}");
                let skipped = if skipped > 0 {
                    format!(" ({skipped} left out: a flag raised by the source, or a limit)")
                } else {
                    String::new()
                };
                println!("{}{skipped}", crate::report::count(tried, "context"));
            }
            Found::Unknown(why) => {
                println!("{head}: unknown: {why}");
                ok = false;
            }
        }
        if req.expect.is_some() {
            println!("(the file's expect line states the pwt verdict; not checked under {model})");
        }
    }
    Ok(ok)
}
