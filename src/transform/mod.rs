//! Which transformations are sound, under every model (issue 29): schemas
//! of transformations as data (`catalogue`), the contextual search that
//! tells a source from its target under any engine (`context`), and the
//! table of verdicts, one row per instance, one column per model (`table`),
//! and the table as JSON Lines records, resumed and merged from shards
//! (`records`).
//!
//! Architecture invariant: runs programs only through `engine::Engine`;
//! imports no front end.

pub mod catalogue;
pub mod context;
pub mod grammar;
pub mod records;
pub mod table;

pub use catalogue::{parse_schema, Instance, Schema};
pub use context::{found_text, search, Bound, Counterexample, Found, Witness};
pub use table::{Cell, Table};

/// Every instance of the bundled schemas named (all when `names` is empty).
pub fn bundled_instances(names: &[String]) -> Result<Vec<Instance>, String> {
    let mut out = Vec::new();
    for name in names {
        if !catalogue::BUNDLED.iter().any(|(n, _)| n == name) {
            let all: Vec<&str> = catalogue::BUNDLED.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "no bundled schema is called `{name}` (schemas: {})",
                all.join(", ")
            ));
        }
    }
    for (name, src) in catalogue::BUNDLED {
        if !names.is_empty() && !names.iter().any(|n| n == name) {
            continue;
        }
        let schema =
            parse_schema(name, src).map_err(|_| format!("bundled schema {name} has errors"))?;
        let inst = schema
            .instances()
            .map_err(|(l, _, _)| format!("bundled instance {l} does not parse"))?;
        out.extend(inst);
    }
    Ok(out)
}
