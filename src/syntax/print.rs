//! The formatter: canonical source for a surface tree (`pomset fmt`), laid out
//! with `pretty` so that a thread sits on one line when it fits in 80 columns.
//! The core program prints through the same code, as a litmus file in which
//! every access spells out its mode and scope (`pomset parse`).

use pretty::RcDoc;

use super::ast::*;
use super::core;
use super::span::{Ident, Span};
use crate::model::Model;

pub const WIDTH: usize = 80;

type Doc = RcDoc<'static, ()>;

/// Canonical source text for a file.
pub fn file(f: &File) -> String {
    let mut out = String::new();
    out.push_str(&header(f));
    out.push('\n');
    out.push_str(&render(threads(&f.threads)));
    out.push('\n');
    if !f.show.is_empty() {
        // herd7 lists a location as `x`, not `[x]`.
        let shown = |t: &CondTerm| match t {
            CondTerm::Mem(l) => l.name.clone(),
            other => cond_term(other),
        };
        let names: Vec<String> = f.show.iter().map(|t| format!("{};", shown(t))).collect();
        out.push_str(&format!("\nlocations [{}]\n", names.join(" ")));
    }
    if let Some((p, _)) = &f.filter {
        out.push_str(&format!("\nfilter ({})\n", prop(p, 0)));
    }
    if !f.conditions.is_empty() {
        out.push('\n');
        for c in &f.conditions {
            out.push_str(&render(condition(c)));
            out.push('\n');
        }
    }
    out
}

fn render(doc: Doc) -> String {
    let mut s = String::new();
    // Writing into a String cannot fail.
    let _ = doc.render_fmt(WIDTH, &mut s);
    s
}

