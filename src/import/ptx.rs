//! Dat3M's PTX litmus format: `PTX NAME`, an init block, a header row of
//! placed threads (`P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;`), rows of
//! instructions separated by `|` and ended by `;`, then herd7's final part.
//! Jumps (`bne r0, 0, LC01`, `goto LC00`) are unrolled by `cfg`. The book's
//! "Tests from other tools" has the mapping table.

use std::collections::BTreeMap;

use super::cfg::{self, Item};
use super::make;
use super::text::{self, fail, refuse, Cursor, Kind, Read, Spelling, Token};
use crate::syntax::ast::{self, BinOp, Mode, RmwOp, Scope, ScopeNode, UnOp};
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

const PROXY: &str = "PTX proxies (texture, surface, constant memory and their fences) give one location several views; pomset has one view of memory";

/// Reads a PTX litmus test; `bound` is how often a backward jump may be
/// taken, `spin` writes spin loops as loops, and `copy` copies the code
/// after a loop into each of its exits (`cfg::unroll`).
pub fn read(src: &str, bound: u32, spin: bool, copy: bool) -> Result<ast::File, Diagnostics> {
    let (name, name_end) = header_name(src);
    let Some(brace) = src[name_end..].find('{').map(|i| i + name_end) else {
        return fail(Diagnostic::error(
            "expected the init block `{ ... }`",
            Span::new(name_end, src.len()),
        ));
    };
    let comment =
        Some(src[name_end..brace].trim().trim_matches('"').to_string()).filter(|c| !c.is_empty());
    let toks = text::tokens(src, brace, src.len(), &SPELLING)?;
    let mut c = Cursor::new(toks, src.len());
    let mut file = make::file(&name, comment, Span::new(0, name_end));
    let mut r = Reader::default();
    r.init(&mut c, &mut file)?;
    let threads = r.placements(&mut c)?;
    let cells = rows(&mut c, threads.len())?;
    for (i, (tname, span, _)) in threads.iter().enumerate() {
        let items = cells[i]
            .iter()
            .map(|cell| r.instruction(cell))
            .collect::<Result<Vec<Vec<Item>>, Diagnostic>>()?
            .concat();
        let mut body = register_inits(&r.reg_init, tname, *span);
        let is_location = |n: &str| r.locations.contains_key(n);
        body.extend(cfg::unroll(&items, bound, &is_location, spin, copy)?);
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
    Ok(file)
}

/// The name after `PTX` on the first line, and where that line ends.
fn header_name(src: &str) -> (String, usize) {
    let start = src.find("PTX").or_else(|| src.find("ptx")).unwrap_or(0);
    let line_end = src[start..].find('\n').map_or(src.len(), |i| i + start);
    (src[start + 3..line_end].trim().to_string(), line_end)
}

/// A thread's name, where it is declared, and its (cta, gpu).
type Placed = (String, Span, (u32, u32));

#[derive(Default)]
struct Reader {
    /// Every location, with the place it is first named.
    locations: BTreeMap<String, Span>,
    /// `P1:r0 = 3` in the init block.
    reg_init: BTreeMap<(String, String), i64>,
    /// Whether some code jumps (then the file records the bound).
    jumps: bool,
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
            if c.is_word("aliases") || c.is_punct("@") {
                return Err(refuse("a proxy declaration", start.to(c.here()), PROXY));
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

    /// `P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;`
    fn placements(&mut self, c: &mut Cursor) -> Read<Vec<Placed>> {
        let mut out = Vec::new();
        loop {
            let (t, span) = c.ident("a thread such as `P0@cta 0,gpu 0`")?;
            c.punct("@")?;
            c.word("cta")?;
            let (cta, _) = c.int("a cta number")?;
            c.punct(",")?;
            c.word("gpu")?;
            let (gpu, _) = c.int("a gpu number")?;
            if t != format!("P{}", out.len()) {
                return Err(
                    Diagnostic::error(format!("expected thread P{}", out.len()), span)
                        .with_label("threads are numbered from P0 in order"),
                );
            }
            out.push((t, span, (cta as u32, gpu as u32)));
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
            "st" => self.store(&mut c, &parts, span)?,
            "ld" if parts.is_empty() => self.local(&mut c, None, span)?,
            "ld" => self.load(&mut c, &parts, span)?,
            "add" | "sub" | "mul" | "div" => self.local(&mut c, Some(&op), span)?,
            "fence" => fence(&parts, span)?,
            "atom" => self.atom(&mut c, &parts, span)?,
            "red" => self.red(&mut c, &parts, span)?,
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
            "bar" => {
                return Err(refuse(
                    "a barrier",
                    span,
                    "barriers synchronise a whole cta at once; pomset has no such action",
                ))
            }
            "tld" | "suld" | "cold" | "sust" | "suatom" | "sured" => {
                return Err(refuse(&format!("`{op}`"), span, PROXY))
            }
            other => {
                return Err(
                    Diagnostic::error(format!("unknown PTX instruction `{other}`"), span)
                        .with_label("not in Dat3M's PTX litmus grammar"),
                )
            }
        };
        if !c.at_end() {
            return Err(c.expected("the end of the instruction"));
        }
        Ok(vec![item])
    }

    fn store(&mut self, c: &mut Cursor, parts: &[(String, Span)], span: Span) -> Read<Item> {
        let (mode, scope) = sem_scope(
            parts,
            &[
                ("weak", Mode::Wk),
                ("relaxed", Mode::Rlx),
                ("release", Mode::Rel),
            ],
            "st",
            span,
        )?;
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        c.punct(",")?;
        let v = self.value(c)?;
        Ok(Item::Stmt(make::assign(
            &x,
            make::suffix(Some(mode), scope, span),
            v,
            span,
        )))
    }

    fn load(&mut self, c: &mut Cursor, parts: &[(String, Span)], span: Span) -> Read<Item> {
        let (mode, scope) = sem_scope(
            parts,
            &[
                ("weak", Mode::Wk),
                ("relaxed", Mode::Rlx),
                ("acquire", Mode::Acq),
            ],
            "ld",
            span,
        )?;
        let (r, _) = c.ident("a register")?;
        c.punct(",")?;
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        let read = make::name(&x, make::suffix(Some(mode), scope, span), xs);
        Ok(Item::Stmt(make::assign(&r, Default::default(), read, span)))
    }

    /// `ld r, v` and `add r, a, b`: register arithmetic (LET).
    fn local(&mut self, c: &mut Cursor, op: Option<&str>, span: Span) -> Read<Item> {
        let (r, _) = c.ident("a register")?;
        c.punct(",")?;
        let a = self.value(c)?;
        let rhs = match op {
            None => a,
            Some(op) => {
                c.punct(",")?;
                let b = self.value(c)?;
                let op = match op {
                    "add" => BinOp::Add,
                    "sub" => BinOp::Sub,
                    "mul" => BinOp::Mul,
                    _ => {
                        return Err(refuse(
                            "division",
                            span,
                            "pomset's expressions have +, - and * only",
                        ))
                    }
                };
                make::binary(op, a, b)
            }
        };
        Ok(Item::Stmt(make::assign(&r, Default::default(), rhs, span)))
    }

    fn atom(&mut self, c: &mut Cursor, parts: &[(String, Span)], span: Span) -> Read<Item> {
        let (modes, scope, op) = rmw_parts(parts, span)?;
        let (r, _) = c.ident("a register")?;
        c.punct(",")?;
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        c.punct(",")?;
        let a = self.value(c)?;
        let (op, args) = match op.as_str() {
            "cas" => {
                c.punct(",")?;
                let b = self.value(c)?;
                (RmwOp::Cas, vec![a, b])
            }
            _ => rmw_op(&op, a, span)?,
        };
        Ok(Item::Stmt(make::rmw(
            Some(&r),
            op,
            &modes,
            scope,
            &x,
            args,
            span,
        )))
    }

    fn red(&mut self, c: &mut Cursor, parts: &[(String, Span)], span: Span) -> Read<Item> {
        let (modes, scope, op) = rmw_parts(parts, span)?;
        let (x, xs) = c.ident("a location")?;
        self.location(&x, xs)?;
        c.punct(",")?;
        let a = self.value(c)?;
        let (op, args) = rmw_op(&op, a, span)?;
        Ok(Item::Stmt(make::rmw(
            None, op, &modes, scope, &x, args, span,
        )))
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
                    .with_label("PTX operands are registers `rN` or constants"));
            }
            return Ok(make::reg(&r, span));
        }
        let (n, span) = c.int("a register or a constant")?;
        Ok(make::int(n, span))
    }
}

