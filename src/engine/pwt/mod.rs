//! The pomset engine: the denotation (Fig. 1) from the core program to
//! pomsets with predicate transformers, one function per construct in
//! `construct.rs`; the candidate conditions and rf search in `check`;
//! completeness and outcomes in `decide.rs`; independent readers decided
//! as a product in `factor.rs`; pomsets as text (`text.rs`) and as the
//! plain pictures `render` draws (`picture.rs`).
//!
//! Outside `engine/`, the engine is what this file exports: `Pwt` (the
//! `Engine`), and the entry points re-exported below for what only the
//! pomset semantics does (its listings, pictures, refusals); no other
//! module names the submodules (`tests/it/layering.rs`).

pub mod candidates;
pub mod check;
pub mod construct;
pub mod decide;
pub mod explain;
pub mod expr;
pub mod factor;
pub mod gap;
pub mod goal;
pub mod if_closure;
pub mod picture;
pub mod refine;
mod session;
pub mod tau;
pub mod text;

pub use decide::{outcomes, refused, refused_program};
pub use explain::{explain_text, explain_text_within};
pub use picture::{pictures, pictures_counted};
pub use text::{candidate_texts, pomset_texts, Texts};

use super::{Capability, Engine, LocalRefinement};
use crate::model::Model;
use crate::outcome::{Limits, Outcomes};
use crate::render::draw::{DrawOptions, Drawn};
use crate::report::Report;
use crate::syntax::core::{Program, Stmt};
use crate::syntax::Litmus;

/// The pomset semantics (`pwt`), the default model: every capability.
pub struct Pwt;

/// How a report says that an option value is not implemented.
const NOT_YET: &str = "is not implemented by `run` yet";

/// The note of a `--verdict-only` report counted over every state: the
/// readers' product decided them all, more cheaply than the searches.
pub const ALL_STATES: &str = "--verdict-only: the verdicts are counted over every state, since keeping the readers apart decided them all at less cost than searching for the verdicts alone";

impl Engine for Pwt {
    fn name(&self) -> &str {
        "pwt"
    }

    fn can(&self, c: Capability) -> bool {
        // Not the spin reduction: with dropped reads (`?`) the pomsets of a
        // loop unrolled under an `if` reach states its last pass does not
        // (the book's "Spin loops" has the test). Not blind to modes: an
        // acquire orders what a relaxed read does not.
        !matches!(
            c,
            Capability::Vulkan | Capability::SpinReduction | Capability::ModeBlind
        )
    }

    fn outcomes(&self, p: &Program, model: &Model, limits: Limits) -> Result<Outcomes, String> {
        decide::outcomes(p, model, limits).map_err(|u| u.sentence(NOT_YET))
    }

    fn verdicts(&self, p: &Program, model: &Model, limits: Limits) -> Report {
        let start = std::time::Instant::now();
        if let Err(u) = decide::refused_program(p, model) {
            return Report::unsupported(p, model, u.sentence(NOT_YET));
        }
        // One decision path: where `run` keeps a read-only thread's reads
        // apart (`factor`), their product holds every state at a fraction of
        // the cost of the two goal searches (CoRR-10: 0.03 s against minutes),
        // so the verdicts are read off it, counted as `run` counts them. A
        // product cut by a limit says nothing: the searches then decide.
        if let Some(o) = factor::decide_split(p, model, limits).filter(|o| o.limit.is_none()) {
            let mut report = Report::listing(p, model, &o, start.elapsed(), limits.listed);
            report.warnings.push(ALL_STATES.to_string());
            return report;
        }
        match decide::settle_conditions(p, model, limits) {
            Ok(found) => Report::settled(p, model, &found, start.elapsed()),
            Err(u) => Report::unsupported(p, model, u.sentence(NOT_YET)),
        }
    }

    fn explain(
        &self,
        p: &Program,
        model: &Model,
        chosen: &[usize],
        limits: &Limits,
    ) -> Result<String, String> {
        decide::refused_program(p, model).map_err(|u| crate::outcome::state::refusal_text(&u))?;
        Ok(explain::explain_text_within(p, model, chosen, limits))
    }

    fn pictures(
        &self,
        test: &Litmus,
        model: &Model,
        opts: &DrawOptions,
    ) -> Result<(Drawn, &'static str), String> {
        picture::pictures_counted(test, model, opts)
            .map(|d| (d, "pomsets"))
            .map_err(|e| e.to_string())
    }

    fn refine_locally(
        &self,
        p: &Program,
        source: &Stmt,
        target: &Stmt,
        model: &Model,
        max_pomsets: usize,
        limits: Limits,
    ) -> Result<LocalRefinement, String> {
        decide::refused_locally(model).map_err(|u| u.sentence("is refused"))?;
        Ok(refine::refine_locally(
            p,
            source,
            target,
            model,
            max_pomsets,
            limits,
        ))
    }
}
