//! The mates of tests/mcts.rs, shared by the MCTS examples.

/// (FEN, the mate's score text).
pub const MATES: [(&str, &str); 7] = [
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "mate 1"),
    (
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "mate 1",
    ),
    (
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
        "mate 2",
    ),
    (
        "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
        "mate 2",
    ),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", "mate 3"),
    (
        "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1",
        "mate 3",
    ),
    (
        "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1",
        "mate 3",
    ),
];
