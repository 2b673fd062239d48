//! `pomset draw`'s interface: what to draw (`DrawOptions`), what an engine
//! hands back (`Drawn`: plain pictures), why nothing was drawn
//! (`DrawError`), and `render`, which prints pictures in each format. An
//! engine builds the pictures (`Engine::pictures`); this module imports no
//! engine.

use super::picture::{self, Picture};
use crate::outcome::Limits;
use crate::syntax::core::Prop;

/// The output formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    Dot,
    Tikz,
    Svg,
    #[default]
    Text,
}

/// Which pomsets to draw. "Candidates" means what it means in the note
/// (§1.3) and in `pomset pomsets --candidates`: every candidate, complete or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// Every candidate pomset (§1.3), complete or not.
    Candidates,
    /// Every complete pomset (that satisfies the outcome).
    Complete,
    /// The candidate pomsets that are not complete.
    Incomplete,
    /// The n-th complete pomset, from 1.
    Nth(usize),
}

impl Default for Which {
    fn default() -> Which {
        Which::Nth(1)
    }
}

impl Which {
    /// `--which`: complete, candidates, incomplete or a number from 1 (and,
    /// for a cat model's executions, consistent and inconsistent).
    pub fn parse(word: &str) -> Result<Which, String> {
        match word {
            "complete" | "consistent" => Ok(Which::Complete),
            "candidates" => Ok(Which::Candidates),
            "incomplete" | "inconsistent" => Ok(Which::Incomplete),
            n => match n.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(Which::Nth(n)),
                _ => Err(format!(
                    "--which takes complete, candidates (every candidate, complete or not), incomplete or a number from 1 (under a cat --model also consistent, inconsistent), not `{n}`"
                )),
            },
        }
    }
}

/// Everything `draw` needs besides the test and the model.
#[derive(Clone, Debug, Default)]
pub struct DrawOptions {
    pub format: Format,
    pub which: Which,
    /// Only pomsets whose final state satisfies this.
    pub outcome: Option<Prop>,
    /// Every edge of each order instead of its transitive reduction.
    pub all_edges: bool,
    /// `None`: the format's default (on for SVG and TikZ, off for text and DOT).
    pub legend: Option<bool>,
    /// TikZ: the `tikzpicture` alone, without the document around it.
    pub snippet: bool,
    /// Draw the initialising writes as a thread of their own.
    pub init: bool,
    /// The search's limits, as `run`'s (`--max-pomsets`, `--max-states`, ...).
    pub limits: Limits,
    /// At most this many pictures (`None`: every one); the rest are counted.
    pub max_pictures: Option<usize>,
}

/// Why nothing was drawn, as one line for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrawError {
    /// `--outcome` with `--which candidates` or `all`: a candidate need not
    /// have a final state.
    OutcomeOfCandidates,
    /// No complete pomset (with that outcome if `outcome`, or with that number).
    Nothing {
        matching: usize,
        wanted: Which,
        outcome: bool,
    },
    /// The model has an option the semantics does not implement.
    Unsupported(String),
    /// The search stopped at a limit before finding the pomset.
    Limit(String),
    /// The cat model failed on an execution (a `let rec` that does not
    /// converge): its diagnostic, rendered.
    Model(String),
    /// Under a cat model (`draw --model`): no candidate execution of the
    /// kind wanted (with the outcome if `outcome`).
    NoExecution {
        model: String,
        wanted: Which,
        outcome: bool,
        /// Candidate executions (reaching the outcome if `outcome`):
        /// `None` when the search that found none consistent cut the ones
        /// a check refutes on a part, uncounted.
        reaching: Option<usize>,
        /// Of those, the consistent ones.
        consistent: usize,
    },
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawError::OutcomeOfCandidates => write!(
                f,
                "--outcome selects complete pomsets by their final state, which a candidate need not have; drop --outcome or use --which complete"
            ),
            DrawError::Nothing {
                matching,
                wanted: Which::Incomplete,
                ..
            } => match matching {
                1 => write!(f, "the one candidate pomset is complete"),
                _ => write!(f, "all {matching} candidate pomsets are complete"),
            },
            DrawError::Nothing {
                wanted: Which::Candidates,
                ..
            } => write!(f, "there is no candidate pomset"),
            DrawError::Nothing {
                matching: 0,
                outcome: true,
                ..
            } => write!(f, "no complete pomset ends in that outcome"),
            DrawError::Nothing { matching: 0, .. } => write!(f, "the test has no complete pomset"),
            DrawError::Nothing {
                matching, wanted, ..
            } => {
                let n = match wanted {
                    Which::Nth(n) => *n,
                    _ => 0,
                };
                let there = match matching {
                    1 => "there is 1 complete pomset".to_string(),
                    m => format!("there are {m} complete pomsets"),
                };
                write!(f, "{there}, so there is no pomset {n}")
            }
            DrawError::Unsupported(o) => write!(f, "{o} is not implemented by the semantics yet"),
            DrawError::Limit(l) => write!(f, "the search stopped at a limit ({l}) before drawing"),
            DrawError::Model(e) => write!(f, "the model fails on an execution:\n{}", e.trim_end()),
            DrawError::NoExecution {
                model,
                wanted,
                outcome,
                reaching,
                consistent,
            } => no_execution(f, model, *wanted, *outcome, (*reaching, *consistent)),
        }
    }
}

