//! The learnt prior: the self-play policy net (`policy::PolicyNet`, trained by
//! `rookery train-policy` on the alpha-beta search's moves) behind the [`Prior`]
//! interface, chosen with the `PolicyFile` option. One net is shared by every search
//! thread and survives the tree being rebuilt (`Hash`, `SearchMode`).

use std::sync::Arc;

use cozy_chess::{Board, Move};

use super::params::MCTS_PRIOR_TEMPERATURE;
use super::prior::{HandWritten, Prior};
use crate::policy::policy_net::softmax_in_place;
use crate::policy::PolicyNet;

/// Softmax of the net's logits at a temperature.
pub struct NetPrior {
    net: Arc<PolicyNet>,
    /// Above 1 flattens the net's distribution (more exploration), below 1 sharpens it.
    /// `None`: the search's `MCTS_PRIOR_TEMPERATURE`, read at each call (a tuning build
    /// may change it between games).
    temperature: Option<f32>,
}

impl NetPrior {
    /// The prior at a fixed temperature (tools and experiments).
    pub fn new(net: Arc<PolicyNet>, temperature: f32) -> NetPrior {
        NetPrior {
            net,
            temperature: Some(temperature),
        }
    }

    /// The prior at the search's temperature (`MCTS_PRIOR_TEMPERATURE`).
    pub fn searching(net: Arc<PolicyNet>) -> NetPrior {
        NetPrior {
            net,
            temperature: None,
        }
    }
}

impl Prior for NetPrior {
    fn priors(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>) {
        self.net.logits(board, moves, out);
        let temperature = self.temperature.unwrap_or(MCTS_PRIOR_TEMPERATURE() as f32);
        softmax_in_place(out, temperature.max(1e-3));
    }
}

/// The prior for a `PolicyFile` choice: the net's, or the hand-written one without a net.
pub fn chosen_prior(net: Option<&Arc<PolicyNet>>) -> Box<dyn Prior> {
    match net {
        Some(net) => Box::new(NetPrior::searching(Arc::clone(net))),
        None => Box::new(HandWritten),
    }
}
