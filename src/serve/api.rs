//! The JSON API: one request type, one function per endpoint, each a thin
//! layer over `workbench` that runs on a blocking thread within the
//! request's limits. Errors are `Problem`s (located when they have a place).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::engine::Engine;
use crate::model::Model;
use crate::outcome::Limits;
use crate::serve::held::Held;
use crate::workbench::{self, Problem, TestInput};

/// The most seconds one request may decide for, and the default.
pub const MAX_TIMEOUT: f64 = 60.0;
pub const DEFAULT_TIMEOUT: f64 = 10.0;
/// The most local pomsets (`--max-pomsets`) one request may ask for, and the default.
pub const MAX_POMSETS: usize = 1_000_000;
pub const DEFAULT_POMSETS: usize = 200_000;
/// Final states kept per request: what bounds a request's memory.
pub const MAX_STATES: usize = 200_000;
/// States a decision lists (and the server holds for `/api/states`) at
/// most: the first determined ones, as `run` lists its first thousand.
/// Listed states are plain values (a name and a value per register and
/// location), a thousand times the engine's packed ones: 200 000 of a
/// twelve-thread ring took 390 MB a request; 20 000 take a tenth.
pub const MAX_LISTED: usize = 20_000;
/// Pictures drawn per request at most.
pub const MAX_PICTURES: usize = 50;
/// States per page (`decide`, `states`) by default, and at most.
pub const DEFAULT_PAGE: usize = 200;
pub const MAX_PAGE: usize = 5_000;

/// Every endpoint's request: the test and what to do with it. Unused fields
/// are ignored, so the page sends one shape everywhere.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct Request {
    #[serde(flatten)]
    pub test: TestInput,
    /// A model name (`engine::named_bundled`): `pwt` (the pomset
    /// semantics, the default), `pwt:reference`, `sc` or a bundled cat model
    /// (`rc11`), with options in brackets.
    pub model: Option<String>,
    /// The older way to ask for `pwt:reference` (`reference`) or `sc`.
    pub engine: Option<String>,
    /// Seconds, at most `MAX_TIMEOUT` (default `DEFAULT_TIMEOUT`).
    pub timeout: Option<f64>,
    pub max_pomsets: Option<usize>,
    /// `draw`: svg (default), tikz, dot or text.
    pub format: Option<String>,
    /// `draw`: complete (default), candidates, incomplete or N.
    pub which: Option<String>,
    /// `draw`: at most this many pictures.
    pub limit: Option<usize>,
    /// `vary`: the option.
    pub option: Option<String>,
    /// `refine`: a refinement file's text, or `from` and `to` fragments.
    pub refinement: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    /// `decide`, `states`: at most this many states in the answer
    /// (default `DEFAULT_PAGE`, at most `MAX_PAGE`).
    pub page: Option<usize>,
    /// `states`: the decision (`decide`'s `page.id`) and the first state wanted.
    pub id: Option<u64>,
    pub offset: Option<usize>,
    /// `transformations`: the bundled schema, and optionally one of its
    /// instances by label (`reorder-rr[M1=rlx,M2=acq]`).
    pub schema: Option<String>,
    pub instance: Option<String>,
    /// `transformations`: the models, one column each (default
    /// `DEFAULT_TABLE_MODELS`); `distinguish`: the two models. A list, or
    /// one string split as `--models` is.
    pub models: Option<Words>,
    /// `transformations`, `refine`: the size of the contexts searched (1 to
    /// 3; default 2, and 3 for `refine` under a model other than pwt).
    pub context_size: Option<usize>,
    /// `distinguish`: the bound (defaults as `pomset distinguish`'s).
    pub threads: Option<usize>,
    pub per_thread: Option<usize>,
    pub locations: Option<u8>,
    pub values: Option<u8>,
    pub modes: Option<Words>,
    pub fences: Option<bool>,
    /// `distinguish`: the chunk (shard `chunk/chunks`) to decide, and the
    /// sweep it belongs to (the first answer's `sweep`; none: a new sweep).
    pub chunk: Option<usize>,
    pub chunks: Option<usize>,
    pub sweep: Option<u64>,
    /// Set by the server when the client goes away (a dropped connection:
    /// the page's Cancel): every search of the request stops as at a limit.
    #[serde(skip)]
    pub cancel: Option<&'static std::sync::atomic::AtomicBool>,
}