fn header(f: &File) -> String {
    let mut lines = vec![match &f.comment {
        Some(c) => format!("litmus {} \"{}\"", f.name, escape(c)),
        None => format!("litmus {}", f.name),
    }];
    if let Some((vs, _)) = &f.values {
        let vs: Vec<String> = vs.iter().map(i64::to_string).collect();
        lines.push(format!("values {{{}}}", vs.join(", ")));
    }
    if !f.locations.is_empty() {
        let ds: Vec<String> = f
            .locations
            .iter()
            .map(|d| match d.address {
                Some((a, _)) => format!("{} @ {a}", d.name),
                None => d.name.name.clone(),
            })
            .collect();
        lines.push(format!("locations {{ {} }}", ds.join("; ")));
    }
    if !f.init.is_empty() {
        let es: Vec<String> = f
            .init
            .iter()
            .map(|e| format!("{} = {}", e.loc, e.value))
            .collect();
        lines.push(format!("init {{ {} }}", es.join("; ")));
    }
    if let Some(node) = &f.scopes {
        lines.push(format!("scopes: {}", scope_node(node)));
    }
    if !f.model.is_empty() {
        lines.push(format!("model {{ {} }}", settings(&f.model, "; ")));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

fn scope_node(n: &ScopeNode) -> String {
    match n {
        ScopeNode::Thread(t) => t.name.clone(),
        ScopeNode::Group {
            level, children, ..
        } if children.is_empty() => format!("{} {{ }}", level.as_str()),
        ScopeNode::Group {
            level, children, ..
        } => {
            let cs: Vec<String> = children.iter().map(scope_node).collect();
            format!("{} {{ {} }}", level.as_str(), cs.join(" "))
        }
    }
}

fn settings(ss: &[Setting], sep: &str) -> String {
    ss.iter()
        .map(|s| format!("{} = {}", s.name, s.value))
        .collect::<Vec<_>>()
        .join(sep)
}

// ---------------------------------------------------------------- program

fn threads(ts: &[Thread]) -> Doc {
    let docs = ts.iter().enumerate().map(|(i, t)| {
        let lead = if i == 0 {
            Doc::nil()
        } else {
            Doc::hardline().append(Doc::text("|| "))
        };
        lead.append(thread(t, if i == 0 { 0 } else { 3 }))
    });
    Doc::concat(docs)
}

/// A thread whose first statement starts `column` characters after its lead;
/// one that does not fit on a line puts each statement under the first.
fn thread(t: &Thread, column: usize) -> Doc {
    let label = t.label.as_ref().map_or(String::new(), |l| format!("{l}: "));
    let indent = (column + label.len()) as isize;
    Doc::text(label).append(stmts(&t.body).nest(indent))
}

fn stmts(ss: &[Stmt]) -> Doc {
    Doc::intersperse(ss.iter().map(stmt), Doc::line()).group()
}

fn block(ss: &[Stmt]) -> Doc {
    if ss.is_empty() {
        return Doc::text("{}");
    }
    Doc::text("{")
        .append(Doc::line().append(stmts(ss)).nest(2))
        .append(Doc::line())
        .append(Doc::text("}"))
        .group()
}

fn stmt(s: &Stmt) -> Doc {
    match &s.kind {
        StmtKind::Skip => Doc::text("skip;"),
        StmtKind::Assign {
            lhs,
            suffix: sfx,
            rhs,
        } => {
            // A statement's right-hand side cannot hold a bare `||` (threads use it).
            Doc::text(format!(
                "{}{} := {};",
                place(lhs),
                suffix(sfx),
                expr_prec(rhs, 2)
            ))
        }
        StmtKind::Rmw { target, rmw: r } => match target {
            Some(t) => Doc::text(format!("{t} := {};", rmw(r))),
            None => Doc::text(format!("{};", rmw(r))),
        },
        StmtKind::Fence { suffix: sfx } => Doc::text(format!("F{};", suffix(sfx))),
        StmtKind::Barrier { suffix: sfx, id } => Doc::text(match id {
            Some((n, _)) => format!("barrier{}({n});", suffix(sfx)),
            None => format!("barrier{};", suffix(sfx)),
        }),
        StmtKind::If { cond, then, els } => {
            let head = Doc::text(format!("if ({}) ", expr(cond))).append(block(then));
            match els {
                Some(e) => head.append(Doc::text(" else ")).append(block(e)),
                None => head,
            }
        }
        StmtKind::While { cond, body } => {
            Doc::text(format!("while ({}) ", expr(cond))).append(block(body))
        }
        StmtKind::DoWhile { body, cond } => Doc::text("do ")
            .append(block(body))
            .append(Doc::text(format!(" while ({});", expr(cond)))),
        StmtKind::Diverge => Doc::text("diverge;"),
        StmtKind::Par(branches) => {
            let docs = branches.iter().enumerate().map(|(i, t)| {
                let lead = if i == 0 {
                    Doc::nil()
                } else {
                    Doc::line().append(Doc::text("|| "))
                };
                lead.append(thread(t, 3))
            });
            Doc::text("(")
                .append(Doc::concat(docs).nest(1))
                .append(Doc::text(")"))
                .group()
        }
    }
}

fn place(p: &Place) -> String {
    match p {
        Place::Named(n) => n.name.clone(),
        Place::Computed(e) => format!("[{}]", expr(e)),
    }
}

pub fn suffix(s: &Suffix) -> String {
    let mut out = String::new();
    if let Some((m, _)) = s.mode {
        out.push('.');
        out.push_str(m.as_str());
    }
    if let Some((sc, _)) = s.scope {
        out.push('.');
        out.push_str(sc.as_str());
    }
    out.push_str(&quals(&s.quals));
    out
}

/// Vulkan qualifiers, each as `.name`.
fn quals(qs: &[(Qual, Span)]) -> String {
    qs.iter().map(|(q, _)| format!(".{}", q.name())).collect()
}

fn rmw(r: &Rmw) -> String {
    let mut head = r.op.as_str().to_string();
    for (m, _) in &r.modes {
        head.push('.');
        head.push_str(m.as_str());
    }
    if let Some((s, _)) = r.scope {
        head.push('.');
        head.push_str(s.as_str());
    }
    head.push_str(&quals(&r.quals));
    let mut args = vec![place(&r.place)];
    args.extend(r.args.iter().map(expr));
    format!("{head}({})", args.join(", "))
}

// ---------------------------------------------------------------- expressions

/// An expression with the fewest parentheses that parse back to the same tree.
pub fn expr(e: &Expr) -> String {
    expr_prec(e, 0)
}

fn expr_prec(e: &Expr, min: u8) -> String {
    let (text, prec) = match &e.kind {
        ExprKind::Int(n) => (n.to_string(), 9),
        ExprKind::Name(n, s) => (format!("{n}{}", suffix(s)), 9),
        ExprKind::Deref(a, s) => (format!("[{}]{}", expr(a), suffix(s)), 9),
        ExprKind::AddrOf(n) => (format!("&{n}"), 9),
        ExprKind::Unary(op, a) => {
            let sym = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
            };
            (format!("{sym}{}", expr_prec(a, 8)), 8)
        }
        ExprKind::Binary(op, a, b) => {
            let p = op.precedence();
            // + - && || associate to the left; comparisons do not associate.
            let assoc = matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or
            );
            let left_min = if assoc { p } else { p + 1 };
            (
                format!(
                    "{} {} {}",
                    expr_prec(a, left_min),
                    op.as_str(),
                    expr_prec(b, p + 1)
                ),
                p,
            )
        }
    };
    if prec < min {
        format!("({text})")
    } else {
        text
    }
}

