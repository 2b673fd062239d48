//! The context grammar: what the contextual search puts around a fragment.
//!
//! ```text
//! context  ::= P0: set* [pre] FRAGMENT [post]  ||  thread ... (at most `threads`)
//! set      ::= q := v      for each register q the fragment reads before
//!                          assigning, v ∈ {0} ∪ values (every choice; size 0)
//! pre      ::= k := ℓ.m  |  ℓ.m := v   m ∈ {rlx} (and sc, if the fragment
//!                                      has an sc event): an access before it
//! post     ::= k := ℓ.m  |  ℓ.m := v   likewise, after it
//! thread   ::= instr | instr instr
//! instr    ::= a := ℓ.m      m ∈ {rlx, acq} (and sc, if the fragment has an sc event)
//!            | ℓ.m := v      m ∈ {rlx, rel} (and sc, likewise)
//!            | F.m           m ∈ {acq, rel, sc}
//!            | a := FADD(ℓ, 1)                        (relaxed)
//!            | a := f.acq; if (a = 1) { b := ℓ; }    (a guarded reader; size 2)
//!            | a := f.acq; if (a = 1) { ℓ.wk := v; g.rel := 1; }
//!                                      (a guarded writer; size 3; ℓ a location
//!                                      of the fragment, f, g and ℓ distinct)
//! classic  ::= (a fence fragment only) P0: pre FRAGMENT post with one of
//!              the classic fenced shapes beside it: SB, MP (P0 writing or
//!              reading), LB, R, S, 2+2W, IRIW (P0 a reader), the other
//!              side's fence each of none, acq, rel, sc
//! ```
//!
//! A guarded writer is the race-free observer of code that moves plain
//! accesses across synchronisation: it writes its data only once it has
//! acquired the fragment's release, and publishes it by a release the
//! fragment may acquire, so a model where races are undefined sees the
//! difference without a race.
//!
//! The classic shapes are a family of their own, tried after the bound's
//! contexts wherever the source or the target has a fence: store
//! buffering with fences needs an access on each side of the fragment and
//! a three-instruction thread beside it (size 5), beyond any small size
//! bound, and it is what tells a fence from `skip`.
//!
//! A model states which qualifiers its programs carry (`Qualifiers`): under
//! Vulkan's, whose releases and acquires synchronise only through the
//! storage classes their semantics name and whose plain accesses are seen
//! only through availability and visibility, every context instruction is
//! written as a SPIR-V program would write it: a release with the storage
//! classes the fragment uses in its semantics and `.semav`, an acquire with
//! them and `.semvis`, a fence with both sides' (an sc fence as `F.ra`),
//! each access in its location's storage class, plain accesses `.nonpriv`.
//! It is the mapping of `--mapping pwt:vulkan` (the book's "Vulkan").
//!
//! ```text
//!
//! over the fragment's locations and one more (`ℓ, f`), with written values
//! `v`: to the fragment's locations its nonzero constants and one value it
//! does not write, to the one more 1. A register the fragment reads before
//! assigning holds what the code before it left there, so every context
//! sets each such register first, to 0 and to each of those values (no
//! other value is tried: an answer's bound names these). The `set`s are not
//! counted in the size: without them no outcome of the fragment is known at
//! all. The size of a context is its number of instructions (a guarded
//! reader counts two); the bound is a size and a number of threads, and
//! the contexts are enumerated smallest first, each once up to the order
//! of the parallel threads (the threads of a context are a multiset, and
//! every model here is symmetric in them).
//!
//! Every thread sits in a CTA of its own, all on one GPU (a test without
//! `scopes:`), where `cta` differs from `gpu` and `sys` but `gpu` and `sys`
//! do not. Where the fragment names the `gpu` scope, each context is also
//! placed on two GPUs: P0 on the first, each parallel thread on either,
//! once up to the order of equal threads (`Context::apart`; not counted
//! in the size).
//!
//! Two prunings leave out contexts that a smaller context, tried first,
//! stands for exactly (each is checked against the unpruned enumeration in
//! `tests/it/transformations.rs`):
//!
//! - an independent thread: a parallel thread that shares no location with
//!   the rest of the program and has no `sc` event (or no other thread
//!   has one). No relation of any model here links events of different
//!   threads except through a shared location or the order of `sc`
//!   events, so the outcomes are those of the context without it, each
//!   paired with each of its own;
//! - inert code: a fence with no access on the side it orders (an acquire
//!   fence with no access before it in its thread, a release fence with
//!   none after, an `sc` fence without both), which adds no edge in any
//!   model; and a relaxed (or plain) access, or relaxed FADD, to a
//!   location nothing else in the program accesses: it reads the initial
//!   value, or writes a value nobody reads, and orders nothing, so each
//!   outcome of the context without it extends by its one value.

