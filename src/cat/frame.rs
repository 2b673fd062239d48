//! A model's values that do not depend on rf and co, computed once per
//! *frame* rather than once per candidate execution.
//!
//! The candidates of one program that take the same path through each
//! thread differ only in rf, co and the values their reads return: their
//! events (thread, kind, mode, scope, cell, Vulkan qualifiers), po, the
//! dependencies, rmw and the scope and barrier relations are the same.
//! That common part is the candidate's frame. A builtin other than rf, co
//! and what is made of them (`Builtin::fixed`) reads only the frame (no
//! builtin reads an event's value), and so does every operator of `Ir`
//! (`FenceRel` and `PerScope` read the events and the scope relations;
//! complement and `_` the number of events). So a `let` whose body reads
//! only such builtins and such `let`s (a *fixed* slot) has one value per
//! frame, and the evaluator may take it from an earlier candidate with an
//! equal frame instead of computing it again: exact, not an approximation.
//! A `let rec`'s slots and a `with`'s are never fixed (a recursion's value
//! changes while it is iterated; a choice is made per candidate). The
//! choices themselves, the linearisations a `with` ranges over, are a
//! function of the frame when its set and order read only fixed builtins
//! and slots (`with_fixed`), and are kept with the frame's slots.
//!
//! `Frames` keeps the fixed slots' values of the last few frames met,
//! found by a hash of the frame and confirmed by comparing it whole.
//!
//! One level down, a slot that reads no co (no `co`, `fr` or what is made
//! of them, and only such slots) is *co-free*: its value is a function of
//! the frame, the reads' values, rf and the `with`'s choice, the same
//! argument with rf and the choice added to what the slot may read. The
//! lazy search judges each co position of a write on a part whose events
//! and rf are those of the position before (under PTX, over half of the
//! parts of a spin lock of exchanges), so `Frames` also keeps the co-free
//! slots of the last few such keys, compared whole.

use super::builtins::{Builtin, Value};
use super::compile::{Ir, Model, Step};
use crate::engine::axiomatic::execution::{Event, Execution, Kind};
use crate::engine::axiomatic::relation::Rel;

