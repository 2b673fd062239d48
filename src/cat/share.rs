//! Common subexpressions of a compiled model, each evaluated once per
//! execution.
//!
//! Inlining a function copies its body into every call, so a model's
//! expressions repeat subexpressions that no `let` names (Vulkan's `via`
//! computes `to-av ; AVC ; (hb & D)` twice per call, each `ithb` the same
//! fences and barriers). `share` gives every compound subexpression that
//! occurs twice or more a hidden slot of its own, defined by a `let` step
//! appended after the model's steps, and puts the slot in its places.
//!
//! Exact: an expression's value is a function of the execution, the `with`
//! choice and the slots it reads (`cat::eval` has no other state), and a
//! slot is computed once and then fixed, except a `let rec`'s while its
//! fixpoint is iterated. So no subexpression that reads a `let rec`'s slot,
//! or a slot whose definition reaches one, is shared: its value may change
//! between rounds (and computing it may be where a recursion fails to
//! converge, whose error names the recursion met first). Every other one
//! has the same value wherever it occurs, and evaluating it once gives the
//! value each occurrence would have. The steps that were there keep their
//! indices (the checks' order, cheapest first, is computed before), and
//! hidden slots have no name, so `show`, `explain` and the names of a
//! cycle's edges see the model as written.
//!
//! A subexpression that occurs once gets a hidden slot too when it reads
//! less of the candidate than the expression around it: a fixed one
//! (frame only) inside one that reads rf or co, or a co-free one (rf, no
//! co) inside one that reads co (`cat::frame`); a builtin too (`loc` is
//! computed per candidate otherwise, as every builtin is). Its slot is then kept per
//! frame, or per frame and rf, where it was computed per candidate: in
//! PTX, the `morally-strong | cause | (IW * _)` of `coherence` and the
//! `([W] ; cause ; [W]) & loc` of the check `coherence`. The same argument
//! makes it exact, and such a subexpression reads no `let rec`'s slot (a
//! `let rec`'s slot is neither fixed nor co-free, nor is what reads it).

use std::collections::HashMap;

use super::compile::{Ir, Model, Step};
use super::Ty;

/// A subexpression up to equality: its node and its children's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Builtin(u16),
    Slot(usize),
    Empty(bool),
    Node(u8, usize, usize),
}

struct Sharing {
    /// Each distinct subexpression's number.
    ids: HashMap<Key, usize>,
    /// By number: occurrences, whether it may be shared, and (once made)
    /// its hidden slot.
    count: Vec<usize>,
    shareable: Vec<bool>,
    slot: Vec<Option<usize>>,
    /// Slots whose value may change while a `let rec` iterates, or whose
    /// computation reaches one.
    blocked: Vec<bool>,
    /// By number: how much of the candidate it reads (`Reads`).
    reads: Vec<Reads>,
    /// By slot (the model's, before sharing): how much its value reads.
    slot_reads: Vec<Reads>,
}

/// How much of a candidate an expression reads, least first: the frame
/// only (`cat::frame::fixed`), also rf and the `with`'s choice
/// (`cat::frame::co_free`), or also co (or a `let rec` under iteration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reads {
    Frame,
    Rf,
    Co,
}

/// Gives `model`'s repeated subexpressions hidden slots (see the module).
pub fn share(model: &mut Model) {
    let mut s = Sharing {
        ids: HashMap::new(),
        count: Vec::new(),
        shareable: Vec::new(),
        slot: Vec::new(),
        blocked: blocked(model),
        reads: Vec::new(),
        slot_reads: {
            let (fixed, free) = (super::frame::fixed(model), super::frame::co_free(model));
            (0..model.slots)
                .map(|s| match (fixed[s], free[s]) {
                    (true, _) => Reads::Frame,
                    (false, true) => Reads::Rf,
                    _ => Reads::Co,
                })
                .collect()
        },
    };
    for step in &model.steps {
        for ir in roots(step) {
            s.number(ir);
        }
    }
    let mut steps = std::mem::take(&mut model.steps);
    let mut hidden = Vec::new();
    for step in &mut steps {
        for ir in roots_mut(step) {
            *ir = s.rewrite(ir, &mut hidden, model.slots).0;
        }
    }
    for (slot, body) in hidden {
        model.defined_by.push(steps.len());
        steps.push(Step::Let(slot, body));
        model.slots = model.slots.max(slot + 1);
    }
    model.steps = steps;
    model.uses = super::compile::uses(&model.steps, &model.defined_by, model.slots);
}

