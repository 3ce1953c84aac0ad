//! The tree search through [`Searcher`]: reuse, memory bounds, forced moves and
//! determinism. All limits are playouts, never clocks.

use cozy_chess::Move;

use crate::chess::{legal_moves, parse_fen, parse_uci_move, Position};
use crate::search::{SearchLimits, SearchMode, SearchOptions, SearchResult, Searcher, Silent};

fn mcts_searcher(hash_mb: usize, threads: usize) -> Searcher {
    let mut s = Searcher::new(hash_mb, threads);
    s.set_mode(SearchMode::Mcts).expect("memory for the tree");
    s
}

fn playouts(s: &mut Searcher, pos: &Position, n: u64) -> SearchResult {
    let limits = SearchLimits {
        nodes: Some(n),
        ..Default::default()
    };
    s.search(pos, &limits, &SearchOptions::default(), &Silent)
}

fn visits(s: &Searcher) -> Vec<(Move, u32)> {
    s.mcts().expect("MCTS mode").root_child_visits()
}

const MIDDLEGAME: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

fn middlegame() -> Position {
    Position::new(parse_fen(MIDDLEGAME).unwrap())
}

#[test]
fn more_playouts_on_the_same_position_equal_one_longer_search() {
    let pos = middlegame();
    let mut split = mcts_searcher(16, 1);
    playouts(&mut split, &pos, 300);
    let second = playouts(&mut split, &pos, 200);
    let mut whole = mcts_searcher(16, 1);
    let once = playouts(&mut whole, &pos, 500);
    assert_eq!(visits(&split), visits(&whole));
    assert_eq!(second.best_move, once.best_move);
    assert_eq!(split.mcts().unwrap().root_visits(), 500);
}

#[test]
fn the_next_moves_reuse_the_subtree_with_its_visits() {
    let mut s = mcts_searcher(16, 1);
    let mut pos = middlegame();
    let first = playouts(&mut s, &pos, 2000);
    let best = first.best_move.unwrap();
    let kept = visits(&s).iter().find(|(m, _)| *m == best).unwrap().1;
    pos.play(best);
    playouts(&mut s, &pos, 100);
    assert_eq!(s.mcts().unwrap().root_visits(), kept + 100);
    // Two plies on (our move and the reply): the grandchild's visits are kept too.
    let reply = s.search(
        &pos,
        &SearchLimits {
            nodes: Some(1),
            ..Default::default()
        },
        &SearchOptions::default(),
        &Silent,
    );
    let ours = reply.best_move.unwrap();
    let grand = visits(&s).iter().find(|(m, _)| *m == ours).unwrap().1;
    let mut next = pos.clone();
    next.play(ours);
    let answer = reply.ponder_move.expect("a reply in the PV");
    let mut after_child = next.clone();
    after_child.play(answer);
    playouts(&mut s, &next, 0);
    let child_visits = visits(&s).iter().find(|(m, _)| *m == answer).unwrap().1;
    assert_eq!(s.mcts().unwrap().root_visits(), grand);
    playouts(&mut s, &after_child, 10);
    assert_eq!(s.mcts().unwrap().root_visits(), child_visits + 10);
}

#[test]
fn another_game_or_a_new_game_starts_a_fresh_tree() {
    let mut s = mcts_searcher(16, 1);
    playouts(&mut s, &middlegame(), 300);
    playouts(&mut s, &Position::default(), 50);
    assert_eq!(s.mcts().unwrap().root_visits(), 50);
    s.clear();
    playouts(&mut s, &Position::default(), 40);
    assert_eq!(s.mcts().unwrap().root_visits(), 40);
}

#[test]
fn a_one_megabyte_tree_is_pruned_and_grows_on() {
    let mut s = mcts_searcher(1, 1);
    let pos = middlegame();
    let result = playouts(&mut s, &pos, 150_000);
    assert!(legal_moves(&pos.board).contains(&result.best_move.unwrap()));
    assert_eq!(result.nodes, 150_000);
    let mcts = s.mcts().unwrap();
    assert_eq!(mcts.root_visits(), 150_000);
    assert!(mcts.prunes() >= 3, "pruned {} times", mcts.prunes());
    // Pruning frees room; it never gives back more than it keeps.
    assert!(mcts.hashfull() < 1000 && mcts.tree().used() > mcts.tree().capacity() / 4);
}

#[test]
fn two_threads_fill_and_prune_a_one_megabyte_tree_together() {
    let mut s = mcts_searcher(1, 2);
    let pos = middlegame();
    let result = playouts(&mut s, &pos, 100_000);
    assert!(legal_moves(&pos.board).contains(&result.best_move.unwrap()));
    assert_eq!(s.mcts().unwrap().root_visits(), 100_000);
    assert!(s.mcts().unwrap().prunes() >= 2);
    // No playout was lost or counted twice across the prunes.
    let sum: u32 = visits(&s).iter().map(|(_, v)| v).sum();
    assert_eq!(sum, 100_000);
}

