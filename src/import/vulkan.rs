//! Dat3M's Vulkan litmus format: `VULKAN NAME` (or `Vulkan NAME`), an init
//! block, a header row of placed threads (`P0@sg 0, wg 0, qf 0 | ... ;`),
//! rows of instructions separated by `|` and ended by `;`, then herd7's
//! final part. The instructions are those of Dat3M's `LitmusVulkan.g4`:
//! `st`/`ld` (non-atomic, with `.nonpriv` or `.av.S`/`.vis.S`), `st.atom`,
//! `ld.atom`, `rmw.atom` (with semantics), `membar`, `cbar`, register
//! arithmetic, labels and jumps (unrolled by `cfg`). They become our
//! language's Vulkan extension; the book's "Vulkan" chapter has the table.

use std::collections::BTreeMap;

use super::cfg::{self, Item};
use super::make;
use super::ptx::{branch_op, dotted, register_inits, rows};
use super::text::{self, fail, refuse, Cursor, Kind, Read, Spelling, Token};
use crate::syntax::ast::{self, BinOp, Mode, Qual, RmwOp, Scope, ScopeNode, Suffix, UnOp};
use crate::syntax::{Diagnostic, Diagnostics, Span};

const SPELLING: Spelling = Spelling {
    puncts: &[
        "/\\", "\\/", "==", "!=", "<=", ">=", "{", "}", "[", "]", "(", ")", ";", ",", ":", ".",
        "|", "@", "=", "<", ">", "~", "&", "-",
    ],
    line_comments: &["//"],
    block_comments: &[("(*", "*)"), ("/*", "*/")],
    top_level_comments: &[],
    ident_extra: "",
};

/// Reads a Vulkan litmus test; `bound` is how often a backward jump may be
/// taken, and `copy` copies the code after a loop into each exit (`cfg::unroll`).
pub fn read(src: &str, bound: u32, copy: bool) -> Result<ast::File, Diagnostics> {
    let (name, name_end) = header_name(src);
    let Some(brace) = src[name_end..].find('{').map(|i| i + name_end) else {
        return fail(Diagnostic::error(
            "expected the init block `{ ... }`",
            Span::new(name_end, src.len()),
        ));
    };
    let comment = Some(src[name_end..brace].trim().replace('"', ""))
        .filter(|c| !c.is_empty())
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "));
    let toks = text::tokens(src, brace, src.len(), &SPELLING)?;
    let mut c = Cursor::new(toks, src.len());
    let mut file = make::file(&name, comment, Span::new(0, name_end));
    let mut r = Reader::default();
    r.init(&mut c, &mut file)?;
    if c.is_punct("{") {
        return fail(refuse(
            "a system-synchronizes-with declaration",
            c.here(),
            "`ssw` stands for host or API synchronisation; our Vulkan model has no host agents",
        ));
    }
    let threads = r.placements(&mut c)?;
    let cells = rows(&mut c, threads.len())?;
    for (i, (tname, span, _)) in threads.iter().enumerate() {
        let items = cells[i]
            .iter()
            .map(|cell| r.instruction(cell))
            .collect::<Result<Vec<Vec<Item>>, Diagnostic>>()?
            .concat();
        let mut body = register_inits(&r.reg_init, tname, *span);
        // Only the Vulkan model runs these tests, and the spin reduction
        // is not argued for cat models: loops are unrolled.
        let is_location = |n: &str| r.locations.contains_key(n);
        body.extend(cfg::unroll(&items, bound, &is_location, false, copy)?);
        if body.is_empty() {
            body.push(make::stmt(ast::StmtKind::Skip, *span));
        }
        file.threads.push(ast::Thread {
            label: Some(make::id(tname, *span)),
            body,
            span: *span,
        });
    }
    let locs = r.locations.clone();
    let is_loc = move |n: &str| locs.contains_key(n);
    super::cond::read_tail(&mut c, &mut file, &is_loc)?;
    file.scopes = Some(scope_tree(&threads));
    file.locations = r
        .locations
        .iter()
        .map(|(n, s)| ast::LocDecl {
            name: make::id(n, *s),
            address: None,
        })
        .collect();
    if r.jumps {
        file.model
            .push(make::setting("unroll", &bound.to_string(), Span::default()));
    }
    // V is the checker's default, closed under the program (issue 27 §1).
    Ok(file)
}

/// The name after `VULKAN` on the first line, and where that line ends.
fn header_name(src: &str) -> (String, usize) {
    let start = ["VULKAN", "Vulkan", "vulkan"]
        .iter()
        .filter_map(|w| src.find(w))
        .min()
        .unwrap_or(0);
    let line_end = src[start..].find('\n').map_or(src.len(), |i| i + start);
    let name = src.get(start + 6..line_end).unwrap_or("").trim();
    (make::test_name(name), line_end)
}

