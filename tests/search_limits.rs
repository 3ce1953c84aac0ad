//! Search limits through the library API: node limits are met exactly (one thread),
//! depth limits are reached, `searchmoves` restricts the root, and a searcher can be
//! reused.

use rookery::chess::{parse_fen, Position, STARTPOS_FEN};
use rookery::search::{SearchLimits, SearchOptions, Searcher, Silent};

fn search(fen: &str, limits: SearchLimits, threads: usize) -> rookery::search::SearchResult {
    let mut searcher = Searcher::new(16, threads);
    searcher.search(
        &Position::new(parse_fen(fen).unwrap()),
        &limits,
        &SearchOptions::default(),
        &Silent,
    )
}

#[test]
fn node_limit_is_used_fully_and_not_exceeded() {
    // Nodes are counted once per thread, also between iterations: a search stops near its
    // limit, not after half of it.
    for limit in [1_000u64, 3_000, 5_000, 10_000, 30_000, 100_000] {
        let r = search(
            STARTPOS_FEN,
            SearchLimits {
                nodes: Some(limit),
                ..Default::default()
            },
            1,
        );
        assert!(r.best_move.is_some());
        assert!(
            r.nodes >= limit && r.nodes <= limit + 64,
            "limit {limit}: searched {} nodes",
            r.nodes
        );
    }
}

#[test]
fn depth_limit_is_reached() {
    for depth in [1, 4, 8] {
        let r = search(STARTPOS_FEN, SearchLimits::depth(depth), 1);
        assert_eq!(r.depth, depth);
        assert!(r.best_move.is_some());
    }
}

#[test]
fn searchmoves_and_multiple_threads() {
    let allowed: Vec<cozy_chess::Move> = vec!["g2g4".parse().unwrap(), "h2h3".parse().unwrap()];
    for threads in [1, 2] {
        let r = search(
            STARTPOS_FEN,
            SearchLimits {
                depth: Some(6),
                searchmoves: allowed.clone(),
                ..Default::default()
            },
            threads,
        );
        assert!(allowed.contains(&r.best_move.unwrap()), "threads {threads}");
    }
}

/// A searcher can be reused without resetting anything: every search reaches its depth
/// and a node-limited search after it uses its nodes (no search leaves the stop flag
/// raised for the next one).
#[test]
fn a_searcher_is_reusable() {
    for threads in [1, 2] {
        let mut searcher = Searcher::new(16, threads);
        let pos = Position::new(parse_fen(STARTPOS_FEN).unwrap());
        for round in 0..3 {
            let r = searcher.search(
                &pos,
                &SearchLimits::depth(6),
                &SearchOptions::default(),
                &Silent,
            );
            assert_eq!(r.depth, 6, "threads {threads}, search {round}");
        }
        let limits = SearchLimits {
            nodes: Some(20_000),
            ..Default::default()
        };
        let r = searcher.search(&pos, &limits, &SearchOptions::default(), &Silent);
        assert!(r.nodes >= 20_000, "threads {threads}: {} nodes", r.nodes);
    }
}
