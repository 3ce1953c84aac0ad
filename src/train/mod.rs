//! Network training (to be built by the neural-evaluation work).

#[derive(clap::Args, Debug)]
pub struct TrainArgs {}

pub fn run(_args: TrainArgs) -> Result<(), String> {
    Err("training is not implemented yet".into())
}
