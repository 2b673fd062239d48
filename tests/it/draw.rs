//! Diagrams: snapshots of every format for eight examples, and SVG that
//! parses as XML with one node per event and one path per drawn arrow.

use pomset::engine::pwt::pictures;
use pomset::render::draw::{DrawError, DrawOptions, Format, Which};
use pomset::render::picture::Class;
use pomset::syntax;
use pomset::workbench::{draw, draw_cat};

const EXAMPLES: [&str; 8] = [
    "classic/mp+rel+acq",
    "classic/lb",
    "classic/sb",
    "classic/iriw",
    "catalogue/c13-pub1-sys",
    "catalogue/c19-rfi-bad-exchg",
    "catalogue/c06-mp-fences",
    "classic/lb+false-dep",
];

fn load(name: &str) -> syntax::Litmus {
    let path = format!("{}/examples/{name}.litmus", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).expect("example exists");
    syntax::parse(&src).expect("example parses")
}

fn opts(format: Format) -> DrawOptions {
    DrawOptions {
        format,
        ..DrawOptions::default()
    }
}

#[test]
fn every_format_of_eight_examples() {
    for name in EXAMPLES {
        let test = load(name);
        let key = name.rsplit('/').next().unwrap_or(name);
        for (format, ext) in [
            (Format::Text, "text"),
            (Format::Dot, "dot"),
            (Format::Tikz, "tikz"),
            (Format::Svg, "svg"),
        ] {
            let out = draw(&test, &test.program.model, &opts(format)).expect("drawable");
            insta::assert_snapshot!(format!("{key}.{ext}"), out);
        }
    }
}

#[test]
fn every_example_renders_to_svg_with_a_node_per_event_and_a_path_per_arrow() {
    let dir = format!("{}/examples", env!("CARGO_MANIFEST_DIR"));
    let files = pomset::cli::litmus_files(&[dir.into()]).expect("examples listed");
    assert!(files.len() > 60);
    for path in files {
        let src = std::fs::read_to_string(&path).expect("readable");
        let test = syntax::parse(&src).expect("parses");
        let o = opts(Format::Svg);
        let Ok(pics) = pictures(&test, &test.program.model, &o) else {
            continue;
        };
        let svg = pomset::render::draw::render(&pics, &o);
        let doc = roxmltree::Document::parse(&svg)
            .unwrap_or_else(|e| panic!("{}: not XML: {e}", path.display()));
        let class = |n: &roxmltree::Node, c: &str| {
            n.attribute("class")
                .is_some_and(|k| k.split(' ').next() == Some(c))
        };
        let nodes = doc.descendants().filter(|n| class(n, "node")).count();
        let edges = doc.descendants().filter(|n| class(n, "edge")).count();
        assert_eq!(nodes, pics[0].events.len(), "{}", path.display());
        assert_eq!(edges, pics[0].arrows.len(), "{}", path.display());
    }
}

#[test]
fn rf_without_order_and_all_edges() {
    // MP+rel+acq's pomset with r=1, s=1: rf is inside matching order, so no
    // bare rf arrow; --all-edges adds e2→e5's transitive companions.
    let test = load("classic/mp+rel+acq");
    let mut o = opts(Format::Text);
    o.which = Which::Complete;
    let reduced = pictures(&test, &test.program.model, &o).expect("drawable");
    o.all_edges = true;
    let all = pictures(&test, &test.program.model, &o).expect("drawable");
    assert_eq!(reduced.len(), all.len());
    let count = |p: &[pomset::render::Picture]| p.iter().map(|p| p.arrows.len()).sum::<usize>();
    assert!(count(&all) > count(&reduced));
}

#[test]
fn candidates_and_missing_pomsets_are_one_line_errors() {
    let test = load("classic/mp");
    let mut o = opts(Format::Text);
    o.which = Which::Incomplete;
    o.outcome = test.program.conditions.last().map(|c| c.prop.clone());
    let e = draw(&test, &test.program.model, &o).expect_err("no final state");
    assert!(e.to_string().contains("drop --outcome"), "{e}");
    o.outcome = None;
    o.which = Which::Nth(1000);
    let e = draw(&test, &test.program.model, &o).expect_err("too few pomsets");
    assert_eq!(
        e.to_string(),
        "there are 9 complete pomsets, so there is no pomset 1000"
    );
}

