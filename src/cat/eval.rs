//! A compiled model on one candidate execution: the `let`s in order, each
//! `let rec` by iteration to its fixpoint, and the checks.

use super::builtins::{self, Value};
use super::compile::{Check, Ir, Model, Step};
use super::parse::CheckKind;
use super::{CatError, Ty};
use crate::engine::axiomatic::execution::{Execution, Kind};
use crate::engine::axiomatic::relation::{full, Rel};
use crate::syntax::diagnostic::Diagnostic;

/// The values of a model's `with` on one execution (`Model::choices`).
type Choices = Result<Vec<Option<Rel>>, CatError>;

/// Why a check fails (or a flag is raised), as evidence in the execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Witness {
    /// `acyclic r`: a cycle of r, its events in order.
    Cycle(Vec<usize>),
    /// `irreflexive r`: an event r relates to itself.
    Reflexive(usize),
    /// `empty r`: a pair of r.
    Pair(usize, usize),
    /// `empty S`: a member of S.
    Member(usize),
    /// A negated check (`~empty r`) that fails because r is empty, acyclic
    /// or irreflexive.
    Holds,
}

/// A model's verdict on one execution.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    /// The checks that fail, by name, with their evidence (only the first
    /// unless every failure was asked for).
    pub failed: Vec<(String, Witness)>,
    /// The flags raised, by name.
    pub flags: Vec<String>,
}

impl Judgement {
    pub fn consistent(&self) -> bool {
        self.failed.is_empty()
    }
}

struct Ctx<'a> {
    x: &'a Execution,
    model: &'a Model,
    slots: Vec<Option<Value>>,
    /// Fixed slots' values known for the execution's frame (`cat::frame`),
    /// read in place; a slot set here is not computed again.
    seed: &'a [Option<Value>],
    /// Co-free slots' values known for the execution's frame, values, rf
    /// and choice (`cat::frame`), read in place like `seed`.
    rf_seed: &'a [Option<Value>],
    /// Builtins computed so far, in the order first asked for: a model
    /// uses a dozen or two, and finding one here is cheaper than finding
    /// its place in `builtins::named()` (a fifth of Vulkan's time was that
    /// search).
    builtins: Vec<Value>,
    /// By `Builtin::code`: 1 + the builtin's place in `builtins`, or 0
    /// (scanning `builtins` for a code was a sixteenth of a table's time).
    placed: [u8; builtins::CODES],
    /// The first error met while evaluating (a `let rec` that does not converge).
    error: Option<CatError>,
}

