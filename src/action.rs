//! Actions and the relations between them (§1.2): the vocabulary that the
//! pomset semantics and the candidate conditions are written in.
//!
//! Modes are ordered wk ⊑ rlx ⊑ rel, acq ⊑ ra ⊑ sc, with rel and acq
//! incomparable (the note's garbled lattice, read as the catalogue's 0.3 does).

use crate::model::{CoDelaysRr, FenceMatch, Model, PtxAcqSync, ScOrder};
pub use crate::syntax::ast::{Mode, Scope};

pub type ThreadId = u32;
/// A location, after named locations and addresses are identified.
pub type Loc = u32;

impl Mode {
    /// μ ⊑ ν in the mode order.
    pub fn below(self, other: Mode) -> bool {
        use Mode::*;
        match (self, other) {
            (a, b) if a == b => true,
            (Wk, _) => true,
            (Rlx, Wk) => false,
            (Rlx, _) => true,
            (Rel | Acq, Ra | Sc) => true,
            (Ra, Sc) => true,
            _ => false,
        }
    }

    /// μ ⊔ ν, the least upper bound (rel ⊔ acq = ra).
    pub fn join(self, other: Mode) -> Mode {
        if self.below(other) {
            return other;
        }
        if other.below(self) {
            return self;
        }
        // Only rel and acq are incomparable; everything else is a chain.
        Mode::Ra
    }

    /// ⊒ rel: rel, ra or sc.
    pub fn is_release(self) -> bool {
        Mode::Rel.below(self)
    }

    /// ⊒ acq: acq, ra or sc.
    pub fn is_acquire(self) -> bool {
        Mode::Acq.below(self)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Read,
    Write,
    Fence,
}

/// `α W^μ_σ x v`, `α R^μ_σ x v` or `α F^μ_σ` (§1.2). A fence's `loc` and `value` are 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Action {
    pub thread: ThreadId,
    pub kind: Kind,
    pub mode: Mode,
    pub scope: Scope,
    pub loc: Loc,
    pub value: i64,
}

impl Action {
    pub fn read(thread: ThreadId, mode: Mode, scope: Scope, loc: Loc, value: i64) -> Action {
        Action {
            thread,
            kind: Kind::Read,
            mode,
            scope,
            loc,
            value,
        }
    }

    pub fn write(thread: ThreadId, mode: Mode, scope: Scope, loc: Loc, value: i64) -> Action {
        Action {
            thread,
            kind: Kind::Write,
            mode,
            scope,
            loc,
            value,
        }
    }

    pub fn fence(thread: ThreadId, mode: Mode, scope: Scope) -> Action {
        Action {
            thread,
            kind: Kind::Fence,
            mode,
            scope,
            loc: 0,
            value: 0,
        }
    }

    pub fn is_access(&self) -> bool {
        self.kind != Kind::Fence
    }

    fn is(&self, kind: Kind) -> bool {
        self.kind == kind
    }

    /// A release: W^⊒rel or F^⊒rel.
    pub fn is_release(&self) -> bool {
        self.kind != Kind::Read && self.mode.is_release()
    }

    /// An acquire: R^⊒acq or F^⊒acq.
    pub fn is_acquire(&self) -> bool {
        self.kind != Kind::Write && self.mode.is_acquire()
    }
}

/// Definition 1.1: which threads share a cta and which share a gpu.
pub trait Groups {
    fn same_cta(&self, a: ThreadId, b: ThreadId) -> bool;
    fn same_gpu(&self, a: ThreadId, b: ThreadId) -> bool;
}

/// a matches b: a = (W x v) and b = (R x v).
pub fn matches(a: &Action, b: &Action) -> bool {
    a.is(Kind::Write) && b.is(Kind::Read) && a.loc == b.loc && a.value == b.value
}

/// a blocks b: a = (W x) and b = (R x), regardless of value.
pub fn blocks(a: &Action, b: &Action) -> bool {
    a.is(Kind::Write) && b.is(Kind::Read) && a.loc == b.loc
}

/// a overlaps b: two accesses to one location.
pub fn overlaps(a: &Action, b: &Action) -> bool {
    a.is_access() && b.is_access() && a.loc == b.loc
}

/// co-delays: (Wx, Wx), (Rx, Wx), (Wx, Rx) and (A^sc, A^sc); with
/// `co_delays_rr = on` also (Rx, Rx) (catalogue A12).
pub fn co_delays(a: &Action, b: &Action, model: &Model) -> bool {
    let same_loc = overlaps(a, b);
    let with_write = a.is(Kind::Write) || b.is(Kind::Write);
    let both_sc = a.is_access() && b.is_access() && a.mode == Mode::Sc && b.mode == Mode::Sc;
    let rr = model.co_delays_rr == CoDelaysRr::On && same_loc;
    (same_loc && with_write) || both_sc || rr
}

