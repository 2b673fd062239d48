//! Registers in SSA form: one core register per assignment and per `if`
//! join, the last version keeping the source name, temporaries named apart.

use super::*;

impl Checker {
    /// The register an assignment to `name` writes. The note assumes each
    /// register is assigned once (§1.1), so the desugaring renames apart
    /// (SSA): a register that already has a value on this path of this thread
    /// gets a new version; otherwise the latest version a sibling branch
    /// assigned is reused, so `if (c) { r := x; } else { r := y; }` keeps one
    /// register. Uses then resolve to the version in `env`.
    pub(super) fn assign_reg(&mut self, env: &mut Env, name: &Ident) -> RegId {
        let visible = env
            .regs
            .get(name.as_str())
            .copied()
            .filter(|&id| self.regs[id as usize].thread == env.thread);
        // The latest version is on this path exactly when it is the visible
        // one (a join or a one-sided IF leaves the newest version visible);
        // else a sibling branch made it, and no path assigns it twice. Fewer
        // versions are fewer registers for `if_closure = registers`.
        // A register's initial version (read before any assignment) is
        // never assigned: a sibling branch that reads it must see the
        // initial value, not this branch's.
        let id = match self.latest_version(env.thread, name.as_str()) {
            Some(id) if visible != Some(id) && !self.unassigned.contains(&id) => id,
            _ => self.new_version(env.thread, name.as_str()),
        };
        env.regs.insert(name.name.clone(), id);
        id
    }

    pub(super) fn latest_version(&self, thread: ThreadId, name: &str) -> Option<RegId> {
        self.versions
            .get(&(thread, name.to_string()))
            .and_then(|v| v.last().copied())
    }

    /// A new core register for source register `name`; its final name is
    /// given by `name_versions` once the thread is done.
    pub(super) fn new_version(&mut self, thread: ThreadId, name: &str) -> RegId {
        let id = self.regs.len() as RegId;
        self.regs.push(RegInfo {
            name: name.to_string(),
            thread,
            fresh: false,
            version_of: None,
        });
        self.versions
            .entry((thread, name.to_string()))
            .or_default()
            .push(id);
        id
    }

    /// The join of an `if`: a source register whose version differs between
    /// the branches gets one new version, assigned by a LET at the end of
    /// each branch from that branch's version. Returns the two LET lists.
    pub(super) fn join(
        &mut self,
        env: &mut Env,
        then_env: &Env,
        els_env: &Env,
    ) -> (Vec<core::Stmt>, Vec<core::Stmt>) {
        let mut names: Vec<&String> = then_env.regs.keys().chain(els_env.regs.keys()).collect();
        names.sort_unstable();
        names.dedup();
        let (mut then_lets, mut els_lets) = (Vec::new(), Vec::new());
        for name in names {
            let joined = match (then_env.regs.get(name), els_env.regs.get(name)) {
                (Some(&t), Some(&e)) if t != e => {
                    let j = self.new_version(env.thread, name);
                    then_lets.push(let_reg(j, t));
                    els_lets.push(let_reg(j, e));
                    j
                }
                (Some(&id), _) | (None, Some(&id)) => id,
                (None, None) => continue,
            };
            env.regs.insert(name.clone(), joined);
        }
        (then_lets, els_lets)
    }

    /// Records the versions a thread ends with: those are the registers its
    /// states and conditions name.
    pub(super) fn finish_thread(&mut self, env: &Env) {
        for (name, &id) in &env.regs {
            if self.regs[id as usize].thread == env.thread {
                self.finals.insert((env.thread, name.clone()), id);
            }
        }
    }

