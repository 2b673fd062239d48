//! Lowerings: a program of pomset's language rewritten into the
//! instructions a target model's events stand for, before the target
//! model judges it. The one lowering is to PTX, the usual mapping of C++
//! to PTX (Lustig et al., ASPLOS 2019, section 6): an sc read is
//! `fence.sc; ld.acquire`, an sc write `fence.sc; st.release`, an RMW with
//! an sc half `fence.sc; atom` with sc as acquire/release; every other
//! access and fence keeps its mode and scope (the book's "PTX" has the
//! table). PTX programs imported from Dat3M are unchanged by it.

use crate::syntax::ast::Mode;
use crate::syntax::core::{Program, Stmt};

/// Which instruction set a cat model's events stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    Ptx,
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
