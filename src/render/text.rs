//! A complete or candidate pomset as text: its events in the note's notation, rf, and each
//! order's covering edges with the rule that put each one there.

use std::fmt::Write;

use crate::action::{Action, Kind, Mode, Scope};
use crate::engine::pwt::candidates::Candidate;
use crate::engine::pwt::check::{OrderKind, Reason, Witness};
use crate::engine::pwt::construct::Sem;
use crate::outcome::State;
use crate::pomset::Skeleton;
use crate::syntax::core::Program;

/// The note's notation in ASCII, with the thread: `P0:Wx1`, `P1:R^acq y1`, `P0:F^sc_cta`.
pub fn label(sem: &Sem, p: &Program, a: &Action) -> String {
    let mut s = String::from(match a.kind {
        Kind::Read => "R",
        Kind::Write => "W",
        Kind::Fence => "F",
    });
    if a.mode != Mode::Rlx || a.kind == Kind::Fence {
        let _ = write!(s, "^{}", a.mode.as_str());
    }
    if a.scope != Scope::Sys {
        let _ = write!(s, "_{}", a.scope.as_str());
    }
    if a.kind != Kind::Fence {
        let loc = sem
            .dense_names
            .get(a.loc as usize)
            .map_or("?", String::as_str);
        let sep = if s.len() > 1 { " " } else { "" };
        let _ = write!(s, "{sep}{loc}{}", a.value);
    }
    let thread = if (a.thread as usize) < p.threads.len() {
        p.thread_name(a.thread).to_string()
    } else {
        "init".to_string()
    };
    format!("{thread}:{s}")
}

/// The rule's name as the note writes it.
pub fn rule(r: Reason) -> &'static str {
    match r {
        Reason::Dependency => "s3",
        Reason::SyncDelays => "s7a",
        Reason::CoDelays => "s8a",
        Reason::C6 => "c6",
        Reason::C7a => "c7a",
        Reason::C7b => "c7b",
        Reason::C8a => "c8a",
        Reason::C8b => "c8b",
        Reason::M8a => "M8a",
        Reason::TwoOrder => "§12",
        Reason::Rmw => "M9b",
        Reason::Atomicity => "M9c",
    }
}

/// One complete pomset, numbered `n`.
pub fn pomset(
    sem: &Sem,
    p: &Program,
    n: usize,
    sk: &Skeleton,
    w: &Witness,
    state: &State,
) -> String {
    let mut out = String::new();
    let show = |v: &Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
    let values: Vec<String> = state
        .regs
        .iter()
        .map(|(k, v)| format!("{k}={}", show(v)))
        .chain(state.mem.iter().map(|(k, v)| format!("[{k}]={}", show(v))))
        .collect();
    let _ = writeln!(out, "Pomset {n}: {}", values.join("; "));
    for (e, a) in sk.labels.iter().enumerate() {
        let _ = writeln!(out, "  e{e:<3} {}", label(sem, p, a));
    }
    rf_and_orders(&mut out, w);
    out
}

/// One candidate pomset, numbered `n`: events as `κ | label` (κ left out
/// when it is a tautology), ✓ when it is not, rf and the orders.
pub fn candidate(sem: &Sem, p: &Program, n: usize, c: &Candidate) -> String {
    let mut out = String::new();
    let mut missing = Vec::new();
    let sk = c.skeleton;
    let unread = (0..sk.len())
        .filter(|&e| sk.labels[e].kind == Kind::Read && c.witness.rf[e].is_none())
        .count();
    if unread > 0 {
        missing.push(format!("{unread} read(s) without rf (c2b)"));
    }
    let open = c.kappa.iter().flatten().count();
    if open > 0 {
        missing.push(format!("{open} κ not a tautology (c3)"));
    }
    if !c.check.is_empty() {
        missing.push("✓ not a tautology (c5)".to_string());
    }
    let status = if c.complete {
        "complete".to_string()
    } else {
        format!("not complete: {}", missing.join(", "))
    };
    let _ = writeln!(out, "Candidate {n} ({status})");
    for (e, a) in sk.labels.iter().enumerate() {
        let kappa = match c.kappa.get(e) {
            Some(Some(k)) => format!("{k} | "),
            _ => String::new(),
        };
        let _ = writeln!(out, "  e{e:<3} {kappa}{}", label(sem, p, a));
    }
    for (thread, check) in c.check {
        let _ = writeln!(out, "  ✓ {thread:<13} {check}");
    }
    rf_and_orders(&mut out, c.witness);
    out
}