    /// Names the versions once every thread is done: the final version of
    /// each source register keeps its name and stays visible; earlier ones
    /// are hidden like desugaring temporaries, as `_r1`, `_r2`, ... Visible
    /// registers are then renumbered into the order of first assignment, so
    /// the states list reads as before.
    pub(super) fn name_versions(
        &mut self,
        main: Vec<(ThreadId, core::Stmt)>,
    ) -> Vec<(ThreadId, core::Stmt)> {
        self.name_temporaries();
        let mut taken: std::collections::HashSet<(ThreadId, String)> = self
            .regs
            .iter()
            .map(|r| (r.thread, r.name.clone()))
            .collect();
        let mut groups: Vec<(&(ThreadId, String), &Vec<RegId>)> = self.versions.iter().collect();
        groups.sort_unstable_by_key(|(_, v)| v.first().copied());
        let mut order: Vec<(RegId, u8, RegId)> =
            (0..self.regs.len() as RegId).map(|r| (r, 0, r)).collect();
        let mut renames = Vec::new();
        for ((thread, name), versions) in groups {
            let last = versions.last().copied().unwrap_or_default();
            let last = self
                .finals
                .get(&(*thread, name.clone()))
                .copied()
                .unwrap_or(last);
            let first = versions.first().copied().unwrap_or(last);
            order[last as usize] = (first, 0, last);
            let mut k = 0;
            for &v in versions.iter().filter(|&&v| v != last) {
                let hidden = loop {
                    k += 1;
                    let n = format!("_{name}{k}");
                    if taken.insert((*thread, n.clone())) {
                        break n;
                    }
                };
                order[v as usize] = (first, 1, v);
                renames.push((v, hidden, name.clone()));
            }
            self.reg_ids.insert((*thread, name.clone()), last);
        }
        for (v, hidden, of) in renames {
            let info = &mut self.regs[v as usize];
            info.name = hidden.clone();
            info.fresh = true;
            info.version_of = Some(of);
            self.reg_ids.insert((info.thread, hidden), v);
        }
        order.sort_unstable();
        let perm: Vec<RegId> = order.iter().map(|o| o.2).collect();
        if perm.iter().enumerate().all(|(i, &r)| i as RegId == r) {
            return main;
        }
        let mut new_id = vec![0; perm.len()];
        for (i, &old) in perm.iter().enumerate() {
            new_id[old as usize] = i as RegId;
        }
        self.regs = perm
            .iter()
            .map(|&old| self.regs[old as usize].clone())
            .collect();
        for id in self.reg_ids.values_mut() {
            *id = new_id[*id as usize];
        }
        for id in &mut self.unassigned {
            *id = new_id[*id as usize];
        }
        for root in &mut self.roots {
            root.core = renumber_expr(
                std::mem::replace(&mut root.core, core::Expr::Int(0)),
                &new_id,
            );
        }
        for f in &mut self.fadds {
            f.reg = new_id[f.reg as usize];
            f.arg = renumber_expr(std::mem::replace(&mut f.arg, core::Expr::Int(0)), &new_id);
        }
        main.into_iter()
            .map(|(t, s)| (t, renumber_stmt(s, &new_id)))
            .collect()
    }

    /// Names the temporaries `_y1`, `_y2`, ... per thread and base, skipping
    /// any name a source register of the thread has: the names are only for
    /// display (the core printer, explain, draw), and must not read as one
    /// of the user's registers there.
    pub(super) fn name_temporaries(&mut self) {
        // Names given so far count too: the 11th read of `y` and the first
        // of `y1` would both be `_y11`.
        let mut taken: std::collections::HashSet<(ThreadId, String)> = self
            .regs
            .iter()
            .filter(|r| !r.fresh)
            .map(|r| (r.thread, r.name.clone()))
            .collect();
        let mut count: HashMap<(ThreadId, String), u32> = HashMap::new();
        for &t in &self.temps {
            let (thread, base) = (
                self.regs[t as usize].thread,
                self.regs[t as usize].name.clone(),
            );
            let k = count.entry((thread, base.clone())).or_insert(0);
            let name = loop {
                *k += 1;
                let n = format!("_{base}{k}");
                if taken.insert((thread, n.clone())) {
                    break n;
                }
            };
            self.regs[t as usize].name = name;
        }
    }

    /// A temporary of the desugaring (a read of an extended expression, an
    /// RMW without a result register). Hygienic by construction: it is never
    /// entered into any name table, so no source name resolves to it, and
    /// `name_temporaries` gives it a display name no source register of its
    /// thread has.
    pub(super) fn fresh_reg(&mut self, thread: ThreadId, base: &str) -> RegId {
        let id = self.regs.len() as RegId;
        self.regs.push(RegInfo {
            name: base.to_string(),
            thread,
            fresh: true,
            version_of: None,
        });
        self.temps.push(id);
        id
    }

    // ------------------------------------------------------------ expressions

    pub(super) fn use_reg(&mut self, env: &mut Env, name: &Ident) -> RegId {
        if let Some(&id) = env.regs.get(name.as_str()) {
            return id;
        }
        let thread = self.threads[env.thread as usize].name.clone();
        let d = Diagnostic::warning(format!("register `{name}` is read before any assignment in {thread}"), name.span)
            .with_label("never assigned before this point")
            .with_hint(format!(
                "its value ranges over V; if `{name}` is a location, declare it: `locations {{ {name} }}`"
            ));
        self.diags.push(d);
        // Every path that reads the register before assigning it reads its
        // one initial version, never a version a sibling branch assigned
        // (`if (c) { r := 1; } else { s := r; }` reads the initial r).
        let initial = self
            .versions
            .get(&(env.thread, name.name.clone()))
            .and_then(|vs| vs.iter().copied().find(|v| self.unassigned.contains(v)));
        let id = match initial {
            Some(id) => id,
            None => {
                let id = self.new_version(env.thread, name.as_str());
                self.unassigned.push(id);
                self.unassigned_names.push((env.thread, name.name.clone()));
                id
            }
        };
        env.regs.insert(name.name.clone(), id);
        id
    }

    // ------------------------------------------------------------ modes
}
