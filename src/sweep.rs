//! What every long sweep shares (`distinguish`'s programs, the
//! transformation table's instances): shards, and the JSON Lines a sweep
//! writes (a header line, one record per item decided, an end line once
//! the shard is through), read back to resume or to merge.
//!
//! Shard `K/N` holds the items whose index in the sweep's fixed order is K
//! modulo N, so N shards are disjoint, their union is the whole, and any job
//! runner (GNU parallel, a Slurm array) may run them; we write no scheduler.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Shard `index` of `count` (`--shard K/N`, 0 ≤ K < N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The whole sweep.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Reads `K/N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let hint = "--shard takes K/N with 0 ≤ K < N, as 0/4 (Slurm's $SLURM_ARRAY_TASK_ID/N)";
        let bad = || format!("`{text}`: {hint}");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || k >= n {
            return Err(bad());
        }
        Ok(Shard { index: k, count: n })
    }

    /// Whether the item with index `i` in the sweep's order is this shard's.
    pub fn holds(self, i: usize) -> bool {
        i % self.count == self.index
    }

    /// How many of `total` items this shard holds.
    pub fn share(self, total: usize) -> usize {
        total / self.count + usize::from(self.index < total % self.count)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[derive(Serialize, Deserialize)]
struct HeaderLine<H> {
    header: H,
}

/// The last line: `{"end":{"programs":120}}`, the unit named by the sweep.
#[derive(Deserialize)]
struct EndLine {
    end: BTreeMap<String, usize>,
}

/// The header `h` as a file's first line, `{"header":…}`.
pub fn header_line<H: Serialize>(h: &H) -> String {
    serde_json::to_string(&HeaderLine { header: h }).unwrap_or_default()
}

/// A record as one line.
pub fn record_line<R: Serialize>(r: &R) -> String {
    serde_json::to_string(r).unwrap_or_default()
}

/// The line that ends a shard's records: it went through all `n` of its
/// items, counted in `unit` (`programs`, `instances`).
pub fn end_line(unit: &str, n: usize) -> String {
    serde_json::json!({ "end": { unit: n } }).to_string()
}

/// What a file of records holds.
#[derive(Clone, Debug)]
pub struct Lines<H, R> {
    pub header: H,
    pub records: Vec<R>,
    /// The bytes up to the end of the last complete line: a sweep stopped
    /// while writing leaves a partial line, cut when it resumes.
    pub complete: usize,
    /// Whether the file ends with the end line (`end_line`): its sweep went
    /// through the whole shard. A stopped sweep (a budget, Ctrl-C, a kill)
    /// leaves none.
    pub finished: bool,
}

/// Reads a file of records named `file`, written by `pomset {command}`
/// counting in `unit`; errors say `file:line`.
pub fn read<H: DeserializeOwned, R: DeserializeOwned>(
    file: &str,
    text: &str,
    command: &str,
    unit: &str,
) -> Result<Lines<H, R>, String> {
    let mut records = Vec::new();
    let s = scan(file, text.as_bytes(), command, unit, |r| records.push(r))?;
    Ok(Lines {
        header: s.header,
        records,
        complete: s.complete,
        finished: s.finished,
    })
}

/// What [`scan`] saw around a file's records.
#[derive(Clone, Debug)]
pub struct Scanned<H> {
    pub header: H,
    /// The records in the file, duplicates counted.
    pub recorded: usize,
    /// As in [`Lines`].
    pub complete: usize,
    pub finished: bool,
}

/// Reads a file of records as [`read`] does, handing each record to `each`
/// in file order instead of keeping them: a merge of a sweep's files reads
/// gigabytes of records and keeps counts.
pub fn scan<H: DeserializeOwned, R: DeserializeOwned>(
    file: &str,
    mut input: impl BufRead,
    command: &str,
    unit: &str,
    mut each: impl FnMut(R),
) -> Result<Scanned<H>, String> {
    let mut line = Vec::new();
    let (header, mut complete) = first_line(file, &mut input, &mut line, command)?;
    let (mut recorded, mut finished) = (0, false);
    for number in 2.. {
        let Some(l) = next_line(file, &mut input, &mut line, number)? else {
            break;
        };
        complete += l.len() + 1;
        if l.trim().is_empty() {
            continue;
        }
        if let Ok(end) = serde_json::from_str::<EndLine>(l) {
            finished = end.end.get(unit) == Some(&recorded);
            continue;
        }
        let r: R =
            serde_json::from_str(l).map_err(|e| format!("{file}:{number}: not a record ({e})"))?;
        recorded += 1;
        each(r);
    }
    Ok(Scanned {
        header,
        recorded,
        complete,
        finished,
    })
}

/// The header of a file of records, from its first line alone.
pub fn header<H: DeserializeOwned>(
    file: &str,
    mut input: impl BufRead,
    command: &str,
) -> Result<H, String> {
    first_line(file, &mut input, &mut Vec::new(), command).map(|(h, _)| h)
}

/// The header on the first line of `input`, and that line's length in
/// bytes with its newline.
fn first_line<H: DeserializeOwned>(
    file: &str,
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    command: &str,
) -> Result<(H, usize), String> {
    let Some(line) = next_line(file, input, buf, 1)? else {
        return Err(format!(
            "{file}: no header line (an empty or cut file): it holds no records of `pomset {command}`; leave it out, or delete it and give the name to --jsonl, which starts a sweep afresh"
        ));
    };
    let header = serde_json::from_str::<HeaderLine<H>>(line)
        .map_err(|e| format!("{file}:1: not the header of `pomset {command}` records ({e})"))?
        .header;
    Ok((header, line.len() + 1))
}

/// The next complete line of `input` (read into `buf`, its newline kept
/// there and cut from the answer); `None` at the end or before a last line
/// without its newline, which a sweep stopped while writing leaves.
fn next_line<'b>(
    file: &str,
    input: &mut impl BufRead,
    buf: &'b mut Vec<u8>,
    number: usize,
) -> Result<Option<&'b str>, String> {
    buf.clear();
    input
        .read_until(b'\n', buf)
        .map_err(|e| format!("{file}:{number}: {e}"))?;
    if buf.last() != Some(&b'\n') {
        return Ok(None);
    }
    let text = std::str::from_utf8(&buf[..buf.len() - 1])
        .map_err(|e| format!("{file}:{number}: not UTF-8 ({e})"))?;
    Ok(Some(text))
}

