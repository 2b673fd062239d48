//! Random small litmus tests over the whole language (loops, every
//! operator, `filter`, odd value sets, labels, reassigned registers, computed
//! addresses read from memory, forks, RMWs), for the oracles
//! (`differential.rs`, `sc_inclusion.rs`, `invariance.rs`, `symmetry.rs`,
//! `verdict_only.rs`, `explain_agreement.rs`, `axiomatic_random.rs`), and
//! `run_property`, which runs one of them and bounds the programs skipped
//! at a limit (issue 27 §4).
//!
//! Generation is two-phase. Proptest draws a raw tree of small numbers
//! (`RStmt`, `RExpr`, ...), which shrinks well; `elaborate` turns it into a
//! `Test` that always checks: fresh registers get names of their own (a
//! register is reassigned only by `RStmt::Reuse`, under `Config::reuse`), an
//! expression only reads registers already assigned on its path (or
//! inherited by a fork), accesses beyond the budget are dropped (a loop is
//! charged for every unrolled copy), and literals come from V. `Test` prints
//! as litmus text and has the transformations the invariance tests need.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use proptest::prelude::*;
use proptest::test_runner::{
    Config as RunnerConfig, RngSeed, TestCaseError, TestError, TestRunner,
};

/// Knobs of the generator. `GEN_*` environment variables restrict it for
/// local triage; the committed tests use `Config::default()` or `tiny()`.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub max_threads: usize,
    /// Memory events in all (an RMW counts two, an extended read one).
    pub max_accesses: usize,
    /// Values in V before negative values, gaps and addresses (2 or more).
    pub max_values: u8,
    pub computed: bool,
    pub forks: bool,
    /// Forks inside IF branches (issue 13's bug 6 is about these).
    pub forks_in_if: bool,
    pub rmws: bool,
    pub memory_conditions: bool,
    /// Let a thread assign a register more than once.
    pub reuse: bool,
    /// `while` and `do ... while` loops, unrolled to `model { unroll = N }`.
    pub loops: bool,
    /// Every operator: `*`, the orders, `||`, unary `-` and `!`, and
    /// register-to-register comparisons.
    pub operators: bool,
    /// A `filter` line before the conditions.
    pub filter: bool,
    /// Negative values and declared value sets with a gap.
    pub odd_values: bool,
    /// Thread labels (`T1: ...`).
    pub labels: bool,
    /// Register names close to the checker's temporaries (`_x1`, `_r2`,
    /// `r_3`): hygiene of the desugaring (issue 27 §2).
    pub near_temporaries: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_threads: 5,
            max_accesses: 6,
            max_values: 3,
            computed: true,
            forks: true,
            forks_in_if: true,
            rmws: true,
            memory_conditions: true,
            reuse: true,
            loops: true,
            operators: true,
            filter: true,
            odd_values: true,
            labels: true,
            near_temporaries: true,
        }
        .restricted()
    }
}

impl Config {
    /// At most four accesses, for slow engines.
    pub fn tiny() -> Config {
        Config {
            max_threads: 3,
            max_accesses: 4,
            ..Config::default()
        }
        .restricted()
    }

    /// For `if_closure = registers`, whose partitions of the registers'
    /// valuations grow as Bell numbers: three accesses, two values, each
    /// register assigned once, so that well under 5% of programs stop at
    /// `--max-partitions`.
    pub fn if_closed(self) -> Config {
        Config {
            max_accesses: self.max_accesses.min(3),
            max_values: 2,
            odd_values: false,
            // A reassigned register is several core registers.
            reuse: false,
            ..self
        }
    }

    /// `GEN_NO_MEM`, `GEN_NO_COMPUTED`, `GEN_NO_FORKS`, `GEN_NO_FORKS_IN_IF`, `GEN_NO_RMW`,
    /// `GEN_NO_REUSE`, `GEN_NO_LOOPS`, `GEN_NO_OPS`, `GEN_NO_FILTER`,
    /// `GEN_NO_ODD_VALUES`, `GEN_NO_LABELS`, `GEN_NO_NEAR_TEMPS`,
    /// `GEN_ACCESSES=N`: narrow the language while triaging. `GEN_THREADS=N`
    /// raises the number of top-level threads (the long runs use 6).
    fn restricted(mut self) -> Config {
        let set = |k: &str| std::env::var_os(k).is_some();
        self.memory_conditions &= !set("GEN_NO_MEM");
        self.computed &= !set("GEN_NO_COMPUTED");
        self.forks &= !set("GEN_NO_FORKS");
        self.forks_in_if &= !set("GEN_NO_FORKS_IN_IF");
        self.rmws &= !set("GEN_NO_RMW");
        self.reuse &= !set("GEN_NO_REUSE");
        self.loops &= !set("GEN_NO_LOOPS");
        self.operators &= !set("GEN_NO_OPS");
        self.filter &= !set("GEN_NO_FILTER");
        self.odd_values &= !set("GEN_NO_ODD_VALUES");
        self.labels &= !set("GEN_NO_LABELS");
        self.near_temporaries &= !set("GEN_NO_NEAR_TEMPS");
        let number = |k: &str| std::env::var(k).ok().and_then(|s| s.parse().ok());
        if let Some(n) = number("GEN_ACCESSES") {
            self.max_accesses = n;
        }
        if let Some(n) = number("GEN_THREADS") {
            self.max_threads = n;
        }
        self
    }
}

// ------------------------------------------------------------- properties

/// What a property made of one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    Yes,
    /// An engine stopped at a limit (steps, pomsets, states, time).
    Skipped,
}

/// A program skipped because `why` (an engine's limit); `GEN_SKIPS=1`
/// prints the reason and the program while tuning budgets.
pub fn skipped(why: &str, t: &Test) -> Checked {
    if std::env::var_os("GEN_SKIPS").is_some() {
        eprintln!("skipped: {why}\n{}", t.text());
    }
    Checked::Skipped
}

/// The most programs a property may skip at a limit, in percent (issue 27
/// §4): more would make it check too little.
pub const MAX_SKIPPED_PERCENT: u32 = 5;

/// A generated test's text, its program, and the default model with one
/// option set (`name = value`): what the properties decide under each of
/// their settings. A test that does not check, or a value the model
/// refuses, fails the property.
pub fn program_under(
    t: &Test,
    (name, value): (&str, &str),
) -> Result<(String, pomset::syntax::core::Program, pomset::model::Model), TestCaseError> {
    let text = t.text();
    let p = pomset::syntax::parse(&text)
        .map_err(|d| TestCaseError::fail(d.render("gen", &text)))?
        .program;
    let mut model = pomset::model::Model::default();
    model
        .set(name, value)
        .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
    Ok((text, p, model))
}

/// The pomset engine's outcomes of `p` plainly (`limits` with one pruning
/// turned off by `plain`) and with the pruning, for the properties that
/// compare the two; `Err` with why the program is skipped (either run
/// refused it or stopped at a limit), for `skipped`.
pub fn pwt_plain_and_pruned(
    p: &pomset::syntax::core::Program,
    model: &pomset::model::Model,
    limits: pomset::outcome::Limits,
    plain: impl FnOnce(pomset::outcome::Limits) -> pomset::outcome::Limits,
) -> Result<(pomset::outcome::Outcomes, pomset::outcome::Outcomes), String> {
    use pomset::engine::pwt::decide;
    let unpruned = decide::outcomes(p, model, plain(limits));
    let pruned = decide::outcomes(p, model, limits);
    let (Ok(unpruned), Ok(pruned)) = (unpruned, pruned) else {
        return Err("refused".to_string());
    };
    match unpruned.limit.as_ref().or(pruned.limit.as_ref()) {
        Some(limit) => Err(limit.clone()),
        None => Ok((unpruned, pruned)),
    }
}