impl<'a> Ctx<'a> {
    fn new(model: &'a Model, x: &'a Execution) -> Ctx<'a> {
        Ctx::reusing(model, x, Vec::new())
    }

    /// A context whose slots are `spare`'s place, emptied (an earlier
    /// context's: allocating and freeing them per candidate showed in a
    /// table's profile).
    fn reusing(model: &'a Model, x: &'a Execution, mut spare: Vec<Option<Value>>) -> Ctx<'a> {
        spare.clear();
        Ctx::resuming(model, x, spare)
    }

    /// A context whose slots are `slots`, values kept: computed earlier
    /// for an execution equal to `x` (`Frames`' `last`), without error.
    fn resuming(model: &'a Model, x: &'a Execution, mut slots: Vec<Option<Value>>) -> Ctx<'a> {
        slots.resize(model.slots, None);
        Ctx {
            x,
            model,
            slots,
            seed: &[],
            rf_seed: &[],
            builtins: Vec::new(),
            placed: [0; builtins::CODES],
            error: None,
        }
    }

    /// A builtin's value, computed once per execution.
    fn builtin(&mut self, b: builtins::Builtin) -> Value {
        let i = self.builtin_at(b);
        self.builtins[i].clone()
    }

    /// Where a builtin's value is in `builtins`, computed the first time.
    fn builtin_at(&mut self, b: builtins::Builtin) -> usize {
        let code = usize::from(b.code());
        if let Some(&p) = self.placed.get(code).filter(|&&p| p > 0) {
            return usize::from(p) - 1;
        }
        self.builtins.push(builtins::value(b, self.x));
        let i = self.builtins.len() - 1;
        if let (Some(p), Ok(place)) = (self.placed.get_mut(code), u8::try_from(i + 1)) {
            *p = place;
        }
        i
    }

    /// A slot's value, computing its definition the first time.
    fn slot(&mut self, s: usize) -> Value {
        self.compute(s);
        self.kept(s)
            .cloned()
            .unwrap_or_else(|| Value::Rel(Rel::new(self.x.len())))
    }

    /// Slot `s`'s value if computed, here, for the frame (`seed`) or for
    /// the frame and rf (`rf_seed`).
    fn kept(&self, s: usize) -> Option<&Value> {
        match self.slots.get(s) {
            Some(Some(v)) => Some(v),
            _ => self
                .seed
                .get(s)
                .and_then(Option::as_ref)
                .or_else(|| self.rf_seed.get(s).and_then(Option::as_ref)),
        }
    }

    /// Whether slot `s` is still to be computed.
    fn pending(&self, s: usize) -> bool {
        matches!(self.slots.get(s), Some(None))
            && !matches!(self.seed.get(s), Some(Some(_)))
            && !matches!(self.rf_seed.get(s), Some(Some(_)))
    }

    /// Computes slot `s` if it is not yet, keeping its value in `slots`
    /// (a value copied out only to be dropped was a twelfth of a table's
    /// time). A `with` slot that `Model::context` did not preset stays
    /// unset, and reads as empty.
    fn compute(&mut self, s: usize) {
        if !self.pending(s) {
            return;
        }
        self.compute_uses(s);
        let model = self.model;
        let step = model.defined_by.get(s).and_then(|&i| model.steps.get(i));
        match step {
            Some(Step::Let(_, ir)) => {
                let v = self.eval(ir);
                self.slots[s] = Some(v);
            }
            Some(step @ Step::Rec { .. }) => {
                if let Err(e) = self.rec(step) {
                    self.error.get_or_insert(e);
                }
            }
            _ => {}
        }
    }

    /// Computes the slots `s` uses that are not computed yet, used ones
    /// first, with an explicit stack: each then finds its own uses ready, so
    /// a chain of 1,500 `let`s costs no more stack than one.
    fn compute_uses(&mut self, s: usize) {
        let model = self.model;
        let uses = model.uses.get(s).map_or(&[][..], Vec::as_slice);
        if uses.iter().all(|&t| !self.pending(t)) {
            return;
        }
        let mut stack: Vec<(usize, bool)> = model
            .uses
            .get(s)
            .map_or(Vec::new(), |u| u.iter().map(|&t| (t, false)).collect());
        while let Some((t, ready)) = stack.pop() {
            if !self.pending(t) {
                continue;
            }
            if ready {
                self.compute(t);
                continue;
            }
            stack.push((t, true));
            let uses = model.uses.get(t).map_or(&[][..], Vec::as_slice);
            stack.extend(uses.iter().map(|&u| (u, false)));
        }
    }

    /// `let rec`: from empty, recomputed together until nothing changes.
    fn rec(&mut self, step: &Step) -> Result<(), CatError> {
        let Step::Rec {
            slots,
            bodies,
            span,
            file,
            max_iterations,
        } = step
        else {
            return Ok(());
        };
        let n = self.x.len();
        for &(s, ty) in slots {
            self.slots[s] = Some(empty(ty, n));
        }
        for _ in 0..*max_iterations {
            let next: Vec<Value> = bodies.iter().map(|b| self.eval(b)).collect();
            let same = slots
                .iter()
                .zip(&next)
                .all(|(&(s, _), v)| self.slots[s].as_ref() == Some(v));
            for (&(s, _), v) in slots.iter().zip(next) {
                self.slots[s] = Some(v);
            }
            if same {
                return Ok(());
            }
        }
        let d = Diagnostic::error("this recursive definition does not converge", *span)
            .with_label(format!("no fixpoint after {max_iterations} rounds"))
            .with_hint("`let rec` is computed by iteration from the empty relation; a body that removes pairs (`\\`, `~`) can oscillate");
        Err(CatError::new(&self.model.sources[*file], d))
    }

    fn check(&mut self, c: &Check) -> Result<(bool, Value), CatError> {
        let v = self.eval(&c.ir);
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        Ok((test(c.kind, &v) != c.negated, v))
    }
}

impl Model {
    /// Whether an execution is consistent, stopping at the first failing
    /// check (cheapest first); flags are reported only for consistent
    /// executions.
    pub fn judge(&self, x: &Execution) -> Result<Judgement, CatError> {
        self.for_some_choice(x, |ctx| Self::judge_in(self, ctx))
    }

    fn judge_in(&self, ctx: &mut Ctx) -> Result<Judgement, CatError> {
        let mut j = Judgement::default();
        for &i in &self.checks_by_cost {
            let Some(Step::Check(c)) = self.steps.get(i) else {
                continue;
            };
            if c.flag {
                continue;
            }
            let (passes, v) = ctx.check(c)?;
            if !passes {
                j.failed.push((c.name.clone(), witness(c, &v)));
                return Ok(j);
            }
        }
        for step in &self.steps {
            if let Step::Check(c) = step {
                if c.flag && ctx.check(c)?.0 {
                    j.flags.push(c.name.clone());
                }
            }
        }
        Ok(j)
    }

