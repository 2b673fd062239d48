//! The pomset engine's local refinement check (§2, `Capability::LocalRefine`):
//! every local pomset of a target fragment S2 is one of the source S1's up
//! to a renaming of events that keeps labels, with equivalent ✓, κ(e) for
//! every dependency set ↓e, τ^D for every D and the tested postconditions,
//! the same rmw, and every order SEQ demands of S1 (s7a, s8a) demanded of
//! S2. The refinement file, the context search and the report are
//! `crate::refinement`'s, shared by every model.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::construct::{Frag, Sem};
use crate::action::{self, Kind};
use crate::engine::{LocalRefinement, Matching};
use crate::logic::{Addr, FormulaId, Names, Notation, Subst, Var};
use crate::model::{DroppedRead, Model};
use crate::outcome::Limits;
use crate::syntax::core::{Program, Stmt};

/// Whether every pomset of `target` is one of `source`'s, both fragments of
/// `p`'s first thread, denoted with at most `max_pomsets` local pomsets
/// each within `limits` (deadline, cancel flag, partitions).
pub fn refine_locally(
    p: &Program,
    source: &Stmt,
    target: &Stmt,
    model: &Model,
    max_pomsets: usize,
    limits: Limits,
) -> LocalRefinement {
    let mut sem = Sem::new(p, model, max_pomsets, limits.max_partitions);
    sem.complete_only = false;
    // Refinement compares pomsets: with `monotonicity`, every stronger label.
    sem.strengthen = true;
    // `--timeout` holds while the fragments are denoted too.
    sem.deadline = limits.deadline;
    sem.cancel = limits.cancel;
    let thread = p.main.first().map_or(0, |(t, _)| *t);
    let denoted = sem
        .denote(source, thread)
        .and_then(|s| Ok((s, sem.denote(target, thread)?)));
    let (src, tgt) = match denoted {
        Ok(x) => x,
        Err(stop) => return LocalRefinement::Stopped(stop.text()),
    };
    let (sources, targets) = (src.len(), tgt.len());
    let denoted = |matching| LocalRefinement::Denoted {
        source: sources,
        target: targets,
        matching,
    };
    let posts = postconditions(&mut sem, thread);
    let renaming = fork_renaming(p, source, target);
    let fork_posts = renaming
        .threads
        .iter()
        .map(|&(_, f)| (f, register_postconditions(&mut sem, f)))
        .collect();
    let priors = prior_values(p, &renaming.threads);
    let mut cx = Cx {
        sem,
        posts,
        model,
        renaming,
        fork_posts,
        priors,
    };
    for t in &tgt {
        let mut why = Vec::new();
        let mut found = false;
        for s in &src {
            if let Some(l) = crate::outcome::interrupted(limits.deadline, limits.cancel) {
                return denoted(Matching::Interrupted(l));
            }
            match cx.matches(t, s) {
                Ok(()) => {
                    found = true;
                    break;
                }
                Err(reason) => why.push(reason),
            }
        }
        if !found {
            let mut u = cx.show_frag(t);
            let closest = why
                .iter()
                .filter(|w| !w.starts_with("labels"))
                .min_by_key(|w| w.len());
            match closest {
                Some(w) => {
                    let _ = writeln!(u, "  closest source pomset: {w}");
                }
                None => {
                    let _ = writeln!(u, "  no source pomset has these labels");
                }
            }
            return denoted(Matching::Unmatched(u));
        }
    }
    denoted(Matching::Every)
}

