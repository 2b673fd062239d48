//! `pomset draw`: the complete pomsets of a test as pictures, in one call.
//!
//! ```
//! use pomset::render::draw::{draw, DrawOptions, Format};
//! let test = pomset::syntax::parse(
//!     "litmus MP\nx := 1; y.rel := 1;\n|| r := y.acq; s := x;\nforbid (r = 1 /\\ s = 0)\n",
//! ).expect("a well-formed test");
//! let opts = DrawOptions { format: Format::Text, ..DrawOptions::default() };
//! let text = draw(&test, &test.program.model, &opts).expect("drawable");
//! assert!(text.contains("W^rel y1"));
//! ```

use super::picture::{self, Picture, Shown};
use crate::engine::pwt::decide::outcomes_visiting;
use crate::model::Model;
use crate::outcome::verdict::holds;
use crate::outcome::{Limits, State};
use crate::syntax::core::Prop;
use crate::syntax::Litmus;

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
        /// Candidate executions (reaching the outcome if `outcome`).
        reaching: usize,
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
    (reaching, consistent): (usize, usize),
) -> std::fmt::Result {
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

/// Draws the chosen complete pomsets of a test in one format.
pub fn draw(lit: &Litmus, model: &Model, opts: &DrawOptions) -> Result<String, DrawError> {
    Ok(render(&pictures_counted(lit, model, opts)?.pictures, opts))
}

/// Draws the chosen candidate executions of a test under a cat model
/// (`draw --model`; see `execution::pictures` for what `opts.which` means).
pub fn draw_cat(
    lit: &Litmus,
    model: &crate::cat::Model,
    opts: &DrawOptions,
) -> Result<String, DrawError> {
    Ok(render(
        &super::execution::pictures(lit, model, opts)?.pictures,
        opts,
    ))
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

/// The pictures `opts.which` and `opts.outcome` choose, in search order.
pub fn pictures(
    lit: &Litmus,
    model: &Model,
    opts: &DrawOptions,
) -> Result<Vec<Picture>, DrawError> {
    pictures_counted(lit, model, opts).map(|d| d.pictures)
}

/// The pictures drawn, how many there were in all, and the limit that
/// stopped the search after some were found.
pub struct Drawn {
    pub pictures: Vec<Picture>,
    pub in_all: usize,
    pub limit: Option<String>,
}

/// As `pictures`, at most `opts.max_pictures` of them, with how many there
/// were in all.
pub fn pictures_counted(
    lit: &Litmus,
    model: &Model,
    opts: &DrawOptions,
) -> Result<Drawn, DrawError> {
    let p = &lit.program;
    let shown = Shown {
        all_edges: opts.all_edges,
        init: opts.init,
    };
    if matches!(opts.which, Which::Candidates | Which::Incomplete) {
        if opts.outcome.is_some() {
            return Err(DrawError::OutcomeOfCandidates);
        }
        return candidate_pictures(lit, model, opts, shown);
    }
    let room = opts.max_pictures.unwrap_or(usize::MAX);
    let mut wanted_in_all = 0usize;
    let mut pics = Vec::new();
    let mut matching = 0usize;
    let mut visit = |sem: &crate::engine::pwt::construct::Sem,
                     sk: &crate::pomset::Skeleton,
                     w: &crate::engine::pwt::check::Witness,
                     state: &State| {
        if opts.outcome.as_ref().is_some_and(|f| !holds(p, state, f)) {
            return;
        }
        matching += 1;
        let wanted = match opts.which {
            Which::Nth(n) => n == matching,
            _ => true,
        };
        wanted_in_all += usize::from(wanted);
        if wanted && pics.len() < room {
            pics.push(picture::complete(sem, p, sk, w, state, shown));
        }
    };
    let found = outcomes_visiting(p, model, opts.limits, Some(&mut visit));
    let o = found.map_err(|u| DrawError::Unsupported(u.to_string()))?;
    if pics.is_empty() {
        if let Some(l) = o.limit {
            return Err(DrawError::Limit(l));
        }
        return Err(DrawError::Nothing {
            matching,
            wanted: opts.which,
            outcome: opts.outcome.is_some(),
        });
    }
    Ok(Drawn {
        pictures: pics,
        in_all: wanted_in_all,
        limit: o.limit,
    })
}

/// Candidate pomsets: every one, or those that are not complete.
fn candidate_pictures(
    lit: &Litmus,
    model: &Model,
    opts: &DrawOptions,
    shown: Shown,
) -> Result<Drawn, DrawError> {
    use crate::engine::pwt::candidates::{candidates_visiting, Candidate};
    let p = &lit.program;
    let which = opts.which;
    let room = opts.max_pictures.unwrap_or(usize::MAX);
    let mut pics = Vec::new();
    let mut n = 0usize;
    let mut wanted_in_all = 0usize;
    let mut visit = |sem: &crate::engine::pwt::construct::Sem, c: &Candidate| {
        n += 1;
        if which == Which::Candidates || !c.complete {
            wanted_in_all += 1;
            if pics.len() < room {
                pics.push(picture::candidate(sem, p, n, c, shown));
            }
        }
    };
    let listing = candidates_visiting(p, model, opts.limits, &mut visit)
        .map_err(|u| DrawError::Unsupported(u.to_string()))?;
    if pics.is_empty() {
        if let Some(l) = listing.limit {
            return Err(DrawError::Limit(l));
        }
        return Err(DrawError::Nothing {
            matching: listing.candidates,
            wanted: which,
            outcome: false,
        });
    }
    Ok(Drawn {
        pictures: pics,
        in_all: wanted_in_all,
        limit: listing.limit,
    })
}

/// `pomset run --draw DIR`: for each condition that some complete pomset
/// satisfies, the first such pomset as `DIR/NAME.K.svg` (K counts the
/// file's conditions from 1). Returns, for each condition in order, the
/// file written, or `None` when no complete pomset satisfies it.
pub fn witnesses(
    lit: &Litmus,
    model: &Model,
    limits: Limits,
    dir: &std::path::Path,
) -> Result<Vec<Option<std::path::PathBuf>>, String> {
    let p = &lit.program;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem: String = p
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut written = Vec::new();
    for (k, c) in p.conditions.iter().enumerate() {
        let opts = DrawOptions {
            format: Format::Svg,
            outcome: Some(c.prop.clone()),
            limits,
            ..DrawOptions::default()
        };
        let svg = match draw(lit, model, &opts) {
            Ok(svg) => svg,
            Err(DrawError::Nothing { .. }) => {
                written.push(None);
                continue;
            }
            Err(e) => return Err(e.to_string()),
        };
        let path = dir.join(format!("{stem}.{}.svg", k + 1));
        std::fs::write(&path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(Some(path));
    }
    Ok(written)
}
