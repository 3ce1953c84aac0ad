//! A short alpha-beta search of one position, for the tree search's leaves
//! (`MCTS_LEAF_DEPTH`): the value net after a few plies of full-width search sees the
//! tactics a static evaluation misses, at the price of fewer playouts.

use super::*;

impl SearchThread<'_> {
    /// The score of `board` for its side to move after iterative deepening to `depth`
    /// (0: the quiescence search alone). `hashes` holds the game and the path to `board`, `board`'s hash
    /// last (repetitions count as in the main search); `last_move` is the move that led
    /// here (continuation history, and null-move pruning needs a real move before it).
    /// Never cut short: the caller's stop flags are not this search's, and a shallow
    /// search ends within a few milliseconds.
    pub fn leaf_score(
        &mut self,
        board: &Board,
        hashes: &[u64],
        last_move: ContKey,
        depth: i32,
    ) -> i32 {
        debug_assert_eq!(hashes.last(), Some(&board.hash()));
        self.hashes.clear();
        self.hashes.extend_from_slice(hashes);
        self.eval.reset(board);
        // Never stopped: `should_stop` only looks at the limits once an iteration of a
        // root search completed, which a leaf search never counts.
        self.stopped = false;
        self.completed_depth = 0;
        self.stack[0] = StackEntry {
            cont: last_move,
            ..StackEntry::default()
        };
        self.stack[1] = StackEntry::default();
        // Searched as ply 1: ply 0 is the root of a game search (searchmoves, MultiPV).
        if depth <= 0 {
            return self.qsearch(board, -INFINITY, INFINITY, 1);
        }
        let mut score = 0;
        for d in 1..=depth {
            score = self.negamax(board, d, -INFINITY, INFINITY, 1);
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::parse_fen;
    use crate::search::TablebaseOptions;

    /// `leaf_score` of `fen` by a fresh thread, with the static evaluation beside it.
    fn leaf_score(fen: &str, depth: i32) -> (i32, i32) {
        let board = parse_fen(fen).unwrap();
        let tt = TranspositionTable::new(1);
        let control = SearchControl::default();
        let limits = SearchLimits::default();
        let nodes = [AtomicU64::new(0)];
        let shared = Shared {
            tt: &tt,
            control: &control,
            finished: AtomicBool::new(false),
            limits: &limits,
            nodes: &nodes,
            multipv: 1,
            root_moves: &[],
            tb: TablebaseLimits::new(&TablebaseOptions::default()),
            tb_hits: AtomicU64::new(0),
            root_tb: None,
            policy: None,
        };
        let mut history = History::default();
        let pos = Position::new(board.clone());
        let time = TimeManager::new(&limits, board.side_to_move(), 0);
        let mut thread = SearchThread::new(0, &shared, &mut history, &pos, time);
        let score = thread.leaf_score(&board, &[board.hash()], None, depth);
        let mut eval = Evaluator::new();
        eval.reset(&board);
        (score, eval.evaluate(&board))
    }

    #[test]
    fn a_leaf_search_sees_what_its_depth_reaches() {
        // A quiet mate in one (Ra8#): one ply finds it, quiescence alone cannot.
        let back_rank = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
        assert_eq!(leaf_score(back_rank, 1).0, MATE - 2);
        assert!(leaf_score(back_rank, 0).0 < DECISIVE);
        // A hanging queen: quiescence takes it.
        let hanging = "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1";
        let (resolved, raw) = leaf_score(hanging, 0);
        assert!(raw < -400 && resolved > 0, "{raw} {resolved}");
        // The queen can be won only by a skewer two plies deep (1. Rxa8+ Qxa8 2. Rh8+;
        // taking on d5 at once loses both rooks to ...Rxa1+ and ...Rxh1).
        let skewer = "r3k3/8/8/3q4/4P3/8/8/R3K2R w - - 0 1";
        let (quiescence, raw) = leaf_score(skewer, 0);
        assert!(quiescence < 0, "{raw} {quiescence}");
        assert!(leaf_score(skewer, 2).0 > 500);
        // Deeper searches agree on the mate.
        assert_eq!(leaf_score(back_rank, 3).0, MATE - 2);
    }
}