    /// `judge`, with the fixed slots' values (`cat::frame`) taken from
    /// `frames` when an execution with `x`'s frame was judged before, and
    /// kept there for the next: the same judgement, computed once per
    /// frame for what does not depend on rf and co.
    pub fn judge_framed(
        &self,
        x: &Execution,
        frames: &mut super::frame::Frames,
    ) -> Result<Judgement, CatError> {
        // The slots a refutation computed on an equal execution (`Frames`'
        // `last`): every value there is the one this evaluation would
        // compute, so the judgement is the same. Not with a `with`, whose
        // slot a refutation leaves unset.
        if self.with_step().is_none() {
            if let Some(slots) = frames.take_last(x) {
                let (i, _) = frames.find(x);
                let r = frames.find_rf(x, i, None);
                let mut ctx = Ctx::resuming(self, x, slots);
                ctx.seed = frames.seed(i);
                ctx.rf_seed = frames.rf_seed(r);
                let j = self.judge_in(&mut ctx);
                let mut slots = std::mem::take(&mut ctx.slots);
                drop(ctx);
                frames.keep(i, self, &mut slots);
                frames.put_back(slots);
                return j;
            }
        }
        self.under_choices_framed(x, frames, |choices, seed, spare, done| {
            self.for_some_choice_seeded(x, choices, seed, spare, |ctx| self.judge_in(ctx), done)
        })
    }

    /// `f` (a pass over the `with`'s choices) with `x`'s frame from
    /// `frames`: the choices, its fixed slots as the seed, spare slots, and
    /// a `done` that takes each context's slots. A `with`'s slot is never
    /// fixed, nor is what reads it: the fixed slots are the same under
    /// every choice, and are kept from the first. The choices themselves
    /// are the frame's when the `with` is `with_fixed`, and are then
    /// computed once per frame.
    fn under_choices_framed<T>(
        &self,
        x: &Execution,
        frames: &mut super::frame::Frames,
        f: impl FnOnce(
            Choices,
            &[Option<Value>],
            Vec<Option<Value>>,
            &mut dyn FnMut(Vec<Option<Value>>),
        ) -> T,
    ) -> T {
        let spare = frames.spare();
        let (i, _) = frames.find(x);
        let choices = self.frame_choices(x, frames, i);
        let seed = frames.seed(i);
        let mut computed = None;
        let out = f(choices, seed, spare, &mut |slots| {
            computed.get_or_insert(slots);
        });
        if let Some(mut slots) = computed {
            frames.keep(i, self, &mut slots);
            frames.put_back(slots);
        }
        out
    }

    /// The `with`'s choices on `x`, whose frame is entry `i` of `frames`:
    /// kept there when they are the frame's (`with_fixed`).
    fn frame_choices(&self, x: &Execution, frames: &mut super::frame::Frames, i: usize) -> Choices {
        match frames.choices(i) {
            Some(kept) => Ok(kept.to_vec()),
            None => {
                let choices = self.choices(x);
                if let (true, Ok(c)) = (self.with_fixed, &choices) {
                    frames.keep_choices(i, c);
                }
                choices
            }
        }
    }

    /// `refutes`, with `frames` as in `judge_framed`; when `x` is not
    /// refuted and no error was met, its slots are kept with it for a
    /// `judge_framed` of an equal execution (`Frames`' `last`). Each
    /// choice's evaluation starts from the fixed slots of `x`'s frame and
    /// the co-free slots of `x` but co under that choice (`cat::frame`),
    /// and leaves those it computed there.
    pub fn refutes_framed(
        &self,
        x: &Execution,
        checks: &[usize],
        frames: &mut super::frame::Frames,
    ) -> bool {
        let with = self.with_step().is_some();
        let (i, _) = frames.find(x);
        let choices = self.frame_choices(x, frames, i);
        // With no choice at all on the part, nothing is refuted (see
        // `refutes_every_choice`).
        let choices = match choices {
            Ok(c) if !c.is_empty() => c,
            _ => return false,
        };
        let mut spare = frames.spare();
        for choice in choices {
            let r = frames.find_rf(x, i, choice.as_ref());
            let mut ctx = self.context_reusing(x, choice, spare);
            ctx.seed = frames.seed(i);
            ctx.rf_seed = frames.rf_seed(r);
            let verdict = Self::refutes_checked(self, &mut ctx, checks);
            let mut slots = std::mem::take(&mut ctx.slots);
            drop(ctx);
            frames.keep(i, self, &mut slots);
            if verdict.is_some() {
                frames.keep_rf(r, self, &mut slots);
            }
            match verdict {
                // Judged under each choice: no `last` is kept with a
                // `with`, whose slot a judgement recomputes.
                Some(true) => spare = slots,
                Some(false) if !with => {
                    frames.keep_last(x.clone(), slots);
                    return false;
                }
                _ => {
                    frames.put_back(slots);
                    return false;
                }
            }
        }
        frames.put_back(spare);
        true
    }

    /// Whether one of `checks` (from `monotone::prunable`) fails on a
    /// partial candidate under every choice of the model's `with`, so on
    /// each of its completions. An error (a `let rec` that does not
    /// converge on the part, too many choices) refutes nothing.
    pub fn refutes(&self, x: &Execution, checks: &[usize]) -> bool {
        self.refutes_every_choice(x, checks, self.choices(x), &[], Vec::new(), |_| {})
    }

