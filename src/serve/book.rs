//! The book, served by `pomset serve` under `/book/`: each chapter of
//! `book/src` rendered from Markdown to HTML by pulldown-cmark (the parser
//! mdBook uses), its pictures and files served as they are, all embedded at
//! build time (`build.rs`), so the explorer's links read offline. Links
//! between chapters (`diagrams.md#arrows`) become links between the
//! rendered pages (`diagrams.html#arrows`), and headings get mdBook's ids,
//! so the anchors the chapters use resolve here as in the built book.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// Every file under `book/src` (its path there, its bytes), sorted.
pub const FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/book.rs"));

/// What `page` serves for a path under `/book/`.
#[derive(Debug)]
pub enum Served {
    /// A body and its content type.
    File(&'static str, Vec<u8>),
    /// A chapter's Markdown source: see its rendered page instead.
    Moved(String),
}

/// The Markdown the book is written in (mdBook's extensions).
fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES
}

fn file(path: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

/// The page for `path` (relative to `/book/`): `""` or `index.html` is the
/// table of contents (`SUMMARY.md`), `NAME.html` the chapter `NAME.md`
/// rendered, `NAME.md` moved to its rendered page, any other file of the
/// book as it is; `None` when the book has no such file.
pub fn page(path: &str) -> Option<Served> {
    let path = path.trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    if let Some(stem) = path.strip_suffix(".html") {
        let source = if stem == "index" { "SUMMARY" } else { stem };
        let text = file(&format!("{source}.md"))?;
        let text = String::from_utf8_lossy(text);
        return Some(Served::File(
            "text/html; charset=utf-8",
            render(&text).into_bytes(),
        ));
    }
    if let Some(stem) = path.strip_suffix(".md") {
        file(path)?;
        let name = stem.rsplit('/').next().unwrap_or(stem);
        return Some(Served::Moved(format!("{name}.html")));
    }
    let bytes = file(path)?;
    let kind = match path.rsplit('.').next() {
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => "text/plain; charset=utf-8",
    };
    Some(Served::File(kind, bytes.to_vec()))
}

/// mdBook's id of a heading's text: lower case, spaces as `-`, only
/// letters, digits, `-` and `_` kept.
pub fn slug(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The ids of a chapter's headings, in order, as mdBook gives them (a
/// repeated id gets `-1`, `-2`, ...).
pub fn heading_ids(markdown: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut text: Option<String> = None;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => text = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(s) = &mut text {
                    s.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&text.take().unwrap_or_default());
                let mut id = base.clone();
                let mut n = 0;
                while ids.contains(&id) {
                    n += 1;
                    id = format!("{base}-{n}");
                }
                ids.push(id);
            }
            _ => {}
        }
    }
    ids
}

/// A link of the book as the served pages have it: a chapter's `.md`
/// becomes its `.html`; other targets stay.
fn link(dest: CowStr<'_>) -> CowStr<'_> {
    let outside = dest.contains("://") || dest.starts_with('/') || dest.starts_with("mailto:");
    if outside {
        return dest;
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (&*dest, None),
    };
    match path.strip_suffix(".md") {
        Some(stem) => {
            let anchor = anchor.map(|a| format!("#{a}")).unwrap_or_default();
            CowStr::from(format!("{stem}.html{anchor}"))
        }
        None => dest,
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A chapter (or the table of contents) as a whole HTML page.
pub fn render(markdown: &str) -> String {
    let ids = heading_ids(markdown);
    let mut heading = 0;
    let mut title: Option<String> = None;
    let mut in_heading = false;
    let mut events = Vec::new();
    for event in Parser::new_ext(markdown, options()) {
        let event = match event {
            Event::Start(Tag::Heading {
                level,
                classes,
                attrs,
                ..
            }) => {
                in_heading = true;
                let id = ids.get(heading).cloned().map(CowStr::from);
                heading += 1;
                Event::Start(Tag::Heading {
                    level,
                    id,
                    classes,
                    attrs,
                })
            }
            Event::End(TagEnd::Heading(l)) => {
                in_heading = false;
                Event::End(TagEnd::Heading(l))
            }
            Event::Text(t) if in_heading && heading == 1 => {
                title.get_or_insert_with(String::new).push_str(&t);
                Event::Text(t)
            }
            Event::Code(t) if in_heading && heading == 1 => {
                title.get_or_insert_with(String::new).push_str(&t);
                Event::Code(t)
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Link {
                link_type,
                dest_url: link(dest_url),
                title,
                id,
            }),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Image {
                link_type,
                dest_url: link(dest_url),
                title,
                id,
            }),
            e => e,
        };
        events.push(event);
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, events.into_iter());
    let title = title.unwrap_or_else(|| "The pomset book".to_string());
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{} (pomset book)</title>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <style>{STYLE}</style>\n</head>\n<body>\n\
         <nav><a href=\"/\">explorer</a> · <a href=\"index.html\">contents</a></nav>\n\
         <main>\n{body}</main>\n</body>\n</html>\n",
        escape(&title)
    )
}

/// The rendered book's style: readable width, tables and code that scroll
/// within the page rather than widen it.
const STYLE: &str = "body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; line-height: 1.5; }
nav { padding: .5em 1em; background: #263238; color: #eee; }
nav a { color: #8cf; }
main { max-width: 52em; margin: 0 auto; padding: 0 1em 2em; }
pre { background: #fff; border: 1px solid #ddd; padding: .5em; overflow-x: auto; font-size: .85em; }
code { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; font-size: .9em; display: block; overflow-x: auto; max-width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: .2em .6em; text-align: left; vertical-align: top; }
img { max-width: 100%; height: auto; }";
