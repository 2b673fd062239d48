//! Spreading a sweep: the records of `distinguish` in the JSON Lines every
//! sweep writes (`crate::sweep`: a header line, then one record per program
//! decided), resuming from them, merging them, and the summary of families
//! and minimal tests.
//!
//! Shard `K/N` holds the programs of the skeletons whose index in the fixed
//! order of `enumerate::groups` is K modulo N: a skeleton's mode variants
//! are decided together (`lattice.rs`), so a shard never splits them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::shape::{Shape, Space};
use super::Decision;
pub use crate::sweep::Shard;
use crate::sweep::{self, Part};

impl Shard {
    /// This shard's programs, in the sweep's order.
    pub fn programs(self, space: &Space) -> impl Iterator<Item = Shape> + '_ {
        self.groups(space).flatten()
    }

    /// This shard's programs skeleton by skeleton (`enumerate::groups`).
    /// Only the shard's own skeletons are expanded into their variants.
    pub fn groups(self, space: &Space) -> impl Iterator<Item = Vec<Shape>> + '_ {
        self.framed_groups(space)
            .map(|(_, g)| g.into_iter().map(|(s, _)| s).collect())
    }

    /// `groups`, each with its skeleton and each program's position in it
    /// (`enumerate::framed_group`).
    pub fn framed_groups(
        self,
        space: &Space,
    ) -> impl Iterator<Item = (Shape, Vec<(Shape, Vec<usize>)>)> + '_ {
        super::enumerate::skeletons(space)
            .enumerate()
            .filter(move |(i, _)| self.holds(*i))
            .map(move |(_, s)| {
                let g = super::enumerate::framed_group(space, &s);
                (s, g)
            })
    }
}

/// The first line of a file of records: what they were found for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub models: [String; 2],
    /// `Space::describe`.
    pub space: String,
    pub shard: String,
    /// How many programs the shard has (`count::programs`), when counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub programs: Option<u64>,
    /// How the shards were cut: [`ORDER`]; absent from the files of
    /// versions before it, whose shard `K/N` took every N-th program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
}

/// A header's `order`: shard `K/N` holds every N-th skeleton.
pub const ORDER: &str = "skeletons";

impl Header {
    /// Whether records under `other` belong to the same sweep and shard
    /// (a count is what the sweep knew, not what it is). A whole sweep
    /// (`0/1`) has the same programs however shards are cut.
    pub fn same_sweep(&self, other: &Header) -> bool {
        self.models == other.models
            && self.space == other.space
            && self.shard == other.shard
            && self.same_cut(other)
    }

    /// Whether both files' shards were cut the same way (or either is whole).
    pub fn same_cut(&self, other: &Header) -> bool {
        self.order == other.order || self.shard == "0/1" || other.shard == "0/1"
    }
}

/// What `end_line` counts.
const UNIT: &str = "programs";

/// The line that ends a shard's records: it went through all `programs`.
pub fn end_line(programs: usize) -> String {
    sweep::end_line(UNIT, programs)
}

/// One program decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The program's threads (`Shape::body`), canonical.
    pub id: String,
    /// Its accesses, fences included.
    pub size: usize,
    /// `same`, `differs` or `undecided`.
    pub verdict: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The states only the first model allows, and only the second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<[Vec<String>; 2]>,
    /// Of each list in `only`, how many (at its end) the other model
    /// reaches with a value left undetermined (`?`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<[usize; 2]>,
    /// `yes`, `no: ...` or `unknown: ...` (`minimal::Minimal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimal: Option<String>,
    /// The shape up to modes and scopes (`minimal::family`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// The litmus file after its `litmus NAME` line, without condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
}

impl Record {
    /// The record of `shape` decided as `d` (minimality filled in later).
    pub fn of(shape: &Shape, d: &Decision) -> Record {
        let (verdict, why, only, undetermined) = match d {
            Decision::Same => ("same", None, None, None),
            Decision::Differs { only, undetermined } => {
                ("differs", None, Some(only.clone()), Some(*undetermined))
            }
            Decision::Undecided(u) => ("undecided", Some(u.why.clone()), None, None),
        };
        Record {
            id: shape.body(),
            size: shape.size(),
            verdict: verdict.to_string(),
            why,
            only,
            undetermined,
            minimal: None,
            family: None,
            program: None,
        }
    }

    pub fn is_minimal(&self) -> bool {
        self.minimal.as_deref() == Some("yes")
    }
}

/// The header as the file's first line.
pub fn header_line(h: &Header) -> String {
    sweep::header_line(h)
}

/// A record as one line.
pub fn record_line(r: &Record) -> String {
    sweep::record_line(r)
}

/// What a file of records holds.
pub type Read = sweep::Lines<Header, Record>;

/// Reads a file of records named `file`; errors say `file:line`.
pub fn read(file: &str, text: &str) -> Result<Read, String> {
    sweep::read(file, text, "distinguish", UNIT)
}