/// A list of names, as a JSON list or one comma-separated string.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Words {
    List(Vec<String>),
    Text(String),
}

impl Words {
    /// The names; a string is split as `--models` splits it (not at the
    /// commas inside a model's brackets).
    pub fn list(&self) -> Result<Vec<String>, Problem> {
        match self {
            Words::List(l) => Ok(l.iter().map(|s| s.trim().to_string()).collect()),
            Words::Text(t) => crate::engine::model_list(t).map_err(Problem::message),
        }
    }
}

impl Request {
    /// Refuses a field whose value the API would otherwise ignore or
    /// change quietly: an `engine` it does not know, or one beside a model
    /// other than `pwt`; a `max_pomsets`, `timeout`, `page` or
    /// `context_size` outside what it takes. Each names the field.
    pub fn check(&self) -> Result<(), Problem> {
        let model = self.model.as_deref().filter(|m| !m.is_empty());
        match self.engine.as_deref() {
            None | Some("") | Some("fast") => {}
            Some("reference" | "sc") if matches!(model, None | Some("pwt")) => {}
            Some(e @ ("reference" | "sc")) => {
                return Err(Problem::message(format!(
                    "`engine: \"{e}\"` chooses how the pomset semantics is decided; it does not combine with `model: \"{}\"` (name `pwt:reference` or `sc` as the model instead)",
                    model.unwrap_or_default()
                )))
            }
            Some(e) => {
                return Err(Problem::message(format!(
                    "`engine: \"{e}\"` is not an engine: it takes `fast`, `reference` or `sc` (or name the model in `model`: {})",
                    crate::engine::names().join(", ")
                )))
            }
        }
        if let Some(n) = self.max_pomsets {
            if !(1..=MAX_POMSETS).contains(&n) {
                return Err(Problem::message(format!(
                    "`max_pomsets: {n}`: it takes 1 to {MAX_POMSETS} local pomsets"
                )));
            }
        }
        if let Some(t) = self.timeout {
            if !(t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT) {
                return Err(Problem::message(format!(
                    "`timeout: {t}`: it takes a number of seconds above 0, at most {MAX_TIMEOUT}"
                )));
            }
        }
        if let Some(n) = self.page {
            if !(1..=MAX_PAGE).contains(&n) {
                return Err(Problem::message(format!(
                    "`page: {n}`: it takes 1 to {MAX_PAGE} states"
                )));
            }
        }
        if let Some(n) = self.context_size {
            if !(1..=MAX_CONTEXT_SIZE).contains(&n) {
                return Err(Problem::message(format!(
                    "`context_size: {n}`: it takes 1 to {MAX_CONTEXT_SIZE} here (`pomset transformations --context-size N` and `pomset refine --context-size N` take more)"
                )));
            }
        }
        Ok(())
    }

    /// The limits of this request, the deadline counted from now.
    pub fn limits(&self) -> Limits {
        let secs = self
            .timeout
            .filter(|t| t.is_finite())
            .unwrap_or(DEFAULT_TIMEOUT)
            .clamp(0.01, MAX_TIMEOUT);
        Limits {
            max_pomsets: self
                .max_pomsets
                .unwrap_or(DEFAULT_POMSETS)
                .clamp(1, MAX_POMSETS),
            max_states: MAX_STATES,
            deadline: Some(crate::outcome::limits::deadline_after(secs)),
            cancel: self.cancel,
            ..Limits::default()
        }
    }

