//! The network's shape, declared once: the model, the quantiser, the kernels, the
//! trainer's defaults and `bench` all read these.

/// Inputs per perspective (the feature layout is in [`super::features`]).
pub const INPUTS: usize = 782;
/// Accumulator outputs per perspective of the shipped net (the trainer's default).
pub const HIDDEN: usize = 256;
/// Largest accumulator a net file may have.
pub const MAX_HIDDEN: usize = 4096;
/// Widest first head layer `l1`: the head's arrays are this long, and a 16-wide `l1`
/// leaves the rest zero.
pub const L1: usize = 32;
/// The `l1` widths the kernels support (each a whole number of 256-bit registers of i32).
pub const L1_WIDTHS: [usize; 2] = [16, 32];
/// The shipped net's `l1` width (the trainer's default).
pub const L1_DEFAULT: usize = 32;
/// Outputs of the second head layer `l2`.
pub const L2: usize = 32;
/// Output buckets of the shipped net (the trainer's default; see
/// [`super::features::output_bucket`]).
pub const OUTPUT_BUCKETS: usize = 8;
/// Most output buckets a net may have.
pub const MAX_BUCKETS: usize = 16;
