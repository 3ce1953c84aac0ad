//! One playout: select down the tree, learn something at the end (an exact result, the
//! value net, or — when the tree is full and not yet pruned — the node's own mean), back
//! it up, and prove mates upward. Each search thread owns a [`Worker`]; the tree is shared.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::{PoisonError, RwLock};

use cozy_chess::{Board, Move};

use super::leaf;
use super::params::MAX_PLAYOUT_DEPTH;
use super::prior::Prior;
use super::select::select_child;
use super::tree::{Expansion, Proof, Tree, ROOT};
use crate::chess::{legal_moves, Position};
use crate::eval::Evaluator;
use crate::search::alphabeta::{SearchThread, TablebaseLimits};
use crate::search::history::{piece_index, ContKey};
use crate::search::SearchControl;

/// What every thread of one search shares.
pub struct Shared<'a> {
    pub tree: &'a Tree,
    /// Held for reading by every playout and for writing while the main thread frees
    /// room in a full tree ([`Tree::prune`]), so that no playout sees the nodes move.
    pub structure: RwLock<()>,
    pub prior: &'a dyn Prior,
    pub control: &'a SearchControl,
    /// Set by the main thread when the search is over, so the helpers stop too.
    pub finished: AtomicBool,
    /// Legal root moves allowed by `searchmoves` and the tables; `None`: all of them.
    pub root_moves: Option<&'a [Move]>,
    pub tb: TablebaseLimits,
    pub tb_hits: AtomicU64,
    /// Plies of captures resolved before the value net judges a leaf.
    pub capture_plies: usize,
    /// Depth of the alpha-beta search that judges a new leaf instead (negative: none).
    pub leaf_depth: i32,
    /// The most playouts this search may start (`go nodes`).
    pub max_playouts: u64,
    /// Playouts started (each thread claims one before running it).
    pub playouts: AtomicU64,
    /// Sum of the finished playouts' lengths in plies, and the longest one.
    pub depth_sum: AtomicU64,
    pub seldepth: AtomicU64,
}

impl Shared<'_> {
    pub fn stop_requested(&self) -> bool {
        self.finished.load(Relaxed) || self.control.stop.load(Relaxed)
    }

    /// Claims the next playout; false when `go nodes` is used up.
    pub fn claim_playout(&self) -> bool {
        self.playouts.fetch_add(1, Relaxed) < self.max_playouts
    }

    /// Playouts finished or running, never more than the limit.
    pub fn playouts(&self) -> u64 {
        self.playouts.load(Relaxed).min(self.max_playouts)
    }
}

pub struct Worker<'a> {
    shared: &'a Shared<'a>,
    eval: Evaluator,
    root: Board,
    /// Hashes of the game so far and the root, then of each position on the path.
    hashes: Vec<u64>,
    path: Vec<usize>,
    moves: Vec<Move>,
    priors: Vec<f32>,
    checks: Vec<(usize, Proof)>,
    /// This thread's alpha-beta searcher for the leaves, when `leaf_depth` >= 0.
    leaf_search: Option<SearchThread<'a>>,
    /// The move that led to the node being visited (continuation history of the leaf
    /// search).
    last_move: ContKey,
}

impl<'a> Worker<'a> {
    pub fn new(
        shared: &'a Shared<'a>,
        pos: &Position,
        leaf_search: Option<SearchThread<'a>>,
    ) -> Self {
        let mut hashes = pos.history.clone();
        hashes.push(pos.board.hash());
        let mut eval = Evaluator::new();
        eval.reset(&pos.board);
        Worker {
            shared,
            eval,
            root: pos.board.clone(),
            hashes,
            path: Vec::with_capacity(MAX_PLAYOUT_DEPTH + 1),
            moves: Vec::with_capacity(64),
            priors: Vec::with_capacity(64),
            checks: Vec::new(),
            leaf_search,
            last_move: None,
        }
    }

