//! `pomset options`: the model options, their values and defaults.

/// `pomset options` takes no flags of its own.
#[derive(clap::Args, Debug)]
pub struct OptionsArgs {}

/// `pomset options`: the table of `workbench::options_table`.
pub fn options(_: &OptionsArgs) -> Result<bool, String> {
    print!("{}", crate::workbench::options_table());
    Ok(true)
}
