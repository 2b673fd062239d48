//! The Vulkan extension: each example of examples/vulkan under the Vulkan
//! models (verdicts and flags, snapshot-tested), the pomset, SC and
//! reference engines refusing it by name, the Dat3M importer, and the
//! book's table of the extension's cat builtins.

use std::path::{Path, PathBuf};

use pomset::engine::axiomatic;
use pomset::engine::pwt::decide;
use pomset::outcome::verdict::judge;
use pomset::outcome::Unsupported;
use pomset::{cat, syntax};

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vulkan");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("examples/vulkan")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> syntax::Litmus {
    let src = std::fs::read_to_string(path).expect("readable");
    syntax::parse(&src).unwrap_or_else(|d| panic!("{}", d.render("example", &src)))
}

/// One line per test: its verdict and flags under `model`.
fn verdicts(model: &str) -> String {
    let m = cat::load(model).unwrap_or_else(|e| panic!("{}", e.render()));
    let mut out = String::new();
    for path in examples() {
        let t = load(&path);
        let p = &t.program;
        let o = axiomatic::outcomes(p, &m, pomset::outcome::Limits::default()).expect("decides");
        assert!(o.limit.is_none(), "{}: {:?}", p.name, o.limit);
        let c = p.conditions.first().expect("a condition");
        let j = judge(p, c, &o, &p.model);
        let obs = j.observation.map_or("Unknown", |x| x.as_str());
        let flags: Vec<String> = o.flags.iter().map(|(f, _)| format!("Flag {f}")).collect();
        let line = format!("{:<18} {obs:<9} {}", p.name, flags.join(" "));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn the_examples_under_vulkan_2023() {
    insta::assert_snapshot!(verdicts("vulkan"));
}

#[test]
fn the_examples_under_vulkan_2021() {
    insta::assert_snapshot!(verdicts("vulkan-2021"));
}

/// The 2021 text differs only on private accesses of one thread.
#[test]
fn the_2021_variant_differs_only_on_private_program_order() {
    let (new, old) = (verdicts("vulkan"), verdicts("vulkan-2021"));
    let differ: Vec<&str> = new
        .lines()
        .zip(old.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(differ, vec!["private-po"]);
}

/// The note defines none of the extension: every engine of the pomset
/// side refuses each example, naming the construct and where it is.
#[test]
fn the_pomset_sc_and_reference_engines_refuse_vulkan_constructs() {
    let mut refused = 0;
    for path in examples() {
        let t = load(&path);
        let p = &t.program;
        // private-po uses only `wk`, which is also the note's weak mode.
        let Some((at, what)) = p.vulkan_only() else {
            continue;
        };
        refused += 1;
        assert!(at.end > at.start, "{}: no place for {what}", p.name);
        let fast = decide::outcomes(p, &p.model, pomset::outcome::Limits::default());
        assert!(
            matches!(fast, Err(Unsupported::VulkanOnly(w, _)) if w == what),
            "{}",
            p.name
        );
        let reference = pomset::engine::reference::outcomes(
            p,
            &p.model,
            pomset::engine::reference::Limits {
                max_pomsets: 1000,
                ..Default::default()
            },
        );
        assert!(matches!(reference, Err(Unsupported::VulkanOnly(..))));
        let sc = pomset::engine::sc::outcomes(
            p,
            pomset::engine::sc::Limits {
                max_states: 1000,
                ..Default::default()
            },
        );
        assert!(sc.is_err(), "{}", p.name);
    }
    assert_eq!(refused, examples().len() - 1);
}

#[test]
fn a_barrier_is_refused_by_name() {
    let src = "litmus B\nscopes: sys { cta { P0 P1 } }\n\nP0: barrier.cta;\n|| P1: barrier.cta;\n\nexists (true)\n";
    let t = syntax::parse(src).expect("parses");
    let u = decide::outcomes(
        &t.program,
        &t.program.model,
        pomset::outcome::Limits::default(),
    );
    let Err(u) = u else { panic!("not refused") };
    assert_eq!(
        u.sentence(""),
        "`barrier` is defined by the Vulkan model only; run with --model vulkan"
    );
}

/// Misplaced qualifiers are located errors, never panics.
#[test]
fn misplaced_qualifiers_are_located_errors() {
    for (src, word) in [
        ("litmus A\n\nr := x.wk.av;\n\nexists (true)\n", "av"),
        ("litmus A\n\nx.wk.vis := 1;\n\nexists (true)\n", "vis"),
        ("litmus A\n\nF.rel.sc1;\n\nexists (true)\n", "sc1"),
        ("litmus A\n\nbarrier;\n\nexists (true)\n", "scope"),
        ("litmus A\n\nx.wk.av.av := 1;\n\nexists (true)\n", "twice"),
        ("litmus A\n\nx.sc4 := 1;\n\nexists (true)\n", "neither"),
        (
            "litmus A\n\nx.wk.semsc0 := 1;\n\nexists (true)\n",
            "semantics",
        ),
    ] {
        let d = syntax::parse(src).err().unwrap_or_else(|| panic!("{src}"));
        let text = d.render("t", src);
        assert!(text.contains(word), "{src}: {text}");
    }
}

/// A test in Dat3M's Vulkan format (written for this test after the
/// Khronos `mp` test's shape) imports into the extension and decides.
#[test]
fn a_dat3m_vulkan_test_imports_and_decides() {
    let src = "VULKAN mp-small\n\"our own\"\n{\nx=0;\ny=0;\n}\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n st.av.dv.sc0 x, 1 | ld.atom.acq.wg.sc0.semsc0 r0, y ;\n st.atom.rel.wg.sc0.semsc0 y, 1 | ld.vis.dv.sc0 r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    let t = pomset::import::load("mp-small.litmus", src, Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render("mp-small", src)));
    let printed = syntax::print::file(&t.source);
    assert!(printed.contains("x.wk.sys.av := 1"), "{printed}");
    assert!(printed.contains("y.acq.cta.semsc0"), "{printed}");
    let m = cat::load("vulkan").expect("bundled");
    let o =
        axiomatic::outcomes(&t.program, &m, pomset::outcome::Limits::default()).expect("decides");
    let c = &t.program.conditions[0];
    let j = judge(&t.program, c, &o, &t.program.model);
    assert_eq!(j.ok, Some(false), "the stale read is forbidden");
}

#[test]
fn dat3m_constructs_without_a_meaning_are_refused_with_their_place() {
    let head = "VULKAN t\n{\nx=0;\n}\n P0@sg 0, wg 0, qf 0 ;\n";
    for (body, word) in [
        (" avdevice ;\n", "avdevice"),
        (" cbar.wg 1, 0, 2 ;\n", "quorum"),
        (" rmw.atom.wg.sc0.xor r0, x, 1 ;\n", "xor"),
    ] {
        let src = format!("{head}{body}exists (x == 0)\n");
        let d = pomset::import::load("t.litmus", &src, Default::default())
            .err()
            .unwrap_or_else(|| panic!("{body}"));
        let text = d.render("t", &src);
        assert!(text.contains(word) && text.contains("t:6:"), "{text}");
    }
}

/// The chapter lists every builtin the extension adds.
#[test]
fn the_book_lists_the_vulkan_builtins() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/book/src/vulkan.md");
    let chapter = std::fs::read_to_string(path).expect("book/src/vulkan.md");
    for (name, _, _, doc) in cat::builtins::VULKAN {
        assert!(
            chapter.contains(&format!("| `{name}` |")) && chapter.contains(doc),
            "the chapter's builtin table lacks `{name}`"
        );
    }
}
