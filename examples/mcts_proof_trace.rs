//! Why does (or doesn't) MCTS prove a mate? Searches one position with a prior for a
//! number of playouts and prints the tree: the root's children (prior, visits, Q for the
//! mover, proof), then the unproven part of the subtree below a chosen root move, a few
//! plies deep (docs/mcts.md, "Proving sacrificial mates").
//!
//!     cargo run --release --example mcts_proof_trace -- PRIOR PLAYOUTS MATE [MOVE] [DEPTH]
//!
//! PRIOR: hand, net (nets/policy-sp2.safetensors) or mix (half each); MATE: an index into
//! examples/common/mates.rs or a FEN; MOVE: the root move to open (UCI; default the
//! most visited); DEPTH: plies shown below it (default 4).

use std::sync::Arc;

#[path = "common/mates.rs"]
mod mates;
use mates::MATES;

use cozy_chess::{Board, Move};
use rookery::chess::{move_to_uci, parse_fen, Position};
use rookery::policy::PolicyNet;
use rookery::search::mcts::net_prior::NetPrior;
use rookery::search::mcts::prior::{HandWritten, Prior};
use rookery::search::mcts::tree::{Proof, Tree, ROOT};
use rookery::search::{score_to_uci, SearchLimits, SearchMode, SearchOptions, Searcher, Silent};

struct Mixed(NetPrior);

impl Prior for Mixed {
    fn priors(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>) {
        let mut hand = Vec::new();
        HandWritten.priors(board, moves, &mut hand);
        self.0.priors(board, moves, out);
        for (p, h) in out.iter_mut().zip(hand) {
            *p = 0.5 * *p + 0.5 * h;
        }
    }
}

fn line(tree: &Tree, board: &Board, c: usize) -> String {
    let n = tree.node(c);
    let q = n.q().map_or("   -  ".to_string(), |q| format!("{q:.3}"));
    let proof = match n.proof() {
        Proof::Unknown => String::new(),
        // The node's proof is for its side to move; the mover's result is the opposite.
        Proof::Loss(p) => format!("mover WINS (mate in {} plies)", p + 1),
        Proof::Win(p) => format!("mover LOSES (mated in {} plies)", p + 1),
        p => format!("{p:?}"),
    };
    format!(
        "{:<6} prior {:.4} visits {:>7} Q {} children {:>3} {}",
        move_to_uci(board, n.mv(), false),
        n.prior(),
        n.visits(),
        q,
        n.child_range().len(),
        proof
    )
}

/// Children of `index`, most visited first.
fn by_visits(tree: &Tree, index: usize) -> Vec<usize> {
    let mut c: Vec<usize> = tree.node(index).child_range().collect();
    c.sort_by_key(|&c| {
        std::cmp::Reverse((tree.node(c).visits(), (tree.node(c).prior() * 1e6) as u32))
    });
    c
}

/// Prints the children of `index` (at `board`) and recurses into the unproven ones.
fn show(tree: &Tree, board: &Board, index: usize, depth: usize, left: usize) {
    let pad = "  ".repeat(depth);
    let children = by_visits(tree, index);
    let proven = children
        .iter()
        .filter(|&&c| tree.node(c).proof() != Proof::Unknown)
        .count();
    let unvisited = children
        .iter()
        .filter(|&&c| tree.node(c).visits() == 0)
        .count();
    let mass: f32 = children
        .iter()
        .filter(|&&c| tree.node(c).visits() > 0)
        .map(|&c| tree.node(c).prior())
        .sum();
    println!(
        "{pad}[{} children, {proven} proven, {unvisited} unvisited, visited prior mass {mass:.3}]",
        children.len()
    );
    for (k, &c) in children.iter().enumerate() {
        let node = tree.node(c);
        let interesting = k < 6
            || node.proof() != Proof::Unknown
            || node.prior() > 0.05
            || std::env::var("ALL").is_ok();
        if !interesting {
            continue;
        }
        println!("{pad}{}", line(tree, board, c));
        if left > 0 && node.proof() == Proof::Unknown && node.visits() > 1 && k < 4 {
            let mut after = board.clone();
            after.play_unchecked(node.mv());
            show(tree, &after, c, depth + 1, left - 1);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("net", |s| s.as_str());
    let playouts: u64 = args.get(2).map_or(50_000, |s| s.parse().unwrap());
    let fen = args
        .get(3)
        .map_or(MATES[6].0, |s| match s.parse::<usize>() {
            Ok(i) => MATES[i].0,
            Err(_) => s.as_str(),
        });
    let depth: usize = args.get(5).map_or(4, |s| s.parse().unwrap());
    let net = || {
        let net = PolicyNet::load(std::path::Path::new("nets/policy-sp2.safetensors"))
            .unwrap_or_else(|e| panic!("{e}"));
        NetPrior::new(Arc::new(net), 1.0)
    };
    let prior: Box<dyn Prior> = match kind {
        "hand" => Box::new(HandWritten),
        "net" => Box::new(net()),
        "mix" => Box::new(Mixed(net())),
        other => panic!("unknown prior {other}"),
    };
    let mut s = Searcher::new(256, 1);
    s.set_mode(SearchMode::Mcts).expect("memory");
    s.mcts_mut().expect("MCTS mode").set_prior(prior);
    let board = parse_fen(fen).unwrap();
    let limits = SearchLimits {
        nodes: Some(playouts),
        ..Default::default()
    };
    let r = s.search(
        &Position::new(board.clone()),
        &limits,
        &SearchOptions::default(),
        &Silent,
    );
    let tree = s.mcts().expect("MCTS mode").tree();
    println!(
        "{fen}  prior {kind}, {playouts} playouts: {} {}",
        score_to_uci(r.score),
        r.best_move
            .map_or("-".into(), |m| move_to_uci(&board, m, false))
    );
    let root = by_visits(tree, ROOT);
    for &c in root.iter().take(10) {
        println!("{}", line(tree, &board, c));
    }
    // MOVE may be a path of UCI moves separated by commas.
    let mut open = root[0];
    let mut after = board.clone();
    let mut at = ROOT;
    for m in args.get(4).map_or(vec![], |p| p.split(',').collect()) {
        open = by_visits(tree, at)
            .into_iter()
            .find(|&c| move_to_uci(&after, tree.node(c).mv(), false) == m)
            .expect("a move in the tree");
        println!("--- below {}", line(tree, &after, open));
        after.play_unchecked(tree.node(open).mv());
        at = open;
    }
    if at == ROOT {
        println!("--- below {}", line(tree, &board, open));
        after.play_unchecked(tree.node(open).mv());
    }
    show(tree, &after, open, 1, depth);
}
