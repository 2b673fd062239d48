//! A picture as SVG, laid out in Rust so it needs no external program:
//! the shared `layout` places events and routes arrows, this draws them.

use std::fmt::Write;

use super::layout::{layout, text_width, Layout, BOX_H, FONT, HEADER, MARGIN, SMALL};
use super::picture::{Arrow, Class, Label, Picture};
use crate::action::Kind;

/// One SVG document holding every picture, stacked.
pub fn document(pics: &[Picture], legend: bool) -> String {
    let drawn: Vec<(f64, f64, String)> = pics.iter().map(|p| picture(p, legend)).collect();
    let (w, h, body) = grid(&drawn);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"DejaVu Serif, Times, serif\" font-size=\"{FONT}\">"
    );
    out.push_str(&markers(&execution_classes(pics)));
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

/// The execution classes (`draw --model`) the pictures use: none for
/// pomsets, whose documents stay as they were.
pub fn execution_classes(pics: &[Picture]) -> Vec<Class> {
    Class::EXECUTION
        .into_iter()
        .filter(|c| pics.iter().any(|p| p.arrows.iter().any(|a| a.class == *c)))
        .collect()
}

fn markers(extra: &[Class]) -> String {
    let mut out = String::from("<defs>\n");
    for c in Class::ALL.iter().chain(extra).copied() {
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

/// One arrow, along its routed curve (see `layout`).
fn arrow(pic: &Picture, l: &Layout, i: usize, a: &Arrow) -> String {
    let c = &l.curves[i];
    let ((sx, sy), (cx, cy), (ex, ey)) = (c.start, c.control, c.end);
    let (colour, dash) = a.class.style();
    let dash = dash.map_or(String::new(), |d| format!(" stroke-dasharray=\"{d}\""));
    let width = match a.class {
        Class::Rmw | Class::AtomicPair => 2.4,
        Class::Cycle => 3.2,
        _ => 1.6,
    };
    format!(
        "<path class=\"edge {}\" d=\"M{sx:.1},{sy:.1} Q{cx:.1},{cy:.1} {ex:.1},{ey:.1}\" fill=\"none\" stroke=\"#{colour}\" stroke-width=\"{width}\"{dash} marker-end=\"url(#head-{})\"><title>e{} → e{}: {}</title></path>\n",
        a.class.key(),
        a.class.key(),
        pic.events[a.from].id,
        pic.events[a.to].id,
        a.rules.join(", ")
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