/// A thread's name, where it is declared, and its (subgroup, workgroup,
/// queue family).
type Placed = (String, Span, (u32, u32, u32));

#[derive(Default)]
struct Reader {
    /// Every location, with the place it is first named.
    locations: BTreeMap<String, Span>,
    /// `P1:r0 = 3` in the init block.
    reg_init: BTreeMap<(String, String), i64>,
    /// Whether some code jumps (then the file records the bound).
    jumps: bool,
}

/// What the dotted parts of an instruction say.
#[derive(Default)]
struct Parts {
    atom: bool,
    mode: Option<Mode>,
    scope: Option<(Scope, Span)>,
    quals: Vec<(Qual, Span)>,
    /// An RMW's operation (`add`), the last part.
    op: Option<(String, Span)>,
}

impl Parts {
    /// Sorts `.atom.acq.wg.sc0.semsc0.semvis.add` into their meanings.
    fn read(parts: &[(String, Span)], op_allowed: bool) -> Read<Parts> {
        let mut out = Parts::default();
        for (p, span) in parts {
            match p.as_str() {
                "atom" => out.atom = true,
                "acq" => out.mode = Some(Mode::Acq),
                "rel" => out.mode = Some(Mode::Rel),
                "acq_rel" => out.mode = Some(Mode::Ra),
                "sg" | "wg" | "qf" | "dv" => {
                    out.scope = Scope::parse(p).map(|s| (s, *span));
                }
                _ => match Qual::parse(p) {
                    Some(Qual::Class(0)) => {}
                    Some(q) => {
                        if !out.quals.iter().any(|(x, _)| *x == q) {
                            out.quals.push((q, *span));
                        }
                    }
                    None if op_allowed && out.op.is_none() => out.op = Some((p.clone(), *span)),
                    None => {
                        return Err(
                            Diagnostic::error(format!("unknown qualifier `.{p}`"), *span)
                                .with_label("not in Dat3M's Vulkan litmus grammar"),
                        )
                    }
                },
            }
        }
        out.quals.sort_by_key(|(q, _)| *q);
        Ok(out)
    }

    fn suffix(&self, mode: Mode) -> Suffix {
        Suffix {
            mode: Some((mode, self.scope.map_or(Span::default(), |s| s.1))),
            scope: self.scope,
            quals: self.quals.clone(),
        }
    }
}

impl Reader {
    fn init(&mut self, c: &mut Cursor, file: &mut ast::File) -> Read<()> {
        c.punct("{")?;
        while !c.eat_punct("}") {
            if c.eat_punct(";") {
                continue;
            }
            let start = c.here();
            let (first, fspan) = match c.peek().map(|t| t.kind.clone()) {
                Some(Kind::Int(n)) => {
                    c.bump();
                    (format!("P{n}"), start)
                }
                _ => c.ident("a location or a thread's register")?,
            };
            if c.eat_punct(":") {
                let (reg, _) = c.ident("a register")?;
                c.punct("=")?;
                if c.is_punct("&") || matches!(c.peek().map(|t| &t.kind), Some(Kind::Ident(_))) {
                    return Err(refuse(
                        "a register holding a location's address",
                        start.to(c.here()),
                        "pointer-valued registers are not imported; name the location in the code",
                    ));
                }
                let (v, _) = c.int("a value")?;
                self.reg_init.insert((first, reg), v);
                continue;
            }
            if c.is_word("aliases") {
                return Err(refuse(
                    "an alias declaration",
                    start.to(c.here()),
                    "two names for one location (two references) are not imported: our Vulkan model has one reference per location",
                ));
            }
            c.punct("=")?;
            if c.is_punct("&") || matches!(c.peek().map(|t| &t.kind), Some(Kind::Ident(_))) {
                return Err(refuse(
                    "a location initialised with another's address",
                    start.to(c.here()),
                    "pointer-valued locations are not imported",
                ));
            }
            let (v, vspan) = c.int("a value")?;
            self.location(&first, fspan)?;
            file.init.push(ast::InitEntry {
                loc: make::id(&first, fspan),
                value: v,
                span: fspan.to(vspan),
            });
        }
        c.eat_punct(";");
        Ok(())
    }

    fn location(&mut self, name: &str, span: Span) -> Read<()> {
        make::declare_location(&mut self.locations, name, span)
    }

