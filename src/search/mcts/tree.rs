//! The search tree: one preallocated arena of fixed-size nodes, sized from `Hash`.
//!
//! A node's children are one contiguous run of the arena (Monty's layout: no edge
//! objects). Every field is an atomic so that search threads share the tree without
//! locks: statistics are added with `fetch_add`, and a node's children are written by
//! the one thread that wins its expansion flag, then published with a release store.
//! When the arena is full, expansion fails and the playout backs up the leaf's mean
//! value instead (it never aborts) until the search prunes the tree: the most visited
//! part is kept and slid to the front of the arena, the rest freed (a compacting
//! collection). Reusing a subtree for the next move slides it to the front the same way.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::*};

use cozy_chess::{Move, Piece, Square};

/// Values are summed in fixed point: 1.0 = `VALUE_ONE` (exact sums, `fetch_add` only).
pub const VALUE_ONE: f64 = (1u64 << 24) as f64;

/// Expansion state of a node.
const UNEXPANDED: u8 = 0;
const EXPANDING: u8 = 1;
const EXPANDED: u8 = 2;

/// What is known for certain about a node, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    Unknown,
    /// Stalemate, repetition, fifty moves, insufficient material, or a tablebase draw.
    Draw,
    /// Mated, or every move leads to a position where the opponent mates; `plies` to mate.
    Loss(u8),
    /// Some move leads to a position where the opponent is mated in `plies - 1`.
    Win(u8),
    /// The tables say the side to move wins (or loses): exact value, not a mate.
    TablebaseWin,
    TablebaseLoss,
}

impl Proof {
    fn encode(self) -> (u8, u8) {
        match self {
            Proof::Unknown => (0, 0),
            Proof::Draw => (1, 0),
            Proof::Loss(d) => (2, d),
            Proof::Win(d) => (3, d),
            Proof::TablebaseWin => (4, 0),
            Proof::TablebaseLoss => (5, 0),
        }
    }

    fn decode(kind: u8, plies: u8) -> Proof {
        match kind {
            1 => Proof::Draw,
            2 => Proof::Loss(plies),
            3 => Proof::Win(plies),
            4 => Proof::TablebaseWin,
            5 => Proof::TablebaseLoss,
            _ => Proof::Unknown,
        }
    }

    /// Whether a playout ends here: the game is over or the tables know the result.
    /// Proven mates further away are walked through, to look for shorter ones.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Proof::Draw | Proof::Loss(0) | Proof::TablebaseWin | Proof::TablebaseLoss
        )
    }

    /// The exact result for the side to move, when the node's value is known.
    pub fn value(self) -> Option<f64> {
        match self {
            Proof::Unknown => None,
            Proof::Draw => Some(0.5),
            Proof::Loss(_) | Proof::TablebaseLoss => Some(0.0),
            Proof::Win(_) | Proof::TablebaseWin => Some(1.0),
        }
    }
}

/// One tree node (32 bytes). `value_sum` is from the view of the side that played the
/// move into the node (the parent's side to move), so a parent reads its children's
/// means directly.
#[derive(Default)]
pub struct Node {
    first_child: AtomicU32,
    mv: AtomicU16,
    /// The prior probability in 1/65535ths.
    prior: AtomicU16,
    state: AtomicU8,
    children: AtomicU8,
    proof_kind: AtomicU8,
    proof_plies: AtomicU8,
    visits: AtomicU32,
    /// Playouts below this node still on their way down (virtual loss).
    in_flight: AtomicU32,
    value_sum: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// Packs a move into 15 bits: from, to, promotion piece (0 = none).
pub fn pack_move(mv: Move) -> u16 {
    let promo = mv.promotion.map_or(0, |p| p as u16 + 1);
    mv.from as u16 | (mv.to as u16) << 6 | promo << 12
}

pub fn unpack_move(bits: u16) -> Move {
    Move {
        from: Square::index((bits & 63) as usize),
        to: Square::index((bits >> 6 & 63) as usize),
        promotion: match bits >> 12 {
            0 => None,
            p => Some(Piece::index(p as usize - 1)),
        },
    }
}

impl Node {
    fn reset(&self, mv: u16, prior: u16) {
        self.first_child.store(0, Relaxed);
        self.mv.store(mv, Relaxed);
        self.prior.store(prior, Relaxed);
        self.state.store(UNEXPANDED, Relaxed);
        self.children.store(0, Relaxed);
        self.proof_kind.store(0, Relaxed);
        self.proof_plies.store(0, Relaxed);
        self.visits.store(0, Relaxed);
        self.in_flight.store(0, Relaxed);
        self.value_sum.store(0, Relaxed);
    }