    /// Runs playouts until the search is stopped or its playouts are used up (helpers).
    pub fn run(&mut self) {
        while !self.shared.stop_requested() && self.shared.claim_playout() {
            self.playout();
        }
    }

    /// One playout from the root; returns its length in plies.
    pub fn playout(&mut self) -> usize {
        let _tree_in_use = self
            .shared
            .structure
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let tree = self.shared.tree;
        let mut board = self.root.clone();
        let base = self.hashes.len();
        self.path.clear();
        self.path.push(ROOT);
        tree.node(ROOT).add_in_flight();
        let mut index = ROOT;
        // The result for the side to move at the last node of the path.
        let value = loop {
            let node = tree.node(index);
            let depth = self.path.len() - 1;
            if depth > 0 {
                let proof = node.proof();
                if proof.is_terminal() {
                    break proof.value().unwrap_or(0.5);
                }
                if node.visits() == 0 || depth >= MAX_PLAYOUT_DEPTH {
                    break self.first_visit(index, &board);
                }
            }
            if !node.is_expanded() {
                if !tree.has_room() {
                    // No room to grow: the node's own mean stands in for a new value.
                    break node.q().map_or(0.5, |q| 1.0 - q);
                }
                self.moves = legal_moves(&board);
                self.shared
                    .prior
                    .priors(&board, &self.moves, &mut self.priors);
                if tree.expand(index, &self.moves, &self.priors) == Expansion::Full {
                    break node.q().map_or(0.5, |q| 1.0 - q);
                }
                if leaf::prove_mates_by_checks(
                    tree,
                    index,
                    &board,
                    &self.moves,
                    &self.hashes,
                    &mut self.checks,
                ) {
                    prove_upward(tree, &self.path);
                }
            }
            let allowed = if depth == 0 {
                self.shared.root_moves
            } else {
                None
            };
            let Some(child) = select_child(tree, index, allowed) else {
                break node.q().map_or(0.5, |q| 1.0 - q);
            };
            let mv = tree.node(child).mv();
            let moving = board.piece_on(mv.from).unwrap_or(cozy_chess::Piece::Pawn);
            self.last_move = Some((piece_index(board.side_to_move(), moving), mv.to as usize));
            let mut after = board.clone();
            after.play_unchecked(mv);
            // The tree's own evaluator follows the path only when it judges the leaf; a
            // leaf search refreshes its own from the leaf's board.
            if self.leaf_search.is_none() {
                self.eval.push(&board, mv, &after);
            }
            self.hashes.push(after.hash());
            board = after;
            tree.node(child).add_in_flight();
            self.path.push(child);
            index = child;
        };
        self.backup(value);
        if self.leaf_search.is_none() {
            for _ in 1..self.path.len() {
                self.eval.pop();
            }
        }
        self.hashes.truncate(base);
        let depth = self.path.len() - 1;
        self.shared.depth_sum.fetch_add(depth as u64, Relaxed);
        self.shared.seldepth.fetch_max(depth as u64, Relaxed);
        depth
    }

    /// The first visit of a node: an exact result if there is one (kept in the node:
    /// the game is over, the tables know, or the side to move mates in one), else the
    /// value net's.
    fn first_visit(&mut self, index: usize, board: &Board) -> f64 {
        let node = self.shared.tree.node(index);
        let exact = leaf::game_over(board, &self.hashes).or_else(|| {
            let verdict = leaf::tablebase_result(board, &self.shared.tb);
            if verdict.is_some() {
                self.shared.tb_hits.fetch_add(1, Relaxed);
            }
            verdict
        });
        match exact {
            Some(proof) => {
                node.set_proof(proof);
                proof.value().unwrap_or(0.5)
            }
            // A mate in one is exact (a mate outranks the draw rules): the node is won
            // now, not after a second visit expands it and a third finds the mate.
            None if leaf::has_mate_in_one(board) => {
                node.set_proof(Proof::Win(1));
                1.0
            }
            None => match &mut self.leaf_search {
                Some(search) => {
                    let depth = self.shared.leaf_depth;
                    let score = search.leaf_score(board, &self.hashes, self.last_move, depth);
                    leaf::expected_result(score, board)
                }
                None => leaf::value(&mut self.eval, board, self.shared.capture_plies),
            },
        }
    }

