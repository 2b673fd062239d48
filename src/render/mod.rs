//! Pictures for people: diagrams in four formats (text, DOT, TikZ, SVG), all
//! rendered from one plain value, `Picture` (see the book's "Diagrams").
//! An engine builds the pictures (`Engine::pictures`); `render` imports no
//! engine (`tests/it/layering.rs`).

pub mod dot;
pub mod draw;
pub mod layout;
pub mod picture;
pub mod svg;
pub mod text;
pub mod tikz;

pub use picture::Picture;
