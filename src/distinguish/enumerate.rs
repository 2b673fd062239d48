//! The programs of a bound: threads of accesses drawn from a vocabulary,
//! each written as a litmus test. [`programs`] lists every program of a
//! [`Space`] once up to symmetry (its canonical form, `canon.rs`), in one
//! fixed order, so that a shard is an index set (`shard.rs`).

use crate::syntax::ast::{Mode, Scope};

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Read,
    Write,
    Fence,
    /// `r := FADD(x, v)`: a read-modify-write adding `v`.
    Fadd,
    /// `r := EXCHG(x, v)`: a read-modify-write writing `v`.
    Exchg,
}

impl Kind {
    /// Whether the access assigns a register (the value read).
    pub fn reads(self) -> bool {
        matches!(self, Kind::Read | Kind::Fadd | Kind::Exchg)
    }

    /// Whether it is a read-modify-write, with two modes.
    pub fn is_rmw(self) -> bool {
        matches!(self, Kind::Fadd | Kind::Exchg)
    }
}

/// How an access depends on the thread's latest read before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dep {
    None,
    /// A write of the value read (`y := r0`): a data dependency.
    Data,
    /// The access inside `if (r0 = 1) { ... }`: a control dependency.
    Ctrl,
}

/// One access of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Op {
    pub kind: Kind,
    /// Index of the location: 0 is `x`, then `y`, `z`, `w`.
    pub loc: u8,
    /// The value a write or EXCHG writes, or FADD's increment; 0 otherwise.
    pub val: u8,
    /// The mode of a read, write or fence, or of an RMW's read half.
    pub mode: Mode,
    /// The mode of an RMW's write half (`Rlx` for the others).
    pub wmode: Mode,
    pub scope: Scope,
    pub dep: Dep,
}

/// A program: its threads, each a list of accesses.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    pub threads: Vec<Vec<Op>>,
}

/// The names of the locations, in index order.
pub const LOCATIONS: [&str; 4] = ["x", "y", "z", "w"];

/// What a program may contain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocabulary {
    /// The modes; each access takes those of them that are legal for it (§1.1).
    pub modes: Vec<Mode>,
    pub scopes: Vec<Scope>,
    pub fences: bool,
    /// The read-modify-writes (`Fadd`, `Exchg`).
    pub rmws: Vec<Kind>,
    /// The dependencies (`Data`, `Ctrl`).
    pub deps: Vec<Dep>,
    /// A `scopes:` header, as written in a litmus file; threads are then
    /// not interchangeable.
    pub scope_tree: Option<String>,
}

impl Default for Vocabulary {
    /// Relaxed reads and writes at system scope, nothing else.
    fn default() -> Vocabulary {
        Vocabulary {
            modes: vec![Mode::Rlx],
            scopes: vec![Scope::Sys],
            fences: false,
            rmws: Vec::new(),
            deps: Vec::new(),
            scope_tree: None,
        }
    }
}

/// The size of the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// At most this many threads.
    pub threads: usize,
    /// At most this many accesses (fences included) in a thread.
    pub per_thread: usize,
    /// At most this many accesses in all.
    pub total: usize,
    /// At most this many locations (up to 4).
    pub locations: u8,
    /// V = {0, ..., values - 1}; writes write 1 ..= values - 1.
    pub values: u8,
}

impl Default for Bound {
    fn default() -> Bound {
        Bound {
            threads: 2,
            per_thread: 2,
            total: 4,
            locations: 2,
            values: 2,
        }
    }
}

/// A bound and a vocabulary: the programs a sweep visits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Space {
    pub bound: Bound,
    pub vocabulary: Vocabulary,
}

impl Space {
    /// Refuses a bound the programs cannot be written in.
    pub fn check(&self) -> Result<(), String> {
        let b = &self.bound;
        if b.locations == 0 || b.locations as usize > LOCATIONS.len() {
            return Err(format!(
                "--locations takes 1 to {}, not {}",
                LOCATIONS.len(),
                b.locations
            ));
        }
        if b.values as usize > super::canon::MAX_VALUES {
            return Err(format!(
                "--values takes at most {}",
                super::canon::MAX_VALUES
            ));
        }
        if b.values < 2 {
            return Err("--values takes at least 2 (0, the initial value, and 1)".to_string());
        }
        if b.threads == 0 || b.per_thread == 0 || b.total == 0 {
            return Err("--threads, --per-thread and --total take at least 1".to_string());
        }
        if self.vocabulary.modes.is_empty() || self.vocabulary.scopes.is_empty() {
            return Err("--modes and --scopes name at least one each".to_string());
        }
        if self.vocabulary.rmws.iter().any(|k| !k.is_rmw()) {
            return Err("--rmws takes fadd and exchg".to_string());
        }
        Ok(())
    }

