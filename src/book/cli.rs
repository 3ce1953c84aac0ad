//! `rookery book …` subcommands.

#[derive(clap::Subcommand, Debug)]
pub enum BookCommand {
    /// Print book statistics.
    Stats,
}

pub fn run(_cmd: BookCommand) -> Result<(), String> {
    Err("the opening book is not built yet".into())
}
