//! Readers kept apart: a program whose threads include two or more
//! *readers* (threads whose every event is a `wk` or `rlx` read, no RMW)
//! is decided as a product, each reader against the rest (the *core*: the
//! initial writes and every other thread), instead of over every
//! combination of the readers' pomsets. IRIW with ten readers has 3^20 final
//! states; its readers have nine pomsets each, each decided once.
//!
//! # Why it is exact
//!
//! The engine counts, per combination of thread pomsets, each rf that has a
//! consistent choice of disjuncts (c7b, c8b): one witness per rf
//! (`check::candidate`). Fix the core's pomsets, and write K for the core's
//! skeleton, R_i for reader i's. Every rf is rf_K plus one rf_i per reader
//! (readers write nothing, so every source is in K).
//!
//! 1. *If the whole is consistent, so is each K + R_i*: drop the other
//!    readers' events. Every rule only adds edges from what is present, so
//!    the least orders of the remaining edges are contained in the whole's:
//!    still acyclic, and a forbidden ⊑ edge is still absent. The search over
//!    K + R_i explores every disjunct, so it finds (rf_K, rf_i).
//! 2. *Conversely*, suppose each K + R_i has a witness W_i whose orders,
//!    restricted to core events, are exactly those of K's witness O_K for
//!    rf_K (⊴, ≤, ⊑, and ≤ ∪ ⊑; `agrees`, checked for every witness).
//!    A reader's events have edges *out* only in ⊑ (c8b puts `r ⊑ w`; no
//!    rule gives a `wk`/`rlx` read a ⊴ or ≤ successor in another thread:
//!    c7a ends at acquires and starts at releases, c7b needs sc fences, M8a
//!    and §12 add ⊑ only, M9c copies an existing edge's kind). So a path
//!    that leaves reader i returns to the core, and a path through readers
//!    between core events is a chain of core pairs, each in some W_i|K =
//!    O_K. Hence the union of O_K's choice and each reader's disjuncts has
//!    least orders whose restriction to K + R_i is within W_i: every rule
//!    instance (c7a, M8a, §12, M9c) has its premises within one K + R_i
//!    after such paths are replaced by core pairs, every cycle maps to one
//!    in O_K or in one W_i, and every forbidden edge stays absent. So the
//!    whole is consistent.
//!
//! So the consistent rfs of the whole are rf_K times, per reader, the
//! consistent rf_i: the counts multiply. Where some witness of K + R_i adds
//! a core pair (a reader whose reads, say, order two writes), the readers
//! are not kept apart and the plain search decides (`None`).
//!
//! 3. *Final memory*: where, in the orders every candidate with rf_K
//!    contains, each location's writes have a ⊑-greatest one, that write is
//!    greatest in the whole's too (its orders contain K's), and the final
//!    memory is the values of those writes (`final_memory_at` settles such
//!    a location with no search). Where some location has no such write,
//!    the readers could change which write may be last (coherence), and the
//!    plain search decides.
//! 4. *Registers*: a thread's final registers depend on its own reads only
//!    (`Completed::regs`).
//!
//! `tests/it/factored.rs` checks the product against the plain search, states
//! and counts, on random programs with readers added.
//!
//! # A reader's reads kept apart
//!
//! CoRR with eight reads has one reader, whose pomsets number in the
//! millions (a value or none per read, times the ways to coalesce the reads
//! of one value). `decide_split` keeps its *reads* apart instead: a thread
//! that is only a sequence of `wk`/`rlx` reads of named locations into
//! distinct registers, two of them of one label (so that they may
//! coalesce, where the pomsets grow as Bell numbers), is decided as one
//! thread per read (`split`), and the counts put back the coalescing. Why
//! that is exact:
//!
//! 5. *The thread's pomsets.* SEQ of such reads orders none of them: no
//!    read's transformer mentions another's register (no dependency), sync-
//!    delays need an acquire, a release or sc, and co-delays order two reads
//!    only with `co_delays_rr = on` (refused). So a pomset of the thread is a
//!    choice per read (an event with a value, or none: R4c drops it) and a
//!    partition of the events of equal label (location, value, mode, scope)
//!    into coalesced events (s1, I1); `if_closure` other than `off` gives a
//!    read several events over the registers before it, and is refused.
//! 6. *The same without coalescing is the split program.* With no event
//!    coalesced, the pomset is the parallel composition of the one-read
//!    threads' pomsets, with the same labels and the same (cta, gpu), so
//!    the same rule instances: the split program's combination. Its rfs
//!    and their consistency are the same, hence the same final states (a
//!    coalesced pomset reads what some uncoalesced one does).
//! 7. *Coalescing only multiplies counts.* The reads of one class (same
//!    label) are interchangeable: same edges to every core event for the
//!    same rf, none among them. A coalesced event for k of them taking
//!    value v has exactly the rfs one of them has (merging events with the
//!    same neighbours makes no new path), c(v) consistent ones. So a state
//!    where k_v of a class's reads take v counts Π_v Σ_j S(k_v, j) c(v)^j
//!    (`Factored::coalescing`), Bell(k_v) when c(v) = 1. The engine checks
//!    that the class's one-read threads have equal parts in every block.
//!
//! The split is only tried where the product may be taken (as for
//! readers), and any refusal decides the original program plainly.

