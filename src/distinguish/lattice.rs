//! Programs that differ only in their modes, decided together.
//!
//! Most of a bound's programs share their accesses, locations, values and
//! dependencies with many others and differ from them only in modes: C59's
//! bound has about 380 mode variants of each such *skeleton*. The modes of
//! one access form a chain, weakest first (reads `rlx`, `acq`, `sc`; writes
//! `rlx`, `rel`, `sc`; each half of an RMW as a read and a write; modes
//! missing from the vocabulary left out), and a skeleton's variants form the
//! product of its accesses' chains: a lattice, ordered access by access.
//!
//! For a model that declares `Capability::StrongerModes`, strengthening a
//! mode never adds a determined final state (one with every value known),
//! so the variants that have a given determined state form a down-set: a
//! variant has it if a decided variant above it does, and lacks it if a
//! decided variant below it does. A sweep asks for a program's determined
//! states by halving the interval from the skeleton's weakest to its
//! strongest variant towards the program once; if a state of the skeleton
//! is still not settled so for the program, it decides the program and
//! follows each such state from there to the strongest variants keeping
//! it (or the weakest lacking it) that one path finds (`determined`):
//! the variants decided are shared by every program of the skeleton, and
//! on the bounds measured most programs are answered without being
//! decided. Two
//! models that agree on a program's determined states (over the same names)
//! give it the verdict `same` (`Pair::decide_program` compares determined
//! states only); any other program is decided in full, exactly as without
//! the lattice, except that a model declaring
//! `Capability::StrongerModesEveryState` (pwt) has its whole states, `?`
//! values included, pinned the same way over every state (`every_state`),
//! in the program's own skeleton. `wk` and fences' modes are not on a
//! chain: a `wk` access is part of its skeleton, as is a fence with its
//! mode.
//!
//! Two more declarations shorten the halving: a model blind to modes
//! (`Capability::ModeBlind`, `sc`) has its skeleton's states at every
//! variant, and for a model that includes SC's states
//! (`Capability::IncludesSc`) the `sc` engine's states of the skeleton are
//! a floor under every variant's, so an interval whose weaker end has no
//! determined state beyond them pins every variant above it.
//!
//! A program is asked about in its group's frame (`Known::set_frames`): as
//! the variant of the group's skeleton whose canonical form it is, so that
//! programs that are variants of different symmetric images of the
//! skeleton share what is decided; a verdict is the same for a program and
//! its symmetric images.
//!
//! The enumeration lists a skeleton's programs together (`enumerate.rs`) and
//! a shard takes whole skeletons (`shard.rs`), so that [`Known`], what has
//! been decided of one skeleton, can be dropped when the next begins.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

use super::shape::{Kind, Op, Shape, Space};
use super::{State, Undecided};
use crate::engine::axiomatic::Found;
use crate::syntax::ast::Mode;
use crate::syntax::core::Program;

/// One access's mode (or one half of an RMW's) that a sweep may strengthen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coordinate {
    thread: usize,
    access: usize,
    /// The write half of an RMW (`Op::wmode`), not its read half.
    write_half: bool,
    /// The modes it may take, weakest first.
    chain: Vec<Mode>,
}

/// The modes of an access of `class` (`Read` or `Write`) on the chain,
/// weakest first, as far as `vocabulary` has them.
pub fn chain(class: Kind, vocabulary: &[Mode]) -> Vec<Mode> {
    let all = match class {
        Kind::Write => [Mode::Rlx, Mode::Rel, Mode::Sc],
        _ => [Mode::Rlx, Mode::Acq, Mode::Sc],
    };
    all.into_iter().filter(|m| vocabulary.contains(m)).collect()
}

/// The places of `s` whose mode lies on a chain of two modes or more.
pub fn coordinates(space: &Space, s: &Shape) -> Vec<Coordinate> {
    let modes = &space.vocabulary.modes;
    let mut out = Vec::new();
    for (t, thread) in s.threads.iter().enumerate() {
        for (i, op) in thread.iter().enumerate() {
            let halves: &[(bool, Kind, Mode)] = match op.kind {
                Kind::Fence => &[],
                Kind::Read => &[(false, Kind::Read, op.mode)],
                Kind::Write => &[(false, Kind::Write, op.mode)],
                Kind::Fadd | Kind::Exchg => {
                    &[(false, Kind::Read, op.mode), (true, Kind::Write, op.wmode)]
                }
            };
            for &(write_half, class, mode) in halves {
                let chain = chain(class, modes);
                if chain.len() > 1 && chain.contains(&mode) {
                    out.push(Coordinate {
                        thread: t,
                        access: i,
                        write_half,
                        chain,
                    });
                }
            }
        }
    }
    out
}

