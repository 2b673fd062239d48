//! The pomset structure (§1.3): bitset orders, and the skeleton of a pomset
//! that the candidate conditions read (labels, program order, the dependency
//! order, rmw). Preconditions and transformer families are built by the
//! denotation (`semantics::tau`, `semantics::construct`).

pub mod order;

pub use order::{Event, Order, MAX_EVENTS};

use crate::action::Action;

/// What the candidate conditions (c2a-c8b) need of a pomset.
#[derive(Clone, Debug)]
pub struct Skeleton {
    /// λ: one label per event.
    pub labels: Vec<Action>,
    /// d po e when some SEQ has d on its left and e on its right, the
    /// top-level initialising prefix included. s7a and s8a draw sync-delays and
    /// co-delays edges from it.
    pub po: Order,
    /// SEQ pairs whose labels at their SEQ (λ1(d), λ2(e)) differ from
    /// `labels` after a §2 merge: s7a and s8a read these labels instead.
    pub seq_labels: Vec<(Event, Event, Action, Action)>,
    /// ⊴ as the denotation chose it: the dependencies behind κ' (s3).
    pub dep: Order,
    /// M9: an RMW's read and its write.
    pub rmw: Vec<(Event, Event)>,
}

impl Skeleton {
    pub fn new(labels: Vec<Action>) -> Skeleton {
        let n = labels.len();
        Skeleton {
            labels,
            po: Order::new(n),
            seq_labels: Vec::new(),
            dep: Order::new(n),
            rmw: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}
