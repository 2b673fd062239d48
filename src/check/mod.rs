//! Deciding pomsets: the candidate conditions and reads-from search (§1.3).
//! Completeness (c2b, c3, c5) and outcomes join with the denotation (issue 4).

pub mod candidate;

pub use candidate::{
    candidates, candidates_counted, Choice, Edge, Failure, OrderKind, Orders, Reason, RfMode,
    Search, Witness,
};