    /// The number of states one answer carries.
    fn page_size(&self) -> usize {
        self.page.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE)
    }

    /// The engine asked for. Only native and bundled models: the server
    /// reads no file named by a request.
    fn engine(&self) -> Result<Box<dyn Engine>, Problem> {
        let name = match (self.model.as_deref(), self.engine.as_deref()) {
            (None | Some("") | Some("pwt"), Some("reference")) => "pwt:reference",
            (None | Some("") | Some("pwt"), Some("sc")) => "sc",
            (None | Some(""), _) => "pwt",
            (Some(name), _) => name,
        };
        crate::engine::named_bundled(name).map_err(|e| {
            Problem::message(format!(
                "{}: the explorer decides under {}",
                e.line(),
                crate::engine::names().join(", ")
            ))
        })
    }
}

/// What the pomset semantics refuses (an option value such as `if_closure
/// = on`, a construct only the Vulkan model defines) as a problem.
fn refused(p: &crate::syntax::core::Program, model: &Model) -> Result<(), Problem> {
    crate::engine::pwt::refused_program(p, model)
        .map_err(|u| Problem::message(workbench::refusal_text(&u)))
}

/// `POST /api/decide`: the report (states, verdicts), its text as `pomset
/// run` prints it, the warnings (located, and rendered as `pomset run`
/// prints them on standard error), and the options with their values. The
/// report lists only the first `page` states; `page` says how many are held
/// (`total`), how many there are in all (`all`), and the id under which
/// `states` serves the held ones. The engine keeps states as compactly as
/// `pomset run` does (one per orbit of interchangeable threads, readers
/// kept apart as a product), and a decision holds at most `MAX_LISTED` of
/// them: every state when there are no more, else the first determined
/// ones, as `run` lists its first thousand.
pub fn decide(req: &Request, held: &Held) -> Result<Value, Problem> {
    let loaded = workbench::load(&req.test)?;
    let p = &loaded.test.program;
    let limits = Limits {
        orbits: true,
        listed: Some(MAX_LISTED),
        ..req.limits()
    };
    let engine = req.engine()?;
    let mut report = workbench::decide(engine.as_ref(), p, &loaded.model, false, limits);
    let text = report.text(p);
    let total = report.states.len();
    let all = report.unlisted.map_or(total, |u| u.total);
    let id = held.keep(&report.states);
    report.states.truncate(req.page_size());
    // The warnings as the terminal prints them (`pomset run`'s standard error).
    let name = if req.test.name.is_empty() {
        "test.litmus"
    } else {
        req.test.name.as_str()
    };
    let rendered = match loaded.test.warnings.is_empty() {
        true => String::new(),
        false => loaded.test.warnings.render(name, &req.test.source),
    };
    Ok(json!({
        "report": report,
        "text": text,
        "warnings": loaded.warnings,
        "warnings_rendered": rendered,
        "options": workbench::options_for(&loaded.model, engine.as_ref()),
        "page": { "id": id, "offset": 0, "total": total, "all": all },
    }))
}

/// `POST /api/states`: the states `offset..offset + page` of the decision
/// `id`, as `decide` listed its first page.
pub fn states(req: &Request, held: &Held) -> Result<Value, Problem> {
    let Some(id) = req.id else {
        return Err(Problem::message(
            "give the `id` of a decision (`page.id` in decide's answer)",
        ));
    };
    let offset = req.offset.unwrap_or(0);
    let page = held.page(id, offset, req.page_size()).ok_or_else(|| {
        Problem::message(format!(
            "the states of decision {id} are no longer held (the server keeps the latest {}): run the test again",
            crate::serve::held::MAX_HELD
        ))
    })?;
    Ok(json!({ "states": page.states, "offset": offset, "total": page.total }))
}

/// `POST /api/explain`: why the request's condition (or each of the file's)
/// is forbidden.
pub fn explain(req: &Request) -> Result<Value, Problem> {
    let loaded = workbench::load(&req.test)?;
    let p = &loaded.test.program;
    let chosen: Vec<usize> = match loaded.added_condition(&req.test) {
        Some(i) => vec![i],
        None => (0..p.conditions.len()).collect(),
    };
    if chosen.is_empty() {
        return Err(Problem::message(
            "the test has no conditions: give one to explain",
        ));
    }
    let limits = req.limits();
    let text = req
        .engine()?
        .explain(p, &loaded.model, &chosen, &limits)
        .map_err(Problem::message)?;
    Ok(json!({ "text": text }))
}

