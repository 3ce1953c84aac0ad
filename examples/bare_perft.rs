//! Bare cozy-chess perft with bulk counting at the last ply (the loop of the cozy-chess
//! README / `examples/perft.rs`), as the speed baseline for `rookery perft`.
//!
//! Usage: `cargo run --release --example bare_perft -- <depth> [FEN]`
//! Prints `Nodes searched: N` and `Time: S s, NPS nps`, like `rookery perft`.

use std::time::Instant;

use cozy_chess::Board;

fn perft(board: &Board, depth: u32) -> u64 {
    let mut nodes = 0;
    match depth {
        0 => nodes = 1,
        1 => {
            board.generate_moves(|moves| {
                nodes += moves.len() as u64;
                false
            });
        }
        _ => {
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    nodes += perft(&child, depth - 1);
                }
                false
            });
        }
    }
    nodes
}

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = match args.next().map(|d| d.parse()) {
        Some(Ok(d)) => d,
        _ => {
            eprintln!("usage: bare_perft <depth> [FEN]");
            std::process::exit(2);
        }
    };
    let fen: Vec<String> = args.collect();
    let board = if fen.is_empty() {
        Board::default()
    } else {
        let fen = fen.join(" ");
        match Board::from_fen(&fen, false).or_else(|_| Board::from_fen(&fen, true)) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("invalid FEN '{fen}': {e:?}");
                std::process::exit(2);
            }
        }
    };
    let start = Instant::now();
    let nodes = perft(&board, depth);
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    println!("Nodes searched: {nodes}");
    println!("Time: {secs:.3} s, {:.0} nps", nodes as f64 / secs);
}