use std::collections::HashMap;

use super::check::{candidates_each, OrderKind, Orders, RfMode, Search};
use super::construct::{Ev, Sem};
use super::decide::{self, Completed, ThreadGroups};
use crate::action::{Kind, Mode, ThreadId};
use crate::model::{CoDelaysRr, Final, IfClosure, Model};
use crate::outcome::factored::{Block, Factored};
use crate::outcome::{interrupted, Limits, Outcomes, State};
use crate::pomset::Event;
use crate::syntax::ast;
use crate::syntax::core::{Loc, RegId, Stmt};
use crate::syntax::core::{Program, Reach};

/// A program with each thread that is only `wk`/`rlx` reads of named
/// locations (distinct registers, two of one label) split into one thread
/// per read (5. and 6. of the module), and per top-level thread of the split
/// program, the class of its read's label (7.) for reads split off.
struct Split {
    program: Program,
    class: Vec<Option<usize>>,
}

/// A plain read of a thread: its register, location, mode and scope.
type PlainRead = (RegId, Loc, ast::Mode, ast::Scope);

/// The split program (`Split`), or `None` where no thread splits or the
/// model orders reads of one thread (`co_delays_rr`) or gives a read
/// events over earlier registers (`if_closure`).
fn split(p: &Program, model: &Model) -> Option<Split> {
    if model.co_delays_rr != CoDelaysRr::Off || model.if_closure != IfClosure::Off {
        return None;
    }
    // Each thread's reads where it splits: found before the program is
    // copied, since most programs have no such thread.
    let splits: Vec<Option<Vec<PlainRead>>> = p
        .main
        .iter()
        .map(|(tid, body)| {
            let mut reads = Vec::new();
            let splits = plain_reads(body, &mut reads)
                && repeats_a_label(&reads)
                && owns_only(p, *tid, &reads);
            splits.then_some(reads)
        })
        .collect();
    if splits.iter().all(Option::is_none) {
        return None;
    }
    let mut q = p.clone();
    q.main.clear();
    let mut class = Vec::new();
    let mut labels: Vec<(ThreadId, Loc, ast::Mode, ast::Scope)> = Vec::new();
    for ((tid, body), reads) in p.main.iter().zip(splits) {
        let Some(mut reads) = reads else {
            q.main.push((*tid, body.clone()));
            class.push(None);
            continue;
        };
        // In register order: the split threads then name their registers
        // where the thread did (`Sem::regs_of` lists a thread's by id).
        reads.sort_by_key(|r| r.0);
        for (j, (reg, loc, mode, scope)) in reads.into_iter().enumerate() {
            let t = if j == 0 {
                *tid
            } else {
                q.threads.push(p.threads[*tid as usize].clone());
                (q.threads.len() - 1) as ThreadId
            };
            q.regs[reg as usize].thread = t;
            let label = (*tid, loc.clone(), mode, scope);
            let id = labels.iter().position(|l| *l == label).unwrap_or_else(|| {
                labels.push(label);
                labels.len() - 1
            });
            q.main.push((
                t,
                Stmt::Read {
                    reg,
                    loc,
                    mode,
                    scope,
                },
            ));
            class.push(Some(id));
        }
    }
    Some(Split { program: q, class })
}