/// `POST /api/pomsets`: the complete pomsets (ending in the condition's
/// state, if one is given) in the note's notation, or with `which:
/// "candidates"` every candidate pomset (§1.3), complete or not.
pub fn pomsets(req: &Request) -> Result<Value, Problem> {
    let loaded = workbench::load(&req.test)?;
    let p = &loaded.test.program;
    let shown = req.limit.unwrap_or(MAX_PICTURES).min(MAX_PICTURES);
    if req.which.as_deref() == Some("candidates") {
        let listing = workbench::candidate_listing(p, &loaded.model, req.limits(), shown)
            .map_err(Problem::message)?;
        let summary = listing.summary();
        return Ok(
            json!({ "pomsets": listing.pomsets, "count": listing.candidates, "complete": listing.complete, "summary": summary, "limit": listing.limit }),
        );
    }
    let filter = loaded
        .added_condition(&req.test)
        .and_then(|i| p.conditions.get(i))
        .map(|c| c.prop.clone());
    let listing = workbench::pomset_listing(p, &loaded.model, filter.as_ref(), req.limits());
    if let Some(refusal) = &listing.unsupported {
        return Err(Problem::message(refusal.clone()));
    }
    let summary = listing.summary(shown.min(listing.pomsets.len()));
    let pomsets: Vec<&String> = listing.pomsets.iter().take(shown).collect();
    Ok(
        json!({ "pomsets": pomsets, "count": listing.pomsets.len(), "summary": summary, "limit": listing.limit }),
    )
}

/// `POST /api/draw`: pictures of the complete pomsets (a cat model's
/// consistent executions) ending in the condition's state, one string each.
pub fn draw(req: &Request) -> Result<Value, Problem> {
    use crate::render::draw::{DrawOptions, Format, Which};
    let loaded = workbench::load(&req.test)?;
    let p = &loaded.test.program;
    let format = match req.format.as_deref().unwrap_or("svg") {
        "svg" => Format::Svg,
        "tikz" => Format::Tikz,
        "dot" => Format::Dot,
        "text" => Format::Text,
        other => {
            return Err(Problem::message(format!(
                "`{other}` is not a format; use svg, tikz, dot or text"
            )))
        }
    };
    let which =
        Which::parse(req.which.as_deref().unwrap_or("complete")).map_err(Problem::message)?;
    let outcome = loaded
        .added_condition(&req.test)
        .and_then(|i| p.conditions.get(i))
        .map(|c| c.prop.clone());
    let engine = req.engine()?;
    if engine.name() == "pwt" {
        refused(p, &loaded.model)?;
    }
    let opts = DrawOptions {
        format,
        which,
        limits: req.limits(),
        max_pictures: Some(req.limit.unwrap_or(12).clamp(1, MAX_PICTURES)),
        ..DrawOptions::default()
    };
    let (pictures, in_all, limit) =
        workbench::draw_each(&loaded.test, &loaded.model, engine.as_ref(), outcome, &opts)
            .map_err(Problem::message)?;
    Ok(json!({ "pictures": pictures, "in_all": in_all, "limit": limit }))
}