use std::fmt::Write as _;

/// One instruction of the grammar.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Instr {
    Read {
        loc: usize,
        mode: &'static str,
    },
    Write {
        loc: usize,
        mode: &'static str,
        value: i64,
    },
    Fence(&'static str),
    Fadd {
        loc: usize,
    },
    /// `a := flag.acq; if (a = 1) { b := loc; }`.
    Guarded {
        flag: usize,
        loc: usize,
    },
    /// `a := flag.acq; if (a = 1) { loc.wk := value; signal.rel := 1; }`.
    GuardedWriter {
        flag: usize,
        loc: usize,
        value: i64,
        signal: usize,
    },
}

impl Instr {
    /// Its size in the bound: a guarded reader is two instructions.
    pub fn size(&self) -> usize {
        match self {
            Instr::Guarded { .. } => 2,
            Instr::GuardedWriter { .. } => 3,
            _ => 1,
        }
    }

    fn locs(&self) -> Vec<usize> {
        match self {
            Instr::Read { loc, .. } | Instr::Write { loc, .. } | Instr::Fadd { loc } => vec![*loc],
            Instr::Guarded { flag, loc } => vec![*flag, *loc],
            Instr::GuardedWriter {
                flag, loc, signal, ..
            } => vec![*flag, *loc, *signal],
            Instr::Fence(_) => vec![],
        }
    }

    fn is_sc(&self) -> bool {
        match self {
            Instr::Read { mode, .. } | Instr::Write { mode, .. } | Instr::Fence(mode) => {
                *mode == "sc"
            }
            _ => false,
        }
    }

    /// The instruction as litmus text in the model's qualifiers, its
    /// registers drawn from `reg`.
    fn text(&self, vocab: &Vocabulary, reg: &mut dyn FnMut() -> String) -> String {
        let locs = &vocab.locs;
        let q = |loc: usize, mode: &str| vocab.qualified(Some(loc), mode);
        match self {
            Instr::Read { loc, mode } => format!("{} := {}{};", reg(), locs[*loc], q(*loc, mode)),
            Instr::Write { loc, mode, value } => {
                format!("{}{} := {value};", locs[*loc], q(*loc, mode))
            }
            Instr::Fence(mode) => format!("F{};", vocab.qualified(None, mode)),
            Instr::Fadd { loc } => format!("{} := FADD({}, 1);", reg(), locs[*loc]),
            Instr::Guarded { flag, loc } => {
                let (a, b) = (reg(), reg());
                format!(
                    "{a} := {}{}; if ({a} = 1) {{ {b} := {}{}; }}",
                    locs[*flag],
                    q(*flag, "acq"),
                    locs[*loc],
                    q(*loc, "")
                )
            }
            Instr::GuardedWriter {
                flag,
                loc,
                value,
                signal,
            } => {
                let a = reg();
                format!(
                    "{a} := {}{}; if ({a} = 1) {{ {}{} := {value}; {}{} := 1; }}",
                    locs[*flag],
                    q(*flag, "acq"),
                    locs[*loc],
                    q(*loc, "wk"),
                    locs[*signal],
                    q(*signal, "rel")
                )
            }
        }
    }
}

/// A context: instructions around the fragment in P0, and parallel threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// The value each of `Vocabulary::unset` is set to first.
    pub sets: Vec<i64>,
    pub pre: Option<Instr>,
    pub post: Option<Instr>,
    pub threads: Vec<Vec<Instr>>,
    /// The parallel threads placed on a second GPU, bit i for `threads[i]`
    /// (only where `Vocabulary::gpu_scoped`): 0 is the default placement,
    /// every thread in a CTA of its own on one GPU, with no `scopes:` line.
    pub apart: u32,
}