    fn copy_from(&self, other: &Node) {
        self.first_child
            .store(other.first_child.load(Relaxed), Relaxed);
        self.mv.store(other.mv.load(Relaxed), Relaxed);
        self.prior.store(other.prior.load(Relaxed), Relaxed);
        self.state.store(other.state.load(Relaxed), Relaxed);
        self.children.store(other.children.load(Relaxed), Relaxed);
        self.proof_kind
            .store(other.proof_kind.load(Relaxed), Relaxed);
        self.proof_plies
            .store(other.proof_plies.load(Relaxed), Relaxed);
        self.visits.store(other.visits.load(Relaxed), Relaxed);
        self.in_flight.store(0, Relaxed);
        self.value_sum.store(other.value_sum.load(Relaxed), Relaxed);
    }

    /// Makes an expanded node a leaf again (its children were freed).
    fn forget_children(&self) {
        self.first_child.store(0, Relaxed);
        self.children.store(0, Relaxed);
        self.state.store(UNEXPANDED, Release);
    }

    pub fn mv(&self) -> Move {
        unpack_move(self.mv.load(Relaxed))
    }

    pub fn prior(&self) -> f32 {
        self.prior.load(Relaxed) as f32 / u16::MAX as f32
    }

    /// Replaces the prior (root noise); not to be called during a search.
    pub fn set_prior(&self, prior: f32) {
        let bits = (prior.clamp(0.0, 1.0) * u16::MAX as f32).round() as u16;
        self.prior.store(bits, Relaxed);
    }

    pub fn visits(&self) -> u32 {
        self.visits.load(Relaxed)
    }

    pub fn in_flight(&self) -> u32 {
        self.in_flight.load(Relaxed)
    }

    /// Sum of backed-up values (parent's side to move's view), in units of 1.0.
    pub fn value_sum(&self) -> f64 {
        self.value_sum.load(Relaxed) as f64 / VALUE_ONE
    }

    /// Mean value for the parent's side to move; `None` before the first visit.
    pub fn q(&self) -> Option<f64> {
        let n = self.visits();
        (n > 0).then(|| self.value_sum() / n as f64)
    }

    pub fn proof(&self) -> Proof {
        Proof::decode(
            self.proof_kind.load(Relaxed),
            self.proof_plies.load(Relaxed),
        )
    }

    pub fn set_proof(&self, proof: Proof) {
        let (kind, plies) = proof.encode();
        self.proof_plies.store(plies, Relaxed);
        self.proof_kind.store(kind, Relaxed);
    }

    pub fn is_expanded(&self) -> bool {
        self.state.load(Acquire) == EXPANDED
    }

    /// The arena indices of the children (empty until expanded).
    pub fn child_range(&self) -> std::ops::Range<usize> {
        if !self.is_expanded() {
            return 0..0;
        }
        let first = self.first_child.load(Relaxed) as usize;
        first..first + self.children.load(Relaxed) as usize
    }

    pub fn add_in_flight(&self) {
        self.in_flight.fetch_add(1, Relaxed);
    }

    /// Ends one playout through this node, which brought back `value` for the parent's
    /// side to move.
    pub fn backup(&self, value: f64) {
        self.value_sum
            .fetch_add((value.clamp(0.0, 1.0) * VALUE_ONE) as u64, Relaxed);
        self.visits.fetch_add(1, Relaxed);
        self.in_flight.fetch_sub(1, Relaxed);
    }
}

/// What [`Tree::expand`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Expansion {
    Done,
    /// The arena has no room for the children.
    Full,
}

pub struct Tree {
    nodes: Vec<Node>,
    /// Slots handed out: every node below it is live (a failed expansion takes none).
    used: AtomicU64,
}

