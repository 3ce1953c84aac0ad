//! What the two trainers of move-scoring nets share: the human prior (`train::human`)
//! and the self-play policy (`train::policy`) both give each legal move a logit (a
//! position vector dotted with the move's embedding rows) and learn with a softmax over
//! the legal moves. They differ in the inputs beside the board and in their tensor
//! names; the positions, the batches' move part, the weights' handling and the training
//! loop are the same and live here.

pub mod batch;
pub mod positions;
pub mod tensors;
pub mod train_loop;

pub use batch::MoveBatch;
pub use positions::{mirror_left_right, MovePositions};
pub use tensors::save;
pub use train_loop::{mean_loss, train, warmup_cosine_lr, LoopSettings, MoveNetModel};
