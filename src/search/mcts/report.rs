//! Reading the tree out: root moves ranked by visits (a proven mate first), their scores
//! from Q through the WDL model's inverse, and principal variations by visits.

use cozy_chess::Move;

use super::tree::{Node, Proof, Tree, ROOT};
use crate::search::{RootLine, MATE, MAX_PLY, TB_WIN};

/// How a move ranks at its parent: a mate for the mover first (the shortest), moves
/// that get mated last (the longest), the rest by visits, then by value and prior. A
/// snapshot: other threads keep changing the node.
fn rank_key(n: &Node) -> (i32, i64, f64, f32) {
    match n.proof() {
        Proof::Loss(plies) => (2, -(plies as i64), 0.0, 0.0),
        Proof::Win(plies) => (0, plies as i64, 0.0, 0.0),
        _ => (1, n.visits() as i64, n.q().unwrap_or(0.0), n.prior()),
    }
}

/// The children of `index` allowed by `allowed`, best first.
pub fn ranked_children(tree: &Tree, index: usize, allowed: Option<&[Move]>) -> Vec<usize> {
    let mut keyed: Vec<_> = tree
        .node(index)
        .child_range()
        .filter(|&c| allowed.is_none_or(|moves| moves.contains(&tree.node(c).mv())))
        .map(|c| (rank_key(tree.node(c)), c))
        .collect();
    keyed.sort_by(|(a, _), (b, _)| {
        b.0.cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(b.2.total_cmp(&a.2))
            .then(b.3.total_cmp(&a.3))
    });
    keyed.into_iter().map(|(_, c)| c).collect()
}

/// The internal score of the move into `index` for the side that plays it: mates and
/// tablebase results as alpha-beta reports them, else Q through the WDL model.
pub fn score_of(tree: &Tree, index: usize, material: i32) -> i32 {
    let node = tree.node(index);
    match node.proof() {
        Proof::Loss(plies) => MATE - (plies as i32 + 1),
        Proof::Win(plies) => -(MATE - (plies as i32 + 1)),
        Proof::TablebaseLoss => TB_WIN - 1,
        Proof::TablebaseWin => -(TB_WIN - 1),
        Proof::Draw => 0,
        Proof::Unknown => {
            let q = node.q().unwrap_or(0.5);
            crate::search::wdl::VALUE.score_from_expected(q, material, crate::eval::EVAL_LIMIT)
        }
    }
}

/// The line from `index` down the most-visited children (the move into `index` first).
pub fn principal_variation(tree: &Tree, index: usize) -> Vec<Move> {
    let mut pv = vec![tree.node(index).mv()];
    let mut at = index;
    while pv.len() < MAX_PLY {
        match ranked_children(tree, at, None).first() {
            Some(&best) if tree.node(best).visits() > 0 => {
                pv.push(tree.node(best).mv());
                at = best;
            }
            _ => break,
        }
    }
    pv
}

/// The best `count` root lines, best first; `depth` is what `info` reports.
pub fn root_lines(
    tree: &Tree,
    allowed: Option<&[Move]>,
    count: usize,
    material: i32,
    depth: i32,
) -> Vec<RootLine> {
    ranked_children(tree, ROOT, allowed)
        .into_iter()
        .take(count)
        .map(|c| RootLine {
            score: score_of(tree, c, material),
            depth,
            pv: principal_variation(tree, c),
        })
        .collect()
}