    /// The space in one line, as a record's header states it: a resumed
    /// or merged file must have been written for the same space.
    pub fn describe(&self) -> String {
        let (b, v) = (&self.bound, &self.vocabulary);
        let names = |xs: Vec<&str>| {
            if xs.is_empty() {
                "none".to_string()
            } else {
                xs.join(",")
            }
        };
        format!(
            "threads={} per-thread={} total={} locations={} values={} modes={} scopes={} fences={} rmws={} deps={} scope-tree={}",
            b.threads,
            b.per_thread,
            b.total,
            b.locations,
            b.values,
            names(v.modes.iter().map(|m| m.as_str()).collect()),
            names(v.scopes.iter().map(|m| m.as_str()).collect()),
            if v.fences { "yes" } else { "no" },
            names(v.rmws.iter().map(|k| if *k == Kind::Fadd { "fadd" } else { "exchg" }).collect()),
            names(v.deps.iter().filter(|d| **d != Dep::None).map(|d| if *d == Dep::Data { "data" } else { "ctrl" }).collect()),
            v.scope_tree.as_deref().unwrap_or("none"),
        )
    }

    /// Whether renaming the written values (per location, 0 kept) cannot
    /// change a verdict: only when values are compared or added nowhere.
    pub fn values_are_names(&self) -> bool {
        let v = &self.vocabulary;
        !v.rmws.contains(&Kind::Fadd)
            && !v.deps.contains(&Dep::Ctrl)
            && !v.deps.contains(&Dep::Data)
    }

    /// Whether threads may be permuted: not under a scope tree.
    pub fn threads_are_interchangeable(&self) -> bool {
        self.vocabulary.scope_tree.is_none()
    }

    /// Every access without dependency the vocabulary allows, in order.
    pub fn ops(&self) -> Vec<Op> {
        let v = &self.vocabulary;
        let b = &self.bound;
        let mut out = Vec::new();
        let legal = |kind: Kind| -> Vec<Mode> {
            v.modes
                .iter()
                .copied()
                .filter(|m| legal_mode(kind, *m))
                .collect()
        };
        let op = |kind, loc, val, mode, wmode, scope| Op {
            kind,
            loc,
            val,
            mode,
            wmode,
            scope,
            dep: Dep::None,
        };
        for &scope in &v.scopes {
            for loc in 0..b.locations {
                for &m in &legal(Kind::Read) {
                    out.push(op(Kind::Read, loc, 0, m, Mode::Rlx, scope));
                }
                for val in 1..b.values {
                    for &m in &legal(Kind::Write) {
                        out.push(op(Kind::Write, loc, val, m, Mode::Rlx, scope));
                    }
                }
                for &kind in &v.rmws {
                    for val in 1..b.values {
                        for &m in &legal(Kind::Read) {
                            for &w in &legal(Kind::Write) {
                                out.push(op(kind, loc, val, m, w, scope));
                            }
                        }
                    }
                }
            }
            if v.fences {
                for &m in &legal(Kind::Fence) {
                    out.push(op(Kind::Fence, 0, 0, m, Mode::Rlx, scope));
                }
            }
        }
        out.sort();
        out
    }
}

/// Whether `m` is a mode of an access of `kind` (an RMW's read half for an
/// RMW), as the book's "Modes and scopes" table says.
pub fn legal_mode(kind: Kind, m: Mode) -> bool {
    match kind {
        Kind::Read | Kind::Fadd | Kind::Exchg => {
            matches!(m, Mode::Wk | Mode::Rlx | Mode::Acq | Mode::Sc)
        }
        Kind::Write => matches!(m, Mode::Wk | Mode::Rlx | Mode::Rel | Mode::Sc),
        Kind::Fence => matches!(m, Mode::Rel | Mode::Acq | Mode::Ra | Mode::Sc),
    }
}