/// Collects the reads of a body made only of `wk`/`rlx` reads of named
/// locations (and `skip`); false at anything else.
fn plain_reads(s: &Stmt, out: &mut Vec<PlainRead>) -> bool {
    match s {
        Stmt::Skip => true,
        Stmt::Seq(v) => v.iter().all(|s| plain_reads(s, out)),
        Stmt::Read {
            reg,
            loc: loc @ Loc::Named(_),
            mode: mode @ (ast::Mode::Wk | ast::Mode::Rlx),
            scope,
        } => {
            out.push((*reg, loc.clone(), *mode, *scope));
            true
        }
        _ => false,
    }
}

/// Whether two of the reads have one label, so that they may coalesce: only
/// then is a thread split. Its pomsets then grow as Bell numbers (CoRR-8's
/// reader: 668 520 163); reads of distinct labels have at most (|V| + 1)^k
/// pomsets, which the plain search (or readers kept apart, thread by
/// thread) handles without holding every core witness, as the split does
/// (MP-10's last reader split: 38 MB against 23 MB whole).
fn repeats_a_label(reads: &[PlainRead]) -> bool {
    reads.iter().enumerate().any(|(i, a)| {
        reads[..i]
            .iter()
            .any(|b| (&a.1, a.2, a.3) == (&b.1, b.2, b.3))
    })
}

/// Whether the thread's registers are exactly the reads' (distinct): none
/// read twice, none of its own left unread.
fn owns_only(p: &Program, tid: ThreadId, reads: &[PlainRead]) -> bool {
    let mut regs: Vec<RegId> = reads.iter().map(|r| r.0).collect();
    regs.sort_unstable();
    let distinct = regs.windows(2).all(|w| w[0] != w[1]);
    let own: Vec<RegId> = (0..p.regs.len() as RegId)
        .filter(|&r| p.regs[r as usize].thread == tid)
        .collect();
    distinct && own == regs
}

/// Decides `p` with the reads of its read-only threads kept apart (5. to
/// 7. of the module): `None` where that does not apply, for the caller to
/// decide `p` as it is.
pub(super) fn decide_split(p: &Program, model: &Model, limits: Limits) -> Option<Outcomes> {
    if !(limits.orbits && limits.factor)
        || p.filter.is_some()
        || model.final_ != Final::LocMax
        || super::gap::memory_gap(model)
    {
        return None;
    }
    let split = split(p, model)?;
    let q = &split.program;
    let mut sem = Sem::new(q, model, limits.max_pomsets, limits.max_partitions);
    (sem.deadline, sem.cancel) = (limits.deadline, limits.cancel);
    let init_thread = q.threads.len() as ThreadId;
    let (init, init_tau) = decide::init_prefix(&mut sem, q, model, init_thread).ok()?;
    let threads = decide::thread_variants(&mut sem, q, &init, init_tau).ok()?;
    let readers = readers(&threads);
    let split_off = (0..threads.len()).filter(|&k| split.class[k].is_some());
    if !split_off.clone().all(|k| readers.contains(&k)) || !decide::uniform_names(&threads) {
        return None;
    }
    let mut out = Outcomes::empty();
    if !decide_built(
        &sem,
        q,
        model,
        (&init, &threads),
        &readers,
        limits,
        &mut out,
    ) {
        return None;
    }
    if let Some(product) = out.factored.take() {
        // Readers not split off are classes of their own.
        let class_of: Vec<usize> = readers
            .iter()
            .map(|&k| split.class[k].unwrap_or(usize::MAX - k))
            .collect();
        let product = product.coalescing(&class_of)?;
        out.witnesses = product.pomsets();
        out.factored = Some(product);
    }
    out.stats = sem.l.stats();
    out.notes = decide::outside_v_notes(&sem, q);
    out.notes.extend(p.bound_note(Reach::Unknown));
    Some(out)
}

/// Whether every pomset of a thread is made of `wk` and `rlx` reads alone.
fn reader(variants: &[Completed]) -> bool {
    !variants.is_empty()
        && variants.iter().all(|c| {
            c.frag.rmw.is_empty()
                && c.frag.events.iter().all(|e| {
                    e.label.kind == Kind::Read && matches!(e.label.mode, Mode::Wk | Mode::Rlx)
                })
        })
}

