//! Where things go in a diagram, shared by SVG and TikZ: one column per
//! thread, one row per program-order position, a box per event, and each
//! arrow as a quadratic Bézier curve routed around the boxes of every
//! event but its two ends. Lengths are SVG pixels; TikZ scales them.

use super::picture::{Arrow, Node, Picture};

/// The label font size.
pub const FONT: f64 = 15.0;
/// The font size of modes and scopes (super- and subscripts).
pub const SMALL: f64 = 10.5;
/// Average advance of a character, as a fraction of the font size (serif).
const ADVANCE: f64 = 0.56;
const ROW: f64 = 64.0;
/// Space around the picture.
pub const MARGIN: f64 = 24.0;
/// The baseline of the thread names.
pub const HEADER: f64 = 58.0;
/// The height of an event's box.
pub const BOX_H: f64 = 24.0;

/// Where things go.
pub struct Layout {
    /// Centre of each event's box.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// Half width of each event's box.
    pub half: Vec<f64>,
    /// Centre of each thread's column.
    pub columns: Vec<f64>,
    pub width: f64,
    pub height: f64,
    /// One curve per arrow of the picture, in its order.
    pub curves: Vec<Curve>,
}

/// A quadratic Bézier curve from the border of one box through a control
/// point to the border of another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curve {
    pub start: (f64, f64),
    pub control: (f64, f64),
    pub end: (f64, f64),
}

impl Curve {
    /// The same curve as a cubic's two control points (TikZ's
    /// `.. controls a and b ..`).
    pub fn cubic(&self) -> ((f64, f64), (f64, f64)) {
        let towards = |p: (f64, f64)| {
            (
                p.0 + 2.0 / 3.0 * (self.control.0 - p.0),
                p.1 + 2.0 / 3.0 * (self.control.1 - p.1),
            )
        };
        (towards(self.start), towards(self.end))
    }

    /// Whether the control point lies on the chord: the curve is a line.
    pub fn is_straight(&self) -> bool {
        let (dx, dy) = (self.end.0 - self.start.0, self.end.1 - self.start.1);
        let (cx, cy) = (self.control.0 - self.start.0, self.control.1 - self.start.1);
        (dx * cy - dy * cx).abs() <= 1e-6 * (dx * dx + dy * dy).max(1.0)
    }
}

/// The layout of a picture, every arrow routed.
pub fn layout(pic: &Picture) -> Layout {
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
    let mut l = Layout {
        x: xs,
        y: ys,
        half,
        columns,
        width: (x + MARGIN).max(title),
        height: HEADER + 20.0 + pic.rows().saturating_sub(1) as f64 * ROW + 30.0,
        curves: Vec::new(),
    };
    l.curves = (0..pic.arrows.len()).map(|i| curve(pic, &l, i)).collect();
    l
}

/// The width of `s` in the serif font of size `size`, estimated.
pub fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * ADVANCE
}

fn width(n: &Node) -> f64 {
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

/// Arrow `i`: straight between columns, curved within a column unless the
/// events are adjacent, fanned apart when several join the same two events,
/// then routed around the other events' boxes.
fn curve(pic: &Picture, l: &Layout, i: usize) -> Curve {
    let a = &pic.arrows[i];
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
    let control = route(l, a, (cx, cy), (ux, uy));
    Curve {
        start: clip(x1, y1, l.half[a.from], control.0, control.1),
        control,
        end: clip(x2, y2, l.half[a.to], control.0, control.1),
    }
}

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

/// Where the segment from a box's centre towards (tx, ty) leaves the box.
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
