//! `pomset transformations`: the table of transformation schemas under
//! every model, with each unsound cell's distinguishing test; sharded,
//! recorded as JSON Lines, resumed and merged (`transform::records`).

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use super::sweep::{open_jsonl, resume_command, save, Progress, CANCEL};
use crate::sweep::Shard;
use crate::transform::records::{self, Header, Record};
use crate::transform::{self, table, Bound, Cell};

/// The examples and notes under `pomset transformations --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset transformations
  pomset transformations --models pwt,rc11 reorder-rr elim-raw
  pomset transformations --out cex/ --json > table.json
  pomset transformations --shard 0/4 --jsonl s0.jsonl      (one of four)
  pomset transformations --merge s*.jsonl --markdown

--shard K/N decides the instances whose index in the table's order is K
modulo N; --jsonl records each row as it is decided and, run again,
resumes. Ctrl-C stops the table, keeping its records, and prints the
command that resumes it. --merge rebuilds the table from the shards'
records and says which shards or instances are missing; either exits 1
on an incomplete table unless --partial. The book's \"Which
transformations are sound\" has the recipe for GNU parallel.";

/// `pomset transformations`' flags.
#[derive(clap::Args, Debug)]
pub struct TransformationsArgs {
    /// Bundled schemas by name (all when none); or .refine schema files.
    pub schemas: Vec<String>,
    /// The models, one column each.
    #[arg(long, value_parser = super::args::model_list, default_value = crate::transform::table::DEFAULT_MODELS_TEXT)]
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
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// A progress line on stderr even when it is not a terminal.
    #[arg(long)]
    pub progress: bool,
    /// Decide only the instances whose index in the table's order is K
    /// modulo N (0 ≤ K < N); the table printed is this shard's.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Append one JSON record per instance as it is decided, after a
    /// header line; resumes when the file exists (instances already in it
    /// are skipped).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Accept an incomplete table (stopped by Ctrl-C, or --merge of some
    /// shards only): exit 0 instead of 1. It is still said to be incomplete.
    #[arg(long)]
    pub partial: bool,
    /// Decide nothing: rebuild the table from these files of records
    /// (--jsonl's), printed as without --merge; schema names among them
    /// (or before --merge) keep only those schemas' rows.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = [
        "models", "context_size", "context_threads", "max_contexts",
        "timeout", "shard", "jsonl",
    ])]
    pub merge: Vec<PathBuf>,
}

/// Decides the schemas named (bundled names or `.refine` files) under each
/// model and prints the table; Ok(false) when a counterexample written to
/// `--out` does not reproduce, or the table is incomplete (without
/// `--partial`).
pub fn table(args: &TransformationsArgs, color: bool) -> Result<bool, String> {
    if let Some(dir) = &args.out {
        super::args::output_dir(dir, "--out")?;
    }
    if !args.merge.is_empty() {
        return merge(args);
    }
    let bound = Bound {
        size: args.context_size,
        threads: args.context_threads,
        max_contexts: args.max_contexts,
    };
    let shard = match &args.shard {
        Some(s) => Shard::parse(s)?,
        None => Shard::WHOLE,
    };
    let instances = instances(&args.schemas, color)?;
    let mut engines = Vec::new();
    for m in args.models.iter() {
        engines.push((m.clone(), crate::engine::named(m).map_err(|e| e.line())?));
    }
    let mut schemas: Vec<String> = instances.iter().map(|i| i.schema.clone()).collect();
    schemas.dedup();
    let header = Header {
        models: engines.iter().map(|(m, _)| m.clone()).collect(),
        bound,
        timeout: args.timeout,
        schemas,
        instances: instances.len(),
        shard: shard.to_string(),
    };
    let (resumed, sink, finished) = resume(args.jsonl.as_deref(), &header, &instances)?;
    super::sweep::stop_on_ctrl_c();
    let show = args.progress || std::io::stderr().is_terminal();
    let total = shard.share(instances.len());
    let part = table::Part {
        shard,
        done: &resumed.iter().map(|r| r.index).collect(),
        cancel: Some(&CANCEL),
    };
    let (complete, fresh, sink) = decide(&instances, &engines, &header, part, sink, show)?;
    let mut all = resumed;
    all.extend(fresh);
    all.sort_by_key(|r| r.index);
    if let (true, false, Some(mut f)) = (complete, finished, sink) {
        writeln!(f, "{}", records::end_line(all.len()))
            .map_err(|e| format!("writing the records: {e}"))?;
    }
    let t = transform::Table {
        models: header.models.clone(),
        rows: all.iter().map(Record::row).collect(),
        bound,
    };
    if complete {
        return print(&t, args, shard, &[], &engines);
    }
    let why = format!("stopped by Ctrl-C after {} of {total} instances", all.len());
    // Without --jsonl the records so far go to a new file, to resume from.
    let file = match &args.jsonl {
        Some(path) => path.clone(),
        None => save("transformations", &header, &all)?,
    };
    let ok = print(&t, args, shard, &[why], &engines)?;
    let resume = resume_command(args.jsonl.is_none().then_some(file.as_path()));
    eprintln!(
        "stopped by Ctrl-C: the records so far are in {}; resume with\n  {resume}",
        file.display()
    );
    Ok(ok && args.partial)
}