/// The postconditions τ is tested against: r = v for each register of the
/// fragment's thread that a context can name, x = v and Q_x for each
/// location, and the disjunction of each two of those on different variables.
/// Hidden registers (earlier versions of a reassigned register, desugaring
/// temporaries) are dead after the fragment, and source and target number
/// them differently.
fn postconditions(sem: &mut Sem, thread: action::ThreadId) -> Vec<FormulaId> {
    let values = sem.program.values.clone();
    let mut atoms: Vec<(u32, FormulaId)> = Vec::new();
    let regs: Vec<u32> = sem
        .regs_of(thread)
        .into_iter()
        .filter(|&r| !sem.program.regs[r as usize].fresh)
        .collect();
    let mut var = 0;
    for r in regs {
        let t = sem.l.reg(r);
        for &v in &values {
            let c = sem.l.value(v);
            atoms.push((var, sem.l.eq(t, c)));
        }
        var += 1;
    }
    for addr in sem.loc_addr.clone() {
        let t = sem.l.loc(addr);
        for &v in &values {
            let c = sem.l.value(v);
            atoms.push((var, sem.l.eq(t, c)));
        }
        atoms.push((var + 1, sem.l.quiescent(addr)));
        var += 2;
    }
    with_pairs(sem, &atoms)
}

/// The atoms, then the disjunction of each two on different variables.
fn with_pairs(sem: &mut Sem, atoms: &[(u32, FormulaId)]) -> Vec<FormulaId> {
    let mut out: Vec<FormulaId> = atoms.iter().map(|a| a.1).collect();
    for (i, a) in atoms.iter().enumerate() {
        for b in &atoms[i + 1..] {
            if a.0 != b.0 {
                out.push(sem.l.or(a.1, b.1));
            }
        }
    }
    out
}

/// The postconditions a forked thread's registers are tested against: r = v
/// for each register a context can name (its final state shows them), and
/// the disjunction of each two of those on different registers.
fn register_postconditions(sem: &mut Sem, thread: action::ThreadId) -> Vec<FormulaId> {
    let values = sem.program.values.clone();
    let mut atoms = Vec::new();
    for (var, r) in (0u32..).zip(sem.regs_of(thread)) {
        if sem.program.regs[r as usize].fresh {
            continue;
        }
        let t = sem.l.reg(r);
        for &v in &values {
            let c = sem.l.value(v);
            atoms.push((var, sem.l.eq(t, c)));
        }
    }
    with_pairs(sem, &atoms)
}

// ------------------------------------------------------- invented names

/// A renaming of what the target invents into what the source invents: the
/// threads its forks allocate, and their registers paired by name. Source
/// and target are elaborated side by side, so the same fragment gets other
/// thread ids, temporaries and SSA names on each side (issue 27 §3).
#[derive(Clone, Debug, Default)]
struct ForkRenaming {
    /// (target thread, source thread).
    threads: Vec<(action::ThreadId, action::ThreadId)>,
    /// (target register, source register) of those threads, by name.
    regs: Vec<(u32, u32)>,
}

/// The threads a statement forks.
fn forked(s: &Stmt, out: &mut Vec<action::ThreadId>) {
    match s {
        Stmt::Par {
            thread,
            left,
            right,
        } => {
            out.push(*thread);
            forked(left, out);
            forked(right, out);
        }
        Stmt::If { then, els, .. } => {
            forked(then, out);
            forked(els, out);
        }
        Stmt::Seq(parts) => parts.iter().for_each(|p| forked(p, out)),
        _ => {}
    }
}

/// The renaming of the target's forked threads into the source's, in the
/// order each side allocates them: a final state names a forked thread by
/// that order (P2:r), so no other pairing is unobservable. Kept only when it
/// keeps Definition 1.1's relations (=cta, =gpu, subgroups) and the parent
/// of each, and the threads have the same registers; else the identity,
/// under which labels of forked events differ and the check says unsound.
fn fork_renaming(p: &Program, source: &Stmt, target: &Stmt) -> ForkRenaming {
    let (mut fs, mut ft) = (Vec::new(), Vec::new());
    forked(source, &mut fs);
    forked(target, &mut ft);
    // Thread ids are allocated in order, and name the threads (P2, P3).
    fs.sort_unstable();
    ft.sort_unstable();
    let threads: Vec<_> = ft.iter().copied().zip(fs.iter().copied()).collect();
    if fs.is_empty() || fs.len() != ft.len() || !keeps_scopes(p, &threads, &fs) {
        return ForkRenaming::default();
    }
    match paired_registers(p, &threads) {
        Some(regs) => ForkRenaming { threads, regs },
        None => ForkRenaming::default(),
    }
}

