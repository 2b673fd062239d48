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
}

/// Gives `model`'s repeated subexpressions hidden slots (see the module).
pub fn share(model: &mut Model) {
    let mut s = Sharing {
        ids: HashMap::new(),
        count: Vec::new(),
        shareable: Vec::new(),
        slot: Vec::new(),
        blocked: blocked(model),
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
        let (key, shareable) = match node(ir) {
            None => self.leaf(ir),
            Some((tag, a, b)) => {
                let a = self.number(a);
                let b = b.map(|b| self.number(b));
                let ok = self.open(a) && b.is_none_or(|b| self.open(b));
                (Key::Node(tag, a, b.unwrap_or(usize::MAX)), ok)
            }
        };
        let id = self.id(key, shareable);
        self.count[id] += 1;
        id
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

    fn id(&mut self, key: Key, shareable: bool) -> usize {
        let next = self.count.len();
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.count.push(0);
            self.shareable.push(shareable);
            self.slot.push(None);
        }
        id
    }

    /// `ir` with each shared subexpression replaced by its slot (made, with
    /// its definition pushed onto `hidden`, the first time), and its number.
    fn rewrite(&mut self, ir: &Ir, hidden: &mut Vec<(usize, Ir)>, first: usize) -> (Ir, usize) {
        let Some((tag, a, b)) = node(ir) else {
            let (key, _) = self.leaf(ir);
            return (ir.clone(), self.ids[&key]);
        };
        let (a, ia) = self.rewrite(a, hidden, first);
        let b = b.map(|b| self.rewrite(b, hidden, first));
        let id = self.ids[&Key::Node(tag, ia, b.as_ref().map_or(usize::MAX, |b| b.1))];
        let built = rebuild(ir, a, b.map(|b| b.0));
        if self.count[id] < 2 || !self.shareable[id] {
            return (built, id);
        }
        let slot = match self.slot[id] {
            Some(s) => s,
            None => {
                let s = first + hidden.len();
                hidden.push((s, built));
                self.slot[id] = Some(s);
                s
            }
        };
        (Ir::Slot(slot), id)
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

    /// A function called twice is inlined twice; its body is shared.
    #[test]
    fn an_inlined_body_gets_one_hidden_slot() {
        let text = "T\nlet f(r) = (r ; po) | (po ; r)\nlet a = f(rf) & f(rf)\nacyclic a as a\nacyclic f(rf) as b\n";
        let m = crate::cat::from_text("t.cat", text).expect("compiles");
        let named = m.names.len();
        assert!(m.slots > named, "no hidden slot in {} slots", m.slots);
        // `f(rf)` is one slot, read by `a` twice and by the check.
        let hidden: Vec<&Ir> = m.steps[m.defined_by[named]..]
            .iter()
            .filter_map(|s| match s {
                Step::Let(_, b) => Some(b),
                _ => None,
            })
            .collect();
        assert!(hidden.iter().any(|b| matches!(b, Ir::Union(..))));
        let back = unshare(&m);
        assert_eq!(back.slots, named);
        assert_eq!(back.steps.len(), m.defined_by[named]);
        assert_eq!(back.prunable, m.prunable);
    }

    /// Nothing that reads a `let rec`'s slot is shared: its value changes
    /// from round to round.
    #[test]
    fn nothing_reading_a_recursion_is_shared() {
        let text = "T\nlet rec r = po | (r ; r ; po) | (r ; r ; po)\nacyclic r as r\n";
        let m = crate::cat::from_text("t.cat", text).expect("compiles");
        assert_eq!(m.slots, m.names.len());
    }
}
