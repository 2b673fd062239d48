//! Printing then parsing gives back the same tree (spans aside), over
//! generated programs; and the core printer's output is a fixed point.

use pomset::syntax::ast::*;
use pomset::syntax::{self, Ident, Span};
use proptest::prelude::*;

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::default())
}

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn st(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}

/// Every scope, Vulkan's `sg` included.
fn scopes() -> Vec<Scope> {
    let mut all = Scope::ALL.to_vec();
    all.push(Scope::Sg);
    all
}

/// A sorted set of Vulkan qualifiers, as the parser keeps them.
fn quals() -> impl Strategy<Value = Vec<(Qual, Span)>> {
    let some = vec![
        Qual::Av,
        Qual::Vis,
        Qual::NonPriv,
        Qual::Class(2),
        Qual::SemSc(0),
        Qual::SemSc(3),
        Qual::SemAv,
        Qual::SemVis,
    ];
    prop::sample::subsequence(some, 0..3)
        .prop_map(|qs| qs.into_iter().map(|q| (q, Span::default())).collect())
}

fn suffix() -> impl Strategy<Value = Suffix> {
    (
        prop::option::of(prop::sample::select(Mode::ALL.to_vec())),
        prop::option::of(prop::sample::select(scopes())),
        quals(),
    )
        .prop_map(|(m, s, quals)| Suffix {
            mode: m.map(|m| (m, Span::default())),
            scope: s.map(|s| (s, Span::default())),
            quals,
        })
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["r", "s", "t1", "x", "y", "z", "a", "_b"]).prop_map(str::to_string)
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        (0i64..5).prop_map(|n| e(ExprKind::Int(n))),
        (name(), suffix()).prop_map(|(n, s)| e(ExprKind::Name(ident(&n), s))),
        name().prop_map(|n| e(ExprKind::AddrOf(ident(&n)))),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let ops = vec![
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
            BinOp::And,
            BinOp::Or,
        ];
        prop_oneof![
            (prop::sample::select(ops), inner.clone(), inner.clone())
                .prop_map(|(op, a, b)| e(ExprKind::Binary(op, Box::new(a), Box::new(b)))),
            (
                prop::sample::select(vec![UnOp::Neg, UnOp::Not]),
                inner.clone()
            )
                .prop_map(|(op, a)| e(ExprKind::Unary(op, Box::new(a)))),
            (inner, suffix()).prop_map(|(a, s)| e(ExprKind::Deref(Box::new(a), s))),
        ]
    })
}

fn place() -> impl Strategy<Value = Place> {
    prop_oneof![
        3 => name().prop_map(|n| Place::Named(ident(&n))),
        1 => expr().prop_map(|a| Place::Computed(Box::new(a))),
    ]
}

fn rmw() -> impl Strategy<Value = Rmw> {
    let op = prop::sample::select(vec![RmwOp::Cas, RmwOp::Fadd, RmwOp::Exchg]);
    let modes = prop::collection::vec(prop::sample::select(Mode::ALL.to_vec()), 0..=2);
    (
        op,
        modes,
        prop::option::of(prop::sample::select(scopes())),
        place(),
        expr(),
        expr(),
        quals(),
    )
        .prop_map(|(op, modes, scope, place, a, b, quals)| Rmw {
            op,
            modes: modes.into_iter().map(|m| (m, Span::default())).collect(),
            scope: scope.map(|s| (s, Span::default())),
            quals,
            place,
            args: if op == RmwOp::Cas {
                vec![a, b]
            } else {
                vec![a]
            },
            span: Span::default(),
        })
}

fn simple() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        Just(st(StmtKind::Skip)),
        (place(), suffix(), expr()).prop_map(|(lhs, suffix, rhs)| st(StmtKind::Assign {
            lhs,
            suffix,
            rhs
        })),
        (prop::option::of(name()), rmw()).prop_map(|(t, rmw)| st(StmtKind::Rmw {
            target: t.map(|t| ident(&t)),
            rmw
        })),
        suffix().prop_map(|suffix| st(StmtKind::Fence { suffix })),
        (suffix(), prop::option::of(0i64..4)).prop_map(|(suffix, id)| st(StmtKind::Barrier {
            suffix,
            id: id.map(|n| (n, Span::default())),
        })),
        Just(st(StmtKind::Diverge)),
    ]
}

