//! `bench`: a fixed-depth search of fixed, varied positions with a fresh hash for each.
//! Its node count is the engine's signature (it changes only when search behaviour
//! changes); its nps is the speed figure we quote. The last line is
//! `<nodes> nodes <nps> nps`, the format OpenBench reads. `bench --eval` times the
//! evaluation kernels instead ([`eval`]), `bench --policy` a policy net ([`policy`]).

pub mod eval;
pub mod policy;

use std::time::Instant;

use crate::chess::{parse_fen, Position};
use crate::search::{SearchLimits, SearchOptions, Searcher, Silent};

pub const DEFAULT_DEPTH: i32 = 11;

/// Hash size of `bench` (MB); the signature holds for this size only.
pub const HASH_MB: usize = 16;

/// Nodes `bench` searches at [`DEFAULT_DEPTH`] (one thread, [`HASH_MB`]): the signature that
/// `tests/bench_signature.rs` holds the search to. Update it, and quote it as `Bench: N`,
/// in every commit that changes search behaviour.
pub const SIGNATURE: u64 = 1477202;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Search depth per position.
    pub depth: Option<i32>,
    /// Hash size in MB.
    #[arg(long, default_value_t = HASH_MB)]
    pub hash: usize,
    /// Search threads (node counts are only deterministic with 1).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Search with this net (safetensors) instead of the embedded one, e.g. to compare the
    /// speed of nets of different widths; the node count then differs from `Bench:`.
    #[arg(long)]
    pub net: Option<String>,
    /// Time the evaluation instead of searching: ns per push+evaluate+pop with every
    /// kernel version the CPU runs, the head's stages, and candle's forward pass.
    #[arg(long, group = "timing", conflicts_with_all = ["depth", "hash", "threads"])]
    pub eval: bool,
    /// Time a self-play policy net instead of searching (the embedded MCTS prior, or
    /// this file): ns per position for its position vector, its legal moves' logits and
    /// the softmax over them.
    #[arg(long, group = "timing", num_args = 0..=1, value_name = "FILE", conflicts_with_all = ["depth", "hash", "threads", "net"])]
    pub policy: Option<Option<String>>,
    /// Seed of the random playouts `--eval` and `--policy` time.
    #[arg(long, default_value_t = 1, requires = "timing")]
    pub seed: u64,
}