/// rf and each order's covering edges, with the rule behind each edge.
fn rf_and_orders(out: &mut String, w: &Witness) {
    let rf: Vec<String> =
        w.rf.iter()
            .enumerate()
            .filter_map(|(e, d)| d.map(|d| format!("e{d} → e{e}")))
            .collect();
    let _ = writeln!(
        out,
        "  rf              {}",
        if rf.is_empty() {
            "—".into()
        } else {
            rf.join(", ")
        }
    );
    for (k, name) in [
        (OrderKind::Dep, "dependency ⊴"),
        (OrderKind::Sync, "sync ≤"),
        (OrderKind::Loc, "per-location ⊑"),
    ] {
        let edges: Vec<String> = w
            .orders
            .get(k)
            .reduction()
            .edges()
            .map(|(a, b)| {
                let why = w
                    .edges
                    .iter()
                    .find(|(kind, x, y, _)| *kind == k && *x == a && *y == b);
                let why = why.or_else(|| w.edges.iter().find(|(_, x, y, _)| *x == a && *y == b));
                match why {
                    Some(&(_, _, _, r)) => format!("e{a} → e{b} ({})", rule(r)),
                    None => format!("e{a} → e{b}"),
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "  {name:<15} {}",
            if edges.is_empty() {
                "—".into()
            } else {
                edges.join(", ")
            }
        );
    }
}

/// A picture for the terminal: threads side by side, then the arrows as a
/// list grouped by class. Columns are as wide as their widest event, so four
/// threads of ordinary labels fit in 80 columns.
pub fn picture(pic: &super::Picture) -> String {
    let (name, state) = pic.title.split_once(": ").unwrap_or((&pic.title, ""));
    let mut out = wrap(&format!("{name}:"), state.split("; "), ";", "");
    let cell = |n: &super::picture::Node| format!("e{} {}", n.id, n.ascii());
    let widths: Vec<usize> = (0..pic.threads.len())
        .map(|c| {
            pic.events
                .iter()
                .filter(|n| n.column == c)
                .map(|n| cell(n).chars().count())
                .chain([pic.threads[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut line = |cells: Vec<String>| {
        let mut l = String::from(" ");
        for (c, s) in cells.iter().enumerate() {
            let _ = write!(l, " {s:<w$} ", w = widths[c]);
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(pic.threads.clone());
    for row in 0..pic.rows() {
        line(
            (0..pic.threads.len())
                .map(|c| {
                    pic.events
                        .iter()
                        .find(|n| n.column == c && n.row == row)
                        .map_or(String::new(), cell)
                })
                .collect(),
        );
    }
    for class in pic.classes() {
        let name = class.name().split(" (").next().unwrap_or("");
        let edges: Vec<String> = pic
            .arrows
            .iter()
            .filter(|a| a.class == class)
            .map(|a| {
                let rules = a.rules.join(",");
                let (f, t) = (pic.events[a.from].id, pic.events[a.to].id);
                format!("e{f}→e{t} {rules}")
            })
            .collect();
        out.push_str(&wrap(
            &format!("  {name}:"),
            edges.iter().map(String::as_str),
            ";",
            "    ",
        ));
    }
    out
}

/// `head` and the items separated by `sep`, broken into lines of at most 80
/// characters; continuation lines start with `indent`.
fn wrap<'a>(head: &str, items: impl Iterator<Item = &'a str>, sep: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = head.to_string();
    let items: Vec<&str> = items.collect();
    for (i, item) in items.iter().enumerate() {
        let item = if i + 1 < items.len() {
            format!("{item}{sep}")
        } else {
            item.to_string()
        };
        let room = line.chars().count() + 1 + item.chars().count() <= 80;
        if !room && line.chars().count() > indent.len() {
            out.push_str(&line);
            out.push('\n');
            line = indent.to_string();
        } else {
            line.push(' ');
        }
        line.push_str(&item);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}