/// Whether renaming `threads` keeps who shares a cta, gpu or subgroup with
/// whom, and who forked whom: the relations scopes and labels depend on.
fn keeps_scopes(
    p: &Program,
    threads: &[(action::ThreadId, action::ThreadId)],
    source_forks: &[action::ThreadId],
) -> bool {
    let map = |u: action::ThreadId| threads.iter().find(|x| x.0 == u).map_or(u, |x| x.1);
    let info = |u: action::ThreadId| p.threads.get(u as usize);
    let others = (0..p.threads.len() as u32)
        .filter(|u| !source_forks.contains(u) && !threads.iter().any(|x| x.0 == *u));
    let all: Vec<action::ThreadId> = threads.iter().map(|x| x.0).chain(others).collect();
    threads.iter().all(|&(u, _)| {
        let parent_kept = info(u).map(|i| i.parent.map(map)) == info(map(u)).map(|i| i.parent);
        parent_kept
            && all
                .iter()
                .all(|&w| match (info(u), info(w), info(map(u)), info(map(w))) {
                    (Some(a), Some(b), Some(c), Some(d)) => {
                        (a.cta == b.cta) == (c.cta == d.cta)
                            && (a.gpu == b.gpu) == (c.gpu == d.gpu)
                            && (a.sg == b.sg) == (c.sg == d.sg)
                    }
                    _ => false,
                })
    })
}

/// The registers a context can name in each renamed thread, paired by name;
/// None when the two threads do not have the same ones.
fn paired_registers(
    p: &Program,
    threads: &[(action::ThreadId, action::ThreadId)],
) -> Option<Vec<(u32, u32)>> {
    let named = |t: action::ThreadId| -> Vec<(String, u32)> {
        let mut v: Vec<(String, u32)> = (0u32..)
            .zip(&p.regs)
            .filter(|(_, r)| r.thread == t && !r.fresh)
            .map(|(id, r)| (r.name.clone(), id))
            .collect();
        v.sort();
        v
    };
    let mut out = Vec::new();
    for &(tt, ts) in threads {
        let (a, b) = (named(tt), named(ts));
        if a.len() != b.len() || a.iter().zip(&b).any(|(x, y)| x.0 != y.0) {
            return None;
        }
        out.extend(a.iter().zip(&b).map(|(x, y)| (x.1, y.1)));
    }
    Some(out)
}

/// The target pomset with its forked threads renamed into the source's.
fn rename_threads(f: &Frag, threads: &[(action::ThreadId, action::ThreadId)]) -> Frag {
    if threads.is_empty() {
        return f.clone();
    }
    let map = |u: action::ThreadId| threads.iter().find(|x| x.0 == u).map_or(u, |x| x.1);
    let relabel = |a: action::Action| action::Action {
        thread: map(a.thread),
        ..a
    };
    let mut out = f.clone();
    for e in &mut out.events {
        e.label = relabel(e.label);
    }
    for q in &mut out.seq_labels {
        q.2 = relabel(q.2);
        q.3 = relabel(q.3);
    }
    for k in &mut out.forks {
        k.0 = map(k.0);
    }
    out
}

/// Above this many ways to pair invented registers, only the first is tried.
const MAX_REGISTER_PAIRINGS: usize = 64;

