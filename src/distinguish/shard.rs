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

/// What a summary reads of a sweep's records: counts, the reasons for
/// `undecided`, and the minimal records. It keeps no other record, so a
/// merge of a sweep's gigabytes of records holds only its minimal tests.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Records added (programs decided).
    pub decided: usize,
    pub same: usize,
    pub differs: usize,
    pub undecided: usize,
    /// Distinguishing programs whose minimality is `unknown: ...`.
    pub unknown_minimality: usize,
    /// How many undecided programs give each reason.
    pub whys: BTreeMap<String, usize>,
    /// The minimal distinguishing records, by program.
    pub minimal: BTreeMap<String, Record>,
}

impl Tally {
    /// Counts `r`, a program not added before (callers keep the set of
    /// programs when the same one may come twice).
    pub fn add(&mut self, r: Record) {
        self.decided += 1;
        if let Some(w) = &r.why {
            *self.whys.entry(w.clone()).or_default() += 1;
        }
        match r.verdict.as_str() {
            "same" => self.same += 1,
            "undecided" => self.undecided += 1,
            "differs" => {
                self.differs += 1;
                let minimality = r.minimal.as_deref();
                if minimality.is_some_and(|m| m.starts_with("unknown")) {
                    self.unknown_minimality += 1;
                }
                if r.is_minimal() {
                    self.minimal.insert(r.id.clone(), r);
                }
            }
            _ => {}
        }
    }
}

impl<I: IntoIterator<Item = Record>> From<I> for Tally {
    /// The tally of records of distinct programs.
    fn from(records: I) -> Tally {
        let mut t = Tally::default();
        records.into_iter().for_each(|r| t.add(r));
        t
    }
}

/// Records from several files (shards, or runs resumed), one per program,
/// tallied.
#[derive(Clone, Debug)]
pub struct Merged {
    pub models: [String; 2],
    pub space: String,
    pub tally: Tally,
    /// Why these are not all the sweep's programs (a shard missing, a
    /// sweep stopped); empty when they are. The summary says so first.
    pub incomplete: Vec<String>,
}

impl Merged {
    /// A sweep of `models` over `space` with `tally`, complete.
    pub fn new(models: [String; 2], space: String, tally: Tally) -> Merged {
        Merged {
            models,
            space,
            tally,
            incomplete: Vec::new(),
        }
    }
}

/// Merges the files of records at `paths`; they must be for the same models
/// and space, with shards cut the same way.
///
/// The files are read line by line and only tallied. A program's record is
/// counted once: two files hold the same program only when their shards
/// overlap (`K/N` and `K'/N'` with K ≡ K' modulo gcd(N, N'); the same
/// shard resumed into two files, or a whole sweep beside its shards). The
/// files are grouped by overlap and each group of more than one file keeps
/// the set of its programs while it is read. The 400 disjoint shards of a
/// sweep of 45 M programs are merged keeping no set.
pub fn merge(paths: &[std::path::PathBuf]) -> Result<Merged, String> {
    merge_reporting(paths, || {})
}

/// `merge`, calling `progress` after each file read (a front end's
/// progress: 400 files of a large sweep take a minute).
pub fn merge_reporting(
    paths: &[std::path::PathBuf],
    mut progress: impl FnMut(),
) -> Result<Merged, String> {
    use std::io::BufReader;
    let open = |path: &std::path::PathBuf| {
        let name = path.display().to_string();
        std::fs::File::open(path)
            .map(BufReader::new)
            .map_err(|e| format!("{name}: {e}"))
            .map(|f| (name, f))
    };
    let mut heads = Vec::new();
    for path in paths {
        let (name, f) = open(path)?;
        let h: Header = sweep::header(&name, f, "distinguish")?;
        heads.push((name, h));
    }
    let Some((_, first)) = heads.first() else {
        return Err("--merge names no file".to_string());
    };
    let first = first.clone();
    for (name, h) in &heads {
        if !h.same_cut(&first) {
            return Err(format!(
                "{name}: its shard {} was cut {} and another file's {}: merge the shards of one version",
                h.shard,
                cut_by(h),
                cut_by(&first)
            ));
        }
        if h.models != first.models || h.space != first.space {
            return Err(format!(
                "{name}: records for {} vs {} over {}, not {} vs {} over {}",
                h.models[0], h.models[1], h.space, first.models[0], first.models[1], first.space
            ));
        }
    }
    let shards: Vec<Option<Shard>> = heads
        .iter()
        .map(|(_, h)| Shard::parse(&h.shard).ok())
        .collect();
    let mut tally = Tally::default();
    let mut scanned = vec![None; paths.len()];
    for group in overlapping(&shards) {
        let mut seen = (group.len() > 1).then(std::collections::HashSet::new);
        for i in group {
            let (name, f) = open(&paths[i])?;
            let s: sweep::Scanned<Header> =
                sweep::scan(&name, f, "distinguish", UNIT, |r: Record| {
                    if seen.as_mut().is_none_or(|seen| seen.insert(r.id.clone())) {
                        tally.add(r);
                    }
                })?;
            scanned[i] = Some((s.finished, s.recorded));
            progress();
        }
    }
    let parts: Vec<Part> = heads
        .iter()
        .zip(&scanned)
        .map(|((name, h), s)| {
            let (finished, recorded) = s.unwrap_or_default();
            Part {
                file: name,
                shard: &h.shard,
                finished,
                recorded,
                total: h.programs,
            }
        })
        .collect();
    Ok(Merged {
        models: first.models.clone(),
        space: first.space.clone(),
        tally,
        incomplete: sweep::missing(&parts, UNIT),
    })
}