/// sync-delays (§1.2): (a, W^⊒rel), (a, F^⊒rel), (R, F^⊒acq), (R^⊒acq, b),
/// (F^⊒acq, b), (F^⊒rel, W), (W^⊒rel x, W x). Footnote 1 (`ptx_acq_sync`) adds
/// (R x, R^⊒acq x); §11 (`sc_order = sec11`) adds (A^sc, A^sc).
pub fn sync_delays(a: &Action, b: &Action, model: &Model) -> bool {
    use Kind::*;
    let fig1 = (b.is(Write) && b.mode.is_release())
        || (b.is(Fence) && b.mode.is_release())
        || (a.is(Read) && b.is(Fence) && b.mode.is_acquire())
        || (a.is(Read) && a.mode.is_acquire())
        || (a.is(Fence) && a.mode.is_acquire())
        || (a.is(Fence) && a.mode.is_release() && b.is(Write))
        || (a.is(Write) && a.mode.is_release() && b.is(Write) && a.loc == b.loc);
    let ptx = model.ptx_acq_sync == PtxAcqSync::On
        && a.is(Read)
        && b.is(Read)
        && b.mode.is_acquire()
        && a.loc == b.loc;
    let sc = model.sc_order == ScOrder::Sec11
        && a.is_access()
        && b.is_access()
        && a.mode == Mode::Sc
        && b.mode == Mode::Sc;
    fig1 || ptx || sc
}

/// Conditions (1) or (2a-c) of strongly-overlaps, for two actions of any kind.
fn morally_strong(a: &Action, b: &Action, groups: &dyn Groups) -> bool {
    if a.thread == b.thread {
        return true;
    }
    let strong_modes = Mode::Rlx.below(a.mode) && Mode::Rlx.below(b.mode);
    let cta = a.scope != Scope::Cta && b.scope != Scope::Cta || groups.same_cta(a.thread, b.thread);
    let gpu = a.scope != Scope::Gpu && b.scope != Scope::Gpu || groups.same_gpu(a.thread, b.thread);
    strong_modes && cta && gpu
}

/// strongly-overlaps (PTX's "morally strong"): two accesses to one location in
/// one thread, or both ⊒ rlx with scopes that include each other's thread.
pub fn strongly_overlaps(a: &Action, b: &Action, groups: &dyn Groups) -> bool {
    overlaps(a, b) && morally_strong(a, b, groups)
}

/// strongly-fences: two sc fences related as in strongly-overlaps.
pub fn strongly_fences(a: &Action, b: &Action, groups: &dyn Groups) -> bool {
    a.is(Kind::Fence)
        && b.is(Kind::Fence)
        && a.mode == Mode::Sc
        && b.mode == Mode::Sc
        && morally_strong(a, b, groups)
}