#[test]
fn a_pruned_tree_still_proves_a_mate_in_three() {
    let pos = Position::new(parse_fen("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1").unwrap());
    let mut s = mcts_searcher(1, 1);
    let result = playouts(&mut s, &pos, 300_000);
    assert!(s.mcts().unwrap().prunes() >= 1);
    assert_eq!(crate::search::score_to_uci(result.score), "mate 3");
    assert_eq!(result.best_move, parse_uci_move(&pos.board, "f6a6"));
}

#[test]
fn a_depth_that_cannot_be_reached_ends_when_the_tree_is_full() {
    let mut s = mcts_searcher(1, 1);
    let pos = middlegame();
    let result = s.search(
        &pos,
        &SearchLimits::depth(60),
        &SearchOptions::default(),
        &Silent,
    );
    assert!(legal_moves(&pos.board).contains(&result.best_move.unwrap()));
    assert!(result.depth < 60 && s.mcts().unwrap().hashfull() > 990);
}

#[test]
fn a_single_legal_move_is_played_after_one_playout() {
    // Black's king in check from the rook, one square to go.
    let pos = Position::new(parse_fen("k7/8/1K6/8/8/8/8/R7 b - - 0 1").unwrap());
    assert_eq!(legal_moves(&pos.board).len(), 1);
    let mut s = mcts_searcher(16, 1);
    let result = playouts(&mut s, &pos, 1_000_000);
    assert_eq!(result.nodes, 1);
    assert_eq!(result.best_move, Some(legal_moves(&pos.board)[0]));
}

#[test]
fn searchmoves_restricts_the_answer() {
    let pos = middlegame();
    let only = parse_uci_move(&pos.board, "a2a3").unwrap();
    let mut s = mcts_searcher(16, 1);
    let limits = SearchLimits {
        nodes: Some(300),
        searchmoves: vec![only],
        ..Default::default()
    };
    let result = s.search(&pos, &limits, &SearchOptions::default(), &Silent);
    assert_eq!(result.best_move, Some(only));
    assert_eq!(result.lines.len(), 1);
}

#[test]
fn two_threads_share_the_tree_and_count_playouts_exactly() {
    let mut s = mcts_searcher(16, 2);
    let pos = middlegame();
    let result = playouts(&mut s, &pos, 3000);
    assert_eq!(result.nodes, 3000);
    assert_eq!(s.mcts().unwrap().root_visits(), 3000);
    let sum: u32 = visits(&s).iter().map(|(_, v)| v).sum();
    assert_eq!(sum, 3000);
}

#[test]
fn multipv_lines_are_distinct_moves_by_visits() {
    let pos = middlegame();
    let mut s = mcts_searcher(16, 1);
    let options = SearchOptions {
        multipv: 3,
        ..Default::default()
    };
    let limits = SearchLimits {
        nodes: Some(600),
        ..Default::default()
    };
    let result = s.search(&pos, &limits, &options, &Silent);
    assert_eq!(result.lines.len(), 3);
    let v = visits(&s);
    let visits_of = |m: Move| v.iter().find(|(x, _)| *x == m).unwrap().1;
    let firsts: Vec<u32> = result.lines.iter().map(|l| visits_of(l.pv[0])).collect();
    assert!(firsts.windows(2).all(|w| w[0] >= w[1]), "{firsts:?}");
    assert_eq!(result.best_move, Some(result.lines[0].pv[0]));
}

/// `s` with new leaves judged by an alpha-beta search of `depth`.
fn with_leaf_search(mut s: Searcher, depth: i32) -> Searcher {
    s.mcts_mut().expect("MCTS mode").leaf_depth = Some(depth);
    s
}

#[test]
fn leaf_searches_keep_playouts_exact_and_find_mates() {
    for depth in [0, 1, 2] {
        let pos = middlegame();
        let mut s = with_leaf_search(mcts_searcher(16, 2), depth);
        let result = playouts(&mut s, &pos, 600);
        assert_eq!(result.nodes, 600, "depth {depth}");
        assert_eq!(s.mcts().unwrap().root_visits(), 600, "depth {depth}");
        assert!(legal_moves(&pos.board).contains(&result.best_move.unwrap()));
        // Scholar's mate: Qxf7#.
        let mate = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
        let pos = Position::new(parse_fen(mate).unwrap());
        let mut s = with_leaf_search(mcts_searcher(16, 1), depth);
        let result = playouts(&mut s, &pos, 300);
        let qxf7 = parse_uci_move(&pos.board, "h5f7").unwrap();
        assert_eq!(result.best_move, Some(qxf7), "depth {depth}");
    }
}

