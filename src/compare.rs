//! `pomset compare`: one test decided under several models side by side,
//! the pomset semantics (`pwt`) and cat models alike, and mapping checks
//! (an outcome the target model allows and the source model forbids is a
//! compilation-soundness counterexample).

use crate::engine::Engine;
use crate::model::Model;
use crate::outcome::Limits;
use crate::report::Report;
use crate::syntax::core::Program;

/// One named model of a comparison, with its engine (`engine::named`).
pub struct Column {
    pub name: String,
    pub engine: Box<dyn Engine>,
}

/// One condition of one test, with each model's verdict.
#[derive(Clone, Debug)]
pub struct Row {
    pub test: String,
    pub condition: String,
    /// The condition's proposition alone, as `explain` takes it.
    pub prop: String,
    /// Index of the condition in the test.
    pub index: usize,
    /// One per column: `Sometimes`, `Never`, `Always`, or why there is none.
    /// Under a loop bound that an execution reaches or may reach, `Never`
    /// and `Always` are about the executions within it and say so: `Never
    /// (--unroll 2, reached)`, `Never (--unroll 2)`. A verdict the states
    /// found before a limit settle names it (`Sometimes (found before
    /// --timeout 1)`).
    pub verdicts: Vec<String>,
    /// One per column: whether the model raised a flag it declares
    /// `undefined` on the test (under RC11 and Vulkan a data race, under
    /// the HRF models a heterogeneous race: undefined behaviour, whatever
    /// the condition; PTX's races are defined and not counted here).
    pub racy: Vec<bool>,
}

impl Row {
    /// Whether column `i` observed the condition's outcome in some execution
    /// (within a loop bound too: the bound never adds an execution; and
    /// before a limit, issue 74: a state found is a state of the program).
    pub fn allows(&self, i: usize) -> bool {
        self.verdicts.get(i).is_some_and(|v| {
            v == "Sometimes"
                || v == "Always"
                || v.starts_with("Always (--unroll")
                || v.starts_with("Sometimes (found before")
                || v.starts_with("Allowed (found before")
        })
    }

    /// Whether column `i` decided the outcome is never observed: not under a
    /// loop bound, where an execution with more iterations may observe it.
    pub fn forbids(&self, i: usize) -> bool {
        self.verdicts.get(i).is_some_and(|v| v == "Never")
    }

    /// Whether column `i` found a data race in the test.
    pub fn is_racy(&self, i: usize) -> bool {
        self.racy.get(i).copied().unwrap_or(false)
    }
}

/// Decides `p` under each column (the litmus file's `model {}` settings
/// apply to pwt) within one set of `limits` for the whole row: `--timeout`
/// bounds the test, not each model. The columns share the time left, each
/// taking an equal part of it, so time a quick model leaves over goes to
/// the models after it, and the row ends by the deadline.
pub fn rows(p: &Program, model: &Model, columns: &[Column], limits: Limits) -> Vec<Row> {
    let reports: Vec<Result<Report, String>> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            // A row reads verdicts only: the states may come one per orbit
            // or as a product of readers kept apart, and none is listed.
            let share = Limits {
                deadline: limits
                    .deadline
                    .map(|(at, secs)| (fair_share(at, columns.len() - i), secs)),
                orbits: true,
                listed: Some(0),
                ..limits
            };
            Ok(crate::engine::decide(
                c.engine.as_ref(),
                p,
                model,
                false,
                share,
            ))
        })
        .collect();
    let surface = crate::syntax::print::core_to_ast(p);
    (0..p.conditions.len())
        .map(|i| Row {
            test: p.name.clone(),
            condition: surface.conditions.get(i).map_or_else(String::new, |c| {
                format!(
                    "{} ({})",
                    c.quantifier.as_str(),
                    crate::syntax::print::prop(&c.prop, 0)
                )
            }),
            prop: surface
                .conditions
                .get(i)
                .map_or_else(String::new, |c| crate::syntax::print::prop(&c.prop, 0)),
            index: i,
            verdicts: reports.iter().map(|r| verdict(r, i)).collect(),
            racy: reports.iter().map(racy).collect(),
        })
        .collect()
}

/// Whether a report raised a flag its model declares `undefined`.
fn racy(r: &Result<Report, String>) -> bool {
    r.as_ref().is_ok_and(|r| {
        r.flags
            .iter()
            .any(|f| f.meaning == crate::outcome::FlagMeaning::Undefined)
    })
}

/// A cell of the table: the observation, or `Unknown` / `Unsupported`.
/// A `Never` or `Always` under a loop bound that an execution reaches, or
/// may reach (the engine did not find it unreached), names it
/// (`Report::mark_bounded`): an execution with more iterations may change
/// it; `--unroll 2, reached` when the engine found one that does.
/// `Sometimes` needs no mark: both of its witnesses are executions at any
/// bound. A verdict that the states found before a limit settle (issue 74)
/// names the limit beside it: `Sometimes` (a state of each kind),
/// `Allowed` (one making the condition true: not `Never`), `Not Always`
/// (one not making it true, which settles a `forall` as failed).
fn verdict(r: &Result<Report, String>, i: usize) -> String {
    match r {
        Err(_) => "Unsupported".to_string(),
        Ok(r) if r.unsupported.is_some() => "Unsupported".to_string(),
        Ok(r) => {
            let c = r.conditions.get(i);
            match (&r.limit, c.and_then(|c| c.observation)) {
                (None, Some(o)) => match c.and_then(|c| c.bounded) {
                    Some(b) if b.reached => format!("{o} (--unroll {}, reached)", b.unroll),
                    Some(b) => format!("{o} (--unroll {})", b.unroll),
                    None => o.to_string(),
                },
                (Some(l), Some(o)) => format!("{o} (found before {l})"),
                // One state each way settles `Sometimes`; one alone settles
                // that the observation is not `Never` (not `Always`).
                (Some(l), None) if c.is_some_and(|c| c.positive > 0) => {
                    format!("Allowed (found before {l})")
                }
                (Some(l), None) if c.is_some_and(|c| c.negative > 0 && c.ok == Some(false)) => {
                    format!("Not Always (found before {l})")
                }
                (Some(l), None) => format!("Unknown ({l})"),
                (None, None) => "Unknown".to_string(),
            }
        }
    }
}

/// The rows as an aligned table, one column per model.
pub fn table(columns: &[Column], rows: &[Row]) -> String {
    let mut header = vec!["test".to_string(), "condition".to_string()];
    header.extend(columns.iter().map(|c| c.name.clone()));
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.test.clone(), r.condition.clone()];
            cells.extend(r.verdicts.iter().cloned());
            cells
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            std::iter::once(&header)
                .chain(&body)
                .map(|row| row.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = line(&header);
    for row in &body {
        out.push_str(&line(row));
    }
    out
}

/// The deadline of the next of `left` columns that share the time until
/// `at`: an equal part of what remains.
fn fair_share(at: std::time::Instant, left: usize) -> std::time::Instant {
    let now = std::time::Instant::now();
    let remaining = at.saturating_duration_since(now);
    now + remaining / left.max(1) as u32
}
