//! Lowerings: a program of pomset's language rewritten into the
//! instructions a target model's events stand for, before the target
//! model judges it.
//!
//! - PTX: the usual mapping of C++ to PTX (Lustig et al., ASPLOS 2019,
//!   section 6): an sc read is `fence.sc; ld.acquire`, an sc write
//!   `fence.sc; st.release`, an RMW with an sc half `fence.sc; atom` with sc
//!   as acquire/release; every other access and fence keeps its mode and
//!   scope (the book's "PTX" has the table). PTX programs imported from
//!   Dat3M are unchanged by it. Every run of the bundled `ptx` applies it.
//! - Vulkan: the mapping `compare --mapping pwt:vulkan` checks (the book's
//!   "Vulkan" has the table): releases and acquires gain storage-class
//!   semantics with MakeAvailable / MakeVisible, accesses become
//!   non-private, sc becomes acquire/release with an acq_rel fence. Only
//!   `--mapping` applies it: `run --model vulkan` judges a program as
//!   written.

use crate::syntax::ast::RmwOp;
use crate::syntax::ast::{Mode, Scope};
use crate::syntax::core::{Expr, Loc, LocId, LocInfo, Program, RegId, RegInfo, Stmt, ThreadId, Vk};
use crate::syntax::span::Span;

/// Which instruction set a cat model's events stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    Ptx,
    /// pwt to Vulkan, with the readings of `wk` and `sc` it takes.
    Vulkan(VulkanReading),
}

/// The choices of the Vulkan mapping (the book's "Vulkan"): `pwt:vulkan`
/// is [`VulkanReading::DEFAULT`]; the variants `wk-rlx` and `sc-rmw` of
/// `--mapping` change one each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VulkanReading {
    pub wk: WkReading,
    pub sc: ScReading,
}

impl VulkanReading {
    pub const DEFAULT: VulkanReading = VulkanReading {
        wk: WkReading::NonAtomic,
        sc: ScReading::Fenced,
    };
}

/// How the Vulkan mapping reads the note's sc accesses and fences (Vulkan
/// has no sequentially consistent ordering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScReading {
    /// An sc write is a release write then an acq_rel fence, an sc read an
    /// acq_rel fence then an acquire read, `F.sc` an acq_rel fence.
    Fenced,
    /// An sc access is an acq_rel RMW (`EXCHG` for a write, `FADD` of 0
    /// for a read) and `F.sc` an acq_rel `FADD` of 0 on one location of its
    /// own, `_fsc`: the RMWs of one location are totally ordered and each
    /// reads the one before (the mapping `pwt:vulkan:sc-rmw`).
    Rmw,
}

/// How the Vulkan mapping reads the note's weak accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WkReading {
    /// A non-atomic non-private access (OpLoad/OpStore with
    /// NonPrivatePointer): a race on it is undefined behaviour in Vulkan.
    NonAtomic,
    /// An atomic relaxed access at the narrowest scope holding every
    /// thread of the test: never a data race (the mapping `pwt:vulkan:wk-rlx`).
    Relaxed,
}

/// The mappings, as an error lists them.
pub const MAPPINGS: &str = "the mappings: pwt:ptx (the PTX lowering), pwt:vulkan and \
pwt:vulkan-2021 (the Vulkan mapping; variants :wk-rlx and :sc-rmw), and any other \
SRC:TGT of two models, the program taken as written (rc11:pwt, pwt:sc)";

/// A compilation mapping `SRC:TGT[:VARIANT]` of `compare --mapping`: the
/// two model names and the lowering the target's column applies, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub src: String,
    pub tgt: String,
    /// `Some` for pwt to a bundled Vulkan model; PTX lowers on every run.
    pub lowering: Option<Lowering>,
}

