//! A picture as SVG, laid out in Rust so it needs no external program:
//! one column per thread, one row per program-order position, arrows
//! between columns straight and arrows within a column curved around the
//! events they pass, parallel arrows fanned apart.

use std::fmt::Write;

use super::picture::{Arrow, Class, Label, Picture};
use crate::action::Kind;

const FONT: f64 = 15.0;
const SMALL: f64 = 10.5;
/// Average advance of a character, as a fraction of the font size (serif).
const ADVANCE: f64 = 0.56;
const ROW: f64 = 64.0;
const MARGIN: f64 = 24.0;
const HEADER: f64 = 58.0;
const BOX_H: f64 = 24.0;

/// Where things go.
struct Layout {
    x: Vec<f64>,
    y: Vec<f64>,
    /// Half width of each event's box.
    half: Vec<f64>,
    columns: Vec<f64>,
    width: f64,
    height: f64,
}

fn layout(pic: &Picture) -> Layout {
    let half: Vec<f64> = pic.events.iter().map(|n| width(n) / 2.0 + 6.0).collect();
    let mut columns = Vec::new();
    let mut x = MARGIN;
    for c in 0..pic.threads.len() {
        let w = pic
            .events
            .iter()
            .zip(&half)
            .filter(|(n, _)| n.column == c)
            .map(|(_, h)| 2.0 * h)
            .fold(text_width(&pic.threads[c], FONT), f64::max);
        // Room for curved arrows to the right of the column.
        let w = w.max(90.0) + 70.0;
        columns.push(x + w / 2.0);
        x += w;
    }
    let xs = pic.events.iter().map(|n| columns[n.column]).collect();
    let ys = pic
        .events
        .iter()
        .map(|n| HEADER + 20.0 + n.row as f64 * ROW)
        .collect();
    let title = text_width(&pic.title, FONT) * 1.15 + 2.0 * MARGIN;
    Layout {
        x: xs,
        y: ys,
        half,
        columns,
        width: (x + MARGIN).max(title),
        height: HEADER + 20.0 + pic.rows().saturating_sub(1) as f64 * ROW + 30.0,
    }
}

fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * ADVANCE
}

fn width(n: &super::picture::Node) -> f64 {
    let l = &n.label;
    let sup = l.mode.map_or(0.0, |m| text_width(m.as_str(), SMALL));
    let sub = l.scope.map_or(0.0, |s| text_width(s.as_str(), SMALL));
    let rest = l.loc.as_ref().map_or(0.0, |loc| {
        text_width(&format!(" {loc}{}", l.value.unwrap_or(0)), FONT)
    });
    let kappa = n
        .kappa
        .as_ref()
        .map_or(0.0, |k| text_width(&format!("{k} | "), FONT));
    kappa + FONT * 0.75 + sup.max(sub) + rest
}

/// One SVG document holding every picture, stacked.
pub fn document(pics: &[Picture], legend: bool) -> String {
    let drawn: Vec<(f64, f64, String)> = pics.iter().map(|p| picture(p, legend)).collect();
    let (w, h, body) = grid(&drawn);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"DejaVu Serif, Times, serif\" font-size=\"{FONT}\">"
    );
    out.push_str(&markers());
    let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

/// Many pictures as a grid of about √n columns, never one endless strip:
/// each cell is as wide as the widest picture, each row as tall as its
/// tallest. The document's width, height and body.
fn grid(drawn: &[(f64, f64, String)]) -> (f64, f64, String) {
    let columns = grid_columns(drawn.len());
    let cell = drawn.iter().map(|d| d.0).fold(0.0f64, f64::max);
    let mut body = String::new();
    let mut h = 0.0f64;
    for row in drawn.chunks(columns) {
        for (k, (_, _, g)) in row.iter().enumerate() {
            let x = k as f64 * cell;
            let _ = writeln!(body, "<g transform=\"translate({x},{h})\">\n{g}</g>");
        }
        h += row.iter().map(|d| d.1).fold(0.0f64, f64::max);
    }
    (cell * columns.min(drawn.len()) as f64, h, body)
}

/// The columns of the grid for `n` pictures: ⌈√n⌉, at least one.
pub fn grid_columns(n: usize) -> usize {
    (1..=n.max(1)).find(|c| c * c >= n).unwrap_or(1)
}

