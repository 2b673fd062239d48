//! The pomset engine's side of `draw`: complete and candidate pomsets as the
//! plain `render::Picture` every diagram format renders (§1.4's
//! conventions: arrows classed by the rule that added them). `render` lays
//! out and prints; it knows nothing of `Sem` or witnesses.

use super::candidates::{candidates_visiting, Candidate};
use super::check::{OrderKind, Reason, Witness};
use super::construct::Sem;
use super::decide::outcomes_visiting;
use crate::action::{Action, Kind, Mode, Scope};
use crate::model::Model;
use crate::outcome::verdict::holds;
use crate::outcome::State;
use crate::pomset::Skeleton;
use crate::render::draw::{DrawError, DrawOptions, Drawn, Which};
use crate::render::picture::{add, layer, state_text, Arrow, Class, Label, Node, Order, Shown};
use crate::render::Picture;
use crate::syntax::core::Program;
use crate::syntax::Litmus;

/// The pictures `opts.which` and `opts.outcome` choose, in search order.
pub fn pictures(
    lit: &Litmus,
    model: &Model,
    opts: &DrawOptions,
) -> Result<Vec<Picture>, DrawError> {
    pictures_counted(lit, model, opts).map(|d| d.pictures)
}

/// As `pictures`, at most `opts.max_pictures` of them, with how many there
/// were in all.
pub fn pictures_counted(
    lit: &Litmus,
    model: &Model,
    opts: &DrawOptions,
) -> Result<Drawn, DrawError> {
    let p = &lit.program;
    let shown = Shown {
        all_edges: opts.all_edges,
        init: opts.init,
    };
    if matches!(opts.which, Which::Candidates | Which::Incomplete) {
        if opts.outcome.is_some() {
            return Err(DrawError::OutcomeOfCandidates);
        }
        return candidate_pictures(lit, model, opts, shown);
    }
    let room = opts.max_pictures.unwrap_or(usize::MAX);
    let mut wanted_in_all = 0usize;
    let mut pics = Vec::new();
    let mut matching = 0usize;
    let mut visit = |sem: &Sem, sk: &crate::pomset::Skeleton, w: &Witness, state: &State| {
        if opts.outcome.as_ref().is_some_and(|f| !holds(p, state, f)) {
            return;
        }
        matching += 1;
        let wanted = match opts.which {
            Which::Nth(n) => n == matching,
            _ => true,
        };
        wanted_in_all += usize::from(wanted);
        if wanted && pics.len() < room {
            pics.push(complete(sem, p, sk, w, state, shown));
        }
    };
    let found = outcomes_visiting(p, model, opts.limits, Some(&mut visit));
    let o = found.map_err(|u| DrawError::Unsupported(u.to_string()))?;
    if pics.is_empty() {
        if let Some(l) = o.limit {
            return Err(DrawError::Limit(l));
        }
        return Err(DrawError::Nothing {
            matching,
            wanted: opts.which,
            outcome: opts.outcome.is_some(),
        });
    }
    Ok(Drawn {
        pictures: pics,
        in_all: wanted_in_all,
        limit: o.limit,
    })
}

/// Candidate pomsets: every one, or those that are not complete.
fn candidate_pictures(
    lit: &Litmus,
    model: &Model,
    opts: &DrawOptions,
    shown: Shown,
) -> Result<Drawn, DrawError> {
    let p = &lit.program;
    let which = opts.which;
    let room = opts.max_pictures.unwrap_or(usize::MAX);
    let mut pics = Vec::new();
    let mut n = 0usize;
    let mut wanted_in_all = 0usize;
    let mut visit = |sem: &Sem, c: &Candidate| {
        n += 1;
        if which == Which::Candidates || !c.complete {
            wanted_in_all += 1;
            if pics.len() < room {
                pics.push(candidate(sem, p, n, c, shown));
            }
        }
    };
    let listing = candidates_visiting(p, model, opts.limits, &mut visit)
        .map_err(|u| DrawError::Unsupported(u.to_string()))?;
    if pics.is_empty() {
        if let Some(l) = listing.limit {
            return Err(DrawError::Limit(l));
        }
        return Err(DrawError::Nothing {
            matching: listing.candidates,
            wanted: which,
            outcome: false,
        });
    }
    Ok(Drawn {
        pictures: pics,
        in_all: wanted_in_all,
        limit: listing.limit,
    })
}

/// The picture of one complete pomset.
pub fn complete(
    sem: &Sem,
    p: &Program,
    sk: &Skeleton,
    w: &Witness,
    state: &State,
    shown: Shown,
) -> Picture {
    let title = format!("{}: {}", p.name, state_text(state));
    build(sem, p, sk, w, &[], title, shown)
}