/// The files (by index) grouped so that files of different groups hold no
/// program in common: shard `K/N` holds skeleton `i` when i ≡ K (mod N), so
/// `K/N` and `K'/N'` share one exactly when K ≡ K' (mod gcd(N, N')). A
/// file whose shard does not parse overlaps every file. Groups in the order
/// of their first file, files in the given order.
fn overlapping(shards: &[Option<Shard>]) -> Vec<Vec<usize>> {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let meet = |a: &Option<Shard>, b: &Option<Shard>| match (a, b) {
        (Some(a), Some(b)) => {
            let g = gcd(a.count, b.count);
            a.index % g == b.index % g
        }
        _ => true,
    };
    // Union-find over the files.
    let mut root: Vec<usize> = (0..shards.len()).collect();
    fn find(root: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while root[r] != r {
            r = root[r];
        }
        root[i] = r;
        r
    }
    for i in 0..shards.len() {
        for j in 0..i {
            if meet(&shards[i], &shards[j]) {
                let (a, b) = (find(&mut root, i), find(&mut root, j));
                root[a.max(b)] = a.min(b);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..shards.len() {
        let r = find(&mut root, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

/// How a header's shards were cut, in words.
fn cut_by(h: &Header) -> &'static str {
    match h.order.as_deref() {
        Some(ORDER) => "by skeleton",
        _ => "by program (a version before the mode lattice)",
    }
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
    for r in m.tally.minimal.values() {
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
    let t = &m.tally;
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
        "{} programs: {} same, {} distinguishing ({} minimal, {} of unknown minimality), {} undecided",
        t.decided,
        t.same,
        t.differs,
        t.minimal.len(),
        t.unknown_minimality,
        t.undecided
    );
    for (w, n) in t.whys.iter().take(5) {
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
    let t = &m.tally;
    let (decided, differs, undecided) = (t.decided, t.differs, t.undecided);
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
    let minimal = t.minimal.len();
    format!(
        "{differs} of the {decided} programs of {} distinguish {a} from {b} ({minimal} minimal){undecided}",
        m.space
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two shards share a program exactly when some skeleton index is in
    /// both, checked against the indices themselves.
    #[test]
    fn files_are_grouped_exactly_by_shared_skeletons() {
        let shards: Vec<Shard> = (1..=6)
            .flat_map(|n| (0..n).map(move |k| Shard { index: k, count: n }))
            .collect();
        for a in &shards {
            for b in &shards {
                let shared = (0..60).any(|i| a.holds(i) && b.holds(i));
                let groups = overlapping(&[Some(*a), Some(*b)]);
                assert_eq!(groups.len() == 1, shared, "{a} and {b}");
            }
        }
        // Grouping is transitive: 0/4 and 2/4 share nothing, but both share
        // with 0/2; 1/2 stays apart; an unreadable shard joins everything.
        let s = |k, n| Some(Shard { index: k, count: n });
        assert_eq!(
            overlapping(&[s(0, 4), s(1, 2), s(2, 4), s(0, 2)]),
            [vec![0, 2, 3], vec![1]]
        );
        assert_eq!(overlapping(&[s(0, 2), s(1, 2), None]), [vec![0, 1, 2]]);
    }
}