fn markers() -> String {
    let mut out = String::from("<defs>\n");
    for c in Class::ALL {
        let _ = writeln!(
            out,
            "<marker id=\"head-{}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"10\" markerHeight=\"10\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#{}\"/></marker>",
            c.key(),
            c.style().0
        );
    }
    out.push_str("</defs>\n");
    out
}

/// Width, height and the drawing of one picture.
fn picture(pic: &Picture, legend: bool) -> (f64, f64, String) {
    let l = layout(pic);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<text x=\"{MARGIN}\" y=\"24\" font-weight=\"bold\">{}</text>",
        escape(&pic.title)
    );
    for (c, name) in pic.threads.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-style=\"italic\" fill=\"#555555\">{}</text>",
            l.columns[c],
            HEADER,
            escape(name)
        );
    }
    for (i, a) in pic.arrows.iter().enumerate() {
        out.push_str(&arrow(pic, &l, i, a));
    }
    for (i, n) in pic.events.iter().enumerate() {
        let (x, y, h) = (l.x[i], l.y[i], l.half[i]);
        let _ = writeln!(
            out,
            "<g class=\"node\" id=\"e{}\"><title>e{}</title><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{BOX_H}\" rx=\"4\" fill=\"white\" stroke=\"#cccccc\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text></g>",
            n.id,
            n.id,
            x - h,
            y - BOX_H / 2.0,
            2.0 * h,
            y + 5.0,
            node_text(n.kappa.as_deref(), &n.label)
        );
    }
    let mut height = l.height;
    let mut width = l.width;
    if legend && !pic.arrows.is_empty() {
        let classes = pic.classes();
        for (k, c) in classes.iter().enumerate() {
            let y = height + 4.0 + k as f64 * 20.0;
            let (colour, dash) = c.style();
            let dash = dash.map_or(String::new(), |d| format!(" stroke-dasharray=\"{d}\""));
            let _ = writeln!(
                out,
                "<line x1=\"{MARGIN}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#{colour}\" stroke-width=\"1.6\"{dash} marker-end=\"url(#head-{})\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>",
                MARGIN + 36.0,
                c.key(),
                MARGIN + 46.0,
                y + 4.0,
                escape(c.name())
            );
            width = width.max(MARGIN + 60.0 + text_width(c.name(), 12.0));
        }
        height += 10.0 + classes.len() as f64 * 20.0;
    }
    (width, height, out)
}

/// The label with the note's super- and subscripts: `W^rel_cta y1`.
fn node_text(kappa: Option<&str>, l: &Label) -> String {
    let mut s = String::new();
    if let Some(k) = kappa {
        let _ = write!(s, "{} | ", escape(k));
    }
    s.push_str(super::picture::kind_letter(l.kind));
    let sup = l.mode.map(|m| m.as_str());
    let sub = l.scope.map(|m| m.as_str());
    let (sw, bw) = (
        sup.map_or(0.0, |t| text_width(t, SMALL)),
        sub.map_or(0.0, |t| text_width(t, SMALL)),
    );
    if let Some(t) = sup {
        let _ = write!(s, "<tspan dy=\"-6\" font-size=\"{SMALL}\">{t}</tspan>");
    }
    match (sup.is_some(), sub) {
        (true, Some(t)) => {
            let _ = write!(
                s,
                "<tspan dx=\"{:.1}\" dy=\"10\" font-size=\"{SMALL}\">{t}</tspan><tspan dx=\"{:.1}\" dy=\"-4\">",
                -sw,
                (sw - bw).max(0.0)
            );
        }
        (false, Some(t)) => {
            let _ = write!(
                s,
                "<tspan dy=\"4\" font-size=\"{SMALL}\">{t}</tspan><tspan dy=\"-4\">"
            );
        }
        (true, None) => s.push_str("<tspan dy=\"6\">"),
        (false, None) => s.push_str("<tspan>"),
    }
    if let (Some(loc), Some(v)) = (&l.loc, l.value) {
        let space = if l.kind != Kind::Fence && (sup.is_some() || sub.is_some()) {
            " "
        } else {
            ""
        };
        let _ = write!(s, "{space}{}{v}", escape(loc));
    }
    s.push_str("</tspan>");
    s
}

