//! The texts every front end prints the same way: the pomset listing,
//! `explain`'s lines, the model in one phrase, the options table.

pub use crate::engine::pwt::{explain_text, explain_text_within};
pub use crate::model::model_text;
use crate::model::Model;
pub use crate::outcome::state::{refusal_text, unsupported_text};

/// The complete pomsets of a test, rendered, with the search's verdict on
/// how complete the list is; shared by `pomset pomsets` and the REPL.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Listing {
    /// Each matching complete pomset in the note's notation, numbered from 1.
    pub pomsets: Vec<String>,
    /// The limit that stopped the search, if one did.
    pub limit: Option<String>,
    /// Why the semantics refuses the test, as one line (`refusal_text`),
    /// if it does: an option value it does not implement (`if_closure =
    /// on`) or a construct only the Vulkan model defines.
    pub unsupported: Option<String>,
}

impl Listing {
    /// "N complete pomsets", with how many are shown and any limit.
    pub fn summary(&self, shown: usize) -> String {
        if let Some(refusal) = &self.unsupported {
            return refusal.clone();
        }
        let n = self.pomsets.len();
        let mut out = crate::report::count(n, "complete pomset");
        if shown < n {
            out.push_str(&format!(", {shown} shown"));
        }
        if let Some(l) = &self.limit {
            out.push_str(&format!("\nLimit reached: {l} (the list is incomplete)"));
        }
        out
    }
}

/// Lists the complete pomsets whose final state satisfies `filter`
/// (rendering at most `MAX_LISTED`, so a huge test cannot exhaust memory).
pub fn pomset_listing(
    p: &crate::syntax::core::Program,
    model: &Model,
    filter: Option<&crate::syntax::core::Prop>,
    limits: crate::outcome::Limits,
) -> Listing {
    const MAX_LISTED: usize = 10_000;
    match crate::engine::pwt::pomset_texts(p, model, filter, limits, MAX_LISTED) {
        Ok(t) => Listing {
            pomsets: t.pomsets,
            limit: t.limit.or_else(|| {
                (t.matching > MAX_LISTED).then(|| format!("{MAX_LISTED} pomsets listed"))
            }),
            unsupported: None,
        },
        Err(u) => Listing {
            pomsets: Vec::new(),
            limit: None,
            unsupported: Some(refusal_text(&u)),
        },
    }
}

/// Every option with its values (default first, marked) and its doc line.
pub fn options_table() -> String {
    let mut out = String::new();
    for o in Model::OPTIONS {
        let values: Vec<String> = o
            .values
            .iter()
            .map(|v| {
                if *v == o.default {
                    format!("{v}*")
                } else {
                    v.to_string()
                }
            })
            .collect();
        out.push_str(&format!("{:<18} {}\n", o.name, values.join(" | ")));
        for line in o.doc.lines() {
            out.push_str(&format!("{:<18} {}\n", "", line.trim()));
        }
    }
    out.push_str(
        "(* marks the default; set with `--set name=value` or a `model { name = value }` block)\n",
    );
    out
}

/// The candidate pomsets (§1.3) of a test, complete or not, the first
/// `shown` of them rendered; shared by `pomset pomsets --candidates` and the
/// explorer.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CandidateListing {
    /// The first candidates in the note's notation, numbered from 1.
    pub pomsets: Vec<String>,
    /// How many candidates there are, and how many of them are complete.
    pub candidates: usize,
    pub complete: usize,
    /// The limit that stopped the search, if one did.
    pub limit: Option<String>,
}

impl CandidateListing {
    /// "N candidate pomsets, M complete", with how many are shown and any limit.
    pub fn summary(&self) -> String {
        let shown = self.pomsets.len();
        let more = if shown < self.candidates {
            format!(", {shown} shown")
        } else {
            String::new()
        };
        let mut out = format!(
            "{}, {} complete{more}",
            crate::report::count(self.candidates, "candidate pomset"),
            self.complete
        );
        if let Some(l) = &self.limit {
            out.push_str(&format!("\nLimit reached: {l} (the list is incomplete)"));
        }
        out
    }
}

/// Lists the candidate pomsets of `p`, rendering the first `shown`. `Err`:
/// what the semantics refuses, as `refusal_text` says it.
pub fn candidate_listing(
    p: &crate::syntax::core::Program,
    model: &Model,
    limits: crate::outcome::Limits,
    shown: usize,
) -> Result<CandidateListing, String> {
    match crate::engine::pwt::candidate_texts(p, model, limits, shown) {
        Ok((pomsets, l)) => Ok(CandidateListing {
            pomsets,
            candidates: l.candidates,
            complete: l.complete,
            limit: l.limit,
        }),
        Err(u) => Err(refusal_text(&u)),
    }
}