impl Context {
    pub fn size(&self) -> usize {
        let p0 = self
            .pre
            .iter()
            .chain(&self.post)
            .map(Instr::size)
            .sum::<usize>();
        p0 + self
            .threads
            .iter()
            .flatten()
            .map(Instr::size)
            .sum::<usize>()
    }

    /// P0's text with `fragment` in place, and each parallel thread's.
    pub fn texts(&self, vocab: &Vocabulary, fragment: &str) -> (String, Vec<String>) {
        let mut k = 0;
        let mut p0_reg = || loop {
            let name = format!("k{k}");
            k += 1;
            if !vocab.p0_regs.contains(&name) {
                return name;
            }
        };
        let mut p0 = String::new();
        for (q, v) in vocab.unset.iter().zip(&self.sets) {
            let _ = write!(p0, "{q} := {v}; ");
        }
        if let Some(i) = &self.pre {
            let _ = write!(p0, "{} ", i.text(vocab, &mut p0_reg));
        }
        p0.push_str(fragment.trim_end());
        if let Some(i) = &self.post {
            // A fragment written without its last `;` still takes code after it.
            if !p0.ends_with(';') && !p0.ends_with('}') {
                p0.push(';');
            }
            let _ = write!(p0, " {}", i.text(vocab, &mut p0_reg));
        }
        let threads = self
            .threads
            .iter()
            .map(|t| {
                let mut n = 0;
                let mut reg = || {
                    n += 1;
                    format!("a{}", n - 1)
                };
                t.iter()
                    .map(|i| i.text(vocab, &mut reg))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        (p0, threads)
    }

    /// The `scopes:` line of a placement on two GPUs: P0 and the threads
    /// not `apart` on the first, the others on the second, each thread in
    /// a CTA of its own (a thread listed directly in a gpu gets one).
    /// `None` for the default placement.
    pub fn scopes_line(&self) -> Option<String> {
        if self.apart == 0 {
            return None;
        }
        let (mut near, mut far) = (vec!["P0".to_string()], Vec::new());
        for i in 0..self.threads.len() {
            let name = format!("P{}", i + 1);
            if self.apart >> i & 1 == 1 {
                far.push(name);
            } else {
                near.push(name);
            }
        }
        Some(format!(
            "scopes: sys {{ gpu {{ {} }} gpu {{ {} }} }}",
            near.join(" "),
            far.join(" ")
        ))
    }

    /// Whether some parallel thread is independent of the rest of the
    /// program (the module's pruning): no shared location, no `sc` event.
    fn has_isolated_thread(&self, vocab: &Vocabulary) -> bool {
        let sc_elsewhere = |skip: usize| {
            vocab.fragment_sc
                || self.pre.iter().chain(&self.post).any(Instr::is_sc)
                || self
                    .threads
                    .iter()
                    .enumerate()
                    .any(|(j, t)| j != skip && t.iter().any(Instr::is_sc))
        };
        (0..self.threads.len()).any(|i| {
            let mine: Vec<usize> = self.threads[i].iter().flat_map(Instr::locs).collect();
            let others: Vec<usize> = vocab
                .fragment_locs
                .iter()
                .copied()
                .chain(self.pre.iter().chain(&self.post).flat_map(Instr::locs))
                .chain(
                    self.threads
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .flat_map(|(_, t)| t.iter().flat_map(Instr::locs)),
                )
                .collect();
            let shares = mine.iter().any(|l| others.contains(l));
            let sc = self.threads[i].iter().any(Instr::is_sc);
            !(shares || (sc && sc_elsewhere(i)))
        })
    }
}

impl Context {
    /// Whether some instruction is inert (the module's second pruning): a
    /// fence with no access on the side it orders, or a relaxed access to
    /// a location nothing else in the program accesses.
    fn has_inert_code(&self, vocab: &Vocabulary) -> bool {
        let fence_inert = |t: &[Instr]| {
            t.iter().enumerate().any(|(k, i)| {
                let before = t[..k].iter().any(|j| !matches!(j, Instr::Fence(_)));
                let after = t[k + 1..].iter().any(|j| !matches!(j, Instr::Fence(_)));
                match i {
                    Instr::Fence("acq") => !before,
                    Instr::Fence("rel") => !after,
                    Instr::Fence(_) => !before || !after,
                    _ => false,
                }
            })
        };
        if self.threads.iter().any(|t| fence_inert(t)) {
            return true;
        }
        // Every access of the context with its location, and how often each
        // location is accessed in the whole program.
        let all: Vec<&Instr> = self
            .pre
            .iter()
            .chain(&self.post)
            .chain(self.threads.iter().flatten())
            .collect();
        let uses = |l: usize| {
            usize::from(vocab.fragment_locs.contains(&l))
                + all
                    .iter()
                    .map(|i| i.locs().iter().filter(|&&m| m == l).count())
                    .sum::<usize>()
        };
        all.iter().any(|i| match i {
            Instr::Read { loc, mode } | Instr::Write { loc, mode, .. } => {
                (*mode == "rlx" || mode.is_empty()) && uses(*loc) < 2
            }
            Instr::Fadd { loc } => uses(*loc) < 2,
            _ => false,
        })
    }
}

/// What the grammar ranges over for one refinement.
#[derive(Clone, Debug)]
pub struct Vocabulary {
    /// The fragment's locations, then the one more.
    pub locs: Vec<String>,
    /// The written values: the fragment's nonzero constants and one more.
    pub values: Vec<i64>,
    /// Indices (into `locs`) of the locations the fragment or the file's
    /// own context threads access.
    pub fragment_locs: Vec<usize>,
    /// Whether the fragment or the file's threads have an `sc` event.
    pub fragment_sc: bool,
    /// Register names P0 (and its forks) already uses.
    pub p0_regs: Vec<String>,
    /// The registers of P0 that the source or the target reads before any
    /// assignment, in order of first use: the `set` of the grammar.
    pub unset: Vec<String>,
    /// Whether the fragment names the `gpu` scope (and neither forks nor
    /// comes with a placement: no `scopes:` line, no threads of its own): then every
    /// context is also tried with its parallel threads split over two
    /// GPUs, the one placement where `gpu` and `sys` differ.
    pub gpu_scoped: bool,
    /// The qualifiers the model's programs carry: `None` for the note's
    /// language, else Vulkan's (`VulkanWords`).
    pub vulkan: Option<VulkanWords>,
    /// Whether the source or the target has a fence: the classic fenced
    /// shapes are then tried too (`classic`).
    pub fence_fragment: bool,
    /// Whether the source or the target releases (a `rel`, `ra` or `sc`
    /// write or fence): guarded writers are then tried too.
    pub fragment_releases: bool,
}

/// What a Vulkan context writes: the storage classes the fragment uses
/// (named in every release's and acquire's semantics) and each location's
/// storage class (`locs`' order; 0 where the fragment names none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VulkanWords {
    /// Bit n: storage class n is used.
    pub classes: u8,
    pub class_of: Vec<u8>,
}

impl Vocabulary {
    /// `.MODE` with the model's qualifiers for an access to `loc` (a fence
    /// for `None`): nothing more in the note's language; under Vulkan the
    /// mapping of `--mapping pwt:vulkan` (the module's doc). An empty mode
    /// is the default (rlx) access.
    pub fn qualified(&self, loc: Option<usize>, mode: &str) -> String {
        let with_mode = if mode.is_empty() {
            String::new()
        } else {
            format!(".{mode}")
        };
        let Some(vk) = &self.vulkan else {
            return with_mode;
        };
        let semantics: String = (0..4)
            .filter(|n| vk.classes >> n & 1 == 1)
            .map(|n| format!(".semsc{n}"))
            .collect();
        let Some(loc) = loc else {
            // An sc fence is Vulkan's acquire-release one.
            return match mode {
                "acq" => format!(".acq{semantics}.semvis"),
                "rel" => format!(".rel{semantics}.semav"),
                _ => format!(".ra{semantics}.semav.semvis"),
            };
        };
        let class = match vk.class_of.get(loc).copied().unwrap_or(0) {
            0 => String::new(),
            n => format!(".sc{n}"),
        };
        match mode {
            "acq" => format!(".acq{class}{semantics}.semvis"),
            "rel" => format!(".rel{class}{semantics}.semav"),
            "sc" => format!(".sc{class}{semantics}.semav.semvis"),
            "wk" => format!(".wk{class}.nonpriv"),
            _ => format!("{with_mode}{class}"),
        }
    }