/// The slots a `let rec` defines and those whose definition reads one
/// (slots are defined before they are read, so one pass in step order).
fn blocked(model: &Model) -> Vec<bool> {
    let mut out = vec![false; model.slots];
    for step in &model.steps {
        match step {
            Step::Rec { slots, .. } => slots.iter().for_each(|&(s, _)| out[s] = true),
            Step::Let(s, body) => {
                out[*s] = super::compile::slots_in(&[body])
                    .iter()
                    .any(|&t| out.get(t).copied().unwrap_or(true));
            }
            Step::Check(_) | Step::With { .. } => {}
        }
    }
    out
}

fn roots(step: &Step) -> Vec<&Ir> {
    match step {
        Step::Let(_, ir) => vec![ir],
        Step::Rec { bodies, .. } => bodies.iter().collect(),
        Step::Check(c) => vec![&c.ir],
        Step::With { set, order, .. } => vec![set, order],
    }
}

fn roots_mut(step: &mut Step) -> Vec<&mut Ir> {
    match step {
        Step::Let(_, ir) => vec![ir],
        Step::Rec { bodies, .. } => bodies.iter_mut().collect(),
        Step::Check(c) => vec![&mut c.ir],
        Step::With { set, order, .. } => vec![set, order],
    }
}

/// A node's tag and children, for its key.
fn node(ir: &Ir) -> Option<(u8, &Ir, Option<&Ir>)> {
    let (tag, a, b) = match ir {
        Ir::Builtin(_) | Ir::Slot(_) | Ir::Empty(_) => return None,
        Ir::Union(a, b) => (0, a, Some(b)),
        Ir::Inter(a, b) => (1, a, Some(b)),
        Ir::Diff(a, b) => (2, a, Some(b)),
        Ir::Seq(a, b) => (3, a, Some(b)),
        Ir::Product(a, b) => (4, a, Some(b)),
        Ir::PerScope(a, b) => (5, a, Some(b)),
        Ir::Inverse(a) => (6, a, None),
        Ir::Plus(a) => (7, a, None),
        Ir::Star(a) => (8, a, None),
        Ir::Opt(a) => (9, a, None),
        Ir::Complement(a) => (10, a, None),
        Ir::Bracket(a) => (11, a, None),
        Ir::Domain(a) => (12, a, None),
        Ir::Range(a) => (13, a, None),
        Ir::FenceRel(a) => (14, a, None),
    };
    Some((tag, a, b.map(|b| &**b)))
}

impl Sharing {
    /// The number of `ir`'s expression, each of its subexpressions counted
    /// once more.
    fn number(&mut self, ir: &Ir) -> usize {
        let (key, shareable, reads) = match node(ir) {
            None => {
                let (key, ok) = self.leaf(ir);
                (key, ok, self.leaf_reads(ir))
            }
            Some((tag, a, b)) => {
                let a = self.number(a);
                let b = b.map(|b| self.number(b));
                let ok = self.open(a) && b.is_none_or(|b| self.open(b));
                let reads = self.reads[a].max(b.map_or(Reads::Frame, |b| self.reads[b]));
                (Key::Node(tag, a, b.unwrap_or(usize::MAX)), ok, reads)
            }
        };
        let id = self.id(key, shareable, reads);
        self.count[id] += 1;
        id
    }

