//! Tests to other tools' formats. `herd_c` writes herd7's C litmus format
//! for the subset herd7 can express, and refuses the rest with the reason.

pub mod herd_c;