/// `POST /api/refine`: a refinement file's text, or `from`/`to` fragments,
/// under the request's model as `pomset refine --model M` decides it (the
/// pomset semantics by its local check, any other model by the context
/// search alone), within the request's limits: the answer names the limit
/// that stopped it (`limit`).
pub fn refine(req: &Request) -> Result<Value, Problem> {
    let text = match (&req.refinement, &req.from, &req.to) {
        (Some(text), _, _) if !text.trim().is_empty() => text.clone(),
        (_, Some(from), Some(to)) => crate::refinement::quick_text(from, to),
        _ => {
            return Err(Problem::message(
                "give a refinement file's text, or a source and a target fragment",
            ))
        }
    };
    let engine = req.engine()?;
    let run = req.limits();
    let local = engine.can(crate::engine::Capability::LocalRefine);
    let defaults = crate::refinement::Limits::default();
    let limits = crate::refinement::Limits {
        run: Limits {
            max_pomsets: run.max_pomsets.min(50_000),
            ..run
        },
        // As `refine --model M`: the cat models, with no local check, search
        // size 3; `context_size` (1 to `MAX_CONTEXT_SIZE`) sets it.
        contexts: match (req.context_size, local) {
            (Some(size), _) => Some(crate::transform::Bound {
                size,
                ..crate::transform::Bound::default()
            }),
            (None, true) => defaults.contexts,
            (None, false) => Some(crate::transform::Bound::default()),
        },
        ..defaults
    };
    let mut refined = workbench::refine_under(&text, &req.test.sets, engine.as_ref(), limits)?;
    // As the request named it (a cat model calls itself `RC11`).
    if let Some(m) = req.model.as_deref().filter(|m| !m.is_empty()) {
        refined.model = m.to_string();
    }
    Ok(serde_json::to_value(refined).unwrap_or(Value::Null))
}

/// `POST /api/vary`: the test under every value of one option.
pub fn vary(req: &Request) -> Result<Value, Problem> {
    let name = req.option.as_deref().unwrap_or("");
    let Some(info) = Model::OPTIONS.iter().find(|o| o.name == name) else {
        let hint = crate::model::closest(name, Model::OPTIONS.iter().map(|o| o.name))
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        return Err(Problem::message(format!(
            "unknown model option `{name}`{hint}"
        )));
    };
    let loaded = workbench::load(&req.test)?;
    let deadline = req.limits();
    let table = workbench::vary(&loaded.test.program, &loaded.model, info, || deadline);
    Ok(serde_json::to_value(table).unwrap_or(Value::Null))
}

/// `POST /api/compare`: the test under every model the explorer offers
/// (`pomset compare --models pwt,sc,rc11,...`), one row per condition, one
/// verdict per model; the models share the request's time limit, and a
/// model that a limit stopped says `Unknown` with the limit named.
pub fn compare(req: &Request) -> Result<Value, Problem> {
    use crate::compare::{rows, Column};
    let loaded = workbench::load(&req.test)?;
    let mut columns = Vec::new();
    for name in std::iter::once("pwt")
        .chain(std::iter::once("sc"))
        .chain(crate::cat::BUNDLED.iter().map(|(n, _)| *n))
    {
        let engine = crate::engine::named_bundled(name).map_err(|e| Problem::message(e.line()))?;
        columns.push(Column {
            name: name.to_string(),
            engine,
        });
    }
    let found = rows(&loaded.test.program, &loaded.model, &columns, req.limits());
    let rows: Vec<Value> = found
        .iter()
        .map(|r| json!({ "condition": r.condition, "verdicts": r.verdicts, "racy": r.racy }))
        .collect();
    let models: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    Ok(json!({ "models": models, "rows": rows }))
}

/// `GET /api/options` (defaults) or `POST /api/options` (the test's model
/// with the overrides).
pub fn options(req: Option<&Request>) -> Result<Value, Problem> {
    let model = match req {
        Some(r) if !r.test.source.trim().is_empty() => workbench::load(&r.test)?.model,
        Some(r) => {
            let mut m = Model::default();
            workbench::apply_sets(&mut m, &r.test.sets).map_err(Problem::message)?;
            m
        }
        None => Model::default(),
    };
    let options = match req.map(Request::engine).transpose()? {
        Some(engine) => workbench::options_for(&model, engine.as_ref()),
        None => workbench::options(&model),
    };
    Ok(json!({ "options": options, "models": models() }))
}

/// The models a request may name.
fn models() -> Vec<&'static str> {
    std::iter::once("pwt")
        .chain(crate::cat::BUNDLED.iter().map(|(n, _)| *n))
        .collect()
}

/// One bundled example.
#[derive(Clone, Debug, Serialize)]
pub struct Example {
    /// Its path under `examples/`.
    pub path: &'static str,
    pub source: &'static str,
}

/// Every file under `examples/`, embedded at build time.
pub const EXAMPLES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// `GET /api/examples`.
pub fn examples() -> Vec<Example> {
    EXAMPLES
        .iter()
        .map(|(path, source)| Example { path, source })
        .collect()
}