    /// `P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;`
    fn placements(&mut self, c: &mut Cursor) -> Read<Vec<Placed>> {
        let mut out = Vec::new();
        loop {
            let (t, span) = c.ident("a thread such as `P0@sg 0, wg 0, qf 0`")?;
            c.punct("@")?;
            c.word("sg")?;
            let (sg, _) = c.int("a subgroup number")?;
            c.punct(",")?;
            c.word("wg")?;
            let (wg, _) = c.int("a workgroup number")?;
            c.punct(",")?;
            c.word("qf")?;
            let (qf, _) = c.int("a queue family number")?;
            if t != format!("P{}", out.len()) {
                return Err(
                    Diagnostic::error(format!("expected thread P{}", out.len()), span)
                        .with_label("threads are numbered from P0 in order"),
                );
            }
            out.push((t, span, (sg as u32, wg as u32, qf as u32)));
            if c.eat_punct(";") {
                return Ok(out);
            }
            c.punct("|")?;
        }
    }

    fn instruction(&mut self, cell: &[Token]) -> Read<Vec<Item>> {
        let Some(first) = cell.first() else {
            return Ok(vec![]);
        };
        let end = cell.last().map_or(first.span, |t| t.span);
        let span = first.span.to(end);
        let mut c = Cursor::new(cell.to_vec(), span.end);
        let (op, _) = c.ident("an instruction")?;
        if c.eat_punct(":") {
            return Ok(vec![Item::Label(op, span)]);
        }
        let parts = dotted(&mut c)?;
        let item = match op.as_str() {
            "st" => self.store(&mut c, &Parts::read(&parts, false)?, span)?,
            "ld" => self.load(&mut c, &Parts::read(&parts, false)?, span)?,
            "rmw" => self.rmw(&mut c, &Parts::read(&parts, true)?, span)?,
            "membar" => membar(&Parts::read(&parts, false)?, span)?,
            "cbar" => self.cbar(&mut c, &Parts::read(&parts, false)?, span)?,
            "add" | "sub" | "mul" | "div" | "and" | "or" | "xor" => {
                self.local(&mut c, &op, span)?
            }
            "goto" => {
                self.jumps = true;
                let (l, _) = c.ident("a label")?;
                Item::Goto(l, span)
            }
            b @ ("beq" | "bne" | "blt" | "bgt" | "ble" | "bge") => {
                self.jumps = true;
                let a = self.value(&mut c)?;
                c.punct(",")?;
                let v = self.value(&mut c)?;
                c.punct(",")?;
                let (l, _) = c.ident("a label")?;
                Item::Branch(make::binary(branch_op(b), a, v), l, span)
            }
            "avdevice" | "visdevice" => {
                return Err(refuse(
                    &format!("`{op}`"),
                    span,
                    "device-domain availability/visibility operations come from API commands; our Vulkan model has none",
                ))
            }
            other => {
                return Err(
                    Diagnostic::error(format!("unknown Vulkan instruction `{other}`"), span)
                        .with_label("not in Dat3M's Vulkan litmus grammar"),
                )
            }
        };
        if !c.at_end() {
            return Err(c.expected("the end of the instruction"));
        }
        Ok(vec![item])
    }

    /// `st.av.dv.sc0 x, 1` (non-atomic: our wk) or `st.atom.rel.wg.sc0.semsc0 x, 1`.
    fn store(&mut self, c: &mut Cursor, p: &Parts, span: Span) -> Read<Item> {
        let mode = match (p.atom, p.mode) {
            (false, _) => Mode::Wk,
            (true, None) => Mode::Rlx,
            (true, Some(m)) => m,
        };
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        c.punct(",")?;
        let v = self.value(c)?;
        Ok(Item::Stmt(make::assign(&x, p.suffix(mode), v, span)))
    }

    /// `ld.vis.dv.sc0 r1, x` or `ld.atom.acq.wg.sc0.semsc0 r0, y`.
    fn load(&mut self, c: &mut Cursor, p: &Parts, span: Span) -> Read<Item> {
        let mode = match (p.atom, p.mode) {
            (false, _) => Mode::Wk,
            (true, None) => Mode::Rlx,
            (true, Some(m)) => m,
        };
        let (r, _) = c.ident("a register")?;
        c.punct(",")?;
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        let read = make::name(&x, p.suffix(mode), xs);
        Ok(Item::Stmt(make::assign(&r, Default::default(), read, span)))
    }

    /// `rmw.atom.acq_rel.dv.sc0.semsc0.add r0, x, 1`: FADD for add (and
    /// sub, negated), EXCHG without an operation.
    fn rmw(&mut self, c: &mut Cursor, p: &Parts, span: Span) -> Read<Item> {
        let modes = match p.mode {
            None => vec![Mode::Rlx, Mode::Rlx],
            Some(Mode::Acq) => vec![Mode::Acq, Mode::Rlx],
            Some(Mode::Rel) => vec![Mode::Rlx, Mode::Rel],
            Some(_) => vec![Mode::Acq, Mode::Rel],
        };
        let (r, _) = c.ident("a register")?;
        c.punct(",")?;
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        c.punct(",")?;
        let a = self.value(c)?;
        let (op, args) = match p.op.as_ref().map(|(o, s)| (o.as_str(), *s)) {
            None => (RmwOp::Exchg, vec![a]),
            Some(("add", _)) => (RmwOp::Fadd, vec![a]),
            Some(("sub", s)) => (RmwOp::Fadd, vec![make::unary(UnOp::Neg, a, s)]),
            Some((other, s)) => return Err(refuse(
                &format!("the atomic operation `{other}`"),
                s,
                "pomset's RMWs are CAS, FADD and EXCHG (add, sub and the plain exchange import)",
            )),
        };
        let mut stmt = make::rmw(Some(&r), op, &modes, p.scope.map(|s| s.0), &x, args, span);
        if let ast::StmtKind::Rmw { rmw, .. } = &mut stmt.kind {
            rmw.quals = p.quals.clone();
        }
        Ok(Item::Stmt(stmt))
    }

