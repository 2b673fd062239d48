//! The table as records: the JSON Lines `pomset transformations --jsonl`
//! writes (`crate::sweep`: a header line, one record per instance as it is
//! decided, an end line once its shard is through), read back to resume a
//! sweep, and merged from its shards back into a `Table`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::context::{Bound, Counterexample, Witness};
use super::table::{Cell, Row, Table};
use crate::sweep::{self, Part, Shard};

/// What the end line counts.
const UNIT: &str = "instances";

/// The first line of a file of records: what they were decided for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// One column each, in order.
    pub models: Vec<String>,
    pub bound: Bound,
    /// Seconds each cell may take (`--timeout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// The schemas, in the order of their instances.
    pub schemas: Vec<String>,
    /// The instances of the whole table, every shard's.
    pub instances: usize,
    /// `K/N`.
    pub shard: String,
}

impl Header {
    /// How `other` differs from this header, shard aside: each field as
    /// (name, this value, other value).
    pub fn differences(&self, other: &Header) -> Vec<(&'static str, String, String)> {
        self.fields()
            .into_iter()
            .zip(other.fields())
            .filter(|((_, a), (_, b))| a != b)
            .map(|((name, a), (_, b))| (name, a, b))
            .collect()
    }

    /// The fields a table's records must agree on, as text.
    fn fields(&self) -> [(&'static str, String); 5] {
        let b = &self.bound;
        let max = b.max_contexts.map_or("none".into(), |n| n.to_string());
        [
            ("models", self.models.join(",")),
            (
                "bound",
                format!("size {}, {} threads, max contexts {max}", b.size, b.threads),
            ),
            (
                "timeout",
                self.timeout.map_or("none".into(), |t| format!("{t} s")),
            ),
            ("schemas", self.schemas.join(",")),
            ("instances", self.instances.to_string()),
        ]
    }

    /// The instances this header's shard holds.
    pub fn shard_instances(&self) -> Option<usize> {
        let shard = Shard::parse(&self.shard).ok()?;
        Some(shard.share(self.instances))
    }
}

/// One instance decided under every model: enough to give back its `Row`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The instance's index in the table's order.
    pub index: usize,
    /// Its label, `schema[H=v,...]`, which a resumed sweep checks.
    pub instance: String,
    pub schema: String,
    /// Each hole and the value it takes.
    pub holes: Vec<(String, String)>,
    /// One per model, in the header's order.
    pub cells: Vec<Cell>,
}

impl Record {
    /// The record of `row`, the instance with `index`.
    pub fn of(index: usize, row: &Row) -> Record {
        Record {
            index,
            instance: super::catalogue::label(&row.schema, &row.choice),
            schema: row.schema.clone(),
            holes: row.choice.clone(),
            cells: row.cells.clone(),
        }
    }

    /// The row it records.
    pub fn row(&self) -> Row {
        Row {
            schema: self.schema.clone(),
            choice: self.holes.clone(),
            cells: self.cells.clone(),
        }
    }

    /// Whether it fits `header`: an instance of its table, a cell per model.
    pub fn check(&self, header: &Header) -> Result<(), String> {
        let name = &self.instance;
        if self.index >= header.instances {
            return Err(format!(
                "the record of {name} has index {}, but the table has {} instances",
                self.index, header.instances
            ));
        }
        if self.cells.len() != header.models.len() {
            return Err(format!(
                "the record of {name} has {} cells for {} models",
                self.cells.len(),
                header.models.len()
            ));
        }
        Ok(())
    }
}

/// A cell as JSON: its verdict word, then the counterexample (both tests,
/// the witness, the contexts tried of the total) or why it is unknown.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellRecord {
    pub verdict: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_test: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_test: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<WitnessRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// A bounded (or vacuous) cell: the contexts of the bound, all decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contexts: Option<usize>,
    /// Of those, the vacuous ones (the source undefined there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vacuous: Option<usize>,
    /// Of those, the ones outside the model (the source unsupported there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<usize>,
}

/// `{"exists": "..."}` or `{"flag": "..."}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WitnessRecord {
    Exists(String),
    Flag(String),
}

impl From<Cell> for CellRecord {
    fn from(c: Cell) -> CellRecord {
        let mut r = CellRecord {
            verdict: c.word().to_string(),
            target_test: None,
            source_test: None,
            witness: None,
            tried: None,
            total: None,
            why: None,
            contexts: None,
            vacuous: None,
            outside: None,
        };
        match c {
            Cell::Unsound(Some(cx)) => {
                let cx = *cx;
                r.witness = Some(match cx.witness {
                    Witness::Outcome(o) => WitnessRecord::Exists(o),
                    Witness::Flag(f) => WitnessRecord::Flag(f),
                });
                r.target_test = Some(cx.target_test);
                r.source_test = Some(cx.source_test);
                r.tried = Some(cx.tried);
                r.total = Some(cx.total);
            }
            Cell::Unknown(why) => r.why = Some(why),
            Cell::Bounded {
                contexts,
                vacuous,
                outside,
            } => {
                r.contexts = Some(contexts);
                r.vacuous = Some(vacuous);
                r.outside = Some(outside);
            }
            _ => {}
        }
        r
    }
}

