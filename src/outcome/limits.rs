//! The limits every engine honours: reaching one makes a verdict Unknown
//! with the limit named, never wrong. They travel with each request.

/// Limits on one decision; reaching one makes the verdict unknown, never wrong.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_pomsets: usize,
    /// `if_closure = registers`: the most partitions of the valuations of
    /// the registers in scope one statement may have (`--max-partitions`).
    pub max_partitions: usize,
    pub max_steps: u64,
    /// Final states kept, and complete pomsets one rf search may hold at
    /// once (`--max-states`): the bound that keeps memory finite when a test
    /// has millions of them (IRIW with ten readers).
    pub max_states: usize,
    /// Wall-clock deadline (`--timeout`).
    pub deadline: Option<(std::time::Instant, f64)>,
    /// Set from outside (the REPL's Ctrl-C) to stop the search as a deadline would.
    pub cancel: Option<&'static std::sync::atomic::AtomicBool>,
    /// Search one arrangement of interchangeable threads (`symmetry.rs`);
    /// off only to check it against the plain search.
    pub symmetry: bool,
    /// The caller takes the states of interchangeable threads one per orbit
    /// (`Outcomes::orbits`) instead of every member: `--max-states` then
    /// counts orbits, and memory holds orbits only; and, with `factor`, the
    /// states of independent readers as a product. Off by default: a
    /// caller that reads `Outcomes::states` alone sees every state.
    pub orbits: bool,
    /// With `orbits`, an engine may hand over the states of independent
    /// reader threads as a product (`Outcomes::factored`); off only to
    /// check it against the plain search.
    pub factor: bool,
    /// The pomset engine cuts a choice of the first threads' pomsets whose
    /// part has no candidate (`Product::part_can_complete`); off only to
    /// check it against the plain search.
    pub parts: bool,
    /// The cat engine's lazy search runs the threads that feed no other
    /// last (`axiomatic::schedule`) instead of in the file's order; off
    /// only to check it against the file's order.
    pub reorder: bool,
    /// The cat engine's lazy search cuts a write's coherence positions that
    /// a part of three or four of its events refutes
    /// (`axiomatic::search`, `Search::co_window`) before judging the rest;
    /// off only to check it against judging every position.
    pub probes: bool,
    /// The cat engine's lazy search judges the parts of candidates only
    /// once it has taken this many steps (`JUDGE_PARTS_AFTER`); before,
    /// only complete candidates are judged. 0 judges from the first part,
    /// as the tests of the pruning ask.
    pub judge_parts_after: u64,
    /// The caller runs on one core and spreads its work itself (a
    /// `distinguish` sweep, whose shards are separate processes; the
    /// transformation table, one cell per worker and core): the
    /// pomset engine decides its batches of combinations on the calling
    /// thread instead of across rayon's pool. Handing a sweep's small
    /// batches to the pool cost more than they took.
    pub one_core: bool,
    /// The caller decides many programs that share threads (a
    /// `distinguish` sweep: a skeleton's mode variants): the pomset engine
    /// keeps its arenas and each thread's built pomsets between calls on
    /// one OS thread and reuses them where they are the next program's
    /// (the pomset engine's sessions; the argument is in that module).
    pub reuse: bool,
    /// The most states the caller lists (`run`'s text and JSON, unless
    /// `--all-states`): the report then keeps only the states it lists and
    /// counts the rest (`Report::unlisted`), instead of copying every one.
    pub listed: Option<usize>,
}

/// The default of `--max-states`: high enough to decide IRIW with six
/// relaxed readers in full (531 441 states, 1.4 GB), low enough that memory
/// stays within a few GB before the limit stops the search. With
/// `Limits::orbits` it counts orbits, and IRIW with eight readers keeps
/// 245 025.
pub const MAX_STATES: usize = 1_000_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_pomsets: 200_000,
            max_partitions: MAX_PARTITIONS,
            max_steps: 50_000_000,
            max_states: MAX_STATES,
            deadline: None,
            cancel: None,
            symmetry: true,
            orbits: false,
            factor: true,
            parts: true,
            reorder: true,
            probes: true,
            judge_parts_after: JUDGE_PARTS_AFTER,
            one_core: false,
            reuse: false,
            listed: None,
        }
    }
}

/// The default of `Limits::judge_parts_after`. Judging a part costs about
/// what judging a complete candidate does, and it repays itself only by the
/// candidates it cuts: a search of a few dozen steps (most programs of a
/// `distinguish` sweep) is over before it does. Skipping a judgement is
/// always exact (every complete candidate is judged whole), so the only
/// question is cost: judging from the first part, the sweeps `sc` vs
/// `rc11`, `rc11` vs `pwt` and `pwt:ptx` over three threads took a third
/// to a half more CPU, and Dat3M's PTX corpus, whose searches run to
/// thousands of steps, is unchanged (the book's "Performance").
pub const JUDGE_PARTS_AFTER: u64 = 128;

/// The default of `--max-partitions` (`if_closure = registers`): Bell(7) =
/// 877 partitions fit, Bell(8) = 4140 do not.
pub const MAX_PARTITIONS: usize = 1000;

/// The deadline `secs` seconds from now, with the seconds kept to name it
/// (`--timeout 2`); what every front end makes of a timeout it was given.
/// Total: a negative or NaN timeout is due at once (a limit, never a
/// verdict), an infinite one in 10^9 s.
pub fn deadline_after(secs: f64) -> (std::time::Instant, f64) {
    let wait = if secs.is_nan() {
        0.0
    } else {
        secs.clamp(0.0, 1e9)
    };
    let now = std::time::Instant::now();
    let at = now
        .checked_add(std::time::Duration::from_secs_f64(wait))
        .unwrap_or(now);
    (at, secs)
}

/// The limit that stops a search from outside, if one has: the deadline
/// (`--timeout`) or Ctrl-C in the REPL.
pub fn interrupted(
    deadline: Option<(std::time::Instant, f64)>,
    cancel: Option<&'static std::sync::atomic::AtomicBool>,
) -> Option<String> {
    if let Some((at, secs)) = deadline {
        if std::time::Instant::now() > at {
            return Some(format!("--timeout {secs}"));
        }
    }
    if cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
        return Some("interrupted (Ctrl-C)".to_string());
    }
    crate::memory::over_budget()
}
