//! `:vary OPTION`: a test decided under every value of one option.

use serde::Serialize;

use crate::model::{Model, OptionInfo};
use crate::outcome::Limits;
use crate::syntax::{self, core::Program};

/// One value of the varied option and what the test does under it.
#[derive(Clone, Debug, Serialize)]
pub struct VaryRow {
    pub value: &'static str,
    pub current: bool,
    pub default: bool,
    /// How many final states, unless a limit stopped the search.
    pub states: Option<usize>,
    pub limit: Option<String>,
    /// The value is not implemented (`if_closure = on`): nothing decided.
    pub unsupported: bool,
    /// Each condition's verdict: `Some(true)` Ok, `Some(false)` No, `None` Unknown.
    pub verdicts: Vec<Option<bool>>,
    /// Each verdict against the file's expectation under this value
    /// (`None`: nothing expected, or unknown): what the page colours by.
    pub met: Vec<Option<bool>>,
}

/// The table: the option, the model it varies from, the conditions as
/// printed, one row per value.
#[derive(Clone, Debug, Serialize)]
pub struct Variation {
    pub option: &'static str,
    pub conditions: Vec<String>,
    pub rows: Vec<VaryRow>,
}

/// Decides `p` under `base` with each value of `info` in turn.
pub fn vary(
    p: &Program,
    base: &Model,
    info: &OptionInfo,
    limits: impl Fn() -> Limits,
) -> Variation {
    let current = base.get(info.name).unwrap_or(info.default);
    let surface = syntax::print::core_to_ast(p);
    let conditions = surface
        .conditions
        .iter()
        .map(|c| syntax::print::prop(&c.prop, 0))
        .collect();
    let mut rows = Vec::new();
    for value in info.values {
        let mut model = *base;
        if model.set(info.name, value).is_err() {
            continue;
        }
        let mut row = VaryRow {
            value,
            current: *value == current,
            default: *value == info.default,
            states: None,
            limit: None,
            unsupported: false,
            verdicts: Vec::new(),
            met: Vec::new(),
        };
        // One code path with `pomset vary` and `fit` (`options_space`).
        let d = crate::options_space::decide(p, &model, limits());
        row.states = d.states;
        row.limit = d.limit;
        row.unsupported = d.unsupported.is_some();
        row.verdicts = d.ok;
        row.met = d.met;
        rows.push(row);
    }
    Variation {
        option: info.name,
        conditions,
        rows,
    }
}