#[test]
fn the_books_svgs_are_current() {
    for (name, file) in [
        ("classic/mp+rel+acq", "mp-rel-acq.svg"),
        ("catalogue/c06-mp-fences", "c06-mp-fences.svg"),
    ] {
        let test = load(name);
        // Pomset 4 of each is the message arriving: r = 1 and s = 1.
        let mut o = opts(Format::Svg);
        o.which = Which::Nth(4);
        let svg = draw(&test, &test.program.model, &o).expect("drawable");
        let path = format!("{}/book/src/diagrams/{file}", env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os("POMSET_BLESS").is_some() {
            std::fs::write(&path, &svg).expect("writable");
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == svg,
            "{file} is stale: rerun with POMSET_BLESS=1 cargo test --test it draw::"
        );
    }
}

#[test]
fn text_of_every_example_fits_in_80_columns() {
    let dir = format!("{}/examples", env!("CARGO_MANIFEST_DIR"));
    let files = pomset::cli::litmus_files(&[dir.into()]).expect("examples listed");
    for path in files {
        let src = std::fs::read_to_string(&path).expect("readable");
        let test = syntax::parse(&src).expect("parses");
        let Ok(text) = draw(&test, &test.program.model, &opts(Format::Text)) else {
            continue;
        };
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{}: {line}", path.display());
        }
    }
}

#[test]
fn rf_between_threads_points_down_unless_it_closes_a_cycle() {
    let row = |name: &str, n: usize| {
        let test = load(name);
        let mut o = opts(Format::Text);
        o.which = Which::Nth(n);
        let pics = pictures(&test, &test.program.model, &o).expect("drawable");
        pics[0]
            .events
            .iter()
            .map(|e| (e.id, e.row))
            .collect::<Vec<_>>()
    };
    // MP+rel+acq, r = 1 and s = 1: both reads sit below the writes they read.
    assert_eq!(
        row("classic/mp+rel+acq", 4),
        [(2, 0), (3, 1), (4, 2), (5, 3)]
    );
    // LB+false-dep, r = 1 and s = 1: rf and po form a cycle, rows are po.
    assert_eq!(
        row("classic/lb+false-dep", 7),
        [(2, 0), (3, 1), (4, 0), (5, 1)]
    );
    // Pomset 1 reads only initial values: rows are program order.
    assert_eq!(
        row("classic/mp+rel+acq", 1),
        [(2, 0), (3, 1), (4, 0), (5, 1)]
    );
}

/// Candidates (§1.3) draw like complete pomsets, with κ where it is not a
/// tautology and the rules they miss in the title: the two writes of CoWW
/// are each present or left out, and only both together terminate.
#[test]
fn candidates_draw_with_their_preconditions() {
    let test = load("classic/coww");
    let mut o = opts(Format::Text);
    o.which = Which::Incomplete;
    let text = draw(&test, &test.program.model, &o).expect("three incomplete candidates");
    insta::assert_snapshot!(text);
    o.which = Which::Candidates;
    let all = pictures(&test, &test.program.model, &o).expect("four candidates");
    assert_eq!(all.len(), 4);
    assert!(all[0].title.ends_with("candidate 1 (complete)"));
    let dep =
        pomset::syntax::parse("litmus DEP\nr := x; y := r;\nexists (r = 1)\n").expect("parses");
    let pics = pictures(&dep, &dep.program.model, &o).expect("candidates");
    let kappas: Vec<&str> = pics
        .iter()
        .flat_map(|p| p.events.iter().filter_map(|e| e.kappa.as_deref()))
        .collect();
    assert!(kappas.contains(&"1=s2 ∨ 0=s2 ⇒ s2=1"), "{kappas:?}");
    o.format = Format::Svg;
    let svg = draw(&dep, &dep.program.model, &o).expect("svg");
    assert!(
        svg.contains("1=s2 ∨ 0=s2 ⇒ s2=1 |"),
        "κ is drawn in the node"
    );
}