/// The records already in `jsonl` (each checked against this table's
/// instances), the file to append to, and whether its sweep was through.
fn resume(
    jsonl: Option<&std::path::Path>,
    header: &Header,
    instances: &[transform::Instance],
) -> Result<(Vec<Record>, Option<std::fs::File>, bool), String> {
    let Some(path) = jsonl else {
        return Ok((Vec::new(), None, false));
    };
    let other = |h: &Header| differs(h, header);
    let o = open_jsonl(path, header, records::read, other)?;
    let name = path.display().to_string();
    for r in &o.records {
        check_resumed(r, header, instances, &name)?;
    }
    Ok((o.records, Some(o.file), o.finished))
}

/// Decides `part` of the table, each row recorded in `sink` as it is
/// decided, with a progress line: whether it went through, the records of
/// the rows decided, and the file back.
fn decide(
    instances: &[transform::Instance],
    engines: &[(String, Box<dyn crate::engine::Engine>)],
    header: &Header,
    part: table::Part,
    sink: Option<std::fs::File>,
    show: bool,
) -> Result<(bool, Vec<Record>, Option<std::fs::File>), String> {
    let total = AtomicU64::new(part.shard.share(instances.len()) as u64);
    let bar = Mutex::new(Progress::new(show, &total, "instances", part.done.len()));
    let fresh = Mutex::new(Vec::new());
    let sink = sink.map(Mutex::new);
    let failed = Mutex::new(None);
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let (bound, timeout) = (header.bound, header.timeout);
    let each = |i, row: table::Row| {
        let r = Record::of(i, &row);
        if let Some(Ok(mut f)) = sink.as_ref().map(Mutex::lock) {
            if let (Err(e), Ok(mut x)) =
                (writeln!(f, "{}", records::record_line(&r)), failed.lock())
            {
                x.get_or_insert(e.to_string());
            }
        }
        if let Ok(mut b) = bar.lock() {
            b.step();
        }
        if let Ok(mut v) = fresh.lock() {
            v.push(r);
        }
    };
    // Each cell its own deadline, counted from when it starts.
    let run = || cell_limits(timeout);
    let complete = table::sweep(instances, engines, bound, &run, workers, part, &each);
    if let Ok(b) = bar.lock() {
        b.end();
    }
    if let Some(e) = failed.into_inner().ok().flatten() {
        return Err(format!("writing the records: {e}"));
    }
    let fresh = fresh.into_inner().unwrap_or_default();
    let sink = sink.and_then(|m| m.into_inner().ok());
    Ok((complete, fresh, sink))
}

/// How the records file's header `there` differs from this sweep's.
fn differs(there: &Header, here: &Header) -> Option<String> {
    let mut diff: Vec<String> = there
        .differences(here)
        .into_iter()
        .map(|(field, t, h)| format!("{field}: {t} there, {h} here"))
        .collect();
    if there.shard != here.shard {
        diff.push(format!("shard: {} there, {} here", there.shard, here.shard));
    }
    (!diff.is_empty()).then(|| diff.join("; "))
}

/// A resumed record must be this table's instance at its index.
fn check_resumed(
    r: &Record,
    header: &Header,
    instances: &[transform::Instance],
    file: &str,
) -> Result<(), String> {
    r.check(header).map_err(|e| format!("{file}: {e}"))?;
    let here = instances
        .get(r.index)
        .map(|i| i.label())
        .unwrap_or_default();
    if here != r.instance {
        return Err(format!(
            "{file}: instance {} is {} there, {here} here; give another --jsonl",
            r.index, r.instance
        ));
    }
    Ok(())
}

