//! One plain value that every diagram format renders: threads as columns,
//! events in program order, and arrows classed by why they exist (§1.4's
//! conventions).

use crate::action::{Kind, Mode, Scope};
use crate::outcome::State;

/// A pomset ready to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// The test's name and the pomset's final state, one line.
    pub title: String,
    /// Column names, left to right.
    pub threads: Vec<String>,
    /// Events, sorted by column then row.
    pub events: Vec<Node>,
    /// Arrows to draw, each pair and class once.
    pub arrows: Vec<Arrow>,
}

/// An event: where it sits and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The event's number in the pomset (`e3`).
    pub id: usize,
    /// Index into `Picture::threads`.
    pub column: usize,
    /// Position in the column, by program order.
    pub row: usize,
    /// κ(e) as text; `None` when it is tt (always, for complete pomsets).
    pub kappa: Option<String>,
    pub label: Label,
}

/// An action's parts, so each format can typeset them its own way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub kind: Kind,
    /// `None` for the default mode (rlx) of an access, as the note drops it.
    pub mode: Option<Mode>,
    /// `None` for the default scope (sys).
    pub scope: Option<Scope>,
    /// `None` for a fence.
    pub loc: Option<String>,
    pub value: Option<i64>,
}

/// Why an arrow is there (§1.4), one style per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// s3: control, data or address dependency.
    Dependency,
    /// s7a.
    SyncDelays,
    /// s8a.
    CoDelays,
    /// c6, c7a, c8a: order that rf brings.
    Matching,
    /// c7b.
    StrongFencing,
    /// c8b.
    Blocking,
    /// M8a: sync order between overlapping events, copied into ⊑.
    LocFromSync,
    /// §12: conflicting dependency order, copied into ⊑.
    TwoOrder,
    /// M9b, M9c: read-modify-write.
    Rmw,
    /// rf that adds no drawn order (the note's dotted arrows).
    Rf,
    /// An edge of the closure that no rule added directly (`--all-edges`).
    Implied,
    /// A candidate execution's program order (`draw --model`).
    Po,
    /// A candidate execution's reads-from.
    ReadsFrom,
    /// A candidate execution's coherence order.
    Coherence,
    /// A candidate execution's from-reads (rf⁻¹; co).
    FromReads,
    /// A candidate execution's read-modify-write pairs.
    AtomicPair,
    /// A relation the cat model `show`s.
    Shown,
    /// The cycle (or pair) of the check that fails on the execution.
    Cycle,
}

impl Class {
    pub const ALL: [Class; 11] = [
        Class::Dependency,
        Class::SyncDelays,
        Class::CoDelays,
        Class::Matching,
        Class::StrongFencing,
        Class::Blocking,
        Class::LocFromSync,
        Class::TwoOrder,
        Class::Rmw,
        Class::Rf,
        Class::Implied,
    ];

    /// The classes of a candidate execution's picture (`draw --model`), in
    /// legend order. They are not in `ALL`, so the pomset pictures' SVG
    /// markers, TikZ styles and legends stay as they were.
    pub const EXECUTION: [Class; 7] = [
        Class::Po,
        Class::ReadsFrom,
        Class::Coherence,
        Class::FromReads,
        Class::AtomicPair,
        Class::Shown,
        Class::Cycle,
    ];

    /// Whether the class belongs to executions rather than pomsets.
    pub fn is_execution(self) -> bool {
        Class::EXECUTION.contains(&self)
    }

    /// The legend's words, which also name the class in text output.
    pub fn name(self) -> &'static str {
        match self {
            Class::Dependency => "dependency (s3)",
            Class::SyncDelays => "sync-delays (s7a)",
            Class::CoDelays => "co-delays (s8a)",
            Class::Matching => "matching (c6, c7a, c8a)",
            Class::StrongFencing => "strong fencing (c7b)",
            Class::Blocking => "blocking (c8b)",
            Class::LocFromSync => "sync on one location (M8a)",
            Class::TwoOrder => "conflicting dependency (§12)",
            Class::Rmw => "read-modify-write (M9b, M9c)",
            Class::Rf => "rf adding no order",
            Class::Implied => "implied by transitivity",
            Class::Po => "po (program order)",
            Class::ReadsFrom => "rf (reads-from)",
            Class::Coherence => "co (coherence)",
            Class::FromReads => "fr (from-reads)",
            Class::AtomicPair => "rmw (read-modify-write)",
            Class::Shown => "shown by the model (show)",
            Class::Cycle => "the failing check (its cycle)",
        }
    }

    /// A short identifier: CSS class, TikZ style and DOT comment.
    pub fn key(self) -> &'static str {
        match self {
            Class::Dependency => "dep",
            Class::SyncDelays => "sync",
            Class::CoDelays => "co",
            Class::Matching => "match",
            Class::StrongFencing => "fence",
            Class::Blocking => "block",
            Class::LocFromSync => "locsync",
            Class::TwoOrder => "twoorder",
            Class::Rmw => "rmw",
            Class::Rf => "rf",
            Class::Implied => "implied",
            Class::Po => "po",
            Class::ReadsFrom => "exrf",
            Class::Coherence => "exco",
            Class::FromReads => "exfr",
            Class::AtomicPair => "exrmw",
            Class::Shown => "show",
            Class::Cycle => "cycle",
        }
    }

    /// Colour (hex RGB) and dash pattern (`None`: solid).
    pub fn style(self) -> (&'static str, Option<&'static str>) {
        match self {
            Class::Dependency => ("000000", None),
            Class::SyncDelays => ("1f5fbf", None),
            Class::CoDelays => ("2e8b57", Some("6 3")),
            Class::Matching => ("c0392b", None),
            Class::StrongFencing => ("8e44ad", Some("8 2 2 2")),
            Class::Blocking => ("d35400", Some("4 3")),
            Class::LocFromSync => ("7f8c8d", Some("1 3")),
            Class::TwoOrder => ("16a085", Some("6 2 1 2")),
            Class::Rmw => ("8b4513", None),
            Class::Rf => ("c0392b", Some("1.5 3")),
            Class::Implied => ("b0b0b0", None),
            Class::Po => ("555555", None),
            Class::ReadsFrom => ("c0392b", None),
            Class::Coherence => ("1f5fbf", None),
            Class::FromReads => ("d35400", Some("6 3")),
            Class::AtomicPair => ("8b4513", None),
            Class::Shown => ("16a085", Some("1 3")),
            Class::Cycle => ("e6007e", Some("8 4")),
        }
    }
}