/// The most legal moves a chess position has.
const MAX_CHILDREN: usize = 218;

/// The root always sits at index 0.
pub const ROOT: usize = 0;

impl Tree {
    /// A tree in `megabytes` of memory (at least room for one full expansion); an error
    /// when the memory cannot be had.
    pub fn try_new(megabytes: usize) -> Result<Self, String> {
        let capacity = ((megabytes.max(1) << 20) / std::mem::size_of::<Node>()).max(256);
        let mut nodes = Vec::new();
        nodes
            .try_reserve_exact(capacity)
            .map_err(|e| format!("cannot allocate a {megabytes} MB tree: {e}"))?;
        nodes.resize_with(capacity, Node::default);
        let tree = Tree {
            nodes,
            used: AtomicU64::new(1),
        };
        tree.clear();
        Ok(tree)
    }

    #[cfg(test)]
    pub fn new(megabytes: usize) -> Self {
        Self::try_new(megabytes).expect("a small test tree")
    }

    pub fn capacity(&self) -> usize {
        self.nodes.len()
    }

    pub fn used(&self) -> usize {
        self.used.load(Relaxed) as usize
    }

    /// Whether any position's children still fit (checked before generating them).
    pub fn has_room(&self) -> bool {
        self.used.load(Relaxed) as usize + MAX_CHILDREN <= self.capacity()
    }

    /// Per mille of the arena in use (`info hashfull`).
    pub fn hashfull(&self) -> usize {
        self.used() * 1000 / self.capacity()
    }

    /// Forget everything: a fresh, unvisited root.
    pub fn clear(&self) {
        self.nodes[ROOT].reset(0, 0);
        self.used.store(1, Relaxed);
    }

    pub fn node(&self, index: usize) -> &Node {
        &self.nodes[index]
    }

    /// Creates the children of `index` from `moves` and their `priors` (which sum to
    /// about 1), unless another thread is doing it: then waits for it. Returns
    /// `Expansion::Full` when the arena has no room (the node stays a leaf).
    pub fn expand(&self, index: usize, moves: &[Move], priors: &[f32]) -> Expansion {
        let node = &self.nodes[index];
        let mut spins = 0u32;
        loop {
            match node
                .state
                .compare_exchange(UNEXPANDED, EXPANDING, Acquire, Acquire)
            {
                Ok(_) => break,
                Err(EXPANDED) => return Expansion::Done,
                // Another thread expands it: microseconds; wait rather than duplicate,
                // and give the core away if that thread was preempted.
                Err(_) => {
                    spins += 1;
                    if spins < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                }
            }
        }
        let n = moves.len();
        let capacity = self.capacity() as u64;
        let Ok(start) = self.used.fetch_update(Relaxed, Relaxed, |used| {
            (n > 0 && used + n as u64 <= capacity).then_some(used + n as u64)
        }) else {
            node.state.store(UNEXPANDED, Release);
            return Expansion::Full;
        };
        let start = start as usize;
        for (i, (&mv, &p)) in moves.iter().zip(priors).enumerate() {
            let prior = (p.clamp(0.0, 1.0) * u16::MAX as f32).round() as u16;
            self.nodes[start + i].reset(pack_move(mv), prior);
        }
        node.first_child.store(start as u32, Relaxed);
        node.children.store(n as u8, Relaxed);
        node.state.store(EXPANDED, Release);
        Expansion::Done
    }

    /// The child of `index` reached by `mv`, if `index` is expanded and has it.
    pub fn child_by_move(&self, index: usize, mv: Move) -> Option<usize> {
        let bits = pack_move(mv);
        self.nodes[index]
            .child_range()
            .find(|&c| self.nodes[c].mv.load(Relaxed) == bits)
    }

    /// Makes `new_root` (a descendant) the root: its subtree slides to the front of the
    /// arena, keeping every count, and the rest is freed. Not to be called during a search.
    pub fn promote(&mut self, new_root: usize) {
        if new_root == ROOT {
            return;
        }
        let mut runs = Vec::new();
        let mut stack = vec![new_root];
        while let Some(i) = stack.pop() {
            let range = self.nodes[i].child_range();
            if !range.is_empty() {
                runs.push((range.start, range.len()));
                stack.extend(range);
            }
        }
        self.nodes[ROOT].copy_from(&self.nodes[new_root]);
        self.compact(runs);
    }