/// Every thread the space allows: sequences of 1 to `per_thread` accesses,
/// with the dependencies on an earlier read the vocabulary has.
pub fn threads(space: &Space) -> Vec<Vec<Op>> {
    let ops = space.ops();
    let mut out = Vec::new();
    let mut layer: Vec<Vec<Op>> = vec![Vec::new()];
    for _ in 0..space.bound.per_thread.min(space.bound.total) {
        let mut next = Vec::new();
        for prefix in &layer {
            let after_read = prefix.iter().any(|o| o.kind.reads());
            for &op in &ops {
                for dep in dep_choices(space, op, after_read) {
                    let mut t = prefix.clone();
                    t.push(Op { dep, ..op });
                    next.push(t);
                }
            }
        }
        out.extend(next.iter().cloned());
        layer = next;
    }
    out
}

/// The dependencies `op` may carry: data for a write, control for any
/// access, each only after a read.
pub(super) fn dep_choices(space: &Space, op: Op, after_read: bool) -> Vec<Dep> {
    let mut out = vec![Dep::None];
    if !after_read {
        return out;
    }
    for &d in &space.vocabulary.deps {
        let fits = match d {
            Dep::None => false,
            Dep::Data => op.kind == Kind::Write && op.val == 1,
            Dep::Ctrl => true,
        };
        if fits {
            out.push(d);
        }
    }
    out
}

/// The canonical programs of `space`, each once, in a fixed order: by
/// number of threads, then by the threads' indices in [`threads`]
/// (lexicographically). Prefixes that no canonical program extends are cut:
/// a prefix must be normalised (`canon::is_normal`), and with interchangeable
/// threads no later thread, normalised alone, may be less than the first.
pub fn programs(space: &Space) -> Programs<'_> {
    let threads = threads(space);
    let alone = threads
        .iter()
        .map(|t| {
            let one = Shape {
                threads: vec![t.clone()],
            };
            super::canon::normalise(space, &one).threads.swap_remove(0)
        })
        .collect();
    // A scope tree names every thread: its programs have them all.
    let n = match space.vocabulary.scope_tree {
        Some(_) => space.bound.threads,
        None => 1,
    };
    Programs {
        space,
        threads,
        alone,
        n,
        stack: Vec::new(),
        begun: false,
    }
}

/// The iterator of [`programs`]: a depth-first walk over tuples of threads.
pub struct Programs<'a> {
    space: &'a Space,
    threads: Vec<Vec<Op>>,
    /// Each thread normalised on its own.
    alone: Vec<Vec<Op>>,
    /// The number of threads of the programs being listed.
    n: usize,
    /// The index of each thread chosen so far.
    stack: Vec<usize>,
    begun: bool,
}

impl Programs<'_> {
    /// Whether thread `j` may come next after the stack.
    fn fits(&self, j: usize) -> bool {
        let level = self.stack.len();
        let used: usize = self.stack.iter().map(|&i| self.threads[i].len()).sum();
        // Each thread still to come has an access at least.
        if used + self.threads[j].len() + (self.n - level - 1) > self.space.bound.total {
            return false;
        }
        if level > 0
            && self.space.threads_are_interchangeable()
            && self.alone[j] < self.threads[self.stack[0]]
        {
            return false;
        }
        let prefix = self.stack.iter().chain(std::iter::once(&j));
        super::canon::is_normal(self.space, prefix.map(|&i| self.threads[i].as_slice()))
    }

    /// Pushes the first thread from index `from` on that fits.
    fn push_from(&mut self, from: usize) -> bool {
        for j in from..self.threads.len() {
            if self.fits(j) {
                self.stack.push(j);
                return true;
            }
        }
        false
    }

    /// Completes the stack to `n` threads, the first that fit.
    fn fill(&mut self) -> bool {
        while self.stack.len() < self.n {
            if !self.push_from(0) {
                return false;
            }
        }
        true
    }

    /// Moves to the next full stack of `n` threads, if any.
    fn next_leaf(&mut self) -> bool {
        if !self.begun {
            self.begun = true;
            if self.fill() {
                return true;
            }
        }
        loop {
            let Some(last) = self.stack.pop() else {
                return false;
            };
            if self.push_from(last + 1) && self.fill() {
                return true;
            }
        }
    }
}

impl Iterator for Programs<'_> {
    type Item = Shape;
    fn next(&mut self) -> Option<Shape> {
        loop {
            if !self.next_leaf() {
                if self.n >= self.space.bound.threads {
                    return None;
                }
                self.n += 1;
                self.stack.clear();
                self.begun = false;
                continue;
            }
            let shape = Shape {
                threads: self
                    .stack
                    .iter()
                    .map(|&i| self.threads[i].clone())
                    .collect(),
            };
            if super::canon::is_canonical(self.space, &shape) {
                return Some(shape);
            }
        }
    }
}