    /// How much of the candidate a leaf reads.
    fn leaf_reads(&self, ir: &Ir) -> Reads {
        match ir {
            Ir::Builtin(b) if b.fixed() => Reads::Frame,
            Ir::Builtin(b) if b.reads_rf_only() => Reads::Rf,
            Ir::Builtin(_) => Reads::Co,
            Ir::Slot(s) => self.slot_reads.get(*s).copied().unwrap_or(Reads::Co),
            _ => Reads::Frame,
        }
    }

    /// A leaf's key, and whether an expression may read it and be shared.
    fn leaf(&self, ir: &Ir) -> (Key, bool) {
        match ir {
            Ir::Builtin(b) => (Key::Builtin(b.code()), true),
            Ir::Slot(s) => (
                Key::Slot(*s),
                !self.blocked.get(*s).copied().unwrap_or(true),
            ),
            _ => (Key::Empty(matches!(ir, Ir::Empty(Ty::Set))), true),
        }
    }

    /// Whether an expression with this child may be shared.
    fn open(&self, id: usize) -> bool {
        self.shareable[id]
    }

    fn id(&mut self, key: Key, shareable: bool, reads: Reads) -> usize {
        let next = self.count.len();
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.count.push(0);
            self.shareable.push(shareable);
            self.slot.push(None);
            self.reads.push(reads);
        }
        id
    }

    /// `ir` with each shared subexpression replaced by its slot (made, with
    /// its definition pushed onto `hidden`, the first time), and its number.
    /// A child that reads less than its node gets a slot here too (see the
    /// module); a root, the whole of a `let`'s body or of a check, does not
    /// (giving the checks of PTX that read no co a slot made the two-thread
    /// programs of `cargo bench --bench distinguish` 7 % slower to decide,
    /// and the three-thread spin locks only 5 % faster).
    fn rewrite(&mut self, ir: &Ir, hidden: &mut Vec<(usize, Ir)>, first: usize) -> (Ir, usize) {
        let Some((tag, a, b)) = node(ir) else {
            let (key, _) = self.leaf(ir);
            return (ir.clone(), self.ids[&key]);
        };
        let (a, ia) = self.rewrite(a, hidden, first);
        let b = b.map(|b| self.rewrite(b, hidden, first));
        let id = self.ids[&Key::Node(tag, ia, b.as_ref().map_or(usize::MAX, |b| b.1))];
        let own = self.reads[id];
        let a = self.hoisted(a, ia, own, hidden, first);
        let b = b.map(|(b, ib)| self.hoisted(b, ib, own, hidden, first));
        let built = rebuild(ir, a, b);
        if self.count[id] < 2 || !self.shareable[id] {
            return (built, id);
        }
        (self.slot_for(id, built, hidden, first), id)
    }

    /// `ir` (number `id`, rewritten), or its slot when it is a compound
    /// expression that reads less than `around`, what the expression
    /// around it reads.
    fn hoisted(
        &mut self,
        ir: Ir,
        id: usize,
        around: Reads,
        hidden: &mut Vec<(usize, Ir)>,
        first: usize,
    ) -> Ir {
        let compound = node(&ir).is_some() || matches!(ir, Ir::Builtin(_));
        if !compound || self.reads[id] >= around || !self.shareable[id] {
            return ir;
        }
        self.slot_for(id, ir, hidden, first)
    }

    /// The hidden slot of expression `id`, made with `body` the first time.
    fn slot_for(&mut self, id: usize, body: Ir, hidden: &mut Vec<(usize, Ir)>, first: usize) -> Ir {
        let slot = match self.slot[id] {
            Some(s) => s,
            None => {
                let s = first + hidden.len();
                hidden.push((s, body));
                self.slot[id] = Some(s);
                s
            }
        };
        Ir::Slot(slot)
    }
}