    /// Frees room in a full tree in the middle of a search, while no playout runs: the
    /// children of the most visited nodes are kept, up to `share` of the arena, and every
    /// other node becomes a leaf again with its own visits, value and proof (a later
    /// visit expands it afresh). Returns whether a position's children fit again.
    pub fn prune(&self, share: f64) -> bool {
        let budget = (self.capacity() as f64 * share.clamp(0.0, 1.0)) as usize;
        let root_run = self.nodes[ROOT].child_range();
        // Every node of the arena's used part is live: one pass in arena order finds
        // each expanded node below the root, with its visits and its children's run.
        let mut expanded: Vec<(u32, usize, usize)> = self.nodes[1..self.used()]
            .iter()
            .filter(|node| node.is_expanded())
            .map(|node| {
                let run = node.child_range();
                (node.visits(), run.start, run.len())
            })
            .collect();
        // A parent has more visits than any child (its own first visit came before
        // theirs), so "at least `min_visits`" keeps whole paths from the root. Nodes of
        // equal visits are kept together or not at all.
        expanded.sort_unstable_by_key(|&(visits, _, _)| std::cmp::Reverse(visits));
        let mut kept = 1 + root_run.len();
        let mut runs = vec![(root_run.start, root_run.len())];
        for group in expanded.chunk_by(|a, b| a.0 == b.0) {
            let room: usize = group.iter().map(|&(_, _, len)| len).sum();
            if kept + room > budget {
                break;
            }
            kept += room;
            runs.extend(group.iter().map(|&(_, start, len)| (start, len)));
        }
        self.compact(runs);
        self.has_room()
    }

