//! The PwT prototype's `.lit` format.
use crate::syntax::{ast, Diagnostics};
pub fn read(_src: &str) -> Result<ast::File, Diagnostics> {
    todo!()
}
