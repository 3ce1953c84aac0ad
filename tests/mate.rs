//! Mate-finding through the library API: well-known mates in 1, 2 and 3 must be reported
//! as exactly `mate N` with the mating first move, from both sides.

use rookery::chess::{parse_fen, Position};
use rookery::search::{score_to_uci, SearchLimits, SearchOptions, Searcher, Silent};

/// Searches `fen` to `depth` and checks the score text and the first move.
fn assert_mate(fen: &str, depth: i32, mate: &str, first: &str) {
    let board = parse_fen(fen).unwrap();
    let mut searcher = Searcher::new(16, 1);
    let result = searcher.search(
        &Position::new(board.clone()),
        &SearchLimits::depth(depth),
        &SearchOptions::default(),
        &Silent,
    );
    let best = result.best_move.expect("a move");
    assert_eq!(score_to_uci(result.score), mate, "{fen}");
    assert_eq!(
        rookery::chess::move_to_uci(&board, best, false),
        first,
        "{fen}"
    );
}

#[test]
fn mate_in_one() {
    // Back-rank mate: 1. Ra8#.
    assert_mate("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 4, "mate 1", "a1a8");
    // Fool's mate for Black: 2... Qh4#.
    assert_mate(
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
        4,
        "mate 1",
        "d8h4",
    );
    // Scholar's mate: 4. Qxf7#.
    assert_mate(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        4,
        "mate 1",
        "h5f7",
    );
}

#[test]
fn mate_in_two() {
    // Legal's pattern: 1. Nf6+ gxf6 2. Bxf7#.
    assert_mate(
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
        6,
        "mate 2",
        "d5f6",
    );
    // Black: 1... Rg1+ 2. Kxg1 Rxf1#  (the h3 bishop covers g2, the c5 bishop g1).
    assert_mate(
        "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
        6,
        "mate 2",
        "g2g1",
    );
}

#[test]
fn mate_in_three() {
    // Depths leave headroom: quiet mating checks near the leaves are subject to futility
    // and late-move pruning, so the shortest mate can surface a few plies late (the
    // b1g6 line is reported as mate 4 up to depth 10, mate 3 from depth 11).
    // 1. Ra6+ f6 2. Bxf6+ Rg7 3. Rxa8#.
    assert_mate("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 8, "mate 3", "f6a6");
    // Black: 1... Qg6+ 2. Kg4 Qf5+ 3. Kh5 Qh3#  (the king is trapped on the h-file).
    assert_mate(
        "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1",
        12,
        "mate 3",
        "b1g6",
    );
    // The king hunt: 1... Bc5+ 2. Kxc5 Qb6+ 3. Kd5 Qd6#.
    assert_mate(
        "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1",
        12,
        "mate 3",
        "f8c5",
    );
}

#[test]
fn being_mated_is_reported_negative() {
    // White to move after 1... Qg6+ from the position above: mated in 2 at most.
    let board = parse_fen("2r3k1/p4p2/3Rp1qp/1p2P1pK/8/1P4P1/P3Q2P/8 w - - 1 2").unwrap();
    let mut searcher = Searcher::new(16, 1);
    let result = searcher.search(
        &Position::new(board),
        &SearchLimits::depth(8),
        &SearchOptions::default(),
        &Silent,
    );
    assert!(
        score_to_uci(result.score).starts_with("mate -"),
        "{}",
        result.score
    );
}

#[test]
fn mate_beats_the_fifty_move_rule() {
    // With the halfmove clock at 99, 1. Ra8# makes it 100: the mate counts (FIDE 9.3),
    // it is not a fifty-move draw.
    assert_mate("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80", 6, "mate 1", "a1a8");
}
