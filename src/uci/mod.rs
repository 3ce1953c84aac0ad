//! UCI front end (to be written).
pub fn run() {}