fn stmts() -> impl Strategy<Value = Vec<Stmt>> {
    let leaf = prop::collection::vec(simple(), 1..4);
    leaf.prop_recursive(3, 16, 3, |inner| {
        let compound = prop_oneof![
            (expr(), inner.clone(), prop::option::of(inner.clone()))
                .prop_map(|(cond, then, els)| st(StmtKind::If { cond, then, els })),
            (expr(), inner.clone()).prop_map(|(cond, body)| st(StmtKind::While { cond, body })),
            (inner.clone(), expr()).prop_map(|(body, cond)| st(StmtKind::DoWhile { body, cond })),
            prop::collection::vec(inner.clone(), 2..4).prop_map(|bodies| {
                st(StmtKind::Par(
                    bodies
                        .into_iter()
                        .map(|body| Thread {
                            label: None,
                            body,
                            span: Span::default(),
                        })
                        .collect(),
                ))
            }),
        ];
        (inner, compound, prop::collection::vec(simple(), 0..2)).prop_map(|(mut a, c, b)| {
            a.push(c);
            a.extend(b);
            a
        })
    })
}

fn cond_term() -> impl Strategy<Value = CondTerm> {
    prop_oneof![
        (-2i64..4).prop_map(|n| CondTerm::Int(n, Span::default())),
        (prop::option::of(Just("P1")), name()).prop_map(|(t, r)| CondTerm::Reg {
            thread: t.map(ident),
            reg: ident(&r)
        }),
        name().prop_map(|n| CondTerm::Mem(ident(&n))),
        (0i64..4).prop_map(|a| CondTerm::MemAt(a, Span::default())),
    ]
}

fn prop_() -> impl Strategy<Value = Prop> {
    let ops = vec![
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];
    let leaf = prop_oneof![
        Just(Prop::True),
        Just(Prop::False),
        (cond_term(), prop::sample::select(ops), cond_term()).prop_map(|(a, op, b)| Prop::Cmp(
            a,
            op,
            b,
            Span::default()
        )),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| Prop::Not(Box::new(a))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Prop::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| Prop::Or(Box::new(a), Box::new(b))),
        ]
    })
}

fn condition() -> impl Strategy<Value = Condition> {
    let q = prop::sample::select(vec![
        Quantifier::Exists,
        Quantifier::NotExists,
        Quantifier::Forall,
        Quantifier::Allow,
        Quantifier::Forbid,
    ]);
    let expect = (prop::sample::select(Verdict::ALL.to_vec()), prop::bool::ANY).prop_map(
        |(verdict, when)| Expect {
            verdict,
            when: if when {
                vec![Setting {
                    name: ident("c7a"),
                    value: ident("direct"),
                }]
            } else {
                vec![]
            },
            span: Span::default(),
        },
    );
    let disputed = prop::option::of("[a-z ().]{0,12}");
    (q, prop_(), prop::collection::vec(expect, 0..3), disputed).prop_map(
        |(quantifier, prop, expects, disputed)| Condition {
            quantifier,
            prop,
            expects,
            disputed,
            span: Span::default(),
        },
    )
}

fn file() -> impl Strategy<Value = File> {
    (
        prop::collection::vec(stmts(), 1..4),
        prop::collection::vec(condition(), 0..3),
        prop::option::of(prop::collection::vec(-1i64..4, 1..4)),
        prop::bool::ANY,
    )
        .prop_map(|(threads, conditions, values, labelled)| File {
            name: ident("T+gen"),
            comment: labelled.then(|| "a \"generated\" test".to_string()),
            values: values.map(|v| (v, Span::default())),
            locations: vec![LocDecl {
                name: ident("a"),
                address: Some((2, Span::default())),
            }],
            init: vec![InitEntry {
                loc: ident("x"),
                value: 1,
                span: Span::default(),
            }],
            scopes: Some(ScopeNode::Group {
                level: Scope::Gpu,
                children: vec![ScopeNode::Thread(ident("P0"))],
                span: Span::default(),
            }),
            model: vec![Setting {
                name: ident("init"),
                value: ident("none"),
            }],
            threads: threads
                .into_iter()
                .enumerate()
                .map(|(i, body)| Thread {
                    label: (labelled && i == 1).then(|| ident("Q1")),
                    body,
                    span: Span::default(),
                })
                .collect(),
            show: Vec::new(),
            filter: None,
            conditions,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The formatter's output parses back to the tree it printed.
    #[test]
    fn print_then_parse_is_identity(f in file()) {
        let text = syntax::print::file(&f);
        let back = syntax::parse_file(&text)
            .map_err(|d| format!("{}\n{}", text, syntax::Diagnostics::from(d).render("gen", &text)));
        prop_assert_eq!(back, Ok(f), "printed as:\n{}", text);
    }

    /// Formatting is idempotent: canonical text is a fixed point.
    #[test]
    fn format_is_idempotent(f in file()) {
        let text = syntax::print::file(&f);
        let again = syntax::format(&text).map_err(|d| d.render("gen", &text));
        prop_assert_eq!(again, Ok(text));
    }
}