/// The seed of every property: `PROPTEST_RNG_SEED` when set (any number,
/// for programs never checked before), else `DEFAULT_SEED`. A fixed
/// default makes CI check the same programs on every run, so the bound on
/// skipped programs cannot fail by the luck of one draw: with 25 programs
/// and a skip rate of 2%, a random draw skips two (over 5%) one run in
/// fifteen.
pub fn seed() -> RngSeed {
    match RunnerConfig::default().rng_seed {
        RngSeed::Random => RngSeed::Fixed(DEFAULT_SEED),
        fixed => fixed,
    }
}

/// The seed CI uses (see `seed`).
pub const DEFAULT_SEED: u64 = 20_261_127;

/// `PROPTEST_CASES`, else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Runs `property` on `cases` values of `strategy` and prints how many were
/// checked and skipped under the name `what`. Panics with the (shrunk)
/// failure, or when more than `MAX_SKIPPED_PERCENT` were skipped.
pub fn run_property<S: Strategy>(
    what: &str,
    cases: u32,
    strategy: S,
    property: impl Fn(S::Value) -> Result<Checked, TestCaseError>,
) -> (u32, u32) {
    let (checked, skipped) =
        try_property(cases, strategy, property).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_few_skipped(what, checked, skipped);
    (checked, skipped)
}

