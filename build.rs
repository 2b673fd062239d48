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
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("book/src");
    println!("cargo:rerun-if-changed=book/src");
    let mut files = Vec::new();
    walk_all(&root, &mut files);
    files.sort();
    let mut text = String::from("&[\n");
    for f in files {
        let Ok(rel) = f.strip_prefix(&root) else {
            continue;
        };
        text.push_str(&format!(
            "    ({:?}, include_bytes!({:?})),\n",
            rel.to_string_lossy(),
            f.to_string_lossy()
        ));
    }
    text.push_str("]\n");
    std::fs::write(out.join("book.rs"), text).expect("OUT_DIR is writable");
}

fn walk_all(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
            walk_all(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Writes `examples.rs`: `(path under examples/, include_str!(file))` for
/// every `.litmus`, `.lit` and `.refine` file, sorted.
fn embed_examples(out: &Path) {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("examples");
    println!("cargo:rerun-if-changed=examples");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    let mut text = String::from("&[\n");
    for f in files {
        let Ok(rel) = f.strip_prefix(&root) else {
            continue;
        };
        text.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            rel.to_string_lossy(),
            f.to_string_lossy()
        ));
    }
    text.push_str("]\n");
    std::fs::write(out.join("examples.rs"), text).expect("OUT_DIR is writable");
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
            walk(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "litmus" || x == "lit" || x == "refine")
        {
            out.push(p);
        }
    }
}
