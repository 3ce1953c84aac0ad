//! `bench`: a fixed-depth search of fixed positions; its node count is the engine's signature.

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Search depth per position.
    pub depth: Option<i32>,
}

pub fn run_cli(_args: &BenchArgs) -> Result<(), String> {
    Err("bench is not implemented yet".into())
}
