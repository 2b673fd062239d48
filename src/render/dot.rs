//! A picture as Graphviz DOT, for users who have Graphviz: one cluster per
//! thread, program order top to bottom, arrows styled by class.

use std::fmt::Write;

use super::picture::{Class, Picture};

/// One `digraph`.
pub fn picture(pic: &Picture, legend: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph pomset {{");
    let _ = writeln!(out, "  label={};", quote(&pic.title));
    let _ = writeln!(out, "  labelloc=t; rankdir=TB; newrank=true;");
    let _ = writeln!(out, "  node [shape=plaintext, fontname=\"Helvetica\"];");
    for (c, name) in pic.threads.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_{c} {{");
        let _ = writeln!(
            out,
            "    label={}; style=dashed; color=gray70;",
            quote(name)
        );
        for n in pic.events.iter().filter(|n| n.column == c) {
            let _ = writeln!(out, "    e{} [label={}];", n.id, quote(&n.ascii()));
        }
        // Invisible edges keep program order top to bottom.
        let ids: Vec<String> = pic
            .events
            .iter()
            .filter(|n| n.column == c)
            .map(|n| format!("e{}", n.id))
            .collect();
        if ids.len() > 1 {
            let _ = writeln!(out, "    {} [style=invis];", ids.join(" -> "));
        }
        let _ = writeln!(out, "  }}");
    }
    for a in &pic.arrows {
        let (colour, dash) = a.class.style();
        let style = if a.class == Class::Cycle {
            "\"dashed,bold\""
        } else if dash.is_some() {
            if matches!(a.class, Class::Rf | Class::LocFromSync | Class::Shown) {
                "dotted"
            } else {
                "dashed"
            }
        } else if matches!(a.class, Class::Rmw | Class::AtomicPair) {
            "bold"
        } else {
            "solid"
        };
        let _ = writeln!(
            out,
            "  e{} -> e{} [color=\"#{colour}\", style={style}, constraint=false, tooltip={}]; // {}",
            pic.events[a.from].id,
            pic.events[a.to].id,
            quote(&a.rules.join(", ")),
            a.class.key()
        );
    }
    if legend && !pic.arrows.is_empty() {
        let rows: String = pic
            .classes()
            .iter()
            .map(|c| {
                format!(
                    "<tr><td><font color=\"#{}\">→</font></td><td align=\"left\">{}</td></tr>",
                    c.style().0,
                    c.name().replace('&', "&amp;")
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "  legend [shape=none, label=<<table border=\"0\" cellspacing=\"0\">{rows}</table>>];"
        );
    }
    out.push_str("}\n");
    out
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