// ---------------------------------------------------------------- conditions

fn condition(c: &Condition) -> Doc {
    let head = Doc::text(format!("{} ({})", c.quantifier.as_str(), prop(&c.prop, 0)));
    let expects = c.expects.iter().map(|e| {
        let when = if e.when.is_empty() {
            String::new()
        } else {
            format!(" when {}", settings(&e.when, ", "))
        };
        Doc::hardline().append(Doc::text(format!("expect {}{when}", e.verdict.as_str())))
    });
    let disputed = c
        .disputed
        .iter()
        .map(|why| Doc::hardline().append(Doc::text(format!("disputed \"{}\"", escape(why)))));
    head.append(Doc::concat(expects.chain(disputed)).nest(2))
}

/// Propositions: `\/` binds loosest, then `/\`, then `~`.
pub fn prop(p: &Prop, min: u8) -> String {
    let (text, prec) = match p {
        Prop::True => ("true".to_string(), 10),
        Prop::False => ("false".to_string(), 10),
        Prop::Cmp(a, op, b, _) => (
            format!("{} {} {}", cond_term(a), op.as_str(), cond_term(b)),
            9,
        ),
        // `~(r = 1)`: the parentheses are not needed to parse, but read better.
        Prop::Not(a) if matches!(**a, Prop::Not(_)) => (format!("~{}", prop(a, 3)), 3),
        Prop::Not(a) => (format!("~{}", prop(a, 10)), 3),
        Prop::And(a, b) => (format!("{} /\\ {}", prop(a, 2), prop(b, 3)), 2),
        Prop::Or(a, b) => (format!("{} \\/ {}", prop(a, 1), prop(b, 2)), 1),
    };
    if prec < min {
        format!("({text})")
    } else {
        text
    }
}

fn cond_term(t: &CondTerm) -> String {
    match t {
        CondTerm::Int(n, _) => n.to_string(),
        CondTerm::Reg {
            thread: Some(th),
            reg,
        } => format!("{th}:{reg}"),
        CondTerm::Reg { thread: None, reg } => reg.name.clone(),
        CondTerm::Mem(l) => format!("[{l}]"),
        CondTerm::MemAt(a, _) => format!("[{a}]"),
    }
}

