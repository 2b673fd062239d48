//! herd7's C litmus format.
use crate::syntax::{ast, Diagnostics};
pub fn read(_src: &str) -> Result<ast::File, Diagnostics> {
    todo!()
}