/// How many modes the coordinate's chain has.
pub fn chain_len(c: &Coordinate) -> usize {
    c.chain.len()
}

/// Where `s` stands on each coordinate: its mode's index in the chain.
pub fn position(s: &Shape, coordinates: &[Coordinate]) -> Vec<usize> {
    coordinates
        .iter()
        .map(|c| {
            let mode = mode_at(s, c);
            c.chain.iter().position(|m| *m == mode).unwrap_or(0)
        })
        .collect()
}

fn mode_at(s: &Shape, c: &Coordinate) -> Mode {
    let op = &s.threads[c.thread][c.access];
    if c.write_half {
        op.wmode
    } else {
        op.mode
    }
}

/// `s` with the modes at `position` on `coordinates`.
pub fn at(s: &Shape, coordinates: &[Coordinate], position: &[usize]) -> Shape {
    let mut out = s.clone();
    for (c, &p) in coordinates.iter().zip(position) {
        let op = &mut out.threads[c.thread][c.access];
        if c.write_half {
            op.wmode = c.chain[p];
        } else {
            op.mode = c.chain[p];
        }
    }
    out
}

/// `op` with each mode on a chain the weakest of that chain.
pub fn weakest(space: &Space, op: Op) -> Op {
    let one = Shape {
        threads: vec![vec![op]],
    };
    skeleton(space, &one).threads[0][0]
}

/// The weakest variant of `s`: its skeleton (every coordinate at the
/// bottom of its chain).
pub fn skeleton(space: &Space, s: &Shape) -> Shape {
    let c = coordinates(space, s);
    at(s, &c, &vec![0; c.len()])
}

/// Every variant of the skeleton `s`, in the order of the positions
/// (the last coordinate fastest).
pub fn variants(space: &Space, s: &Shape) -> Vec<Shape> {
    let c = coordinates(space, s);
    let mut out = Vec::new();
    let mut p = vec![0; c.len()];
    loop {
        out.push(at(s, &c, &p));
        // The next position, as an odometer.
        let mut k = c.len();
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            p[k] += 1;
            if p[k] < c[k].chain.len() {
                break;
            }
            p[k] = 0;
        }
    }
}

/// One model's final states of one program, as `Pair::states` gives them,
/// with the determined ones apart (what a verdict `same` compares).
pub struct Sets {
    pub names: Vec<String>,
    pub states: BTreeSet<State>,
    pub determined: BTreeSet<Vec<i64>>,
}

impl Sets {
    pub fn new(names: Vec<String>, states: BTreeSet<State>) -> Sets {
        let determined = states
            .iter()
            .filter_map(|s| s.iter().copied().collect::<Option<Vec<i64>>>())
            .collect();
        Sets {
            names,
            states,
            determined,
        }
    }
}

/// A model's answer for one program: its states, or why it has none.
pub type Answer = Result<Rc<Sets>, Undecided>;

/// A group's skeleton, its coordinates, and each program's position there.
struct Frame {
    skeleton: Shape,
    coordinates: Vec<Coordinate>,
    at: HashMap<Shape, Vec<usize>>,
}

/// What a sweep has decided of the programs of one skeleton (and of their
/// weakenings, for minimality), per model; dropped when the next skeleton
/// begins. Also counts the decisions it made and the verdicts inferred.
#[derive(Default)]
pub struct Known {
    /// By model, then (slot 2) the `sc` engine's, SC's floor.
    answers: HashMap<Shape, [Option<Answer>; 3]>,
    /// Each program checked so far, for the other model's run.
    programs: HashMap<Shape, Result<Rc<Program>, Undecided>>,
    /// The group's skeleton and each of its programs' positions there
    /// (`set_frames`).
    frames: Option<Frame>,
    /// By skeleton and model, the variants decided (`determined`).
    seen: HashMap<Shape, [Seen; 2]>,
    /// By skeleton and model, what deciding the skeleton found
    /// (`Pair::found`), `None` inside when nothing could be kept.
    found: HashMap<Shape, [Option<Option<Rc<Found>>>; 2]>,
    /// Engine runs: one model deciding one program.
    pub decided: u64,
    /// Verdicts `same` given without deciding the program.
    pub inferred: u64,
}