// ---------------------------------------------------------------- core

/// The core program as a litmus file: explicit modes and scopes on every
/// access, desugared reads, labelled threads, V and the scope tree spelt out.
pub fn core_program(p: &core::Program) -> String {
    file(&core_to_ast(p))
}

fn id(name: &str) -> Ident {
    Ident::new(name, Span::default())
}

fn full_suffix(mode: Mode, scope: Scope) -> Suffix {
    Suffix {
        mode: Some((mode, Span::default())),
        scope: Some((scope, Span::default())),
        quals: Vec::new(),
    }
}

/// Vulkan qualifiers from the core, with no place.
fn vk_quals(vk: &core::Vk) -> Vec<(Qual, Span)> {
    vk.quals()
        .into_iter()
        .map(|q| (q, Span::default()))
        .collect()
}

/// Puts Vulkan qualifiers on the one access or fence of `s`.
fn qualify(s: &mut Stmt, qs: Vec<(Qual, Span)>) {
    match &mut s.kind {
        StmtKind::Assign { suffix, rhs, .. } if suffix.is_empty() => match &mut rhs.kind {
            ExprKind::Name(_, sfx) | ExprKind::Deref(_, sfx) => sfx.quals = qs,
            _ => suffix.quals = qs,
        },
        StmtKind::Assign { suffix, .. } | StmtKind::Fence { suffix } => suffix.quals = qs,
        StmtKind::Rmw { rmw, .. } => rmw.quals = qs,
        _ => {}
    }
}

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

/// Rebuilds a surface tree from a core program, so that both print alike.
pub fn core_to_ast(p: &core::Program) -> File {
    let cv = CoreView { p };
    let model = Model::OPTIONS
        .iter()
        .filter_map(|o| {
            let v = p.model.get(o.name)?;
            (v != o.default).then(|| Setting {
                name: id(o.name),
                value: id(v),
            })
        })
        .collect();
    File {
        name: id(&p.name),
        comment: p.comment.clone(),
        values: Some((p.values.clone(), Span::default())),
        locations: p
            .locs
            .iter()
            .filter(|l| l.address.is_some())
            .map(|l| LocDecl {
                name: id(&l.name),
                address: l.address.map(|a| (a, Span::default())),
            })
            .collect(),
        init: p
            .locs
            .iter()
            .map(|l| InitEntry {
                loc: id(&l.name),
                value: l.init,
                span: Span::default(),
            })
            .collect(),
        scopes: Some(cv.scope_tree()),
        model,
        threads: p
            .main
            .iter()
            .map(|(t, s)| Thread {
                label: Some(id(p.thread_name(*t))),
                body: cv.stmts(s),
                span: Span::default(),
            })
            .collect(),
        show: Vec::new(),
        filter: p.filter.as_ref().map(|f| (cv.prop(f), Span::default())),
        conditions: p.conditions.iter().map(|c| cv.condition(c)).collect(),
    }
}

struct CoreView<'a> {
    p: &'a core::Program,
}