/// One file's part in a merge, as [`missing`] reads it.
#[derive(Clone, Debug)]
pub struct Part<'a> {
    pub file: &'a str,
    /// The header's shard, `K/N`.
    pub shard: &'a str,
    pub finished: bool,
    pub recorded: usize,
    /// The items the shard has, when the sweep knew.
    pub total: Option<u64>,
}

/// What a set of files lacks to be a whole sweep: the shards of `K/N` no
/// file holds, and the files whose sweep stopped before the end of its
/// shard (items counted in `unit`); empty when the files are the whole.
pub fn missing(parts: &[Part], unit: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut finished: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for p in parts {
        if !p.finished {
            let of = p.total.map_or(String::new(), |n| format!(" of {n}"));
            out.push(format!(
                "{} (shard {}) was stopped after {}{of} {unit}",
                p.file, p.shard, p.recorded
            ));
        }
        if let (Ok(s), true) = (Shard::parse(p.shard), p.finished) {
            finished.entry(s.count).or_default().insert(s.index);
        }
    }
    // Whole when, for some N, every shard K/N went through.
    if finished.iter().any(|(n, ks)| ks.len() == *n) {
        return Vec::new();
    }
    let mut given: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for s in parts.iter().filter_map(|p| Shard::parse(p.shard).ok()) {
        given.entry(s.count).or_default().insert(s.index);
    }
    for (n, ks) in given {
        let absent: Vec<usize> = (0..n).filter(|k| !ks.contains(k)).collect();
        if !absent.is_empty() {
            let s = if absent.len() == 1 { "" } else { "s" };
            out.push(format!(
                "no file holds shard{s} {} ({} of {n} given)",
                runs(&absent, n),
                ks.len()
            ));
        }
    }
    out
}

/// Shard indices of `K/n`, ascending, in words: runs of three or more as
/// `a/n to b/n`, and past eight runs how many shards are left unnamed (a
/// merge given 40 of 400 shards names 360).
fn runs(ks: &[usize], n: usize) -> String {
    const SHOWN: usize = 8;
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for &k in ks {
        match spans.last_mut() {
            Some((_, end)) if *end + 1 == k => *end = k,
            _ => spans.push((k, k)),
        }
    }
    let mut words: Vec<String> = Vec::new();
    for &(a, b) in spans.iter().take(SHOWN) {
        match b - a {
            0 => words.push(format!("{a}/{n}")),
            1 => words.extend([format!("{a}/{n}"), format!("{b}/{n}")]),
            _ => words.push(format!("{a}/{n} to {b}/{n}")),
        }
    }
    let unnamed: usize = spans.iter().skip(SHOWN).map(|(a, b)| b - a + 1).sum();
    if unnamed > 0 {
        words.push(format!("and {unnamed} more"));
    }
    words.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_items() {
        for n in 1..5 {
            let shards: Vec<Shard> = (0..n).map(|k| Shard { index: k, count: n }).collect();
            for i in 0..20 {
                assert_eq!(shards.iter().filter(|s| s.holds(i)).count(), 1);
            }
            assert_eq!(shards.iter().map(|s| s.share(11)).sum::<usize>(), 11);
        }
    }

    #[test]
    fn a_missing_shard_is_named() {
        let part = |shard, finished| Part {
            file: "f",
            shard,
            finished,
            recorded: 1,
            total: Some(2),
        };
        assert!(missing(&[part("0/2", true), part("1/2", true)], "items").is_empty());
        assert_eq!(
            missing(&[part("0/3", true), part("1/3", false)], "items"),
            [
                "f (shard 1/3) was stopped after 1 of 2 items",
                "no file holds shard 2/3 (2 of 3 given)"
            ]
        );
    }

    #[test]
    fn missing_shards_are_named_in_runs() {
        assert_eq!(runs(&[2], 3), "2/3");
        assert_eq!(runs(&[1, 2, 5], 6), "1/6, 2/6, 5/6");
        assert_eq!(
            runs(&(40..400).collect::<Vec<_>>(), 400),
            "40/400 to 399/400"
        );
        let every_other: Vec<usize> = (0..40).step_by(2).collect();
        assert_eq!(
            runs(&every_other, 40),
            "0/40, 2/40, 4/40, 6/40, 8/40, 10/40, 12/40, 14/40, and 12 more"
        );
    }

    #[test]
    fn an_end_line_for_another_count_is_no_end() {
        let text = format!("{}\n1\n{}\n", header_line(&0), end_line("items", 2));
        let l: Lines<u8, u8> = read("f", &text, "x", "items").expect("read");
        assert!(!l.finished);
        let text = format!("{}\n1\n2\n{}\n", header_line(&0), end_line("items", 2));
        let l: Lines<u8, u8> = read("f", &text, "x", "items").expect("read");
        assert!(l.finished && l.records == [1, 2]);
    }
}
