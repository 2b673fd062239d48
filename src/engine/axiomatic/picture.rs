//! The cat engine's side of `pomset draw --model CAT`: candidate
//! executions (herd7-style) as the same plain `render::Picture` the pomsets
//! use, so every format draws them: events with their labels, po, rf, co, fr and rmw, the
//! relations the model `show`s, and for an inconsistent execution the
//! cycle (or pair) of the first check that fails on it, as `explain
//! --model` names it.

use super::execution::{Cells, Execution, Kind};
use super::relation::Rel;
use super::{candidates, final_state};
use crate::action;
use crate::cat::{Model, Witness};
use crate::outcome::verdict::holds;
use crate::render::draw::{DrawError, DrawOptions, Drawn, Which};
use crate::render::picture::{self, Arrow, Class, Label, Node, Picture, Shown};
use crate::syntax::core::Program;
use crate::syntax::Litmus;

/// The pictures of the candidate executions `opts.which` and `opts.outcome`
/// choose. `Nth(n)` and `Complete` want consistent executions only, and
/// take `run`'s path where it applies (`search::candidates`, which cuts
/// only parts a monotone check refutes and so visits every consistent
/// execution): each is numbered by its rank among the consistent ones
/// reaching the outcome, in that search's order, so `Nth(n)` draws the one
/// titled `execution n` and stops there. `Candidates` and `Incomplete`
/// want inconsistent ones too, so every candidate is enumerated (only the
/// thread runs that can reach the outcome, as `explain --model` does), each
/// numbered as `explain --model` numbers it.
pub fn pictures(lit: &Litmus, model: &Model, opts: &DrawOptions) -> Result<Drawn, DrawError> {
    let lowered = model.lowering.map(|l| l.apply(&lit.program));
    let p = lowered.as_ref().unwrap_or(&lit.program);
    let cells = Cells::new(p);
    let shown = Shown {
        all_edges: opts.all_edges,
        init: opts.init,
    };
    let room = opts.max_pictures.unwrap_or(usize::MAX);
    let consistent_only = matches!(opts.which, Which::Nth(_) | Which::Complete);
    let pruned = consistent_only
        .then(|| super::search::applies(p, model))
        .flatten();
    let mut count = Count::default();
    let mut pics = Vec::new();
    let mut wanted_in_all = 0usize;
    let mut error = None;
    let mut visit = |x: &Execution, regs: &[Option<i64>]| {
        let state = final_state(p, x, regs);
        if opts.outcome.as_ref().is_some_and(|f| !holds(p, &state, f)) {
            return true;
        }
        count.reaching += 1;
        let consistent = match model.judge(x) {
            Ok(j) => j.consistent(),
            Err(e) => {
                error = Some(e.render());
                return false;
            }
        };
        count.consistent += usize::from(consistent);
        let wanted = match opts.which {
            Which::Nth(n) => consistent && count.consistent == n,
            Which::Complete => consistent,
            Which::Candidates => true,
            Which::Incomplete => !consistent,
        };
        if !wanted {
            return true;
        }
        wanted_in_all += 1;
        if pics.len() < room {
            let number = if consistent_only {
                count.consistent
            } else {
                count.reaching
            };
            let title = format!(
                "{}: {}; execution {number}",
                p.name,
                picture::state_text(&state)
            );
            match execution(p, &cells, model, x, title, shown) {
                Ok(pic) => pics.push(pic),
                Err(e) => {
                    error = Some(e);
                    return false;
                }
            }
        }
        // The n-th is the only one `Nth(n)` wants.
        !matches!(opts.which, Which::Nth(_))
    };
    let seen = match &pruned {
        Some(checks) => {
            let every = crate::outcome::orbit::Classes::default();
            super::search::candidates(
                p,
                model,
                (checks, &every),
                &opts.limits,
                &mut |x, regs, _, _| visit(x, regs),
            )
        }
        None => match &opts.outcome {
            Some(prop) => {
                super::candidates_where(p, &opts.limits, super::explain::may_reach(p, prop), visit)
            }
            None => candidates(p, &opts.limits, visit),
        },
    }
    .map_err(DrawError::Unsupported)?;
    if let Some(e) = error {
        return Err(DrawError::Model(e));
    }
    if pics.is_empty() {
        if let Some(l) = seen.limit {
            return Err(DrawError::Limit(l));
        }
        return Err(DrawError::NoExecution {
            model: model.name.clone(),
            wanted: opts.which,
            outcome: opts.outcome.is_some(),
            // The pruned search does not count the candidates it cuts.
            reaching: pruned.is_none().then_some(count.reaching),
            consistent: count.consistent,
        });
    }
    Ok(Drawn {
        pictures: pics,
        in_all: wanted_in_all,
        limit: seen.limit,
    })
}

/// The candidate executions seen (reaching the outcome, if one is given).
#[derive(Default)]
struct Count {
    reaching: usize,
    consistent: usize,
}