    /// The values a `set` gives a register read before assignment.
    pub fn set_values(&self) -> Vec<i64> {
        std::iter::once(0)
            .chain(self.values.iter().copied())
            .collect()
    }

    /// The placements of `threads` (`Context::apart`): 0, and where the
    /// fragment names `gpu`, every nonempty set of parallel threads on a
    /// second GPU, once up to the order of equal threads (of two equal
    /// threads, the earlier one is the one moved).
    fn placements(&self, threads: &[Vec<Instr>]) -> Vec<u32> {
        if !self.gpu_scoped {
            return vec![0];
        }
        let n = threads.len();
        (0..1u32 << n)
            .filter(|&m| {
                (0..n.saturating_sub(1))
                    .all(|i| threads[i] != threads[i + 1] || m >> i & 1 >= m >> (i + 1) & 1)
            })
            .collect()
    }

    /// Every choice of values for the `set`s, in order.
    fn settings(&self) -> Vec<Vec<i64>> {
        let values = self.set_values();
        let mut out = vec![Vec::new()];
        for _ in &self.unset {
            out = out
                .iter()
                .flat_map(|m: &Vec<i64>| {
                    values.iter().map(move |&v| {
                        let mut with = m.clone();
                        with.push(v);
                        with
                    })
                })
                .collect();
        }
        out
    }