/// `run_property` without the skip bound: the counts, or the failure.
pub fn try_property<S: Strategy>(
    cases: u32,
    strategy: S,
    property: impl Fn(S::Value) -> Result<Checked, TestCaseError>,
) -> Result<(u32, u32), String> {
    let mut runner = TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        rng_seed: seed(),
        ..RunnerConfig::default()
    });
    let counts = std::cell::Cell::new((0u32, 0u32));
    let result = runner.run(&strategy, |v| {
        let (c, s) = counts.get();
        counts.set(match property(v)? {
            Checked::Yes => (c + 1, s),
            Checked::Skipped => (c, s + 1),
        });
        Ok(())
    });
    match result {
        Ok(()) => Ok(counts.get()),
        // `why` names the (shrunk) program: every property prints its text.
        Err(TestError::Fail(why, _)) => Err(why.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// Prints the counts and fails when more than `MAX_SKIPPED_PERCENT` of the
/// programs were skipped at a limit.
pub fn assert_few_skipped(what: &str, checked: u32, skipped: u32) {
    if let Err(e) = few_skipped(what, checked, skipped) {
        panic!("{e}");
    }
}

/// `assert_few_skipped` as a result, for properties that collect failures.
pub fn few_skipped(what: &str, checked: u32, skipped: u32) -> Result<(), String> {
    eprintln!("{what}: {checked} programs checked, {skipped} skipped at a limit");
    let total = checked + skipped;
    if skipped * 100 <= MAX_SKIPPED_PERCENT * total {
        return Ok(());
    }
    Err(format!(
        "{what}: {skipped} of {total} programs skipped at a limit (more than {MAX_SKIPPED_PERCENT}%)"
    ))
}

// ------------------------------------------------------------------ the tree

pub const READ_MODES: [&str; 4] = ["wk", "rlx", "acq", "sc"];
pub const WRITE_MODES: [&str; 4] = ["wk", "rlx", "rel", "sc"];
pub const FENCE_MODES: [&str; 4] = ["rel", "acq", "ra", "sc"];
pub const RMW_SHORT: [&str; 6] = ["wk", "rlx", "acq", "rel", "ra", "sc"];
pub const SCOPES: [&str; 3] = ["cta", "gpu", "sys"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub name: String,
    pub address: Option<i64>,
    pub init: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// Printed as `label:` when set; otherwise the checker's default name.
    pub label: Option<String>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Loc(usize),
    /// `[r]` or `[r + k]` (§1.5).
    Computed(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Int(i64),
    Reg(String),
    /// A location in an expression: a fresh read (§1.1).
    Loc(usize, &'static str),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `-M` or `!M`.
    Un(&'static str, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RmwModes {
    None,
    One(&'static str),
    Two(&'static str, &'static str),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Read {
        reg: String,
        place: Place,
        mode: &'static str,
        scope: &'static str,
    },
    Write {
        place: Place,
        value: Expr,
        mode: &'static str,
        scope: &'static str,
    },
    Fence {
        mode: &'static str,
        scope: &'static str,
    },
    Rmw {
        reg: Option<String>,
        op: &'static str,
        modes: RmwModes,
        scope: &'static str,
        place: Place,
        args: Vec<Expr>,
    },
    Let {
        reg: String,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// `( B1 || ... || Bn )`: every branch but the last is a new thread.
    Fork(Vec<Thread>),
    /// `while (cond) { body }`, or `do { body } while (cond);`.
    Loop {
        cond: Expr,
        body: Vec<Stmt>,
        do_while: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    Reg {
        thread: String,
        reg: String,
        op: &'static str,
        value: i64,
    },
    Mem {
        loc: usize,
        op: &'static str,
        value: i64,
    },
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    pub quantifier: &'static str,
    pub prop: Prop,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    pub values: Vec<i64>,
    pub declare_values: bool,
    pub locs: Vec<Loc>,
    /// (thread name, gpu, cta) for a `scopes:` tree.
    pub scopes: Option<Vec<(String, u8, u8)>>,
    pub threads: Vec<Thread>,
    /// `filter P`: only final states satisfying P count.
    pub filter: Option<Prop>,
    pub conditions: Vec<Cond>,
    /// `model { unroll = N }` when some loop needs it.
    pub unroll: Option<u32>,
}

// ------------------------------------------------------------------ printing

impl Test {
    pub fn text(&self) -> String {
        let mut out = String::from("litmus GEN\n");
        if self.declare_values {
            let vs: Vec<String> = self.values.iter().map(i64::to_string).collect();
            let _ = writeln!(out, "values {{{}}}", vs.join(", "));
        }
        // Always declared: a location may appear only in a condition.
        {
            let ds: Vec<String> = self
                .locs
                .iter()
                .map(|l| match l.address {
                    Some(a) => format!("{} @ {a}", l.name),
                    None => l.name.clone(),
                })
                .collect();
            let _ = writeln!(out, "locations {{ {} }}", ds.join("; "));
        }
        let inits: Vec<String> = self
            .locs
            .iter()
            .filter(|l| l.init != 0)
            .map(|l| format!("{} = {}", l.name, l.init))
            .collect();
        if !inits.is_empty() {
            let _ = writeln!(out, "init {{ {} }}", inits.join("; "));
        }
        if let Some(s) = &self.scopes {
            let _ = writeln!(out, "scopes: {}", scope_tree(s));
        }
        if let Some(n) = self.unroll {
            let _ = writeln!(out, "model {{ unroll = {n} }}");
        }
        out.push('\n');
        let threads: Vec<String> = self.threads.iter().map(|t| self.thread(t)).collect();
        out.push_str(&threads.join("\n|| "));
        out.push_str("\n\n");
        if let Some(f) = &self.filter {
            let _ = writeln!(out, "filter ({})", self.prop(f));
        }
        for c in &self.conditions {
            let _ = writeln!(out, "{} ({})", c.quantifier, self.prop(&c.prop));
        }
        out
    }

    fn thread(&self, t: &Thread) -> String {
        let body: Vec<String> = t.body.iter().map(|s| self.stmt(s)).collect();
        let body = if body.is_empty() {
            "skip;".to_string()
        } else {
            body.join(" ")
        };
        match &t.label {
            Some(l) => format!("{l}: {body}"),
            None => body,
        }
    }

    fn block(&self, ss: &[Stmt]) -> String {
        if ss.is_empty() {
            return "skip;".into();
        }
        ss.iter()
            .map(|s| self.stmt(s))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn place(&self, p: &Place, mode: &str, scope: &str) -> String {
        match p {
            Place::Loc(l) => format!("{}.{mode}.{scope}", self.locs[*l].name),
            Place::Computed(e) => format!("[{}].{mode}.{scope}", self.expr(e, true)),
        }
    }

    fn stmt(&self, s: &Stmt) -> String {
        match s {
            Stmt::Read {
                reg,
                place,
                mode,
                scope,
            } => format!("{reg} := {};", self.place(place, mode, scope)),
            Stmt::Write {
                place,
                value,
                mode,
                scope,
            } => format!(
                "{} := {};",
                self.place(place, mode, scope),
                self.expr(value, true)
            ),
            Stmt::Fence { mode, scope } => format!("fence.{mode}.{scope};"),
            Stmt::Rmw {
                reg,
                op,
                modes,
                scope,
                place,
                args,
            } => {
                let modes = match modes {
                    RmwModes::None => String::new(),
                    RmwModes::One(m) => format!(".{m}"),
                    RmwModes::Two(a, b) => format!(".{a}.{b}"),
                };
                let place = match place {
                    Place::Loc(l) => self.locs[*l].name.clone(),
                    Place::Computed(e) => format!("[{}]", self.expr(e, true)),
                };
                let args: Vec<String> = args.iter().map(|a| self.expr(a, true)).collect();
                let target = reg.as_ref().map_or(String::new(), |r| format!("{r} := "));
                format!("{target}{op}{modes}.{scope}({place}, {});", args.join(", "))
            }
            Stmt::Let { reg, value } => format!("{reg} := {};", self.expr(value, false)),
            Stmt::If { cond, then, els } => format!(
                "if ({}) {{ {} }} else {{ {} }}",
                self.expr(cond, true),
                self.block(then),
                self.block(els)
            ),
            Stmt::Fork(branches) => {
                let bs: Vec<String> = branches.iter().map(|b| self.thread(b)).collect();
                format!("( {} )", bs.join(" || "))
            }
            Stmt::Loop {
                cond,
                body,
                do_while: false,
            } => format!(
                "while ({}) {{ {} }}",
                self.expr(cond, true),
                self.block(body)
            ),
            Stmt::Loop { cond, body, .. } => format!(
                "do {{ {} }} while ({});",
                self.block(body),
                self.expr(cond, true)
            ),
        }
    }

    /// `top`: a whole right-hand side, where only `||` needs parentheses.
    fn expr(&self, e: &Expr, top: bool) -> String {
        match e {
            Expr::Int(n) if *n < 0 && !top => format!("({n})"),
            Expr::Int(n) => n.to_string(),
            Expr::Reg(r) => r.clone(),
            Expr::Un(op, a) if top => format!("{op}{}", self.expr(a, false)),
            Expr::Un(op, a) => format!("({op}{})", self.expr(a, false)),
            Expr::Loc(l, mode) => format!("{}.{mode}", self.locs[*l].name),
            Expr::Bin(op, a, b) => {
                let s = format!("{} {op} {}", self.expr(a, false), self.expr(b, false));
                if top && *op != "||" {
                    s
                } else {
                    format!("({s})")
                }
            }
        }
    }

    fn prop(&self, p: &Prop) -> String {
        match p {
            Prop::Reg {
                thread,
                reg,
                op,
                value,
            } => format!("{thread}:{reg} {op} {value}"),
            Prop::Mem { loc, op, value } => format!("[{}] {op} {value}", self.locs[*loc].name),
            Prop::Not(a) => format!("~({})", self.prop(a)),
            Prop::And(a, b) => format!("({} /\\ {})", self.prop(a), self.prop(b)),
            Prop::Or(a, b) => format!("({} \\/ {})", self.prop(a), self.prop(b)),
        }
    }
}

fn scope_tree(s: &[(String, u8, u8)]) -> String {
    let mut gpus: BTreeMap<u8, BTreeMap<u8, Vec<&str>>> = BTreeMap::new();
    for (t, g, c) in s {
        gpus.entry(*g)
            .or_default()
            .entry(*c)
            .or_default()
            .push(t.as_str());
    }
    let gs: Vec<String> = gpus
        .values()
        .map(|ctas| {
            let cs: Vec<String> = ctas
                .values()
                .map(|ts| format!("cta {{ {} }}", ts.join(" ")))
                .collect();
            format!("gpu {{ {} }}", cs.join(" "))
        })
        .collect();
    format!("sys {{ {} }}", gs.join(" "))
}

// ------------------------------------------------------------- names, walks

impl Test {
    /// Every thread's name in the checker's order: top-level threads by
    /// position (or label), then forked branches in textual order, each
    /// `P{n}` with n the number of threads named so far.
    pub fn thread_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| t.label.clone().unwrap_or_else(|| format!("P{i}")))
            .collect();
        for t in &self.threads {
            fork_names(&t.body, &mut names);
        }
        names
    }

    /// Labels every thread (top-level and forked) with its current name, so
    /// that reordering threads keeps every name.
    pub fn freeze_names(&mut self) {
        let mut names: Vec<String> = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| t.label.clone().unwrap_or_else(|| format!("P{i}")))
            .collect();
        for (t, n) in self.threads.iter_mut().zip(names.clone()) {
            t.label = Some(n);
        }
        for t in &mut self.threads {
            freeze_forks(&mut t.body, &mut names);
        }
    }

    /// The (thread, register) pairs assigned anywhere, for conditions.
    pub fn registers(&self) -> Vec<(String, String)> {
        let mut names = self.thread_names().into_iter();
        let tops: Vec<String> = names.by_ref().take(self.threads.len()).collect();
        let mut forks = names;
        let mut out = Vec::new();
        for (t, name) in self.threads.iter().zip(tops) {
            regs_in(&t.body, &name, &mut forks, &mut out);
        }
        out
    }
}

fn fork_names(ss: &[Stmt], names: &mut Vec<String>) {
    for s in ss {
        match s {
            Stmt::If { then, els, .. } => {
                fork_names(then, names);
                fork_names(els, names);
            }
            Stmt::Loop { body, .. } => fork_names(body, names),
            Stmt::Fork(bs) => {
                if let Some((last, forked)) = bs.split_last() {
                    for b in forked {
                        let n = b.label.clone().unwrap_or_else(|| next_name(names));
                        names.push(n);
                        fork_names(&b.body, names);
                    }
                    fork_names(&last.body, names);
                }
            }
            _ => {}
        }
    }
}

fn next_name(names: &[String]) -> String {
    (names.len()..)
        .map(|i| format!("P{i}"))
        .find(|n| !names.contains(n))
        .unwrap_or_default()
}

fn freeze_forks(ss: &mut [Stmt], names: &mut Vec<String>) {
    for s in ss {
        match s {
            Stmt::If { then, els, .. } => {
                freeze_forks(then, names);
                freeze_forks(els, names);
            }
            Stmt::Loop { body, .. } => freeze_forks(body, names),
            Stmt::Fork(bs) => {
                let n = bs.len();
                for (k, b) in bs.iter_mut().enumerate() {
                    if k + 1 < n {
                        let name = b.label.clone().unwrap_or_else(|| next_name(names));
                        names.push(name.clone());
                        b.label = Some(name);
                    }
                    freeze_forks(&mut b.body, names);
                }
            }
            _ => {}
        }
    }
}

fn regs_in(
    ss: &[Stmt],
    thread: &str,
    forks: &mut impl Iterator<Item = String>,
    out: &mut Vec<(String, String)>,
) {
    fn add(out: &mut Vec<(String, String)>, thread: &str, r: &str) {
        let pair = (thread.to_string(), r.to_string());
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    for s in ss {
        match s {
            Stmt::Read { reg, .. } | Stmt::Let { reg, .. } => add(out, thread, reg),
            Stmt::Rmw { reg: Some(reg), .. } => add(out, thread, reg),
            Stmt::If { then, els, .. } => {
                regs_in(then, thread, forks, out);
                regs_in(els, thread, forks, out);
            }
            Stmt::Loop { body, .. } => regs_in(body, thread, forks, out),
            Stmt::Fork(bs) => {
                if let Some((last, forked)) = bs.split_last() {
                    for b in forked {
                        let name = forks.next().unwrap_or_default();
                        regs_in(&b.body, &name, forks, out);
                    }
                    regs_in(&last.body, thread, forks, out);
                }
            }
            _ => {}
        }
    }
}

// ------------------------------------------------------------ coverage

impl Test {
    /// The constructs this test uses, by name, for the coverage test: every
    /// statement and operator kind, and the value sets, names and shapes
    /// issue 27 §4 lists.
    pub fn features(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut assigned: BTreeMap<String, usize> = BTreeMap::new();
        for t in &self.threads {
            stmt_features(&t.body, &mut out, &mut assigned);
            if t.label.is_some() {
                out.insert("label".into());
            }
        }
        if assigned.values().any(|&n| n > 1) {
            out.insert("reuse".into());
        }
        if self.values.iter().any(|&v| v < 0) {
            out.insert("negative values".into());
        }
        let gap = self.values.windows(2).any(|w| w[1] - w[0] > 1);
        if self.declare_values && gap {
            out.insert("declared values with a gap".into());
        }
        if self.filter.is_some() {
            out.insert("filter".into());
        }
        if self.thread_names().len() > 4 {
            out.insert("more than four threads".into());
        }
        out
    }
}

fn expr_features(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Bin(op, a, b) => {
            out.insert(format!("op {op}"));
            if matches!((&**a, &**b), (Expr::Reg(_), Expr::Reg(_))) {
                out.insert("register against register".into());
            }
            expr_features(a, out);
            expr_features(b, out);
        }
        Expr::Un(op, a) => {
            out.insert(format!("unary {op}"));
            expr_features(a, out);
        }
        Expr::Loc(..) => {
            out.insert("extended read".into());
        }
        Expr::Int(_) | Expr::Reg(_) => {}
    }
}

fn place_features(p: &Place, out: &mut BTreeSet<String>) {
    if let Place::Computed(e) = p {
        out.insert("computed address".into());
        if expr_accesses(e) > 0 {
            out.insert("index read from memory".into());
        }
    }
}

fn stmt_features(ss: &[Stmt], out: &mut BTreeSet<String>, assigned: &mut BTreeMap<String, usize>) {
    for s in ss {
        match s {
            Stmt::Read { reg, place, .. } => {
                *assigned.entry(reg.clone()).or_default() += 1;
                place_features(place, out);
            }
            Stmt::Write { place, value, .. } => {
                place_features(place, out);
                expr_features(value, out);
            }
            Stmt::Fence { .. } => {}
            Stmt::Rmw {
                reg, place, args, ..
            } => {
                out.insert("rmw".into());
                if let Some(r) = reg {
                    *assigned.entry(r.clone()).or_default() += 1;
                }
                place_features(place, out);
                if args.iter().any(|a| expr_accesses(a) > 0) {
                    out.insert("rmw argument read from memory".into());
                }
                args.iter().for_each(|a| expr_features(a, out));
            }
            Stmt::Let { reg, value } => {
                *assigned.entry(reg.clone()).or_default() += 1;
                expr_features(value, out);
            }
            Stmt::If { cond, then, els } => {
                out.insert("if".into());
                if let Expr::Bin(_, a, b) = cond {
                    if matches!((&**a, &**b), (Expr::Reg(_), Expr::Reg(_))) {
                        out.insert("register comparison in a condition".into());
                    }
                }
                expr_features(cond, out);
                stmt_features(then, out, assigned);
                stmt_features(els, out, assigned);
            }
            Stmt::Fork(bs) => {
                out.insert("fork".into());
                bs.iter()
                    .for_each(|b| stmt_features(&b.body, out, &mut BTreeMap::new()));
            }
            Stmt::Loop {
                cond,
                body,
                do_while,
            } => {
                out.insert(if *do_while { "do-while" } else { "while" }.into());
                expr_features(cond, out);
                stmt_features(body, out, assigned);
            }
        }
    }
}

// ------------------------------------------------------------ transformations

impl Test {
    /// The same test with top-level threads in the order `perm` (names kept).
    pub fn permute_threads(&self, perm: &[usize]) -> Test {
        let mut t = self.clone();
        t.freeze_names();
        let threads = t.threads.clone();
        t.threads = perm
            .iter()
            .filter_map(|&i| threads.get(i).cloned())
            .collect();
        t
    }

    /// Registers renamed by `f`, in the program and the conditions.
    pub fn rename_registers(&self, f: &dyn Fn(&str) -> String) -> Test {
        let mut t = self.clone();
        for th in &mut t.threads {
            rename_regs(&mut th.body, f);
        }
        for c in &mut t.conditions {
            rename_prop_regs(&mut c.prop, f);
        }
        if let Some(p) = &mut t.filter {
            rename_prop_regs(p, f);
        }
        t
    }

    /// Locations renamed by `f` (declared, so any name is a location).
    pub fn rename_locations(&self, f: &dyn Fn(&str) -> String) -> Test {
        let mut t = self.clone();
        for l in &mut t.locs {
            l.name = f(&l.name);
        }
        t
    }

    /// The test with `copies` more copies of top-level thread `k` at the end,
    /// labelled `DUP0`, `DUP1`, ..., placed in thread k's cta (so that the
    /// copies are interchangeable with it: the engine's thread symmetry).
    pub fn duplicate_thread(&self, k: usize, copies: usize) -> Test {
        let mut t = self.clone();
        t.freeze_names();
        let Some(original) = t.threads.get(k).cloned() else {
            return t;
        };
        // Forked branches carry labels, which a copy would repeat.
        if forks_in(&original.body) {
            return t;
        }
        let name = original.label.clone().unwrap_or_default();
        for c in 0..copies {
            let label = format!("DUP{c}");
            t.threads.push(Thread {
                label: Some(label.clone()),
                body: original.body.clone(),
            });
            if let Some(s) = &mut t.scopes {
                if let Some(&(_, gpu, cta)) = s.iter().find(|(n, _, _)| *n == name) {
                    s.push((label, gpu, cta));
                }
            }
        }
        t
    }

    /// A new last thread `EXTRA` writing and reading a location of its own
    /// into a register of its own. Returns the test and what to project away:
    /// the thread's state name prefix and the location's name.
    pub fn add_unrelated_thread(&self) -> (Test, String, String) {
        let mut t = self.clone();
        t.freeze_names();
        // With a computed address, a new location is not unrelated: it
        // takes the next address, which `[r]` may name (and an explicit
        // address must lie in V). The thread then touches no memory.
        if self.features().contains("computed address") {
            t.threads.push(Thread {
                label: Some("EXTRA".into()),
                body: vec![
                    Stmt::Let {
                        reg: "extra_r".into(),
                        value: Expr::Int(1),
                    },
                    Stmt::Fence {
                        mode: "sc",
                        scope: "sys",
                    },
                ],
            });
            if let Some(s) = &mut t.scopes {
                s.push(("EXTRA".into(), 9, 9));
            }
            return (t, "EXTRA:".into(), String::new());
        }
        let loc = t.locs.len();
        t.locs.push(Loc {
            name: "extra".into(),
            address: None,
            init: 0,
        });
        t.threads.push(Thread {
            label: Some("EXTRA".into()),
            body: vec![
                Stmt::Write {
                    place: Place::Loc(loc),
                    value: Expr::Int(1),
                    mode: "rel",
                    scope: "sys",
                },
                Stmt::Read {
                    reg: "extra_r".into(),
                    place: Place::Loc(loc),
                    mode: "acq",
                    scope: "sys",
                },
            ],
        });
        if let Some(s) = &mut t.scopes {
            s.push(("EXTRA".into(), 9, 9));
        }
        (t, "EXTRA:".into(), "extra".into())
    }
}

fn forks_in(ss: &[Stmt]) -> bool {
    ss.iter().any(|s| match s {
        Stmt::Fork(_) => true,
        Stmt::If { then, els, .. } => forks_in(then) || forks_in(els),
        Stmt::Loop { body, .. } => forks_in(body),
        _ => false,
    })
}

fn rename_expr(e: &mut Expr, f: &dyn Fn(&str) -> String) {
    match e {
        Expr::Reg(r) => *r = f(r),
        Expr::Bin(_, a, b) => {
            rename_expr(a, f);
            rename_expr(b, f);
        }
        Expr::Un(_, a) => rename_expr(a, f),
        Expr::Int(_) | Expr::Loc(..) => {}
    }
}

fn rename_place(p: &mut Place, f: &dyn Fn(&str) -> String) {
    if let Place::Computed(e) = p {
        rename_expr(e, f);
    }
}

fn rename_regs(ss: &mut [Stmt], f: &dyn Fn(&str) -> String) {
    for s in ss {
        match s {
            Stmt::Read { reg, place, .. } => {
                *reg = f(reg);
                rename_place(place, f);
            }
            Stmt::Write { place, value, .. } => {
                rename_place(place, f);
                rename_expr(value, f);
            }
            Stmt::Fence { .. } => {}
            Stmt::Rmw {
                reg, place, args, ..
            } => {
                if let Some(r) = reg {
                    *r = f(r);
                }
                rename_place(place, f);
                args.iter_mut().for_each(|a| rename_expr(a, f));
            }
            Stmt::Let { reg, value } => {
                *reg = f(reg);
                rename_expr(value, f);
            }
            Stmt::If { cond, then, els } => {
                rename_expr(cond, f);
                rename_regs(then, f);
                rename_regs(els, f);
            }
            Stmt::Fork(bs) => bs.iter_mut().for_each(|b| rename_regs(&mut b.body, f)),
            Stmt::Loop { cond, body, .. } => {
                rename_expr(cond, f);
                rename_regs(body, f);
            }
        }
    }
}

fn rename_prop_regs(p: &mut Prop, f: &dyn Fn(&str) -> String) {
    match p {
        Prop::Reg { reg, .. } => *reg = f(reg),
        Prop::Mem { .. } => {}
        Prop::Not(a) => rename_prop_regs(a, f),
        Prop::And(a, b) | Prop::Or(a, b) => {
            rename_prop_regs(a, f);
            rename_prop_regs(b, f);
        }
    }
}

// ------------------------------------------------------------ the raw tree

#[derive(Clone, Debug)]
pub enum RExpr {
    Const(u8),
    Reg(u8),
    /// reg op const
    RegOp(u8, u8, u8),
    /// a location read inside an expression, with a mode, op'd with a const
    Loc(u8, u8, Option<(u8, u8)>),
    /// reg op reg (`Config::operators`)
    RegReg(u8, u8, u8),
    /// a unary operator on a register or a constant (`Config::operators`)
    Unary(u8, u8),
}

#[derive(Clone, Debug)]
pub enum RPlace {
    Named(u8),
    Computed(u8, bool),
    /// `[x]`: the index is read from memory.
    FromMemory(u8, u8),
}

#[derive(Clone, Debug)]
pub enum RStmt {
    Read(RPlace, u8, u8),
    Write(RPlace, RExpr, u8, u8),
    Fence(u8, u8),
    Rmw {
        op: u8,
        modes: u8,
        scope: u8,
        place: RPlace,
        args: (RExpr, RExpr),
        target: bool,
    },
    Let(RExpr),
    /// `mirror`: the else branch repeats the then branch (coalescing).
    If(RExpr, Vec<RStmt>, Vec<RStmt>, bool),
    Fork(Vec<RStmt>, Vec<RStmt>),
    /// Assign an existing register again (only with `Config::reuse`).
    Reuse(u8, RExpr),
    /// `while`, or `do ... while` when the flag is set (`Config::loops`).
    Loop(RExpr, Vec<RStmt>, bool),
}

#[derive(Clone, Debug)]
pub struct RAtom {
    mem: bool,
    pick: u8,
    op: u8,
    value: u8,
    negate: bool,
}

#[derive(Clone, Debug)]
pub struct RCond {
    quantifier: u8,
    atoms: Vec<RAtom>,
    conjunction: bool,
}

#[derive(Clone, Debug)]
pub struct Raw {
    values: u8,
    /// V starts at -1 (`Config::odd_values`).
    negative: bool,
    /// A declared V skips a value (`Config::odd_values`).
    gap: bool,
    /// Which top-level threads carry a label (`Config::labels`).
    labels: Vec<bool>,
    /// Picks register names (`Config::near_temporaries`).
    names: u8,
    unroll: u8,
    filter: Option<RCond>,
    declare_values: bool,
    locs: u8,
    addressed: bool,
    inits: Vec<u8>,
    scopes: Option<Vec<(u8, u8)>>,
    threads: Vec<Vec<RStmt>>,
    conditions: Vec<RCond>,
}

fn rexpr() -> impl Strategy<Value = RExpr> {
    prop_oneof![
        3 => any::<u8>().prop_map(RExpr::Const),
        3 => any::<u8>().prop_map(RExpr::Reg),
        2 => (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(a, b, c)| RExpr::RegOp(a, b, c)),
        1 => (any::<u8>(), any::<u8>(), prop::option::of((any::<u8>(), any::<u8>())))
            .prop_map(|(l, m, o)| RExpr::Loc(l, m, o)),
        1 => (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(a, b, c)| RExpr::RegReg(a, b, c)),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| RExpr::Unary(a, b)),
    ]
}

fn rplace(cfg: Config) -> impl Strategy<Value = RPlace> {
    let computed = if cfg.computed { 1 } else { 0 };
    prop_oneof![
        4 => any::<u8>().prop_map(RPlace::Named),
        computed => (any::<u8>(), any::<bool>()).prop_map(|(r, k)| RPlace::Computed(r, k)),
        computed => (any::<u8>(), any::<u8>()).prop_map(|(l, m)| RPlace::FromMemory(l, m)),
    ]
}

fn rleaf(cfg: Config) -> impl Strategy<Value = RStmt> {
    let rmw = if cfg.rmws { 2 } else { 0 };
    let reuse = if cfg.reuse { 1 } else { 0 };
    prop_oneof![
        5 => (rplace(cfg), any::<u8>(), any::<u8>()).prop_map(|(p, m, s)| RStmt::Read(p, m, s)),
        5 => (rplace(cfg), rexpr(), any::<u8>(), any::<u8>())
            .prop_map(|(p, e, m, s)| RStmt::Write(p, e, m, s)),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(m, s)| RStmt::Fence(m, s)),
        rmw => (any::<u8>(), any::<u8>(), any::<u8>(), rplace(cfg), (rexpr(), rexpr()), any::<bool>())
            .prop_map(|(op, modes, scope, place, args, target)| RStmt::Rmw {
                op, modes, scope, place, args, target,
            }),
        1 => rexpr().prop_map(RStmt::Let),
        reuse => (any::<u8>(), rexpr()).prop_map(|(r, e)| RStmt::Reuse(r, e)),
    ]
}

fn rstmt(cfg: Config) -> impl Strategy<Value = RStmt> {
    let fork = if cfg.forks { 1 } else { 0 };
    let loops = if cfg.loops { 1 } else { 0 };
    rleaf(cfg).prop_recursive(2, 8, 3, move |inner| {
        let block = prop::collection::vec(inner, 0..=2);
        prop_oneof![
            6 => rleaf(cfg),
            4 => (rexpr(), block.clone(), block.clone(), prop::bool::weighted(0.3))
                .prop_map(|(c, a, b, m)| RStmt::If(c, a, b, m)),
            2 * fork => (block.clone(), block.clone()).prop_map(|(a, b)| RStmt::Fork(a, b)),
            loops => (rexpr(), block, any::<bool>()).prop_map(|(c, b, d)| RStmt::Loop(c, b, d)),
        ]
    })
}

fn rcond() -> impl Strategy<Value = RCond> {
    let atom = (
        any::<bool>(),
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        prop::bool::weighted(0.15),
    )
        .prop_map(|(mem, pick, op, value, negate)| RAtom {
            mem,
            pick,
            op,
            value,
            negate,
        });
    (
        any::<u8>(),
        prop::collection::vec(atom, 1..=3),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(quantifier, atoms, conjunction)| RCond {
            quantifier,
            atoms,
            conjunction,
        })
}

fn raw(cfg: Config) -> impl Strategy<Value = Raw> {
    let odd = if cfg.odd_values { 0.25 } else { 0.0 };
    let filter = if cfg.filter { 0.15 } else { 0.0 };
    let extras = (
        prop::bool::weighted(odd),
        prop::bool::weighted(odd),
        prop::collection::vec(prop::bool::weighted(0.3), cfg.max_threads),
        any::<u8>(),
        1u8..=2,
        prop::option::weighted(filter, rcond()),
    );
    (
        (
            2u8..=cfg.max_values.max(2),
            any::<bool>(),
            1u8..=3,
            prop::bool::weighted(0.3),
        ),
        prop::collection::vec(any::<u8>(), 0..=3),
        prop::option::weighted(0.3, prop::collection::vec((0u8..2, 0u8..2), 8)),
        prop::collection::vec(
            prop::collection::vec(rstmt(cfg), 1..=3),
            1..=cfg.max_threads,
        ),
        prop::collection::vec(rcond(), 1..=2),
        extras,
    )
        .prop_map(
            move |(
                (values, declare_values, locs, addressed),
                inits,
                scopes,
                threads,
                conditions,
                (negative, gap, labels, names, unroll, filter),
            )| Raw {
                values,
                negative,
                gap,
                labels,
                names,
                unroll,
                filter,
                declare_values,
                locs,
                addressed: addressed && cfg.computed,
                inits,
                scopes,
                threads,
                conditions,
            },
        )
}

/// Random tests under `cfg`.
pub fn tests(cfg: Config) -> impl Strategy<Value = Test> {
    raw(cfg).prop_map(move |r| elaborate(&r, cfg))
}

/// Random tests with the default knobs (about six accesses).
pub fn test() -> impl Strategy<Value = Test> {
    tests(Config::default())
}

/// Random tests with at most four accesses, for slow engines.
pub fn tiny() -> impl Strategy<Value = Test> {
    tests(Config::tiny())
}

// ------------------------------------------------------------ elaboration

struct Elab {
    cfg: Config,
    values: Vec<i64>,
    nlocs: usize,
    budget: usize,
    /// What the current top-level thread may still use.
    thread_budget: usize,
    next_reg: usize,
    /// How many IFs enclose the statement being elaborated.
    in_if: u32,
    /// How many loops enclose it (no forks there: unrolling would copy them).
    in_loop: u32,
    unroll: usize,
    /// Whether some loop was kept (the test then sets `unroll`).
    looped: bool,
    names: u8,
    /// Every register name given out, so that near-temporary names stay apart.
    used: Vec<String>,
}

fn pick<T: Clone>(xs: &[T], k: u8) -> Option<T> {
    (!xs.is_empty()).then(|| xs[k as usize % xs.len()].clone())
}

fn sel(xs: &[&'static str], k: u8) -> &'static str {
    xs[k as usize % xs.len()]
}

/// The valid test a raw tree stands for.
pub fn elaborate(r: &Raw, cfg: Config) -> Test {
    let nlocs = r.locs as usize;
    let low: i64 = if r.negative && cfg.odd_values { -1 } else { 0 };
    let mut values: Vec<i64> = (low..low + i64::from(r.values)).collect();
    let declare_values = r.declare_values || r.addressed || (r.gap && cfg.odd_values);
    if r.gap && cfg.odd_values {
        // A declared V with a hole.
        let past = values.last().map_or(2, |v| v + 2);
        values.push(past);
    }
    if r.addressed {
        // Every address is a value (§1.5).
        values.extend(0..nlocs as i64);
    }
    // 0 and 1 stay in V: every location starts at 0, the transformations
    // write 1.
    values.extend([0, 1]);
    values.sort_unstable();
    values.dedup();
    let names = ["x", "y", "z", "w"];
    let locs: Vec<Loc> = (0..nlocs)
        .map(|i| Loc {
            name: names[i].to_string(),
            address: r.addressed.then_some(i as i64),
            init: match r.inits.get(i) {
                Some(&v) if v % 4 == 0 => values[usize::from(v / 4) % values.len()],
                _ => 0,
            },
        })
        .collect();
    let mut e = Elab {
        cfg,
        values: values.clone(),
        nlocs,
        budget: cfg.max_accesses,
        thread_budget: 0,
        next_reg: 0,
        in_if: 0,
        in_loop: 0,
        unroll: usize::from(r.unroll.max(1)),
        looped: false,
        names: r.names,
        used: Vec::new(),
    };
    // Each thread gets a share, so that the first ones cannot use it all.
    let share = (cfg.max_accesses / r.threads.len().max(1) + 1).max(2);
    let mut threads: Vec<Thread> = Vec::new();
    for (i, body) in r.threads.iter().enumerate() {
        e.thread_budget = share;
        let body = e.block(body, &[]);
        if has_access(&body) || threads.is_empty() {
            let labelled = cfg.labels && r.labels.get(i).copied().unwrap_or(false);
            let label = labelled.then(|| format!("T{i}"));
            threads.push(Thread { label, body });
        }
    }
    let mut t = Test {
        values,
        declare_values,
        locs,
        scopes: None,
        threads,
        filter: None,
        conditions: Vec::new(),
        unroll: e.looped.then_some(e.unroll as u32),
    };
    if let Some(groups) = &r.scopes {
        let names = t.thread_names();
        t.scopes = Some(
            names
                .into_iter()
                .enumerate()
                .map(|(i, n)| {
                    let (g, c) = groups.get(i).copied().unwrap_or((0, 0));
                    (n, g, c)
                })
                .collect(),
        );
    }
    let regs = t.registers();
    t.conditions = r.conditions.iter().map(|c| e.condition(c, &regs)).collect();
    t.filter = r.filter.as_ref().map(|c| e.condition(c, &regs).prop);
    t
}

impl Elab {
    fn value(&self, k: u8) -> i64 {
        self.values[k as usize % self.values.len()]
    }

    /// A register name no other assignment uses: `r3`, or with
    /// `near_temporaries` sometimes one shaped like the checker's
    /// temporaries (`_x1`, `_r1`, `r_1`).
    fn fresh_reg(&mut self) -> String {
        self.next_reg += 1;
        let n = self.next_reg - 1;
        let style = if self.cfg.near_temporaries {
            (n + usize::from(self.names)) % 5
        } else {
            0
        };
        let shape = |k: usize| match style {
            2 => format!("_r{k}"),
            3 => format!("_{}{k}", ["x", "y", "z", "w"][n % self.nlocs.max(1)]),
            4 => format!("r_{k}"),
            _ => format!("r{k}"),
        };
        let name = (1..)
            .map(shape)
            .find(|c| !self.used.contains(c))
            .unwrap_or_default();
        self.used.push(name.clone());
        name
    }

    fn take(&mut self, n: usize) -> bool {
        if self.budget < n || self.thread_budget < n {
            return false;
        }
        self.budget -= n;
        self.thread_budget -= n;
        true
    }

    /// An IF condition: a comparison of a register when there is one, else
    /// a read (an extended expression), else a constant.
    fn cond(&mut self, r: &RExpr, env: &[String]) -> Expr {
        let (a, b, c) = match r {
            RExpr::Const(k) => (*k, 0, *k),
            RExpr::Reg(k) => (*k, 2, 1),
            RExpr::RegOp(a, b, c) | RExpr::RegReg(a, b, c) => (*a, *b, *c),
            RExpr::Unary(a, b) => (*a, *b, *a),
            RExpr::Loc(l, m, o) => {
                let o = o.or(Some((2, 1)));
                return self.expr(&RExpr::Loc(*l, *m, o), env);
            }
        };
        if env.is_empty() {
            return self.expr(&RExpr::Loc(a, 1, Some((b, c))), env);
        }
        let reg = pick(env, a).unwrap_or_default();
        if !self.cfg.operators {
            let cmp = ["=", "!=", "=", "<"];
            return Expr::Bin(
                sel(&cmp, b),
                Box::new(Expr::Reg(reg)),
                Box::new(Expr::Int(self.value(c))),
            );
        }
        let cmp = ["=", "!=", "=", "<", "<=", ">", ">=", "!="];
        // Register against register, or against a value; sometimes `||`'d
        // with a second comparison.
        let other = if c % 3 == 0 {
            Expr::Reg(pick(env, c / 3).unwrap_or_default())
        } else {
            Expr::Int(self.value(c))
        };
        let first = Expr::Bin(
            sel(&cmp, b),
            Box::new(Expr::Reg(reg.clone())),
            Box::new(other),
        );
        if b % 5 != 4 {
            return first;
        }
        let second = Expr::Bin(
            sel(&cmp, a),
            Box::new(Expr::Reg(reg)),
            Box::new(Expr::Int(self.value(b))),
        );
        Expr::Bin(sel(&["||", "&&"], c), Box::new(first), Box::new(second))
    }

    /// The binary operators an expression may use.
    fn ops(&self) -> &'static [&'static str] {
        if self.cfg.operators {
            &[
                "+", "-", "=", "!=", "+", "=", "&&", "<", "*", "<=", ">", ">=", "||",
            ]
        } else {
            &["+", "-", "=", "!=", "+", "=", "&&", "<"]
        }
    }

    fn expr(&mut self, r: &RExpr, env: &[String]) -> Expr {
        let ops = self.ops();
        match r {
            RExpr::RegReg(a, op, b) if self.cfg.operators => match (pick(env, *a), pick(env, *b)) {
                (Some(x), Some(y)) => Expr::Bin(
                    sel(ops, *op),
                    Box::new(Expr::Reg(x)),
                    Box::new(Expr::Reg(y)),
                ),
                _ => Expr::Int(self.value(*b)),
            },
            // On a register only: a folded constant could leave a declared V.
            RExpr::Unary(op, k) if self.cfg.operators => match pick(env, *k) {
                Some(reg) => Expr::Un(sel(&["-", "!"], *op), Box::new(Expr::Reg(reg))),
                None => Expr::Int(self.value(*k)),
            },
            RExpr::RegReg(_, _, k) | RExpr::Unary(_, k) => Expr::Int(self.value(*k)),
            RExpr::Const(k) => Expr::Int(self.value(*k)),
            RExpr::Reg(k) => pick(env, *k).map_or(Expr::Int(self.value(*k)), Expr::Reg),
            RExpr::RegOp(k, op, c) => match pick(env, *k) {
                Some(reg) => Expr::Bin(
                    sel(ops, *op),
                    Box::new(Expr::Reg(reg)),
                    Box::new(Expr::Int(self.value(*c))),
                ),
                None => Expr::Int(self.value(*c)),
            },
            RExpr::Loc(l, m, o) => {
                if !self.take(1) {
                    return Expr::Int(self.value(*l));
                }
                let read = Expr::Loc(*l as usize % self.nlocs, sel(&READ_MODES, *m));
                match o {
                    None => read,
                    Some((op, c)) => Expr::Bin(
                        sel(ops, *op),
                        Box::new(read),
                        Box::new(Expr::Int(self.value(*c))),
                    ),
                }
            }
        }
    }

    /// A place; `None` for a computed one with no register to compute from.
    fn place(&mut self, r: &RPlace, env: &[String]) -> Place {
        match r {
            RPlace::Named(l) => Place::Loc(*l as usize % self.nlocs),
            RPlace::FromMemory(l, m) => {
                if !self.take(1) {
                    return Place::Loc(*l as usize % self.nlocs);
                }
                let read = Expr::Loc(*l as usize % self.nlocs, sel(&READ_MODES, *m));
                Place::Computed(read)
            }
            RPlace::Computed(k, plus) => match pick(env, *k) {
                None => Place::Loc(*k as usize % self.nlocs),
                Some(reg) if *plus => Place::Computed(Expr::Bin(
                    "+",
                    Box::new(Expr::Reg(reg)),
                    Box::new(Expr::Int(1)),
                )),
                Some(reg) => Place::Computed(Expr::Reg(reg)),
            },
        }
    }

    /// A block; registers it assigns are visible only after them within it.
    fn block(&mut self, raw: &[RStmt], outer: &[String]) -> Vec<Stmt> {
        let mut env = outer.to_vec();
        let mut out = Vec::new();
        for s in raw {
            match self.stmt(s, &mut env) {
                // A fork with nothing to fork is its continuation.
                Some(Stmt::Fork(bs)) if bs.first().is_some_and(|b| b.body.is_empty()) => {
                    out.extend(bs.into_iter().last().map(|b| b.body).unwrap_or_default())
                }
                Some(s) => out.push(s),
                None => {}
            }
        }
        out
    }

    fn stmt(&mut self, r: &RStmt, env: &mut Vec<String>) -> Option<Stmt> {
        match r {
            RStmt::Read(p, m, s) => {
                if !self.take(1) {
                    return None;
                }
                let place = self.place(p, env);
                let reg = self.fresh_reg();
                env.push(reg.clone());
                Some(Stmt::Read {
                    reg,
                    place,
                    mode: sel(&READ_MODES, *m),
                    scope: sel(&SCOPES, *s),
                })
            }
            RStmt::Write(p, v, m, s) => {
                if !self.take(1) {
                    return None;
                }
                let place = self.place(p, env);
                Some(Stmt::Write {
                    place,
                    value: self.expr(v, env),
                    mode: sel(&WRITE_MODES, *m),
                    scope: sel(&SCOPES, *s),
                })
            }
            RStmt::Fence(m, s) => Some(Stmt::Fence {
                mode: sel(&FENCE_MODES, *m),
                scope: sel(&SCOPES, *s),
            }),
            RStmt::Rmw {
                op,
                modes,
                scope,
                place,
                args,
                target,
            } => self.rmw(*op, *modes, *scope, place, args, *target, env),
            RStmt::Let(v) => {
                let value = self.expr(v, env);
                let reg = self.fresh_reg();
                env.push(reg.clone());
                Some(Stmt::Let { reg, value })
            }
            RStmt::Reuse(k, v) => {
                let reg = pick(env, *k)?;
                let value = self.expr(v, env);
                Some(Stmt::Let { reg, value })
            }
            RStmt::If(c, a, b, mirror) => {
                let cond = self.cond(c, env);
                self.in_if += 1;
                let then = self.block(a, env);
                let els = self.block(if *mirror { a } else { b }, env);
                self.in_if -= 1;
                if then.is_empty()
                    && els.is_empty()
                    && !matches!(cond, Expr::Bin(_, ref x, _) if matches!(**x, Expr::Loc(..)))
                {
                    return None;
                }
                Some(Stmt::If { cond, then, els })
            }
            RStmt::Loop(c, body, do_while) => self.loop_(c, body, *do_while, env),
            RStmt::Fork(a, b) => {
                let allowed = (self.in_if == 0 || self.cfg.forks_in_if) && self.in_loop == 0;
                let left = if allowed { self.block(a, env) } else { vec![] };
                let right = self.block(b, env);
                env.extend(assigned(&right));
                Some(Stmt::Fork(vec![
                    Thread {
                        label: None,
                        body: left,
                    },
                    Thread {
                        label: None,
                        body: right,
                    },
                ]))
            }
        }
    }

    /// A loop, charged for every unrolled copy of its body and condition;
    /// dropped when that exceeds the budget.
    fn loop_(&mut self, c: &RExpr, body: &[RStmt], do_while: bool, env: &[String]) -> Option<Stmt> {
        let saved = (self.budget, self.thread_budget);
        let cond = self.cond(c, env);
        let after_cond = self.budget;
        self.in_loop += 1;
        let body = self.block(body, env);
        self.in_loop -= 1;
        let (cond_used, body_used) = (saved.0 - after_cond, after_cond - self.budget);
        let tests = if do_while {
            self.unroll
        } else {
            self.unroll + 1
        };
        let extra = (tests - 1) * cond_used + (self.unroll - 1) * body_used;
        if body.is_empty() || !self.take(extra) {
            (self.budget, self.thread_budget) = saved;
            return None;
        }
        self.looped = true;
        Some(Stmt::Loop {
            cond,
            body,
            do_while,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn rmw(
        &mut self,
        op: u8,
        modes: u8,
        scope: u8,
        place: &RPlace,
        args: &(RExpr, RExpr),
        target: bool,
        env: &mut Vec<String>,
    ) -> Option<Stmt> {
        if !self.take(2) {
            return None;
        }
        let op = sel(&["CAS", "FADD", "EXCHG"], op);
        let modes = match modes % 3 {
            0 => RmwModes::None,
            1 => RmwModes::One(sel(&RMW_SHORT, modes / 3)),
            _ => RmwModes::Two(sel(&READ_MODES, modes / 3), sel(&WRITE_MODES, modes / 12)),
        };
        let place = self.place(place, env);
        // With `operators`, RMW arguments may read memory (extended reads
        // made before the RMW, issue 27 §4).
        let wide = self.cfg.operators;
        let plain = |e: &RExpr| match e {
            RExpr::Loc(l, ..) if !wide => RExpr::Const(*l),
            e => e.clone(),
        };
        let mut values = vec![self.expr(&plain(&args.0), env)];
        if op == "CAS" {
            values.push(self.expr(&plain(&args.1), env));
        }
        let reg = target.then(|| self.fresh_reg());
        if let Some(r) = &reg {
            env.push(r.clone());
        }
        Some(Stmt::Rmw {
            reg,
            op,
            modes,
            scope: sel(&SCOPES, scope),
            place,
            args: values,
        })
    }

    fn condition(&self, c: &RCond, regs: &[(String, String)]) -> Cond {
        let quantifier = sel(&["exists", "exists", "~exists", "forall"], c.quantifier);
        let ops = ["=", "=", "=", "!="];
        let mut atoms = c.atoms.iter().map(|a| {
            let op = sel(&ops, a.op);
            let value = self.value(a.value);
            let mem = (a.mem && self.cfg.memory_conditions) || regs.is_empty();
            let p = match pick(regs, a.pick) {
                Some((thread, reg)) if !mem => Prop::Reg {
                    thread,
                    reg,
                    op,
                    value,
                },
                _ => Prop::Mem {
                    loc: a.pick as usize % self.nlocs,
                    op,
                    value,
                },
            };
            if a.negate {
                Prop::Not(Box::new(p))
            } else {
                p
            }
        });
        let first = atoms.next().unwrap_or(Prop::Mem {
            loc: 0,
            op: "=",
            value: 0,
        });
        let prop = atoms.fold(first, |acc, p| {
            if c.conjunction {
                Prop::And(Box::new(acc), Box::new(p))
            } else {
                Prop::Or(Box::new(acc), Box::new(p))
            }
        });
        Cond { quantifier, prop }
    }
}

/// Whether a block makes any memory access.
fn has_access(ss: &[Stmt]) -> bool {
    ss.iter().any(|s| match s {
        Stmt::Read { .. } | Stmt::Write { .. } | Stmt::Rmw { .. } => true,
        Stmt::Fence { .. } => false,
        Stmt::Let { value, .. } => expr_accesses(value) > 0,
        Stmt::If { cond, then, els } => {
            expr_accesses(cond) > 0 || has_access(then) || has_access(els)
        }
        Stmt::Fork(bs) => bs.iter().any(|b| has_access(&b.body)),
        Stmt::Loop { cond, body, .. } => expr_accesses(cond) > 0 || has_access(body),
    })
}

/// Memory events of an expression's extended reads.
fn expr_accesses(e: &Expr) -> usize {
    match e {
        Expr::Loc(..) => 1,
        Expr::Bin(_, a, b) => expr_accesses(a) + expr_accesses(b),
        Expr::Un(_, a) => expr_accesses(a),
        Expr::Int(_) | Expr::Reg(_) => 0,
    }
}

/// Registers a block assigns at its top level (visible after it).
fn assigned(ss: &[Stmt]) -> Vec<String> {
    ss.iter()
        .filter_map(|s| match s {
            Stmt::Read { reg, .. } | Stmt::Let { reg, .. } => Some(reg.clone()),
            Stmt::Rmw { reg: Some(r), .. } => Some(r.clone()),
            _ => None,
        })
        .collect()
}
