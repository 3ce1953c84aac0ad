//! Perft: counts the leaves of the legal move tree, the standard move-generator check.

use crate::chess::{move_to_uci, parse_fen, STARTPOS_FEN};
use cozy_chess::Board;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// Position (default: start position). Shredder FEN is accepted for Chess960.
    #[arg(long)]
    pub fen: Option<String>,
    /// Print the node count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Print castling moves king-takes-rook (Chess960 notation) in --divide output.
    #[arg(long)]
    pub chess960: bool,
}

/// Leaf count at `depth`, counting the last ply in bulk from the move lists.
pub fn perft(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|pm| {
            nodes += pm.len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|pm| {
        for mv in pm {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += perft(&child, depth - 1);
        }
        false
    });
    nodes
}

/// Node count per root move, in move-generation order.
pub fn divide(board: &Board, depth: u32) -> Vec<(cozy_chess::Move, u64)> {
    let mut out = Vec::new();
    for mv in crate::chess::legal_moves(board) {
        let mut child = board.clone();
        child.play_unchecked(mv);
        out.push((mv, perft(&child, depth.saturating_sub(1))));
    }
    out
}

/// Runs perft and prints a report (shared by the CLI and UCI `go perft`).
pub fn report(board: &Board, depth: u32, show_divide: bool, chess960: bool) {
    let start = Instant::now();
    let nodes = if show_divide {
        let parts = divide(board, depth.max(1));
        for (mv, n) in &parts {
            println!("{}: {n}", move_to_uci(board, *mv, chess960));
        }
        parts.iter().map(|(_, n)| n).sum()
    } else {
        perft(board, depth)
    };
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    println!();
    println!("Nodes searched: {nodes}");
    println!("Time: {:.3} s, {:.0} nps", secs, nodes as f64 / secs);
}

pub fn run_cli(args: &PerftArgs) -> Result<(), String> {
    let board = parse_fen(args.fen.as_deref().unwrap_or(STARTPOS_FEN))?;
    report(&board, args.depth, args.divide, args.chess960);
    Ok(())
}