impl std::error::Error for DrawError {}

/// Why `draw --model` found nothing to draw, with what there is instead.
fn no_execution(
    f: &mut std::fmt::Formatter<'_>,
    model: &str,
    wanted: Which,
    outcome: bool,
    (reaching, consistent): (Option<usize>, usize),
) -> std::fmt::Result {
    let Some(reaching) = reaching else {
        let reach = if outcome { " reaches that outcome" } else { "" };
        return match (wanted, consistent) {
            (Which::Nth(n), k) if k > 0 => write!(
                f,
                "{k} consistent execution{} under {model}{}, so there is no consistent execution {n}",
                if k == 1 { "" } else { "s" },
                match (outcome, k) {
                    (false, _) => "",
                    (true, 1) => " reaches that outcome",
                    (true, _) => " reach that outcome",
                }
            ),
            _ => write!(
                f,
                "no consistent execution under {model}{reach} (--which incomplete draws the candidates{}, with the failing check)",
                if outcome { " that do" } else { "" }
            ),
        };
    };
    let executions = |n: usize| match n {
        1 => "1 candidate execution".to_string(),
        n => format!("{n} candidate executions"),
    };
    let reach = match (outcome, reaching) {
        (false, _) => "",
        (true, 1) => " reaches that outcome",
        (true, _) => " reach that outcome",
    };
    if reaching == 0 {
        return match outcome {
            true => write!(f, "no candidate execution reaches that outcome"),
            false => write!(f, "the test has no candidate execution"),
        };
    }
    match wanted {
        Which::Incomplete => write!(
            f,
            "{}{reach}, all consistent under {model}: none to draw with --which incomplete",
            executions(reaching)
        ),
        _ if consistent == 0 => write!(
            f,
            "{}{reach}, none consistent under {model} (--which incomplete draws them with the failing check)",
            executions(reaching)
        ),
        Which::Nth(n) => write!(
            f,
            "{}{reach}, {consistent} consistent under {model}, so there is no consistent execution {n}",
            executions(reaching)
        ),
        // Candidates and Complete draw something whenever one reaches.
        _ => write!(f, "no execution to draw"),
    }
}

/// Renders pictures already built.
pub fn render(pics: &[Picture], opts: &DrawOptions) -> String {
    match opts.format {
        Format::Text => {
            let legend = opts.legend.unwrap_or(false);
            let mut parts: Vec<String> = pics.iter().map(super::text::picture).collect();
            if legend {
                parts.push(text_legend(pics));
            }
            parts.join("\n")
        }
        Format::Dot => pics
            .iter()
            .map(|p| super::dot::picture(p, opts.legend.unwrap_or(false)))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Tikz => super::tikz::document(pics, opts.legend.unwrap_or(true), opts.snippet),
        Format::Svg => super::svg::document(pics, opts.legend.unwrap_or(true)),
    }
}

/// Every pomset class, or for executions (`draw --model`) every execution class.
fn text_legend(pics: &[Picture]) -> String {
    let mut out = String::from("Legend:\n");
    let execution = pics
        .iter()
        .any(|p| p.arrows.iter().any(|a| a.class.is_execution()));
    let classes: &[picture::Class] = if execution {
        &picture::Class::EXECUTION
    } else {
        &picture::Class::ALL
    };
    for c in classes {
        out.push_str(&format!("  {}\n", c.name()));
    }
    out
}

/// The pictures drawn, how many there were in all, and the limit that
/// stopped the search after some were found.
pub struct Drawn {
    pub pictures: Vec<Picture>,
    pub in_all: usize,
    pub limit: Option<String>,
}