impl Mapping {
    /// Reads `SRC:TGT` or `SRC:TGT:VARIANT[:VARIANT]`; the variants,
    /// `wk-rlx` and `sc-rmw`, are those of `pwt:vulkan` (and
    /// `pwt:vulkan-2021`).
    pub fn parse(text: &str) -> Result<Mapping, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let [src, tgt, ref variants @ ..] = parts[..] else {
            return Err(format!("--mapping takes SRC:TGT, not `{text}`: {MAPPINGS}"));
        };
        for side in [src, tgt] {
            // A model with options (`pwt[c7a=direct]`) is named by what precedes them.
            let name = side.split('[').next().unwrap_or(side);
            if crate::engine::canonical(name).is_none() && !crate::engine::is_file_name(name) {
                let no = crate::engine::unknown_model(name, true);
                return Err(format!("--mapping {text}: {no}; {MAPPINGS}"));
            }
        }
        let vulkan = src == "pwt" && matches!(tgt, "vulkan" | "vulkan-2021");
        if !vulkan {
            return match variants.first() {
                Some(_) => Err(format!(
                    "the mapping {src}:{tgt} has no variants; only pwt:vulkan has (`wk-rlx`, `sc-rmw`)"
                )),
                None => Ok(Mapping {
                    src: src.to_string(),
                    tgt: tgt.to_string(),
                    lowering: None,
                }),
            };
        }
        let mut reading = VulkanReading::DEFAULT;
        for (i, v) in variants.iter().enumerate() {
            if variants[..i].contains(v) {
                return Err(format!("the variant `{v}` is written twice in `{text}`"));
            }
            match *v {
                "wk-rlx" => reading.wk = WkReading::Relaxed,
                "sc-rmw" => reading.sc = ScReading::Rmw,
                _ => {
                    return Err(format!(
                        "`{v}` is no variant of the mapping {src}:{tgt}; the variants are `wk-rlx` and `sc-rmw` (the book's \"Vulkan\")"
                    ))
                }
            }
        }
        Ok(Mapping {
            src: src.to_string(),
            tgt: tgt.to_string(),
            lowering: Some(Lowering::Vulkan(reading)),
        })
    }
}

impl Lowering {
    /// `p` as the target's instructions.
    pub fn apply(self, p: &Program) -> Program {
        match self {
            Lowering::Ptx => {
                let mut q = p.clone();
                for (_, body) in &mut q.main {
                    *body = ptx(body);
                }
                q
            }
            Lowering::Vulkan(reading) => {
                let mut q = p.clone();
                let mut v = VkMap {
                    semsc: storage_classes(p),
                    reading,
                    wk_scope: narrowest_scope(p),
                    regs: std::mem::take(&mut q.regs),
                    fence_loc: None,
                    locs: q.locs.len(),
                };
                for (t, body) in &mut q.main {
                    *body = v.stmt(body, *t);
                }
                q.regs = v.regs;
                if v.fence_loc.is_some() {
                    q.locs.push(LocInfo {
                        name: "_fsc".to_string(),
                        address: None,
                        init: 0,
                    });
                }
                q
            }
        }
    }
}

