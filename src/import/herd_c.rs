//! herd7's C litmus format, the C11 subset: `C NAME`, an init block,
//! threads `P0 (atomic_int* x, int* y) { ... }` with `atomic_load_explicit`,
//! `atomic_store_explicit`, `atomic_fetch_add_explicit`,
//! `atomic_exchange_explicit`, `atomic_compare_exchange_strong_explicit`,
//! `atomic_thread_fence` (and the forms without `_explicit`, which are
//! seq_cst), plain accesses `*x`, `if`, `while`, `do ... while`, herd's
//! `scopes:` tree, then herd7's final part. The book's "Tests from other
//! tools" has the mapping table.

use std::collections::BTreeMap;

use super::make;
use super::text::{self, fail, refuse, Cursor, Kind, Read, Spelling};
use crate::syntax::ast::{self, BinOp, Mode, RmwOp, Scope, ScopeNode, Stmt, StmtKind, UnOp};
use crate::syntax::{Diagnostic, Diagnostics, Span};

const SPELLING: Spelling = Spelling {
    puncts: &[
        "/\\", "\\/", "&&", "||", "==", "!=", "<=", ">=", "(", ")", "{", "}", "[", "]", ";", ",",
        ":", "=", "<", ">", "+", "-", "*", "&", "!", "~", "^",
    ],
    line_comments: &["//"],
    block_comments: &[("/*", "*/")],
    // herd7 reads the threads' code with a C lexer: `(*b)` is a dereference.
    top_level_comments: &[("(*", "*)")],
    ident_extra: "",
};

/// C's type words, skipped in declarations and parameters.
const TYPES: &[&str] = &[
    "int",
    "long",
    "short",
    "char",
    "unsigned",
    "signed",
    "volatile",
    "const",
    "atomic_int",
    "atomic_long",
    "_Atomic",
    "intptr_t",
    "int32_t",
    "int64_t",
    "uint32_t",
    "uint64_t",
];

/// herd7's 128-bit integer types: refused by name, as values here are 64-bit.
const INT128: &[&str] = &[
    "__int128",
    "__int128_t",
    "__uint128_t",
    "int128_t",
    "uint128_t",
];

/// Skips C's type words; whether there were any. A 128-bit type is refused
/// by name (else it would read as a parameter's or a register's name).
fn skip_types(c: &mut Cursor) -> Read<bool> {
    let mut any = false;
    while let Some(t) = c.peek() {
        let Kind::Ident(n) = &t.kind else {
            break;
        };
        if INT128.contains(&n.as_str()) {
            return Err(refuse(
                &format!("the 128-bit integer type `{n}`"),
                t.span,
                "values here are 64-bit integers",
            ));
        }
        if !TYPES.contains(&n.as_str()) {
            break;
        }
        c.bump();
        any = true;
    }
    Ok(any)
}

/// A word before `*` or a name, in a parameter or a declaration of the
/// initial state, is a type this reader does not know (`atomic_t`, `struct
/// s`): refused by name, not read as the parameter or the location.
fn refuse_unknown_type(c: &Cursor) -> Read<()> {
    let (Some(t), Some(next)) = (c.peek(), c.peek_at(1)) else {
        return Ok(());
    };
    let Kind::Ident(n) = &t.kind else {
        return Ok(());
    };
    if !matches!(next.kind, Kind::Ident(_) | Kind::Punct("*")) {
        return Ok(());
    }
    let why = match n.as_str() {
        "atomic_t" => "`atomic_t` (with `ATOMIC_INIT`, `atomic_read`, `atomic_set`) is the Linux kernel's type, for herd7's LKMM; the C11 subset read here has atomic_int and atomic_long",
        _ => "the C types read here are the integer and atomic_int/atomic_long ones",
    };
    Err(refuse(&format!("the type `{n}`"), t.span, why))
}

/// herd7's `regions:` section (GPU memory regions), refused by name.
fn refuse_regions(c: &Cursor) -> Read<()> {
    if !c.is_word("regions") {
        return Ok(());
    }
    Err(refuse(
        "a `regions:` section",
        c.here(),
        "herd7's memory regions (GPU global and shared memory) have no meaning here",
    ))
}