    /// `refutes`, each context reading the frame's fixed slots from `seed`,
    /// the first taking `spare`'s place; `done` gets each context's slots.
    /// With no choice at all on the part, nothing is refuted: the `with`'s
    /// order may be cyclic on the part only (a check that does not read the
    /// `with` is prunable even when its order is not monotone).
    fn refutes_every_choice(
        &self,
        x: &Execution,
        checks: &[usize],
        choices: Choices,
        seed: &[Option<Value>],
        mut spare: Vec<Option<Value>>,
        mut done: impl FnMut(Vec<Option<Value>>),
    ) -> bool {
        let choices = match choices {
            Ok(c) if !c.is_empty() => c,
            _ => return false,
        };
        for choice in choices {
            let mut ctx = self.context_reusing(x, choice, std::mem::take(&mut spare));
            ctx.seed = seed;
            let verdict = Self::refutes_checked(self, &mut ctx, checks);
            done(std::mem::take(&mut ctx.slots));
            if verdict != Some(true) {
                return false;
            }
        }
        true
    }

    /// `refutes_in`, `None` when an error stopped it (the slots may then
    /// hold a recursion's unfinished iterate).
    fn refutes_checked(&self, ctx: &mut Ctx, checks: &[usize]) -> Option<bool> {
        for &i in checks {
            let Some(Step::Check(c)) = self.steps.get(i) else {
                continue;
            };
            match ctx.check(c) {
                Ok((false, _)) => return Some(true),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        ctx.error.is_none().then_some(false)
    }

    /// Every failing check, in the model's order, with evidence (for `explain`).
    pub fn explain(&self, x: &Execution) -> Result<Judgement, CatError> {
        self.for_some_choice(x, |ctx| Self::explain_in(self, ctx))
    }

    fn explain_in(&self, ctx: &mut Ctx) -> Result<Judgement, CatError> {
        let mut j = Judgement::default();
        for step in &self.steps {
            let Step::Check(c) = step else {
                continue;
            };
            let (passes, v) = ctx.check(c)?;
            match (c.flag, passes) {
                (true, true) => j.flags.push(c.name.clone()),
                (false, false) => j.failed.push((c.name.clone(), witness(c, &v))),
                _ => {}
            }
        }
        if !j.consistent() {
            j.flags.clear();
        }
        Ok(j)
    }

    /// The value of each `show`n name (for `draw`), relations only.
    pub fn shown(&self, x: &Execution) -> Result<Vec<(String, Rel)>, CatError> {
        let mut ctx = self.context(x, self.choice_for(x)?);
        let out = self
            .shown
            .iter()
            .map(|(n, ir)| match ctx.eval(ir) {
                Value::Rel(r) => (n.clone(), r),
                Value::Set(s) => (n.clone(), Rel::identity(x.len(), s)),
            })
            .collect();
        ctx.error.map_or(Ok(out), Err)
    }

    /// The model's named relations (its `let`s, in order) that contain the
    /// pair `(a, b)`: what an edge of a failing cycle is made of.
    pub fn names_of(
        &self,
        x: &Execution,
        pairs: &[(usize, usize)],
    ) -> Result<Vec<Vec<String>>, CatError> {
        let mut ctx = self.context(x, self.choice_for(x)?);
        let values: Vec<(String, Value)> = self
            .names
            .iter()
            .map(|(n, slot, _)| (n.clone(), ctx.slot(*slot)))
            .collect();
        if let Some(e) = ctx.error {
            return Err(e);
        }
        Ok(pairs
            .iter()
            .map(|&(a, b)| {
                values
                    .iter()
                    .filter(|(_, v)| matches!(v, Value::Rel(r) if r.has(a, b)))
                    .map(|(n, _)| n.clone())
                    .collect()
            })
            .collect())
    }
}

/// The judgement when a `with` has no choice at all: a failure named after
/// the `with`.
fn no_choice() -> Judgement {
    Judgement {
        failed: vec![("with".to_string(), Witness::Holds)],
        flags: Vec::new(),
    }
}

/// The most total orders a `with ... from linearisations` may range over
/// in one execution (7! = 5040).
pub const MAX_LINEARISATIONS: usize = 5040;

impl Model {
    /// The model's flags' names, in its order.
    fn flag_names(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().filter_map(|s| match s {
            Step::Check(c) if c.flag => Some(c.name.as_str()),
            _ => None,
        })
    }

    /// The model's `with` step, if any.
    fn with_step(&self) -> Option<&Step> {
        self.steps.iter().find(|s| matches!(s, Step::With { .. }))
    }

    /// A context with the `with` slot (if any) set to `choice`.
    fn context<'a>(&'a self, x: &'a Execution, choice: Option<Rel>) -> Ctx<'a> {
        self.context_reusing(x, choice, Vec::new())
    }

    /// `context`, its slots in `spare`'s place (`Ctx::reusing`).
    fn context_reusing<'a>(
        &'a self,
        x: &'a Execution,
        choice: Option<Rel>,
        spare: Vec<Option<Value>>,
    ) -> Ctx<'a> {
        let mut ctx = Ctx::reusing(self, x, spare);
        if let (Some(Step::With { slot, .. }), Some(r)) = (self.with_step(), choice) {
            ctx.slots[*slot] = Some(Value::Rel(r));
        }
        ctx
    }