/// Why a model that synchronises through the storage classes in an
/// event's semantics (it reads `SEMSC0`..`SEMSC3`, as Vulkan's does) finds
/// `p`'s releases and acquires ordering nothing: some carry no storage
/// class in their semantics (every `rel`, `acq` and `sc` of the note's
/// language, which has none). `None` when the model reads no such set or
/// every release and acquire of `p` names a class.
pub fn unqualified_synchronisation(p: &Program, model: &crate::cat::Model) -> Option<String> {
    use crate::cat::builtins::{Builtin, VkBuiltin};
    fn walk(s: &Stmt, semsc: Option<u8>, found: &mut usize) {
        let syncs = |m: &crate::action::Mode| m.is_release() || m.is_acquire();
        match s {
            Stmt::Read { mode, .. } | Stmt::Write { mode, .. } | Stmt::Fence { mode, .. } => {
                if syncs(mode) && semsc.unwrap_or(0) == 0 {
                    *found += 1;
                }
            }
            Stmt::Rmw {
                read_mode,
                write_mode,
                ..
            } => {
                if (syncs(read_mode) || syncs(write_mode)) && semsc.unwrap_or(0) == 0 {
                    *found += 1;
                }
            }
            Stmt::Barrier {
                mode: Some(m), vk, ..
            } => {
                if syncs(m) && vk.semsc == 0 {
                    *found += 1;
                }
            }
            Stmt::Vulkan { vk, body, .. } => walk(body, Some(vk.semsc), found),
            Stmt::If { then, els, .. } => {
                walk(then, semsc, found);
                walk(els, semsc, found);
            }
            Stmt::Seq(v) => v.iter().for_each(|s| walk(s, semsc, found)),
            Stmt::Par { left, right, .. } => {
                walk(left, semsc, found);
                walk(right, semsc, found);
            }
            _ => {}
        }
    }
    if !model.reads(|b| matches!(b, Builtin::Vulkan(VkBuiltin::SemSc(_)))) {
        return None;
    }
    let mut found = 0;
    for (_, s) in &p.main {
        walk(s, None, &mut found);
    }
    (found > 0).then(|| {
        format!(
            "{found} release or acquire access(es) or fence(s) of this test carry no storage class in their semantics (`.semsc0` to `.semsc3`), and {} synchronises only through those: here they order no more than relaxed ones (`--mapping pwt:vulkan` adds the classes, as a compiler would; the book's Vulkan chapter, \"The compilation check\")",
            model.name
        )
    })
}

/// The storage classes a program's accesses use, as a bit set (class 0
/// for every unqualified access).
fn storage_classes(p: &Program) -> u8 {
    fn walk(s: &Stmt, acc: &mut u8) {
        match s {
            Stmt::Read { .. } | Stmt::Write { .. } | Stmt::Rmw { .. } => *acc |= 1,
            Stmt::Vulkan { vk, body, .. } => {
                if matches!(**body, Stmt::Fence { .. }) {
                    return;
                }
                *acc |= 1 << vk.class;
            }
            Stmt::If { then, els, .. } => {
                walk(then, acc);
                walk(els, acc);
            }
            Stmt::Seq(v) => v.iter().for_each(|s| walk(s, acc)),
            Stmt::Par { left, right, .. } => {
                walk(left, acc);
                walk(right, acc);
            }
            _ => {}
        }
    }
    let mut acc = 0;
    for (_, s) in &p.main {
        walk(s, &mut acc);
    }
    acc.max(1)
}

/// The narrowest scope whose one instance holds every thread of `p`.
fn narrowest_scope(p: &Program) -> Scope {
    let all_same = |f: fn(&crate::syntax::core::ThreadInfo) -> u32| {
        p.threads.windows(2).all(|w| f(&w[0]) == f(&w[1]))
    };
    if all_same(|t| t.sg) {
        Scope::Sg
    } else if all_same(|t| t.cta) {
        Scope::Cta
    } else if all_same(|t| t.gpu) {
        Scope::Gpu
    } else {
        Scope::Sys
    }
}

/// The Vulkan mapping of one program.
struct VkMap {
    /// The storage classes the program uses (the semantics of every
    /// release and acquire).
    semsc: u8,
    reading: VulkanReading,
    /// The scope of a `wk` access read as atomic.
    wk_scope: Scope,
    /// The program's registers, with the fresh ones the RMWs of
    /// `sc-rmw` write.
    regs: Vec<RegInfo>,
    /// The location `_fsc` of `sc-rmw`'s fences, once one is used.
    fence_loc: Option<LocId>,
    /// How many locations the program has.
    locs: usize,
}

impl VkMap {
    /// The qualifiers of a release (`rel`), an acquire (`acq`), or both.
    fn sem(&self, rel: bool, acq: bool) -> Vk {
        Vk {
            nonpriv: true,
            semsc: if rel || acq { self.semsc } else { 0 },
            semav: rel,
            semvis: acq,
            ..Vk::default()
        }
    }

