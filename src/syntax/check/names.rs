//! Names: locations (declared or the defaults), threads and their place
//! in the scope tree.

use super::*;

impl Checker {
    pub(super) fn declare_locations(&mut self, file: &ast::File) {
        let mut first: HashMap<String, Span> = HashMap::new();
        for decl in &file.locations {
            if let Some(prev) = first.get(decl.name.as_str()) {
                let d = Diagnostic::error(
                    format!("location `{}` is declared twice", decl.name),
                    decl.name.span,
                )
                .with_label("second declaration")
                .with_also(*prev, "first declaration");
                self.error(d);
                continue;
            }
            first.insert(decl.name.name.clone(), decl.name.span);
            let id = self.add_location(&decl.name.name);
            if let Some((addr, span)) = decl.address {
                if let Some(other) = self.locs.iter().find(|l| l.address == Some(addr)) {
                    let d = Diagnostic::error(
                        format!("address {addr} is already `{}`", other.name),
                        span,
                    )
                    .with_label("taken")
                    .with_hint("give each location its own address");
                    self.error(d);
                }
                self.locs[id as usize].address = Some(addr);
                self.literals.push((addr, span, Use::Stored));
            }
        }
        let mut seen: HashMap<String, Span> = HashMap::new();
        for entry in &file.init {
            if let Some(prev) = seen.insert(entry.loc.name.clone(), entry.span) {
                let d =
                    Diagnostic::error(format!("`{}` is initialised twice", entry.loc), entry.span)
                        .with_label("second value")
                        .with_also(prev, "first value");
                self.error(d);
            }
            let id = self
                .location(&entry.loc.name)
                .unwrap_or_else(|| self.add_location(&entry.loc.name));
            self.locs[id as usize].init = entry.value;
            self.literals.push((entry.value, entry.span, Use::Stored));
        }
    }

    pub(super) fn add_location(&mut self, name: &str) -> LocId {
        let id = self.locs.len() as LocId;
        self.locs.push(LocInfo {
            name: name.to_string(),
            address: None,
            init: 0,
        });
        self.loc_ids.insert(name.to_string(), id);
        id
    }

    /// The location a name denotes, declaring x, y, z, w on first use.
    pub(super) fn location(&mut self, name: &str) -> Option<LocId> {
        if let Some(id) = self.loc_ids.get(name) {
            return Some(*id);
        }
        DEFAULT_LOCATIONS
            .contains(&name)
            .then(|| self.add_location(name))
    }

    pub(super) fn is_location(&self, name: &str) -> bool {
        self.loc_ids.contains_key(name) || DEFAULT_LOCATIONS.contains(&name)
    }

    pub(super) fn undeclared(&mut self, name: &Ident, why: &str) {
        let d = Diagnostic::error(format!("`{name}` is used as a location but is not declared"), name.span)
            .with_label(why.to_string())
            .with_hint(format!(
                "declare it in the header: `init {{ {name} = 0 }}` or `locations {{ {name} }}` (x, y, z and w need no declaration)"
            ));
        self.error(d);
    }

    // ------------------------------------------------------------ threads

    /// Top-level threads are P0, P1, ... by position unless labelled; threads
    /// forked inside a thread take the next free numbers in textual order.
    pub(super) fn name_threads(&mut self, threads: &[ast::Thread]) {
        for (i, t) in threads.iter().enumerate() {
            let name = t
                .label
                .as_ref()
                .map_or_else(|| format!("P{i}"), |l| l.name.clone());
            self.new_thread(name, t.label.as_ref().map_or(t.span, |l| l.span), None);
        }
    }

    pub(super) fn new_thread(
        &mut self,
        name: String,
        span: Span,
        parent: Option<ThreadId>,
    ) -> ThreadId {
        if let Some(prev) = self.thread_ids.get(&name) {
            let prev_span = self.thread_spans[*prev as usize];
            let d = Diagnostic::error(format!("two threads are called `{name}`"), span)
                .with_label("second thread")
                .with_also(prev_span, "first thread")
                .with_hint("give each thread its own label");
            self.error(d);
        }
        let id = self.threads.len() as ThreadId;
        self.threads.push(ThreadInfo {
            name: name.clone(),
            parent,
            cta: 0,
            gpu: 0,
            sg: 0,
        });
        self.thread_ids.insert(name, id);
        self.thread_spans.push(span);
        id
    }

    pub(super) fn next_thread_name(&self) -> String {
        (self.threads.len()..)
            .map(|i| format!("P{i}"))
            .find(|n| !self.thread_ids.contains_key(n))
            .unwrap_or_default()
    }