impl CoreView<'_> {
    fn scope_tree(&self) -> ScopeNode {
        let mut gpus: Vec<u32> = self.p.threads.iter().map(|t| t.gpu).collect();
        gpus.sort_unstable();
        gpus.dedup();
        let children = gpus
            .into_iter()
            .map(|g| {
                let mut ctas: Vec<u32> = self
                    .p
                    .threads
                    .iter()
                    .filter(|t| t.gpu == g)
                    .map(|t| t.cta)
                    .collect();
                ctas.sort_unstable();
                ctas.dedup();
                let ctas = ctas
                    .into_iter()
                    .map(|c| ScopeNode::Group {
                        level: Scope::Cta,
                        children: self.subgroups(g, c),
                        span: Span::default(),
                    })
                    .collect();
                ScopeNode::Group {
                    level: Scope::Gpu,
                    children: ctas,
                    span: Span::default(),
                }
            })
            .collect();
        ScopeNode::Group {
            level: Scope::Sys,
            children,
            span: Span::default(),
        }
    }

    /// The threads of one cta, those sharing a Vulkan subgroup grouped
    /// as `sg { ... }` (a thread alone is its own subgroup).
    fn subgroups(&self, gpu: u32, cta: u32) -> Vec<ScopeNode> {
        let threads: Vec<&core::ThreadInfo> = self
            .p
            .threads
            .iter()
            .filter(|t| t.gpu == gpu && t.cta == cta)
            .collect();
        let mut out = Vec::new();
        let mut done = Vec::new();
        for t in &threads {
            if done.contains(&t.sg) {
                continue;
            }
            done.push(t.sg);
            let mates: Vec<ScopeNode> = threads
                .iter()
                .filter(|u| u.sg == t.sg)
                .map(|u| ScopeNode::Thread(id(&u.name)))
                .collect();
            if mates.len() == 1 {
                out.extend(mates);
            } else {
                out.push(ScopeNode::Group {
                    level: Scope::Sg,
                    children: mates,
                    span: Span::default(),
                });
            }
        }
        out
    }

    /// A core statement as surface statements; sequences flatten.
    fn stmts(&self, s: &core::Stmt) -> Vec<Stmt> {
        let kind = match s {
            core::Stmt::Seq(ss) => return ss.iter().flat_map(|s| self.stmts(s)).collect(),
            core::Stmt::Skip => StmtKind::Skip,
            core::Stmt::Diverge { .. } => StmtKind::Diverge,
            core::Stmt::Let { reg, expr } => StmtKind::Assign {
                lhs: Place::Named(id(self.p.reg_name(*reg))),
                suffix: Suffix::default(),
                rhs: self.expr(expr),
            },
            core::Stmt::Read {
                reg,
                loc,
                mode,
                scope,
            } => StmtKind::Assign {
                lhs: Place::Named(id(self.p.reg_name(*reg))),
                suffix: Suffix::default(),
                rhs: match loc {
                    core::Loc::Named(l) => e(ExprKind::Name(
                        id(self.p.loc_name(*l)),
                        full_suffix(*mode, *scope),
                    )),
                    core::Loc::Computed(a) => e(ExprKind::Deref(
                        Box::new(self.expr(a)),
                        full_suffix(*mode, *scope),
                    )),
                },
            },
            core::Stmt::Write {
                loc,
                expr,
                mode,
                scope,
            } => StmtKind::Assign {
                lhs: self.place(loc),
                suffix: full_suffix(*mode, *scope),
                rhs: self.expr(expr),
            },
            core::Stmt::Fence { mode, scope } => StmtKind::Fence {
                suffix: full_suffix(*mode, *scope),
            },
            core::Stmt::Rmw {
                reg,
                op,
                read_mode,
                write_mode,
                scope,
                loc,
                args,
            } => StmtKind::Rmw {
                target: Some(id(self.p.reg_name(*reg))),
                rmw: Rmw {
                    op: *op,
                    modes: vec![
                        (*read_mode, Span::default()),
                        (*write_mode, Span::default()),
                    ],
                    scope: Some((*scope, Span::default())),
                    quals: Vec::new(),
                    place: self.place(loc),
                    args: args.iter().map(|a| self.expr(a)).collect(),
                    span: Span::default(),
                },
            },
            core::Stmt::If { cond, then, els } => StmtKind::If {
                cond: self.expr(cond),
                then: self.stmts(then),
                els: match els.as_ref() {
                    core::Stmt::Skip => None,
                    els => Some(self.stmts(els)),
                },
            },
            core::Stmt::Par { .. } => StmtKind::Par(self.branches(s)),
            core::Stmt::Vulkan { vk, body, .. } => {
                let mut out = self.stmts(body);
                if let Some(first) = out.first_mut() {
                    qualify(first, vk_quals(vk));
                }
                return out;
            }
            core::Stmt::Barrier {
                mode,
                scope,
                vk,
                id,
                ..
            } => StmtKind::Barrier {
                suffix: Suffix {
                    mode: mode.map(|m| (m, Span::default())),
                    scope: Some((*scope, Span::default())),
                    quals: vk_quals(vk),
                },
                id: (*id != 0).then_some((*id, Span::default())),
            },
        };
        vec![Stmt {
            kind,
            span: Span::default(),
        }]
    }

    /// Flattens PAR(S1, PAR(S2, S3)) into the branches `( S1 || S2 || S3 )`.
    fn branches(&self, s: &core::Stmt) -> Vec<Thread> {
        match s {
            core::Stmt::Par {
                thread,
                left,
                right,
            } => {
                let mut out = vec![Thread {
                    label: Some(id(self.p.thread_name(*thread))),
                    body: self.stmts(left),
                    span: Span::default(),
                }];
                out.extend(self.branches(right));
                out
            }
            s => vec![Thread {
                label: None,
                body: self.stmts(s),
                span: Span::default(),
            }],
        }
    }

    fn place(&self, loc: &core::Loc) -> Place {
        match loc {
            core::Loc::Named(l) => Place::Named(id(self.p.loc_name(*l))),
            core::Loc::Computed(a) => Place::Computed(Box::new(self.expr(a))),
        }
    }

    fn expr(&self, x: &core::Expr) -> Expr {
        match x {
            core::Expr::Int(n) if *n < 0 => {
                e(ExprKind::Unary(UnOp::Neg, Box::new(e(ExprKind::Int(-n)))))
            }
            core::Expr::Int(n) => e(ExprKind::Int(*n)),
            core::Expr::Reg(r) => e(ExprKind::Name(id(self.p.reg_name(*r)), Suffix::default())),
            core::Expr::Unary(op, a) => e(ExprKind::Unary(*op, Box::new(self.expr(a)))),
            core::Expr::Binary(op, a, b) => e(ExprKind::Binary(
                *op,
                Box::new(self.expr(a)),
                Box::new(self.expr(b)),
            )),
        }
    }

    fn condition(&self, c: &core::Condition) -> Condition {
        Condition {
            quantifier: c.quantifier,
            prop: self.prop(&c.prop),
            expects: c
                .expectations
                .iter()
                .map(|x| Expect {
                    verdict: x.verdict,
                    when: x
                        .when
                        .iter()
                        .map(|(k, v)| Setting {
                            name: id(k),
                            value: id(v),
                        })
                        .collect(),
                    span: Span::default(),
                })
                .collect(),
            disputed: c.disputed.clone(),
            span: Span::default(),
        }
    }

    fn prop(&self, p: &core::Prop) -> Prop {
        match p {
            core::Prop::True => Prop::True,
            core::Prop::False => Prop::False,
            core::Prop::Not(a) => Prop::Not(Box::new(self.prop(a))),
            core::Prop::And(a, b) => Prop::And(Box::new(self.prop(a)), Box::new(self.prop(b))),
            core::Prop::Or(a, b) => Prop::Or(Box::new(self.prop(a)), Box::new(self.prop(b))),
            core::Prop::Cmp(a, op, b) => {
                Prop::Cmp(self.term(a), *op, self.term(b), Span::default())
            }
        }
    }

    fn term(&self, t: &core::Term) -> CondTerm {
        match t {
            core::Term::Int(n) => CondTerm::Int(*n, Span::default()),
            core::Term::Reg(r) => {
                let info = &self.p.regs[*r as usize];
                CondTerm::Reg {
                    thread: Some(id(self.p.thread_name(info.thread))),
                    reg: id(&info.name),
                }
            }
            core::Term::Mem(l) => CondTerm::Mem(id(self.p.loc_name(*l))),
        }
    }
}
