//! Pomsets for people: a text listing, and diagrams in four formats, all
//! rendered from one plain value, `Picture` (see the book's "Diagrams").

pub mod dot;
pub mod draw;
pub mod execution;
pub mod layout;
pub mod picture;
pub mod svg;
pub mod text;
pub mod tikz;

pub use picture::Picture;