    /// Every value of the model's `with` on `x`: `[None]` when there is no
    /// `with`; the linearisations otherwise (none if the order is cyclic).
    fn choices(&self, x: &Execution) -> Result<Vec<Option<Rel>>, CatError> {
        let Some(Step::With {
            set,
            order,
            span,
            file,
            ..
        }) = self.with_step()
        else {
            return Ok(vec![None]);
        };
        let mut ctx = Ctx::new(self, x);
        let events = ctx.set(set);
        let base = ctx.rel(order);
        if let Some(e) = ctx.error.take() {
            return Err(e);
        }
        let mut out = Vec::new();
        let mut prefix = Vec::new();
        if !linearise(&base, events, &mut prefix, &mut out) {
            let d = Diagnostic::error("too many linearisations", *span).with_label(format!(
                "more than {MAX_LINEARISATIONS} total orders in one execution"
            ));
            return Err(CatError::new(&self.sources[*file], d));
        }
        Ok(out.into_iter().map(Some).collect())
    }

    /// `f` under each choice of the `with` until one is consistent: that
    /// judgement, else the first one's (or, with no choice at all, a
    /// failure named after the `with`). A consistent execution's flags are
    /// those raised under some choice it is consistent under (herd7 counts
    /// each choice as an execution of its own), so a model with flags
    /// judges every choice of a consistent execution; the flags are then
    /// independent of the order the choices are tried in.
    fn for_some_choice(
        &self,
        x: &Execution,
        f: impl Fn(&mut Ctx) -> Result<Judgement, CatError>,
    ) -> Result<Judgement, CatError> {
        self.for_some_choice_seeded(x, self.choices(x), &[], Vec::new(), f, |_| {})
    }

    /// `for_some_choice`, each context reading the frame's fixed slots
    /// from `seed`, the first taking `spare`'s place for its slots
    /// (`Ctx::reusing`); `done` gets each context's slots after `f`.
    fn for_some_choice_seeded(
        &self,
        x: &Execution,
        choices: Choices,
        seed: &[Option<Value>],
        mut spare: Vec<Option<Value>>,
        f: impl Fn(&mut Ctx) -> Result<Judgement, CatError>,
        mut done: impl FnMut(Vec<Option<Value>>),
    ) -> Result<Judgement, CatError> {
        let flags = self.flag_names().count();
        let mut first = None;
        let mut found: Option<Judgement> = None;
        for choice in choices? {
            // Every flag raised: no later choice adds one.
            if found.as_ref().is_some_and(|k| k.flags.len() >= flags) {
                break;
            }
            let mut ctx = self.context_reusing(x, choice, std::mem::take(&mut spare));
            ctx.seed = seed;
            let j = f(&mut ctx);
            done(std::mem::take(&mut ctx.slots));
            let j = j?;
            match &mut found {
                Some(k) if j.consistent() => {
                    for flag in j.flags {
                        if !k.flags.contains(&flag) {
                            k.flags.push(flag);
                        }
                    }
                }
                Some(_) => {}
                None if j.consistent() && flags == 0 => return Ok(j),
                None if j.consistent() => found = Some(j),
                None => {
                    first.get_or_insert(j);
                }
            }
        }
        if let Some(mut k) = found {
            // In the model's order, whichever choice raised each.
            let order: Vec<&str> = self.flag_names().collect();
            k.flags
                .sort_by_key(|f| order.iter().position(|o| o == f).unwrap_or(usize::MAX));
            return Ok(k);
        }
        Ok(first.unwrap_or_else(no_choice))
    }

    /// The choice `explain` and `draw` show: the first under which `x` is
    /// consistent, else the first.
    fn choice_for(&self, x: &Execution) -> Result<Option<Rel>, CatError> {
        let choices = self.choices(x)?;
        for c in &choices {
            if self.judge_in(&mut self.context(x, c.clone()))?.consistent() {
                return Ok(c.clone());
            }
        }
        Ok(choices.into_iter().next().flatten())
    }
}

/// Every strict total order on `left` (plus `prefix`, placed first) that
/// extends `base`, pushed onto `out`; false once there would be more than
/// `MAX_LINEARISATIONS`.
fn linearise(base: &Rel, left: u64, prefix: &mut Vec<usize>, out: &mut Vec<Rel>) -> bool {
    if left == 0 {
        let mut r = Rel::new(base.len());
        for (i, &a) in prefix.iter().enumerate() {
            for &b in &prefix[i + 1..] {
                r.add(a, b);
            }
        }
        out.push(r);
        return out.len() <= MAX_LINEARISATIONS;
    }
    for e in crate::engine::axiomatic::relation::members(left) {
        let rest = left & !(1u64 << e);
        // `e` can come next if nothing left must precede it.
        let blocked = (0..base.len()).any(|a| rest & (1u64 << a) != 0 && base.has(a, e));
        if blocked {
            continue;
        }
        prefix.push(e);
        let ok = linearise(base, rest, prefix, out);
        prefix.pop();
        if !ok {
            return false;
        }
    }
    true
}