    /// The values written to location `loc`: the fragment's constants and
    /// one more to its own locations, 1 to the one more (a flag or a datum:
    /// no code of the fragment compares it with anything).
    fn written(&self, loc: usize) -> Vec<i64> {
        if self.fragment_locs.contains(&loc) {
            self.values.clone()
        } else {
            vec![1]
        }
    }

    /// The instructions a parallel thread draws from.
    pub fn thread_instrs(&self) -> Vec<Instr> {
        let n = self.locs.len();
        let mut out = Vec::new();
        // `sc` accesses where the fragment has an `sc` event: what they add
        // to acquire and release is their place in the order of `sc` events.
        let (reads, writes): (&[&'static str], &[&'static str]) = if self.fragment_sc {
            (&["rlx", "acq", "sc"], &["rlx", "rel", "sc"])
        } else {
            (&["rlx", "acq"], &["rlx", "rel"])
        };
        for loc in 0..n {
            for &mode in reads {
                out.push(Instr::Read { loc, mode });
            }
        }
        for loc in 0..n {
            for value in self.written(loc) {
                for &mode in writes {
                    out.push(Instr::Write { loc, mode, value });
                }
            }
        }
        for mode in ["acq", "rel", "sc"] {
            out.push(Instr::Fence(mode));
        }
        for loc in 0..n {
            out.push(Instr::Fadd { loc });
        }
        for flag in 0..n {
            for loc in (0..n).filter(|&l| l != flag) {
                out.push(Instr::Guarded { flag, loc });
            }
        }
        // Guarded writers publish data of the fragment's own locations,
        // once they have acquired a release of the fragment's: none
        // without one (no context instruction before it releases).
        for flag in (0..n).filter(|_| self.fragment_releases) {
            for &loc in self.fragment_locs.iter().filter(|&&l| l != flag) {
                for value in self.written(loc) {
                    for signal in (0..n).filter(|&g| g != flag && g != loc) {
                        out.push(Instr::GuardedWriter {
                            flag,
                            loc,
                            value,
                            signal,
                        });
                    }
                }
            }
        }
        out
    }