/// The ways to pair the registers the target invents (temporaries, earlier
/// SSA versions: `fresh`) with the source's, read off the events: a
/// target read's register goes to the register of the source read its
/// event is matched with. A register without such a read keeps its name.
fn invented_registers(sem: &Sem, t: &Frag, s: &Frag, sigma: &[(u32, u32)]) -> Vec<Vec<(u32, u32)>> {
    let fresh = |r: u32| sem.program.regs.get(r as usize).is_some_and(|i| i.fresh);
    let reads = |f: &Frag| -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = std::iter::once(f.tau)
            .chain(f.forks.iter().map(|k| k.1))
            .flat_map(|tau| sem.trees.read_registers(tau))
            .filter(|&(_, r)| fresh(r))
            .map(|(e, r)| (f.alias_root(e), r))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let (rt, rs) = (reads(t), reads(s));
    let to_s = |e: u32| sigma.iter().find(|p| p.0 == e).map(|p| p.1);
    let mut options: Vec<(u32, Vec<u32>)> = Vec::new();
    for &(e, r) in &rt {
        let images: Vec<u32> = rs
            .iter()
            .filter(|x| Some(x.0) == to_s(e))
            .map(|x| x.1)
            .collect();
        match options.iter_mut().find(|o| o.0 == r) {
            Some(o) => o.1.retain(|x| images.contains(x)),
            None => options.push((r, images)),
        }
    }
    let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new()];
    for (r, images) in options.into_iter().filter(|o| !o.1.is_empty()) {
        let mut next = Vec::new();
        for m in &out {
            for &x in images.iter().filter(|x| !m.iter().any(|p| p.1 == **x)) {
                let mut with = m.clone();
                with.push((r, x));
                next.push(with);
            }
        }
        if next.is_empty() {
            continue;
        }
        next.truncate(MAX_REGISTER_PAIRINGS);
        out = next;
    }
    out
}

/// The value each source register has before the fragment, one variable per
/// register (and thread) for both sides. SSA gives a register one core
/// register per assignment and per `if` join (`syntax::check::registers`);
/// on a path that does not assign a version, the version is free, and it
/// stands for the register's value before the fragment: a one-sided `if`
/// leaves the branch's last version on the other path, and a register read
/// before any assignment reads its initial one. Which hidden version that
/// is depends on how many assignments came first, and source and target
/// are elaborated side by side (as two branches), so
/// `if (q = 0) { r := 1; r := 2; }` leaves `_r2` free as the source and
/// `_r3` as the target. Every hidden version free in a fragment's formulas
/// means that one value (a version is only read after its assignment on a
/// path that assigns it), so one variable for all of them on both sides
/// identifies only what is equal.
///
/// Two things are left as they were, both on the side of `unsound`: a
/// visible version keeps its id (it is the same on both sides), and R4c's
/// arbitrary s is still offered as the read's own register, not as this
/// variable. Offering it as the value before would be the note's reading of
/// R03 (s any term), but `run` takes a dropped read's s as a symbol every
/// ✓ must hold for, so `do { q := x; } while (q = 0)` would refine to
/// `do { skip; } while (q = 0)` here while `run` shows the target ending
/// where the source never does (the refine oracles found it).
struct PriorValues {
    /// (target register, its prior-value variable).
    target: Vec<(u32, u32)>,
    /// (source register, its prior-value variable).
    source: Vec<(u32, u32)>,
    /// The source register each prior-value variable stands for: they are
    /// numbered after the program's registers, in this order.
    names: Vec<String>,
}

/// Groups the hidden versions of each source register by (thread, name); a
/// target's forked thread counts as the source's it is renamed into.
fn prior_values<'a>(
    p: &'a Program,
    threads: &[(action::ThreadId, action::ThreadId)],
) -> PriorValues {
    let first = p.regs.len() as u32;
    let mut groups: Vec<(action::ThreadId, &str)> = Vec::new();
    let mut var = |thread: action::ThreadId, name: &'a str| -> u32 {
        let at = groups.iter().position(|g| *g == (thread, name));
        first
            + at.unwrap_or_else(|| {
                groups.push((thread, name));
                groups.len() - 1
            }) as u32
    };
    let (mut target, mut source) = (Vec::new(), Vec::new());
    for (id, r) in (0u32..).zip(&p.regs) {
        // Only hidden versions: a visible one (the register's last version,
        // or one read before any assignment) has the same id on both sides.
        let Some(name) = r.version_of.as_deref() else {
            continue;
        };
        let renamed = threads
            .iter()
            .find(|x| x.0 == r.thread)
            .map_or(r.thread, |x| x.1);
        source.push((id, var(r.thread, name)));
        target.push((id, var(renamed, name)));
    }
    let names = groups.iter().map(|g| g.1.to_string()).collect();
    PriorValues {
        target,
        source,
        names,
    }
}

