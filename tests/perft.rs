//! Perft: the move generator and `rookery::perft` against the published node counts of
//! `perft/{standard,fischer,cpw}.epd`. Every position is checked at every listed depth
//! whose count is at most `SHALLOW_LIMIT`; a few positions are checked deeper. The full
//! suites to depth 6 run from `scripts/perft-suites.sh`.

mod common;

use common::{read_epd, PerftCase};
use rookery::chess::parse_fen;
use rookery::perft::{divide, perft};

/// Largest node count checked per (position, depth) in the shallow sweep.
const SHALLOW_LIMIT: u64 = 200_000;

/// Checks each listed depth with count <= limit; returns how many checks ran.
fn check_suite(cases: &[PerftCase], limit: u64) -> usize {
    let mut checks = 0;
    let mut failures = Vec::new();
    for case in cases {
        let board = parse_fen(&case.fen).unwrap_or_else(|e| panic!("suite FEN rejected: {e}"));
        for &(depth, expected) in case.counts.iter().filter(|(_, n)| *n <= limit) {
            let got = perft(&board, depth);
            checks += 1;
            if got != expected {
                failures.push(format!("{} D{depth}: got {got}, want {expected}", case.fen));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
    checks
}

fn deep(fen: &str, depth: u32, expected: u64) {
    let board = parse_fen(fen).unwrap();
    assert_eq!(perft(&board, depth), expected, "{fen} D{depth}");
}

#[test]
fn suite_files_are_complete() {
    // Guards against a truncated copy: counts from perft/SOURCE.md.
    let standard = read_epd("standard.epd");
    let fischer = read_epd("fischer.epd");
    let cpw = read_epd("cpw.epd");
    assert_eq!(standard.len(), 128);
    assert_eq!(fischer.len(), 960);
    assert_eq!(cpw.len(), 7);
    assert!(fischer.iter().all(|c| c.counts.len() == 6));
}

#[test]
fn standard_suite_shallow() {
    let checks = check_suite(&read_epd("standard.epd"), SHALLOW_LIMIT);
    // Every position has at least one listed depth under the limit except the
    // D5-only line; most reach D3-D4.
    assert!(checks > 400, "only {checks} checks ran");
}

#[test]
fn fischer_suite_shallow() {
    let checks = check_suite(&read_epd("fischer.epd"), SHALLOW_LIMIT);
    assert!(checks >= 960 * 3, "only {checks} checks ran");
}

#[test]
fn cpw_suite_shallow() {
    let checks = check_suite(&read_epd("cpw.epd"), SHALLOW_LIMIT);
    assert!(checks >= 7 * 3, "only {checks} checks ran");
}

#[test]
fn start_position_depth_5() {
    deep(rookery::chess::STARTPOS_FEN, 5, 4_865_609);
}

#[test]
fn kiwipete_depth_4() {
    deep(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
        4_085_603,
    );
}

#[test]
fn cpw_position_3_depth_5() {
    deep("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624);
}

#[test]
fn chess960_depth_4() {
    // First line of fischer.epd: Shredder-FEN castling rights (HFhf) on both sides.
    deep(
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        4,
        326_672,
    );
}

#[test]
fn cpw_position_4_and_mirror_depth_4() {
    deep(
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        4,
        422_333,
    );
    deep(
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        4,
        422_333,
    );
}

#[test]
fn divide_sums_to_perft_and_lists_every_move() {
    let board =
        parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
    let parts = divide(&board, 3);
    assert_eq!(parts.len(), 48);
    assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), 97_862);
    assert_eq!(perft(&board, 0), 1);
}

#[test]
fn depth_zero_and_positions_without_moves() {
    // Checkmate (fool's mate) and stalemate: no moves at any depth >= 1.
    let mate = parse_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3").unwrap();
    let stalemate = parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    for board in [&mate, &stalemate] {
        assert_eq!(perft(board, 0), 1);
        assert_eq!(perft(board, 1), 0);
        assert_eq!(perft(board, 3), 0);
    }
}

#[test]
fn x_fen_castling_rights_are_accepted() {
    // Chess960 positions in X-FEN (KQkq = outermost rooks), as GUIs often send them, must
    // give the same position as the Shredder-FEN form.
    for (xfen, shredder, d3) in [
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            12_189,
        ),
        (
            "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1",
            "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
            0,
        ),
    ] {
        let a = parse_fen(xfen).unwrap_or_else(|e| panic!("{e}"));
        let b = parse_fen(shredder).unwrap();
        assert_eq!(a, b, "{xfen}");
        if d3 > 0 {
            assert_eq!(perft(&a, 3), d3);
        }
    }
    // Rights that name a missing rook are still rejected.
    assert!(parse_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1").is_err());
}
