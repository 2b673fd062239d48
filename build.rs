//! Generates the parser from `grammar/litmus.lalrpop`, and the lists of
//! bundled examples and of the book's files that `pomset serve` embeds
//! (`examples/**`, `book/src/**`).
use std::path::{Path, PathBuf};

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(&out)
        .process()
        .expect("grammar/litmus.lalrpop must build");
    println!("cargo:rerun-if-changed=grammar");
    embed_examples(&out);
    embed_book(&out);
}

/// Writes `book.rs`: `(path under book/src/, include_bytes!(file))` for
/// every file of the book (chapters, pictures, the JSON schema), sorted:
/// `pomset serve` renders the chapters and serves the rest, offline.
fn embed_book(out: &Path) {
    embed(out, "book/src", "book.rs", "include_bytes", &|_| true);
}

/// Writes `examples.rs`: `(path under examples/, include_str!(file))` for
/// every `.litmus`, `.lit` and `.refine` file, sorted.
fn embed_examples(out: &Path) {
    embed(out, "examples", "examples.rs", "include_str", &|p| {
        p.extension()
            .is_some_and(|x| x == "litmus" || x == "lit" || x == "refine")
    });
}

/// Writes `OUT_DIR/file`: `(path under dir/, include(path))` for every file
/// under `dir` that `keep` takes, sorted.
fn embed(out: &Path, dir: &str, file: &str, include: &str, keep: &dyn Fn(&Path) -> bool) {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join(dir);
    println!("cargo:rerun-if-changed={dir}");
    let mut files = Vec::new();
    walk(&root, keep, &mut files);
    files.sort();
    let mut text = String::from("&[\n");
    for f in files {
        let Ok(rel) = f.strip_prefix(&root) else {
            continue;
        };
        text.push_str(&format!(
            "    ({:?}, {include}!({:?})),\n",
            rel.to_string_lossy(),
            f.to_string_lossy()
        ));
    }
    text.push_str("]\n");
    std::fs::write(out.join(file), text).expect("OUT_DIR is writable");
}

fn walk(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
            walk(&p, keep, out);
        } else if keep(&p) {
            out.push(p);
        }
    }
}