impl TryFrom<CellRecord> for Cell {
    type Error = String;

    fn try_from(r: CellRecord) -> Result<Cell, String> {
        match r.verdict.as_str() {
            "sound" => Ok(Cell::Sound),
            "unsound*" => Ok(Cell::Unsound(None)),
            "bounded" | "vacuous" => match (r.contexts, r.vacuous, r.outside.unwrap_or(0)) {
                (Some(contexts), Some(vacuous), outside) if vacuous + outside <= contexts => {
                    Ok(Cell::Bounded {
                        contexts,
                        vacuous,
                        outside,
                    })
                }
                _ => Err(
                    "a bounded cell needs contexts and vacuous (vacuous and outside within contexts)"
                        .into(),
                ),
            },
            "unknown" => r
                .why
                .map(Cell::Unknown)
                .ok_or_else(|| "an unknown cell without its `why`".to_string()),
            "unsound" => {
                let (Some(target_test), Some(source_test), Some(witness), Some(tried), Some(total)) =
                    (r.target_test, r.source_test, r.witness, r.tried, r.total)
                else {
                    return Err(
                        "an unsound cell needs target_test, source_test, witness, tried and total"
                            .into(),
                    );
                };
                let witness = match witness {
                    WitnessRecord::Exists(o) => Witness::Outcome(o),
                    WitnessRecord::Flag(f) => Witness::Flag(f),
                };
                Ok(Cell::Unsound(Some(Box::new(Counterexample {
                    target_test,
                    source_test,
                    witness,
                    tried,
                    total,
                }))))
            }
            other => Err(format!(
                "no verdict `{other}` (sound, unsound, unsound*, bounded, vacuous, unknown)"
            )),
        }
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

/// The line that ends a shard's records: it went through all `n` instances.
pub fn end_line(n: usize) -> String {
    sweep::end_line(UNIT, n)
}

/// What a file of records holds.
pub type Read = sweep::Lines<Header, Record>;

/// Reads a file of records named `file`; errors say `file:line`.
pub fn read(file: &str, text: &str) -> Result<Read, String> {
    sweep::read(file, text, "transformations", UNIT)
}

/// Records from several files (shards, or runs resumed), one per instance.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The first file's (its shard aside, every file's).
    pub header: Header,
    /// By instance index.
    pub rows: BTreeMap<usize, Row>,
    /// Why these are not all the table's instances (a shard missing, a
    /// sweep stopped); empty when they are.
    pub incomplete: Vec<String>,
}

impl Merged {
    /// The table of the rows recorded, in the instance order.
    pub fn table(&self) -> Table {
        Table {
            models: self.header.models.clone(),
            rows: self.rows.values().cloned().collect(),
            bound: self.header.bound,
        }
    }
}

/// Merges files read by [`read`], named; they must be records of the same
/// table (models, bound, timeout, schemas). `labels`, when known, name the
/// table's instances in order, for the ones no file records.
pub fn merge(files: &[(String, Read)], labels: Option<&[String]>) -> Result<Merged, String> {
    let Some((first_name, first)) = files.first() else {
        return Err("--merge names no file".to_string());
    };
    let mut seen: BTreeMap<usize, (&str, &str)> = BTreeMap::new();
    let mut rows = BTreeMap::new();
    for (name, f) in files {
        let diff = first.header.differences(&f.header);
        if let Some((field, ours, theirs)) = diff.first() {
            return Err(format!(
                "{name} holds records of another table than {first_name}: {field} {theirs}, not {ours}"
            ));
        }
        for r in &f.records {
            r.check(&f.header).map_err(|e| format!("{name}: {e}"))?;
            let (by, label) = *seen
                .entry(r.index)
                .or_insert((name.as_str(), r.instance.as_str()));
            if label != r.instance {
                return Err(format!(
                    "{name}: instance {} is {}, but {label} in {by}",
                    r.index, r.instance
                ));
            }
            rows.entry(r.index).or_insert_with(|| r.row());
        }
    }
    let parts: Vec<Part> = files
        .iter()
        .map(|(name, f)| Part {
            file: name,
            shard: &f.header.shard,
            finished: f.finished,
            recorded: f.records.len(),
            total: f.header.shard_instances().map(|n| n as u64),
        })
        .collect();
    let mut incomplete = sweep::missing(&parts, UNIT);
    let n = first.header.instances;
    if rows.len() < n {
        let labels = labels.filter(|l| l.len() == n);
        let name = |i: usize| labels.map_or(format!("#{i}"), |l| l[i].clone());
        let absent: Vec<String> = (0..n).filter(|i| !rows.contains_key(i)).map(name).collect();
        let more = if absent.len() > 8 { ", ..." } else { "" };
        incomplete.push(format!(
            "{} of {n} instances have no record: {}{more}",
            absent.len(),
            absent[..absent.len().min(8)].join(", ")
        ));
    }
    Ok(Merged {
        header: first.header.clone(),
        rows,
        incomplete,
    })
}
