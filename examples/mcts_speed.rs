//! Measures the MCTS mode (docs/mcts.md): playouts per second on 1 and 2 threads for
//! each way of judging a leaf (the value net alone, after the tree search's own capture
//! resolution, after alpha-beta's quiescence search, after a one-ply alpha-beta search),
//! what pruning a full tree costs, and the playouts each needs to prove the mates of
//! tests/mcts.rs.
//!
//!     cargo run --release --example mcts_speed [speed|pruning|tactics|mates]...
//!
//! (no argument: all four parts).

use std::time::Instant;

#[path = "common/mates.rs"]
mod mates;
use mates::MATES;

use rookery::chess::{parse_fen, Position};
use rookery::search::{score_to_uci, SearchLimits, SearchMode, SearchOptions, Searcher, Silent};

const SPEED_FENS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
];

/// Tactical positions (four from Win At Chess, two openings); the reference move is
/// alpha-beta's at depth 14, printed beside MCTS's.
const TACTICS: [&str; 6] = [
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
    "rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3",
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR b KQkq - 3 3",
];

/// The ways to judge a leaf: a name, the alpha-beta leaf depth (negative: none) and the
/// plies of capture resolution without it.
const LEAVES: [(&str, i32, usize); 4] = [
    ("value net", -1, 0),
    ("capture plies 4", -1, 4),
    ("quiescence", 0, 0),
    ("depth 1", 1, 0),
];

fn searcher(threads: usize, (_, leaf_depth, capture_plies): (&str, i32, usize)) -> Searcher {
    let mut s = Searcher::new(256, threads);
    s.set_mode(SearchMode::Mcts).expect("memory");
    let m = s.mcts_mut().expect("MCTS mode");
    m.leaf_depth = Some(leaf_depth);
    m.capture_plies = capture_plies;
    s
}

fn search(s: &mut Searcher, fen: &str, playouts: u64) -> (rookery::search::SearchResult, f64) {
    s.clear();
    let limits = SearchLimits {
        nodes: Some(playouts),
        ..Default::default()
    };
    let pos = Position::new(parse_fen(fen).unwrap());
    let start = Instant::now();
    let result = s.search(&pos, &limits, &SearchOptions::default(), &Silent);
    (result, start.elapsed().as_secs_f64())
}

fn main() {
    let parts: Vec<String> = std::env::args().skip(1).collect();
    let wanted = |part: &str| parts.is_empty() || parts.iter().any(|p| p == part);
    if wanted("speed") {
        speed();
    }
    if wanted("pruning") {
        pruning();
    }
    if wanted("tactics") {
        tactics();
    }
    if wanted("mates") {
        mates();
    }
}

fn speed() {
    println!("playouts/s, go nodes 200000 from a fresh tree");
    for leaf in LEAVES {
        for threads in [1, 2] {
            let mut s = searcher(threads, leaf);
            let (mut total, mut secs) = (0, 0.0);
            for fen in SPEED_FENS {
                let (result, t) = search(&mut s, fen, 200_000);
                total += result.nodes;
                secs += t;
                print!(" {:.0}", result.nodes as f64 / t);
            }
            println!(
                "  | {}, threads {threads}: {:.0} playouts/s overall",
                leaf.0,
                total as f64 / secs
            );
        }
    }
}

fn pruning() {
    println!("pruning: go nodes 200000 with the default leaves, 1 thread, in a 16 MB tree (pruned");
    println!("whenever full) and in a 256 MB one (never full), alternating, median of 3");
    for fen in SPEED_FENS {
        let mut rates = [Vec::new(), Vec::new()];
        let mut prunes = 0;
        for _ in 0..3 {
            for (k, megabytes) in [16, 256].into_iter().enumerate() {
                // The engine's own settings: only the tree's size differs.
                let mut s = Searcher::new(megabytes, 1);
                s.set_mode(SearchMode::Mcts).expect("memory");
                let (result, t) = search(&mut s, fen, 200_000);
                rates[k].push(result.nodes as f64 / t);
                if megabytes == 16 {
                    prunes = s.mcts().expect("MCTS mode").prunes();
                }
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (small, large) = (median(&mut rates[0]), median(&mut rates[1]));
        println!(
            "  {fen}: 16 MB {small:.0}/s ({prunes} prunes), 256 MB {large:.0}/s, ratio {:.3}",
            small / large
        );
    }
}

fn tactics() {
    println!("tactics: MCTS (20k playouts) against alpha-beta depth 14");
    for fen in TACTICS {
        let pos = Position::new(parse_fen(fen).unwrap());
        let reference = Searcher::new(64, 1)
            .search(
                &pos,
                &SearchLimits::depth(14),
                &SearchOptions::default(),
                &Silent,
            )
            .best_move;
        let text = |m: Option<cozy_chess::Move>| {
            m.map_or("-".to_string(), |m| {
                rookery::chess::move_to_uci(&pos.board, m, false)
            })
        };
        print!("  {fen}: alpha-beta {}", text(reference));
        for leaf in LEAVES {
            let mut s = searcher(1, leaf);
            let best = search(&mut s, fen, 20_000).0.best_move;
            print!(", {}: {}", leaf.0, text(best));
        }
        println!();
    }
}

fn mates() {
    println!("playouts to prove each mate (1 thread; fewest of 1k, 2k, 5k, ... 500k)");
    for leaf in LEAVES {
        let mut s = searcher(1, leaf);
        for (fen, mate) in MATES {
            let found = [
                1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
            ]
            .into_iter()
            .find(|&n| score_to_uci(search(&mut s, fen, n).0.score) == mate);
            println!(
                "  {}: {mate} {fen}: {}",
                leaf.0,
                found.map_or("not found".to_string(), |n| n.to_string())
            );
        }
    }
}