    /// Slides the child `runs` (first slot, length) to the front of the arena behind the
    /// root, and makes every expanded node whose run is not among them a leaf again.
    /// Every count is kept.
    fn compact(&self, mut runs: Vec<(usize, usize)>) {
        // Each run was allocated after its parent, so after the root; sliding them down
        // in arena order never overwrites one not yet moved.
        runs.sort_unstable();
        let nodes = &self.nodes;
        let mut new_starts = Vec::with_capacity(runs.len());
        let mut next = 1;
        for &(start, len) in &runs {
            new_starts.push(next as u32);
            for k in 0..len {
                nodes[next + k].copy_from(&nodes[start + k]);
            }
            next += len;
        }
        for node in &nodes[..next] {
            if node.is_expanded() {
                let old = node.first_child.load(Relaxed) as usize;
                match runs.binary_search_by_key(&old, |&(start, _)| start) {
                    Ok(k) => node.first_child.store(new_starts[k], Relaxed),
                    Err(_) => node.forget_children(),
                }
            }
        }
        self.used.store(next as u64, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::legal_moves;
    use cozy_chess::Board;

    #[test]
    fn moves_survive_packing() {
        for fen in [
            "4k3/1P6/8/8/8/8/8/4K2R w K - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            let board = crate::chess::parse_fen(fen).unwrap();
            for mv in legal_moves(&board) {
                assert_eq!(unpack_move(pack_move(mv)), mv);
            }
        }
    }

    #[test]
    fn a_full_arena_refuses_to_expand_and_keeps_the_node_a_leaf() {
        let tree = Tree::new(1);
        let moves = legal_moves(&Board::default());
        let priors = vec![1.0 / 20.0; 20];
        let mut expanded = 0;
        while tree.expand(ROOT + expanded, &moves, &priors) == Expansion::Done {
            expanded += 1;
        }
        assert!(tree.used() + 20 > tree.capacity() && expanded > 1000);
        assert!(!tree.node(ROOT + expanded).is_expanded());
    }

    /// A root with every move of the start position; `visits[i]` playouts ending in
    /// child i (each a win for the root's side).
    fn root_with_visits(tree: &Tree, visits: &[u32]) -> Vec<usize> {
        let moves = legal_moves(&Board::default());
        tree.expand(ROOT, &moves, &vec![0.05; moves.len()]);
        let first = tree.node(ROOT).child_range().start;
        for (i, &n) in visits.iter().enumerate() {
            for _ in 0..n {
                tree.node(first + i).add_in_flight();
                tree.node(first + i).backup(1.0);
            }
        }
        (first..first + visits.len()).collect()
    }

    #[test]
    fn pruning_keeps_the_children_of_the_most_visited_nodes_and_every_count() {
        let tree = Tree::new(1);
        let moves = legal_moves(&Board::default());
        let priors = vec![0.05; moves.len()];
        let c = root_with_visits(&tree, &[10, 6, 2]);
        // Children for the three, and for the first child's first child.
        for &i in &c {
            tree.expand(i, &moves, &priors);
        }
        let grandchild = tree.node(c[0]).child_range().start;
        for _ in 0..4 {
            tree.node(grandchild).add_in_flight();
            tree.node(grandchild).backup(0.5);
        }
        tree.expand(grandchild, &moves, &priors);
        assert_eq!(tree.used(), 1 + 5 * 20);
        // Room for the root's children and two more runs of 20: the nodes with 10 and 6
        // visits keep theirs; the 2-visit node and the 4-visit grandchild become leaves.
        let share = (1 + 3 * 20 + 5) as f64 / tree.capacity() as f64;
        assert!(tree.prune(share));
        assert_eq!(tree.used(), 1 + 3 * 20);
        let kids: Vec<usize> = tree.node(ROOT).child_range().collect();
        let count = |i: usize| (tree.node(i).visits(), tree.node(i).child_range().len());
        assert_eq!(
            [count(kids[0]), count(kids[1]), count(kids[2])],
            [(10, 20), (6, 20), (2, 0)]
        );
        let g = tree.node(kids[0]).child_range().start;
        assert_eq!(
            (tree.node(g).visits(), tree.node(g).is_expanded()),
            (4, false)
        );
        assert!((tree.node(g).q().unwrap() - 0.5).abs() < 1e-6);
        assert_eq!(tree.node(g).mv(), moves[0]);
        // A leaf again: it can be expanded anew.
        assert_eq!(tree.expand(kids[2], &moves, &priors), Expansion::Done);
    }

    #[test]
    fn pruning_keeps_nodes_of_equal_visits_together_or_not_at_all() {
        let tree = Tree::new(1);
        let moves = legal_moves(&Board::default());
        let c = root_with_visits(&tree, &[5, 5]);
        for &i in &c {
            tree.expand(i, &moves, &vec![0.05; moves.len()]);
        }
        // Room for one of the two runs only: neither is kept.
        let share = (1 + 20 + 30) as f64 / tree.capacity() as f64;
        assert!(tree.prune(share));
        assert_eq!(tree.used(), 1 + 20);
        assert!(c.iter().all(|&i| !tree.node(i).is_expanded()));
    }

    #[test]
    fn promotion_keeps_the_subtree_and_frees_the_rest() {
        let mut tree = Tree::new(1);
        let board = Board::default();
        let moves = legal_moves(&board);
        let priors = vec![0.05; moves.len()];
        tree.expand(ROOT, &moves, &priors);
        // Two children with subtrees; the second one's survives.
        let a = tree.node(ROOT).child_range().start;
        let b = a + 5;
        tree.expand(a, &moves, &priors);
        tree.expand(b, &moves, &priors);
        let grandchild = tree.node(b).child_range().start + 3;
        tree.expand(grandchild, &moves, &priors);
        for (i, v) in [(b, 7.0), (grandchild, 3.0)] {
            for _ in 0..v as u32 {
                tree.node(i).add_in_flight();
                tree.node(i).backup(0.25);
            }
        }
        let b_move = tree.node(b).mv();
        tree.promote(b);
        assert_eq!(tree.used(), 1 + 2 * moves.len());
        let root = tree.node(ROOT);
        assert_eq!((root.visits(), root.mv()), (7, b_move));
        let g = root.child_range().start + 3;
        assert_eq!(tree.node(g).visits(), 3);
        assert_eq!(tree.node(g).child_range().len(), moves.len());
        assert!((tree.node(g).q().unwrap() - 0.25).abs() < 1e-6);
    }
}