/// `ir`'s node over new children.
fn rebuild(ir: &Ir, a: Ir, b: Option<Ir>) -> Ir {
    let a = Box::new(a);
    let b = Box::new(b.unwrap_or(Ir::Empty(Ty::Rel)));
    match ir {
        Ir::Union(..) => Ir::Union(a, b),
        Ir::Inter(..) => Ir::Inter(a, b),
        Ir::Diff(..) => Ir::Diff(a, b),
        Ir::Seq(..) => Ir::Seq(a, b),
        Ir::Product(..) => Ir::Product(a, b),
        Ir::PerScope(..) => Ir::PerScope(a, b),
        Ir::Inverse(_) => Ir::Inverse(a),
        Ir::Plus(_) => Ir::Plus(a),
        Ir::Star(_) => Ir::Star(a),
        Ir::Opt(_) => Ir::Opt(a),
        Ir::Complement(_) => Ir::Complement(a),
        Ir::Bracket(_) => Ir::Bracket(a),
        Ir::Domain(_) => Ir::Domain(a),
        Ir::Range(_) => Ir::Range(a),
        Ir::FenceRel(_) => Ir::FenceRel(a),
        Ir::Builtin(_) | Ir::Slot(_) | Ir::Empty(_) => ir.clone(),
    }
}

