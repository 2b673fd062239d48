//! Modes, scopes and qualifiers: each access's mode checked against §1.1,
//! and the Vulkan extension's qualifiers and barriers.

use super::*;

impl Checker {
    pub(super) fn read_mode(&mut self, s: &Suffix) -> Mode {
        match s.mode {
            None => Mode::Rlx,
            Some((m, ms)) => self.legal(m, ms, Access::Read),
        }
    }

    pub(super) fn write_mode(&mut self, s: &Suffix) -> Mode {
        match s.mode {
            None => Mode::Rlx,
            Some((m, ms)) => self.legal(m, ms, Access::Write),
        }
    }

    pub(super) fn fence_mode(&mut self, s: &Suffix, span: Span) -> Mode {
        match s.mode {
            Some((m, ms)) => self.legal(m, ms, Access::Fence),
            None => {
                let d = Diagnostic::error("a fence needs a mode", span)
                    .with_label("no mode")
                    .with_hint("fences take rel, acq, ra or sc: `F.sc` is a full fence");
                self.error(d);
                Mode::Sc
            }
        }
    }

    /// Vulkan's per-instruction qualifiers: `.av` on writes, `.vis` on
    /// reads, neither on RMWs; semantics only on atomics (the book's
    /// "Vulkan").
    pub(super) fn access_quals(&mut self, s: &Suffix, access: Access) {
        let non_atomic = matches!(s.mode, Some((Mode::Wk, _)));
        for (q, span) in &s.quals {
            let semantics = matches!(q, Qual::SemSc(_) | Qual::SemAv | Qual::SemVis);
            let wrong = match (q, access) {
                (Qual::Av, Access::Write) | (Qual::Vis, Access::Read) => None,
                (Qual::Av, _) => Some("`.av` (MakePointerAvailable) goes on writes"),
                (Qual::Vis, _) => Some("`.vis` (MakePointerVisible) goes on reads"),
                _ if semantics && non_atomic => {
                    Some("semantics go on atomics, fences and barriers, not on `wk` accesses")
                }
                _ => None,
            };
            if let Some(why) = wrong {
                let d = Diagnostic::error(format!("`.{}` is not allowed here", q.name()), *span)
                    .with_label("misplaced qualifier")
                    .with_hint(why);
                self.error(d);
            }
        }
    }

    /// Fences and barriers carry semantics, not a storage class or
    /// per-instruction av/vis.
    pub(super) fn no_access_quals(&mut self, s: &Suffix, what: &str) {
        for (q, span) in &s.quals {
            if matches!(q, Qual::Av | Qual::Vis | Qual::NonPriv | Qual::Class(_)) {
                let d =
                    Diagnostic::error(format!("`.{}` is not allowed on {what}", q.name()), *span)
                        .with_label("an access qualifier")
                        .with_hint(format!(
                            "{what} takes semantics: `.semsc0` to `.semsc3`, `.semav`, `.semvis`"
                        ));
                self.error(d);
            }
        }
    }

    /// `barrier.ra.wg.semsc0(1)`: a control barrier; its mode, when given,
    /// is that of a fence (its memory semantics).
    pub(super) fn barrier(
        &mut self,
        suffix: &Suffix,
        id: Option<(i64, Span)>,
        span: Span,
    ) -> core::Stmt {
        let mode = suffix.mode.map(|(m, ms)| self.legal(m, ms, Access::Fence));
        self.no_access_quals(suffix, "a barrier");
        if suffix.scope.is_none() {
            let d = Diagnostic::error("a barrier needs an execution scope", span)
                .with_label("no scope")
                .with_hint("write `barrier.wg` (the workgroup, our cta) or `barrier.sg`");
            self.error(d);
        }
        core::Stmt::Barrier {
            mode,
            scope: scope_of(suffix),
            vk: core::Vk::from_quals(suffix.quals.iter().map(|(q, _)| q)),
            id: id.map_or(0, |(n, _)| n),
            at: span,
        }
    }

    /// §1.1: reads take wk/rlx/acq/sc, writes wk/rlx/rel/sc, fences rel/acq/ra/sc.
    pub(super) fn legal(&mut self, m: Mode, span: Span, access: Access) -> Mode {
        if access.allows(m) {
            return m;
        }
        let (what, allowed, suggestion) = access.describe(m);
        let d = Diagnostic::error(format!("`{}` is not a mode for {what}", m.as_str()), span)
            .with_label(format!("{what} takes {allowed}"))
            .with_hint(suggestion);
        self.error(d);
        m
    }

    // ------------------------------------------------------------ header
}
