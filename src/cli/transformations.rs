//! `pomset transformations`: the table of transformation schemas under
//! every model, with each unsound cell's distinguishing test.

use std::io::Write as _;
use std::path::PathBuf;

use crate::transform::{self, table, Bound, Cell};

/// The examples and notes under `pomset transformations --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset transformations
  pomset transformations --models pwt,rc11 reorder-rr elim-raw
  pomset transformations --out cex/ --json > table.json";

/// `pomset transformations`' flags.
#[derive(clap::Args, Debug)]
pub struct TransformationsArgs {
    /// Bundled schemas by name (all when none); or .refine schema files.
    pub schemas: Vec<String>,
    /// The models, one column each.
    #[arg(long, value_parser = super::args::model_list, default_value = "pwt,rc11,ptx,vulkan,sc")]
    pub models: super::args::ModelList,
    /// The size of the contexts searched (the book's context grammar): 2
    /// by default, where the whole table takes minutes; `refine` searches
    /// size 3, where each cell takes seconds.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub context_size: usize,
    /// Parallel context threads at most.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub context_threads: usize,
    /// Stop each cell after this many contexts (the cell is then unknown,
    /// with the count) [default: every context of the bound].
    #[arg(long, value_name = "N")]
    pub max_contexts: Option<usize>,
    /// Give up on a cell (unknown, the limit named) after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds, allow_negative_numbers = true)]
    pub timeout: Option<f64>,
    /// Write each unsound cell's distinguishing test (both versions)
    /// here, re-checked under `run`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Every instance and cell as JSON.
    #[arg(long)]
    pub json: bool,
    /// The table in Markdown.
    #[arg(long)]
    pub markdown: bool,
    /// A progress line on stderr even when it is not a terminal.
    #[arg(long)]
    pub progress: bool,
}

/// Decides the schemas named (bundled names or `.refine` files) under each
/// model and prints the table; Ok(false) when a counterexample written to
/// `--out` does not reproduce.
pub fn table(args: &TransformationsArgs, color: bool) -> Result<bool, String> {
    use std::io::IsTerminal as _;
    let bound = Bound {
        size: args.context_size,
        threads: args.context_threads,
        max_contexts: args.max_contexts,
    };
    let progress = args.progress || std::io::stderr().is_terminal();
    let instances = instances(&args.schemas, color)?;
    let mut engines = Vec::new();
    for m in args.models.iter() {
        engines.push((m.clone(), crate::engine::named(m).map_err(|e| e.line())?));
    }
    let total = instances.len();
    let tick = |n: usize, label: &str| {
        if progress {
            eprint!("\r\x1b[K[{n}/{total}] {label}");
            let _ = std::io::stderr().flush();
        }
    };
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let t = table::build(&instances, &engines, bound, args.timeout, workers, &tick);
    if progress {
        eprintln!();
    }
    let mut ok = true;
    if let Some(dir) = &args.out {
        ok = write_counterexamples(&t, &engines, dir)?;
    }
    if args.json {
        println!("{:#}", t.json());
    } else if args.markdown {
        print!("{}", t.markdown());
    } else {
        print!("{}", t.text());
        println!(
            "{} × {} models; bound: {}",
            crate::report::count(t.rows.len(), "instance"),
            t.models.len(),
            bound.text()
        );
    }
    Ok(ok)
}

fn instances(schemas: &[String], color: bool) -> Result<Vec<transform::Instance>, String> {
    let (files, names): (Vec<&String>, Vec<&String>) =
        schemas.iter().partition(|s| s.ends_with(".refine"));
    let names: Vec<String> = names.into_iter().cloned().collect();
    let mut out = if files.is_empty() || !names.is_empty() {
        transform::bundled_instances(&names)?
    } else {
        Vec::new()
    };
    for f in files {
        let src = std::fs::read_to_string(f).map_err(|e| format!("cannot read {f}: {e}"))?;
        let stem = std::path::Path::new(f)
            .file_stem()
            .map_or_else(|| f.clone(), |s| s.to_string_lossy().into_owned());
        let schema = transform::parse_schema(&stem, &src).map_err(|d| {
            d.emit_stderr(f, &src, color);
            format!("{f} has errors")
        })?;
        let inst = schema.instances().map_err(|(label, text, d)| {
            d.emit_stderr(&format!("{f} {label}"), &text, color);
            format!("{f}: the instance {label} has errors")
        })?;
        out.extend(inst);
    }
    Ok(out)
}

/// Writes each unsound cell's two tests to `dir`, and re-decides them:
/// false when one does not reproduce.
fn write_counterexamples(
    t: &transform::Table,
    engines: &[(String, Box<dyn crate::engine::Engine>)],
    dir: &std::path::Path,
) -> Result<bool, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut ok = true;
    for row in &t.rows {
        let label = transform::catalogue::label(&row.schema, &row.choice);
        let stem = transform::catalogue::file_stem(&label);
        for ((model, engine), cell) in engines.iter().zip(&row.cells) {
            let Cell::Unsound(Some(c)) = cell else {
                continue;
            };
            let m: String = model
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            for (side, text) in [("target", &c.target_test), ("source", &c.source_test)] {
                let path = dir.join(format!("{stem}.{m}.{side}.litmus"));
                std::fs::write(&path, text)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            if !table::reproduces(c, engine.as_ref()) {
                eprintln!("{label} under {model}: the counterexample does not reproduce");
                ok = false;
            }
        }
    }
    Ok(ok)
}