/// The table's models by default, as `pomset transformations` has them.
pub const DEFAULT_TABLE_MODELS: &[&str] = crate::transform::table::DEFAULT_MODELS;
/// The largest context size a table request may search (`refine` searches 3).
pub const MAX_CONTEXT_SIZE: usize = 3;

/// A model of the explorer's (native or bundled: no file), by its name.
fn bundled(name: &str) -> Result<Box<dyn Engine>, Problem> {
    crate::engine::named_bundled(name).map_err(|e| {
        Problem::message(format!(
            "{}: the explorer decides under {}",
            e.line(),
            crate::engine::names().join(", ")
        ))
    })
}

/// `GET /api/transformations`: the bundled schemas (name, holes, number of
/// instances), in the order `pomset transformations` decides them, and the
/// default models and context bound of `POST /api/transformations`.
pub fn transformations_list() -> Result<Value, Problem> {
    use crate::transform::catalogue;
    let mut schemas = Vec::new();
    for (name, src) in catalogue::BUNDLED {
        let schema = crate::transform::parse_schema(name, src)
            .map_err(|_| Problem::message(format!("bundled schema {name} has errors")))?;
        let instances = schema.instances().map_err(|(l, _, _)| {
            Problem::message(format!("bundled instance {l} does not parse"))
        })?;
        let labels: Vec<String> = instances.iter().map(|i| i.label()).collect();
        schemas.push(json!({ "name": name, "holes": schema.holes, "instances": labels }));
    }
    Ok(json!({
        "schemas": schemas,
        "models": DEFAULT_TABLE_MODELS,
        "known": crate::engine::names(),
        "bound": crate::transform::Bound { size: 2, threads: 2, max_contexts: None }.text(),
    }))
}

/// `POST /api/transformations`: one bundled schema (`schema`), or one of
/// its instances (`instance`), decided under each model (`models`) as
/// `pomset transformations` decides a row, every cell within the request's
/// limits: the rows collapsed into families as the command prints them,
/// each cell with its word and its distinguishing test (an unsound one) or
/// the limit that stopped it (an unknown one); `limit` names the limit the
/// request reached, if it left a cell unknown.
pub fn transformations(req: &Request) -> Result<Value, Problem> {
    use crate::transform::{table, Bound, Cell};
    let Some(schema) = req.schema.as_deref().filter(|s| !s.is_empty()) else {
        return Err(Problem::message(
            "give a `schema` (GET /api/transformations lists them)",
        ));
    };
    let mut instances =
        crate::transform::bundled_instances(&[schema.to_string()]).map_err(Problem::message)?;
    if let Some(label) = req.instance.as_deref().filter(|s| !s.is_empty()) {
        instances.retain(|i| i.label() == label);
        if instances.is_empty() {
            return Err(Problem::message(format!(
                "the schema {schema} has no instance `{label}` (GET /api/transformations lists them)"
            )));
        }
    }
    let names = match &req.models {
        Some(w) => w.list()?,
        None => DEFAULT_TABLE_MODELS.iter().map(|s| s.to_string()).collect(),
    };
    if names.is_empty() {
        return Err(Problem::message("give at least one model"));
    }
    let mut engines = Vec::new();
    for n in &names {
        engines.push((n.clone(), bundled(n)?));
    }
    let size = req.context_size.unwrap_or(2);
    if !(1..=MAX_CONTEXT_SIZE).contains(&size) {
        return Err(Problem::message(format!(
            "context_size takes 1 to {MAX_CONTEXT_SIZE} here (`pomset transformations --context-size N` takes more)"
        )));
    }
    let bound = Bound {
        size,
        threads: 2,
        max_contexts: None,
    };
    // One deadline for the whole request, fixed now.
    let run = req.limits();
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(2);
    let rows = table::rows(&instances, &engines, bound, &|| run, workers, &|_, _| {});
    let t = crate::transform::Table {
        models: names,
        rows,
        bound,
    };
    let unknown = t
        .rows
        .iter()
        .any(|r| r.cells.iter().any(|c| matches!(c, Cell::Unknown(_))));
    let limit = match unknown {
        true => crate::outcome::interrupted(run.deadline, run.cancel),
        false => None,
    };
    Ok(json!({
        "schema": schema,
        "models": t.models,
        "bound": bound.text(),
        "instances": t.rows.len(),
        "families": t.families_json(),
        "text": t.text(),
        "limit": limit,
    }))
}