/// Reads a herd7 C litmus test.
/// The V that `pomset export` wrote in its comment (`pomset's V is 0, 1,
/// 2`), so that an exported test imports with the V it was decided with
/// (issue 27 §1); herd7 itself reads no V.
fn exported_values(comment: &str) -> Option<Vec<i64>> {
    let rest = comment.strip_prefix(crate::export::herd_c::VALUES_NOTE)?;
    let list = rest.split(';').next()?;
    list.split(',').map(|v| v.trim().parse().ok()).collect()
}

pub fn read(src: &str) -> Result<ast::File, Diagnostics> {
    let start = src
        .match_indices('C')
        .map(|(i, _)| i)
        .find(|&i| i == 0 || src[..i].ends_with('\n'))
        .unwrap_or(0);
    let line_end = src[start..].find('\n').map_or(src.len(), |i| i + start);
    let name = src[start + 1..line_end].trim().to_string();
    // The init block's `{`: the first one outside comments and strings.
    let all = text::tokens(src, line_end, src.len(), &SPELLING)?;
    let Some(brace) = all
        .iter()
        .find(|t| t.kind == Kind::Punct("{"))
        .map(|t| t.span.start)
    else {
        return fail(Diagnostic::error(
            "expected the init block `{ ... }`",
            Span::new(line_end, src.len()),
        ));
    };
    let doc = src[line_end..brace].trim();
    let doc = doc
        .strip_prefix("(*")
        .and_then(|d| d.strip_suffix("*)"))
        .unwrap_or(doc);
    let comment = Some(doc.trim().trim_matches('"').trim().to_string()).filter(|c| !c.is_empty());
    let values = comment.as_deref().and_then(exported_values);
    let toks = text::tokens(src, brace, src.len(), &SPELLING)?;
    let mut c = Cursor::new(toks, src.len());
    let mut file = make::file(&name, comment, Span::new(start, line_end));
    file.values = values.map(|vs| (vs, Span::new(line_end, brace)));
    let mut r = Reader {
        words: all
            .iter()
            .filter_map(|t| match &t.kind {
                Kind::Ident(n) => Some(n.clone()),
                _ => None,
            })
            .collect(),
        ..Reader::default()
    };
    r.init(&mut c, &mut file)?;
    while c
        .peek()
        .is_some_and(|t| matches!(&t.kind, Kind::Ident(n) if is_thread(n)))
    {
        let t = r.thread(&mut c, file.threads.len())?;
        file.threads.push(t);
    }
    refuse_regions(&c)?;
    if c.eat_word("scopes") {
        c.punct(":")?;
        file.scopes = Some(scope_tree(&mut c)?);
    }
    refuse_regions(&c)?;
    let locs: Vec<String> = r.locations.keys().cloned().collect();
    let is_loc = move |n: &str| locs.iter().any(|l| l == n);
    super::cond::read_tail(&mut c, &mut file, &is_loc)?;
    for t in &mut file.threads {
        let regs = r
            .reg_init
            .iter()
            .filter(|((th, _), _)| Some(th.as_str()) == t.label.as_ref().map(|l| l.as_str()));
        let mut inits: Vec<Stmt> = regs
            .map(|((_, reg), (v, span))| {
                make::assign(reg, Default::default(), make::int(*v, *span), *span)
            })
            .collect();
        inits.append(&mut t.body);
        t.body = inits;
    }
    file.locations = r
        .locations
        .iter()
        .map(|(n, s)| ast::LocDecl {
            name: make::id(n, *s),
            address: None,
        })
        .collect();
    Ok(file)
}

fn is_thread(n: &str) -> bool {
    n.len() > 1 && n.starts_with('P') && n[1..].chars().all(|c| c.is_ascii_digit())
}

#[derive(Default)]
struct Reader {
    locations: BTreeMap<String, Span>,
    reg_init: BTreeMap<(String, String), (i64, Span)>,
    /// CAS temporaries made so far (for fresh names).
    temps: usize,
    /// Every identifier of the file: a temporary's name is none of them.
    words: std::collections::HashSet<String>,
}