    fn wrap(vk: Vk, body: Stmt) -> Stmt {
        Stmt::Vulkan {
            vk,
            at: Span::default(),
            body: Box::new(body),
        }
    }

    /// The acq_rel fence standing beside an sc access, or for `F.sc`.
    fn fence(&self, scope: Scope) -> Stmt {
        VkMap::wrap(
            Vk {
                nonpriv: false,
                ..self.sem(true, true)
            },
            Stmt::Fence {
                mode: Mode::Ra,
                scope,
            },
        )
    }

    /// A fresh register of `thread` for an RMW's result nobody reads.
    fn fresh(&mut self, thread: ThreadId) -> RegId {
        let id = self.regs.len() as RegId;
        self.regs.push(RegInfo {
            name: format!("_sc{id}"),
            thread,
            fresh: true,
            version_of: None,
        });
        id
    }

    /// An acq_rel RMW standing for an sc access (`sc-rmw`).
    fn rmw(&self, reg: RegId, op: RmwOp, loc: Loc, arg: Expr, scope: Scope) -> Stmt {
        VkMap::wrap(
            self.sem(true, true),
            Stmt::Rmw {
                reg,
                op,
                read_mode: Mode::Acq,
                write_mode: Mode::Rel,
                scope,
                loc,
                args: vec![arg],
            },
        )
    }

    /// A mode and scope of an access as Vulkan's: `wk` per the reading.
    fn access(&self, mode: Mode, scope: Scope) -> (Mode, Scope) {
        match (mode, self.reading.wk) {
            (Mode::Wk, WkReading::Relaxed) => (Mode::Rlx, self.wk_scope),
            _ => (mode, scope),
        }
    }

    fn read(&mut self, reg: RegId, loc: &Loc, mode: Mode, scope: Scope) -> Stmt {
        let (m, sc) = self.access(mode, scope);
        if m == Mode::Sc && self.reading.sc == ScReading::Rmw {
            return self.rmw(reg, RmwOp::Fadd, loc.clone(), Expr::Int(0), sc);
        }
        let acq = matches!(m, Mode::Acq | Mode::Ra | Mode::Sc);
        let read = VkMap::wrap(
            self.sem(false, acq),
            Stmt::Read {
                reg,
                loc: loc.clone(),
                mode: one_sided(m, Mode::Acq),
                scope: sc,
            },
        );
        if m == Mode::Sc {
            Stmt::Seq(vec![self.fence(sc), read])
        } else {
            read
        }
    }

    fn write(&mut self, loc: &Loc, expr: &Expr, mode: Mode, scope: Scope, t: ThreadId) -> Stmt {
        let (m, sc) = self.access(mode, scope);
        if m == Mode::Sc && self.reading.sc == ScReading::Rmw {
            let reg = self.fresh(t);
            return self.rmw(reg, RmwOp::Exchg, loc.clone(), expr.clone(), sc);
        }
        let rel = matches!(m, Mode::Rel | Mode::Ra | Mode::Sc);
        let write = VkMap::wrap(
            self.sem(rel, false),
            Stmt::Write {
                loc: loc.clone(),
                expr: expr.clone(),
                mode: one_sided(m, Mode::Rel),
                scope: sc,
            },
        );
        if m == Mode::Sc {
            Stmt::Seq(vec![write, self.fence(sc)])
        } else {
            write
        }
    }

