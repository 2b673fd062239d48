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

use crate::syntax::ast::{Mode, Scope};
use crate::syntax::core::{Program, Stmt, Vk};
use crate::syntax::span::Span;

/// Which instruction set a cat model's events stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    Ptx,
    /// pwt to Vulkan, with the reading of `wk` it takes.
    Vulkan(WkReading),
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
    /// Reads `SRC:TGT` or `SRC:TGT:VARIANT`; the one variant is `wk-rlx`
    /// of `pwt:vulkan` (and `pwt:vulkan-2021`).
    pub fn parse(text: &str) -> Result<Mapping, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let (src, tgt, variant) = match parts[..] {
            [s, t] => (s, t, None),
            [s, t, v] => (s, t, Some(v)),
            _ => return Err(format!("--mapping takes SRC:TGT, not `{text}`")),
        };
        let vulkan = src == "pwt" && matches!(tgt, "vulkan" | "vulkan-2021");
        let lowering = match (vulkan, variant) {
            (true, None) => Some(Lowering::Vulkan(WkReading::NonAtomic)),
            (true, Some("wk-rlx")) => Some(Lowering::Vulkan(WkReading::Relaxed)),
            (true, Some(v)) => {
                return Err(format!(
                    "`{v}` is no variant of the mapping {src}:{tgt}; the one variant is `wk-rlx` (the book's \"Vulkan\")"
                ))
            }
            (false, Some(_)) => {
                return Err(format!(
                    "the mapping {src}:{tgt} has no variants; only pwt:vulkan has one (`pwt:vulkan:wk-rlx`)"
                ))
            }
            (false, None) => None,
        };
        Ok(Mapping {
            src: src.to_string(),
            tgt: tgt.to_string(),
            lowering,
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
            Lowering::Vulkan(wk) => {
                let mut q = p.clone();
                let v = VkMap {
                    semsc: storage_classes(p),
                    wk,
                    wk_scope: narrowest_scope(p),
                };
                for (_, body) in &mut q.main {
                    *body = v.stmt(body);
                }
                q
            }
        }
    }
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
    wk: WkReading,
    /// The scope of a `wk` access read as atomic.
    wk_scope: Scope,
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

    /// The acq_rel fence standing beside an sc access.
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

    /// A mode and scope of an access as Vulkan's: `wk` per the reading.
    fn access(&self, mode: Mode, scope: Scope) -> (Mode, Scope) {
        match (mode, self.wk) {
            (Mode::Wk, WkReading::Relaxed) => (Mode::Rlx, self.wk_scope),
            _ => (mode, scope),
        }
    }

    fn stmt(&self, s: &Stmt) -> Stmt {
        match s {
            Stmt::Read {
                reg,
                loc,
                mode,
                scope,
            } => {
                let (m, sc) = self.access(*mode, *scope);
                let acq = matches!(m, Mode::Acq | Mode::Ra | Mode::Sc);
                let read = VkMap::wrap(
                    self.sem(false, acq),
                    Stmt::Read {
                        reg: *reg,
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
            Stmt::Write {
                loc,
                expr,
                mode,
                scope,
            } => {
                let (m, sc) = self.access(*mode, *scope);
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
            Stmt::Rmw {
                reg,
                op,
                read_mode,
                write_mode,
                scope,
                loc,
                args,
            } => {
                let acq = matches!(read_mode, Mode::Acq | Mode::Ra | Mode::Sc);
                let rel = matches!(write_mode, Mode::Rel | Mode::Ra | Mode::Sc);
                let rmw = VkMap::wrap(
                    self.sem(rel, acq),
                    Stmt::Rmw {
                        reg: *reg,
                        op: *op,
                        read_mode: weaken(*read_mode, Mode::Acq),
                        write_mode: weaken(*write_mode, Mode::Rel),
                        scope: *scope,
                        loc: loc.clone(),
                        args: args.clone(),
                    },
                );
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
            Stmt::Fence { mode, scope } => {
                let rel = matches!(mode, Mode::Rel | Mode::Ra | Mode::Sc);
                let acq = matches!(mode, Mode::Acq | Mode::Ra | Mode::Sc);
                if !rel && !acq {
                    return s.clone();
                }
                let mode = if *mode == Mode::Sc { Mode::Ra } else { *mode };
                VkMap::wrap(
                    Vk {
                        nonpriv: false,
                        ..self.sem(rel, acq)
                    },
                    Stmt::Fence {
                        mode,
                        scope: *scope,
                    },
                )
            }
            Stmt::If { cond, then, els } => Stmt::If {
                cond: cond.clone(),
                then: Box::new(self.stmt(then)),
                els: Box::new(self.stmt(els)),
            },
            Stmt::Seq(v) => Stmt::Seq(v.iter().map(|s| self.stmt(s)).collect()),
            Stmt::Par {
                thread,
                left,
                right,
            } => Stmt::Par {
                thread: *thread,
                left: Box::new(self.stmt(left)),
                right: Box::new(self.stmt(right)),
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