impl Reader {
    fn init(&mut self, c: &mut Cursor, file: &mut ast::File) -> Read<()> {
        c.punct("{")?;
        while !c.eat_punct("}") {
            if c.eat_punct(";") {
                continue;
            }
            let start = c.here();
            skip_types(c)?;
            refuse_unknown_type(c)?;
            if c.is_punct("*") {
                return Err(refuse(
                    "a pointer",
                    start.to(c.here()),
                    "pointer-valued locations and registers are not imported",
                ));
            }
            let thread = match c.peek().map(|t| t.kind.clone()) {
                Some(Kind::Int(n)) if c.peek_at(1).is_some_and(|t| t.kind == Kind::Punct(":")) => {
                    c.bump();
                    c.bump();
                    Some(format!("P{n}"))
                }
                Some(Kind::Ident(p))
                    if is_thread(&p)
                        && c.peek_at(1).is_some_and(|t| t.kind == Kind::Punct(":")) =>
                {
                    c.bump();
                    c.bump();
                    Some(p)
                }
                _ => None,
            };
            let bracket = c.eat_punct("[");
            let (x, xs) = c.ident("a location")?;
            if bracket {
                c.punct("]")?;
            }
            if c.is_punct("[") {
                return Err(refuse(
                    &format!("the array `{x}`"),
                    start.to(c.here()),
                    "arrays are not imported; declare one location per element",
                ));
            }
            if !c.eat_punct("=") {
                // `int x;` declares x with the value 0.
                c.punct(";")?;
                self.location(&x, xs)?;
                continue;
            }
            if c.is_punct("&") || matches!(c.peek().map(|t| &t.kind), Some(Kind::Ident(_))) {
                return Err(refuse(
                    "an address or a macro as an initial value",
                    start.to(c.here()),
                    "pointer-valued locations and registers are not imported; initial values are integers",
                ));
            }
            let (v, vs) = c.int("a value")?;
            match thread {
                Some(t) => {
                    self.reg_init.insert((t, x), (v, xs.to(vs)));
                }
                None => {
                    self.location(&x, xs)?;
                    file.init.push(ast::InitEntry {
                        loc: make::id(&x, xs),
                        value: v,
                        span: xs.to(vs),
                    });
                }
            }
        }
        Ok(())
    }

    fn location(&mut self, x: &str, span: Span) -> Read<()> {
        make::declare_location(&mut self.locations, x, span)
    }

    fn is_loc(&self, x: &str) -> bool {
        self.locations.contains_key(x)
    }

    /// `P0 (atomic_int* x, int* y) { body }`
    fn thread(&mut self, c: &mut Cursor, index: usize) -> Read<ast::Thread> {
        let (name, span) = c.ident("a thread")?;
        if name != format!("P{index}") {
            return Err(Diagnostic::error(format!("expected thread P{index}"), span)
                .with_label("threads are numbered from P0 in order"));
        }
        c.punct("(")?;
        while !c.eat_punct(")") {
            skip_types(c)?;
            refuse_unknown_type(c)?;
            let pointer = c.eat_punct("*");
            let (x, xs) = c.ident("a parameter")?;
            if !pointer {
                return Err(refuse(
                    "a parameter that is not a pointer",
                    xs,
                    "herd7's C threads take the shared locations as pointers",
                ));
            }
            self.location(&x, xs)?;
            c.eat_punct(",");
        }
        let body = self.block(c)?;
        Ok(ast::Thread {
            label: Some(make::id(&name, span)),
            body: if body.is_empty() {
                vec![make::stmt(StmtKind::Skip, span)]
            } else {
                body
            },
            span,
        })
    }

    fn block(&mut self, c: &mut Cursor) -> Read<Vec<Stmt>> {
        c.punct("{")?;
        let mut out = Vec::new();
        while !c.eat_punct("}") {
            if c.at_end() {
                return Err(c.expected("`}`"));
            }
            self.stmt(c, &mut out)?;
        }
        Ok(out)
    }

    /// A block, or one statement (C's `if (c) x = 1;`).
    fn body(&mut self, c: &mut Cursor) -> Read<Vec<Stmt>> {
        if c.is_punct("{") {
            return self.block(c);
        }
        let mut out = Vec::new();
        self.stmt(c, &mut out)?;
        Ok(out)
    }