/// The threads kept apart, when there are two or more.
pub(super) fn readers(per_thread: &[Vec<Completed>]) -> Vec<usize> {
    let found: Vec<usize> = (0..per_thread.len())
        .filter(|&k| reader(&per_thread[k]))
        .collect();
    if found.len() >= 2 {
        found
    } else {
        Vec::new()
    }
}

/// Decides `p`, whose initial writes and threads `sem` has built, with
/// `readers` kept apart (`decide`), into `out`: `decide_split` and
/// `decide::run` call it once they have their threads.
pub(super) fn decide_built(
    sem: &Sem,
    p: &Program,
    model: &Model,
    (init, threads): (&[Ev], &[Vec<Completed>]),
    readers: &[usize],
    limits: Limits,
    out: &mut Outcomes,
) -> bool {
    let labelled = decide::labelled(sem);
    let groups = ThreadGroups { p };
    let cx = Context {
        p,
        model,
        groups: &groups,
        init,
        threads,
        limits,
        labelled: &labelled,
    };
    decide(&cx, readers, out)
}

/// What deciding with readers kept apart needs.
struct Context<'a> {
    p: &'a Program,
    model: &'a Model,
    groups: &'a ThreadGroups<'a>,
    init: &'a [Ev],
    threads: &'a [Vec<Completed>],
    limits: Limits,
    /// Each location's id in labels (`decide::labelled`).
    labelled: &'a [Option<crate::action::Loc>],
}

/// One core witness: its rf, its orders and its settled final memory.
struct Core {
    rf: Vec<Option<Event>>,
    orders: Orders,
    memory: Vec<Option<i64>>,
}

/// Decides with the readers (`readers`) kept apart, into `out`; `false`
/// (with `out` untouched) where the argument of the module does not apply
/// or a step budget ran out, for the plain search to decide.
fn decide(cx: &Context, readers: &[usize], out: &mut Outcomes) -> bool {
    // A thread with no pomset leaves no state: nothing to keep apart.
    if cx.threads.iter().any(Vec::is_empty) {
        return false;
    }
    let blocks = decide::register_blocks(cx.threads);
    let core: Vec<usize> = (0..cx.threads.len())
        .filter(|k| !readers.contains(k))
        .collect();
    let width = blocks.last().map_or(0, |b| b.end);
    let mut steps = cx.limits.max_steps;
    let mut found: HashMap<Vec<Option<i64>>, Block> = HashMap::new();
    let mut pick = vec![0usize; core.len()];
    let leaves = decide::Leaves {
        model: cx.model,
        groups: cx.groups,
        init: cx.init,
        threads: cx.threads,
        deadline: cx.limits.deadline,
        cancel: cx.limits.cancel,
        cap: cx.limits.max_states,
    };
    loop {
        if let Some(why) = interrupted(cx.limits.deadline, cx.limits.cancel) {
            *out = Outcomes {
                limit: Some(why),
                ..Outcomes::empty()
            };
            return true;
        }
        let parts: Vec<&Completed> = core
            .iter()
            .zip(&pick)
            .map(|(&k, &i)| &cx.threads[k][i])
            .collect();
        let Some((cores, n)) = core_witnesses(cx, &parts, &mut steps) else {
            return false;
        };
        // Per core witness, per reader: each value of its registers, counted.
        let mut counts: Vec<Vec<HashMap<Vec<Option<i64>>, usize>>> =
            vec![vec![HashMap::new(); readers.len()]; cores.len()];
        let at: HashMap<&[Option<Event>], usize> = cores
            .iter()
            .enumerate()
            .map(|(j, c)| (c.rf.as_slice(), j))
            .collect();
        for (i, &k) in readers.iter().enumerate() {
            for v in &cx.threads[k] {
                let mut whole = parts.clone();
                whole.push(v);
                let (sk, _) = decide::skeleton(cx.init, &whole);
                let (searched, used, _) = leaves.candidates(&sk, steps.min(1_000_000));
                steps = steps.saturating_sub(used.max(1));
                let Ok(witnesses) = searched else {
                    return false;
                };
                let regs: Vec<Option<i64>> = v.regs.iter().map(|(_, x)| *x).collect();
                for w in witnesses {
                    let Some(&j) = at.get(&w.rf[..n]) else {
                        return false;
                    };
                    if !agrees(&w.orders, &cores[j].orders, n) {
                        return false;
                    }
                    *counts[j][i].entry(regs.clone()).or_insert(0) += 1;
                }
            }
        }
        for (c, per_reader) in cores.iter().zip(counts) {
            if per_reader.iter().any(HashMap::is_empty) {
                continue;
            }
            let mut fixed = vec![None; width];
            for (&k, part) in core.iter().zip(&parts) {
                for (slot, (_, x)) in blocks[k].clone().zip(part.regs.iter()) {
                    fixed[slot] = *x;
                }
            }
            fixed.extend(&c.memory);
            let parts: Vec<Vec<(Vec<Option<i64>>, usize)>> = per_reader
                .into_iter()
                .map(|m| {
                    let mut v: Vec<_> = m.into_iter().collect();
                    v.sort();
                    v
                })
                .collect();
            match found.get_mut(&fixed) {
                // A union of different products is not a product.
                Some(b) if b.parts != parts => return false,
                Some(b) => b.times += 1,
                None => {
                    let block = Block {
                        fixed: fixed.clone(),
                        times: 1,
                        parts,
                    };
                    found.insert(fixed, block);
                }
            }
        }
        if !decide::next_choice(&mut pick, |i| cx.threads[core[i]].len()) {
            break;
        }
    }
    let shape = State {
        regs: cx
            .threads
            .iter()
            .flat_map(|t| t[0].regs.iter().cloned())
            .collect(),
        mem: cx.p.locs.iter().map(|l| (l.name.clone(), None)).collect(),
    };
    let mut blocks_found: Vec<Block> = found.into_values().collect();
    blocks_found.sort_by(|a, b| a.fixed.cmp(&b.fixed));
    let product = Factored::new(
        shape,
        readers.iter().map(|&k| blocks[k].clone()).collect(),
        blocks_found,
    );
    // More parts than `--max-states` allows: the plain search decides, and
    // keeps as many states as the limit allows before it names it.
    if product.held() > cx.limits.max_states {
        return false;
    }
    *out = Outcomes::empty();
    out.witnesses = product.pomsets();
    out.factored = Some(product);
    true
}

