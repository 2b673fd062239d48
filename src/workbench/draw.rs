//! Drawing, with plain values in and out: the pictures an engine builds
//! (`Engine::pictures`, or the pomset engine's and a cat model's own entry
//! points), rendered by `render::draw::render`.
//!
//! ```
//! use pomset::render::draw::{DrawOptions, Format};
//! let test = pomset::syntax::parse(
//!     "litmus MP\nx := 1; y.rel := 1;\n|| r := y.acq; s := x;\nforbid (r = 1 /\\ s = 0)\n",
//! ).expect("a well-formed test");
//! let opts = DrawOptions { format: Format::Text, ..DrawOptions::default() };
//! let text = pomset::workbench::draw(&test, &test.program.model, &opts).expect("drawable");
//! assert!(text.contains("W^rel y1"));
//! ```

use crate::engine::Engine;
use crate::model::Model;
use crate::outcome::Limits;
use crate::render::draw::{render, DrawError, DrawOptions, Format};
use crate::syntax::core::Prop;
use crate::syntax::Litmus;

/// `pomset draw`'s library entry point: the pomset engine's pictures of the
/// pomsets `opts` chooses (`engine::pwt::pictures_counted`), in one format.
pub fn draw(lit: &Litmus, model: &Model, opts: &DrawOptions) -> Result<String, DrawError> {
    Ok(render(
        &crate::engine::pwt::pictures_counted(lit, model, opts)?.pictures,
        opts,
    ))
}

/// Draws the chosen candidate executions of a test under a cat model
/// (`draw --model`; see `engine::axiomatic::pictures` for what `opts.which`
/// means).
pub fn draw_cat(
    lit: &Litmus,
    model: &crate::cat::Model,
    opts: &DrawOptions,
) -> Result<String, DrawError> {
    Ok(render(
        &crate::engine::axiomatic::pictures(lit, model, opts)?.pictures,
        opts,
    ))
}

/// `pomset run --draw DIR`: for each condition that some complete pomset
/// satisfies, the first such pomset as `DIR/NAME.K.svg` (K counts the
/// file's conditions from 1). Returns, for each condition in order, the
/// file written, or `None` when no complete pomset satisfies it.
pub fn draw_witnesses(
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

/// The complete pomsets (or a cat model's consistent executions) whose
/// final state satisfies `outcome`, each drawn alone in `opts.format`, with
/// how many there are in all and the limit that stopped the search.
pub fn draw_each(
    test: &Litmus,
    model: &Model,
    engine: &dyn Engine,
    outcome: Option<Prop>,
    opts: &DrawOptions,
) -> Result<(Vec<String>, usize, Option<String>), String> {
    let opts = DrawOptions {
        outcome,
        ..opts.clone()
    };
    let (drawn, _) = engine.pictures(test, model, &opts)?;
    let each = drawn
        .pictures
        .iter()
        .map(|pic| render(std::slice::from_ref(pic), &opts))
        .collect();
    Ok((each, drawn.in_all, drawn.limit))
}