/// `r := v` at a thread's start for each register the init block sets
/// (`reg_init`, keyed by thread and register). Every one is kept, not only
/// those the text reads before assigning: with branches and backward jumps
/// a path may read a register, or end, without passing its assignment in
/// the text (CADP's `bne r0, 1, L` past `ld r1`), and the final state shows
/// the initial value then. Dat3M's PTX and Vulkan formats share it.
pub(super) fn register_inits(
    reg_init: &BTreeMap<(String, String), i64>,
    thread: &str,
    span: Span,
) -> Vec<ast::Stmt> {
    reg_init
        .iter()
        .filter(|((t, _), _)| t == thread)
        .map(|((_, r), v)| make::assign(r, Default::default(), make::int(*v, span), span))
        .collect()
}

/// `.a.b.c` after an opcode.
pub(super) fn dotted(c: &mut Cursor) -> Read<Vec<(String, Span)>> {
    let mut out = Vec::new();
    while c.eat_punct(".") {
        out.push(c.ident("a qualifier")?);
    }
    Ok(out)
}

fn scope_of(s: &str) -> Option<Scope> {
    match s {
        "cta" => Some(Scope::Cta),
        "gpu" => Some(Scope::Gpu),
        "sys" => Some(Scope::Sys),
        _ => None,
    }
}