impl Known {
    /// Forgets every answer (a new skeleton begins); the counts stay.
    pub fn clear(&mut self) {
        self.answers.clear();
        self.programs.clear();
        self.found.clear();
        self.seen.clear();
        self.frames = None;
    }

    /// The programs of one group, each with its position on the group's
    /// skeleton (`enumerate::framed_group`): `framed` then answers for them.
    pub fn set_frames(&mut self, space: &Space, skeleton: &Shape, group: &[(Shape, Vec<usize>)]) {
        let at = group.iter().map(|(s, p)| (s.clone(), p.clone())).collect();
        self.frames = Some(Frame {
            skeleton: skeleton.clone(),
            coordinates: coordinates(space, skeleton),
            at,
        });
    }

    /// The variant of the group's skeleton whose canonical form `s` is,
    /// when `s` is a program of the group (`set_frames`).
    pub fn framed(&self, s: &Shape) -> Option<Shape> {
        let f = self.frames.as_ref()?;
        Some(at(&f.skeleton, &f.coordinates, f.at.get(s)?))
    }

    /// What model `i` decided of the skeleton `s`, taken out (to be put
    /// back by `keep_seen`).
    pub fn take_seen(&mut self, s: &Shape, i: usize) -> Seen {
        self.seen
            .get_mut(s)
            .map(|a| std::mem::take(&mut a[i]))
            .unwrap_or_default()
    }

    /// Puts back what `take_seen` took, with what was decided since.
    pub fn keep_seen(&mut self, s: &Shape, i: usize, seen: Seen) {
        self.seen.entry(s.clone()).or_default()[i] = seen;
    }

    /// What model `i` found deciding the skeleton `s`, if it was asked.
    pub fn found(&self, s: &Shape, i: usize) -> Option<Option<Rc<Found>>> {
        self.found.get(s).and_then(|f| f[i].clone())
    }

    /// Keeps what model `i` found deciding the skeleton `s`.
    pub fn keep_found(&mut self, s: &Shape, i: usize, f: Option<Rc<Found>>) {
        self.found.entry(s.clone()).or_default()[i] = Some(f);
    }

    /// Both models' answers for `s`, when both are known and neither is a
    /// refusal.
    pub fn both(&self, s: &Shape) -> Option<[Rc<Sets>; 2]> {
        match self.answers.get(s)? {
            [Some(Ok(a)), Some(Ok(b)), _] => Some([a.clone(), b.clone()]),
            _ => None,
        }
    }

    /// `s` as a checked program, from `check` the first time: a variant
    /// both models decide is built once.
    pub fn program(
        &mut self,
        s: &Shape,
        check: impl FnOnce() -> Result<Program, Undecided>,
    ) -> Result<Rc<Program>, Undecided> {
        if let Some(p) = self.programs.get(s) {
            return p.clone();
        }
        let p = check().map(Rc::new);
        self.programs.insert(s.clone(), p.clone());
        p
    }

    /// Model `i`'s answer for `s` if it has been decided.
    pub fn decided_by(&self, s: &Shape, i: usize) -> Option<Answer> {
        self.answers.get(s).and_then(|a| a[i].clone())
    }

    /// Model `i`'s answer for `s`, from `decide` the first time.
    pub fn answer(
        &mut self,
        s: &Shape,
        i: usize,
        decide: impl FnOnce() -> Result<Sets, Undecided>,
    ) -> Answer {
        if let Some(a) = self.decided_by(s, i) {
            return a;
        }
        self.decided += 1;
        let a = decide().map(Rc::new);
        self.answers.entry(s.clone()).or_default()[i] = Some(a.clone());
        a
    }
}