/// Event boxes by event name (`e3`): x0, y0, x1, y1.
type Boxes = Vec<(String, (f64, f64, f64, f64))>;

/// The node boxes of one SVG picture.
fn boxes(svg: &str) -> Boxes {
    let mut out = Vec::new();
    for part in svg.split("<g class=\"node\" id=\"").skip(1) {
        let id = part.split('"').next().unwrap_or_default().to_string();
        let attr = |name: &str| -> f64 {
            let key = format!(" {name}=\"");
            let start = part.find(&key).expect("rect attribute") + key.len();
            let end = start + part[start..].find('"').expect("closing quote");
            part[start..end].parse().expect("a number")
        };
        let (x, y) = (attr("x"), attr("y"));
        out.push((id, (x, y, x + attr("width"), y + attr("height"))));
    }
    out
}

/// An arrow's two ends' names and the points of its curve.
type Curve = (String, String, Vec<(f64, f64)>);

/// Each arrow of one SVG picture: its two ends' names and the points of its
/// curve (`M s Q c e`, a quadratic Bézier), finely sampled.
fn curves(svg: &str) -> Vec<Curve> {
    let mut out = Vec::new();
    for part in svg.split("<path class=\"edge ").skip(1) {
        let d = part.split(" d=\"").nth(1).and_then(|r| r.split('"').next());
        let d = d.expect("a path has d");
        let nums: Vec<f64> = d
            .split([' ', ',', 'M', 'Q'])
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().expect("a coordinate"))
            .collect();
        assert_eq!(nums.len(), 6, "{d}");
        let title = part.split("<title>").nth(1).expect("a title");
        let ends = title.split(':').next().expect("e1 → e2");
        let (from, to) = ends.split_once(" → ").expect("an arrow between two events");
        let point = |t: f64| {
            let u = 1.0 - t;
            (
                u * u * nums[0] + 2.0 * u * t * nums[2] + t * t * nums[4],
                u * u * nums[1] + 2.0 * u * t * nums[3] + t * t * nums[5],
            )
        };
        let points = (0..=400).map(|k| point(k as f64 / 400.0)).collect();
        out.push((from.to_string(), to.to_string(), points));
    }
    out
}

/// Whether segment p-q meets the box b, by clipping p-q to b's four sides.
fn meets(p: (f64, f64), q: (f64, f64), b: (f64, f64, f64, f64)) -> bool {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    for (den, num) in [
        (-dx, p.0 - b.0),
        (dx, b.2 - p.0),
        (-dy, p.1 - b.1),
        (dy, b.3 - p.1),
    ] {
        if den == 0.0 {
            if num < 0.0 {
                return false;
            }
        } else if den < 0.0 {
            t0 = t0.max(num / den);
        } else {
            t1 = t1.min(num / den);
        }
    }
    t0 <= t1
}