#[test]
fn the_soft_limit_stretches_as_the_best_moves_share_falls() {
    use super::params::{MCTS_TM_SCALE_SETTLED, MCTS_TM_SCALE_UNSETTLED};
    use super::report::ranked_children;
    use super::settled_scale;
    use super::tree::{Tree, ROOT};

    let pos = middlegame();
    let moves = legal_moves(&pos.board);
    let tree = Tree::new(1);
    tree.expand(ROOT, &moves, &vec![1.0 / moves.len() as f32; moves.len()]);
    let children: Vec<usize> = tree.node(ROOT).child_range().collect();
    let (unsettled, settled) = (MCTS_TM_SCALE_UNSETTLED(), MCTS_TM_SCALE_SETTLED());
    assert!(settled < unsettled, "a settled root must stop sooner");
    // Nothing visited: as unsettled as a root can be.
    assert_eq!(settled_scale(&tree, &children), unsettled);
    let visit = |child: usize, times: usize| {
        for _ in 0..times {
            tree.node(child).add_in_flight();
            tree.node(child).backup(0.5);
        }
    };
    visit(children[3], 3);
    visit(children[7], 1);
    let ranked = ranked_children(&tree, ROOT, None);
    assert_eq!(ranked[0], children[3]);
    let three_quarters = unsettled + (settled - unsettled) * 0.75;
    assert!((settled_scale(&tree, &ranked) - three_quarters).abs() < 1e-9);
    // Every visit on one move: fully settled.
    let tree = Tree::new(1);
    tree.expand(ROOT, &moves, &vec![1.0 / moves.len() as f32; moves.len()]);
    let only = tree.node(ROOT).child_range().next().unwrap();
    tree.node(only).add_in_flight();
    tree.node(only).backup(1.0);
    let ranked = ranked_children(&tree, ROOT, None);
    assert!((settled_scale(&tree, &ranked) - settled).abs() < 1e-9);
}

#[test]
fn an_obvious_recapture_on_the_clock_stops_before_the_soft_limit() {
    // White's queen took on d5 and Black's knight takes back: every other move loses a queen.
    let pos = Position::new(
        parse_fen("rnb1kb1r/ppp2ppp/5n2/3Q4/8/8/PPPP1PPP/RNB1KBNR b KQkq - 0 5").unwrap(),
    );
    let recapture = parse_uci_move(&pos.board, "f6d5").unwrap();
    let mut s = mcts_searcher(16, 1);
    // 60 s on the clock: a soft limit of 60,000 / 25 × 60 % = 1,440 ms before scaling.
    let limits = SearchLimits {
        wtime: Some(60_000),
        btime: Some(60_000),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let result = s.search(&pos, &limits, &SearchOptions::default(), &Silent);
    let spent = start.elapsed().as_millis();
    assert_eq!(result.best_move, Some(recapture));
    assert!(
        spent < 1_440,
        "a decided move took {spent} ms of a 1,440 ms soft limit"
    );
}

#[test]
fn go_movetime_is_spent_as_asked_however_settled_the_root() {
    let pos = Position::new(
        parse_fen("rnb1kb1r/ppp2ppp/5n2/3Q4/8/8/PPPP1PPP/RNB1KBNR b KQkq - 0 5").unwrap(),
    );
    let mut s = mcts_searcher(16, 1);
    let limits = SearchLimits {
        movetime: Some(300),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    s.search(&pos, &limits, &SearchOptions::default(), &Silent);
    let spent = start.elapsed().as_millis();
    // The default move overhead comes off the budget.
    assert!(spent >= 250, "go movetime 300 stopped after {spent} ms");
}

#[test]
fn the_roots_priors_are_the_softmax_at_the_roots_temperature() {
    use crate::policy::policy_net::softmax_in_place;
    let logits = [2.0f32, 0.5, -1.0, 0.0, 3.0];
    let (inner, root) = (1.8f32, 3.0f32);
    let mut priors = logits.to_vec();
    softmax_in_place(&mut priors, inner);
    super::retemper_in_place(&mut priors, inner / root);
    let mut expected = logits.to_vec();
    softmax_in_place(&mut expected, root);
    for (p, e) in priors.iter().zip(&expected) {
        assert!((p - e).abs() < 1e-6, "{priors:?} {expected:?}");
    }
    // Power 1 changes nothing.
    let before = priors.clone();
    super::retemper_in_place(&mut priors, 1.0);
    for (p, b) in priors.iter().zip(&before) {
        assert!((p - b).abs() < 1e-6);
    }
}
