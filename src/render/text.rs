//! A picture as text, for the terminal (`draw --format text`).

use std::fmt::Write;

/// A picture for the terminal: threads side by side, then the arrows as a
/// list grouped by class. Columns are as wide as their widest event, so four
/// threads of ordinary labels fit in 80 columns.
pub fn picture(pic: &super::Picture) -> String {
    let (name, state) = pic.title.split_once(": ").unwrap_or((&pic.title, ""));
    let mut out = wrap(&format!("{name}:"), state.split("; "), ";", "");
    let cell = |n: &super::picture::Node| format!("e{} {}", n.id, n.ascii());
    let widths: Vec<usize> = (0..pic.threads.len())
        .map(|c| {
            pic.events
                .iter()
                .filter(|n| n.column == c)
                .map(|n| cell(n).chars().count())
                .chain([pic.threads[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut line = |cells: Vec<String>| {
        let mut l = String::from(" ");
        for (c, s) in cells.iter().enumerate() {
            let _ = write!(l, " {s:<w$} ", w = widths[c]);
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(pic.threads.clone());
    for row in 0..pic.rows() {
        line(
            (0..pic.threads.len())
                .map(|c| {
                    pic.events
                        .iter()
                        .find(|n| n.column == c && n.row == row)
                        .map_or(String::new(), cell)
                })
                .collect(),
        );
    }
    for class in pic.classes() {
        let name = class.name().split(" (").next().unwrap_or("");
        let edges: Vec<String> = pic
            .arrows
            .iter()
            .filter(|a| a.class == class)
            .map(|a| {
                let rules = a.rules.join(",");
                let (f, t) = (pic.events[a.from].id, pic.events[a.to].id);
                format!("e{f}→e{t} {rules}")
            })
            .collect();
        out.push_str(&wrap(
            &format!("  {name}:"),
            edges.iter().map(String::as_str),
            ";",
            "    ",
        ));
    }
    out
}

/// `head` and the items separated by `sep`, broken into lines of at most 80
/// characters; continuation lines start with `indent`.
fn wrap<'a>(head: &str, items: impl Iterator<Item = &'a str>, sep: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = head.to_string();
    let items: Vec<&str> = items.collect();
    for (i, item) in items.iter().enumerate() {
        let item = if i + 1 < items.len() {
            format!("{item}{sep}")
        } else {
            item.to_string()
        };
        let room = line.chars().count() + 1 + item.chars().count() <= 80;
        if !room && line.chars().count() > indent.len() {
            out.push_str(&line);
            out.push('\n');
            line = indent.to_string();
        } else {
            line.push(' ');
        }
        line.push_str(&item);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}