    fn stmt(&mut self, c: &mut Cursor, out: &mut Vec<Stmt>) -> Read<()> {
        let start = c.here();
        if c.eat_punct(";") {
            return Ok(());
        }
        if c.is_punct("{") {
            out.extend(self.block(c)?);
            return Ok(());
        }
        if c.eat_word("if") {
            c.punct("(")?;
            let cond = self.expr(c)?;
            c.punct(")")?;
            let then = self.body(c)?;
            let els = if c.eat_word("else") {
                Some(self.body(c)?)
            } else {
                None
            };
            out.push(make::stmt(
                StmtKind::If { cond, then, els },
                start.to(c.here()),
            ));
            return Ok(());
        }
        if c.eat_word("while") {
            c.punct("(")?;
            let cond = self.expr(c)?;
            c.punct(")")?;
            let body = self.body(c)?;
            out.push(make::stmt(
                StmtKind::While { cond, body },
                start.to(c.here()),
            ));
            return Ok(());
        }
        if c.eat_word("do") {
            let body = self.body(c)?;
            c.word("while")?;
            c.punct("(")?;
            let cond = self.expr(c)?;
            c.punct(")")?;
            c.punct(";")?;
            out.push(make::stmt(
                StmtKind::DoWhile { body, cond },
                start.to(c.here()),
            ));
            return Ok(());
        }
        let declared = skip_types(c)?;
        if c.eat_punct("*") {
            // `*x = E;`: a plain (non-atomic) store.
            let (x, xs) = c.ident("a location")?;
            self.known(&x, xs)?;
            c.punct("=")?;
            let e = self.expr(c)?;
            c.punct(";")?;
            out.push(make::assign(
                &x,
                make::suffix(Some(Mode::Wk), None, xs),
                e,
                start.to(c.here()),
            ));
            return Ok(());
        }
        let (name, nspan) = c.ident("a statement")?;
        if c.is_punct("(") {
            self.call_stmt(c, &name, nspan, None, out)?;
            return c.punct(";").map(|_| ());
        }
        if declared && c.eat_punct(";") {
            return Ok(());
        }
        if self.is_loc(&name) {
            return Err(
                Diagnostic::error(format!("`{name}` is a pointer here"), nspan)
                    .with_label("write through it: `*x = ...`"),
            );
        }
        c.punct("=")?;
        if let Some(Kind::Ident(f)) = c.peek().map(|t| t.kind.clone()) {
            if c.peek_at(1).is_some_and(|t| t.kind == Kind::Punct("(")) && is_rmw(&f) {
                let (f, fs) = c.ident("a function")?;
                self.call_stmt(c, &f, fs, Some((&name, nspan)), out)?;
                return c.punct(";").map(|_| ());
            }
        }
        let e = self.expr(c)?;
        c.punct(";")?;
        out.push(make::assign(
            &name,
            Default::default(),
            e,
            start.to(c.here()),
        ));
        Ok(())
    }

    fn known(&self, x: &str, span: Span) -> Read<()> {
        if self.is_loc(x) {
            return Ok(());
        }
        Err(
            Diagnostic::error(format!("`{x}` is not a shared location"), span)
                .with_label("not a parameter of this thread nor in the init block"),
        )
    }

    /// A call used as a statement: stores, fences and RMWs (with or without a target).
    fn call_stmt(
        &mut self,
        c: &mut Cursor,
        f: &str,
        span: Span,
        target: Option<(&str, Span)>,
        out: &mut Vec<Stmt>,
    ) -> Read<()> {
        c.punct("(")?;
        let explicit = f.ends_with("_explicit");
        let base = f.trim_end_matches("_explicit");
        match base {
            "atomic_store" => {
                let (x, xs) = self.loc_arg(c)?;
                c.punct(",")?;
                let v = self.expr(c)?;
                let m = self.order_arg(c, explicit)?;
                c.punct(")")?;
                out.push(make::assign(&x, make::suffix(Some(m), None, xs), v, span.to(c.here())));
            }
            "atomic_thread_fence" => {
                let (m, ms) = self.order(c)?;
                c.punct(")")?;
                // A relaxed fence does nothing in C11.
                if m != Mode::Rlx {
                    out.push(make::stmt(StmtKind::Fence { suffix: make::suffix(Some(m), None, ms) }, span.to(c.here())));
                }
            }
            "atomic_fetch_add" | "atomic_fetch_sub" | "atomic_exchange" => {
                let (x, _) = self.loc_arg(c)?;
                c.punct(",")?;
                let mut v = self.expr(c)?;
                let m = self.order_arg(c, explicit)?;
                c.punct(")")?;
                let op = if base == "atomic_exchange" { RmwOp::Exchg } else { RmwOp::Fadd };
                if base == "atomic_fetch_sub" {
                    v = make::unary(UnOp::Neg, v, span);
                }
                out.push(make::rmw(target.map(|t| t.0), op, &[m], None, &x, vec![v], span.to(c.here())));
            }
            "atomic_compare_exchange_strong" => self.cas(c, explicit, span, target, out)?,
            "atomic_compare_exchange_weak" => {
                return Err(refuse("a weak compare-exchange", span, "it may fail spuriously; pomset's CAS fails only on a different value (use the _strong form)"))
            }
            "atomic_load" => {
                return Err(refuse("a load whose value is dropped", span, "assign it to a register: `r0 = atomic_load_explicit(...)`"))
            }
            _ => return Err(unsupported_call(f, span)),
        }
        Ok(())
    }

