//! `run --json` against its published schema (book/src/run-json.schema.json):
//! real output of several kinds of test must validate, and a report with an
//! unknown field or a missing one must not. The validator covers the part of
//! JSON Schema the file uses (type, enum, properties, required,
//! additionalProperties, items, prefixItems, min/maxItems, minimum, oneOf,
//! $ref into $defs), so the test needs no schema crate.

use std::process::Command;

use serde_json::Value;

fn schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/book/src/run-json.schema.json");
    let text = std::fs::read_to_string(path).expect("the schema is in the book");
    serde_json::from_str(&text).expect("the schema is JSON")
}

fn type_ok(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

/// The places where `v` breaks `s`, as JSON pointers with the reason.
fn errors(root: &Value, s: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        errors(root, &root["$defs"][name], v, at, out);
        return;
    }
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let fitting = alts
            .iter()
            .filter(|a| {
                let mut e = Vec::new();
                errors(root, a, v, at, &mut e);
                e.is_empty()
            })
            .count();
        if fitting != 1 {
            out.push(format!("{at}: {fitting} alternatives of oneOf fit"));
        }
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(v, t),
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| type_ok(v, t)),
            _ => false,
        };
        if !ok {
            out.push(format!("{at}: {v} is not of type {t}"));
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            out.push(format!("{at}: {v} is not one of {e:?}"));
        }
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
        if n < min {
            out.push(format!("{at}: {n} < {min}"));
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for req in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = req.as_str().unwrap_or_default();
            if !obj.contains_key(key) {
                out.push(format!("{at}: `{key}` is missing"));
            }
        }
        for (k, x) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => errors(root, ps, x, &format!("{at}/{k}"), out),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    out.push(format!("{at}: `{k}` is not in the schema"))
                }
                None => {}
            }
        }
    }
    if let Some(arr) = v.as_array() {
        let len = arr.len() as u64;
        if s.get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| len < m)
        {
            out.push(format!("{at}: too few items"));
        }
        if s.get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| len > m)
        {
            out.push(format!("{at}: too many items"));
        }
        let prefix = s.get("prefixItems").and_then(Value::as_array);
        for (i, x) in arr.iter().enumerate() {
            let item = prefix.and_then(|p| p.get(i)).or_else(|| s.get("items"));
            if let Some(item) = item {
                errors(root, item, x, &format!("{at}/{i}"), out);
            }
        }
    }
}

fn run_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_pomset"))
        .args(["run", "--json", "--allow-unknown"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    serde_json::from_slice(&out.stdout).expect("run --json prints JSON")
}

fn validate(v: &Value) -> Vec<String> {
    let root = schema();
    let mut out = Vec::new();
    errors(&root, &root, v, "", &mut out);
    out
}

#[test]
fn real_output_validates() {
    let cases: Vec<Vec<&str>> = vec![
        // Expectations met, several states, undetermined values.
        vec![
            "examples/classic/mp+rel+acq.litmus",
            "examples/classic/lb+datas.litmus",
        ],
        // A disputed verdict.
        vec!["examples/catalogue/c21-rfi-coe-coe.litmus"],
        // A loop's bound and values outside V (warnings), a filter, forall.
        vec!["tests/foreign/herd-c/rmw.litmus"],
        // Non-default model, SC engine, a limit.
        vec!["--set", "c7a=direct", "examples/classic/sb.litmus"],
        vec!["--engine", "sc", "examples/classic/iriw.litmus"],
        vec!["--model", "sc", "book/snippets/mp-spin.litmus"],
        vec!["--model", "rc11", "examples/classic/iriw.litmus"],
        vec!["--max-states", "1", "examples/classic/iriw.litmus"],
        // A cat model's flag (Vulkan's data race), and a refused construct.
        vec!["--model", "vulkan", "examples/vulkan/mp-racy.litmus"],
        vec!["examples/vulkan/barrier-mp.litmus"],
    ];
    for args in cases {
        let v = run_json(&args);
        assert!(v.as_array().is_some_and(|a| !a.is_empty()), "{args:?}: {v}");
        let errs = validate(&v);
        assert!(errs.is_empty(), "{args:?}:\n{}", errs.join("\n"));
    }
}

#[test]
fn the_schema_catches_a_changed_report() {
    let v = run_json(&["examples/classic/mp+rel+acq.litmus"]);
    let mut added = v.clone();
    added[0]["surprise"] = Value::Bool(true);
    assert!(!validate(&added).is_empty(), "an unknown field passes");
    let mut dropped = v.clone();
    if let Some(o) = dropped[0].as_object_mut() {
        o.remove("witnesses");
    }
    assert!(!validate(&dropped).is_empty(), "a missing field passes");
    let mut wrong = v;
    wrong[0]["conditions"][0]["observation"] = Value::String("Maybe".into());
    assert!(!validate(&wrong).is_empty(), "a wrong observation passes");
}

/// `run --json` lists a capped number of states per test (10 000;
/// `--all-states` lists every one): past the cap, `unlisted` counts them
/// all, and the report still validates. Checked with a cap of 5 on a ring
/// of three store-buffering threads.
#[test]
fn a_capped_report_says_what_it_left_out() {
    let t = pomset::syntax::parse(
        "litmus SB3\nx := 1; r := y;\n|| y := 1; s := z;\n|| z := 1; u := x;\n",
    )
    .expect("parses");
    let pwt = pomset::engine::named("pwt").expect("a model");
    let p = &t.program;
    let mut report = pomset::engine::decide(pwt.as_ref(), p, &p.model, false, Default::default());
    let total = report.states.len();
    assert!(total > 5, "{total} states");
    report.list_at_most(5);
    assert_eq!(report.states.len(), 5);
    let v = serde_json::to_value(vec![&report]).expect("serialises");
    assert_eq!(v[0]["unlisted"]["total"], total);
    assert_eq!(validate(&v), Vec::<String>::new());
}
