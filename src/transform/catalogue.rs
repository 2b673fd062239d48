//! Transformation schemas as data: a refinement file with holes. Lines
//! `holes NAME = V1 V2 ...` before `refine` name each hole and its values;
//! `{NAME}` in the rest of the file is replaced by each value in turn, and
//! every combination is one instance. The bundled schemas live in
//! `transformations/*.refine` at the top of the repository.

use crate::refinement::{parse_refinement, Refinement};
use crate::syntax::{Diagnostic, Diagnostics, Span};

/// A schema: its name (the file's stem), its text, its holes.
#[derive(Clone, Debug)]
pub struct Schema {
    pub name: String,
    /// The text with each `holes` line blanked (lines and columns kept).
    pub body: String,
    pub holes: Vec<(String, Vec<String>)>,
}

/// One instance: the schema's name, the values chosen, the refinement.
#[derive(Clone, Debug)]
pub struct Instance {
    pub schema: String,
    pub choice: Vec<(String, String)>,
    pub refinement: Refinement,
}

impl Instance {
    /// `schema[M1=rlx,M2=acq]`, or the schema's name when it has no holes.
    pub fn label(&self) -> String {
        label(&self.schema, &self.choice)
    }
}

/// `schema[H=v,...]`.
pub fn label(schema: &str, choice: &[(String, String)]) -> String {
    if choice.is_empty() {
        return schema.to_string();
    }
    let c: Vec<String> = choice.iter().map(|(h, v)| format!("{h}={v}")).collect();
    format!("{schema}[{}]", c.join(","))
}

/// An instance's label as a file name: `reorder-rr[M1=acq,M2=rlx]` is
/// `reorder-rr_M1-acq_M2-rlx` (`=` a hyphen, every other run of signs one
/// `_`, none at either end).
pub fn file_stem(label: &str) -> String {
    let mut stem = String::new();
    for c in label.chars() {
        match c {
            c if c.is_ascii_alphanumeric() || c == '-' => stem.push(c),
            '=' => stem.push('-'),
            _ if !stem.is_empty() && !stem.ends_with('_') => stem.push('_'),
            _ => {}
        }
    }
    stem.trim_end_matches('_').to_string()
}

/// The bundled schemas, in file order.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "elim-fence",
        include_str!("../../transformations/elim-fence.refine"),
    ),
    (
        "elim-rar",
        include_str!("../../transformations/elim-rar.refine"),
    ),
    (
        "elim-raw",
        include_str!("../../transformations/elim-raw.refine"),
    ),
    (
        "elim-war",
        include_str!("../../transformations/elim-war.refine"),
    ),
    (
        "elim-waw",
        include_str!("../../transformations/elim-waw.refine"),
    ),
    (
        "false-dep",
        include_str!("../../transformations/false-dep.refine"),
    ),
    (
        "fence-insert",
        include_str!("../../transformations/fence-insert.refine"),
    ),
    (
        "if-common",
        include_str!("../../transformations/if-common.refine"),
    ),
    (
        "if-propagate",
        include_str!("../../transformations/if-propagate.refine"),
    ),
    (
        "intro-read",
        include_str!("../../transformations/intro-read.refine"),
    ),
    (
        "intro-write",
        include_str!("../../transformations/intro-write.refine"),
    ),
    (
        "reorder-fr",
        include_str!("../../transformations/reorder-fr.refine"),
    ),
    (
        "reorder-fw",
        include_str!("../../transformations/reorder-fw.refine"),
    ),
    (
        "reorder-rf",
        include_str!("../../transformations/reorder-rf.refine"),
    ),
    (
        "reorder-rr-same",
        include_str!("../../transformations/reorder-rr-same.refine"),
    ),
    (
        "reorder-rr",
        include_str!("../../transformations/reorder-rr.refine"),
    ),
    (
        "reorder-rw-dep",
        include_str!("../../transformations/reorder-rw-dep.refine"),
    ),
    (
        "reorder-rw",
        include_str!("../../transformations/reorder-rw.refine"),
    ),
    (
        "reorder-ur",
        include_str!("../../transformations/reorder-ur.refine"),
    ),
    (
        "reorder-uw",
        include_str!("../../transformations/reorder-uw.refine"),
    ),
    (
        "reorder-wf",
        include_str!("../../transformations/reorder-wf.refine"),
    ),
    (
        "reorder-wr",
        include_str!("../../transformations/reorder-wr.refine"),
    ),
    (
        "reorder-ww-same",
        include_str!("../../transformations/reorder-ww-same.refine"),
    ),
    (
        "reorder-ww",
        include_str!("../../transformations/reorder-ww.refine"),
    ),
    (
        "rmw-split",
        include_str!("../../transformations/rmw-split.refine"),
    ),
    (
        "roach-acq",
        include_str!("../../transformations/roach-acq.refine"),
    ),
    (
        "roach-rel",
        include_str!("../../transformations/roach-rel.refine"),
    ),
    ("seq", include_str!("../../transformations/seq.refine")),
    (
        "strengthen-read",
        include_str!("../../transformations/strengthen-read.refine"),
    ),
    (
        "strengthen-scope",
        include_str!("../../transformations/strengthen-scope.refine"),
    ),
    (
        "strengthen-write",
        include_str!("../../transformations/strengthen-write.refine"),
    ),
];