/// `.sem(.scope)?` for a load or store, with the semantics it may take.
fn sem_scope(
    parts: &[(String, Span)],
    allowed: &[(&str, Mode)],
    op: &str,
    span: Span,
) -> Read<(Mode, Option<Scope>)> {
    let Some((sem, sspan)) = parts.first() else {
        return Err(Diagnostic::error(
            format!("`{op}` needs a semantics such as `.relaxed`"),
            span,
        ));
    };
    if sem == "proxy" || ["texture", "surface", "constant"].contains(&sem.as_str()) {
        return Err(refuse("a proxy access", *sspan, PROXY));
    }
    let Some((_, mode)) = allowed.iter().find(|(n, _)| n == sem) else {
        let names: Vec<&str> = allowed.iter().map(|(n, _)| *n).collect();
        return Err(
            Diagnostic::error(format!("`{op}.{sem}` is not a PTX access"), *sspan)
                .with_label(format!("`{op}` takes {}", names.join(", "))),
        );
    };
    let scope = match parts.get(1) {
        None => None,
        Some((s, span)) => Some(scope_of(s).ok_or_else(|| {
            Diagnostic::error(format!("unknown scope `{s}`"), *span)
                .with_label("expected cta, gpu or sys")
        })?),
    };
    if let Some((extra, span)) = parts.get(2) {
        return Err(Diagnostic::error(format!("unexpected `.{extra}`"), *span));
    }
    Ok((*mode, scope))
}

/// `fence.sc.gpu`, `fence.acq_rel.cta`; proxy fences are refused.
fn fence(parts: &[(String, Span)], span: Span) -> Read<Item> {
    let sem = parts.first().map_or("", |p| p.0.as_str());
    let mode = match sem {
        "sc" => Mode::Sc,
        "acq_rel" => Mode::Ra,
        "acquire" => Mode::Acq,
        "release" => Mode::Rel,
        "proxy" => return Err(refuse("a proxy fence", span, PROXY)),
        _ => {
            return Err(
                Diagnostic::error(format!("`fence.{sem}` is not a PTX fence"), span)
                    .with_label("expected fence.sc or fence.acq_rel with a scope"),
            )
        }
    };
    let scope = parts.get(1).and_then(|(s, _)| scope_of(s));
    let sfx = make::suffix(Some(mode), scope, span);
    Ok(Item::Stmt(make::stmt(
        ast::StmtKind::Fence { suffix: sfx },
        span,
    )))
}