/// The picture of one candidate execution, judged by `model`: the title
/// gets the verdict (and the failing check, by name), the arrows the
/// failing check's cycle.
pub fn execution(
    p: &Program,
    cells: &Cells,
    model: &Model,
    x: &Execution,
    title: String,
    shown: Shown,
) -> Result<Picture, String> {
    let judgement = model.explain(x).map_err(|e| e.render())?;
    let relations = model.shown(x).map_err(|e| e.render())?;
    let mut title = title;
    match judgement.failed.first() {
        None => title.push_str(&format!("; consistent under {}", model.name)),
        Some((name, w)) => {
            let failed: Vec<&str> = judgement.failed.iter().map(|(n, _)| n.as_str()).collect();
            title.push_str(&format!(
                "; inconsistent under {}: {} {}{}",
                model.name,
                failed.join(", "),
                if failed.len() > 1 { "fail" } else { "fails" },
                match w {
                    Witness::Cycle(_) if failed.len() > 1 => format!(" (cycle of {name} drawn)"),
                    Witness::Reflexive(e) if failed.len() > 1 => {
                        format!(" (the path of {name} from e{e} back to e{e} drawn)")
                    }
                    Witness::Member(e) => format!(" (e{e})"),
                    Witness::Holds => " (the negated test holds)".to_string(),
                    _ => String::new(),
                }
            ));
        }
    }
    let (events, index) = nodes(p, cells, x, shown);
    let mut arrows: Vec<Arrow> = Vec::new();
    let put = |arrows: &mut Vec<Arrow>, r: &Rel, class: Class, rule: &str, reduce: bool| {
        let r = if reduce && !shown.all_edges {
            reduction(r)
        } else {
            r.clone()
        };
        for (a, b) in r.pairs() {
            if let (Some(from), Some(to)) = (index[a], index[b]) {
                if from != to {
                    picture::add(arrows, from, to, class, rule, None);
                }
            }
        }
    };
    let fr = x.rf.inverse().seq(&x.co);
    // Only the fr edges to a read's next write in co, unless --all-edges.
    let fr_covering = x.rf.inverse().seq(&reduction(&x.co));
    put(&mut arrows, &x.po, Class::Po, "po", true);
    put(&mut arrows, &x.rf, Class::ReadsFrom, "rf", false);
    put(&mut arrows, &x.co, Class::Coherence, "co", true);
    let fr = if shown.all_edges { fr } else { fr_covering };
    put(&mut arrows, &fr, Class::FromReads, "fr", false);
    put(&mut arrows, &x.rmw, Class::AtomicPair, "rmw", false);
    for (name, r) in &relations {
        // The covering edges of an acyclic one (an order such as hb).
        put(&mut arrows, r, Class::Shown, name, r.is_acyclic());
    }
    if let Some((name, w)) = judgement.failed.first() {
        let steps = model.witness_steps(x, name, w).map_err(|e| e.render())?;
        for (a, b, why) in steps {
            if let (Some(from), Some(to)) = (index[a], index[b]) {
                picture::add(&mut arrows, from, to, Class::Cycle, name, None);
                picture::add(&mut arrows, from, to, Class::Cycle, &why, None);
            }
        }
    }
    arrows.sort_by_key(|x| (x.class, x.from, x.to));
    let mut events = events;
    picture::layer(&mut events, &arrows);
    Ok(Picture {
        title,
        threads: columns(p, shown),
        events,
        arrows,
    })
}

/// The column names: the threads, after `init` when it is drawn.
fn columns(p: &Program, shown: Shown) -> Vec<String> {
    let mut threads: Vec<String> = p.threads.iter().map(|t| t.name.clone()).collect();
    if shown.init {
        threads.insert(0, "init".to_string());
    }
    threads
}

/// The events to draw, sorted by column then program order, and for each
/// event of the execution its index among them (`None`: not drawn).
fn nodes(
    p: &Program,
    cells: &Cells,
    x: &Execution,
    shown: Shown,
) -> (Vec<Node>, Vec<Option<usize>>) {
    let column = |e: usize| -> Option<usize> {
        match (x.events[e].thread, shown.init) {
            (None, true) => Some(0),
            (None, false) => None,
            (Some(t), init) => Some(t as usize + usize::from(init)),
        }
    };
    let rank = |e: usize| (0..x.len()).filter(|&d| x.po.has(d, e)).count();
    let mut order: Vec<(usize, usize)> = (0..x.len())
        .filter_map(|e| column(e).map(|c| (c, e)))
        .collect();
    order.sort_by_key(|&(c, e)| (c, rank(e), e));
    let mut index = vec![None; x.len()];
    let mut events: Vec<Node> = Vec::new();
    for &(c, e) in &order {
        index[e] = Some(events.len());
        let row = events.iter().filter(|n| n.column == c).count();
        events.push(Node {
            id: e,
            column: c.min(columns(p, shown).len().saturating_sub(1)),
            row,
            kappa: None,
            label: label(cells, x, e),
        });
    }
    (events, index)
}

/// An event's label, as the pomsets' (rlx and sys left out).
fn label(cells: &Cells, x: &Execution, e: usize) -> Label {
    let ev = &x.events[e];
    let kind = match ev.kind {
        Kind::Read => action::Kind::Read,
        Kind::Write => action::Kind::Write,
        // A control barrier is drawn as a fence of its scope.
        Kind::Fence | Kind::Barrier => action::Kind::Fence,
    };
    let access = ev.kind.is_access();
    Label {
        kind,
        mode: ev.mode.filter(|&m| m != action::Mode::Rlx || !access),
        scope: (ev.scope != action::Scope::Sys).then_some(ev.scope),
        loc: access.then(|| {
            cells
                .names
                .get(ev.cell)
                .cloned()
                .unwrap_or_else(|| "?".to_string())
        }),
        value: access.then_some(ev.value),
    }
}

/// The transitive reduction of an acyclic relation (po, co): the pairs
/// with nothing in between.
fn reduction(r: &Rel) -> Rel {
    let mut out = Rel::new(r.len());
    for (a, b) in r.pairs() {
        if !(0..r.len()).any(|c| c != a && c != b && r.has(a, c) && r.has(c, b)) {
            out.add(a, b);
        }
    }
    out
}