/// Reads a schema's `holes` lines.
pub fn parse_schema(name: &str, src: &str) -> Result<Schema, Diagnostics> {
    let mut body = String::with_capacity(src.len());
    let mut holes: Vec<(String, Vec<String>)> = Vec::new();
    let mut at = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("holes ") {
            let span = Span::new(at, at + line.trim_end().len());
            let Some((h, vs)) = rest.split_once('=') else {
                let d = Diagnostic::error("a `holes` line names a hole and its values", span)
                    .with_hint("write `holes M1 = rlx acq sc`");
                return Err(d.into());
            };
            let h = h.trim().to_string();
            let vs: Vec<String> = vs.split_whitespace().map(str::to_string).collect();
            if h.is_empty() || !h.chars().all(|c| c.is_ascii_alphanumeric()) || vs.is_empty() {
                let d = Diagnostic::error("a hole needs a plain name and at least one value", span)
                    .with_hint("write `holes M1 = rlx acq sc`");
                return Err(d.into());
            }
            if holes.iter().any(|(g, _)| *g == h) {
                let d = Diagnostic::error(format!("the hole `{h}` is named twice"), span)
                    .with_hint("give each hole one `holes` line");
                return Err(d.into());
            }
            holes.push((h, vs));
            // Blank, not removed: errors in an instance keep their line and column.
            body.push_str(&" ".repeat(line.trim_end_matches('\n').len()));
            body.push_str(&line[line.trim_end_matches('\n').len()..]);
        } else {
            body.push_str(line);
        }
        at += line.len();
    }
    Ok(Schema {
        name: name.to_string(),
        body,
        holes,
    })
}

impl Schema {
    /// Every combination of the holes' values, the first hole slowest.
    pub fn choices(&self) -> Vec<Vec<(String, String)>> {
        let mut out = vec![Vec::new()];
        for (h, vs) in &self.holes {
            let mut next = Vec::new();
            for c in &out {
                for v in vs {
                    let mut with: Vec<(String, String)> = c.clone();
                    with.push((h.clone(), v.clone()));
                    next.push(with);
                }
            }
            out = next;
        }
        out
    }

    /// The schema's text with `choice` filled in.
    pub fn fill(&self, choice: &[(String, String)]) -> String {
        let mut text = self.body.clone();
        for (h, v) in choice {
            text = text.replace(&format!("{{{h}}}"), v);
        }
        text
    }

    /// Every instance, or the first that does not parse (with its text,
    /// to render the diagnostics against).
    pub fn instances(&self) -> Result<Vec<Instance>, (String, String, Diagnostics)> {
        let mut out = Vec::new();
        for choice in self.choices() {
            let text = self.fill(&choice);
            match parse_refinement(&text) {
                Ok(refinement) => out.push(Instance {
                    schema: self.name.clone(),
                    choice,
                    refinement,
                }),
                Err(d) => return Err((label(&self.name, &choice), text, d)),
            }
        }
        Ok(out)
    }
}