/// The most programs a sweep of the explorer may have, the most threads
/// and accesses per thread, and the programs per chunk it is cut into.
pub const MAX_SWEEP_PROGRAMS: u64 = 20_000;
pub const MAX_SWEEP_THREADS: usize = 3;
pub const MAX_SWEEP_PER_THREAD: usize = 3;
pub const SWEEP_CHUNK: u64 = 16;

/// The space of a `distinguish` request (its bound and vocabulary, the
/// defaults as `pomset distinguish`'s) and its number of programs, when
/// that can be counted without listing them.
fn sweep_space(req: &Request) -> Result<(crate::distinguish::shape::Space, Option<u64>), Problem> {
    use crate::distinguish::count;
    use crate::distinguish::shape::{Bound, Space, Vocabulary};
    let threads = req.threads.unwrap_or(2);
    let per_thread = req.per_thread.unwrap_or(2);
    if threads > MAX_SWEEP_THREADS || per_thread > MAX_SWEEP_PER_THREAD {
        return Err(Problem::message(format!(
            "the explorer sweeps at most {MAX_SWEEP_THREADS} threads of {MAX_SWEEP_PER_THREAD} accesses (`pomset distinguish` takes any bound)"
        )));
    }
    let modes = match &req.modes {
        Some(Words::List(l)) => l.clone(),
        Some(Words::Text(t)) => t.split(',').map(str::to_string).collect(),
        None => vec!["rlx".to_string()],
    };
    let sys = ["sys".to_string()];
    let space = Space {
        bound: Bound {
            threads,
            per_thread,
            total: threads * per_thread,
            locations: req.locations.unwrap_or(2),
            values: req.values.unwrap_or(2),
        },
        vocabulary: Vocabulary::parse(&modes, &sys, req.fences.unwrap_or(false), &[], &[], None)
            .map_err(Problem::message)?,
    };
    space.check().map_err(Problem::message)?;
    crate::distinguish::check_held(&space).map_err(Problem::message)?;
    let programs = count::programs(&space);
    Ok((space, programs))
}

/// `POST /api/distinguish/count`: the bound a `distinguish` request gives,
/// counted before any sweep (no program is decided): `programs` (null when
/// it cannot be counted without listing), `max` (the most the explorer
/// sweeps), `sweepable`, and `space` (the bound stated in full). The page
/// asks it as the form changes, so it offers only bounds it sweeps.
pub fn distinguish_count(req: &Request) -> Result<Value, Problem> {
    let (space, programs) = sweep_space(req)?;
    Ok(json!({
        "programs": programs,
        "max": MAX_SWEEP_PROGRAMS,
        "sweepable": programs.is_some_and(|n| n <= MAX_SWEEP_PROGRAMS),
        "space": space.describe(),
    }))
}

