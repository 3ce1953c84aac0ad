//! Choosing the child a playout descends into: PUCT with first-play urgency and
//! virtual loss. Only the formulas live here.

use cozy_chess::Move;

use super::params::*;
use super::tree::{Proof, Tree, ROOT};

/// The exploration constant at a node with `visits` playouts (grows with log N), the
/// root's scaled by its own factor.
pub fn cpuct(visits: f64, is_root: bool) -> f64 {
    let base = if is_root {
        MCTS_CPUCT() * MCTS_ROOT_CPUCT_SCALE()
    } else {
        MCTS_CPUCT()
    };
    base * (1.0 + CPUCT_LOG_FACTOR * ((visits + CPUCT_LOG_BASE) / CPUCT_LOG_BASE).ln())
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
    let explore = cpuct(parent_visits, parent == ROOT) * parent_visits.sqrt();
    // One pass over the children (each one's cache line is read once): children not
    // visited yet and not on their way all score `fpu + explore · prior`, and `fpu`
    // needs the whole pass's visited prior mass, so the pass keeps only the one of them
    // with the highest prior (the first of equals) and scores it at the end. The choice
    // is the same as scoring every child in order: the score rises with the prior, and
    // equal scores go to the lower index.
    let mut visited_prior = 0.0;
    let mut best = None;
    let mut best_score = f64::NEG_INFINITY;
    let mut best_unvisited: Option<(usize, f32)> = None;
    // MCTS-Solver: a move that gets us mated is never chosen while another move is not
    // proven lost; when all are, the longest defence is (still looking for shorter
    // mates below it).
    let mut slowest_loss: Option<(u8, usize)> = None;
    for c in range {
        let child = tree.node(c);
        let visits = child.visits();
        let prior = child.prior();
        if visits > 0 {
            visited_prior += prior as f64;
        }
        if allowed.is_some_and(|moves| !moves.contains(&child.mv())) {
            continue;
        }
        let proof = child.proof();
        match proof {
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
        let pending = child.in_flight();
        let q = match proof.value() {
            // An exact result (a mate, a draw, the tables), seen from our side: the
            // child's is the opponent's. A proven mate still leaves room to explore
            // for a shorter one.
            Some(v) => 1.0 - v,
            None if visits + pending == 0 => {
                if best_unvisited.is_none_or(|(_, p)| prior > p) {
                    best_unvisited = Some((c, prior));
                }
                continue;
            }
            None => child.value_sum() / (visits + pending) as f64,
        };
        let n = (visits + pending) as f64;
        let score = q + explore * prior as f64 / (1.0 + n);
        if score > best_score {
            best_score = score;
            best = Some(c);
        }
    }
    if let Some((c, prior)) = best_unvisited {
        let fpu = parent_q - MCTS_FPU_REDUCTION() * visited_prior.sqrt();
        let score = fpu + explore * prior as f64;
        if score > best_score || (score == best_score && best.is_none_or(|b| c < b)) {
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

    /// The definition `select_child` must agree with: first the visited prior mass, then
    /// every allowed child scored in order, the first of equal scores kept.
    fn select_by_definition(tree: &Tree, parent: usize, allowed: Option<&[Move]>) -> Option<usize> {
        let node = tree.node(parent);
        let parent_visits = (node.visits() + node.in_flight()).max(1) as f64;
        let parent_q = node.q().map_or(0.5, |q| 1.0 - q);
        let visited_prior: f64 = node
            .child_range()
            .filter(|&c| tree.node(c).visits() > 0)
            .map(|c| tree.node(c).prior() as f64)
            .sum();
        let fpu = parent_q - MCTS_FPU_REDUCTION() * visited_prior.sqrt();
        let explore = cpuct(parent_visits, parent == ROOT) * parent_visits.sqrt();
        let (mut best, mut best_score, mut slowest_loss) = (None, f64::NEG_INFINITY, None);
        for c in node.child_range() {
            let child = tree.node(c);
            if allowed.is_some_and(|moves| !moves.contains(&child.mv())) {
                continue;
            }
            match child.proof() {
                Proof::Loss(0) => return Some(c),
                Proof::Win(plies) => {
                    if slowest_loss.is_none_or(|(p, _)| plies > p) {
                        slowest_loss = Some((plies, c));
                    }
                    continue;
                }
                _ => {}
            }
            let (visits, pending) = (child.visits() as f64, child.in_flight() as f64);
            let q = match child.proof().value() {
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

    #[test]
    fn one_pass_selection_agrees_with_the_definition() {
        use rand::rngs::StdRng;
        use rand::{Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(57);
        let moves = legal_moves(&Board::default());
        for round in 0..2000 {
            let n = rng.gen_range(1..=moves.len());
            // Coarse priors, so that equal priors (ties) are common.
            let priors: Vec<f32> = (0..n).map(|_| rng.gen_range(0..4) as f32 / 8.0).collect();
            let (tree, _) = tree_with(&priors);
            let first = tree.node(ROOT).child_range().start;
            visit(&tree, ROOT, rng.gen_range(0.0..1.0), rng.gen_range(0..60));
            for c in first..first + n {
                match rng.gen_range(0..10) {
                    0..=3 => {}
                    4..=7 => visit(&tree, c, rng.gen_range(0.0..1.0), rng.gen_range(1..20)),
                    8 => tree.node(c).add_in_flight(),
                    _ => tree.node(c).set_proof(match rng.gen_range(0..3) {
                        0 => Proof::Draw,
                        1 => Proof::Win(rng.gen_range(1..9)),
                        _ => Proof::Loss(rng.gen_range(0..3) * 2),
                    }),
                }
            }
            let allowed: Vec<Move> = moves[..n]
                .iter()
                .copied()
                .filter(|_| rng.gen_bool(0.7))
                .collect();
            for filter in [None, Some(&allowed[..])] {
                assert_eq!(
                    select_child(&tree, ROOT, filter),
                    select_by_definition(&tree, ROOT, filter),
                    "round {round}"
                );
            }
        }
    }
}