    /// An RMW: semantics for its acquire and release halves; under
    /// `Fenced` an sc half gets its fence (before for the read, after for
    /// the write), under `Rmw` it is acquire/release alone.
    fn update(&self, s: &Stmt) -> Stmt {
        let Stmt::Rmw {
            read_mode,
            write_mode,
            scope,
            ..
        } = s
        else {
            return s.clone();
        };
        let acq = matches!(read_mode, Mode::Acq | Mode::Ra | Mode::Sc);
        let rel = matches!(write_mode, Mode::Rel | Mode::Ra | Mode::Sc);
        let mut body = s.clone();
        if let Stmt::Rmw {
            read_mode,
            write_mode,
            ..
        } = &mut body
        {
            *read_mode = weaken(*read_mode, Mode::Acq);
            *write_mode = weaken(*write_mode, Mode::Rel);
        }
        let rmw = VkMap::wrap(self.sem(rel, acq), body);
        if self.reading.sc == ScReading::Rmw {
            return rmw;
        }
        let mut v = Vec::new();
        if *read_mode == Mode::Sc {
            v.push(self.fence(*scope));
        }
        v.push(rmw);
        if *write_mode == Mode::Sc {
            v.push(self.fence(*scope));
        }
        if v.len() == 1 {
            v.remove(0)
        } else {
            Stmt::Seq(v)
        }
    }

    fn fence_stmt(&mut self, mode: Mode, scope: Scope, t: ThreadId) -> Option<Stmt> {
        let rel = matches!(mode, Mode::Rel | Mode::Ra | Mode::Sc);
        let acq = matches!(mode, Mode::Acq | Mode::Ra | Mode::Sc);
        if !rel && !acq {
            return None;
        }
        if mode == Mode::Sc && self.reading.sc == ScReading::Rmw {
            let loc = *self.fence_loc.get_or_insert(self.locs as LocId);
            let reg = self.fresh(t);
            return Some(self.rmw(reg, RmwOp::Fadd, Loc::Named(loc), Expr::Int(0), scope));
        }
        let mode = if mode == Mode::Sc { Mode::Ra } else { mode };
        Some(VkMap::wrap(
            Vk {
                nonpriv: false,
                ..self.sem(rel, acq)
            },
            Stmt::Fence { mode, scope },
        ))
    }

    /// `s`, a statement of thread `t`, as Vulkan's.
    fn stmt(&mut self, s: &Stmt, t: ThreadId) -> Stmt {
        match s {
            Stmt::Read {
                reg,
                loc,
                mode,
                scope,
            } => self.read(*reg, loc, *mode, *scope),
            Stmt::Write {
                loc,
                expr,
                mode,
                scope,
            } => self.write(loc, expr, *mode, *scope, t),
            Stmt::Rmw { .. } => self.update(s),
            Stmt::Fence { mode, scope } => self
                .fence_stmt(*mode, *scope, t)
                .unwrap_or_else(|| s.clone()),
            Stmt::If { cond, then, els } => Stmt::If {
                cond: cond.clone(),
                then: Box::new(self.stmt(then, t)),
                els: Box::new(self.stmt(els, t)),
            },
            Stmt::Seq(v) => Stmt::Seq(v.iter().map(|s| self.stmt(s, t)).collect()),
            Stmt::Par {
                thread,
                left,
                right,
            } => Stmt::Par {
                thread: *thread,
                left: Box::new(self.stmt(left, *thread)),
                right: Box::new(self.stmt(right, t)),
            },
            // Already Vulkan's: qualified accesses and barriers stay as written.
            other => other.clone(),
        }
    }
}

/// sc as PTX's acquire (for a read) or release (for a write).
fn weaken(m: Mode, to: Mode) -> Mode {
    if m == Mode::Sc {
        to
    } else {
        m
    }
}

/// sc and ra as the one side a load (acquire) or a store (release) can
/// have in SPIR-V.
fn one_sided(m: Mode, to: Mode) -> Mode {
    if matches!(m, Mode::Sc | Mode::Ra) {
        to
    } else {
        m
    }
}