/// Which of `model`'s slots are fixed (see the module): a `let` over fixed
/// builtins and fixed slots only, as the greatest solution (the `let`s do
/// not depend on themselves, so it is the only one).
pub fn fixed(model: &Model) -> Vec<bool> {
    let body = |s: usize| match model.defined_by.get(s).and_then(|&i| model.steps.get(i)) {
        Some(Step::Let(_, body)) => Some(body),
        _ => None,
    };
    let mut fixed: Vec<bool> = (0..model.slots).map(|s| body(s).is_some()).collect();
    loop {
        let mut changed = false;
        for s in 0..model.slots {
            if !fixed[s] {
                continue;
            }
            if let Some(b) = body(s) {
                if !reads_only_fixed(b, &fixed) {
                    fixed[s] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return fixed;
        }
    }
}

/// Which of `model`'s slots are co-free (see the module): a `let` over
/// builtins other than co and what is made of it (`co`, `fr`, `coe`,
/// `coi`, `fre`, `fri`) and over co-free slots only, and the `with`'s slot
/// (its value is the choice, which is part of the key); the greatest
/// solution, as in `fixed`. Every fixed slot is co-free.
pub fn co_free(model: &Model) -> Vec<bool> {
    let step = |s: usize| model.defined_by.get(s).and_then(|&i| model.steps.get(i));
    let mut free: Vec<bool> = (0..model.slots)
        .map(|s| match step(s) {
            Some(Step::Let(t, _)) => *t == s,
            Some(Step::With { slot, .. }) => *slot == s,
            _ => false,
        })
        .collect();
    loop {
        let mut changed = false;
        for s in 0..model.slots {
            if let (true, Some(Step::Let(_, b))) = (free[s], step(s)) {
                if !reads_only(b, &free, |b| b.fixed() || b.reads_rf_only()) {
                    free[s] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return free;
        }
    }
}

/// Whether the model's `with` (if any) orders a set by a relation that
/// both read only fixed builtins and fixed slots: then its choices (the
/// linearisations) are a function of the frame too, and `Frames` keeps
/// them with the frame's slots. PTX's `linearisations(FSC, [FSC] ; po ;
/// [FSC])` is one: its fences and their program order are the frame's.
pub fn with_fixed(model: &Model) -> bool {
    let fixed = &model.fixed;
    model.steps.iter().any(|s| match s {
        Step::With { set, order, .. } => {
            reads_only_fixed(set, fixed) && reads_only_fixed(order, fixed)
        }
        _ => false,
    })
}

/// Whether every leaf of `ir` is a fixed builtin, a fixed slot or empty.
fn reads_only_fixed(ir: &Ir, fixed: &[bool]) -> bool {
    reads_only(ir, fixed, Builtin::fixed)
}

/// Whether every leaf of `ir` is a builtin `builtin` admits, a slot
/// `slots` marks, or empty.
fn reads_only(ir: &Ir, slots: &[bool], builtin: impl Fn(Builtin) -> bool) -> bool {
    let mut stack = vec![ir];
    while let Some(ir) = stack.pop() {
        match ir {
            Ir::Builtin(b) if !builtin(*b) => return false,
            Ir::Slot(t) if !slots.get(*t).copied().unwrap_or(false) => return false,
            _ => stack.extend(ir.children()),
        }
    }
    true
}

/// How many frames `Frames` keeps: a program's candidates take a few paths
/// per thread, and a bounded cache keeps memory bounded on large ones.
const KEPT: usize = 64;

/// The fixed slots' values on the frames met so far (see the module).
#[derive(Default)]
pub struct Frames {
    entries: Vec<Entry>,
    /// Where the next entry goes once `KEPT` are kept (oldest first).
    next: usize,
    /// How many executions found their frame kept.
    found: usize,
    /// The entry found or made last: tried first, before hashing (the
    /// lazy search judges many parts of one frame in a row).
    recent: usize,
    /// The next `Entry::id`.
    ids: u64,
    /// An evaluation's slots, returned for the next to reuse.
    spare: Vec<Option<Value>>,
    /// The last execution a refutation judged whole without refuting it or
    /// meeting an error (`Model::refutes_framed`), with every slot that
    /// evaluation computed (fixed ones may have moved to their frame's
    /// entry). A slot's value is a function of the model and the execution
    /// alone (a model with a `with` excepted: its slot and what reads it
    /// depend on the choice too, so none is kept for it), so
    /// `Model::judge_framed`, handed an equal execution (the lazy search's
    /// complete candidate, right after its last part was checked), starts
    /// from these values instead of computing them again: the key is the
    /// whole execution, compared in full, and the model, which a `Frames`
    /// never changes.
    last: Option<(Execution, Vec<Option<Value>>)>,
    /// The co-free slots (not fixed) of the last few keys met (see the
    /// module), oldest replaced first.
    by_rf: Vec<RfEntry>,
    next_rf: usize,
    /// How many evaluations found their key's co-free slots kept.
    found_rf: usize,
}

/// How many keys of co-free slots `Frames` keeps: the search backs up
/// from a write's co position to the part before it, a few keys away.
const KEPT_RF: usize = 4;

struct RfEntry {
    /// The frame's `Entry::id`.
    frame: u64,
    /// The reads' and writes' values, event by event, and rf.
    values: Vec<i64>,
    rf: Rel,
    /// The `with`'s choice the slots were computed under.
    choice: Option<Rel>,
    /// By slot: the co-free slots' values that are not fixed.
    slots: Vec<Option<Value>>,
}

struct Entry {
    hash: u64,
    /// Which frame this is, never reused (`RfEntry::frame`).
    id: u64,
    /// An execution with this frame (its rf, co and values are ignored).
    frame: Execution,
    /// By slot: the fixed slots' values computed so far on this frame.
    slots: Vec<Option<Value>>,
    /// The `with`'s choices on this frame, once computed (only when
    /// `Model::with_fixed`).
    choices: Option<Vec<Option<Rel>>>,
}

impl Frames {
    /// The fixed slots' values known for `x`'s frame, and where they are
    /// kept (to add those the next evaluation computes).
    pub(super) fn find(&mut self, x: &Execution) -> (usize, &[Option<Value>]) {
        if self
            .entries
            .get(self.recent)
            .is_some_and(|e| same_frame(&e.frame, x))
        {
            self.found += 1;
            return (self.recent, &self.entries[self.recent].slots);
        }
        let hash = frame_hash(x);
        if let Some(i) = self
            .entries
            .iter()
            .position(|e| e.hash == hash && same_frame(&e.frame, x))
        {
            self.found += 1;
            self.recent = i;
            return (i, &self.entries[i].slots);
        }
        self.ids += 1;
        let entry = Entry {
            hash,
            id: self.ids,
            frame: x.clone(),
            slots: Vec::new(),
            choices: None,
        };
        let i = if self.entries.len() < KEPT {
            self.entries.push(entry);
            self.entries.len() - 1
        } else {
            let i = self.next;
            self.entries[i] = entry;
            self.next = (i + 1) % KEPT;
            i
        };
        self.recent = i;
        (i, &self.entries[i].slots)
    }

    /// The fixed slots' values kept for entry `i` (from `find`).
    pub(super) fn seed(&self, i: usize) -> &[Option<Value>] {
        self.entries.get(i).map_or(&[], |e| &e.slots)
    }

    /// The `with`'s choices kept for entry `i`, if computed.
    pub(super) fn choices(&self, i: usize) -> Option<&[Option<Rel>]> {
        self.entries.get(i)?.choices.as_deref()
    }

    /// Keeps the `with`'s choices for entry `i` (a model whose `with` is
    /// `with_fixed` only: they are the same on every execution there).
    pub(super) fn keep_choices(&mut self, i: usize, choices: &[Option<Rel>]) {
        if let Some(e) = self.entries.get_mut(i) {
            e.choices = Some(choices.to_vec());
        }
    }

    /// The slots an earlier evaluation gave back, for the next to reuse.
    pub(super) fn spare(&mut self) -> Vec<Option<Value>> {
        std::mem::take(&mut self.spare)
    }

    /// Gives an evaluation's slots back (their values are dropped when
    /// they are reused).
    pub(super) fn put_back(&mut self, slots: Vec<Option<Value>>) {
        self.spare = slots;
    }

    /// Keeps `slots`, computed without error for `x`, as the last
    /// evaluation's (see `last`); the slots kept before are the next spare.
    pub(super) fn keep_last(&mut self, x: Execution, slots: Vec<Option<Value>>) {
        if let Some((_, old)) = self.last.replace((x, slots)) {
            self.spare = old;
        }
    }

    /// The slots kept by `keep_last` if they were computed for an
    /// execution equal to `x` (then they are no longer kept).
    pub(super) fn take_last(&mut self, x: &Execution) -> Option<Vec<Option<Value>>> {
        match &self.last {
            Some((kept, _)) if kept == x => self.last.take().map(|(_, slots)| slots),
            _ => None,
        }
    }

    /// Where the co-free slots of `x` under `choice` are kept: an entry
    /// with an equal key (all of `x` but co, and the choice: the frame
    /// `x` found at entry `frame` of `find`, the values and rf), or a new
    /// empty one in place of the oldest.
    pub(super) fn find_rf(&mut self, x: &Execution, frame: usize, choice: Option<&Rel>) -> usize {
        let frame = self.entries.get(frame).map_or(0, |e| e.id);
        if let Some(i) = self.by_rf.iter().position(|e| {
            e.frame == frame
                && e.choice.as_ref() == choice
                && e.rf == x.rf
                && e.values.iter().eq(x.events.iter().map(|e| &e.value))
        }) {
            self.found_rf += 1;
            return i;
        }
        if self.by_rf.len() < KEPT_RF {
            self.by_rf.push(RfEntry {
                frame,
                values: x.events.iter().map(|e| e.value).collect(),
                rf: x.rf.clone(),
                choice: choice.cloned(),
                slots: Vec::new(),
            });
            self.by_rf.len() - 1
        } else {
            let i = self.next_rf;
            self.next_rf = (i + 1) % KEPT_RF;
            let e = &mut self.by_rf[i];
            e.frame = frame;
            e.values.clear();
            e.values.extend(x.events.iter().map(|e| e.value));
            e.rf.clone_from(&x.rf);
            e.choice = choice.cloned();
            e.slots.clear();
            i
        }
    }

    /// The co-free slots kept for entry `i` (from `find_rf`).
    pub(super) fn rf_seed(&self, i: usize) -> &[Option<Value>] {
        self.by_rf.get(i).map_or(&[], |e| &e.slots)
    }

    /// Moves the co-free slots that are not fixed from `slots` (an
    /// evaluation's without error, after `keep`) to entry `i`.
    pub(super) fn keep_rf(&mut self, i: usize, model: &Model, slots: &mut [Option<Value>]) {
        if let Some(e) = self.by_rf.get_mut(i) {
            let marked = |marks: &[bool], s: usize| marks.get(s).copied().unwrap_or(false);
            move_marked(slots, &mut e.slots, |s| {
                marked(&model.co_free, s) && !marked(&model.fixed, s)
            });
        }
    }

    /// How many evaluations found their co-free slots kept (for tests).
    pub fn found_rf(&self) -> usize {
        self.found_rf
    }

    /// How many executions found their frame kept (for tests).
    pub fn found(&self) -> usize {
        self.found
    }

    /// Keeps the fixed slots `slots` holds (an evaluation's, after it) for
    /// the frame of entry `i`.
    pub(super) fn keep(&mut self, i: usize, model: &Model, slots: &mut [Option<Value>]) {
        if let Some(e) = self.entries.get_mut(i) {
            move_marked(slots, &mut e.slots, |s| {
                model.fixed.get(s).copied().unwrap_or(false)
            });
        }
    }
}

/// Moves each computed slot of `slots` that `marked` admits into `kept`,
/// where that slot is not kept yet.
fn move_marked(
    slots: &mut [Option<Value>],
    kept: &mut Vec<Option<Value>>,
    marked: impl Fn(usize) -> bool,
) {
    if kept.len() < slots.len() {
        kept.resize(slots.len(), None);
    }
    for (s, v) in slots.iter_mut().enumerate() {
        if v.is_some() && marked(s) && kept[s].is_none() {
            kept[s] = v.take();
        }
    }
}

/// A hash of `x`'s frame: equal frames hash alike (word by word, as
/// rustc's FxHasher: the standard SipHash was a sixteenth of a table).
fn frame_hash(x: &Execution) -> u64 {
    let mut h = 0u64;
    let mut mix = |w: u64| h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    let (events, rels) = frame(x);
    for (thread, kind, mode, scope, cell, vk) in events {
        mix(thread.map_or(u64::MAX, u64::from));
        mix(kind as u64 | (mode.map_or(0xff, |m| m as u64) << 8) | ((scope as u64) << 16));
        mix(cell as u64);
        mix(u64::from(vk.class)
            | u64::from(vk.semsc) << 8
            | u64::from(vk.av) << 16
            | u64::from(vk.vis) << 17
            | u64::from(vk.nonpriv) << 18
            | u64::from(vk.semav) << 19
            | u64::from(vk.semvis) << 20);
    }
    for r in rels {
        r.rows().iter().for_each(|&w| mix(w));
    }
    h
}

/// Whether `a` and `b` have the same frame.
fn same_frame(a: &Execution, b: &Execution) -> bool {
    let ((ea, ra), (eb, rb)) = (frame(a), frame(b));
    a.events.len() == b.events.len() && ea.eq(eb) && ra == rb
}

/// What an event contributes to its frame: all but its value.
type EventFrame = (
    Option<crate::syntax::core::ThreadId>,
    Kind,
    Option<crate::syntax::ast::Mode>,
    crate::syntax::ast::Scope,
    usize,
    crate::syntax::core::Vk,
);

/// `x`'s frame: each event but its value, and every relation but rf and
/// co (`Execution::fixed`). The pattern names every field of `Event`, so a
/// field added does not compile until it is placed here, in or out.
fn frame(x: &Execution) -> (impl Iterator<Item = EventFrame> + '_, [&Rel; 9]) {
    let events = x.events.iter().map(|e| {
        let Event {
            thread,
            kind,
            mode,
            scope,
            cell,
            value: _,
            vk,
        } = *e;
        (thread, kind, mode, scope, cell, vk)
    });
    (events, x.fixed())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed_names(text: &str) -> Vec<(String, bool)> {
        let m = crate::cat::from_text("t.cat", text).expect("compiles");
        let f = fixed(&m);
        let mut out: Vec<(String, bool)> =
            m.names.iter().map(|(n, s, _)| (n.clone(), f[*s])).collect();
        out.sort();
        out
    }

    /// What reads rf or co, a recursion, or either through a `let`, is not
    /// fixed; the rest is.
    #[test]
    fn fixed_is_what_reads_neither_rf_nor_co() {
        let text = "T\nlet a = po ; [W]\nlet b = a | rf\nlet c = a ; loc\nlet d = b ; a\nlet rec e = po | (e ; po)\nlet g = e & a\nlet h = fre\nacyclic d | c | g | h as x\n";
        let names = fixed_names(text);
        let get = |n: &str| names.iter().find(|(m, _)| m == n).map(|(_, f)| *f);
        assert_eq!(get("a"), Some(true));
        assert_eq!(get("c"), Some(true));
        assert_eq!(get("b"), Some(false));
        assert_eq!(get("d"), Some(false));
        assert_eq!(get("e"), Some(false));
        assert_eq!(get("g"), Some(false));
        assert_eq!(get("h"), Some(false));
    }

    /// A `with` over the frame's fences and po has the frame's choices;
    /// one whose order reads co (directly or through a `let`), or whose
    /// set is made from rf, does not; PTX's is the first kind.
    #[test]
    fn with_fixed_is_a_with_over_the_frame() {
        let with = |set: &str, order: &str| {
            let text = format!(
                "T\nlet a = [F] ; po ; [F]\nlet b = co | a\nwith s from linearisations({set}, {order})\nacyclic s | po as x\n"
            );
            let m = crate::cat::from_text("t.cat", &text).expect("compiles");
            with_fixed(&m)
        };
        assert!(with("F", "a"));
        assert!(with("F", "[F] ; po ; [F]"));
        assert!(!with("F", "b"));
        assert!(!with("W", "co"));
        assert!(!with("domain(rf)", "a"));
        let no_with = crate::cat::from_text("t.cat", "T\nacyclic po as x\n").expect("compiles");
        assert!(!with_fixed(&no_with));
        let ptx = crate::cat::load("ptx").expect("bundled");
        assert!(with_fixed(&ptx) && ptx.with_fixed);
    }
}