    /// `atomic_compare_exchange_strong_explicit(x, &e, d, succ, fail)`:
    /// `t := CAS(x, e, d); r := (t = e); e := t`, so `e` holds the value read
    /// on failure (and keeps it on success) and `r` is C's boolean result.
    fn cas(
        &mut self,
        c: &mut Cursor,
        explicit: bool,
        span: Span,
        target: Option<(&str, Span)>,
        out: &mut Vec<Stmt>,
    ) -> Read<()> {
        let (x, _) = self.loc_arg(c)?;
        c.punct(",")?;
        c.punct("&").map_err(|_| {
            refuse(
                "an expected value that is not `&register`",
                c.here(),
                "the expected value must live in a register of this thread (`&r`)",
            )
        })?;
        let (e, es) = c.ident("a register")?;
        if self.is_loc(&e) {
            return Err(refuse(
                "an expected value kept in a shared location",
                es,
                "the expected value must live in a register of this thread (`&r`)",
            ));
        }
        c.punct(",")?;
        let d = self.expr(c)?;
        let (succ, fail) = if explicit {
            c.punct(",")?;
            let (s, _) = self.order(c)?;
            c.punct(",")?;
            let (f, fs) = self.order(c)?;
            let read_part = match s {
                Mode::Rel | Mode::Rlx => Mode::Rlx,
                Mode::Ra | Mode::Acq => Mode::Acq,
                m => m,
            };
            if f != read_part {
                return Err(refuse(
                    "a failure order different from the success order's read",
                    fs,
                    "pomset's CAS reads with one mode whether it succeeds or not",
                ));
            }
            (s, f)
        } else {
            (Mode::Sc, Mode::Sc)
        };
        let _ = fail;
        c.punct(")")?;
        let t = loop {
            self.temps += 1;
            let t = format!("cas{}", self.temps);
            if !self.words.contains(&t) {
                break t;
            }
        };
        let whole = span.to(c.here());
        out.push(make::rmw(
            Some(&t),
            RmwOp::Cas,
            &[succ],
            None,
            &x,
            vec![make::reg(&e, es), d],
            whole,
        ));
        if let Some((r, rs)) = target {
            let ok = make::binary(BinOp::Eq, make::reg(&t, whole), make::reg(&e, es));
            out.push(make::assign(r, Default::default(), ok, rs));
        }
        out.push(make::assign(
            &e,
            Default::default(),
            make::reg(&t, whole),
            whole,
        ));
        Ok(())
    }

    fn loc_arg(&mut self, c: &mut Cursor) -> Read<(String, Span)> {
        c.eat_punct("&");
        let (x, xs) = c.ident("a location")?;
        self.known(&x, xs)?;
        Ok((x, xs))
    }

    /// `, memory_order_x` for the `_explicit` forms; seq_cst otherwise.
    fn order_arg(&mut self, c: &mut Cursor, explicit: bool) -> Read<Mode> {
        if !explicit {
            return Ok(Mode::Sc);
        }
        c.punct(",")?;
        Ok(self.order(c)?.0)
    }

    fn order(&mut self, c: &mut Cursor) -> Read<(Mode, Span)> {
        let (w, span) = c.ident("a memory order")?;
        let m = match w.as_str() {
            "memory_order_relaxed" => Mode::Rlx,
            "memory_order_acquire" => Mode::Acq,
            "memory_order_release" => Mode::Rel,
            "memory_order_acq_rel" => Mode::Ra,
            "memory_order_seq_cst" => Mode::Sc,
            "memory_order_consume" => {
                return Err(refuse("memory_order_consume", span, "consume's dependency ordering has no mode in pomset (compilers treat it as acquire; write that if it is meant)"))
            }
            _ => return Err(Diagnostic::error(format!("`{w}` is not a memory order"), span)),
        };
        Ok((m, span))
    }

    /// C expressions: `|| && == != < <= > >= + - * ! -` over registers,
    /// values, `*x` and atomic loads (extended expressions).
    fn expr(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        self.binary(c, 0)
    }

