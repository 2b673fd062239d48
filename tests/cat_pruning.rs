//! The cat engine's lazy search (`engine/axiomatic/search.rs`, cutting the
//! parts of candidates a monotone check refutes) against the plain
//! enumeration, every candidate judged whole: the same states, counts,
//! witnesses and flags under every bundled model, on the bundled examples
//! and on random programs. Where the plain enumeration refuses a program
//! (a register read before assignment on a run no candidate completes)
//! the lazy one may answer; those are skipped.

mod gen;

use gen::Checked;
use pomset::cat;
use pomset::engine::axiomatic::outcomes_with;
use pomset::outcome::{Limits, Outcomes};
use proptest::test_runner::TestCaseError;

/// What must agree: states with their counts, witnesses, flags, notes.
fn shown(o: &Outcomes) -> String {
    format!(
        "{:?}\nwitnesses {}\nflags {:?}\nnotes {:?}",
        o.states, o.witnesses, o.flags, o.notes
    )
}

/// Both ways on `src` under `model`: `None` when the plain way refuses or
/// either stops at a limit, else whether they agree (with the difference).
fn compare(model: &cat::Model, src: &str) -> Option<Result<(), String>> {
    let t = pomset::syntax::parse(src).ok()?;
    let p = &t.program;
    let plain = outcomes_with(p, model, Limits::default(), false).ok()?;
    let lazy = match outcomes_with(p, model, Limits::default(), true) {
        Ok(o) => o,
        Err(e) => return Some(Err(format!("the lazy search refuses: {e}"))),
    };
    if plain.limit.is_some() || lazy.limit.is_some() {
        return None;
    }
    let (a, b) = (shown(&plain), shown(&lazy));
    Some(if a == b {
        Ok(())
    } else {
        Err(format!("plain:\n{a}\nlazy:\n{b}"))
    })
}

fn models() -> Vec<cat::Model> {
    cat::BUNDLED
        .iter()
        .map(|(name, _)| cat::load(name).expect("bundled"))
        .collect()
}

#[test]
fn pruned_and_plain_enumerations_agree_on_the_examples() {
    let mut compared = 0;
    let models = models();
    for dir in ["examples/classic", "examples/catalogue", "examples/vulkan"] {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut paths: Vec<_> = std::fs::read_dir(&root)
            .expect("examples")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
            .collect();
        paths.sort();
        for path in paths {
            let src = std::fs::read_to_string(&path).expect("readable");
            for m in &models {
                if let Some(r) = compare(m, &src) {
                    if let Err(e) = r {
                        panic!("{} under {}: {e}", path.display(), m.name);
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 400, "only {compared} runs compared");
}

#[test]
fn pruned_and_plain_enumerations_agree_on_random_programs() {
    let models = models();
    // Forks fall back to the plain enumeration: none here, so that every
    // program goes the lazy way.
    let cfg = gen::Config {
        forks: false,
        forks_in_if: false,
        ..gen::Config::default()
    };
    gen::run_property("lazy and plain cat", gen::cases(40), gen::tests(cfg), |t| {
        let text = t.text();
        let mut any = false;
        for m in &models {
            match compare(m, &text) {
                Some(Ok(())) => any = true,
                Some(Err(e)) => {
                    return Err(TestCaseError::fail(format!(
                        "under {}: {e}\n{text}",
                        m.name
                    )))
                }
                None => {}
            }
        }
        Ok(if any {
            Checked::Yes
        } else {
            gen::skipped("cat: a limit", &t)
        })
    });
}