/// `per-scope(r, s)`: the pairs of `s` grouped by the narrower of their
/// two scope instances (an event's instance: its scope level and the events
/// of threads in it); the union over groups of `(r | group)+`.
fn per_scope(x: &Execution, r: &Rel, s: &Rel) -> Rel {
    use crate::syntax::ast::Scope;
    let n = x.len();
    let threaded = x.set(|e| e.thread.is_some());
    let instance = |e: usize| -> (u8, u64) {
        match x.events[e].scope {
            // Vulkan's subgroup, narrower than a cta.
            Scope::Sg => (0, x.same_sg.row(e)),
            Scope::Cta => (1, x.same_cta.row(e)),
            Scope::Gpu => (2, x.same_gpu.row(e)),
            Scope::Sys => (3, threaded),
        }
    };
    let mut groups: Vec<((u8, u64), Rel)> = Vec::new();
    for (a, b) in s.pairs() {
        let key = instance(a).min(instance(b));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.add(a, b),
            None => {
                let mut g = Rel::new(n);
                g.add(a, b);
                groups.push((key, g));
            }
        }
    }
    let mut out = r.plus();
    for (_, g) in groups {
        out = out.union(&r.union(&g).plus());
    }
    out
}

fn empty(ty: Ty, n: usize) -> Value {
    match ty {
        Ty::Set => Value::Set(0),
        Ty::Rel => Value::Rel(Rel::new(n)),
    }
}

/// Whether the check's test holds (before `~`).
fn test(kind: CheckKind, v: &Value) -> bool {
    match (kind, v) {
        (CheckKind::Empty, v) => v.is_empty(),
        (CheckKind::Acyclic, Value::Rel(r)) => r.is_acyclic(),
        (CheckKind::Irreflexive, Value::Rel(r)) => r.reflexive_at().is_none(),
        // The compiler refuses a set here.
        (_, Value::Set(_)) => true,
    }
}

fn witness(c: &Check, v: &Value) -> Witness {
    if c.negated {
        return Witness::Holds;
    }
    match (c.kind, v) {
        (CheckKind::Acyclic, Value::Rel(r)) => r.cycle().map_or(Witness::Holds, Witness::Cycle),
        (CheckKind::Irreflexive, Value::Rel(r)) => {
            r.reflexive_at().map_or(Witness::Holds, Witness::Reflexive)
        }
        (CheckKind::Empty, Value::Rel(r)) => r
            .some_pair()
            .map_or(Witness::Holds, |(a, b)| Witness::Pair(a, b)),
        (CheckKind::Empty, Value::Set(s)) if *s != 0 => {
            Witness::Member(s.trailing_zeros() as usize)
        }
        _ => Witness::Holds,
    }
}

/// Where an operand's value is: computed for it, or kept by the context.
enum Operand {
    Owned(Value),
    Slot(usize),
    Builtin(usize),
}

/// Never read: `Ctx::operand` names only slots and builtins it computed.
const EMPTY_SET: Value = Value::Set(0);

