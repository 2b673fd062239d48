//! A picture as TikZ: a standalone `.tex` file that pdflatex compiles, or
//! the bare `tikzpicture` for a paper that has the preamble's macros.
//! Every glyph and style goes through a macro a paper can redefine.

use std::fmt::Write;

use super::layout::{layout, BOX_H, HEADER, MARGIN};
use super::picture::{Class, Label, Picture};

/// One layout pixel in cm: 2/3 pt, so the layout's 15 px font is 10 pt.
const PX: f64 = 2.0 / 3.0 * 2.54 / 72.27;

/// The macros and styles: `\providecommand` and `\providecolor`, so a paper
/// that defines them first keeps its own.
pub fn preamble() -> String {
    let mut out = String::from(
        "\\usetikzlibrary{arrows.meta}\n\
\\providecommand{\\pomW}{\\mathsf{W}}\n\
\\providecommand{\\pomR}{\\mathsf{R}}\n\
\\providecommand{\\pomF}{\\mathsf{F}}\n\
\\providecommand{\\pommode}[1]{\\mathsf{#1}}\n\
\\providecommand{\\pomscope}[1]{\\mathsf{#1}}\n\
\\providecommand{\\pomloc}[1]{\\mathit{#1}}\n\
\\providecommand{\\pomthread}[1]{\\textit{#1}}\n",
    );
    for c in Class::ALL {
        let _ = writeln!(
            out,
            "\\providecolor{{pom{}}}{{HTML}}{{{}}}",
            c.key(),
            c.style().0.to_uppercase()
        );
    }
    out.push_str("\\tikzset{\n  pom event/.style={inner sep=2pt, fill=white},\n  pom thread/.style={inner sep=2pt},\n  pom arrow/.style={-{Stealth[length=5pt]}, semithick, shorten >=1pt, shorten <=1pt},\n");
    for c in Class::ALL {
        out.push_str(&style(c));
    }
    out.push_str("}\n");
    out
}

/// The colours and styles of the execution classes `classes` (`draw
/// --model`), after the preamble; empty when there are none.
pub fn execution_preamble(classes: &[Class]) -> String {
    if classes.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for c in classes {
        let _ = writeln!(
            out,
            "\\providecolor{{pom{}}}{{HTML}}{{{}}}",
            c.key(),
            c.style().0.to_uppercase()
        );
    }
    out.push_str("\\tikzset{\n");
    for &c in classes {
        out.push_str(&style(c));
    }
    out.push_str("}\n");
    out
}

/// One class's `pom KEY` style.
fn style(c: Class) -> String {
    let (_, dash) = c.style();
    let pattern = match (c, dash) {
        (Class::Rf | Class::LocFromSync | Class::Shown, _) => ", densely dotted",
        (Class::StrongFencing | Class::TwoOrder, _) => ", dash dot",
        (Class::Cycle, _) => ", dashed, ultra thick",
        (_, Some(_)) => ", dashed",
        (Class::Rmw | Class::AtomicPair, None) => ", very thick",
        _ => "",
    };
    format!(
        "  pom {}/.style={{pom arrow, draw=pom{}{pattern}}},\n",
        c.key(),
        c.key()
    )
}

/// A standalone document (one page per picture), or the pictures alone.
pub fn document(pics: &[Picture], legend: bool, snippet: bool) -> String {
    let body: Vec<String> = pics.iter().map(|p| picture(p, legend)).collect();
    if snippet {
        return body.join("\n");
    }
    format!(
        "\\documentclass[tikz,border=6pt]{{standalone}}\n\\usepackage{{xcolor}}\n{}{}\\begin{{document}}\n{}\\end{{document}}\n",
        preamble(),
        execution_preamble(&super::svg::execution_classes(pics)),
        body.join("\n")
    )
}

/// One `tikzpicture`, laid out and routed as the SVG is (`layout`):
/// coordinates in cm, y downwards, each event's box at least as large as
/// the layout's, so no arrow passes behind an event other than its ends.
pub fn picture(pic: &Picture, legend: bool) -> String {
    let l = layout(pic);
    let mut out = String::new();
    let _ = writeln!(out, "% {}", pic.title.replace('\n', " "));
    out.push_str("\\begin{tikzpicture}[y=-1cm]\n");
    for (c, name) in pic.threads.iter().enumerate() {
        let _ = writeln!(
            out,
            "  \\node[pom thread] at ({}) {{\\pomthread{{{}}}}};",
            at((l.columns[c], HEADER - 5.0)),
            escape(name)
        );
    }
    for (i, n) in pic.events.iter().enumerate() {
        let kappa = n.kappa.as_ref().map_or(String::new(), |k| {
            format!("\\texttt{{{}}} \\mid ", escape(k))
        });
        let _ = writeln!(
            out,
            "  \\node[pom event, minimum width={:.2}cm, minimum height={:.2}cm] (e{}) at ({}) {{${kappa}{}$}};",
            2.0 * l.half[i] * PX,
            BOX_H * PX,
            n.id,
            at((l.x[i], l.y[i])),
            label(&n.label)
        );
    }
    for (a, c) in pic.arrows.iter().zip(&l.curves) {
        let path = if c.is_straight() {
            "--".to_string()
        } else {
            let (c1, c2) = c.cubic();
            format!(".. controls ({}) and ({}) ..", at(c1), at(c2))
        };
        let _ = writeln!(
            out,
            "  \\draw[pom {}] (e{}) {path} (e{}); % {}",
            a.class.key(),
            pic.events[a.from].id,
            pic.events[a.to].id,
            a.rules.join(", ")
        );
    }
    if legend && !pic.arrows.is_empty() {
        for (k, c) in pic.classes().iter().enumerate() {
            let y = l.height + 4.0 + k as f64 * 20.0;
            let _ = writeln!(
                out,
                "  \\draw[pom {}] ({}) -- ++({:.2}, 0) node[right, black, font=\\footnotesize] {{{}}};",
                c.key(),
                at((MARGIN, y)),
                36.0 * PX,
                escape(c.name())
            );
        }
    }
    out.push_str("\\end{tikzpicture}\n");
    out
}

/// A layout point (px) as TikZ coordinates (cm).
fn at(p: (f64, f64)) -> String {
    format!("{:.2}, {:.2}", p.0 * PX, p.1 * PX)
}

/// `\pomW^{\pommode{rel}}_{\pomscope{cta}}\,\pomloc{y}1`.
fn label(l: &Label) -> String {
    let mut s = format!("\\pom{}", super::picture::kind_letter(l.kind));
    if let Some(m) = l.mode {
        let _ = write!(s, "^{{\\pommode{{{}}}}}", m.as_str());
    }
    if let Some(sc) = l.scope {
        let _ = write!(s, "_{{\\pomscope{{{}}}}}", sc.as_str());
    }
    if let (Some(loc), Some(v)) = (&l.loc, l.value) {
        let _ = write!(s, "\\,\\pomloc{{{}}}{v}", escape(loc));
    }
    s
}

fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '§' => out.push_str("\\S{}"),
            // κ's connectives, which pdflatex has no glyph for in text.
            '¬' => out.push_str("$\\neg$"),
            '∧' => out.push_str("$\\land$"),
            '∨' => out.push_str("$\\lor$"),
            '⇒' => out.push_str("$\\Rightarrow$"),
            '≠' => out.push_str("$\\neq$"),
            '≤' => out.push_str("$\\leq$"),
            _ => out.push(c),
        }
    }
    out
}
