//! Error and warning messages, pinned as snapshots: each case is a small
//! broken litmus file and the exact text a user sees.

use pomset::syntax;

/// Parses and checks `src`, rendering every diagnostic as the CLI would (no colour).
fn messages(src: &str) -> String {
    match syntax::parse(src) {
        Ok(test) => test.warnings.render("test.litmus", src),
        Err(diags) => diags.render("test.litmus", src),
    }
}

macro_rules! diagnostic_case {
    ($name:ident, $src:expr) => {
        #[test]
        fn $name() {
            let out = messages($src);
            assert!(!out.is_empty(), "expected a diagnostic");
            insta::assert_snapshot!(out);
        }
    };
}

diagnostic_case!(unknown_token, "litmus T\nx := 1 $ 2;\n|| r := x;\n");
diagnostic_case!(
    write_with_acquire_mode,
    "litmus T\nx.acq := 1;\n|| r := x;\n"
);
diagnostic_case!(
    read_with_release_mode,
    "litmus T\nx := 1;\n|| r := x.rel;\n"
);
diagnostic_case!(
    fence_without_mode,
    "litmus T\nx := 1; F; y := 1;\n|| r := y;\n"
);
diagnostic_case!(
    unknown_thread_in_scopes,
    "litmus T\nscopes: gpu { cta { P0 P2 } }\nx := 1;\n|| r := x;\n"
);
diagnostic_case!(
    register_read_before_assignment,
    "litmus T\nx := q + 1;\n|| r := x;\n"
);
diagnostic_case!(
    condition_unknown_register,
    "litmus T\nx := 1;\n|| r := x;\nexists (P1:s = 1)\n"
);
diagnostic_case!(
    value_outside_v,
    "litmus T\nvalues {0, 1}\nx := 2;\n|| r := x;\nexists (r = 2)\n"
);
diagnostic_case!(equals_for_assignment, "litmus T\nx = 1;\n|| r := x;\n");
diagnostic_case!(
    missing_value_before_brace,
    "litmus T\nif (1) { x := }\n|| r := x;\n"
);
diagnostic_case!(unmatched_brace, "litmus T\nx := 1; }\n|| r := x;\n");
diagnostic_case!(
    unknown_model_option,
    "litmus T\nmodel { c7 = closure }\nx := 1;\n"
);
diagnostic_case!(
    unknown_model_value,
    "litmus T\nmodel { c7a = closur }\nx := 1;\n"
);
diagnostic_case!(
    ambiguous_register,
    "litmus T\nr := x;\n|| r := y;\nexists (r = 1)\n"
);
diagnostic_case!(
    undeclared_location_with_mode,
    "litmus T\nf.sc := 1;\n|| r := f.sc;\n"
);
diagnostic_case!(missing_header, "x := 1;\n|| r := x;\n");
diagnostic_case!(rmw_arity, "litmus T\nr := CAS(x, 1);\n");
diagnostic_case!(
    logical_or_needs_parentheses,
    "litmus T\nr := x || s := y;\n|| a := b || c;\n"
);
diagnostic_case!(unclosed_brace, "litmus T\nr := x; if (r = 1) { y := 1;\n");
diagnostic_case!(
    duplicate_header_item,
    "litmus T\nvalues {0, 1}\nvalues {0, 1, 2}\nx := 1;\n"
);
diagnostic_case!(unknown_suffix, "litmus T\nr := x.acquire;\n");
diagnostic_case!(address_of_undeclared, "litmus T\nr := [&x + 1];\n");
diagnostic_case!(
    rmw_ra_in_two_mode_form,
    "litmus T\nr := CAS.ra.ra(x, 0, 1);\n"
);
diagnostic_case!(
    unknown_verdict,
    "litmus T\nx := 1;\nexists (x = 1) expect maybe\n"
);
diagnostic_case!(
    thread_missing_from_scopes,
    "litmus T\nscopes: gpu { cta { P0 } }\nx := 1;\n|| r := x;\n"
);
diagnostic_case!(
    gpu_inside_cta,
    "litmus T\nscopes: cta { gpu { P0 } }\nx := 1;\n"
);

#[test]
fn formatter_refuses_to_drop_comments() {
    let src = "litmus T\nx := 1; // set x\n|| r := x;\n";
    let err = syntax::format(src).expect_err("a comment inside the program");
    insta::assert_snapshot!(err.render("test.litmus", src));
}

#[test]
fn errors_name_line_and_column() {
    let out = messages("litmus T\nx := 1;\n|| r := x.rel;\n");
    assert!(out.contains("test.litmus:3:11"), "{out}");
    assert!(out.contains("hint: did you mean `acq`?"), "{out}");
}

/// `locations` takes commas as `values` does (and semicolons as before), so
/// the hint's `locations { a }` extends to `locations { a, b }`.
#[test]
fn locations_take_commas_as_values_do() {
    for decl in [
        "locations { a, b }",
        "locations { a; b }",
        "locations { a @ 0, b @ 1, }",
    ] {
        let src = format!(
            "litmus T\nvalues {{0, 1}}\n{decl}\na.rel := 1; || r := b.acq;\nexists (r = 0)\n"
        );
        let test =
            syntax::parse(&src).unwrap_or_else(|d| panic!("{decl}: {}", d.render("t", &src)));
        assert_eq!(test.program.locs.len(), 2, "{decl}");
    }
    // The hint for an undeclared location names a form the parser takes.
    let src = "litmus T\na.rel := 1;\n|| r := a.acq;\n";
    let out = messages(src);
    assert!(out.contains("`locations { a }`"), "{out}");
    let fixed = "litmus T\nlocations { a, b }\na.rel := 1;\n|| r := a.acq;\n";
    assert!(syntax::parse(fixed).is_ok());
}