    /// Definition 1.1: =cta and =gpu from the `scopes:` tree.
    pub(super) fn place_threads(&mut self, scopes: Option<&ast::ScopeNode>) {
        self.placed = vec![false; self.threads.len()];
        let Some(root) = scopes else {
            // No tree: every thread in a cta of its own, all on one gpu.
            for (i, t) in self.threads.iter_mut().enumerate() {
                t.cta = i as u32;
                t.gpu = 0;
                t.sg = i as u32;
            }
            return;
        };
        let mut counters = (0u32, 0u32, 0u32);
        self.place(root, (None, None, None), &mut counters);
        for i in 0..self.threads.len() {
            if self.placed[i] {
                continue;
            }
            self.threads[i].cta = counters.0;
            self.threads[i].gpu = counters.1;
            self.threads[i].sg = counters.2;
            counters.0 += 1;
            counters.1 += 1;
            counters.2 += 1;
            let d = Diagnostic::warning(
                format!("thread {} is not in `scopes:`", self.threads[i].name),
                self.thread_spans[i],
            )
            .with_label("gets a cta and a gpu of its own")
            .with_hint(format!(
                "list it in the tree, for example `cta {{ {} }}`",
                self.threads[i].name
            ));
            self.diags.push(d);
        }
    }

    /// Places a node of the tree inside the given gpu, cta and Vulkan
    /// subgroup (`sg`, inside a cta); `n` counts the groups made so far.
    pub(super) fn place(
        &mut self,
        node: &ast::ScopeNode,
        (gpu, cta, sg): (Option<u32>, Option<u32>, Option<u32>),
        n: &mut (u32, u32, u32),
    ) {
        match node {
            ast::ScopeNode::Thread(name) => {
                let Some(&id) = self.thread_ids.get(name.as_str()) else {
                    let names: Vec<String> = self.threads.iter().map(|t| t.name.clone()).collect();
                    let d = Diagnostic::error(format!("there is no thread `{name}`"), name.span)
                        .with_label("unknown thread")
                        .with_hint(format!("the threads are {}", names.join(", ")));
                    self.error(d);
                    return;
                };
                if self.placed[id as usize] {
                    let d =
                        Diagnostic::error(format!("thread `{name}` is placed twice"), name.span)
                            .with_label("second place")
                            .with_hint("a thread belongs to exactly one cta");
                    self.error(d);
                    return;
                }
                self.placed[id as usize] = true;
                let t = &mut self.threads[id as usize];
                t.cta = cta.unwrap_or_else(|| bump(&mut n.0));
                t.gpu = gpu.unwrap_or_else(|| bump(&mut n.1));
                t.sg = sg.unwrap_or_else(|| bump(&mut n.2));
            }
            ast::ScopeNode::Group {
                level,
                children,
                span,
            } => {
                let inside = if sg.is_some() {
                    Some("sg")
                } else if cta.is_some() {
                    Some("cta")
                } else if gpu.is_some() {
                    Some("gpu")
                } else {
                    None
                };
                let ok = match level {
                    Scope::Sys => inside.is_none(),
                    Scope::Gpu => inside.is_none(),
                    Scope::Cta => cta.is_none(),
                    Scope::Sg => sg.is_none(),
                };
                if let (false, Some(outer)) = (ok, inside) {
                    let d = Diagnostic::error(
                        format!("a {} group cannot sit inside a {outer}", level.as_str()),
                        *span,
                    )
                    .with_label("misplaced group")
                    .with_hint(if *level == Scope::Sg || outer == "sg" {
                        "nest as sys { gpu { cta { sg { P0 } } } }"
                    } else {
                        "nest as sys { gpu { cta { P0 } } }"
                    });
                    self.error(d);
                    return;
                }
                let inner = match level {
                    Scope::Sys => (None, None, None),
                    Scope::Gpu => (Some(bump(&mut n.1)), None, None),
                    Scope::Cta => (
                        Some(gpu.unwrap_or_else(|| bump(&mut n.1))),
                        Some(bump(&mut n.0)),
                        None,
                    ),
                    Scope::Sg => (
                        Some(gpu.unwrap_or_else(|| bump(&mut n.1))),
                        Some(cta.unwrap_or_else(|| bump(&mut n.0))),
                        Some(bump(&mut n.2)),
                    ),
                };
                for child in children {
                    self.place(child, inner, n);
                }
            }
        }
    }

    // ------------------------------------------------------------ statements
}