    /// The instructions before and after the fragment in P0: a relaxed
    /// read or write of each location, and an `sc` one where the fragment
    /// has an `sc` event (weakening an `sc` access shows only beside
    /// another `sc` access of its own thread: store buffering with both
    /// of P0's accesses `sc`).
    pub fn around_instrs(&self) -> Vec<Instr> {
        let n = self.locs.len();
        let modes: &[&'static str] = if self.fragment_sc {
            &["rlx", "sc"]
        } else {
            &["rlx"]
        };
        let reads = (0..n).flat_map(|loc| modes.iter().map(move |&mode| Instr::Read { loc, mode }));
        let writes = (0..n).flat_map(|loc| {
            self.written(loc).into_iter().flat_map(move |value| {
                modes
                    .iter()
                    .map(move |&mode| Instr::Write { loc, mode, value })
            })
        });
        reads.chain(writes).collect()
    }
}

/// The bound of the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Instructions in all (a guarded reader counts two).
    pub size: usize,
    /// Parallel threads at most.
    pub threads: usize,
}

/// Every context within `bound`, smallest first, each once up to the
/// order of its parallel threads, with the module's prunings.
pub fn contexts(vocab: &Vocabulary, bound: Size) -> Vec<Context> {
    enumerate(vocab, bound, true)
}

/// Every context within `bound`, with the prunings (`prune`) or without
/// (the brute force the prunings are checked against).
pub fn enumerate(vocab: &Vocabulary, bound: Size, prune: bool) -> Vec<Context> {
    enumerate_within(vocab, bound, prune, &|_| None).unwrap_or_default()
}

/// `contexts`, asking `stop` (with the number listed so far) before each
/// multiset of threads: the listing of a large bound is itself a search,
/// so a deadline or a cap holds there too. `Err` names what stopped it.
pub fn contexts_within(
    vocab: &Vocabulary,
    bound: Size,
    stop: &dyn Fn(usize) -> Option<String>,
) -> Result<Vec<Context>, String> {
    enumerate_within(vocab, bound, true, stop)
}

fn enumerate_within(
    vocab: &Vocabulary,
    bound: Size,
    prune: bool,
    stop: &dyn Fn(usize) -> Option<String>,
) -> Result<Vec<Context>, String> {
    let t_instrs = vocab.thread_instrs();
    // Threads of one or two instructions within the size, in a fixed order.
    let mut shapes: Vec<Vec<Instr>> = Vec::new();
    for i in &t_instrs {
        shapes.push(vec![i.clone()]);
    }
    for i in &t_instrs {
        for j in &t_instrs {
            if i.size() + j.size() <= bound.size.min(3) {
                shapes.push(vec![i.clone(), j.clone()]);
            }
        }
    }
    let thread_size = |t: &Vec<Instr>| t.iter().map(Instr::size).sum::<usize>();
    let settings = vocab.settings();
    let mut out = Vec::new();
    let mut stopped = None;
    for size in 0..=bound.size {
        let arounds: Vec<(Option<Instr>, Option<Instr>)> = {
            let (pres, posts) = (vocab.around_instrs(), vocab.around_instrs());
            let mut a = vec![(None, None)];
            a.extend(pres.iter().map(|i| (Some(i.clone()), None)));
            a.extend(posts.iter().map(|i| (None, Some(i.clone()))));
            for i in &pres {
                for j in &posts {
                    a.push((Some(i.clone()), Some(j.clone())));
                }
            }
            a
        };
        for (pre, post) in arounds {
            let p0 = pre.iter().chain(&post).map(Instr::size).sum::<usize>();
            if p0 > size {
                continue;
            }
            let rest = size - p0;
            // Multisets of threads whose sizes add up to `rest`.
            let mut chosen: Vec<usize> = Vec::new();
            let whole = threads_summing(
                &shapes,
                &thread_size,
                rest,
                bound.threads,
                0,
                &mut chosen,
                &mut |ix| {
                    if let Some(why) = stop(out.len()) {
                        stopped = Some(why);
                        return false;
                    }
                    let c = Context {
                        sets: vec![],
                        pre: pre.clone(),
                        post: post.clone(),
                        threads: ix.iter().map(|&k| shapes[k].clone()).collect(),
                        apart: 0,
                    };
                    if !prune || (!c.has_isolated_thread(vocab) && !c.has_inert_code(vocab)) {
                        out.extend(vocab.placed_and_set(&c, &settings));
                    }
                    true
                },
            );
            if !whole {
                return Err(stopped.unwrap_or_default());
            }
        }
    }
    if vocab.fence_fragment {
        for c in classic(vocab) {
            out.extend(vocab.placed_and_set(&c, &settings));
        }
    }
    Ok(out)
}

