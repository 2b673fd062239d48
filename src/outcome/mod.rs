//! The outcome layer: what every engine returns and every report reads.
//! Final states and outcome sets (`state`), the states of interchangeable
//! threads kept one per orbit (`orbit`), their values packed (`packed`), the states of independent
//! readers kept as a product (`factored`), the condition judge with its
//! three-valued logic (`verdict`), and the limits a request carries
//! (`limits`).
//!
//! Architecture invariant: this layer imports no engine (`tests/it/layering.rs`).

pub mod factored;
pub mod limits;
pub mod orbit;
pub mod packed;
pub mod state;
pub mod verdict;

pub use limits::{interrupted, Limits, MAX_PARTITIONS, MAX_STATES};
pub use state::{FlagMeaning, Outcomes, Settled, State, Unsupported};