/// The variants of one skeleton a model has decided, by position.
pub type Seen = Vec<(Vec<usize>, Rc<Sets>)>;

/// Model `i`'s determined states of `s` (with their names), or `None` when
/// a variant asked has no answer (a limit, a flag) or variants name
/// different values. `c` are `s`'s coordinates; `answer` gives a variant's
/// answer; `seen` holds what the model decided of this skeleton before,
/// and gets what it decides now.
///
/// Each determined state's variants form a down-set of the lattice (a
/// stronger mode never adds one), so a state is `s`'s if some decided
/// variant above `s` has it, and is not if some decided variant below `s`
/// lacks it; every state is one of the skeleton's. When each of the
/// skeleton's states is settled so, `s`'s are known without deciding it.
/// Otherwise the interval from the skeleton to its strongest variant is
/// halved towards `s` (the first coordinate on which its ends differ),
/// deciding the new end, `HALVINGS` times; two ends with equal states
/// settle every variant between them. If the states are still not
/// settled, `s` itself is decided, and each state that was not settled
/// for `s` is followed from there (`climb`) to variants where it settles
/// as many of the skeleton's other programs as one path finds, for the
/// programs asked later. A lattice of at most `HALVE_THROUGH` variants is
/// halved on until its states are settled instead. Which variants are
/// decided changes the work only, never the answer: every answer is
/// `settled`'s, from decided variants and the down-sets.
///
/// A model `blind` to modes (`Capability::ModeBlind`) has the skeleton's
/// states at every variant: only the skeleton is decided. `floor` is SC's
/// states of the skeleton for a model that includes SC's
/// (`Capability::IncludesSc`; the `sc` engine is blind to modes): each of
/// them is every variant's.
pub fn determined(
    c: &[Coordinate],
    s: &Shape,
    blind: bool,
    floor: Option<&Sets>,
    seen: &mut Seen,
    answer: impl FnMut(&Shape) -> Answer,
) -> Option<(Vec<String>, BTreeSet<Vec<i64>>)> {
    pinned(c, s, blind, floor, seen, |a| &a.determined, answer)
}

/// A model's every final state of `s`, those with a `?` value included,
/// as `determined` finds the determined ones, for a model declaring
/// `Capability::StrongerModesEveryState` (each state's variants then form
/// a down-set too): a distinguishing program's record lists them all.
pub fn every_state(
    c: &[Coordinate],
    s: &Shape,
    seen: &mut Seen,
    answer: impl FnMut(&Shape) -> Answer,
) -> Option<Sets> {
    let (names, states) = pinned(c, s, false, None, seen, |a| &a.states, answer)?;
    Some(Sets::new(names, states))
}

/// `determined`, over the states `of` picks from each answer.
fn pinned<T: Ord + Clone>(
    c: &[Coordinate],
    s: &Shape,
    blind: bool,
    floor: Option<&Sets>,
    seen: &mut Seen,
    of: impl Fn(&Sets) -> &BTreeSet<T>,
    mut answer: impl FnMut(&Shape) -> Answer,
) -> Option<(Vec<String>, BTreeSet<T>)> {
    let target = position(s, c);
    let mut lo = vec![0; c.len()];
    let mut ask = |seen: &mut Seen, at_pos: &[usize]| -> Option<Rc<Sets>> {
        let a = answer(&at(s, c, at_pos)).ok()?;
        if !seen.iter().any(|(p, _)| p == at_pos) {
            seen.push((at_pos.to_vec(), a.clone()));
        }
        Some(a)
    };
    let universe = ask(seen, &lo)?;
    if blind {
        return Some((universe.names.clone(), of(&universe).clone()));
    }
    let floor = floor.filter(|f| f.names == universe.names);
    if seen.iter().any(|(_, a)| a.names != universe.names) {
        return None;
    }
    // Every variant asked must name the skeleton's values.
    let mut ask =
        |seen: &mut Seen, at_pos: &[usize]| ask(seen, at_pos).filter(|a| a.names == universe.names);
    let mut hi: Vec<usize> = c.iter().map(|c| c.chain.len() - 1).collect();
    let mut asked_hi = false;
    let mut halvings = 0;
    let follow = c
        .iter()
        .try_fold(1usize, |n, c| n.checked_mul(c.chain.len()))
        .is_none_or(|n| n > HALVE_THROUGH);
    loop {
        let open = match settled(seen, &target, of(&universe), floor.map(&of), &of) {
            Ok(d) => return Some((universe.names.clone(), d)),
            Err(open) => open,
        };
        if !asked_hi {
            ask(seen, &hi)?;
            asked_hi = true;
            continue;
        }
        if follow && halvings == HALVINGS {
            let here = ask(seen, &target)?;
            for state in &open {
                let has = of(&here).contains(state);
                climb(c, &target, (state, has), seen, &of, &mut ask);
            }
            let d = settled(seen, &target, of(&universe), floor.map(&of), &of).ok()?;
            return Some((universe.names.clone(), d));
        }
        // The first coordinate on which the ends differ, halved towards `s`;
        // none when the interval is `s`, which `settled` then answers.
        let k = (0..c.len()).find(|&k| lo[k] < hi[k])?;
        let mid = (lo[k] + hi[k]) / 2;
        let end = if target[k] <= mid {
            hi[k] = mid;
            &hi
        } else {
            lo[k] = mid + 1;
            &lo
        };
        ask(seen, end)?;
        halvings += 1;
    }
}