/// The core's witnesses for its chosen pomsets, each with its final
/// memory, and the number of core events (the first positions of every
/// skeleton with a reader added); `None` where some location's last write
/// is not settled by the core alone (3. of the module) or the step budget
/// ran out.
fn core_witnesses(
    cx: &Context,
    parts: &[&Completed],
    steps: &mut u64,
) -> Option<(Vec<Core>, usize)> {
    let (sk, _) = decide::skeleton(cx.init, parts);
    let mut search = Search::new(&sk, cx.model, cx.groups, (*steps).min(1_000_000));
    let stop = || interrupted(cx.limits.deadline, cx.limits.cancel).is_some();
    let mut cores = Vec::new();
    let mut settled = true;
    let (searched, used, _) = candidates_each(
        &mut search,
        RfMode::Total,
        cx.limits.max_states,
        &stop,
        &mut |s, w| {
            let tops = decide::settled_writes(cx.labelled, cx.p, s, w);
            match tops.iter().all(|t| t.len() <= 1) {
                true => cores.push(Core {
                    rf: w.rf.clone(),
                    orders: w.orders.clone(),
                    memory: tops
                        .iter()
                        .map(|t| t.first().map(|&e| sk.labels[e].value))
                        .collect(),
                }),
                false => settled = false,
            }
        },
    );
    *steps = steps.saturating_sub(used.max(1));
    (searched.is_ok() && settled).then_some((cores, sk.len()))
}

/// Whether a witness's orders restricted to the first `n` events (the
/// core's) are `core`'s: ⊴, ≤ and ⊑, and ≤ ∪ ⊑ closed.
fn agrees(w: &Orders, core: &Orders, n: usize) -> bool {
    let union = |o: &Orders| {
        let mut u = o.sync.clone();
        u.union_with(&o.loc);
        u.close();
        u
    };
    let (uw, uc) = (union(w), union(core));
    (0..n).all(|a| {
        (0..n).all(|b| {
            [OrderKind::Dep, OrderKind::Sync, OrderKind::Loc]
                .iter()
                .all(|&k| w.get(k).has(a, b) == core.get(k).has(a, b))
                && uw.has(a, b) == uc.has(a, b)
        })
    })
}
