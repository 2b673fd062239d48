//! A sweep's threads built once (`Limits::reuse`). A `distinguish` sweep
//! decides thousands of programs that differ in one thread's modes, or
//! that share whole threads: a skeleton's mode variants, and the skeletons
//! after it. Building a thread's complete pomsets (`decide::thread_variants`)
//! was about half of the pomset engine's time on C59's bound, and almost
//! all of it repeated work.
//!
//! # Why a thread built for one program is the thread of another
//!
//! Building a thread is a function of the thread's body and of the `Sem`
//! it is built in: the program-wide facts `Sem::new` derives (V, the
//! locations and their label ids, the registers, the model and limits, the
//! registers `LET` may take outside V, the read-once and if-closure
//! registers), the initial writes' τ it is completed under, and the next
//! event id. Nothing else it reads depends on the other threads: the
//! pomset semantics is compositional, and `Sem`'s other fields are either
//! reset per thread (`assigned`, `definite`) or written by the thread for
//! later phases (`read_once`, `outside_v`), which a reused thread writes
//! again as it did.
//!
//! So a session keeps one `Sem`'s arenas (the formulas and transformer
//! trees, hash-consed and only ever added to) between calls, for programs
//! whose program-wide facts are equal (`Key`); an OS thread keeps the
//! eight sessions it used last (`MAX_SESSIONS`). Within a session, a
//! thread is keyed by its position, its body and its first event id; a
//! thread found there gets the variants built before (cloned: the later
//! phases filter and annotate them), the next event id it ended with, and
//! its writes to `read_once` and `outside_v`. The initial writes are built
//! once per session, so their τ, which every thread is completed under, is
//! the same tree. A program with a computed address has no session (its
//! initial writes and threads number the cells `[ℓ]` as they meet them);
//! a thread whose building added a location id anyway is not kept, nor is
//! one that reached a limit.
//!
//! The formulas' ids then depend on what the session built before, but
//! ids only name formulas: every answer (a tautology, a substitution, a
//! final value) is about the formula, so the outcomes are those of a fresh
//! `Sem`, state for state and count for count. The property test
//! `a_sweeps_reused_threads_give_each_programs_own_outcomes` decides
//! random families of programs with and without the session.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::construct::{Ev, Sem};
use super::decide::Completed;
use super::tau::{Tau, Trees};
use crate::action::ThreadId;
use crate::logic::Logic;
use crate::model::Model;
use crate::syntax::core::{self, Program, Stmt};

/// The most threads' variants a session holds before it forgets them. On
/// C59's bound a session (one skeleton's variants, mostly) holds about a
/// thousand; a reader's variants may number tens of thousands.
const MAX_VARIANTS: usize = 100_000;

/// The most formulas a session's arena holds before a new one begins (on
/// C59's bound about 1 200): a bound on what an OS thread keeps, as a
/// server's workers each keep one.
const MAX_FORMULAS: usize = 200_000;

/// What `Sem::new` derives from a program and the engine's settings: two
/// programs with equal keys build equal threads from equal bodies. The
/// locations' label ids are `Sem::new`'s numbering of `locs` in order (a
/// program with a computed address, whose cells get ids later, has no
/// session), so `locs` holds them.
#[derive(PartialEq)]
struct Key {
    values: Vec<i64>,
    locs: Vec<core::LocInfo>,
    regs: Vec<core::RegInfo>,
    threads: Vec<core::ThreadInfo>,
    model: Model,
    max_pomsets: usize,
    max_partitions: usize,
    unbounded: Vec<core::RegId>,
    once: Vec<core::RegId>,
    assigned_anywhere: Vec<core::RegId>,
    derived: Vec<(core::RegId, Vec<core::RegId>)>,
}

impl Key {
    fn of(sem: &Sem, p: &Program) -> Key {
        Key {
            values: p.values.clone(),
            locs: p.locs.clone(),
            regs: p.regs.clone(),
            threads: p.threads.clone(),
            model: *sem.model,
            max_pomsets: sem.max_pomsets,
            max_partitions: sem.max_partitions,
            unbounded: sem.unbounded.clone(),
            once: sem.once.clone(),
            assigned_anywhere: sem.assigned_anywhere.clone(),
            derived: sem.derived.clone(),
        }
    }
}

/// A thread as built: its completed variants, the event id after its
/// last, and what it wrote to `Sem::read_once` and `Sem::outside_v`.
pub(super) struct Built {
    variants: Vec<Completed>,
    end: u32,
    read_once: Vec<(core::RegId, u32)>,
    outside_v: Vec<(ThreadId, String)>,
}

/// The threads built so far, by position and first event id, each with
/// its body.
type Threads = HashMap<(usize, u32), Vec<(Stmt, Rc<Built>)>>;