/// No arrow passes behind an event box other than its two ends (it would
/// read as an edge to that event): every complete pomset of IRIW+acqs, WRC
/// (relaxed and with release/acquire) and C58.
#[test]
fn arrows_never_pass_behind_other_events() {
    let mut checked = 0;
    for name in [
        "classic/iriw+acqs",
        "classic/wrc",
        "classic/wrc+rel+acq",
        "classic/iriw",
        "catalogue/c58-relseq-frel-rmw-ra-rlx",
    ] {
        let test = load(name);
        for n in 1.. {
            let mut o = opts(Format::Svg);
            o.which = Which::Nth(n);
            o.legend = Some(false);
            let Ok(svg) = draw(&test, &test.program.model, &o) else {
                break;
            };
            let boxes = boxes(&svg);
            for (from, to, points) in curves(&svg) {
                for (id, b) in boxes.iter().filter(|(id, _)| *id != from && *id != to) {
                    let hit = points.windows(2).any(|w| meets(w[0], w[1], *b));
                    assert!(
                        !hit,
                        "{name} pomset {n}: the arrow {from} → {to} passes behind {id}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "only {checked} arrows checked");
}

/// The event boxes of one TikZ picture, by event name: x0, y0, x1, y1 (cm,
/// y downwards), from each node's position and minimum size (the layout's
/// box, which every label fits inside).
fn tikz_boxes(tex: &str) -> Boxes {
    let mut out = Vec::new();
    for line in tex.lines().filter(|l| l.contains("\\node[pom event")) {
        let number = |key: &str| -> f64 {
            let rest = &line[line.find(key).expect("a minimum size") + key.len()..];
            let end = rest.find("cm").expect("a length in cm");
            rest[..end].parse().expect("a number")
        };
        let (w, h) = (number("minimum width="), number("minimum height="));
        let rest = line.split("] (").nth(1).expect("a named node");
        let (id, rest) = rest.split_once(") at (").expect("a position");
        let (x, y) = pair(rest.split(')').next().expect("a closing bracket"));
        let b = (x - w / 2.0, y - h / 2.0, x + w / 2.0, y + h / 2.0);
        out.push((id.to_string(), b));
    }
    out
}

/// `1.23, 4.56` as a point.
fn pair(s: &str) -> (f64, f64) {
    let (x, y) = s.split_once(", ").expect("x, y");
    (
        x.trim().parse().expect("a number"),
        y.trim().parse().expect("a number"),
    )
}

fn centre(b: (f64, f64, f64, f64)) -> (f64, f64) {
    ((b.0 + b.2) / 2.0, (b.1 + b.3) / 2.0)
}

/// Where the ray from a box's centre towards `t` leaves the box, as TikZ
/// starts a path at a rectangle node.
fn border(b: (f64, f64, f64, f64), t: (f64, f64)) -> (f64, f64) {
    let (c, (hw, hh)) = (centre(b), ((b.2 - b.0) / 2.0, (b.3 - b.1) / 2.0));
    let (dx, dy) = (t.0 - c.0, t.1 - c.1);
    let s = [(dx, hw), (dy, hh)]
        .iter()
        .filter(|(d, _)| d.abs() > 1e-12)
        .map(|(d, h)| h / d.abs())
        .fold(f64::INFINITY, f64::min);
    (c.0 + dx * s, c.1 + dy * s)
}

/// Each arrow of one TikZ picture, `(eA) -- (eB)` or
/// `(eA) .. controls (p) and (q) .. (eB)`, as TikZ draws it: from A's border
/// towards p to B's border towards q, finely sampled.
fn tikz_curves(tex: &str, boxes: &Boxes) -> Vec<Curve> {
    let find = |id: &str| {
        boxes
            .iter()
            .find(|(n, _)| n == id)
            .expect("a drawn event")
            .1
    };
    let mut out = Vec::new();
    for line in tex.lines().filter(|l| l.starts_with("  \\draw[pom ")) {
        let path = line.split("] ").nth(1).expect("a path");
        let path = path.split(';').next().expect("a path");
        if !path.starts_with("(e") {
            continue; // the legend
        }
        let from = path[1..path.find(')').expect("a node")].to_string();
        let to = path[path.rfind("(e").expect("a node") + 1..path.len() - 1].to_string();
        let (a, b) = (find(&from), find(&to));
        let (p, q) = match path.split_once(" .. controls (") {
            Some((_, rest)) => {
                let (p, rest) = rest.split_once(") and (").expect("two control points");
                let q = rest.split(')').next().expect("a control point");
                (pair(p), pair(q))
            }
            None => (centre(b), centre(a)),
        };
        let (s, e) = (border(a, p), border(b, q));
        let point = |t: f64| {
            let u = 1.0 - t;
            let w = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
            (
                w[0] * s.0 + w[1] * p.0 + w[2] * q.0 + w[3] * e.0,
                w[0] * s.1 + w[1] * p.1 + w[2] * q.1 + w[3] * e.1,
            )
        };
        let points = (0..=400).map(|k| point(k as f64 / 400.0)).collect();
        out.push((from, to, points));
    }
    out
}

/// The TikZ output is routed as the SVG is: parsing the coordinates it
/// emits, no arrow passes behind an event box other than its two ends, in
/// every complete pomset of the same examples.
#[test]
fn tikz_arrows_never_pass_behind_other_events() {
    let mut checked = 0;
    for name in [
        "classic/iriw+acqs",
        "classic/wrc",
        "classic/wrc+rel+acq",
        "classic/iriw",
        "catalogue/c58-relseq-frel-rmw-ra-rlx",
    ] {
        let test = load(name);
        let mut o = opts(Format::Tikz);
        o.which = Which::Complete;
        o.legend = Some(false);
        let tex = draw(&test, &test.program.model, &o).expect("drawable");
        for (n, pic) in tex.split("\\begin{tikzpicture}").skip(1).enumerate() {
            let boxes = tikz_boxes(pic);
            for (from, to, points) in tikz_curves(pic, &boxes) {
                for (id, b) in boxes.iter().filter(|(id, _)| *id != from && *id != to) {
                    let hit = points.windows(2).any(|w| meets(w[0], w[1], *b));
                    assert!(
                        !hit,
                        "{name} pomset {}: the arrow {from} → {to} passes behind {id}",
                        n + 1
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "only {checked} arrows checked");
}

/// Options for `draw --model`: the file's condition as the outcome.
fn cat_opts(test: &syntax::Litmus, format: Format, which: Which) -> DrawOptions {
    DrawOptions {
        format,
        which,
        outcome: test.program.conditions.last().map(|c| c.prop.clone()),
        ..DrawOptions::default()
    }
}

fn rc11() -> pomset::cat::Model {
    pomset::cat::load("rc11").expect("the bundled model compiles")
}

/// MP+rel+acq and SB under RC11, every candidate execution reaching the
/// condition's outcome, in every format: MP's one is inconsistent (the path
/// of `coherence` drawn), SB's is consistent (SB's outcome is allowed).
#[test]
fn mp_and_sb_under_rc11_in_every_format() {
    let model = rc11();
    for name in ["classic/mp+rel+acq", "classic/sb"] {
        let test = load(name);
        let key = name.rsplit('/').next().unwrap_or(name);
        for (format, ext) in [
            (Format::Text, "text"),
            (Format::Svg, "svg"),
            (Format::Tikz, "tikz"),
            (Format::Dot, "dot"),
        ] {
            let o = cat_opts(&test, format, Which::Candidates);
            let out = draw_cat(&test, &model, &o).expect("drawable");
            insta::assert_snapshot!(format!("{key}.rc11.{ext}"), out);
        }
    }
}

/// The forbidden outcome of MP+rel+acq: its one execution, drawn with the
/// coherence check's path (po, sw's rf, po, rb) as arrows of the cycle class.
#[test]
fn an_inconsistent_execution_draws_its_failing_path() {
    let test = load("classic/mp+rel+acq");
    let o = cat_opts(&test, Format::Text, Which::Incomplete);
    let pics = pomset::engine::axiomatic::pictures(&test, &rc11(), &o)
        .expect("one inconsistent execution")
        .pictures;
    assert_eq!(pics.len(), 1);
    assert!(
        pics[0]
            .title
            .ends_with("inconsistent under RC11: coherence fails"),
        "{}",
        pics[0].title
    );
    let cycle: Vec<(usize, usize, String)> = pics[0]
        .arrows
        .iter()
        .filter(|a| a.class == Class::Cycle)
        .map(|a| {
            let (f, t) = (pics[0].events[a.from].id, pics[0].events[a.to].id);
            (f, t, a.rules.join(","))
        })
        .collect();
    let expected = [
        (2, 3, "coherence,hb/sb/po"),
        (3, 4, "coherence,hb/sw/rf"),
        (4, 5, "coherence,hb/sb/po"),
        (5, 2, "coherence,eco/rb"),
    ];
    let expected: Vec<(usize, usize, String)> = expected
        .iter()
        .map(|&(a, b, r)| (a, b, r.to_string()))
        .collect();
    assert_eq!(cycle, expected);
    // No consistent execution reaches it: the default (the first consistent
    // one) says so and points to the inconsistent ones.
    let o = cat_opts(&test, Format::Text, Which::Nth(1));
    let e = draw_cat(&test, &rc11(), &o).expect_err("forbidden under RC11");
    assert_eq!(
        e.to_string(),
        "no consistent execution under RC11 reaches that outcome (--which incomplete draws the candidates that do, with the failing check)"
    );
}

/// Every classic example draws under RC11, each candidate execution as
/// SVG that parses with a node per event and a path per arrow, and as
/// text within 80 columns.
#[test]
fn every_classic_example_draws_under_rc11() {
    let model = rc11();
    let dir = format!("{}/examples/classic", env!("CARGO_MANIFEST_DIR"));
    let files = pomset::cli::litmus_files(&[dir.into()]).expect("examples listed");
    assert!(files.len() >= 19);
    for path in files {
        let src = std::fs::read_to_string(&path).expect("readable");
        let test = syntax::parse(&src).expect("parses");
        let mut o = cat_opts(&test, Format::Svg, Which::Candidates);
        o.outcome = None;
        o.max_pictures = Some(8);
        let drawn = pomset::engine::axiomatic::pictures(&test, &model, &o)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(drawn.limit.is_none(), "{}", path.display());
        let svg = pomset::render::draw::render(&drawn.pictures, &o);
        let doc = roxmltree::Document::parse(&svg)
            .unwrap_or_else(|e| panic!("{}: not XML: {e}", path.display()));
        let class = |n: &roxmltree::Node, c: &str| {
            n.attribute("class")
                .is_some_and(|k| k.split(' ').next() == Some(c))
        };
        let nodes = doc.descendants().filter(|n| class(n, "node")).count();
        let edges = doc.descendants().filter(|n| class(n, "edge")).count();
        let pics = &drawn.pictures;
        assert_eq!(nodes, pics.iter().map(|p| p.events.len()).sum::<usize>());
        assert_eq!(edges, pics.iter().map(|p| p.arrows.len()).sum::<usize>());
        o.format = Format::Text;
        let text = pomset::render::draw::render(pics, &o);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{}: {line}", path.display());
        }
    }
}

/// `--which complete` takes `run`'s pruned search, which cuts the parts of
/// candidates a monotone check refutes: it draws exactly the consistent
/// executions the whole enumeration (`--which candidates`) finds, as a
/// multiset of pictures (titles less their numbers), on every classic
/// example under each bundled model, with and without the file's outcome.
/// And `--which N` draws the one titled `execution N`.
#[test]
fn consistent_executions_drawn_by_the_pruned_search_are_every_consistent_one() {
    let dir = format!("{}/examples/classic", env!("CARGO_MANIFEST_DIR"));
    let files = pomset::cli::litmus_files(&[dir.into()]).expect("examples listed");
    let unnumbered = |pics: &[pomset::render::picture::Picture]| {
        let mut v: Vec<String> = pics
            .iter()
            .map(|pic| {
                let mut pic = pic.clone();
                let (before, after) = pic.title.split_once("; execution ").expect("numbered");
                let rest = after.split_once(';').map_or("", |(_, r)| r);
                pic.title = format!("{before};{rest}");
                pomset::render::draw::render(&[pic], &DrawOptions::default())
            })
            .collect();
        v.sort();
        v
    };
    let mut compared = 0;
    for name in ["rc11", "ptx", "hrf-direct"] {
        let model = pomset::cat::load(name).expect("bundled");
        for path in &files {
            let src = std::fs::read_to_string(path).expect("readable");
            let test = syntax::parse(&src).expect("parses");
            for outcome in [None, test.program.conditions.last().map(|c| c.prop.clone())] {
                let opts = |which| DrawOptions {
                    which,
                    outcome: outcome.clone(),
                    ..DrawOptions::default()
                };
                let every =
                    pomset::engine::axiomatic::pictures(&test, &model, &opts(Which::Candidates));
                let consistent =
                    pomset::engine::axiomatic::pictures(&test, &model, &opts(Which::Complete));
                let (every, consistent) = match (every, consistent) {
                    (Ok(e), Ok(c)) => (e, c.pictures),
                    (Ok(e), Err(DrawError::NoExecution { consistent: 0, .. })) => (e, Vec::new()),
                    (Err(_), Err(_)) => continue,
                    (e, c) => panic!(
                        "{} under {name}: {:?} against {:?}",
                        path.display(),
                        e.map(|d| d.in_all),
                        c.map(|d| d.in_all)
                    ),
                };
                assert!(every.limit.is_none());

                let kept: Vec<_> = every
                    .pictures
                    .into_iter()
                    .filter(|p| p.title.contains("; consistent under"))
                    .collect();
                assert_eq!(
                    unnumbered(&consistent),
                    unnumbered(&kept),
                    "{} under {name}",
                    path.display()
                );
                for (k, pic) in consistent.iter().enumerate().take(3) {
                    let nth = pomset::engine::axiomatic::pictures(
                        &test,
                        &model,
                        &opts(Which::Nth(k + 1)),
                    )
                    .expect("there are k + 1");
                    assert_eq!(nth.pictures.len(), 1);
                    assert_eq!(nth.pictures[0].title, pic.title);
                    assert!(
                        pic.title.contains(&format!("; execution {};", k + 1)),
                        "{}",
                        pic.title
                    );
                }
                compared += kept.len();
            }
        }
    }
    assert!(compared > 100, "only {compared} executions compared");
}

/// Nothing to draw, and a model that fails on an execution: one clear
/// message each, never a panic.
#[test]
fn draw_under_a_cat_model_explains_what_is_missing() {
    let test = load("classic/sb");
    let model = rc11();
    let mut o = cat_opts(&test, Format::Text, Which::Incomplete);
    let e = draw_cat(&test, &model, &o).expect_err("SB's outcome is allowed");
    assert_eq!(
        e.to_string(),
        "1 candidate execution reaches that outcome, all consistent under RC11: none to draw with --which incomplete"
    );
    o.which = Which::Nth(2);
    let e = draw_cat(&test, &model, &o).expect_err("only one");
    assert_eq!(
        e.to_string(),
        "1 consistent execution under RC11 reaches that outcome, so there is no consistent execution 2"
    );
    let never = syntax::parse("litmus N\nx := 1;\nexists ([x] = 2)\n").expect("parses");
    let o = cat_opts(&never, Format::Text, Which::Candidates);
    let e = draw_cat(&never, &model, &o).expect_err("unreachable");
    assert_eq!(e.to_string(), "no candidate execution reaches that outcome");
    let osc = pomset::cat::from_text("osc.cat", "M\nlet rec osc = ~osc\nacyclic osc\n")
        .expect("compiles: it fails only when evaluated");
    let o = cat_opts(&test, Format::Text, Which::Candidates);
    let e = draw_cat(&test, &osc, &o).expect_err("no fixpoint");
    assert!(e.to_string().contains("does not converge"), "{e}");
}

/// A model's `show`n relation is drawn, as its covering edges when it is
/// acyclic (every edge with `--all-edges`).
#[test]
fn shown_relations_are_drawn() {
    let model = pomset::cat::from_text(
        "show.cat",
        "M\nlet hb = (po | rf)+\nshow hb\nacyclic hb as causality\n",
    )
    .expect("compiles");
    let test = load("classic/mp");
    let mut o = cat_opts(&test, Format::Text, Which::Nth(1));
    let shown = |o: &DrawOptions| -> Vec<(usize, usize)> {
        let pics = pomset::engine::axiomatic::pictures(&test, &model, o)
            .expect("r = 1, s = 0 is consistent under M")
            .pictures;
        pics[0]
            .arrows
            .iter()
            .filter(|a| a.class == Class::Shown)
            .map(|a| (pics[0].events[a.from].id, pics[0].events[a.to].id))
            .collect()
    };
    assert_eq!(shown(&o), [(2, 3), (3, 4), (4, 5)]);
    o.all_edges = true;
    assert_eq!(shown(&o), [(2, 3), (2, 4), (2, 5), (3, 4), (3, 5), (4, 5)]);
}