/// `--merge`: the table of the files' records, said to be incomplete,
/// loudly, when a shard is missing or a file's sweep stopped.
fn merge(args: &TransformationsArgs) -> Result<bool, String> {
    // `--merge` takes the rest of the line, so the usage line's SCHEMAS
    // after it land here: a bundled schema's name that names no file is
    // one, as before --merge.
    let mut wanted: Vec<String> = args.schemas.clone();
    let mut paths = Vec::new();
    for path in &args.merge {
        let text = path.to_string_lossy();
        if !path.exists() && transform::bundled_instances(&[text.to_string()]).is_ok() {
            wanted.push(text.into_owned());
        } else {
            paths.push(path);
        }
    }
    if paths.is_empty() {
        return Err(format!(
            "--merge takes files of records (--jsonl's); {} {} schema names, which only choose rows of the merged table",
            wanted.join(", "),
            if wanted.len() == 1 { "is a" } else { "are" }
        ));
    }
    let mut files = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        files.push((name.clone(), records::read(&name, &text)?));
    }
    // The instances' names, when the schemas are bundled ones.
    let labels: Option<Vec<String>> = files.first().and_then(|(_, f)| {
        let inst = transform::bundled_instances(&f.header.schemas).ok()?;
        Some(inst.iter().map(|i| i.label()).collect())
    });
    let merged = records::merge(&files, labels.as_deref())?;
    let mut engines = Vec::new();
    for m in &merged.header.models {
        engines.push((m.clone(), crate::engine::named(m).map_err(|e| e.line())?));
    }
    let mut table = merged.table();
    if !wanted.is_empty() {
        let absent: Vec<&String> = wanted
            .iter()
            .filter(|w| !merged.header.schemas.contains(w))
            .collect();
        if !absent.is_empty() {
            return Err(format!(
                "the records hold no schema {} (they hold {})",
                absent
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                merged.header.schemas.join(", ")
            ));
        }
        table.rows.retain(|r| wanted.contains(&r.schema));
    }
    let ok = print(&table, args, Shard::WHOLE, &merged.incomplete, &engines)?;
    if merged.incomplete.is_empty() {
        return Ok(ok);
    }
    if !args.partial {
        eprintln!("warning: the table is of these records only; --partial accepts that (exit 0)");
    }
    Ok(ok && args.partial)
}

/// Prints the table as asked (text, `--markdown`, `--json`) and writes the
/// counterexamples under `--out`; `incomplete` says why rows are missing,
/// on stderr and in the text and JSON. Ok(false) when a counterexample
/// does not reproduce.
fn print(
    t: &transform::Table,
    args: &TransformationsArgs,
    shard: Shard,
    incomplete: &[String],
    engines: &[(String, Box<dyn crate::engine::Engine>)],
) -> Result<bool, String> {
    for why in incomplete {
        eprintln!("warning: incomplete: {why}");
    }
    let mut ok = true;
    if let Some(dir) = &args.out {
        ok = write_counterexamples(t, engines, dir)?;
    }
    if args.json {
        let mut json = t.json();
        if shard != Shard::WHOLE {
            json["shard"] = shard.to_string().into();
        }
        if !incomplete.is_empty() {
            json["incomplete"] = incomplete.into();
        }
        println!("{json:#}");
    } else if args.markdown {
        print!("{}", t.markdown());
    } else {
        print!("{}", t.text());
        let of = match shard == Shard::WHOLE {
            true => String::new(),
            false => format!(" (shard {shard})"),
        };
        println!(
            "{}{of} × {} models; bound: {}",
            crate::report::count(t.rows.len(), "instance"),
            t.models.len(),
            t.bound.text()
        );
        for why in incomplete {
            println!("INCOMPLETE: {why}");
        }
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
        let src = crate::syntax::diagnostic::read_text(std::path::Path::new(f))?;
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

/// The limits of one cell: `--timeout` from when it starts.
fn cell_limits(timeout: Option<f64>) -> crate::outcome::Limits {
    crate::outcome::Limits {
        deadline: timeout.map(crate::outcome::limits::deadline_after),
        ..crate::outcome::Limits::default()
    }
}
