//! `pomset vary`: the matrix of verdicts, tests × option settings, and its
//! text and Markdown rendering.

use std::collections::BTreeSet;
use std::fmt::Write;

use rayon::prelude::*;
use serde::Serialize;

use super::*;
use crate::outcome::Limits;

/// `pomset vary`'s matrix: one row per condition of each test, one column
/// per setting, the first column the default.
#[derive(Clone, Debug, Serialize)]
pub struct Matrix {
    pub settings: Vec<Setting>,
    pub rows: Vec<Row>,
}

/// One condition of one test across the settings.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub file: String,
    pub test: String,
    pub condition: String,
    /// The file's allow/forbid/expect lines, as `stated` prints them.
    pub stated: String,
    pub cells: Vec<Cell>,
    /// Per cell, whether it meets the expectation that applies under that
    /// setting (`None`: nothing stated, or the verdict is not known).
    pub met: Vec<Option<bool>>,
    /// The limit or refusal behind an `unknown` or `unsupported` cell.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Row {
    /// Whether cell `i` differs from the default column.
    pub fn differs(&self, i: usize) -> bool {
        i > 0 && self.cells.get(i) != self.cells.first()
    }
}

/// Decides every test under every setting (in parallel), overriding the
/// files' own options as `run --set` does.
pub fn vary(tests: &[Test], settings: &[Setting], limits: Limits) -> Matrix {
    vary_with(tests, settings, limits, &|| {})
}

/// `vary`, calling `step` after each decision (a test under a setting),
/// for a progress line.
pub fn vary_with(
    tests: &[Test],
    settings: &[Setting],
    limits: Limits,
    step: &(dyn Fn() + Sync),
) -> Matrix {
    let jobs: Vec<(usize, usize)> = (0..tests.len())
        .flat_map(|t| (0..settings.len()).map(move |s| (t, s)))
        .collect();
    let decided: Vec<Decided> = jobs
        .par_iter()
        .map(|&(t, s)| {
            let p = &tests[t].program;
            let d = decide(p, &settings[s].apply(p.model, false), limits);
            step();
            d
        })
        .collect();
    let mut rows = Vec::new();
    for (t, test) in tests.iter().enumerate() {
        let p = &test.program;
        let surface = crate::syntax::print::core_to_ast(p);
        let row_of = |s: usize| &decided[t * settings.len() + s];
        for (c, cond) in p.conditions.iter().enumerate() {
            let mut notes = BTreeSet::new();
            let mut cells = Vec::new();
            let mut mets = Vec::new();
            for (s, setting) in settings.iter().enumerate() {
                let d = row_of(s);
                let cell = d.cells.get(c).copied().unwrap_or(Cell::Unsupported);
                notes.extend(d.limit.iter().cloned());
                notes.extend(d.unsupported.iter().cloned());
                let model = setting.apply(p.model, false);
                mets.push(met(cond.expectation(&model), cell));
                cells.push(cell);
            }
            rows.push(Row {
                file: test.file.clone(),
                test: p.name.clone(),
                condition: surface
                    .conditions
                    .get(c)
                    .map(|x| crate::syntax::print::prop(&x.prop, 0))
                    .unwrap_or_default(),
                stated: stated(cond),
                cells,
                met: mets,
                notes: notes.into_iter().collect(),
            });
        }
    }
    Matrix {
        settings: settings.to_vec(),
        rows,
    }
}

/// How a matrix is drawn as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Aligned columns; cells differing from the default in ANSI colour
    /// when `color`, else marked `*`.
    Text { color: bool },
    /// A Markdown table; differing cells in bold.
    Markdown,
}

/// The matrix as a table: one row per condition, the stated expectation
/// beside the test, a cell that differs from the default highlighted, and
/// `✗` on a cell that contradicts the expectation under its setting.
pub fn render(m: &Matrix, style: Style) -> String {
    let mut header = vec!["test".to_string(), "stated".to_string()];
    header.extend(m.settings.iter().map(Setting::label));
    let mut body: Vec<Vec<(String, bool)>> = Vec::new();
    for row in &m.rows {
        let name = if row.condition.is_empty() || conditions_of(m, &row.test) < 2 {
            row.test.clone()
        } else {
            format!("{} ({})", row.test, row.condition)
        };
        let mut cells = vec![(name, false), (row.stated.clone(), false)];
        for (i, c) in row.cells.iter().enumerate() {
            let mark = if row.met.get(i) == Some(&Some(false)) {
                " ✗"
            } else {
                ""
            };
            cells.push((format!("{}{mark}", c.as_str()), row.differs(i)));
        }
        body.push(cells);
    }
    let mut out = String::new();
    match style {
        Style::Markdown => {
            let _ = writeln!(out, "| {} |", header.join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
            for cells in &body {
                let shown: Vec<String> = cells
                    .iter()
                    .map(|(s, hi)| {
                        let s = s.replace('|', "\\|");
                        if *hi {
                            format!("**{s}**")
                        } else {
                            s
                        }
                    })
                    .collect();
                let _ = writeln!(out, "| {} |", shown.join(" | "));
            }
        }
        Style::Text { color } => {
            let mark = |s: &str, hi: bool| {
                if hi && !color {
                    format!("*{s}")
                } else {
                    s.to_string()
                }
            };
            let widths: Vec<usize> = (0..header.len())
                .map(|i| {
                    body.iter()
                        .filter_map(|r| r.get(i))
                        .map(|(s, hi)| mark(s, *hi).chars().count())
                        .chain(std::iter::once(header[i].chars().count()))
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: Vec<(String, bool)>| {
                let mut l = String::new();
                for ((s, hi), w) in cells.into_iter().zip(&widths) {
                    let shown = mark(&s, hi);
                    let pad = w.saturating_sub(shown.chars().count());
                    if hi && color {
                        let _ = write!(l, "\x1b[1;33m{shown}\x1b[0m");
                    } else {
                        l.push_str(&shown);
                    }
                    l.push_str(&" ".repeat(pad + 2));
                }
                l.trim_end().to_string()
            };
            let _ = writeln!(
                out,
                "{}",
                line(header.iter().map(|h| (h.clone(), false)).collect())
            );
            for cells in body {
                let _ = writeln!(out, "{}", line(cells));
            }
            let legend = if color { "highlighted" } else { "marked *" };
            let _ = writeln!(
                out,
                "(cells that differ from the default are {legend}; ✗: contradicts the stated expectation under that setting)"
            );
        }
    }
    let notes: BTreeSet<String> = m
        .rows
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| format!("{}: {n}", r.test)))
        .collect();
    for n in notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

fn conditions_of(m: &Matrix, test: &str) -> usize {
    m.rows.iter().filter(|r| r.test == test).count()
}