/// Records from several files (shards, or runs resumed), one per program.
#[derive(Clone, Debug)]
pub struct Merged {
    pub models: [String; 2],
    pub space: String,
    pub records: BTreeMap<String, Record>,
    /// Why these are not all the sweep's programs (a shard missing, a
    /// sweep stopped); empty when they are. The summary says so first.
    pub incomplete: Vec<String>,
}

/// Merges files read by [`read`], named; they must be for the same models
/// and space. The records are moved, not copied: a sweep's files hold
/// millions.
pub fn merge(files: Vec<(String, Read)>) -> Result<Merged, String> {
    let Some((_, first)) = files.first() else {
        return Err("--merge names no file".to_string());
    };
    let mut out = Merged {
        models: first.header.models.clone(),
        space: first.header.space.clone(),
        records: BTreeMap::new(),
        incomplete: missing(&files),
    };
    let cut = first.header.clone();
    for (name, f) in files {
        if !f.header.same_cut(&cut) {
            return Err(format!(
                "{name}: its shard {} was cut {} and another file's {}: merge the shards of one version",
                f.header.shard,
                cut_by(&f.header),
                cut_by(&cut)
            ));
        }
        if f.header.models != out.models || f.header.space != out.space {
            return Err(format!(
                "{name}: records for {} vs {} over {}, not {} vs {} over {}",
                f.header.models[0],
                f.header.models[1],
                f.header.space,
                out.models[0],
                out.models[1],
                out.space
            ));
        }
        for r in f.records {
            if !out.records.contains_key(&r.id) {
                out.records.insert(r.id.clone(), r);
            }
        }
    }
    Ok(out)
}

/// How a header's shards were cut, in words.
fn cut_by(h: &Header) -> &'static str {
    match h.order.as_deref() {
        Some(ORDER) => "by skeleton",
        _ => "by program (a version before the mode lattice)",
    }
}

/// What a set of files lacks to be a whole sweep: the shards of `K/N` no
/// file holds, and the files whose sweep stopped before the end of its
/// shard; empty when the files are the whole.
pub fn missing(files: &[(String, Read)]) -> Vec<String> {
    let parts: Vec<Part> = files
        .iter()
        .map(|(name, f)| Part {
            file: name,
            shard: &f.header.shard,
            finished: f.finished,
            recorded: f.records.len(),
            total: f.header.programs,
        })
        .collect();
    sweep::missing(&parts, UNIT)
}

/// A minimal test, named after its family.
#[derive(Clone, Debug)]
pub struct Test {
    /// `F2-1`: the first test of the second family.
    pub name: String,
    pub family: usize,
    /// Which model allows the state of `exists` (0 or 1).
    pub allowed_by: usize,
    pub state: String,
    /// Whether the other model reaches the state with a value left
    /// undetermined (`?`), which the judge reads as no value.
    pub against_undetermined: bool,
    pub record: Record,
}

/// The minimal tests, grouped into families in a fixed order (smaller
/// shapes first).
pub fn tests(m: &Merged) -> Vec<Test> {
    let mut by_family: BTreeMap<(usize, String), Vec<&Record>> = BTreeMap::new();
    for r in m.records.values().filter(|r| r.is_minimal()) {
        let family = r.family.clone().unwrap_or_default();
        by_family.entry((r.size, family)).or_default().push(r);
    }
    let mut out = Vec::new();
    for (f, (_, members)) in by_family.into_iter().enumerate() {
        for (k, r) in members.into_iter().enumerate() {
            let Some(only) = &r.only else { continue };
            // The second model's extra state first: the target of a mapping.
            let (allowed_by, state) = match (only[1].first(), only[0].first()) {
                (Some(s), _) => (1, s.clone()),
                (None, Some(s)) => (0, s.clone()),
                (None, None) => continue,
            };
            let undetermined = r.undetermined.unwrap_or_default()[allowed_by];
            let against_undetermined = undetermined >= only[allowed_by].len();
            out.push(Test {
                name: format!("F{}-{}", f + 1, k + 1),
                family: f + 1,
                allowed_by,
                state,
                against_undetermined,
                record: r.clone(),
            });
        }
    }
    out
}

/// A minimal test as a litmus file whose `exists` is the distinguishing
/// state, with a comment naming the two verdicts.
pub fn litmus(m: &Merged, t: &Test) -> String {
    let (yes, no) = (&m.models[t.allowed_by], &m.models[1 - t.allowed_by]);
    let family = t.record.family.as_deref().unwrap_or("");
    let undetermined = if t.against_undetermined {
        format!(
            "// {no} reaches it only with a read dropped (a value `?`, which equals no value).\n"
        )
    } else {
        String::new()
    };
    format!(
        "// Distinguishes {} from {}: {yes} allows the state of `exists` (Sometimes), {no} forbids it (Never).\n{undetermined}\
         // Family F{}, the shape with modes relaxed and scopes sys: {family}\n\
         // Found by `pomset distinguish` over {}.\n\
         litmus {}\n{}\nexists ({})\n",
        m.models[0],
        m.models[1],
        t.family,
        m.space,
        t.name,
        t.record.program.as_deref().unwrap_or(""),
        t.state
    )
}