/// The picture of one candidate pomset (§1.3), numbered `n`: its events
/// carry κ where κ is not a tautology, and the title says what keeps it
/// from being complete.
pub fn candidate(sem: &Sem, p: &Program, n: usize, c: &Candidate, shown: Shown) -> Picture {
    let status = if c.complete {
        "complete".to_string()
    } else {
        let mut missing = Vec::new();
        let sk = c.skeleton;
        if (0..sk.len()).any(|e| sk.labels[e].kind == Kind::Read && c.witness.rf[e].is_none()) {
            missing.push("c2b");
        }
        if c.kappa.iter().any(Option::is_some) {
            missing.push("c3");
        }
        if !c.check.is_empty() {
            missing.push("c5");
        }
        format!("not complete: {}", missing.join(", "))
    };
    let mut title = format!("{}: candidate {n} ({status})", p.name);
    for (thread, check) in c.check {
        title.push_str(&format!("; ✓ {thread}: {check}"));
    }
    build(sem, p, c.skeleton, c.witness, c.kappa, title, shown)
}

/// The picture of a pomset with rf and orders `w`; `kappa[e]` is κ(e)
/// when it is not a tautology (empty: every κ is tt).
fn build(
    sem: &Sem,
    p: &Program,
    sk: &Skeleton,
    w: &Witness,
    kappa: &[Option<String>],
    title: String,
    shown: Shown,
) -> Picture {
    let init = p.threads.len();
    let keep = |e: usize| shown.init || sk.labels[e].thread as usize != init;
    let mut threads: Vec<String> = p.threads.iter().map(|t| t.name.clone()).collect();
    if shown.init {
        threads.insert(0, "init".to_string());
    }
    let column = |a: &Action| -> usize {
        let t = a.thread as usize;
        match (shown.init, t == init) {
            (true, true) => 0,
            (true, false) => t + 1,
            _ => t,
        }
    };
    let mut order: Vec<usize> = (0..sk.len()).filter(|&e| keep(e)).collect();
    let rank = |e: usize| (0..sk.len()).filter(|&d| sk.po.has(d, e)).count();
    order.sort_by_key(|&e| (column(&sk.labels[e]), rank(e), e));
    let mut events: Vec<Node> = Vec::new();
    for &e in &order {
        let a = &sk.labels[e];
        let c = column(a);
        let row = events.iter().filter(|n| n.column == c).count();
        events.push(Node {
            id: e,
            column: c,
            row,
            kappa: kappa.get(e).cloned().flatten(),
            label: label(sem, a),
        });
    }
    let index = |e: usize| order.iter().position(|&x| x == e);
    let mut arrows: Vec<Arrow> = Vec::new();
    for k in [OrderKind::Dep, OrderKind::Sync, OrderKind::Loc] {
        let o = w.orders.get(k);
        let edges: Vec<(usize, usize)> = if shown.all_edges {
            o.edges().collect()
        } else {
            o.reduction().edges().collect()
        };
        for (a, b) in edges {
            let (Some(from), Some(to)) = (index(a), index(b)) else {
                continue;
            };
            let why = w
                .edges
                .iter()
                .find(|(kind, x, y, _)| *kind == k && *x == a && *y == b)
                .map(|&(_, _, _, r)| r);
            let (class, rule) = match why {
                Some(r) => (class_of(r), super::text::rule(r)),
                None => (Class::Implied, "closure"),
            };
            add(&mut arrows, from, to, class, rule, Some(order_of(k)));
        }
    }
    for (e, d) in w.rf.iter().enumerate() {
        let (Some(to), Some(from)) = (index(e), d.and_then(index)) else {
            continue;
        };
        let drawn = arrows
            .iter_mut()
            .find(|x| x.from == from && x.to == to && x.class == Class::Matching);
        match drawn {
            Some(x) => x.rules.insert(0, "rf".to_string()),
            None => add(&mut arrows, from, to, Class::Rf, "rf", None),
        }
    }
    arrows.sort_by_key(|x| (x.class, x.from, x.to));
    layer(&mut events, &arrows);
    Picture {
        title,
        threads,
        events,
        arrows,
    }
}

/// The class of the rule that added an edge.
fn class_of(r: Reason) -> Class {
    match r {
        Reason::Dependency => Class::Dependency,
        Reason::SyncDelays => Class::SyncDelays,
        Reason::CoDelays => Class::CoDelays,
        Reason::C6 | Reason::C7a | Reason::C8a => Class::Matching,
        Reason::C7b => Class::StrongFencing,
        Reason::C8b => Class::Blocking,
        Reason::M8a => Class::LocFromSync,
        Reason::TwoOrder => Class::TwoOrder,
        Reason::Rmw | Reason::Atomicity => Class::Rmw,
    }
}

/// The render model's name for one of the three orders.
fn order_of(k: OrderKind) -> Order {
    match k {
        OrderKind::Dep => Order::Dep,
        OrderKind::Sync => Order::Sync,
        OrderKind::Loc => Order::Loc,
    }
}

fn label(sem: &Sem, a: &Action) -> Label {
    let access = a.kind != Kind::Fence;
    Label {
        kind: a.kind,
        mode: (a.mode != Mode::Rlx || !access).then_some(a.mode),
        scope: (a.scope != Scope::Sys).then_some(a.scope),
        loc: access.then(|| {
            sem.dense_names
                .get(a.loc as usize)
                .cloned()
                .unwrap_or_else(|| "?".to_string())
        }),
        value: access.then_some(a.value),
    }
}