/// One arrow: straight between columns, curved within a column unless the
/// events are adjacent, fanned apart when several join the same two events.
fn arrow(pic: &Picture, l: &Layout, i: usize, a: &Arrow) -> String {
    let (x1, y1, x2, y2) = (l.x[a.from], l.y[a.from], l.x[a.to], l.y[a.to]);
    let same_pair: Vec<usize> = pic
        .arrows
        .iter()
        .enumerate()
        .filter(|(_, b)| (b.from, b.to) == (a.from, a.to) || (b.from, b.to) == (a.to, a.from))
        .map(|(j, _)| j)
        .collect();
    let k = same_pair.iter().position(|&j| j == i).unwrap_or(0) as f64;
    let m = same_pair.len() as f64;
    let columns = pic.events[a.from].column.abs_diff(pic.events[a.to].column);
    // Arrows that skip a column arc over the events in between.
    let fan = (k - (m - 1.0) / 2.0) * 16.0 + 30.0 * columns.saturating_sub(1) as f64;
    let same_column = pic.events[a.from].column == pic.events[a.to].column;
    let gap = pic.events[a.from].row.abs_diff(pic.events[a.to].row);
    // Perpendicular unit vector, the same for both directions of a pair.
    let (dx, dy) = if a.from < a.to {
        (x2 - x1, y2 - y1)
    } else {
        (x1 - x2, y1 - y2)
    };
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (px, py) = (-dy / len, dx / len);
    let (cx, cy, (ux, uy)) = if same_column && gap > 1 {
        // Curve right of the column, clear of the events in between.
        let right = l.half[a.from].max(l.half[a.to]) + 16.0 + 10.0 * gap as f64 + fan.abs();
        (x1 + right, (y1 + y2) / 2.0, (1.0, 0.0))
    } else {
        let side = if fan < 0.0 { -1.0 } else { 1.0 };
        let mid = ((x1 + x2) / 2.0 + px * fan, (y1 + y2) / 2.0 + py * fan);
        (mid.0, mid.1, (px * side, py * side))
    };
    let (cx, cy) = route(l, a, (cx, cy), (ux, uy));
    let (sx, sy) = clip(x1, y1, l.half[a.from], cx, cy);
    let (ex, ey) = clip(x2, y2, l.half[a.to], cx, cy);
    let (colour, dash) = a.class.style();
    let dash = dash.map_or(String::new(), |d| format!(" stroke-dasharray=\"{d}\""));
    let width = if a.class == Class::Rmw { 2.4 } else { 1.6 };
    format!(
        "<path class=\"edge {}\" d=\"M{sx:.1},{sy:.1} Q{cx:.1},{cy:.1} {ex:.1},{ey:.1}\" fill=\"none\" stroke=\"#{colour}\" stroke-width=\"{width}\"{dash} marker-end=\"url(#head-{})\"><title>e{} → e{}: {}</title></path>\n",
        a.class.key(),
        a.class.key(),
        pic.events[a.from].id,
        pic.events[a.to].id,
        a.rules.join(", ")
    )
}

/// Where the segment from a box's centre towards (tx, ty) leaves the box.
/// The control point of an arrow's curve, routed around the boxes of
/// every other event: an arrow behind a box reads as an edge to it (the
/// Diagrams chapter promises none). The preferred point if its curve is
/// clear; else the nearest one along `away` (perpendicular to the chord, or
/// rightwards for an arc within a column), first that way, then the other.
fn route(l: &Layout, a: &Arrow, preferred: (f64, f64), away: (f64, f64)) -> (f64, f64) {
    // Along the chord, for curves that must cross a column between two rows.
    let (chord_x, chord_y) = (l.x[a.to] - l.x[a.from], l.y[a.to] - l.y[a.from]);
    let offsets = std::iter::once(0.0).chain((1..=ROUTE_TRIES).flat_map(|k| {
        let d = k as f64 * ROUTE_STEP;
        [d, -d]
    }));
    offsets
        .flat_map(|d| {
            ROUTE_ALONG.iter().map(move |&f| {
                (
                    preferred.0 + away.0 * d + chord_x * f,
                    preferred.1 + away.1 * d + chord_y * f,
                )
            })
        })
        .find(|&c| clear(l, a, c))
        .or_else(|| anywhere(l, a, preferred))
        .unwrap_or(preferred)
}