    /// Adds the result to every node of the path, flipping the point of view each ply,
    /// then proves what a new mate proves above it.
    fn backup(&self, value: f64) {
        let tree = self.shared.tree;
        // Each node stores the view of the side that moved into it.
        let mut v = 1.0 - value;
        for &index in self.path.iter().rev() {
            tree.node(index).backup(v);
            v = 1.0 - v;
        }
        let leaf = tree.node(*self.path.last().expect("the path holds the root"));
        if !matches!(leaf.proof(), Proof::Win(_) | Proof::Loss(_)) {
            return;
        }
        prove_upward(tree, &self.path[..self.path.len() - 1]);
    }
}

/// Proves what the children's proofs prove, from the last node of `path` up, as far as
/// something is proven.
pub fn prove_upward(tree: &Tree, path: &[usize]) {
    for &index in path.iter().rev() {
        match proof_from_children(tree, index) {
            Proof::Unknown => break,
            proof => tree.node(index).set_proof(proof),
        }
    }
}

/// What the children's proofs prove about a node: a win if some move mates (fastest),
/// a loss if every move is mated (slowest).
pub fn proof_from_children(tree: &Tree, index: usize) -> Proof {
    let range = tree.node(index).child_range();
    if range.is_empty() {
        return Proof::Unknown;
    }
    let mut fastest_win: Option<u8> = None;
    let mut slowest_loss = 0u8;
    let mut all_lost = true;
    for c in range {
        match tree.node(c).proof() {
            Proof::Loss(plies) => {
                fastest_win = Some(fastest_win.map_or(plies, |p| p.min(plies)));
            }
            Proof::Win(plies) => slowest_loss = slowest_loss.max(plies),
            _ => all_lost = false,
        }
    }
    match fastest_win {
        Some(plies) => Proof::Win(plies.saturating_add(1)),
        None if all_lost => Proof::Loss(slowest_loss.saturating_add(1)),
        None => Proof::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::legal_moves;

    fn tree_with_children(n: usize) -> (Tree, usize) {
        let tree = Tree::new(1);
        let moves: Vec<Move> = legal_moves(&Board::default())[..n].to_vec();
        tree.expand(ROOT, &moves, &vec![1.0 / n as f32; n]);
        let first = tree.node(ROOT).child_range().start;
        (tree, first)
    }

    #[test]
    fn one_mated_reply_proves_a_win_by_the_fastest_mate() {
        let (tree, first) = tree_with_children(3);
        assert_eq!(proof_from_children(&tree, ROOT), Proof::Unknown);
        tree.node(first + 1).set_proof(Proof::Loss(4));
        assert_eq!(proof_from_children(&tree, ROOT), Proof::Win(5));
        tree.node(first + 2).set_proof(Proof::Loss(0));
        assert_eq!(proof_from_children(&tree, ROOT), Proof::Win(1));
    }

    #[test]
    fn a_loss_needs_every_move_to_lose_and_counts_the_longest_defence() {
        let (tree, first) = tree_with_children(3);
        tree.node(first).set_proof(Proof::Win(1));
        tree.node(first + 1).set_proof(Proof::Win(5));
        assert_eq!(proof_from_children(&tree, ROOT), Proof::Unknown);
        tree.node(first + 2).set_proof(Proof::Draw);
        assert_eq!(proof_from_children(&tree, ROOT), Proof::Unknown);
        tree.node(first + 2).set_proof(Proof::Win(3));
        assert_eq!(proof_from_children(&tree, ROOT), Proof::Loss(6));
    }
}
