//! Pomsets for people: text for the terminal so far; diagrams (dot, TikZ,
//! SVG) come with the diagrams issue.

pub mod text;
