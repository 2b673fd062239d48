//! From a parsed cat file to a `Model`: names resolved (builtins, earlier
//! `let`s, function parameters), every expression typed as a set or a
//! relation, functions inlined at their calls, includes read in place.
//! Every mistake is a located diagnostic.

use std::path::Path;
use std::rc::Rc;

use super::builtins::{self, Builtin, Function};
use super::depth::{MAX_IR_DEPTH, MAX_IR_NODES};
use super::parse::{self, Binding, CheckKind, Expr, ExprKind, Stmt};
use super::{CatError, LoadError, Source, Ty};
use crate::outcome::FlagMeaning;
use crate::syntax::diagnostic::Diagnostic;
use crate::syntax::span::{Ident, Span};

/// A compiled expression: names are slots, builtins or inlined arguments.
#[derive(Clone, Debug)]
pub enum Ir {
    Builtin(Builtin),
    /// A `let`-bound value, by slot.
    Slot(usize),
    Empty(Ty),
    Union(Box<Ir>, Box<Ir>),
    Inter(Box<Ir>, Box<Ir>),
    Diff(Box<Ir>, Box<Ir>),
    Seq(Box<Ir>, Box<Ir>),
    Product(Box<Ir>, Box<Ir>),
    Inverse(Box<Ir>),
    Plus(Box<Ir>),
    Star(Box<Ir>),
    Opt(Box<Ir>),
    Complement(Box<Ir>),
    Bracket(Box<Ir>),
    Domain(Box<Ir>),
    Range(Box<Ir>),
    FenceRel(Box<Ir>),
    PerScope(Box<Ir>, Box<Ir>),
}

impl Ir {
    /// The expressions this one is built from, in order: the one place
    /// that knows each node's arity, for every walk over an `Ir`.
    pub fn children(&self) -> impl Iterator<Item = &Ir> {
        let (a, b): (Option<&Ir>, Option<&Ir>) = match self {
            Ir::Builtin(_) | Ir::Empty(_) | Ir::Slot(_) => (None, None),
            Ir::Union(a, b)
            | Ir::Inter(a, b)
            | Ir::Diff(a, b)
            | Ir::Seq(a, b)
            | Ir::Product(a, b)
            | Ir::PerScope(a, b) => (Some(a), Some(b)),
            Ir::Inverse(a)
            | Ir::Plus(a)
            | Ir::Star(a)
            | Ir::Opt(a)
            | Ir::Complement(a)
            | Ir::Bracket(a)
            | Ir::Domain(a)
            | Ir::Range(a)
            | Ir::FenceRel(a) => (Some(a), None),
        };
        a.into_iter().chain(b)
    }
}

/// One step of a model, run in order on each execution.
#[derive(Clone, Debug)]
pub enum Step {
    Let(usize, Ir),
    /// `let rec`: the slots start empty and are recomputed together until
    /// nothing changes, at most `max_iterations` times.
    Rec {
        slots: Vec<(usize, Ty)>,
        bodies: Vec<Ir>,
        span: Span,
        file: usize,
        max_iterations: usize,
    },
    Check(Check),
    /// `with NAME from linearisations(set, order)`: the slot ranges over
    /// the strict total orders on `set` that extend `order`.
    With {
        slot: usize,
        set: Ir,
        order: Ir,
        span: Span,
        file: usize,
    },
}

/// `[flag] [~] acyclic|irreflexive|empty e [as name]`.
#[derive(Clone, Debug)]
pub struct Check {
    pub kind: CheckKind,
    pub negated: bool,
    pub flag: bool,
    pub ir: Ir,
    pub name: String,
    pub span: Span,
    pub file: usize,
}

/// An option a model declares (`let inclusive[inclusion = nested] = ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatOption {
    pub name: String,
    /// Its values, the default first.
    pub values: Vec<String>,
    /// The value this model was compiled with.
    pub chosen: String,
}

/// A compiled cat model.
#[derive(Clone, Debug)]
pub struct Model {
    /// What each flag means when raised (`undefined data-race`), as the
    /// model declares it; a flag it does not name is `Undeclared`.
    pub meanings: Vec<(String, FlagMeaning)>,
    /// The options it declares, each with the value chosen.
    pub options: Vec<CatOption>,
    /// The title on its first line, or the file name.
    pub name: String,
    pub sources: Vec<Source>,
    pub steps: Vec<Step>,
    pub slots: usize,
    /// `show`n relations, by name (for `draw`).
    pub shown: Vec<(String, Ir)>,
    /// Named values (`let`s), for `show` and `explain`.
    pub names: Vec<(String, usize, Ty)>,
    /// For each slot, the step that defines it (slots are computed on demand).
    pub defined_by: Vec<usize>,
    /// For each slot, the slots of earlier steps its definition uses: what
    /// to compute first, so that a chain of `let`s is not a chain of calls.
    pub uses: Vec<Vec<usize>>,
    /// The steps that are checks, cheapest first (by the size of what they
    /// depend on): a candidate is rejected at its first failing check.
    pub checks_by_cost: Vec<usize>,
    /// The instructions the model's events stand for, when a program of
    /// pomset's language must be rewritten first (the bundled `ptx`).
    pub lowering: Option<crate::engine::axiomatic::lower::Lowering>,
    /// `monotone::prunable` and `monotone::uses_per_scope` of the model,
    /// computed once: the lazy search asks for each program it decides (a
    /// fiftieth of the table's time when computed each time).
    pub prunable: Vec<usize>,
    pub per_scope: bool,
    /// Whether strengthening a mode never adds a determined final state
    /// (`Capability::StrongerModes`): set by `cat::load` for the bundled
    /// models `cat::STRONGER_MODES` names, never for a file.
    pub stronger_modes: bool,
    /// Whether every state of the `sc` engine is one of this model's
    /// unless it flags the program (`Capability::IncludesSc`): set by
    /// `cat::load` for the bundled models `cat::INCLUDES_SC` names.
    pub includes_sc: bool,
    /// By slot: whether its value is a function of the candidate's frame
    /// (`cat::frame::fixed`).
    pub fixed: Vec<bool>,
    /// Whether the `with`'s set and order are functions of the frame
    /// (`cat::frame::with_fixed`): then its choices are too.
    pub with_fixed: bool,
    /// By slot: whether its value is a function of the candidate's frame,
    /// values, rf and the `with`'s choice (`cat::frame::co_free`).
    pub co_free: Vec<bool>,
}

