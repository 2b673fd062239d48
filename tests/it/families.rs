//! The litmus families the scaling tests grow (`benches/scaling.rs` writes
//! the same shapes): shared by the test files that need a member, so each
//! is written once. A bench cannot import a test module, so the bench keeps
//! its own copy.
#![allow(dead_code)]

/// A ring of n store-buffering threads: `a_i := 1; r_i := a_{i+1}`, 3^n
/// final states under the pomset semantics.
pub fn sb_ring(n: usize) -> String {
    let locations: Vec<String> = (0..n).map(|i| format!("a{i};")).collect();
    let threads: Vec<String> = (0..n)
        .map(|i| format!("a{i} := 1; r{i} := a{};", (i + 1) % n))
        .collect();
    let cond: Vec<String> = (0..n).map(|i| format!("r{i} = 0")).collect();
    format!(
        "litmus SB-{n}\nlocations {{ {} }}\n\n{}\n\nexists ({})\n",
        locations.join(" "),
        threads.join("\n|| "),
        cond.join(" /\\ ")
    )
}

/// IRIW with two writers and n readers alternating the order they read a0
/// and a1, each read `.mode` (`""` for the default, `wk`); the condition is
/// every reader seeing the writes in its own order.
pub fn iriw(n: usize, mode: &str) -> String {
    let suffix = if mode.is_empty() {
        String::new()
    } else {
        format!(".{mode}")
    };
    let mut s = format!("litmus IRIW-{n}\nlocations {{ a0; a1 }}\n\na0 := 1;\n|| a1 := 1;\n");
    let mut cond = Vec::new();
    for i in 0..n {
        let (x, y) = if i % 2 == 0 {
            ("a0", "a1")
        } else {
            ("a1", "a0")
        };
        s += &format!("|| r{i} := {x}{suffix}; s{i} := {y}{suffix};\n");
        cond.push(format!("r{i} = 1 /\\ s{i} = 0"));
    }
    s + &format!("\nexists ({})\n", cond.join(" /\\ "))
}

/// CoRR: one thread writes x := 1 to n, another reads x n times; the
/// condition reads them in reverse. Its reader alone has Σ over each read's
/// value (or none) of Π_v Bell(reads of v) pomsets: 44 683 at n = 5.
pub fn corr(n: usize) -> String {
    let writes: Vec<String> = (1..=n).map(|k| format!("x := {k};")).collect();
    let reads: Vec<String> = (1..=n).map(|k| format!("r{k} := x;")).collect();
    let cond: Vec<String> = (1..=n).map(|k| format!("r{k} = {}", n + 1 - k)).collect();
    format!(
        "litmus CoRR-{n}\nlocations {{ x }}\n\n{}\n|| {}\n\nexists ({})\n",
        writes.join(" "),
        reads.join(" "),
        cond.join(" /\\ ")
    )
}
