//! Deciding pomsets: the candidate conditions and reads-from search (§1.3).
//! Completeness (c2b, c3, c5) and outcomes live with the denotation, in
//! `semantics::decide`.

pub mod candidate;

pub use candidate::{
    candidates, candidates_capped, candidates_counted, candidates_each, candidates_interruptible,
    some_candidate, Choice, Edge, Failure, OrderKind, Orders, Reason, RfMode, Search, Visit,
    Witness,
};