fn ptx(s: &Stmt) -> Stmt {
    let fenced = |scope, access: Stmt| {
        Stmt::Seq(vec![
            Stmt::Fence {
                mode: Mode::Sc,
                scope,
            },
            access,
        ])
    };
    match s {
        Stmt::Read {
            reg,
            loc,
            mode: Mode::Sc,
            scope,
        } => fenced(
            *scope,
            Stmt::Read {
                reg: *reg,
                loc: loc.clone(),
                mode: Mode::Acq,
                scope: *scope,
            },
        ),
        Stmt::Write {
            loc,
            expr,
            mode: Mode::Sc,
            scope,
        } => fenced(
            *scope,
            Stmt::Write {
                loc: loc.clone(),
                expr: expr.clone(),
                mode: Mode::Rel,
                scope: *scope,
            },
        ),
        Stmt::Rmw {
            reg,
            op,
            read_mode,
            write_mode,
            scope,
            loc,
            args,
        } if *read_mode == Mode::Sc || *write_mode == Mode::Sc => fenced(
            *scope,
            Stmt::Rmw {
                reg: *reg,
                op: *op,
                read_mode: weaken(*read_mode, Mode::Acq),
                write_mode: weaken(*write_mode, Mode::Rel),
                scope: *scope,
                loc: loc.clone(),
                args: args.clone(),
            },
        ),
        Stmt::If { cond, then, els } => Stmt::If {
            cond: cond.clone(),
            then: Box::new(ptx(then)),
            els: Box::new(ptx(els)),
        },
        Stmt::Seq(v) => Stmt::Seq(v.iter().map(ptx).collect()),
        Stmt::Par {
            thread,
            left,
            right,
        } => Stmt::Par {
            thread: *thread,
            left: Box::new(ptx(left)),
            right: Box::new(ptx(right)),
        },
        // A Vulkan-qualified access is lowered too, its fence left outside
        // the qualifiers (they name the access's storage and visibility).
        Stmt::Vulkan { vk, at, body } => {
            let wrap = |body: Stmt| Stmt::Vulkan {
                vk: *vk,
                at: *at,
                body: Box::new(body),
            };
            match ptx(body) {
                Stmt::Seq(mut v) if v.len() == 2 && matches!(v[0], Stmt::Fence { .. }) => {
                    let access = v.pop().map(wrap);
                    v.extend(access);
                    Stmt::Seq(v)
                }
                lowered => wrap(lowered),
            }
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SRC:TGT[:VARIANT]...`: pwt to a bundled Vulkan model lowers, with
    /// the variants; other pairs are the identity and take no variant.
    #[test]
    fn mappings_parse_with_their_variants() {
        let lowering = |t: &str| Mapping::parse(t).map(|m| m.lowering);
        assert_eq!(
            lowering("pwt:vulkan"),
            Ok(Some(Lowering::Vulkan(VulkanReading::DEFAULT)))
        );
        assert_eq!(
            lowering("pwt:vulkan-2021:sc-rmw:wk-rlx"),
            Ok(Some(Lowering::Vulkan(VulkanReading {
                wk: WkReading::Relaxed,
                sc: ScReading::Rmw,
            })))
        );
        assert_eq!(lowering("pwt:ptx"), Ok(None));
        assert_eq!(lowering("rc11:pwt"), Ok(None));
        for bad in [
            "pwt",
            "pwt:vulkan:wk-na",
            "pwt:vulkan:wk-rlx:wk-rlx",
            "pwt:ptx:wk-rlx",
        ] {
            assert!(lowering(bad).is_err(), "{bad}");
        }
    }

    /// An sc access under Vulkan qualifiers gets its `fence.sc` too, outside
    /// the qualifiers, and its sc becomes acquire.
    #[test]
    fn a_qualified_sc_read_is_lowered() {
        let t = crate::syntax::parse("litmus Q\nr := x.sc.nonpriv;\n|| x := 1;\nexists (r = 0)\n")
            .expect("parses");
        let q = Lowering::Ptx.apply(&t.program);
        let (_, body) = &q.main[0];
        let text = format!("{body:?}");
        assert!(text.contains("Fence { mode: Sc"), "{text}");
        assert!(text.contains("mode: Acq"), "{text}");
        let Stmt::Seq(parts) = body else {
            panic!("not lowered: {text}");
        };
        assert!(matches!(parts[0], Stmt::Fence { .. }), "{text}");
        assert!(matches!(parts[1], Stmt::Vulkan { .. }), "{text}");
    }
}