/// How many halving steps `determined` takes before it decides the
/// variant asked about, in a lattice of more than `HALVE_THROUGH`
/// variants. One step answers the skeletons whose variants have
/// one or two sets of states; more steps only add variants decided (a
/// sample of C59's bound, 59 skeletons: 5 582 engine runs with none,
/// 5 526 with one, 5 626 with two, 9 561 halving all the way).
const HALVINGS: usize = 1;

/// The most variants a lattice has for `determined` to halve on to the
/// program instead of following states. Following a state pays when the
/// path it settles is long; in a small lattice each path is a step or two,
/// and halving decides fewer variants. Measured (engine runs, the same
/// records): two threads of at most two accesses, rlx, acq, rel, `rc11` vs
/// `pwt` 608 to 575, `pwt:ptx` 603 to 565 and `sc` vs `rc11` 298 to 299;
/// three threads, total 4 with fences, 6 094 to 5 980 and 3 218 to 3 152;
/// the C59 sample above, now that pwt's every state is pinned too, 4 334
/// to 4 306 (4 388 with 128 here, 4 715 with 256).
const HALVE_THROUGH: usize = 64;

/// From the decided variant at `target`, which has `state` when `has`, a
/// path of decided variants along which it keeps it (upwards) or keeps
/// lacking it (downwards): each coordinate in turn is moved a step up (or
/// down) its chain while the variant there, decided if it was not, agrees.
/// The path's end has the state above as many variants as the path could
/// reach (or lacks it below them), so that `settled` answers for them
/// later without deciding them: with the down-sets of a skeleton, about
/// the fewest variants that settle every other (the maximal variants
/// having each state, the minimal ones lacking it). A variant without an
/// answer ends that coordinate's moves.
fn climb<T: Ord>(
    c: &[Coordinate],
    target: &[usize],
    (state, has): (&T, bool),
    seen: &mut Seen,
    of: &impl Fn(&Sets) -> &BTreeSet<T>,
    ask: &mut impl FnMut(&mut Seen, &[usize]) -> Option<Rc<Sets>>,
) {
    let mut p = target.to_vec();
    for (k, coordinate) in c.iter().enumerate() {
        loop {
            let next = match has {
                true if p[k] + 1 < coordinate.chain.len() => p[k] + 1,
                false if p[k] > 0 => p[k] - 1,
                _ => break,
            };
            let mut q = p.clone();
            q[k] = next;
            match ask(seen, &q) {
                Some(a) if of(&a).contains(state) == has => p = q,
                _ => break,
            }
        }
    }
}