/// `model` with every hidden slot put back in its places (its body, in
/// turn unshared) and the hidden steps removed: the model as compiled
/// before `share`, which tests judge against the shared one.
pub fn unshare(model: &Model) -> Model {
    let hidden = |s: usize| {
        !model.names.iter().any(|(_, t, _)| *t == s)
            && matches!(
                model.defined_by.get(s).and_then(|&i| model.steps.get(i)),
                Some(Step::Let(..))
            )
    };
    let first = (0..model.slots).find(|&s| hidden(s)).unwrap_or(model.slots);
    let body = |s: usize| match model.defined_by.get(s).and_then(|&i| model.steps.get(i)) {
        Some(Step::Let(_, b)) => b.clone(),
        _ => Ir::Slot(s),
    };
    fn expand(ir: &Ir, first: usize, body: &dyn Fn(usize) -> Ir) -> Ir {
        match ir {
            Ir::Slot(s) if *s >= first => expand(&body(*s), first, body),
            _ => match node(ir) {
                None => ir.clone(),
                Some((_, a, b)) => rebuild(
                    ir,
                    expand(a, first, body),
                    b.map(|b| expand(b, first, body)),
                ),
            },
        }
    }
    let mut out = model.clone();
    out.steps.truncate(
        model
            .defined_by
            .get(first)
            .copied()
            .unwrap_or(model.steps.len()),
    );
    for step in &mut out.steps {
        for ir in roots_mut(step) {
            *ir = expand(ir, first, &body);
        }
    }
    out.slots = first;
    out.defined_by.truncate(first);
    out.uses = super::compile::uses(&out.steps, &out.defined_by, out.slots);
    out.prunable = super::monotone::prunable(&out);
    out.per_scope = super::monotone::uses_per_scope(&out);
    out.fixed = super::frame::fixed(&out);
    out.co_free = super::frame::co_free(&out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hidden slots of `m` (after its named ones), with their bodies.
    fn hidden(m: &Model) -> Vec<(usize, &Ir)> {
        let named = m.names.len();
        m.steps[m.defined_by[named]..]
            .iter()
            .filter_map(|s| match s {
                Step::Let(t, b) => Some((*t, b)),
                _ => None,
            })
            .collect()
    }

    /// A function called twice is inlined twice; its body is shared.
    #[test]
    fn an_inlined_body_gets_one_hidden_slot() {
        let text = "T\nlet f(r) = (r ; po) | (po ; r)\nlet a = f(rf) & f(rf)\nacyclic a as a\nacyclic f(rf) as b\n";
        let m = crate::cat::from_text("t.cat", text).expect("compiles");
        let named = m.names.len();
        assert!(m.slots > named, "no hidden slot in {} slots", m.slots);
        // `f(rf)` is one slot, read by `a` twice and by the check.
        let hidden: Vec<&Ir> = hidden(&m).into_iter().map(|(_, b)| b).collect();
        assert!(hidden.iter().any(|b| matches!(b, Ir::Union(..))));
        let back = unshare(&m);
        assert_eq!(back.slots, named);
        assert_eq!(back.steps.len(), m.defined_by[named]);
        assert_eq!(back.prunable, m.prunable);
    }

    /// Nothing that reads a `let rec`'s slot is shared: its value changes
    /// from round to round. (`po` in its body reads less than the body,
    /// and has a slot.)
    #[test]
    fn nothing_reading_a_recursion_is_shared() {
        let text = "T\nlet rec r = po | (r ; r ; po) | (r ; r ; po)\nacyclic r as r\n";
        let m = crate::cat::from_text("t.cat", text).expect("compiles");
        let hidden: Vec<&Ir> = hidden(&m).into_iter().map(|(_, b)| b).collect();
        let po = crate::cat::builtins::Builtin::Po;
        assert!(
            matches!(hidden[..], [Ir::Builtin(b)] if *b == po),
            "{hidden:?}"
        );
    }

    /// A subexpression that occurs once gets a slot where it reads less
    /// than the expression around it: `po ; [W]` (the frame) inside a
    /// `let` that reads rf, `rf ; po` (rf) inside a check that reads co,
    /// and the builtin `po` inside `rf ; po`; and its slot is kept per
    /// frame, or per frame and rf. `po ; po` inside a `let` of the frame
    /// only, and `co ; po` inside the check, read no less and get none.
    #[test]
    fn what_reads_less_than_around_it_gets_a_slot() {
        let text = "T\nlet a = (po ; [W]) | rf\nlet b = (po ; po) | po\nacyclic ((rf ; po) | (co ; po)) & a & b as x\n";
        let m = crate::cat::from_text("t.cat", text).expect("compiles");
        let named = m.names.len();
        let hidden = hidden(&m);
        let rf = |ir: &Ir| matches!(ir, Ir::Builtin(b) if b.reads_rf_only());
        let frame_part = hidden
            .iter()
            .find(|(_, b)| matches!(b, Ir::Seq(_, w) if matches!(**w, Ir::Bracket(_))));
        let rf_part = hidden
            .iter()
            .find(|(_, b)| matches!(b, Ir::Seq(r, _) if rf(r)));
        let (Some(&(f, _)), Some(&(r, _))) = (frame_part, rf_part) else {
            panic!("no slot for `po ; [W]` or `rf ; po` in {hidden:?}");
        };
        assert!(m.fixed[f] && m.co_free[r] && !m.fixed[r]);
        let po = hidden
            .iter()
            .find(|(_, b)| matches!(b, Ir::Builtin(b) if b.fixed()));
        assert!(po.is_some_and(|&(p, _)| m.fixed[p]), "{hidden:?}");
        assert_eq!(hidden.len(), 3, "{hidden:?}");
        let back = unshare(&m);
        assert_eq!(back.slots, named);
    }

    /// On every bundled model, the hidden slots (repeated subexpressions,
    /// and what reads less than around it, builtins too) leave which
    /// checks prune parts as they are on the model as written.
    #[test]
    fn hidden_slots_leave_the_prunable_checks_alone() {
        for (name, _) in crate::cat::BUNDLED {
            let m = crate::cat::load(name).expect("bundled");
            assert!(m.slots > m.names.len(), "{name}: no hidden slot");
            let back = unshare(&m);
            assert_eq!(back.prunable, m.prunable, "{name}");
            assert_eq!(back.per_scope, m.per_scope, "{name}");
            let own = |m: &Model| crate::cat::monotone::refutes_own_later_rf(m, &m.prunable);
            assert_eq!(own(&back), own(&m), "{name}");
        }
    }
}