/// `.sem.scope.op` of `atom` and `red`: the modes of our RMW.
fn rmw_parts(parts: &[(String, Span)], span: Span) -> Read<(Vec<Mode>, Option<Scope>, String)> {
    let [(sem, sspan), (scope, scspan), (op, _)] = parts else {
        return Err(Diagnostic::error("expected `.sem.scope.op`", span)
            .with_label("as in atom.relaxed.gpu.add"));
    };
    let modes = match sem.as_str() {
        "relaxed" => vec![Mode::Rlx, Mode::Rlx],
        "acquire" => vec![Mode::Acq, Mode::Rlx],
        "release" => vec![Mode::Rlx, Mode::Rel],
        "acq_rel" => vec![Mode::Acq, Mode::Rel],
        _ => {
            return Err(
                Diagnostic::error(format!("`{sem}` is not an RMW semantics"), *sspan)
                    .with_label("expected relaxed, acquire, release or acq_rel"),
            )
        }
    };
    let scope = scope_of(scope)
        .ok_or_else(|| Diagnostic::error(format!("unknown scope `{scope}`"), *scspan))?;
    Ok((modes, Some(scope), op.clone()))
}

/// `add` is FADD, `sub` FADD of the negation, `exch` EXCHG; others are refused.
fn rmw_op(op: &str, a: ast::Expr, span: Span) -> Read<(RmwOp, Vec<ast::Expr>)> {
    match op {
        "add" => Ok((RmwOp::Fadd, vec![a])),
        "sub" => Ok((RmwOp::Fadd, vec![make::unary(UnOp::Neg, a, span)])),
        "exch" => Ok((RmwOp::Exchg, vec![a])),
        _ => Err(refuse(
            &format!("the atomic operation `{op}`"),
            span,
            "pomset's RMWs are CAS, FADD and EXCHG (add, sub, exch and cas import)",
        )),
    }
}

pub(super) fn branch_op(b: &str) -> BinOp {
    match b {
        "beq" => BinOp::Eq,
        "bne" => BinOp::Ne,
        "blt" => BinOp::Lt,
        "bgt" => BinOp::Gt,
        "ble" => BinOp::Le,
        _ => BinOp::Ge,
    }
}

/// The instruction rows: cell k of each row belongs to thread k.
pub(super) fn rows(c: &mut Cursor, n: usize) -> Read<Vec<Vec<Vec<Token>>>> {
    let mut cells: Vec<Vec<Vec<Token>>> = vec![Vec::new(); n];
    while !c.at_end() && !at_tail(c) {
        let mut k = 0;
        let mut cell = Vec::new();
        loop {
            let Some(t) = c.bump() else {
                return Err(c.expected("`;` at the end of the row"));
            };
            match t.kind {
                Kind::Punct(";") | Kind::Punct("|") => {
                    if k >= n {
                        return Err(Diagnostic::error(
                            "this row has more columns than threads",
                            t.span,
                        )
                        .with_label(format!("{n} threads in the header")));
                    }
                    cells[k].push(std::mem::take(&mut cell));
                    k += 1;
                    if t.kind == Kind::Punct(";") {
                        break;
                    }
                }
                _ => cell.push(t),
            }
        }
    }
    Ok(cells)
}

fn at_tail(c: &Cursor) -> bool {
    ["exists", "forall", "filter", "locations", "final", "not"]
        .iter()
        .any(|w| c.is_word(w))
        || (c.is_punct("~")
            && c.peek_at(1)
                .is_some_and(|t| t.kind == Kind::Ident("exists".into())))
}

/// `sys { gpu { cta { P0 P1 } cta { P2 } } }` from the placements.
fn scope_tree(threads: &[Placed]) -> ScopeNode {
    let mut gpus: BTreeMap<u32, BTreeMap<u32, Vec<ScopeNode>>> = BTreeMap::new();
    for (t, span, (cta, gpu)) in threads {
        gpus.entry(*gpu)
            .or_default()
            .entry(*cta)
            .or_default()
            .push(ScopeNode::Thread(make::id(t, *span)));
    }
    let group = |level, children| ScopeNode::Group {
        level,
        children,
        span: Span::default(),
    };
    let children = gpus
        .into_values()
        .map(|ctas| {
            group(
                Scope::Gpu,
                ctas.into_values().map(|ts| group(Scope::Cta, ts)).collect(),
            )
        })
        .collect();
    group(Scope::Sys, children)
}