impl Shape {
    /// How many accesses (fences included) it has.
    pub fn size(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }

    /// The threads as litmus text, one line, threads separated by `||`:
    /// the program's name in records and the body of its test.
    pub fn body(&self) -> String {
        let threads: Vec<String> = self.threads.iter().map(|t| thread_text(t)).collect();
        threads.join(" || ")
    }

    /// The program as a litmus file, without condition.
    pub fn litmus(&self, name: &str, space: &Space) -> String {
        let mut out = format!("litmus {name}\n");
        let max = self.max_value(space);
        let vs: Vec<String> = (0..=max).map(|v| v.to_string()).collect();
        out.push_str(&format!("values {{{}}}\n", vs.join(", ")));
        if let Some(tree) = &space.vocabulary.scope_tree {
            out.push_str(&format!("scopes: {tree}\n"));
        }
        out.push('\n');
        for (i, t) in self.threads.iter().enumerate() {
            let sep = if i == 0 { "" } else { "|| " };
            out.push_str(&format!("{sep}{}\n", thread_text(t)));
        }
        out
    }

    /// The largest value an execution may hold: FADDs add up.
    fn max_value(&self, space: &Space) -> u64 {
        let top = u64::from(space.bound.values - 1);
        let added: u64 = self
            .threads
            .iter()
            .flatten()
            .filter(|o| o.kind == Kind::Fadd)
            .map(|o| u64::from(o.val))
            .sum();
        top + added
    }
}

/// One thread as litmus statements; the register of access `i` is `r{i}`.
/// A thread emptied by `minimal::removed` under a scope tree is `skip;`.
fn thread_text(ops: &[Op]) -> String {
    if ops.is_empty() {
        return "skip;".to_string();
    }
    let mut parts = Vec::new();
    let mut latest: Option<usize> = None;
    for (i, op) in ops.iter().enumerate() {
        let stmt = op_text(i, op, latest);
        let stmt = match (op.dep, latest) {
            (Dep::Ctrl, Some(r)) => format!("if (r{r} = 1) {{ {stmt} }}"),
            _ => stmt,
        };
        parts.push(stmt);
        if op.kind.reads() {
            latest = Some(i);
        }
    }
    parts.join(" ")
}

/// `.mode.scope`, leaving out the defaults `rlx` and `sys`.
fn suffix(modes: &[Mode], scope: Scope) -> String {
    let mut s = String::new();
    let all_rlx = modes.iter().all(|m| *m == Mode::Rlx);
    if !all_rlx {
        for m in modes {
            s.push('.');
            s.push_str(m.as_str());
        }
    }
    if scope != Scope::Sys {
        s.push('.');
        s.push_str(scope.as_str());
    }
    s
}

fn op_text(i: usize, op: &Op, latest: Option<usize>) -> String {
    let loc = LOCATIONS[op.loc as usize % LOCATIONS.len()];
    match op.kind {
        Kind::Read => format!("r{i} := {loc}{};", suffix(&[op.mode], op.scope)),
        Kind::Write => {
            let value = match (op.dep, latest) {
                (Dep::Data, Some(r)) => format!("r{r}"),
                _ => op.val.to_string(),
            };
            format!("{loc}{} := {value};", suffix(&[op.mode], op.scope))
        }
        Kind::Fence => format!("F.{}{};", op.mode.as_str(), scope_suffix(op.scope)),
        Kind::Fadd | Kind::Exchg => {
            let name = if op.kind == Kind::Fadd {
                "FADD"
            } else {
                "EXCHG"
            };
            format!(
                "r{i} := {name}{}({loc}, {});",
                suffix(&[op.mode, op.wmode], op.scope),
                op.val
            )
        }
    }
}

fn scope_suffix(scope: Scope) -> String {
    if scope == Scope::Sys {
        String::new()
    } else {
        format!(".{}", scope.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_written_as_litmus_statements() {
        let space = Space {
            bound: Bound::default(),
            vocabulary: Vocabulary::default(),
        };
        let t = &threads(&space);
        // Two locations, each read or written with 1: 4 single accesses, 16 pairs.
        assert_eq!(t.len(), 4 + 16);
        let shape = Shape {
            threads: vec![t[0].clone(), t[3].clone()],
        };
        assert_eq!(shape.body(), "r0 := x; || y := 1;");
    }
}
