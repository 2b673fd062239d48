//! The engines, as peers.

pub mod axiomatic;
pub mod pwt;
pub mod reference;
pub mod sc;
