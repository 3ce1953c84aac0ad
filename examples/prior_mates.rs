//! How many playouts each MCTS prior needs to prove the mates of tests/mcts.rs (the
//! fewest of 1k … 300k; "none" when 300k do not): the hand-written prior, a policy net at
//! two softmax temperatures, with a bonus for checks, with a share spread evenly, and
//! mixed with the hand-written prior (docs/mcts.md).
//!
//!     cargo run --release --example prior_mates [NET]   (default nets/policy-sp2.safetensors)

use std::sync::Arc;

#[path = "common/mates.rs"]
mod mates;
use mates::MATES;

use cozy_chess::{Board, Move};
use rookery::chess::{parse_fen, Position};
use rookery::policy::PolicyNet;
use rookery::search::mcts::net_prior::NetPrior;
use rookery::search::mcts::prior::{HandWritten, Prior};
use rookery::search::{score_to_uci, SearchLimits, SearchMode, SearchOptions, Searcher, Silent};

/// The net's prior mixed with the hand-written one: (1 − w)·net + w·hand.
struct Mixed {
    net: NetPrior,
    weight: f32,
}

impl Prior for Mixed {
    fn priors(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>) {
        let mut hand = Vec::new();
        HandWritten.priors(board, moves, &mut hand);
        self.net.priors(board, moves, out);
        for (p, h) in out.iter_mut().zip(hand) {
            *p = (1.0 - self.weight) * *p + self.weight * h;
        }
    }
}

/// The net's logits with `bonus` added to every checking move.
struct CheckBonus {
    net: Arc<PolicyNet>,
    bonus: f32,
}

impl Prior for CheckBonus {
    fn priors(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>) {
        self.net.logits(board, moves, out);
        for (l, &m) in out.iter_mut().zip(moves) {
            let mut after = board.clone();
            after.play_unchecked(m);
            if !after.checkers().is_empty() {
                *l += self.bonus;
            }
        }
        rookery::policy::policy_net::softmax_in_place(out, 1.0);
    }
}

/// The net's prior with `share` of the mass spread evenly over the moves.
struct Uniform {
    net: NetPrior,
    share: f32,
}

impl Prior for Uniform {
    fn priors(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>) {
        self.net.priors(board, moves, out);
        let even = self.share / moves.len() as f32;
        for p in out.iter_mut() {
            *p = (1.0 - self.share) * *p + even;
        }
    }
}

fn prior(kind: &str, net: &Arc<PolicyNet>) -> Box<dyn Prior> {
    let net = Arc::clone(net);
    match kind.split_once('=') {
        None => Box::new(HandWritten),
        Some(("uniform", e)) => Box::new(Uniform {
            net: NetPrior::new(net, 1.0),
            share: e.parse().unwrap(),
        }),
        Some(("check", b)) => Box::new(CheckBonus {
            net,
            bonus: b.parse().unwrap(),
        }),
        Some(("T", t)) => Box::new(NetPrior::new(Arc::clone(&net), t.parse().unwrap())),
        Some((_, w)) => Box::new(Mixed {
            net: NetPrior::new(net, 1.0),
            weight: w.parse().unwrap(),
        }),
    }
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "nets/policy-sp2.safetensors".to_string());
    let net =
        Arc::new(PolicyNet::load(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{e}")));
    let budgets = [
        1_000u64, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 300_000,
    ];
    for kind in [
        "hand",
        "T=1.0",
        "T=2.0",
        "check=4",
        "uniform=0.5",
        "mix=0.5",
    ] {
        let mut line = format!("{kind:>9}:");
        for (fen, mate) in MATES {
            let found = budgets.iter().find(|&&n| {
                let mut s = Searcher::new(256, 1);
                s.set_mode(SearchMode::Mcts).expect("memory");
                s.mcts_mut()
                    .expect("MCTS mode")
                    .set_prior(prior(kind, &net));
                let limits = SearchLimits {
                    nodes: Some(n),
                    ..Default::default()
                };
                let pos = Position::new(parse_fen(fen).unwrap());
                let r = s.search(&pos, &limits, &SearchOptions::default(), &Silent);
                score_to_uci(r.score) == mate
            });
            line += &match found {
                Some(n) => format!(" {:>5}k", n / 1000),
                None => "   none".to_string(),
            };
        }
        println!("{line}");
    }
}