/// An arrow between two events (indices into `Picture::events`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub class: Class,
    /// The rules behind it (`c6`, `s7a`, `rf`, ...), each once; for an
    /// execution, the relations (`po`, `hb`, a `show`n name).
    pub rules: Vec<String>,
    /// The orders it belongs to (empty for a bare rf arrow).
    pub orders: Vec<Order>,
}

/// Which of a pomset's three orders an arrow belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Order {
    /// ⊴, dependency (M6).
    Dep,
    /// ≤, synchronisation (M7).
    Sync,
    /// ⊑, per location (M8).
    Loc,
}

/// Which edges and events to draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    /// Every edge of each order, not only its transitive reduction.
    pub all_edges: bool,
    /// The initialising writes and their edges.
    pub init: bool,
}

/// Moves events down so that rf between threads points down, when rf and
/// program order allow it (longest paths over both). When they form a cycle
/// (a load-buffering outcome, say), rows stay as program order gives them.
pub(crate) fn layer(events: &mut [Node], arrows: &[Arrow]) {
    let rf = |a: &&Arrow| {
        a.rules.first().map(String::as_str) == Some("rf")
            && events[a.from].column != events[a.to].column
    };
    let rf: Vec<(usize, usize)> = arrows.iter().filter(rf).map(|a| (a.from, a.to)).collect();
    let mut rows: Vec<usize> = events.iter().map(|n| n.row).collect();
    for _ in 0..=events.len() {
        let mut changed = false;
        for i in 0..events.len() {
            let above = events
                .iter()
                .enumerate()
                .filter(|(j, m)| m.column == events[i].column && m.row < events[i].row && *j != i)
                .map(|(j, _)| j)
                .chain(rf.iter().filter(|&&(_, t)| t == i).map(|&(f, _)| f));
            let want = above.map(|j| rows[j] + 1).max().unwrap_or(0);
            if want > rows[i] {
                rows[i] = want;
                changed = true;
            }
        }
        if !changed {
            for (n, r) in events.iter_mut().zip(rows) {
                n.row = r;
            }
            return;
        }
    }
}

pub(crate) fn add(
    arrows: &mut Vec<Arrow>,
    from: usize,
    to: usize,
    class: Class,
    rule: &str,
    k: Option<Order>,
) {
    let i = match arrows
        .iter()
        .position(|x| x.from == from && x.to == to && x.class == class)
    {
        Some(i) => i,
        None => {
            arrows.push(Arrow {
                from,
                to,
                class,
                rules: vec![],
                orders: vec![],
            });
            arrows.len() - 1
        }
    };
    let x = &mut arrows[i];
    if !x.rules.iter().any(|r| r == rule) {
        x.rules.push(rule.to_string());
    }
    if let Some(k) = k.filter(|k| !x.orders.contains(k)) {
        x.orders.push(k);
    }
}

/// `r=1; s=0; [x]=1`, the registers without their thread prefix when unambiguous.
pub(crate) fn state_text(state: &State) -> String {
    let show = |v: &Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
    state
        .regs
        .iter()
        .map(|(k, v)| format!("{k}={}", show(v)))
        .chain(state.mem.iter().map(|(k, v)| format!("[{k}]={}", show(v))))
        .collect::<Vec<_>>()
        .join("; ")
}

impl Label {
    /// The ASCII form: `W^rel_cta y1`, `Rx0`, `F^sc`.
    pub fn ascii(&self) -> String {
        let mut s = String::from(kind_letter(self.kind));
        if let Some(m) = self.mode {
            s.push('^');
            s.push_str(m.as_str());
        }
        if let Some(sc) = self.scope {
            s.push('_');
            s.push_str(sc.as_str());
        }
        if let (Some(loc), Some(v)) = (&self.loc, self.value) {
            if s.len() > 1 {
                s.push(' ');
            }
            s.push_str(&format!("{loc}{v}"));
        }
        s
    }
}

pub fn kind_letter(k: Kind) -> &'static str {
    match k {
        Kind::Read => "R",
        Kind::Write => "W",
        Kind::Fence => "F",
    }
}

impl Node {
    /// `κ | label` with `tt |` omitted, in ASCII.
    pub fn ascii(&self) -> String {
        match &self.kappa {
            Some(k) => format!("{k} | {}", self.label.ascii()),
            None => self.label.ascii(),
        }
    }
}

impl Picture {
    /// How many rows the tallest column has.
    pub fn rows(&self) -> usize {
        self.events.iter().map(|n| n.row + 1).max().unwrap_or(0)
    }

    /// The classes that occur, in legend order.
    pub fn classes(&self) -> Vec<Class> {
        Class::ALL
            .into_iter()
            .chain(Class::EXECUTION)
            .filter(|c| self.arrows.iter().any(|a| a.class == *c))
            .collect()
    }
}