/// The parameters of a function binding, as `check_names` scopes them.
fn param_names(b: &Binding) -> Vec<&str> {
    b.params.iter().flatten().map(|p| p.name.as_str()).collect()
}

impl Model {
    /// Whether the model reads a builtin that `is` picks, in any step.
    pub fn reads(&self, is: impl Fn(Builtin) -> bool) -> bool {
        fn walk(ir: &Ir, is: &dyn Fn(Builtin) -> bool) -> bool {
            match ir {
                Ir::Builtin(b) => is(*b),
                _ => ir.children().any(|c| walk(c, is)),
            }
        }
        self.steps.iter().any(|s| match s {
            Step::Let(_, ir) => walk(ir, &is),
            Step::Rec { bodies, .. } => bodies.iter().any(|b| walk(b, &is)),
            Step::Check(c) => walk(&c.ir, &is),
            Step::With { set, order, .. } => walk(set, &is) || walk(order, &is),
        })
    }
}

/// What a name stands for while compiling.
#[derive(Clone, Debug)]
enum Entry {
    Builtin(Builtin, Ty),
    Slot(usize, Ty),
    /// A function parameter, bound to its argument at a call (with the
    /// argument's depth and nodes, which every use adds).
    Arg(Rc<Ir>, Ty, Size),
    Function(Function),
    Defined(Rc<FunDef>),
}

/// `let f(x, y) = body`, with the names visible where it was defined.
#[derive(Debug)]
struct FunDef {
    params: Vec<String>,
    body: Expr,
    env: Env,
    file: usize,
}

type Env = im::HashMap<String, Entry>;

/// The deepest include chain.
const MAX_INCLUDE_DEPTH: usize = 16;
/// The deepest function inlining (a recursive function is not supported).
const MAX_CALL_DEPTH: usize = 64;

struct Compiler {
    sources: Vec<Source>,
    steps: Vec<Step>,
    slots: usize,
    shown: Vec<(String, Ir)>,
    names: Vec<(String, usize, Ty)>,
    /// The files being included, innermost last (cycle detection).
    including: Vec<String>,
    calls: usize,
    /// Function bodies inlined so far (bounds the model's size).
    inlined: usize,
    /// The expressions being compiled, innermost last: a bound on the
    /// depth of every `Ir` built (`depth::MAX_IR_DEPTH`).
    depth: usize,
    /// The `Ir` nodes built so far (`depth::MAX_IR_NODES`).
    nodes: usize,
    /// The options the model was asked for (`hrf-direct[inclusion=mutual]`).
    settings: Vec<(String, String)>,
    /// The options the model declares (`let NAME[OPTION = VALUE]`), each
    /// with its values in the order first bound (the first the default).
    options: Vec<(String, Vec<String>)>,
    /// The flags' meanings it declares, each with the place of its name.
    meanings: Vec<(Ident, FlagMeaning, usize)>,
}

/// An `Ir`'s depth and number of nodes.
#[derive(Clone, Copy, Debug)]
struct Size {
    depth: usize,
    nodes: usize,
}

/// The most function calls a model may inline.
const MAX_INLINED: usize = 100_000;

type Compiled<T> = Result<T, Diagnostic>;

/// Compiles a model's main file (and everything it includes).
pub fn compile(main: Source) -> Result<Model, LoadError> {
    compile_with(main, &[])
}

