//! A picture as TikZ: a standalone `.tex` file that pdflatex compiles, or
//! the bare `tikzpicture` for a paper that has the preamble's macros.
//! Every glyph and style goes through a macro a paper can redefine.

use std::fmt::Write;

use super::picture::{Class, Label, Picture};

/// Horizontal distance between thread columns, in cm.
const COLUMN: f64 = 3.4;
/// Vertical distance between rows, in cm.
const ROW: f64 = 1.3;

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
        let (_, dash) = c.style();
        let pattern = match (c, dash) {
            (Class::Rf | Class::LocFromSync, _) => ", densely dotted",
            (Class::StrongFencing | Class::TwoOrder, _) => ", dash dot",
            (_, Some(_)) => ", dashed",
            (Class::Rmw, None) => ", very thick",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  pom {}/.style={{pom arrow, draw=pom{}{pattern}}},",
            c.key(),
            c.key()
        );
    }
    out.push_str("}\n");
    out
}

/// A standalone document (one page per picture), or the pictures alone.
pub fn document(pics: &[Picture], legend: bool, snippet: bool) -> String {
    let body: Vec<String> = pics.iter().map(|p| picture(p, legend)).collect();
    if snippet {
        return body.join("\n");
    }
    format!(
        "\\documentclass[tikz,border=6pt]{{standalone}}\n\\usepackage{{xcolor}}\n{}\\begin{{document}}\n{}\\end{{document}}\n",
        preamble(),
        body.join("\n")
    )
}

/// One `tikzpicture`.
pub fn picture(pic: &Picture, legend: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "% {}", pic.title.replace('\n', " "));
    let _ = writeln!(out, "\\begin{{tikzpicture}}[x={COLUMN}cm, y=-{ROW}cm]");
    for (c, name) in pic.threads.iter().enumerate() {
        let _ = writeln!(
            out,
            "  \\node[pom thread] at ({c}, -0.7) {{\\pomthread{{{}}}}};",
            escape(name)
        );
    }
    for n in &pic.events {
        let kappa = n.kappa.as_ref().map_or(String::new(), |k| {
            format!("\\texttt{{{}}} \\mid ", escape(k))
        });
        let _ = writeln!(
            out,
            "  \\node[pom event] (e{}) at ({}, {}) {{${kappa}{}$}};",
            n.id,
            n.column,
            n.row,
            label(&n.label)
        );
    }
    for a in &pic.arrows {
        let (f, t) = (&pic.events[a.from], &pic.events[a.to]);
        let parallel = pic
            .arrows
            .iter()
            .filter(|b| (b.from, b.to) == (a.from, a.to) || (b.from, b.to) == (a.to, a.from))
            .position(|b| std::ptr::eq(b, a))
            .unwrap_or(0);
        let bend = if f.column == t.column && f.row.abs_diff(t.row) > 1 {
            let angle = 35 + 8 * parallel;
            if f.row < t.row {
                format!(" to[bend right={angle}]")
            } else {
                format!(" to[bend left={angle}]")
            }
        } else if parallel > 0 {
            format!(" to[bend left={}]", 12 * parallel)
        } else {
            " to".to_string()
        };
        let _ = writeln!(
            out,
            "  \\draw[pom {}] (e{}){bend} (e{}); % {}",
            a.class.key(),
            f.id,
            t.id,
            a.rules.join(", ")
        );
    }
    if legend && !pic.arrows.is_empty() {
        let top = pic.rows() as f64;
        for (k, c) in pic.classes().iter().enumerate() {
            let y = top + 0.45 * k as f64;
            let _ = writeln!(
                out,
                "  \\draw[pom {}] (-0.15, {y:.2}) -- ++(0.3, 0) node[right, black, font=\\footnotesize] {{{}}};",
                c.key(),
                escape(c.name())
            );
        }
    }
    out.push_str("\\end{tikzpicture}\n");
    out
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
            _ => out.push(c),
        }
    }
    out
}