struct Cx<'a> {
    sem: Sem<'a>,
    posts: Vec<FormulaId>,
    model: &'a Model,
    renaming: ForkRenaming,
    /// Each source fork's register postconditions.
    fork_posts: Vec<(action::ThreadId, Vec<FormulaId>)>,
    priors: PriorValues,
}

impl Cx<'_> {
    /// Whether target pomset `t` is source pomset `s` up to renaming; else why not.
    /// Up to a renaming of what the fragment invents: forked threads and
    /// their registers, in allocation order (`ForkRenaming`), events (`bijections`), temporaries
    /// and SSA versions (`invented_registers`), R4c's symbols (`fresh_choices`).
    fn matches(&mut self, t: &Frag, s: &Frag) -> Result<(), String> {
        let t = &rename_threads(t, &self.renaming.threads);
        let mut lt: Vec<_> = t.events.iter().map(|e| e.label).collect();
        let mut ls: Vec<_> = s.events.iter().map(|e| e.label).collect();
        lt.sort();
        ls.sort();
        if lt != ls {
            return Err("labels differ".into());
        }
        let mut first_reason = None;
        let (fresh_s, fresh_t) = (self.absent_reads(s), self.absent_reads(t));
        let unchanged = self.model.dropped_read == DroppedRead::Unchanged;
        for sigma in bijections(t, s) {
            for invented in invented_registers(&self.sem, t, s, &sigma) {
                let regs = [self.renaming.regs.clone(), invented].concat();
                for choice in fresh_choices(&fresh_s, &fresh_t, unchanged) {
                    match self.matches_with(t, s, &sigma, &choice, &regs) {
                        Ok(()) => return Ok(()),
                        Err(r) => {
                            first_reason.get_or_insert(r);
                        }
                    }
                }
            }
        }
        Err(first_reason.unwrap_or_else(|| "labels differ".into()))
    }

    /// The reads without an event (R4c) in the thread and in its forks.
    fn absent_reads(&self, f: &Frag) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = std::iter::once(f.tau)
            .chain(f.forks.iter().map(|k| k.1))
            .flat_map(|tau| self.sem.trees.absent_reads(tau))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// `regs`: (target register, source register), renamed apart.
    fn matches_with(
        &mut self,
        t: &Frag,
        s: &Frag,
        sigma: &[(u32, u32)],
        fresh: &[(u32, Var)],
        regs: &[(u32, u32)],
    ) -> Result<(), String> {
        let to_s = |e: u32| sigma.iter().find(|p| p.0 == e).map_or(e, |p| p.1);
        // rmw.
        let mut rt: Vec<_> = t.rmw.iter().map(|&(a, b)| (to_s(a), to_s(b))).collect();
        let mut rs = s.rmw.clone();
        rt.sort();
        rs.sort();
        if rt != rs {
            return Err("rmw differs".into());
        }
        // s7a/s8a: every order the source demands, the target demands.
        let req_t = required(self.model, t);
        let req_t: BTreeSet<_> = closure(&req_t)
            .into_iter()
            .map(|(a, b)| (to_s(a), to_s(b)))
            .collect();
        for (a, b) in required(self.model, s) {
            if !req_t.contains(&(a, b)) {
                let to_t = |e: u32| sigma.iter().find(|p| p.1 == e).map_or(e, |p| p.0);
                return Err(format!(
                    "the source orders e{} < e{} (s7a/s8a), the target does not",
                    to_t(a),
                    to_t(b)
                ));
            }
        }
        // Renamings into the source's names.
        let mut st = Subst::new();
        for &(b, v) in &t.merged {
            let v = self.sem.l.value(v);
            st = st.term(Var::Read(b), v);
        }
        for &(b, _) in &t.alias {
            let r = self.sem.l.read(to_s(t.alias_root(b)));
            st = st.term(Var::Read(b), r);
        }
        for &(te, se) in sigma {
            let r = self.sem.l.read(se);
            st = st.term(Var::Read(te), r);
        }
        let mut back = Subst::new();
        for &(rt, rs) in regs {
            let (x, y) = (self.sem.l.reg(rs), self.sem.l.reg(rt));
            st = st.term(Var::Reg(rt), x);
            back = back.term(Var::Reg(rs), y);
        }
        let mut ss = Subst::new();
        for &(rt, v) in &self.priors.target {
            if !regs.iter().any(|p| p.0 == rt) {
                st = st.term(Var::Reg(rt), self.sem.l.reg(v));
            }
        }
        for &(rs, v) in &self.priors.source {
            if !regs.iter().any(|p| p.1 == rs) {
                ss = ss.term(Var::Reg(rs), self.sem.l.reg(v));
            }
        }
        for &(b, v) in &s.merged {
            let v = self.sem.l.value(v);
            ss = ss.term(Var::Read(b), v);
        }
        for &(b, _) in &s.alias {
            let r = self.sem.l.read(s.alias_root(b));
            ss = ss.term(Var::Read(b), r);
        }
        for &(f, v) in fresh.iter().filter(|&&(f, v)| v != Var::Read(f)) {
            // R4c's s as the register itself (`dropped_read = unchanged`),
            // never as its prior-value variable (`PriorValues`): see there.
            let r = self.sem.l.var(v);
            ss = ss.term(Var::Read(f), r);
        }
        let names = self.names();
        // Definition 1.2: compare under θ_λ, each read's symbol holding its label's value.
        let reads: Vec<(u32, i64)> = s
            .events
            .iter()
            .filter(|e| e.label.kind == Kind::Read)
            .map(|e| (e.id, e.label.value))
            .collect();
        let theta = self.sem.l.theta(&reads);
        let equiv = |l: &mut crate::logic::Logic, hyp: FormulaId, a: FormulaId, b: FormulaId| {
            let iff = l.iff(a, b);
            l.entails(hyp, iff)
        };
        // ✓.
        let (ct, cs) = (
            self.sem.l.subst(t.check, &st),
            self.sem.l.subst(s.check, &ss),
        );
        if !equiv(&mut self.sem.l, theta, ct, cs) {
            return Err(format!(
                "✓ differs: target {}, source {}",
                self.show(ct, &names),
                self.show(cs, &names)
            ));
        }
        // κ and τ matter only where ✓ holds: a context that completes the
        // pomset makes ✓ a tautology (s5, I5 guard it by the condition).
        let theta = self.sem.l.and(theta, cs);
        let reads_t = read_ids(t);
        let with_alias = |f: &Frag, d: u64| f.with_aliases(d);
        let map_d = |d: u64| {
            (0..64)
                .filter(|b| d >> b & 1 == 1)
                .fold(0u64, |m, b| m | 1 << to_s(b))
        };
        // κ(e) for every ↓e.
        for e in &t.events {
            let Some(se) = s.events.iter().find(|x| x.id == to_s(e.id)) else {
                return Err("events differ".into());
            };
            let back = sigma
                .iter()
                .filter(|p| self.sem.trees.dep_reads(se.kappa) >> p.1 & 1 == 1)
                .fold(0u64, |m, p| m | 1 << p.0);
            let cand = t.to_events(self.sem.trees.dep_reads(e.kappa) | back) & reads_t;
            for d in subsets(cand) {
                let kt = self
                    .sem
                    .trees
                    .eval(&mut self.sem.l, e.kappa, with_alias(t, d));
                let ks = self
                    .sem
                    .trees
                    .eval(&mut self.sem.l, se.kappa, with_alias(s, map_d(d)));
                let (kt, ks) = (self.sem.l.subst(kt, &st), self.sem.l.subst(ks, &ss));
                if !equiv(&mut self.sem.l, theta, kt, ks) {
                    return Err(format!(
                        "κ differs with ↓e = {}: target {}, source {}",
                        show_set(d),
                        self.show(kt, &names),
                        self.show(ks, &names)
                    ));
                }
            }
        }
        // τ^D for every D and each tested postcondition.
        for d in subsets(reads_t) {
            for &psi in &self.posts.clone() {
                let at = self
                    .sem
                    .trees
                    .apply(&mut self.sem.l, t.tau, with_alias(t, d), psi);
                let as_ =
                    self.sem
                        .trees
                        .apply(&mut self.sem.l, s.tau, with_alias(s, map_d(d)), psi);
                let (at, as_) = (self.sem.l.subst(at, &st), self.sem.l.subst(as_, &ss));
                if !equiv(&mut self.sem.l, theta, at, as_) {
                    return Err(format!(
                        "τ^D({}) differs with D = {}: target {}, source {}",
                        self.show(psi, &names),
                        show_set(d),
                        self.show(at, &names),
                        self.show(as_, &names)
                    ));
                }
            }
        }
        // Each forked thread's registers, under the transformer they end under.
        if s.forks.iter().any(|k| !t.forks.iter().any(|j| j.0 == k.0)) {
            return Err("the forked threads differ".into());
        }
        for &(thread, ft) in &t.forks {
            let Some(&(_, fs)) = s.forks.iter().find(|k| k.0 == thread) else {
                return Err("the forked threads differ".into());
            };
            let posts = self
                .fork_posts
                .iter()
                .find(|k| k.0 == thread)
                .map_or(vec![], |k| k.1.clone());
            for d in subsets(reads_t) {
                for &psi in &posts {
                    let psi_t = self.sem.l.subst(psi, &back);
                    let at = self
                        .sem
                        .trees
                        .apply(&mut self.sem.l, ft, with_alias(t, d), psi_t);
                    let as_ =
                        self.sem
                            .trees
                            .apply(&mut self.sem.l, fs, with_alias(s, map_d(d)), psi);
                    let (at, as_) = (self.sem.l.subst(at, &st), self.sem.l.subst(as_, &ss));
                    if !equiv(&mut self.sem.l, theta, at, as_) {
                        return Err(format!(
                            "τ^D({}) of a forked thread differs with D = {}: target {}, source {}",
                            self.show(psi, &names),
                            show_set(d),
                            self.show(at, &names),
                            self.show(as_, &names)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn names(&self) -> FormulaNames {
        FormulaNames {
            regs: self
                .sem
                .program
                .regs
                .iter()
                .map(|r| r.name.clone())
                .chain(self.priors.names.iter().cloned())
                .collect(),
            locs: self
                .sem
                .dense
                .iter()
                .map(|(a, d)| (*a, self.sem.dense_names[*d as usize].clone()))
                .collect(),
        }
    }

    fn show(&self, f: FormulaId, names: &FormulaNames) -> String {
        self.sem.l.display(f, Notation::Unicode, names).to_string()
    }

    /// A local pomset: events with κ for ↓e = ∅, the SEQ orders, ✓.
    fn show_frag(&mut self, f: &Frag) -> String {
        let names = self.names();
        let mut s = String::new();
        if f.events.is_empty() {
            s.push_str("  (no events)\n");
        }
        for e in &f.events {
            let k = self.sem.trees.eval(&mut self.sem.l, e.kappa, 0);
            let label = super::text::label(&self.sem, self.sem.program, &e.label);
            let _ = writeln!(s, "  e{}: {} | {label}", e.id, self.show(k, &names));
        }
        for (a, b) in required(self.model, f) {
            let _ = writeln!(s, "  e{a} < e{b} (s7a/s8a)");
        }
        let _ = writeln!(s, "  ✓ = {}", self.show(f.check, &names));
        s
    }
}

struct FormulaNames {
    regs: Vec<String>,
    locs: Vec<(Addr, String)>,
}

impl Names for FormulaNames {
    fn reg(&self, r: u32) -> String {
        self.regs
            .get(r as usize)
            .cloned()
            .unwrap_or_else(|| format!("r{r}"))
    }
    fn read(&self, e: u32) -> String {
        format!("s{e}")
    }
    fn loc(&self, addr: Addr) -> String {
        self.locs
            .iter()
            .find(|l| l.0 == addr)
            .map_or_else(|| format!("[{addr}]"), |l| l.1.clone())
    }
}

fn show_set(d: u64) -> String {
    let ids: Vec<String> = (0..64)
        .filter(|b| d >> b & 1 == 1)
        .map(|b| format!("e{b}"))
        .collect();
    format!("{{{}}}", ids.join(", "))
}

fn read_ids(f: &Frag) -> u64 {
    f.events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .fold(0, |m, e| m | 1 << e.id)
}

/// Every subset of a mask.
fn subsets(mask: u64) -> Vec<u64> {
    let mut out = vec![0];
    let mut sub = mask;
    while sub != 0 {
        out.push(sub);
        sub = (sub - 1) & mask;
    }
    out
}

/// The pairs SEQ orders (s7a: co-delays, s8a: sync-delays).
fn required(model: &Model, f: &Frag) -> Vec<(u32, u32)> {
    let label = |id: u32| f.events.iter().find(|e| e.id == id).map(|e| e.label);
    let delays = |x: &action::Action, y: &action::Action| {
        action::co_delays(x, y, model) || action::sync_delays(x, y, model)
    };
    let mut out: Vec<(u32, u32)> =
        f.po.iter()
            .filter(|&&(a, b)| match (label(a), label(b)) {
                (Some(x), Some(y)) => delays(&x, &y),
                _ => false,
            })
            .copied()
            .collect();
    // After a §2 merge, s7a/s8a read λ1(d) and λ2(e), kept with the pair.
    out.extend(
        f.seq_labels
            .iter()
            .filter(|(_, _, x, y)| delays(x, y))
            .map(|&(a, b, _, _)| (a, b)),
    );
    out.sort();
    out.dedup();
    out
}

fn closure(pairs: &[(u32, u32)]) -> BTreeSet<(u32, u32)> {
    let mut set: BTreeSet<(u32, u32)> = pairs.iter().copied().collect();
    loop {
        let mut add = Vec::new();
        for &(a, b) in &set {
            for &(c, d) in &set {
                if b == c && !set.contains(&(a, d)) {
                    add.push((a, d));
                }
            }
        }
        if add.is_empty() {
            return set;
        }
        set.extend(add);
    }
}

/// Every label-preserving bijection from the target's events to the source's.
fn bijections(t: &Frag, s: &Frag) -> Vec<Vec<(u32, u32)>> {
    let mut out = vec![Vec::new()];
    for e in &t.events {
        let mut next = Vec::new();
        for m in &out {
            for x in s
                .events
                .iter()
                .filter(|x| x.label == e.label && !m.iter().any(|p: &(u32, u32)| p.1 == x.id))
            {
                let mut with = m.clone();
                with.push((e.id, x.id));
                next.push(with);
            }
        }
        out = next;
    }
    out
}

/// What each of the source's arbitrary symbols s (R4c) stands for: itself
/// (a symbol the comparisons quantify over, as `run` reads it), one of the
/// target's arbitrary symbols (renaming a bound symbol), and, under
/// `dropped_read = unchanged` only, its register unchanged (so that
/// dropping a relaxed read refines to SKIP, the note's R03). Under
/// `symbol`, s is a symbol no context can name, so nothing else may stand
/// for it.
fn fresh_choices(src: &[(u32, u32)], tgt: &[(u32, u32)], unchanged: bool) -> Vec<Vec<(u32, Var)>> {
    let mut out = vec![Vec::new()];
    for &(f, reg) in src {
        let mut next = Vec::new();
        for m in &out {
            let mut options = vec![Var::Read(f)];
            if unchanged {
                options.push(Var::Reg(reg));
            }
            options.extend(tgt.iter().map(|t| Var::Read(t.0)));
            for o in options {
                let mut with: Vec<(u32, Var)> = m.clone();
                with.push((f, o));
                next.push(with);
            }
        }
        out = next;
    }
    out
}