impl Vocabulary {
    /// `c` in each placement and with each choice of the `set`s' values.
    fn placed_and_set(&self, c: &Context, settings: &[Vec<i64>]) -> Vec<Context> {
        let mut out = Vec::new();
        for apart in self.placements(&c.threads) {
            for sets in settings {
                out.push(Context {
                    sets: sets.clone(),
                    apart,
                    ..c.clone()
                });
            }
        }
        out
    }
}

/// The classic fenced shapes around a fence fragment (the module's
/// `classic`): P0 is `pre FRAGMENT post`, the fragment standing where the
/// shape has its fence, and the other side is the shape's other thread (or
/// threads, for IRIW) with each fence of none, acq, rel and sc in the
/// middle. Over each ordered pair of distinct locations x, y (one order
/// only where both are fresh: they are then interchangeable); relaxed
/// accesses, values 1 and 2.
pub fn classic(vocab: &Vocabulary) -> Vec<Context> {
    let n = vocab.locs.len();
    let fresh = |l: usize| !vocab.fragment_locs.contains(&l);
    let w = |loc: usize, value: i64| Instr::Write {
        loc,
        mode: "rlx",
        value,
    };
    let r = |loc: usize| Instr::Read { loc, mode: "rlx" };
    let mut out = Vec::new();
    for x in 0..n {
        for y in (0..n).filter(|&y| y != x && !(fresh(x) && fresh(y) && y < x)) {
            // (name, pre, post, the other threads, the fenced thread's two accesses)
            let shapes: [(Instr, Instr, Vec<Instr>, [Instr; 2]); 8] = [
                (w(x, 1), r(y), vec![], [w(y, 1), r(x)]),           // SB
                (w(x, 1), w(y, 1), vec![], [r(y), r(x)]),           // MP, P0 writing
                (r(y), r(x), vec![], [w(x, 1), w(y, 1)]),           // MP, P0 reading
                (r(x), w(y, 1), vec![], [r(y), w(x, 1)]),           // LB
                (w(x, 1), w(y, 1), vec![], [w(y, 2), r(x)]),        // R
                (w(x, 2), w(y, 1), vec![], [r(y), w(x, 1)]),        // S
                (w(x, 1), w(y, 2), vec![], [w(y, 1), w(x, 2)]),     // 2+2W
                (r(x), r(y), vec![w(x, 1), w(y, 1)], [r(y), r(x)]), // IRIW
            ];
            for (pre, post, lone, [a, b]) in shapes {
                for fence in [None, Some("acq"), Some("rel"), Some("sc")] {
                    let fenced: Vec<Instr> = std::iter::once(a.clone())
                        .chain(fence.map(Instr::Fence))
                        .chain([b.clone()])
                        .collect();
                    let threads = lone
                        .iter()
                        .map(|i| vec![i.clone()])
                        .chain([fenced])
                        .collect();
                    out.push(Context {
                        sets: vec![],
                        pre: Some(pre.clone()),
                        post: Some(post.clone()),
                        threads,
                        apart: 0,
                    });
                }
            }
        }
    }
    out
}

/// Calls `emit` with each nondecreasing list of shape indices (from
/// `from`) whose sizes add up to `rest`, at most `left` of them, until it
/// returns false; false then.
fn threads_summing(
    shapes: &[Vec<Instr>],
    size: &dyn Fn(&Vec<Instr>) -> usize,
    rest: usize,
    left: usize,
    from: usize,
    chosen: &mut Vec<usize>,
    emit: &mut dyn FnMut(&[usize]) -> bool,
) -> bool {
    if rest == 0 {
        return emit(chosen);
    }
    if left == 0 {
        return true;
    }
    for k in from..shapes.len() {
        let s = size(&shapes[k]);
        if s <= rest {
            chosen.push(k);
            let go_on = threads_summing(shapes, size, rest - s, left - 1, k, chosen, emit);
            chosen.pop();
            if !go_on {
                return false;
            }
        }
    }
    true
}