/// The summary: counts, the families, and the minimal tests.
pub fn summary(m: &Merged) -> String {
    use std::fmt::Write;
    let count = |v: &str| m.records.values().filter(|r| r.verdict == v).count();
    let differs: Vec<&Record> = m
        .records
        .values()
        .filter(|r| r.verdict == "differs")
        .collect();
    let minimal = differs.iter().filter(|r| r.is_minimal()).count();
    let unknown = differs
        .iter()
        .filter(|r| {
            r.minimal
                .as_deref()
                .is_some_and(|s| s.starts_with("unknown"))
        })
        .count();
    let [a, b] = &m.models;
    let mut out = String::new();
    let _ = writeln!(out, "{a} vs {b} over {}", m.space);
    for why in &m.incomplete {
        let _ = writeln!(out, "INCOMPLETE: {why}");
    }
    if !m.incomplete.is_empty() {
        let _ = writeln!(
            out,
            "(the counts, families and tests below are of these records only)"
        );
    }
    let _ = writeln!(
        out,
        "{} programs: {} same, {} distinguishing ({minimal} minimal, {unknown} of unknown minimality), {} undecided",
        m.records.len(),
        count("same"),
        differs.len(),
        count("undecided")
    );
    let mut whys: BTreeMap<&str, usize> = BTreeMap::new();
    for r in m.records.values() {
        if let Some(w) = &r.why {
            *whys.entry(w.as_str()).or_default() += 1;
        }
    }
    for (w, n) in whys.iter().take(5) {
        let _ = writeln!(out, "  undecided ({n}): {w}");
    }
    let tests = tests(m);
    if tests.is_empty() {
        let _ = writeln!(out, "\nNo minimal distinguishing test.");
        return out;
    }
    let _ = writeln!(
        out,
        "\nfamily  tests  allowed only by  shape (modes relaxed, scopes sys)"
    );
    let families = tests.last().map_or(0, |t| t.family);
    for f in 1..=families {
        let members: Vec<&Test> = tests.iter().filter(|t| t.family == f).collect();
        let Some(first) = members.first() else {
            continue;
        };
        let mut sides: Vec<&str> = members
            .iter()
            .map(|t| m.models[t.allowed_by].as_str())
            .collect();
        sides.sort();
        sides.dedup();
        let _ = writeln!(
            out,
            "{:<7} {:<6} {:<16} {}",
            format!("F{f}"),
            members.len(),
            sides.join(","),
            first.record.family.as_deref().unwrap_or("")
        );
    }
    let _ = writeln!(out, "\nminimal tests:");
    for t in &tests {
        let mark = if t.against_undetermined { " (?)" } else { "" };
        let _ = writeln!(
            out,
            "{:<7} {} only{mark}: {}    {}",
            t.name, m.models[t.allowed_by], t.state, t.record.id
        );
    }
    if tests.iter().any(|t| t.against_undetermined) {
        let _ = writeln!(
            out,
            "(?): the other model reaches the state only with a read dropped (`?`, which equals no value)"
        );
    }
    out
}

/// One sentence stating what a sweep of `programs` programs (when counted)
/// found, the bound exact: no difference among all of them, how many
/// distinguish, or where a limit (`stopped`) or missing shards left it.
pub fn headline(m: &Merged, programs: Option<u64>, stopped: Option<&str>) -> String {
    let count = |v: &str| m.records.values().filter(|r| r.verdict == v).count();
    let (decided, differs, undecided) = (m.records.len(), count("differs"), count("undecided"));
    let [a, b] = &m.models;
    let of = programs.map_or(String::new(), |n| format!(" of {n}"));
    if let Some(limit) = stopped {
        return format!(
            "stopped by {limit} after {decided}{of} programs of {} ({differs} distinguishing so far): no verdict on the rest",
            m.space
        );
    }
    if let Some(why) = m.incomplete.first() {
        return format!(
            "incomplete ({why}): {decided}{of} programs of {} decided, {differs} distinguishing so far",
            m.space
        );
    }
    let undecided = match undecided {
        0 => String::new(),
        n => format!(" ({n} undecided: no verdict on them)"),
    };
    if differs == 0 {
        return format!(
            "no difference between {a} and {b} among the {decided} programs of {}{undecided}",
            m.space
        );
    }
    let minimal = m.records.values().filter(|r| r.is_minimal()).count();
    format!(
        "{differs} of the {decided} programs of {} distinguish {a} from {b} ({minimal} minimal){undecided}",
        m.space
    )
}
