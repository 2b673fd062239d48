//! The transformation table (issue 29): a snapshot of a small catalogue,
//! and the properties every cell must have. Kept to a handful of schemas
//! and one context thread: CI runs this in debug on two cores.

use pomset::engine::{self, Engine};
use pomset::transform::{self, table, Bound, Cell, Found};

const MODELS: &[&str] = &["pwt", "rc11", "ptx", "vulkan", "sc"];

fn engines(models: &[&str]) -> Vec<(String, Box<dyn Engine>)> {
    models
        .iter()
        .map(|m| (m.to_string(), engine::named(m).expect("a bundled model")))
        .collect()
}

fn small() -> Bound {
    Bound {
        threads: 1,
        max_contexts: 400,
    }
}

/// The models of a table, each with its name.
type Named = Vec<(String, Box<dyn Engine>)>;

fn build(schemas: &[&str], models: &[&str]) -> (transform::Table, Named) {
    let names: Vec<String> = schemas.iter().map(|s| s.to_string()).collect();
    let inst = transform::bundled_instances(&names).expect("bundled schemas");
    let engines = engines(models);
    let t = table::build(&inst, &engines, small(), 2, &|_, _| {});
    (t, engines)
}

#[test]
fn table_of_a_small_catalogue_is_pinned() {
    let (t, _) = build(&["reorder-wr", "roach-acq", "elim-fence"], MODELS);
    insta::assert_snapshot!(t.text());
}

#[test]
fn every_unsound_cell_reproduces_under_run() {
    let (t, engines) = build(&["reorder-rw", "intro-write"], MODELS);
    let mut seen = 0;
    for row in &t.rows {
        for ((model, e), cell) in engines.iter().zip(&row.cells) {
            if let Cell::Unsound(Some(c)) = cell {
                seen += 1;
                assert!(
                    table::reproduces(c, e.as_ref()),
                    "{} under {model}: {}",
                    row.schema,
                    c.target_test
                );
            }
        }
    }
    assert!(seen > 0, "the sample has unsound cells");
}

#[test]
fn identity_instance_of_every_schema_has_no_counterexample() {
    for (name, src) in transform::catalogue::BUNDLED {
        let schema = transform::parse_schema(name, src).expect("bundled schema parses");
        let inst = schema.instances().expect("instances parse");
        let mut r = inst[0].refinement.clone();
        r.target = r.source.clone();
        r.target_text = r.source_text.clone();
        let bound = Bound {
            threads: 1,
            max_contexts: 6,
        };
        for (model, e) in engines(MODELS) {
            let found = transform::search(&r, e.as_ref(), &r.program.model, bound);
            assert!(
                matches!(found, Found::NoneUpTo { .. }),
                "{name} as its own target under {model}: {found:?}"
            );
        }
    }
}

#[test]
fn local_check_never_calls_sound_what_a_context_shows_unsound() {
    let (t, _) = build(
        &["reorder-rr", "reorder-ww", "elim-rar", "strengthen-read"],
        &["pwt"],
    );
    for row in &t.rows {
        if let Cell::Unknown(why) = &row.cells[0] {
            assert_ne!(why, table::DISAGREE, "{} {:?}", row.schema, row.choice);
        }
    }
    // And the table's pwt sound cells are the local check's.
    assert!(t.rows.iter().any(|r| matches!(r.cells[0], Cell::Sound)));
}

#[test]
fn bundled_catalogue_has_at_least_200_instances() {
    let all = transform::bundled_instances(&[]).expect("bundled schemas parse");
    assert!(all.len() >= 200, "{} instances", all.len());
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/transformations"))
        .expect("transformations/")
        .count();
    assert_eq!(
        files,
        transform::catalogue::BUNDLED.len(),
        "every file is bundled"
    );
}

#[test]
fn schema_hole_errors_are_located() {
    let d = transform::parse_schema("bad", "holes M1\nrefine X\n").unwrap_err();
    let text = d.render("bad.refine", "holes M1\nrefine X\n");
    assert!(text.contains("bad.refine:1:1"), "{text}");
    let s = transform::parse_schema("s", "holes M = rlx\nrefine X\nsource { x.{M} := 1 }\n")
        .expect("holes parse");
    let err = s.instances().unwrap_err();
    assert_eq!(err.0, "s[M=rlx]");
}
