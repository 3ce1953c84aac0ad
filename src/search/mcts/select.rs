//! Choosing the child a playout descends into: PUCT with first-play urgency and
//! virtual loss. Only the formulas live here.

use cozy_chess::Move;

use super::params::*;
use super::tree::{Proof, Tree};

/// The exploration constant at a node with `visits` playouts (grows with log N).
pub fn cpuct(visits: f64) -> f64 {
    CPUCT * (1.0 + CPUCT_LOG_FACTOR * ((visits + CPUCT_LOG_BASE) / CPUCT_LOG_BASE).ln())
}

/// The child of `parent` with the highest Q + U. `allowed` restricts the moves (the root's
/// `searchmoves` and tablebase filter); `None` allows all. Playouts still on their way
/// count as losses (virtual loss), so threads spread over the tree.
pub fn select_child(tree: &Tree, parent: usize, allowed: Option<&[Move]>) -> Option<usize> {
    let node = tree.node(parent);
    let range = node.child_range();
    let parent_visits = (node.visits() + node.in_flight()).max(1) as f64;
    // The parent's value for its own side to move is the complement of its mean.
    let parent_q = node.q().map_or(0.5, |q| 1.0 - q);
    let mut visited_prior = 0.0;
    for c in range.clone() {
        if tree.node(c).visits() > 0 {
            visited_prior += tree.node(c).prior() as f64;
        }
    }
    let fpu = parent_q - FPU_REDUCTION * visited_prior.sqrt();
    let explore = cpuct(parent_visits) * parent_visits.sqrt();
    let mut best = None;
    let mut best_score = f64::NEG_INFINITY;
    // MCTS-Solver: a move that gets us mated is never chosen while another move is not
    // proven lost; when all are, the longest defence is (still looking for shorter
    // mates below it).
    let mut slowest_loss: Option<(u8, usize)> = None;
    for c in range {
        let child = tree.node(c);
        if allowed.is_some_and(|moves| !moves.contains(&child.mv())) {
            continue;
        }
        match child.proof() {
            // Mate in one: nothing is better, nothing to explore.
            Proof::Loss(0) => return Some(c),
            Proof::Win(plies) => {
                if slowest_loss.is_none_or(|(p, _)| plies > p) {
                    slowest_loss = Some((plies, c));
                }
                continue;
            }
            _ => {}
        }
        let visits = child.visits() as f64;
        let pending = child.in_flight() as f64;
        let q = match child.proof().value() {
            // An exact result (a mate, a draw, the tables), seen from our side: the
            // child's is the opponent's. A proven mate still leaves room to explore
            // for a shorter one.
            Some(v) => 1.0 - v,
            None if visits + pending == 0.0 => fpu,
            None => child.value_sum() / (visits + pending),
        };
        let score = q + explore * child.prior() as f64 / (1.0 + visits + pending);
        if score > best_score {
            best_score = score;
            best = Some(c);
        }
    }
    best.or(slowest_loss.map(|(_, c)| c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::legal_moves;
    use crate::search::mcts::tree::ROOT;
    use cozy_chess::Board;

    fn tree_with(priors: &[f32]) -> (Tree, Vec<Move>) {
        let tree = Tree::new(1);
        let moves: Vec<Move> = legal_moves(&Board::default())[..priors.len()].to_vec();
        tree.expand(ROOT, &moves, priors);
        (tree, moves)
    }

    fn visit(tree: &Tree, index: usize, value: f64, times: u32) {
        for _ in 0..times {
            tree.node(index).add_in_flight();
            tree.node(index).backup(value);
        }
    }

    #[test]
    fn unvisited_children_go_by_prior_and_searchmoves_filter() {
        let (tree, moves) = tree_with(&[0.1, 0.6, 0.3]);
        let first = tree.node(ROOT).child_range().start;
        assert_eq!(select_child(&tree, ROOT, None), Some(first + 1));
        let only = [moves[2]];
        assert_eq!(select_child(&tree, ROOT, Some(&only)), Some(first + 2));
    }

    #[test]
    fn a_good_child_is_revisited_and_a_bad_one_abandoned() {
        let (tree, _) = tree_with(&[0.5, 0.5]);
        let first = tree.node(ROOT).child_range().start;
        visit(&tree, ROOT, 0.5, 20);
        visit(&tree, first, 0.9, 10);
        visit(&tree, first + 1, 0.1, 10);
        assert_eq!(select_child(&tree, ROOT, None), Some(first));
    }

    #[test]
    fn virtual_loss_sends_a_second_thread_elsewhere() {
        let (tree, _) = tree_with(&[0.5, 0.5]);
        let first = tree.node(ROOT).child_range().start;
        visit(&tree, ROOT, 0.5, 4);
        visit(&tree, first, 0.55, 2);
        visit(&tree, first + 1, 0.5, 2);
        assert_eq!(select_child(&tree, ROOT, None), Some(first));
        for _ in 0..3 {
            tree.node(first).add_in_flight();
        }
        assert_eq!(select_child(&tree, ROOT, None), Some(first + 1));
    }

    #[test]
    fn a_mating_move_counts_as_a_sure_win() {
        let (tree, _) = tree_with(&[0.9, 0.1]);
        let first = tree.node(ROOT).child_range().start;
        visit(&tree, ROOT, 0.5, 100);
        visit(&tree, first, 0.6, 50);
        visit(&tree, first + 1, 0.0, 10);
        assert_eq!(select_child(&tree, ROOT, None), Some(first));
        tree.node(first + 1).set_proof(Proof::Loss(0));
        assert_eq!(select_child(&tree, ROOT, None), Some(first + 1));
    }

    #[test]
    fn a_move_proven_to_lose_is_left_while_another_is_open() {
        let (tree, _) = tree_with(&[0.9, 0.05, 0.05]);
        let first = tree.node(ROOT).child_range().start;
        visit(&tree, ROOT, 0.5, 10);
        visit(&tree, first + 1, 0.1, 5);
        tree.node(first).set_proof(Proof::Win(3));
        assert_ne!(select_child(&tree, ROOT, None), Some(first));
        // All lost: the longest defence.
        tree.node(first + 1).set_proof(Proof::Win(5));
        tree.node(first + 2).set_proof(Proof::Win(1));
        assert_eq!(select_child(&tree, ROOT, None), Some(first + 1));
    }
}