/// `POST /api/distinguish`: one chunk (shard `chunk/chunks`) of `pomset
/// distinguish --models A,B` over the bound given, within the request's
/// limits. The first request of a sweep gives no `sweep` (nor `chunks`:
/// the server cuts the sweep into chunks of about `SWEEP_CHUNK` programs);
/// its answer's `sweep` and `chunks` name the rest. Every answer carries
/// the sweep so far: the programs decided, the headline (the bound stated
/// exactly: no difference among its N programs, or how many distinguish,
/// or the limit that stopped it after k of N), the summary `pomset
/// distinguish` prints, and the minimal tests as litmus files.
pub fn distinguish(req: &Request, sweeps: &crate::serve::sweeps::Sweeps) -> Result<Value, Problem> {
    use crate::distinguish::{shard, Pair, Shard};
    let names = match &req.models {
        Some(w) => w.list()?,
        None => vec!["sc".to_string(), "rc11".to_string()],
    };
    let [a, b] = names.as_slice() else {
        return Err(Problem::message(
            "give two models (`models`: [\"sc\", \"rc11\"])",
        ));
    };
    let (space, programs) = sweep_space(req)?;
    let Some(programs) = programs.filter(|&n| n <= MAX_SWEEP_PROGRAMS) else {
        return Err(Problem::message(format!(
            "the bound has more than {MAX_SWEEP_PROGRAMS} programs, more than the explorer sweeps: `pomset distinguish` sweeps it (with --shard and --budget)"
        )));
    };
    let describe = space.describe();
    let models = [a.clone(), b.clone()];
    let sweep = match req.sweep {
        None => {
            let chunks = req
                .chunks
                .unwrap_or_else(|| programs.div_ceil(SWEEP_CHUNK) as usize)
                .clamp(1, 1_000);
            sweeps.open(models.clone(), describe.clone(), chunks)
        }
        Some(id) => sweeps.get(id).ok_or_else(|| {
            Problem::message(format!(
                "sweep {id} is no longer held (the server keeps the latest {}): run it again",
                crate::serve::sweeps::MAX_SWEEPS
            ))
        })?,
    };
    if sweep.merged.models != models || sweep.merged.space != describe {
        return Err(Problem::message(format!(
            "sweep {} is of {} vs {} over {}: give its models and bound, or no `sweep`",
            sweep.id, sweep.merged.models[0], sweep.merged.models[1], sweep.merged.space
        )));
    }
    let chunk = req.chunk.unwrap_or(0);
    if chunk >= sweep.chunks {
        return Err(Problem::message(format!(
            "chunk {chunk} of a sweep of {} chunks (0 to {})",
            sweep.chunks,
            sweep.chunks - 1
        )));
    }
    let mut pair = Pair::new(models, [bundled(a)?, bundled(b)?]);
    let limits = req.limits();
    pair.deadline = limits.deadline;
    pair.cancel = limits.cancel;
    let part = Shard {
        index: chunk,
        count: sweep.chunks,
    };
    let done = &sweep.decided;
    let mut records = Vec::new();
    let through = crate::distinguish::sweep(&space, &pair, part, done, &mut |_, r| records.push(r));
    let decided = records.len();
    let stopped = match through {
        true => None,
        false => pair.stopped(),
    };
    let sweep = sweeps
        .add(sweep.id, through.then_some(chunk), records)
        .ok_or_else(|| Problem::message("the sweep was forgotten while it ran: run it again"))?;
    let mut merged = sweep.merged.clone();
    let of = |k: usize| format!("{k} of {programs} programs");
    if let Some(limit) = &stopped {
        merged.incomplete.push(format!(
            "stopped by {limit} after {}",
            of(merged.tally.decided)
        ));
    } else if sweep.done.len() < sweep.chunks {
        merged.incomplete.push(format!(
            "{} of {} chunks decided, {}",
            sweep.done.len(),
            sweep.chunks,
            of(merged.tally.decided)
        ));
    }
    let tests: Vec<Value> = shard::tests(&merged)
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "family": t.record.family,
                "allowed_by": merged.models[t.allowed_by],
                "state": t.state,
                "program": t.record.id,
                "litmus": shard::litmus(&merged, t),
            })
        })
        .collect();
    let t = &merged.tally;
    Ok(json!({
        "sweep": sweep.id,
        "models": merged.models,
        "space": merged.space,
        "programs": programs,
        "chunk": { "index": chunk, "of": sweep.chunks, "programs": part.programs(&space).count(), "decided": decided },
        "chunks": sweep.chunks,
        "chunks_done": sweep.done.len(),
        "decided": t.decided,
        "counts": { "same": t.same, "differs": t.differs, "undecided": t.undecided },
        "complete": sweep.done.len() == sweep.chunks,
        "limit": stopped,
        "headline": shard::headline(&merged, Some(programs), stopped.as_deref()),
        "summary": shard::summary(&merged),
        "tests": tests,
    }))
}