impl Ctx<'_> {
    fn eval(&mut self, ir: &Ir) -> Value {
        let n = self.x.len();
        match ir {
            Ir::Builtin(b) => self.builtin(*b),
            Ir::Slot(s) => self.slot(*s),
            Ir::Empty(ty) => empty(*ty, n),
            Ir::Union(a, b) => self.both(a, b, |x, y| x | y, Rel::union),
            Ir::Inter(a, b) => self.both(a, b, |x, y| x & y, Rel::inter),
            Ir::Diff(a, b) => self.both(a, b, |x, y| x & !y, Rel::diff),
            Ir::Seq(a, b) => {
                let (a, b) = (self.operand(a), self.operand(b));
                Value::Rel(self.as_rel(&a).seq(&self.as_rel(&b)))
            }
            Ir::Product(a, b) => {
                let (s, t) = (self.operand(a), self.operand(b));
                Value::Rel(Rel::product(n, self.as_set(&s), self.as_set(&t)))
            }
            Ir::Inverse(a) => self.unary(a, |r| Value::Rel(r.inverse())),
            Ir::Plus(a) => self.unary(a, |r| Value::Rel(r.plus())),
            Ir::Star(a) => self.unary(a, |r| Value::Rel(r.star())),
            Ir::Opt(a) => self.unary(a, |r| Value::Rel(r.opt())),
            Ir::Complement(a) => {
                let a = self.operand(a);
                match self.value(&a) {
                    Value::Set(s) => Value::Set(!s & full(n)),
                    Value::Rel(r) => Value::Rel(r.complement()),
                }
            }
            Ir::Bracket(a) => {
                let a = self.operand(a);
                Value::Rel(Rel::identity(n, self.as_set(&a)))
            }
            Ir::Domain(a) => self.unary(a, |r| Value::Set(r.domain())),
            Ir::Range(a) => self.unary(a, |r| Value::Set(r.range())),
            Ir::FenceRel(a) => {
                let a = self.operand(a);
                let fences = self.as_set(&a) & self.x.set(|e| e.kind == Kind::Fence);
                let po = &self.x.po;
                Value::Rel(po.seq(&Rel::identity(n, fences)).seq(po))
            }
            Ir::PerScope(r, s) => {
                let (r, s) = (self.operand(r), self.operand(s));
                Value::Rel(per_scope(self.x, &self.as_rel(&r), &self.as_rel(&s)))
            }
        }
    }

    fn both(
        &mut self,
        a: &Ir,
        b: &Ir,
        sets: fn(u64, u64) -> u64,
        rels: fn(&Rel, &Rel) -> Rel,
    ) -> Value {
        let (a, b) = (self.operand(a), self.operand(b));
        match (self.value(&a), self.value(&b)) {
            (Value::Set(x), Value::Set(y)) => Value::Set(sets(*x, *y)),
            (Value::Rel(x), Value::Rel(y)) => Value::Rel(rels(x, y)),
            // The compiler types both sides alike; a mix cannot arise.
            (x, _) => x.clone(),
        }
    }

    /// `f` of `a`'s value read as a relation.
    fn unary(&mut self, a: &Ir, f: impl FnOnce(&Rel) -> Value) -> Value {
        let a = self.operand(a);
        f(&self.as_rel(&a))
    }

    /// An operand's value, computed, where it is kept: a slot's or a
    /// builtin's is read in place, not copied (copies of relations out of
    /// the `let`s were a tenth of a table's time).
    fn operand(&mut self, ir: &Ir) -> Operand {
        match ir {
            Ir::Slot(s) => {
                self.compute(*s);
                if self.kept(*s).is_some() {
                    Operand::Slot(*s)
                } else {
                    // Unset: an unpreset `with`, a failed recursion.
                    Operand::Owned(Value::Rel(Rel::new(self.x.len())))
                }
            }
            Ir::Builtin(b) => Operand::Builtin(self.builtin_at(*b)),
            _ => Operand::Owned(self.eval(ir)),
        }
    }

    fn value<'v>(&'v self, o: &'v Operand) -> &'v Value {
        let found = match o {
            Operand::Owned(v) => return v,
            Operand::Slot(s) => self.kept(*s),
            Operand::Builtin(i) => self.builtins.get(*i),
        };
        found.unwrap_or(&EMPTY_SET)
    }

    fn as_rel<'v>(&'v self, o: &'v Operand) -> std::borrow::Cow<'v, Rel> {
        match self.value(o) {
            Value::Rel(r) => std::borrow::Cow::Borrowed(r),
            Value::Set(s) => std::borrow::Cow::Owned(Rel::identity(self.x.len(), *s)),
        }
    }

    fn as_set(&self, o: &Operand) -> u64 {
        match self.value(o) {
            Value::Set(s) => *s,
            Value::Rel(r) => r.domain(),
        }
    }

    fn rel(&mut self, ir: &Ir) -> Rel {
        match self.eval(ir) {
            Value::Rel(r) => r,
            Value::Set(s) => Rel::identity(self.x.len(), s),
        }
    }

    fn set(&mut self, ir: &Ir) -> u64 {
        match self.eval(ir) {
            Value::Set(s) => s,
            Value::Rel(r) => r.domain(),
        }
    }
}

/// How many nested expressions `Ctx::path` looks into before it names a
/// step by its enclosing `let` instead.
const PATH_DEPTH: usize = 64;

impl Model {
    /// The failing check `check`'s witness `w` as a path of single steps,
    /// each named by the `let`s it was found through and the finest
    /// relation that holds it (`hb/sw/rf`: an rf edge, in sw, in hb): the cycle of an
    /// `acyclic` check, a path from an event back to itself for an
    /// `irreflexive` one (`hb ; eco?` as `po`, `rf`, ..., `rb`), the pair of
    /// an `empty` one. Steps from an event to itself are left out.
    pub fn witness_steps(
        &self,
        x: &Execution,
        check: &str,
        w: &Witness,
    ) -> Result<Vec<(usize, usize, String)>, CatError> {
        let Some(c) = self.steps.iter().find_map(|s| match s {
            Step::Check(c) if c.name == check => Some(c),
            _ => None,
        }) else {
            return Ok(Vec::new());
        };
        let pairs: Vec<(usize, usize)> = match w {
            Witness::Cycle(c) => (0..c.len()).map(|i| (c[i], c[(i + 1) % c.len()])).collect(),
            Witness::Reflexive(e) => vec![(*e, *e)],
            Witness::Pair(a, b) => vec![(*a, *b)],
            Witness::Member(_) | Witness::Holds => Vec::new(),
        };
        let mut ctx = self.context(x, self.choice_for(x)?);
        let mut out = Vec::new();
        for (a, b) in pairs {
            match ctx.path(&c.ir, a, b, "", PATH_DEPTH) {
                Some(steps) => out.extend(
                    steps
                        .into_iter()
                        .map(|(a, b, n)| (a, b, if n.is_empty() { c.name.clone() } else { n })),
                ),
                None => out.push((a, b, c.name.clone())),
            }
        }
        if let Some(e) = ctx.error.take() {
            return Err(e);
        }
        out.retain(|(a, b, _)| a != b);
        Ok(out)
    }
}