/// Openings, middlegames with both kings castled or not, tactical positions and endgames
/// (pawn races, rook endings, minor-piece endings), a few with promotions and checks.
pub const BENCH_FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp1ppppp/5n2/2p5/2P5/5N2/PP1PPPPP/RNBQKB1R w KQkq - 2 3",
    "r1bqk2r/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQkq - 1 7",
    "r2q1rk1/pp2bppp/2n1bn2/3p4/3P4/2NBBN2/PP3PPP/R2Q1RK1 w - - 5 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2N2B2/PPPQ2PP/R4R1K w - - 0 15",
    "2rq1rk1/pb2bppp/1p2pn2/2p5/2PP4/1PNBPN2/P4PPP/R2Q1RK1 w - - 1 12",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "r2qr1k1/1p1nbppp/p2p1n2/2pP4/P3P3/2N1BB2/1P3PPP/R2Q1RK1 w - - 3 15",
    "3r1rk1/p1q2ppp/2p1b3/2b1p3/4P3/2N1BQ2/PPP2PPP/3R1RK1 w - - 4 17",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/pp3ppp/2nbpn2/2pp4/2PP4/1PNBPN2/P4PPP/R1BQ1RK1 w - - 1 9",
    "2kr3r/ppp1qpp1/2n1bn1p/2b1p3/4P3/2NP1N2/PPPBBPPP/R2Q1RK1 w - - 4 11",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    "r2q1rk1/ppp2ppp/2n1bn2/2b1p3/3pP3/3P1NPP/PPP1NPB1/R1BQ1RK1 b - - 0 9",
    "1r3rk1/1pnnq1bR/p1pp2B1/P2P1p2/1PP1pP2/2B3P1/5PK1/2Q4R w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "5rk1/1pp2q1p/p1pb4/8/3P1NP1/2P5/1P1BQ1P1/5RK1 b - - 0 1",
    "r2q1k1r/pp2ppbp/2np1np1/2p5/4P1b1/2NP1NP1/PPP2PBP/R1BQR1K1 w - - 0 9",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "2r1kb1r/pp3ppp/2n1b3/1q1N2B1/1P2Q3/8/P4PPP/3RK1NR w Kk - 0 1",
    "r5k1/pp4pp/4p3/2p5/8/1P5P/P1P2PP1/4R1K1 w - - 0 1",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "8/8/1p6/1P1k4/8/2K5/8/8 w - - 0 1",
    "8/4k3/8/8/8/8/4P3/4K3 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/8/3k4/8/8/3KR3/8 w - - 0 1",
    "8/5pk1/6p1/7p/4P3/5PPP/6K1/8 b - - 0 40",
    "8/8/3bk3/8/3PK3/8/8/8 w - - 0 60",
    "5k2/8/8/8/8/8/2B5/4KN2 w - - 0 1",
    "8/6pk/8/7P/8/8/3r4/5RK1 w - - 0 50",
    "2r5/8/8/4k3/8/3R4/1K6/8 b - - 0 1",
    "8/1p3pkp/p1r3p1/3P4/1P6/P3R1P1/5P1P/6K1 w - - 0 30",
    "8/3q1pk1/6p1/8/3Q4/6P1/5PK1/8 b - - 0 45",
    "r1b1kb1r/pp1n1ppp/1q2p3/3pP3/3P4/3B1N2/PP3PPP/R1BQK2R w KQkq - 0 9",
    "rnbqk2r/ppp1ppbp/3p1np1/8/2PPP3/2N5/PP3PPP/R1BQKBNR w KQkq - 1 5",
    "r1bqr1k1/pp1nbppp/2p2n2/3p2B1/3P4/2NBP3/PPQ1NPPP/R3K2R w KQ - 6 10",
    "2q3k1/5ppp/8/8/8/8/5PPP/2Q3K1 w - - 0 1",
    "7k/P7/8/8/8/8/8/7K w - - 0 1",
    "4k3/8/8/8/8/8/pp4pp/4K3 b - - 0 1",
    "6k1/8/6K1/8/8/8/8/7R w - - 0 1",
];

/// Runs the bench and prints per-position lines, then the summary line.
/// Returns (nodes, nps).
pub fn run(depth: i32, hash_mb: usize, threads: usize) -> (u64, u64) {
    let mut searcher = Searcher::new(hash_mb, threads);
    let limits = SearchLimits::depth(depth);
    let options = SearchOptions::default();
    let mut total_nodes = 0u64;
    // Only the searches are timed: clearing the table between positions (which keeps the
    // node count independent of the order of the positions) is not search speed, and
    // Stockfish's bench does not count its `ucinewgame` clear either.
    let mut searching = std::time::Duration::ZERO;
    for (i, fen) in BENCH_FENS.iter().enumerate() {
        let Ok(board) = parse_fen(fen) else {
            eprintln!("bench position {} is invalid: {fen}", i + 1);
            continue;
        };
        searcher.clear();
        let start = Instant::now();
        let result = searcher.search(&Position::new(board), &limits, &options, &Silent);
        searching += start.elapsed();
        total_nodes += result.nodes;
        println!(
            "position {:2}/{}: {:>9} nodes  {fen}",
            i + 1,
            BENCH_FENS.len(),
            result.nodes
        );
    }
    let elapsed = searching.as_secs_f64().max(1e-6);
    let nps = (total_nodes as f64 / elapsed) as u64;
    println!("{total_nodes} nodes {nps} nps");
    (total_nodes, nps)
}

pub fn run_cli(args: &BenchArgs) -> Result<(), String> {
    if args.eval {
        return eval::run(args.net.as_deref(), args.seed);
    }
    if let Some(file) = &args.policy {
        return policy::run(file.as_deref(), args.seed);
    }
    if let Some(net) = &args.net {
        let description = crate::eval::load_eval_file(net)?;
        println!("net: {description}");
    }
    run(
        args.depth.unwrap_or(DEFAULT_DEPTH).clamp(1, 64),
        args.hash.max(1),
        args.threads.max(1),
    );
    Ok(())
}