/// What a `Sem` of the session carries (`Sem::reuse`): the session's key,
/// the initial writes as built (with the event id after them), and the
/// threads built so far, with how many variants they hold.
#[derive(Default)]
pub(super) struct Reuse {
    key: Option<Key>,
    init: Option<(Vec<Ev>, Tau, u32)>,
    threads: Threads,
    variants: usize,
}

struct Session {
    l: Logic,
    trees: Trees,
    reuse: Box<Reuse>,
}

/// The most sessions an OS thread keeps. A sweep decides a program's
/// weakenings (other skeletons, other keys) between its variants, so one
/// session alone was begun again and again.
const MAX_SESSIONS: usize = 8;

thread_local! {
    /// The sessions, the one used last at the end.
    static SESSIONS: RefCell<Vec<Session>> = const { RefCell::new(Vec::new()) };
}

/// Gives `sem` (just made for `p`) the arenas and threads of the session
/// whose program-wide facts are `p`'s, or begins one with `sem`'s own. Not
/// for a program with a computed address: its initial writes and threads
/// number locations (`[ℓ]`) as they meet them, which the key, taken
/// before, does not hold.
pub(super) fn enter(sem: &mut Sem, p: &Program) {
    if super::decide::has_computed(p) {
        return;
    }
    let key = Key::of(sem, p);
    let kept = SESSIONS.with(|s| {
        let mut s = s.borrow_mut();
        let at = s.iter().position(|x| x.reuse.key.as_ref() == Some(&key))?;
        Some(s.remove(at))
    });
    let mut reuse = match kept {
        Some(s) if s.l.formula_count() < MAX_FORMULAS => {
            sem.l = s.l;
            sem.trees = s.trees;
            s.reuse
        }
        _ => Box::default(),
    };
    reuse.key = Some(key);
    sem.reuse = Some(reuse);
}

/// Hands `sem`'s arenas and threads back as the session used last.
pub(super) fn leave(sem: &mut Sem) {
    let Some(reuse) = sem.reuse.take() else {
        return;
    };
    let l = std::mem::replace(&mut sem.l, Logic::new(&sem.program.values));
    let trees = std::mem::take(&mut sem.trees);
    SESSIONS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() == MAX_SESSIONS {
            s.remove(0);
        }
        s.push(Session { l, trees, reuse });
    });
}

/// The initial writes, built once per session by `build`.
pub(super) fn init<E>(
    sem: &mut Sem,
    build: impl FnOnce(&mut Sem) -> Result<(Vec<Ev>, Tau), E>,
) -> Result<(Vec<Ev>, Tau), E> {
    if let Some((events, tau, end)) = sem.reuse.as_ref().and_then(|r| r.init.clone()) {
        sem.set_next_event(end);
        return Ok((events, tau));
    }
    let built = build(sem)?;
    let end = sem.next_event();
    if let Some(r) = sem.reuse.as_mut() {
        r.init = Some((built.0.clone(), built.1, end));
    }
    Ok(built)
}

/// Thread `k`'s completed variants: as built before in this session, or
/// by `build` (and then kept).
pub(super) fn thread<E>(
    sem: &mut Sem,
    k: usize,
    body: &Stmt,
    build: impl FnOnce(&mut Sem) -> Result<Vec<Completed>, E>,
) -> Result<Vec<Completed>, E> {
    if sem.reuse.is_none() {
        return build(sem);
    }
    let start = sem.next_event();
    let found = sem.reuse.as_ref().and_then(|r| {
        r.threads
            .get(&(k, start))?
            .iter()
            .find(|(b, _)| b == body)
            .map(|(_, built)| built.clone())
    });
    if let Some(built) = found {
        sem.set_next_event(built.end);
        sem.read_once.extend(built.read_once.iter().copied());
        sem.outside_v.extend(built.outside_v.iter().cloned());
        return Ok(built.variants.clone());
    }
    let (locs, outside) = (sem.dense_names.len(), sem.outside_v.len());
    let variants = build(sem)?;
    let end = sem.next_event();
    if sem.dense_names.len() != locs {
        return Ok(variants);
    }
    let built = Built {
        variants: variants.clone(),
        end,
        read_once: sem
            .read_once
            .iter()
            .filter(|(_, &id)| (start..end).contains(&id))
            .map(|(&r, &id)| (r, id))
            .collect(),
        outside_v: sem.outside_v[outside..].to_vec(),
    };
    if let Some(r) = sem.reuse.as_mut() {
        if r.variants + variants.len() > MAX_VARIANTS {
            r.threads.clear();
            r.variants = 0;
        }
        r.variants += variants.len();
        r.threads
            .entry((k, start))
            .or_default()
            .push((body.clone(), Rc::new(built)));
    }
    Ok(variants)
}