impl Ctx<'_> {
    /// Why `(a, b)` is in `ir`, as steps `(from, to, name)` from `a` to `b`;
    /// `name` (the `let`s around `ir`, as `hb/sw`) names a step `ir` does
    /// not break down. `None` if the pair is not in `ir`.
    fn path(
        &mut self,
        ir: &Ir,
        a: usize,
        b: usize,
        name: &str,
        depth: usize,
    ) -> Option<Vec<(usize, usize, String)>> {
        if !self.rel(ir).has(a, b) {
            return None;
        }
        let atomic = || Some(vec![(a, b, name.to_string())]);
        if depth == 0 {
            return atomic();
        }
        let d = depth - 1;
        match ir {
            Ir::Builtin(bt) => {
                let n = builtins::named()
                    .find(|(_, t, _, _)| t == bt)
                    .map_or("", |(n, _, _, _)| *n);
                Some(vec![(a, b, within(name, n))])
            }
            Ir::Slot(s) => {
                let model = self.model;
                let def = model.defined_by.get(*s).and_then(|&i| model.steps.get(i));
                let named = model.names.iter().find(|(_, slot, _)| slot == s);
                match (named, def) {
                    // A hidden slot (`cat::share`) stands for its body in place.
                    (None, Some(Step::Let(_, body))) => self.path(body, a, b, name, depth),
                    (Some((n, _, _)), Some(Step::Let(_, body))) => {
                        self.path(body, a, b, &within(name, n), d)
                    }
                    (named, _) => Some(vec![(
                        a,
                        b,
                        named.map_or(String::new(), |(n, _, _)| within(name, n)),
                    )]),
                }
            }
            Ir::Bracket(_) => Some(Vec::new()),
            Ir::Union(x, y) => self
                .path(x, a, b, name, d)
                .or_else(|| self.path(y, a, b, name, d)),
            Ir::Opt(_) if a == b => Some(Vec::new()),
            Ir::Opt(x) => self.path(x, a, b, name, d),
            Ir::Seq(x, y) => {
                let (rx, ry) = (self.rel(x), self.rel(y));
                let c = (0..rx.len()).find(|&c| rx.has(a, c) && ry.has(c, b))?;
                let mut first = self.path(x, a, c, name, d)?;
                first.extend(self.path(y, c, b, name, d)?);
                Some(first)
            }
            Ir::Star(_) if a == b => Some(Vec::new()),
            Ir::Plus(x) | Ir::Star(x) => {
                let r = self.rel(x);
                let hops = shortest(&r, a, b)?;
                let mut out = Vec::new();
                for w in hops.windows(2) {
                    out.extend(self.path(x, w[0], w[1], name, d)?);
                }
                Some(out)
            }
            _ => atomic(),
        }
    }
}

/// `outer/inner`, or either alone when the other is empty or they agree.
fn within(outer: &str, inner: &str) -> String {
    match (outer, inner) {
        ("", i) => i.to_string(),
        (o, "") => o.to_string(),
        (o, i) if o == i || o.ends_with(&format!("/{i}")) => o.to_string(),
        (o, i) => format!("{o}/{i}"),
    }
}

/// The shortest path of at least one step from `a` to `b` in `r`, its
/// events in order (`a` first, `b` last).
fn shortest(r: &Rel, a: usize, b: usize) -> Option<Vec<usize>> {
    let n = r.len();
    let mut before: Vec<Option<usize>> = vec![None; n];
    let mut queue = std::collections::VecDeque::new();
    for c in crate::engine::axiomatic::relation::members(r.row(a)) {
        if before[c].is_none() {
            before[c] = Some(a);
            queue.push_back(c);
        }
    }
    while let Some(c) = queue.pop_front() {
        if c == b {
            let mut path = vec![b];
            let mut at = b;
            while let Some(p) = before[at] {
                path.push(p);
                if p == a {
                    break;
                }
                at = p;
            }
            path.reverse();
            return Some(path);
        }
        for d in crate::engine::axiomatic::relation::members(r.row(c)) {
            if before[d].is_none() {
                before[d] = Some(c);
                queue.push_back(d);
            }
        }
    }
    None
}