/// strongly-matches: a release and an acquire that strongly-overlap or
/// strongly-fence. With `fence_match = fences` (catalogue A7), a release fence
/// or write and an acquire fence or read also match when a fence is involved,
/// under the same scope conditions.
pub fn strongly_matches(a: &Action, b: &Action, model: &Model, groups: &dyn Groups) -> bool {
    if !(a.is_release() && b.is_acquire()) {
        return false;
    }
    let literal = strongly_overlaps(a, b, groups) || strongly_fences(a, b, groups);
    let with_fence = a.is(Kind::Fence) || b.is(Kind::Fence);
    literal
        || (model.fence_match == FenceMatch::Fences && with_fence && morally_strong(a, b, groups))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads 0 and 1 share a cta; thread 2 is in another cta of the same gpu;
    /// thread 3 is on another gpu.
    struct Fixed;

    impl Groups for Fixed {
        fn same_cta(&self, a: ThreadId, b: ThreadId) -> bool {
            a == b || (a <= 1 && b <= 1)
        }
        fn same_gpu(&self, a: ThreadId, b: ThreadId) -> bool {
            a == b || (a <= 2 && b <= 2)
        }
    }

    use Mode::*;
    use Scope::*;

    #[test]
    fn the_mode_order_is_the_notes_lattice() {
        assert!(
            Wk.below(Rlx) && Rlx.below(Rel) && Rlx.below(Acq) && Rel.below(Ra) && Acq.below(Ra)
        );
        assert!(Ra.below(Sc) && Wk.below(Sc));
        assert!(!Rel.below(Acq) && !Acq.below(Rel));
        assert_eq!(Rel.join(Acq), Ra);
        assert_eq!(Acq.join(Rlx), Acq);
        assert_eq!(Sc.join(Rel), Sc);
        for a in Mode::ALL {
            for b in Mode::ALL {
                let j = a.join(b);
                assert!(a.below(j) && b.below(j), "{a:?} ⊔ {b:?} = {j:?}");
                for c in Mode::ALL {
                    if a.below(c) && b.below(c) {
                        assert!(j.below(c), "{a:?} ⊔ {b:?} is least");
                    }
                    if a.below(b) && b.below(c) {
                        assert!(a.below(c), "transitive");
                    }
                }
                if a.below(b) && b.below(a) {
                    assert_eq!(a, b, "antisymmetric");
                }
            }
        }
    }

    #[test]
    fn sync_delays_follows_the_note() {
        let m = Model::default();
        let wx = Action::write(0, Rlx, Sys, 0, 1);
        let wrel_y = Action::write(0, Rel, Sys, 1, 1);
        let wrel_x = Action::write(0, Rel, Sys, 0, 1);
        let racq = Action::read(0, Acq, Sys, 1, 1);
        let rx = Action::read(0, Rlx, Sys, 0, 0);
        let facq = Action::fence(0, Acq, Sys);
        let frel = Action::fence(0, Rel, Sys);
        assert!(sync_delays(&wx, &wrel_y, &m), "(a, W^⊒rel)");
        assert!(sync_delays(&rx, &frel, &m), "(a, F^⊒rel)");
        assert!(sync_delays(&rx, &facq, &m), "(R, F^⊒acq)");
        assert!(
            !sync_delays(&wx, &facq, &m),
            "W before F^acq is not delayed"
        );
        assert!(sync_delays(&racq, &wx, &m), "(R^⊒acq, b)");
        assert!(sync_delays(&facq, &rx, &m), "(F^⊒acq, b)");
        assert!(sync_delays(&frel, &wx, &m), "(F^⊒rel, W)");
        assert!(
            !sync_delays(&frel, &rx, &m),
            "F^rel before R is not delayed"
        );
        assert!(sync_delays(&wrel_x, &wx, &m), "(W^⊒rel x, W x)");
        assert!(
            !sync_delays(&wrel_y, &wx, &m),
            "W^rel y before W x is not delayed"
        );
        assert!(!sync_delays(&wx, &rx, &m));
        let racq_x = Action::read(0, Acq, Sys, 0, 0);
        assert!(
            !sync_delays(&rx, &racq_x, &m),
            "footnote 1 is off by default"
        );
        let ptx = Model {
            ptx_acq_sync: PtxAcqSync::On,
            ..m
        };
        assert!(
            sync_delays(&rx, &racq_x, &ptx),
            "footnote 1: (R x, R^⊒acq x)"
        );
        let (wsc, rsc) = (
            Action::write(0, Sc, Sys, 0, 1),
            Action::read(0, Sc, Sys, 1, 0),
        );
        let sec11 = Model {
            sc_order: ScOrder::Sec11,
            ..m
        };
        assert!(
            !sync_delays(&wsc, &rsc, &m) && sync_delays(&wsc, &rsc, &sec11),
            "§11"
        );
    }

    #[test]
    fn co_delays_follows_the_note() {
        let m = Model::default();
        let (w, r) = (
            Action::write(0, Rlx, Sys, 0, 1),
            Action::read(0, Rlx, Sys, 0, 1),
        );
        let r2 = Action::read(0, Rlx, Sys, 0, 2);
        assert!(co_delays(&w, &w, &m) && co_delays(&r, &w, &m) && co_delays(&w, &r, &m));
        assert!(!co_delays(&r, &r2, &m), "the note omits (Rx, Rx)");
        let rr = Model {
            co_delays_rr: CoDelaysRr::On,
            ..m
        };
        assert!(co_delays(&r, &r2, &rr));
        let (wsc_y, rsc_x) = (
            Action::write(0, Sc, Sys, 1, 1),
            Action::read(0, Sc, Sys, 0, 0),
        );
        assert!(
            co_delays(&wsc_y, &rsc_x, &m),
            "(A^sc, A^sc) across locations"
        );
        assert!(
            !co_delays(&Action::fence(0, Sc, Sys), &rsc_x, &m),
            "fences are not accesses"
        );
    }

    #[test]
    fn strongly_overlaps_follows_the_scopes() {
        let g = Fixed;
        let w = |t, m, s| Action::write(t, m, s, 0, 1);
        let r = |t, m, s| Action::read(t, m, s, 0, 1);
        assert!(
            strongly_overlaps(&w(0, Wk, Cta), &r(0, Wk, Cta), &g),
            "(1) same thread"
        );
        assert!(
            !strongly_overlaps(&w(0, Wk, Sys), &r(1, Rlx, Sys), &g),
            "(2a) wk is not strong"
        );
        assert!(
            strongly_overlaps(&w(0, Rlx, Cta), &r(1, Rlx, Cta), &g),
            "(2b) same cta"
        );
        assert!(
            !strongly_overlaps(&w(0, Rlx, Cta), &r(2, Rlx, Sys), &g),
            "(2b) other cta"
        );
        assert!(
            strongly_overlaps(&w(0, Rlx, Gpu), &r(2, Rlx, Sys), &g),
            "(2c) same gpu"
        );
        assert!(
            !strongly_overlaps(&w(0, Rlx, Sys), &r(3, Rlx, Gpu), &g),
            "(2c) other gpu"
        );
        assert!(
            !strongly_overlaps(&w(0, Rlx, Sys), &Action::read(1, Rlx, Sys, 1, 1), &g),
            "two locations"
        );
    }

    #[test]
    fn fences_match_only_under_the_fences_option() {
        let g = Fixed;
        let m = Model {
            fence_match: FenceMatch::Literal,
            ..Model::default()
        };
        let (frel, facq) = (Action::fence(0, Rel, Sys), Action::fence(1, Acq, Sys));
        assert!(
            !strongly_matches(&frel, &facq, &m, &g),
            "A7: literally, rel/acq fences never match"
        );
        let fences = Model {
            fence_match: FenceMatch::Fences,
            ..m
        };
        assert!(strongly_matches(&frel, &facq, &fences, &g));
        let racq = Action::read(1, Acq, Sys, 0, 1);
        assert!(
            strongly_matches(&frel, &racq, &fences, &g),
            "C44: F^rel against R^acq"
        );
        let (fsc0, fsc1) = (Action::fence(0, Sc, Sys), Action::fence(1, Sc, Sys));
        assert!(strongly_fences(&fsc0, &fsc1, &g) && strongly_matches(&fsc0, &fsc1, &m, &g));
        let wrel = Action::write(0, Rel, Sys, 0, 1);
        assert!(
            strongly_matches(&wrel, &racq, &m, &g),
            "MP: W^rel x against R^acq x"
        );
        let rlx = Action::read(1, Rlx, Sys, 0, 1);
        assert!(
            !strongly_matches(&wrel, &rlx, &m, &g),
            "a relaxed read is no acquire"
        );
    }

    /// Every action over two threads, two locations, two values and all legal modes and scopes.
    fn universe() -> Vec<Action> {
        let mut out = Vec::new();
        for t in [0, 2] {
            for s in Scope::ALL {
                for m in [Wk, Rlx, Acq, Sc] {
                    for (l, v) in [(0, 0), (0, 1), (1, 1)] {
                        out.push(Action::read(t, m, s, l, v));
                    }
                }
                for m in [Wk, Rlx, Rel, Sc] {
                    for (l, v) in [(0, 0), (0, 1), (1, 1)] {
                        out.push(Action::write(t, m, s, l, v));
                    }
                }
                for m in [Rel, Acq, Ra, Sc] {
                    out.push(Action::fence(t, m, s));
                }
            }
        }
        out
    }

    /// §1.1 requires matches ⊆ blocks ⊆ overlaps ⊇ strongly-overlaps.
    #[test]
    fn the_required_inclusions_hold() {
        let g = Fixed;
        for a in universe() {
            for b in universe() {
                assert!(!matches(&a, &b) || blocks(&a, &b));
                assert!(!blocks(&a, &b) || overlaps(&a, &b));
                assert!(!strongly_overlaps(&a, &b, &g) || overlaps(&a, &b));
            }
        }
    }

    /// §1.1 also requires strongly-matches ⊆ matches, which the definitions do
    /// not give: W^rel x 1 strongly-matches R^acq x 0 without matching it, and
    /// sc fences strongly-match without being accesses. The book's "Readings of
    /// the note" records this; the semantics uses strongly-matches as defined.
    #[test]
    fn strongly_matches_is_not_within_matches_as_defined() {
        let g = Fixed;
        let m = Model::default();
        let (w, r) = (
            Action::write(0, Rel, Sys, 0, 1),
            Action::read(2, Acq, Sys, 0, 0),
        );
        assert!(strongly_matches(&w, &r, &m, &g) && !matches(&w, &r));
    }

    /// §1.2: "for CPUs [all sys, modes ⊒ rlx] strongly-overlaps is the same as
    /// overlaps and strongly-fences applies to any pair of sc fences".
    #[test]
    fn on_cpus_strongly_overlaps_is_overlaps() {
        let g = Fixed;
        let cpu: Vec<Action> = universe()
            .into_iter()
            .filter(|a| a.scope == Sys && a.mode != Wk)
            .collect();
        for a in &cpu {
            for b in &cpu {
                assert_eq!(strongly_overlaps(a, b, &g), overlaps(a, b), "{a:?} {b:?}");
                let both_sc_fences =
                    a.kind == Kind::Fence && b.kind == Kind::Fence && a.mode == Sc && b.mode == Sc;
                assert_eq!(strongly_fences(a, b, &g), both_sc_fences);
            }
        }
    }
}
