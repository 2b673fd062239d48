//! Conditions: registers and locations named in `exists`, `forbid` and
//! `show`, resolved against the threads.

use super::*;

impl Checker {
    /// herd7's `locations [...]`: every name must resolve; all are shown anyway.
    pub(super) fn show(&mut self, terms: &[ast::CondTerm]) {
        for t in terms {
            if let ast::CondTerm::Int(_, span) = t {
                let d = Diagnostic::error("`locations [...]` lists names, not values", *span)
                    .with_label("a value")
                    .with_hint("list locations and registers: `locations [x; 1:r0;]`");
                self.error(d);
                continue;
            }
            self.term(t);
        }
    }

    pub(super) fn condition(&mut self, c: &ast::Condition) -> core::Condition {
        let prop = self.prop(&c.prop);
        let mut expectations = Vec::new();
        for e in &c.expects {
            let mut scratch = Model::default();
            let when = e
                .when
                .iter()
                .filter_map(|s| self.setting(&mut scratch, s))
                .collect();
            expectations.push(core::Expectation {
                verdict: e.verdict,
                when,
            });
        }
        core::Condition {
            quantifier: c.quantifier,
            prop,
            expectations,
            disputed: c.disputed.clone(),
        }
    }

    pub(super) fn prop(&mut self, p: &ast::Prop) -> core::Prop {
        match p {
            ast::Prop::True => core::Prop::True,
            ast::Prop::False => core::Prop::False,
            ast::Prop::Not(a) => core::Prop::Not(Box::new(self.prop(a))),
            ast::Prop::And(a, b) => core::Prop::And(Box::new(self.prop(a)), Box::new(self.prop(b))),
            ast::Prop::Or(a, b) => core::Prop::Or(Box::new(self.prop(a)), Box::new(self.prop(b))),
            ast::Prop::Cmp(a, op, b, _) => {
                let (ta, tb) = (self.term(a), self.term(b));
                // A value compared with a final memory value must lie in V;
                // register arithmetic is exact, so a register may end outside V.
                for (lit, other) in [(a, &tb), (b, &ta)] {
                    if let (ast::CondTerm::Int(v, s), core::Term::Mem(_)) = (lit, other) {
                        self.literals.push((*v, *s, Use::Stored));
                    }
                }
                core::Prop::Cmp(ta, *op, tb)
            }
        }
    }

    pub(super) fn term(&mut self, t: &ast::CondTerm) -> core::Term {
        match t {
            ast::CondTerm::Int(v, s) => {
                self.literals.push((*v, *s, Use::Arithmetic));
                core::Term::Int(*v)
            }
            ast::CondTerm::Mem(name) => match self.loc_ids.get(name.as_str()) {
                Some(&l) => core::Term::Mem(l),
                None => {
                    self.undeclared(name, "`[x]` names the final value of a location");
                    core::Term::Int(0)
                }
            },
            ast::CondTerm::MemAt(a, span) => {
                match self.locs.iter().position(|l| l.address == Some(*a)) {
                    Some(l) => core::Term::Mem(l as LocId),
                    None => {
                        let d = Diagnostic::error(format!("no location has address {a}"), *span)
                            .with_label("unknown address")
                            .with_hint("declare one: `locations { x @ 0 }`");
                        self.error(d);
                        core::Term::Int(0)
                    }
                }
            }
            ast::CondTerm::Reg { thread: None, reg } => {
                if let Some(&l) = self.loc_ids.get(reg.as_str()) {
                    // herd7 writes a location's final value as plain `x`.
                    return core::Term::Mem(l);
                }
                self.unique_reg(reg)
            }
            ast::CondTerm::Reg {
                thread: Some(thread),
                reg,
            } => self.thread_reg(thread, reg),
        }
    }

    pub(super) fn unique_reg(&mut self, reg: &Ident) -> core::Term {
        let owners: Vec<RegId> = (0..self.regs.len() as RegId)
            .filter(|&r| !self.regs[r as usize].fresh && self.regs[r as usize].name == reg.name)
            .collect();
        match owners.as_slice() {
            [only] => core::Term::Reg(*only),
            [] => {
                let d = self.unknown_reg(reg, None);
                self.error(d);
                core::Term::Int(0)
            }
            several => {
                let names: Vec<String> = several
                    .iter()
                    .map(|r| {
                        format!(
                            "{}:{}",
                            self.threads[self.regs[*r as usize].thread as usize].name, reg
                        )
                    })
                    .collect();
                let d = Diagnostic::error(
                    format!("`{reg}` names a register in several threads"),
                    reg.span,
                )
                .with_label("ambiguous")
                .with_hint(format!("say which: {}", names.join(" or ")));
                self.error(d);
                core::Term::Int(0)
            }
        }
    }

    pub(super) fn thread_reg(&mut self, thread: &Ident, reg: &Ident) -> core::Term {
        // herd7's `1:r0` names the thread by its position among the top-level threads.
        let by_number = thread
            .as_str()
            .parse::<usize>()
            .ok()
            .filter(|_| !self.thread_ids.contains_key(thread.as_str()))
            .and_then(|i| {
                self.threads
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.parent.is_none())
                    .nth(i)
                    .map(|(id, _)| id as ThreadId)
            });
        let Some(tid) = by_number.or_else(|| self.thread_ids.get(thread.as_str()).copied()) else {
            let names: Vec<String> = self.threads.iter().map(|t| t.name.clone()).collect();
            let d = Diagnostic::error(format!("there is no thread `{thread}`"), thread.span)
                .with_label("unknown thread")
                .with_hint(format!("the threads are {}", names.join(", ")));
            self.error(d);
            return core::Term::Int(0);
        };
        match self.reg_ids.get(&(tid, reg.name.clone())) {
            Some(&r) if !self.regs[r as usize].fresh => core::Term::Reg(r),
            _ => {
                let d = self.unknown_reg(reg, Some(tid));
                self.error(d);
                core::Term::Int(0)
            }
        }
    }

    pub(super) fn unknown_reg(&self, reg: &Ident, thread: Option<ThreadId>) -> Diagnostic {
        let known: Vec<&RegInfo> = self
            .regs
            .iter()
            .filter(|r| !r.fresh && thread.is_none_or(|t| r.thread == t))
            .collect();
        let message = match thread {
            Some(t) => format!("{} has no register `{reg}`", self.threads[t as usize].name),
            None => format!("no thread has a register `{reg}`"),
        };
        let near = model::closest(reg.as_str(), known.iter().map(|r| r.name.as_str()));
        let hint = match near {
            Some(n) => format!("did you mean `{n}`?"),
            None if known.is_empty() => "no thread assigns a register".to_string(),
            None => {
                let mut names: Vec<&str> = known.iter().map(|r| r.name.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                format!("the registers are {}", names.join(", "))
            }
        };
        Diagnostic::error(message, reg.span)
            .with_label("unknown register")
            .with_hint(hint)
    }
}