    /// `cbar.acq_rel.wg.semsc0 1`: a control barrier, its dynamic-instance
    /// id as our barrier id. Named barriers (`, id, quorum`) are refused.
    fn cbar(&mut self, c: &mut Cursor, p: &Parts, span: Span) -> Read<Item> {
        let (id, ids) = c.int("the barrier's instance number")?;
        if c.is_punct(",") {
            return Err(refuse(
                "a named barrier with an id or a quorum",
                span,
                "barriers that only some threads of the scope reach (quorums) are not modelled",
            ));
        }
        let suffix = Suffix {
            mode: p.mode.map(|m| (m, span)),
            scope: p.scope,
            quals: p.quals.clone(),
        };
        Ok(Item::Stmt(make::stmt(
            ast::StmtKind::Barrier {
                suffix,
                id: Some((id, ids)),
            },
            span,
        )))
    }

    /// `add r, a, b`: register arithmetic (LET).
    fn local(&mut self, c: &mut Cursor, op: &str, span: Span) -> Read<Item> {
        let (r, _) = c.ident("a register")?;
        c.punct(",")?;
        let a = self.value(c)?;
        c.punct(",")?;
        let b = self.value(c)?;
        let op = match op {
            "add" => BinOp::Add,
            "sub" => BinOp::Sub,
            "mul" => BinOp::Mul,
            _ => {
                return Err(refuse(
                    &format!("`{op}`"),
                    span,
                    "pomset's expressions have +, - and * only",
                ))
            }
        };
        let rhs = make::binary(op, a, b);
        Ok(Item::Stmt(make::assign(&r, Default::default(), rhs, span)))
    }

    /// A constant or a register.
    fn value(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        if let Some(Token {
            kind: Kind::Ident(r),
            span,
        }) = c.peek().cloned()
        {
            c.bump();
            if self.locations.contains_key(&r) || !r.starts_with('r') {
                return Err(Diagnostic::error(format!("`{r}` is not a register"), span)
                    .with_label("Vulkan operands are registers `rN` or constants"));
            }
            return Ok(make::reg(&r, span));
        }
        let (n, span) = c.int("a register or a constant")?;
        Ok(make::int(n, span))
    }
}

/// `membar.acq.wg.semsc0.semvis`: a fence of that mode and scope.
fn membar(p: &Parts, span: Span) -> Read<Item> {
    let Some(mode) = p.mode else {
        return Err(Diagnostic::error(
            "`membar` needs acq, rel or acq_rel",
            span,
        ));
    };
    Ok(Item::Stmt(make::stmt(
        ast::StmtKind::Fence {
            suffix: p.suffix(mode),
        },
        span,
    )))
}

/// `sys { gpu { cta { sg { P0 P1 } P2 } } }` from the placements: queue
/// families are our gpus, workgroups our ctas, subgroups `sg` groups.
fn scope_tree(threads: &[Placed]) -> ScopeNode {
    type Sgs = BTreeMap<u32, Vec<ScopeNode>>;
    let mut qfs: BTreeMap<u32, BTreeMap<u32, Sgs>> = BTreeMap::new();
    for (t, span, (sg, wg, qf)) in threads {
        qfs.entry(*qf)
            .or_default()
            .entry(*wg)
            .or_default()
            .entry(*sg)
            .or_default()
            .push(ScopeNode::Thread(make::id(t, *span)));
    }
    let group = |level, children| ScopeNode::Group {
        level,
        children,
        span: Span::default(),
    };
    let children = qfs
        .into_values()
        .map(|wgs| {
            let ctas = wgs
                .into_values()
                .map(|sgs| {
                    let members = sgs
                        .into_values()
                        .flat_map(|ts| {
                            if ts.len() == 1 {
                                ts
                            } else {
                                vec![group(Scope::Sg, ts)]
                            }
                        })
                        .collect();
                    group(Scope::Cta, members)
                })
                .collect();
            group(Scope::Gpu, ctas)
        })
        .collect();
    group(Scope::Sys, children)
}