/// `compile`, with the model's options set (`settings`: OPTION, VALUE); an
/// option the model does not declare, or a value it does not bind, is
/// refused by name.
pub fn compile_with(main: Source, settings: &[(String, String)]) -> Result<Model, LoadError> {
    let mut c = Compiler::new(settings);
    let mut env = Env::new();
    for &(name, b, ty, _) in builtins::named() {
        env.insert(name.to_string(), Entry::Builtin(b, ty));
    }
    for (name, f, _) in builtins::FUNCTIONS {
        env.insert(name.to_string(), Entry::Function(f));
    }
    let fallback = main.name.clone();
    let again = main.clone();
    let title = match c.file(main, &mut env) {
        Ok(title) => title,
        // A value the model binds nothing for leaves a name unbound: the
        // option is then the error to report, found from the defaults.
        Err(e) if !settings.is_empty() => {
            let defaults = compile_with(again, &[])?;
            let declared = Compiler::declared(&defaults.options);
            declared.chosen_options_with(settings, &defaults.name)?;
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    let options = c.chosen_options(title.as_deref().unwrap_or(&fallback))?;
    let meanings = c.flag_meanings()?;
    let mut defined_by = vec![0; c.slots];
    for (i, step) in c.steps.iter().enumerate() {
        match step {
            Step::Let(s, _) => defined_by[*s] = i,
            Step::Rec { slots, .. } => slots.iter().for_each(|(s, _)| defined_by[*s] = i),
            Step::With { slot, .. } => defined_by[*slot] = i,
            Step::Check(_) => {}
        }
    }
    let uses = uses(&c.steps, &defined_by, c.slots);
    let mut costs: Vec<Option<usize>> = vec![None; c.slots];
    // In definition order, so that a long chain of `let`s is costed one step at a time, not by recursion.
    for s in 0..c.slots {
        cost(&Ir::Slot(s), &c.steps, &defined_by, &mut costs);
    }
    let mut checks: Vec<(usize, usize)> = Vec::new();
    for (i, step) in c.steps.iter().enumerate() {
        if let Step::Check(ch) = step {
            let cost = cost(&ch.ir, &c.steps, &defined_by, &mut costs);
            checks.push((cost, i));
        }
    }
    checks.sort();
    let mut model = Model {
        meanings,
        options,
        name: title.unwrap_or(fallback),
        sources: c.sources,
        steps: c.steps,
        slots: c.slots,
        shown: c.shown,
        names: c.names,
        defined_by,
        uses,
        checks_by_cost: checks.into_iter().map(|(_, i)| i).collect(),
        lowering: None,
        prunable: Vec::new(),
        stronger_modes: false,
        includes_sc: false,
        per_scope: false,
        fixed: Vec::new(),
        with_fixed: false,
        co_free: Vec::new(),
    };
    super::share::share(&mut model);
    model.fixed = super::frame::fixed(&model);
    model.with_fixed = super::frame::with_fixed(&model);
    model.co_free = super::frame::co_free(&model);
    model.prunable = super::monotone::prunable(&model);
    model.per_scope = super::monotone::uses_per_scope(&model);
    Ok(model)
}

/// What identifies a source for cycle detection: a bundled model's name, or
/// a file's canonical path.
fn key(src: &Source) -> String {
    match &src.dir {
        None => format!("bundled:{}", src.name),
        Some(_) => std::fs::canonicalize(&src.name)
            .map_or_else(|_| src.name.clone(), |p| p.display().to_string()),
    }
}

/// A rough cost of evaluating `ir` from nothing: its nodes and those of the
/// definitions it uses, each definition counted once per use (memoised).
fn cost(ir: &Ir, steps: &[Step], defined_by: &[usize], memo: &mut [Option<usize>]) -> usize {
    if let Ir::Slot(s) = ir {
        if let Some(c) = memo.get(*s).copied().flatten() {
            return c;
        }
        // A placeholder first, so that a `let rec` does not recurse forever.
        memo[*s] = Some(64);
        let c = match steps.get(defined_by[*s]) {
            Some(Step::Let(_, body)) => cost(body, steps, defined_by, memo),
            Some(Step::Rec { slots, bodies, .. }) => {
                // Placeholders for the whole fixpoint, so its bodies do not recurse into each other.
                for &(t, _) in slots {
                    memo[t].get_or_insert(64);
                }
                let c = bodies
                    .iter()
                    .map(|b| cost(b, steps, defined_by, memo))
                    .fold(0, usize::saturating_add)
                    .saturating_mul(64);
                slots.iter().for_each(|&(t, _)| memo[t] = Some(c));
                c
            }
            _ => 1,
        };
        memo[*s] = Some(c);
        return c;
    }
    ir.children()
        .map(|a| cost(a, steps, defined_by, memo))
        .fold(1, usize::saturating_add)
}

impl Compiler {
    /// Compiles one file into the model; returns its title.
    fn file(&mut self, src: Source, env: &mut Env) -> Result<Option<String>, LoadError> {
        let file = self.sources.len();
        self.sources.push(src.clone());
        let parsed = parse::parse(&src.text).map_err(|d| LoadError::Cat(CatError::new(&src, d)))?;
        self.including.push(key(&src));
        for stmt in &parsed.stmts {
            if let Stmt::Include { path, span } = stmt {
                self.include(path, *span, file, env)?;
                continue;
            }
            self.stmt(stmt, file, env)
                .map_err(|d| LoadError::Cat(CatError::new(&src, d)))?;
        }
        self.including.pop();
        Ok(parsed.title)
    }

    /// `include "f.cat"`: a bundled model by name, else a file next to the
    /// including one.
    fn include(
        &mut self,
        path: &str,
        span: Span,
        file: usize,
        env: &mut Env,
    ) -> Result<(), LoadError> {
        let from = self.sources[file].clone();
        let err = |d: Diagnostic| LoadError::Cat(CatError::new(&from, d));
        let source = if let Some(text) = super::bundled(path) {
            Source {
                name: path.to_string(),
                text: text.to_string(),
                dir: None,
            }
        } else {
            let Some(dir) = &from.dir else {
                return Err(err(Diagnostic::error(
                    format!("no bundled model `{path}`"),
                    span,
                )
                .with_label("not bundled")
                .with_hint(format!(
                    "without a directory to look in, only bundled models can be included: {}",
                    super::BUNDLED.map(|(n, _)| n).join(", ")
                ))));
            };
            let full = dir.join(path);
            let text = std::fs::read_to_string(&full).map_err(|e| {
                err(Diagnostic::error(format!("cannot read `{}`: {e}", full.display()), span)
                    .with_label("included here")
                    .with_hint("includes are looked up among the bundled models, then next to the including file"))
            })?;
            Source {
                name: full.display().to_string(),
                text,
                dir: Path::new(&full).parent().map(Path::to_path_buf),
            }
        };
        if self.including.len() >= MAX_INCLUDE_DEPTH || self.including.contains(&key(&source)) {
            let chain: Vec<&str> = self.sources.iter().map(|s| s.name.as_str()).collect();
            return Err(err(Diagnostic::error(
                format!("`{path}` includes itself"),
                span,
            )
            .with_label("include cycle")
            .with_hint(format!("the files read so far: {}", chain.join(", ")))));
        }
        self.file(source, env).map(|_| ())
    }

    fn stmt(&mut self, stmt: &Stmt, file: usize, env: &mut Env) -> Compiled<()> {
        match stmt {
            Stmt::Let {
                rec: false,
                bindings,
                ..
            } => {
                // `let a = ... and b = ...`: each sees only what came before.
                let before = env.clone();
                for b in bindings {
                    if !self.guard_holds(b) {
                        // Not this option's value: its names are still
                        // checked, so a typo shows whatever is chosen.
                        check_names(&b.body, &before, &param_names(b))?;
                        continue;
                    }
                    let entry = self.binding(b, file, &before)?;
                    env.insert(b.name.name.clone(), entry);
                }
                Ok(())
            }
            Stmt::Let {
                rec: true,
                bindings,
                span,
            } => self.rec(bindings, *span, file, env),
            Stmt::Include { .. } => Ok(()),
            Stmt::Meaning { meaning, names, .. } => {
                for n in names {
                    self.meanings.push((n.clone(), *meaning, file));
                }
                Ok(())
            }
            Stmt::Check {
                kind,
                negated,
                flag,
                expr,
                name,
                span,
            } => {
                let (ir, ty) = self.expr(expr, env, file)?;
                if *kind != CheckKind::Empty && ty == Ty::Set {
                    return Err(type_error(
                        expr,
                        Ty::Rel,
                        ty,
                        &format!("`{}` tests a relation", kind.as_str()),
                    ));
                }
                let name = name
                    .as_ref()
                    .map_or_else(|| self.text(file, expr.span), |n| n.name.clone());
                self.steps.push(Step::Check(Check {
                    kind: *kind,
                    negated: *negated,
                    flag: *flag,
                    ir,
                    name,
                    span: *span,
                    file,
                }));
                Ok(())
            }
            Stmt::With {
                name,
                set,
                order,
                span,
            } => {
                if self.steps.iter().any(|s| matches!(s, Step::With { .. })) {
                    return Err(Diagnostic::error("a second `with` is not supported", *span)
                        .with_label("one `with` per model")
                        .with_hint("the model is judged once per choice of the one `with`"));
                }
                let set = self.set(set, env, file, "`linearisations` orders a set")?;
                let order = self.rel(order, env, file, "`linearisations` extends a relation")?;
                let slot = self.new_slot(&name.name, Ty::Rel);
                self.steps.push(Step::With {
                    slot,
                    set,
                    order,
                    span: *span,
                    file,
                });
                env.insert(name.name.clone(), Entry::Slot(slot, Ty::Rel));
                Ok(())
            }
            Stmt::Show(items) => {
                for (e, name) in items {
                    let (ir, _) = self.expr(e, env, file)?;
                    let name = name
                        .as_ref()
                        .map_or_else(|| self.text(file, e.span), |n| n.name.clone());
                    self.shown.push((name, ir));
                }
                Ok(())
            }
        }
    }

    fn text(&self, file: usize, span: Span) -> String {
        self.sources[file]
            .text
            .get(span.range())
            .unwrap_or("?")
            .to_string()
    }

    /// A non-recursive binding: a value gets a slot, a function is kept for
    /// inlining.
    fn binding(&mut self, b: &Binding, file: usize, env: &Env) -> Compiled<Entry> {
        if let Some(params) = &b.params {
            // Resolve the body's names now, so a typo is reported even if
            // the function is never called.
            let mut scope: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            scope.dedup();
            check_names(&b.body, env, &scope)?;
            return Ok(Entry::Defined(Rc::new(FunDef {
                params: params.iter().map(|p| p.name.clone()).collect(),
                body: b.body.clone(),
                env: env.clone(),
                file,
            })));
        }
        let (ir, ty) = self.expr(&b.body, env, file)?;
        let slot = self.new_slot(&b.name.name, ty);
        self.steps.push(Step::Let(slot, ir));
        Ok(Entry::Slot(slot, ty))
    }

    /// Whether binding `b` is made: it has no guard, or its option has the
    /// guard's value (asked for, or else the first value bound: the
    /// default). Records the option and its value.
    fn guard_holds(&mut self, b: &Binding) -> bool {
        let Some((option, value)) = &b.guard else {
            return true;
        };
        let values = match self.options.iter_mut().find(|(n, _)| *n == option.name) {
            Some((_, values)) => values,
            None => {
                self.options.push((option.name.clone(), Vec::new()));
                &mut self.options.last_mut().expect("just pushed").1
            }
        };
        if !values.contains(&value.name) {
            values.push(value.name.clone());
        }
        let default = values[0].clone();
        let chosen = self
            .settings
            .iter()
            .rev()
            .find(|(k, _)| *k == option.name)
            .map_or(default, |(_, v)| v.clone());
        chosen == value.name
    }

    /// A compiler with nothing compiled yet, asked for `settings`.
    fn new(settings: &[(String, String)]) -> Compiler {
        Compiler {
            sources: Vec::new(),
            steps: Vec::new(),
            slots: 0,
            shown: Vec::new(),
            names: Vec::new(),
            including: Vec::new(),
            calls: 0,
            inlined: 0,
            depth: 0,
            nodes: 0,
            settings: settings.to_vec(),
            options: Vec::new(),
            meanings: Vec::new(),
        }
    }

    /// A compiler holding only `options`' declarations (to check settings).
    fn declared(options: &[CatOption]) -> Compiler {
        Compiler {
            options: options
                .iter()
                .map(|o| (o.name.clone(), o.values.clone()))
                .collect(),
            ..Compiler::new(&[])
        }
    }

    /// `chosen_options` for `settings`.
    fn chosen_options_with(
        mut self,
        settings: &[(String, String)],
        model: &str,
    ) -> Result<Vec<CatOption>, LoadError> {
        self.settings = settings.to_vec();
        self.chosen_options(model)
    }

    /// The options declared, with the values chosen; an option asked for
    /// that the model does not declare, or a value it does not bind, is
    /// refused with the model's options listed.
    fn chosen_options(&self, model: &str) -> Result<Vec<CatOption>, LoadError> {
        let listed = || {
            if self.options.is_empty() {
                return format!(
                    "`{model}` declares no options (the note's options are the pomset semantics': `pwt[OPTION=VALUE]`)"
                );
            }
            let each: Vec<String> = self
                .options
                .iter()
                .map(|(n, vs)| format!("{n} ({}, default {})", vs.join("|"), vs[0]))
                .collect();
            format!("the options of `{model}`: {}", each.join(", "))
        };
        for (k, v) in &self.settings {
            match self.options.iter().find(|(n, _)| n == k) {
                None => {
                    return Err(LoadError::Io(format!(
                        "the model `{model}` has no option `{k}`; {}",
                        listed()
                    )))
                }
                Some((_, vs)) if !vs.contains(v) => {
                    return Err(LoadError::Io(format!(
                        "the option `{k}` of `{model}` takes {}, not `{v}`",
                        vs.join(" or ")
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(self
            .options
            .iter()
            .map(|(n, vs)| CatOption {
                name: n.clone(),
                values: vs.clone(),
                chosen: self
                    .settings
                    .iter()
                    .rev()
                    .find(|(k, _)| k == n)
                    .map_or_else(|| vs[0].clone(), |(_, v)| v.clone()),
            })
            .collect())
    }

    /// The flags' meanings, each naming a flag of the model, none declared
    /// twice with different meanings.
    fn flag_meanings(&self) -> Result<Vec<(String, FlagMeaning)>, LoadError> {
        let flags: Vec<&str> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Check(c) if c.flag => Some(c.name.as_str()),
                _ => None,
            })
            .collect();
        let mut out: Vec<(String, FlagMeaning)> = Vec::new();
        for (name, meaning, file) in &self.meanings {
            let located = |d: Diagnostic| LoadError::Cat(CatError::new(&self.sources[*file], d));
            if !flags.contains(&name.name.as_str()) {
                let known = if flags.is_empty() {
                    "the model raises no flag".to_string()
                } else {
                    format!("its flags: {}", flags.join(", "))
                };
                return Err(located(
                    Diagnostic::error(
                        format!("`{}` names no flag of the model", name.name),
                        name.span,
                    )
                    .with_label("not a flag")
                    .with_hint(format!(
                        "a meaning is declared for a flag raised by `flag ... as NAME`; {known}"
                    )),
                ));
            }
            match out.iter().find(|(n, _)| *n == name.name) {
                Some((_, m)) if m != meaning => {
                    return Err(located(
                        Diagnostic::error(
                            format!(
                                "the flag `{}` is declared {} and {}",
                                name.name,
                                m.keyword(),
                                meaning.keyword()
                            ),
                            name.span,
                        )
                        .with_label("a second meaning")
                        .with_hint("a flag means one thing: keep one of the declarations"),
                    ))
                }
                Some(_) => {}
                None => out.push((name.name.clone(), *meaning)),
            }
        }
        Ok(out)
    }

    fn new_slot(&mut self, name: &str, ty: Ty) -> usize {
        let slot = self.slots;
        self.slots += 1;
        self.names.push((name.to_string(), slot, ty));
        slot
    }

    /// `let rec`: every binding a value; each typed by trying it first as a
    /// relation, then as what its body turns out to be.
    fn rec(
        &mut self,
        bindings: &[Binding],
        span: Span,
        file: usize,
        env: &mut Env,
    ) -> Compiled<()> {
        if let Some(b) = bindings.iter().find(|b| b.guard.is_some()) {
            return Err(Diagnostic::error("an option's guard in `let rec`", b.name.span)
                .with_label("guarded here")
                .with_hint("bind the option's alternatives with `let NAME[OPTION = VALUE]`, and use them in the `let rec`"));
        }
        if let Some(f) = bindings.iter().find(|b| b.params.is_some()) {
            return Err(Diagnostic::error("recursive functions are not supported", f.name.span)
                .with_label("a function in `let rec`")
                .with_hint("`let rec` defines sets and relations as least fixpoints; define the function with `let`"));
        }
        let slots: Vec<usize> = bindings
            .iter()
            .map(|_| {
                let s = self.slots;
                self.slots += 1;
                s
            })
            .collect();
        let mut types = vec![Ty::Rel; bindings.len()];
        let mut bodies = Vec::new();
        for _ in 0..2 {
            let mut inner = env.clone();
            for ((b, &s), &ty) in bindings.iter().zip(&slots).zip(&types) {
                inner.insert(b.name.name.clone(), Entry::Slot(s, ty));
            }
            bodies.clear();
            let mut found = Vec::new();
            for b in bindings {
                let (ir, ty) = self.expr(&b.body, &inner, file)?;
                bodies.push(ir);
                found.push(ty);
            }
            if found == types {
                break;
            }
            types = found;
        }
        for ((b, &s), &ty) in bindings.iter().zip(&slots).zip(&types) {
            self.names.push((b.name.name.clone(), s, ty));
            env.insert(b.name.name.clone(), Entry::Slot(s, ty));
        }
        // A monotone body adds a pair each round: n² rounds per binding suffice.
        let max_iterations = 64 * 64 * bindings.len() + 1;
        self.steps.push(Step::Rec {
            slots: slots.into_iter().zip(types).collect(),
            bodies,
            span,
            file,
            max_iterations,
        });
        Ok(())
    }

    /// Compiles `e`, refusing an `Ir` deeper than `MAX_IR_DEPTH` or a
    /// model of more than `MAX_IR_NODES` nodes (inlining multiplies them).
    fn expr(&mut self, e: &Expr, env: &Env, file: usize) -> Compiled<(Ir, Ty)> {
        self.grow(e.span, Size { depth: 1, nodes: 1 })?;
        self.depth += 1;
        let r = self.node(e, env, file);
        self.depth -= 1;
        r
    }

    /// Counts an `Ir` of `size` built at the current depth.
    fn grow(&mut self, at: Span, size: Size) -> Compiled<()> {
        self.nodes += size.nodes;
        if self.depth + size.depth > MAX_IR_DEPTH {
            return Err(super::depth::too_deep(
                at,
                format!("with its functions inlined, the expression nests more than {MAX_IR_DEPTH} deep"),
            ));
        }
        if self.nodes > MAX_IR_NODES {
            return Err(super::depth::too_deep(
                at,
                format!(
                    "with its functions inlined, the model has more than {MAX_IR_NODES} operators"
                ),
            )
            .with_label("too large"));
        }
        Ok(())
    }

    fn node(&mut self, e: &Expr, env: &Env, file: usize) -> Compiled<(Ir, Ty)> {
        use ExprKind as K;
        let b = Box::new;
        Ok(match &e.kind {
            K::Name(n) => match env.get(n) {
                Some(Entry::Builtin(bi, ty)) => (Ir::Builtin(*bi), *ty),
                Some(Entry::Slot(s, ty)) => (Ir::Slot(*s), *ty),
                Some(Entry::Arg(ir, ty, size)) => {
                    // The argument replaces this name's node.
                    let (ir, ty, size) = (Rc::clone(ir), *ty, *size);
                    self.depth -= 1;
                    let grown = self.grow(e.span, size);
                    self.depth += 1;
                    grown?;
                    ((*ir).clone(), ty)
                }
                Some(Entry::Function(_) | Entry::Defined(_)) => {
                    return Err(Diagnostic::error(format!("`{n}` is a function"), e.span)
                        .with_label("used as a value")
                        .with_hint(format!("apply it: `{n}(...)`")))
                }
                None => return Err(unknown_name(n, e.span, env)),
            },
            K::Empty => (Ir::Empty(Ty::Rel), Ty::Rel),
            K::Union(l, r) | K::Inter(l, r) | K::Diff(l, r) => {
                let (li, lt) = self.expr(l, env, file)?;
                let (ri, rt) = self.expr(r, env, file)?;
                // `0` and `{}` take the type of the other side.
                let (li, lt, ri, rt) = unify_empty(li, lt, ri, rt);
                if lt != rt {
                    let op = match &e.kind {
                        K::Union(..) => "|",
                        K::Inter(..) => "&",
                        _ => "\\",
                    };
                    return Err(type_error(
                        r,
                        lt,
                        rt,
                        &format!(
                            "`{op}` needs two sets or two relations; the left side is {}",
                            lt.as_str()
                        ),
                    ));
                }
                let ir = match &e.kind {
                    K::Union(..) => Ir::Union(b(li), b(ri)),
                    K::Inter(..) => Ir::Inter(b(li), b(ri)),
                    _ => Ir::Diff(b(li), b(ri)),
                };
                (ir, lt)
            }
            K::Seq(l, r) => {
                let li = self.rel(l, env, file, "`;` composes relations")?;
                let ri = self.rel(r, env, file, "`;` composes relations")?;
                (Ir::Seq(b(li), b(ri)), Ty::Rel)
            }
            K::Product(l, r) => {
                let li = self.set(
                    l,
                    env,
                    file,
                    "`*` between two sets is their cartesian product",
                )?;
                let ri = self.set(
                    r,
                    env,
                    file,
                    "`*` between two sets is their cartesian product",
                )?;
                (Ir::Product(b(li), b(ri)), Ty::Rel)
            }
            K::Inverse(a) => (
                Ir::Inverse(b(self.rel(a, env, file, "`^-1` inverts a relation")?)),
                Ty::Rel,
            ),
            K::Plus(a) => (
                Ir::Plus(b(self.rel(a, env, file, "`+` closes a relation")?)),
                Ty::Rel,
            ),
            K::Star(a) => (
                Ir::Star(b(self.rel(a, env, file, "`*` closes a relation")?)),
                Ty::Rel,
            ),
            K::Opt(a) => (
                Ir::Opt(b(self.rel(
                    a,
                    env,
                    file,
                    "`?` adds the identity to a relation",
                )?)),
                Ty::Rel,
            ),
            K::Complement(a) => {
                let (ir, ty) = self.expr(a, env, file)?;
                (Ir::Complement(b(ir)), ty)
            }
            K::Bracket(a) => (
                Ir::Bracket(b(self.set(
                    a,
                    env,
                    file,
                    "`[S]` is the identity on a set",
                )?)),
                Ty::Rel,
            ),
            K::App(f, args) => return self.call(f, args, e.span, env, file),
        })
    }

    fn rel(&mut self, e: &Expr, env: &Env, file: usize, why: &str) -> Compiled<Ir> {
        match self.expr(e, env, file)? {
            (ir, Ty::Rel) => Ok(ir),
            (_, ty) => Err(type_error(e, Ty::Rel, ty, why)),
        }
    }

    fn set(&mut self, e: &Expr, env: &Env, file: usize, why: &str) -> Compiled<Ir> {
        match self.expr(e, env, file)? {
            (ir, Ty::Set) => Ok(ir),
            (Ir::Empty(_), _) => Ok(Ir::Empty(Ty::Set)),
            (_, ty) => Err(type_error(e, Ty::Set, ty, why)),
        }
    }

    fn call(
        &mut self,
        f: &crate::syntax::span::Ident,
        args: &[Expr],
        span: Span,
        env: &Env,
        file: usize,
    ) -> Compiled<(Ir, Ty)> {
        let arity = |n: usize, want: usize| -> Compiled<()> {
            if n == want {
                return Ok(());
            }
            Err(Diagnostic::error(
                format!(
                    "`{}` takes {want} argument{}, not {n}",
                    f.name,
                    if want == 1 { "" } else { "s" }
                ),
                span,
            )
            .with_label("wrong number of arguments"))
        };
        let b = Box::new;
        match env.get(&f.name) {
            Some(Entry::Function(Function::PerScope)) => {
                arity(args.len(), 2)?;
                let why = "`per-scope` takes two relations";
                let r = self.rel(&args[0], env, file, why)?;
                let s = self.rel(&args[1], env, file, why)?;
                Ok((Ir::PerScope(b(r), b(s)), Ty::Rel))
            }
            Some(Entry::Function(func)) => {
                arity(args.len(), 1)?;
                Ok(match func {
                    Function::Domain => (
                        Ir::Domain(b(self.rel(
                            &args[0],
                            env,
                            file,
                            "`domain` takes a relation",
                        )?)),
                        Ty::Set,
                    ),
                    Function::Range => (
                        Ir::Range(b(self.rel(
                            &args[0],
                            env,
                            file,
                            "`range` takes a relation",
                        )?)),
                        Ty::Set,
                    ),
                    Function::FenceRel => (
                        Ir::FenceRel(b(self.set(
                            &args[0],
                            env,
                            file,
                            "`fencerel` takes a set of fences",
                        )?)),
                        Ty::Rel,
                    ),
                    Function::PerScope => unreachable!("handled above"),
                })
            }
            Some(Entry::Defined(def)) => {
                arity(args.len(), def.params.len())?;
                self.inlined += 1;
                if self.inlined > MAX_INLINED {
                    return Err(Diagnostic::error("too many function calls to inline", span)
                        .with_label(format!("more than {MAX_INLINED} in the whole model")));
                }
                if self.calls >= MAX_CALL_DEPTH {
                    return Err(Diagnostic::error("functions nest too deeply", span)
                        .with_label(format!("more than {MAX_CALL_DEPTH} calls deep")));
                }
                let def = Rc::clone(def);
                let mut inner = def.env.clone();
                for (p, a) in def.params.iter().zip(args) {
                    let (ir, ty) = self.expr(a, env, file)?;
                    let size = measure(&ir);
                    inner.insert(p.clone(), Entry::Arg(Rc::new(ir), ty, size));
                }
                self.calls += 1;
                // A type error inside the body is reported at the call, with the body's place.
                let result = self.expr(&def.body, &inner, def.file);
                self.calls -= 1;
                result.map_err(|d| {
                    if def.file == file {
                        d.with_also(span, "in this call")
                    } else {
                        Diagnostic::error(
                            format!("in the call of `{}`: {}", f.name, d.message),
                            span,
                        )
                        .with_label(d.label)
                    }
                })
            }
            Some(_) => Err(
                Diagnostic::error(format!("`{}` is not a function", f.name), f.span)
                    .with_label("applied to arguments"),
            ),
            None => Err(unknown_name(&f.name, f.span, env)),
        }
    }
}

/// The slots `irs` use, each once, with an explicit stack.
/// For each slot, the slots of earlier steps its definition uses.
pub(super) fn uses(steps: &[Step], defined_by: &[usize], slots: usize) -> Vec<Vec<usize>> {
    let mut uses = vec![Vec::new(); slots];
    for (s, used) in uses.iter_mut().enumerate() {
        let step = defined_by
            .get(s)
            .and_then(|&i| steps.get(i).map(|st| (i, st)));
        let irs: Vec<&Ir> = match step {
            Some((_, Step::Let(_, body))) => vec![body],
            Some((_, Step::Rec { bodies, .. })) => bodies.iter().collect(),
            _ => Vec::new(),
        };
        *used = slots_in(&irs);
        // A `let rec`'s own slots are its fixpoint's, not earlier steps'.
        used.retain(|u| step.is_some_and(|(i, _)| defined_by[*u] != i));
    }
    uses
}

pub(super) fn slots_in(irs: &[&Ir]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack = irs.to_vec();
    while let Some(ir) = stack.pop() {
        if let Ir::Slot(s) = ir {
            if !out.contains(s) {
                out.push(*s);
            }
        }
        stack.extend(ir.children());
    }
    out
}

/// An `Ir`'s depth and nodes, with an explicit stack.
fn measure(ir: &Ir) -> Size {
    let mut size = Size { depth: 0, nodes: 0 };
    let mut stack = vec![(ir, 1)];
    while let Some((ir, d)) = stack.pop() {
        size.depth = size.depth.max(d);
        size.nodes += 1;
        stack.extend(ir.children().map(|a| (a, d + 1)));
    }
    size
}

/// `0` or `{}` on one side of `|`, `&`, `\` takes the other side's type.
fn unify_empty(li: Ir, lt: Ty, ri: Ir, rt: Ty) -> (Ir, Ty, Ir, Ty) {
    match (&li, &ri) {
        (Ir::Empty(_), _) => (Ir::Empty(rt), rt, ri, rt),
        (_, Ir::Empty(_)) => (li, lt, Ir::Empty(lt), lt),
        _ => (li, lt, ri, rt),
    }
}

/// Checks that every name in a function body is a parameter or visible.
fn check_names(e: &Expr, env: &Env, params: &[&str]) -> Compiled<()> {
    use ExprKind as K;
    match &e.kind {
        K::Name(n) if !params.contains(&n.as_str()) && !env.contains_key(n) => {
            Err(unknown_name(n, e.span, env))
        }
        K::Name(_) | K::Empty => Ok(()),
        K::Union(l, r) | K::Inter(l, r) | K::Diff(l, r) | K::Seq(l, r) | K::Product(l, r) => {
            check_names(l, env, params)?;
            check_names(r, env, params)
        }
        K::Inverse(a) | K::Plus(a) | K::Star(a) | K::Opt(a) | K::Complement(a) | K::Bracket(a) => {
            check_names(a, env, params)
        }
        K::App(f, args) => {
            if !env.contains_key(&f.name) {
                return Err(unknown_name(&f.name, f.span, env));
            }
            args.iter().try_for_each(|a| check_names(a, env, params))
        }
    }
}

fn type_error(e: &Expr, want: Ty, got: Ty, why: &str) -> Diagnostic {
    let hint = match (want, got) {
        (Ty::Rel, Ty::Set) => "make a set S a relation with `[S]` (the identity on S) or `S * S`",
        _ => "make a relation r a set with `domain(r)` or `range(r)`",
    };
    Diagnostic::error(
        format!("expected {}, found {}", want.as_str(), got.as_str()),
        e.span,
    )
    .with_label(format!("this is {}: {why}", got.as_str()))
    .with_hint(hint)
}

fn unknown_name(n: &str, span: Span, env: &Env) -> Diagnostic {
    let d = Diagnostic::error(format!("unknown name `{n}`"), span)
        .with_label("not defined before this point");
    match closest(n, env.keys().map(String::as_str)) {
        Some(c) => d.with_hint(format!("did you mean `{c}`?")),
        None => d.with_hint("names are the builtins (the book's \"Axiomatic models\" lists them) and earlier `let`s"),
    }
}

/// The visible name nearest to `n` by edit distance, if near enough.
fn closest<'a>(n: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = n.to_lowercase();
    names
        .map(|c| (distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= 1.max(n.len() / 3))
        .min()
        .map(|(_, c)| c)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != b[j]))
                .min(row[j] + 1)
                .min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