/// The determined states of the variant at `target`, if what `seen` holds
/// settles each of `universe`'s (the skeleton's): in when a decided variant
/// above `target` has it (or `floor`, SC's, does), out when one below it
/// lacks it. Else the states it does not settle.
fn settled<T: Ord + Clone>(
    seen: &Seen,
    target: &[usize],
    universe: &BTreeSet<T>,
    floor: Option<&BTreeSet<T>>,
    of: &impl Fn(&Sets) -> &BTreeSet<T>,
) -> Result<BTreeSet<T>, Vec<T>> {
    let le = |a: &[usize], b: &[usize]| a.iter().zip(b).all(|(x, y)| x <= y);
    let above: Vec<&BTreeSet<T>> = seen
        .iter()
        .filter(|(p, _)| le(target, p))
        .map(|(_, a)| of(a))
        .collect();
    let below: Vec<&BTreeSet<T>> = seen
        .iter()
        .filter(|(p, _)| le(p, target))
        .map(|(_, a)| of(a))
        .collect();
    let mut out = BTreeSet::new();
    let mut open = Vec::new();
    for state in universe {
        let floor_has = floor.is_some_and(|f| f.contains(state));
        if floor_has || above.iter().any(|a| a.contains(state)) {
            out.insert(state.clone());
        } else if !below.iter().any(|a| !a.contains(state)) {
            open.push(state.clone());
        }
    }
    match open.is_empty() {
        true => Ok(out),
        false => Err(open),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distinguish::shape::{Dep, Kind, Op, Vocabulary};
    use crate::syntax::ast::Scope;
    use proptest::prelude::*;

    /// One thread of `n` relaxed reads, each on the chain rlx, acq, sc.
    fn reads(n: usize) -> (Space, Shape) {
        let space = Space {
            bound: Default::default(),
            vocabulary: Vocabulary {
                modes: vec![Mode::Rlx, Mode::Acq, Mode::Sc],
                ..Vocabulary::default()
            },
        };
        let read = Op {
            kind: Kind::Read,
            loc: 0,
            val: 0,
            mode: Mode::Rlx,
            wmode: Mode::Rlx,
            scope: Scope::Sys,
            dep: Dep::None,
        };
        (
            space,
            Shape {
                threads: vec![vec![read; n]],
            },
        )
    }

    proptest! {
        /// Whatever the down-sets (each state held below a few maximal
        /// variants), `determined` gives every variant, asked in any
        /// order, exactly its determined states, and `every_state` its
        /// every state.
        #[test]
        fn the_lattice_answers_each_variant_with_its_own_states(
            n in 1usize..5,
            maxima in prop::collection::vec(prop::collection::vec(prop::collection::vec(0usize..3, 4), 1..4), 1..6),
            order in any::<u64>(),
        ) {
            let (space, skeleton) = reads(n);
            let c = coordinates(&space, &skeleton);
            prop_assert_eq!(c.len(), n);
            let le = |a: &[usize], b: &[usize]| a.iter().zip(b).all(|(x, y)| x <= y);
            // Every third state has a `?`: `determined` leaves it out,
            // `every_state` keeps it.
            let states_at = |p: &[usize]| -> BTreeSet<Vec<Option<i64>>> {
                maxima
                    .iter()
                    .enumerate()
                    .filter(|(_, tops)| tops.iter().any(|q| le(p, &q[..n])))
                    .map(|(j, _)| vec![Some(j as i64), (j % 3 != 2).then_some(0)])
                    .collect()
            };
            let mut all = variants(&space, &skeleton);
            // A fixed shuffle of the order the programs are asked in.
            let mut seed = order;
            for i in (1..all.len()).rev() {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                all.swap(i, (seed >> 33) as usize % (i + 1));
            }
            let mut seen = Seen::new();
            for v in &all {
                let d = determined(&c, v, false, None, &mut seen, |w| {
                    Ok(Rc::new(Sets::new(vec!["r".into(), "s".into()], states_at(&position(w, &c)))))
                });
                let (_, got) = d.expect("every variant answers");
                let want: BTreeSet<Vec<i64>> = states_at(&position(v, &c))
                    .into_iter()
                    .filter_map(|s| s.into_iter().collect())
                    .collect();
                prop_assert_eq!(got, want, "{}", v.body());
                let every = every_state(&c, v, &mut seen, |w| {
                    Ok(Rc::new(Sets::new(vec!["r".into(), "s".into()], states_at(&position(w, &c)))))
                });
                let every = every.expect("every variant answers").states;
                prop_assert_eq!(every, states_at(&position(v, &c)), "{}", v.body());
            }
        }
    }
}