/// The clear control point nearest `preferred` on a grid over the picture,
/// for arrows no small detour frees (an arrow from under one event to above
/// another, across a column of them).
fn anywhere(l: &Layout, a: &Arrow, preferred: (f64, f64)) -> Option<(f64, f64)> {
    let columns = (l.width / ROUTE_STEP) as usize;
    let rows = (l.height / ROUTE_STEP) as usize;
    let mut grid: Vec<(f64, f64)> = (0..=columns)
        .flat_map(|i| (0..=rows).map(move |j| (i as f64 * ROUTE_STEP, j as f64 * ROUTE_STEP)))
        .collect();
    let distance = |c: &(f64, f64)| (c.0 - preferred.0).hypot(c.1 - preferred.1);
    grid.sort_by(|p, q| distance(p).total_cmp(&distance(q)));
    grid.into_iter().find(|&c| clear(l, a, c))
}

/// Shifts of the control point along the chord, as fractions of it.
const ROUTE_ALONG: [f64; 5] = [0.0, 0.15, -0.15, 0.3, -0.3];
/// How many steps of `ROUTE_STEP` px `route` tries each way.
const ROUTE_TRIES: usize = 60;
const ROUTE_STEP: f64 = 8.0;

/// Whether the curve through control point `c` misses every box but its ends'.
fn clear(l: &Layout, a: &Arrow, c: (f64, f64)) -> bool {
    let (x1, y1, x2, y2) = (l.x[a.from], l.y[a.from], l.x[a.to], l.y[a.to]);
    let s = clip(x1, y1, l.half[a.from], c.0, c.1);
    let e = clip(x2, y2, l.half[a.to], c.0, c.1);
    let points: Vec<(f64, f64)> = (0..=CURVE_SAMPLES)
        .map(|k| quadratic(s, c, e, k as f64 / CURVE_SAMPLES as f64))
        .collect();
    (0..l.x.len())
        .filter(|&j| j != a.from && j != a.to)
        .all(|j| {
            let (hw, hh) = (l.half[j] + 3.0, BOX_H / 2.0 + 3.0);
            let bx = (l.x[j] - hw, l.y[j] - hh, l.x[j] + hw, l.y[j] + hh);
            points
                .windows(2)
                .all(|w| !segment_meets_box(w[0], w[1], bx))
        })
}

const CURVE_SAMPLES: usize = 48;

/// The point at `t` of the quadratic Bézier curve from `s` through `c` to `e`.
fn quadratic(s: (f64, f64), c: (f64, f64), e: (f64, f64), t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    (
        u * u * s.0 + 2.0 * u * t * c.0 + t * t * e.0,
        u * u * s.1 + 2.0 * u * t * c.1 + t * t * e.1,
    )
}

/// Whether segment p-q meets the box (x0, y0, x1, y1) (Liang–Barsky clipping).
fn segment_meets_box(p: (f64, f64), q: (f64, f64), b: (f64, f64, f64, f64)) -> bool {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (den, num) in [
        (-dx, p.0 - b.0),
        (dx, b.2 - p.0),
        (-dy, p.1 - b.1),
        (dy, b.3 - p.1),
    ] {
        if den.abs() < 1e-12 {
            if num < 0.0 {
                return false;
            }
            continue;
        }
        let t = num / den;
        if den < 0.0 {
            t0 = t0.max(t);
        } else {
            t1 = t1.min(t);
        }
        if t0 > t1 {
            return false;
        }
    }
    true
}

fn clip(x: f64, y: f64, half: f64, tx: f64, ty: f64) -> (f64, f64) {
    let (dx, dy) = (tx - x, ty - y);
    let hh = BOX_H / 2.0 + 2.0;
    let half = half + 2.0;
    let t = match (dx.abs() > 1e-9, dy.abs() > 1e-9) {
        (true, true) => (half / dx.abs()).min(hh / dy.abs()),
        (true, false) => half / dx.abs(),
        (false, true) => hh / dy.abs(),
        (false, false) => 0.0,
    };
    (x + dx * t, y + dy * t)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