    fn binary(&mut self, c: &mut Cursor, level: usize) -> Read<ast::Expr> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("||", BinOp::Or)],
            &[("&&", BinOp::And)],
            &[("==", BinOp::Eq), ("!=", BinOp::Ne)],
            &[
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul)],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary(c);
        };
        let mut a = self.binary(c, level + 1)?;
        if c.is_punct("^") {
            return Err(refuse(
                "the operator `^` (exclusive or)",
                c.here(),
                "expressions here have no bitwise operators",
            ));
        }
        'more: loop {
            for (p, op) in ops.iter() {
                if c.eat_punct(p) {
                    let b = self.binary(c, level + 1)?;
                    a = make::binary(*op, a, b);
                    continue 'more;
                }
            }
            return Ok(a);
        }
    }

    fn unary(&mut self, c: &mut Cursor) -> Read<ast::Expr> {
        let start = c.here();
        if c.eat_punct("!") {
            let a = self.unary(c)?;
            return Ok(make::unary(UnOp::Not, a, start.to(c.here())));
        }
        if c.eat_punct("-") {
            let a = self.unary(c)?;
            return Ok(make::unary(UnOp::Neg, a, start.to(c.here())));
        }
        if c.eat_punct("*") {
            let (x, xs) = c.ident("a location")?;
            self.known(&x, xs)?;
            return Ok(make::name(&x, make::suffix(Some(Mode::Wk), None, xs), xs));
        }
        if c.eat_punct("(") {
            let e = self.expr(c)?;
            c.punct(")")?;
            return Ok(e);
        }
        if let Some(Kind::Int(_)) = c.peek().map(|t| t.kind.clone()) {
            let (n, span) = c.int("a value")?;
            return Ok(make::int(n, span));
        }
        let (name, span) = c.ident("an expression")?;
        if c.eat_punct("(") {
            let base = name.trim_end_matches("_explicit");
            if base != "atomic_load" {
                if is_rmw(&name) {
                    return Err(refuse(
                        "an RMW inside an expression",
                        span,
                        "assign it to a register first: `r = atomic_fetch_add_explicit(...)`",
                    ));
                }
                return Err(unsupported_call(&name, span));
            }
            let (x, xs) = self.loc_arg(c)?;
            let m = self.order_arg(c, name.ends_with("_explicit"))?;
            c.punct(")")?;
            return Ok(make::name(
                &x,
                make::suffix(Some(m), None, xs),
                span.to(c.here()),
            ));
        }
        if self.is_loc(&name) {
            return Err(
                Diagnostic::error(format!("`{name}` is a pointer here"), span)
                    .with_label("read through it: `*x` or atomic_load_explicit"),
            );
        }
        Ok(make::reg(&name, span))
    }
}

fn is_rmw(f: &str) -> bool {
    f.starts_with("atomic_fetch_")
        || f.starts_with("atomic_exchange")
        || f.starts_with("atomic_compare_exchange")
}

fn unsupported_call(f: &str, span: Span) -> Diagnostic {
    refuse(
        &format!("`{f}`"),
        span,
        "the C11 subset imports atomic_load/store/fetch_add/fetch_sub/exchange/compare_exchange_strong[_explicit] and atomic_thread_fence",
    )
}

/// herd's `scopes: (system (gpu (cta P0) (cta P1)))`.
fn scope_tree(c: &mut Cursor) -> Read<ScopeNode> {
    let open = c.punct("(")?;
    let (level, ls) = c.ident("a scope level")?;
    let level = match level.as_str() {
        "system" | "sys" => Scope::Sys,
        "gpu" | "dev" | "device" | "kernel" => Scope::Gpu,
        "cta" | "wg" | "block" | "work_group" => Scope::Cta,
        other => {
            return Err(refuse(
                &format!("the scope level `{other}`"),
                ls,
                "pomset's scopes are system, gpu and cta",
            ))
        }
    };
    let mut children = Vec::new();
    while !c.eat_punct(")") {
        if c.is_punct("(") {
            children.push(scope_tree(c)?);
            continue;
        }
        let (t, ts) = c.ident("a thread or `(`")?;
        children.push(ScopeNode::Thread(make::id(&t, ts)));
    }
    Ok(ScopeNode::Group {
        level,
        children,
        span: open.to(c.here()),
    })
}
