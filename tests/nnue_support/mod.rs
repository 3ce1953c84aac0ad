//! What the evaluation tests share: the nets they check, random games that favour
//! castling, en passant and promotions, the kernel-vs-candle and kernel-vs-kernel checks,
//! and tiny labelled training sets.
// Each test file uses only part of this module.
#![allow(dead_code)]

use std::sync::Arc;

use cozy_chess::{Board, Color, Move, Piece};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use rookery::eval::accumulator::refresh;
use rookery::eval::network::Network;
use rookery::eval::simd::Path;
use rookery::eval::{self, Evaluator, DEFAULT_NET, DEFAULT_NET_NAME, EVAL_LIMIT};

pub fn default_net() -> Arc<Network> {
    Arc::new(Network::from_bytes(DEFAULT_NET, DEFAULT_NET_NAME).expect("embedded net loads"))
}

/// The embedded net's weights marked as horizontally mirrored: not a trained net, but
/// the kernel and the accumulator must follow candle's features for it exactly as for
/// any other.
pub fn mirrored_net() -> Arc<Network> {
    use candle_core::{Device, Tensor};
    let mut tensors =
        candle_core::safetensors::load_buffer(DEFAULT_NET, &Device::Cpu).expect("embedded net");
    tensors.insert(
        "mirror".into(),
        Tensor::new(&[1f32], &Device::Cpu).expect("tensor"),
    );
    let net = Network::from_tensors(tensors, "mirrored", 0).expect("mirrored net loads");
    assert!(net.q.mirroring && net.description().contains("mirrored"));
    Arc::new(net)
}

pub fn fresh_eval(net: &Arc<Network>) -> Evaluator {
    Evaluator::with_network(Arc::clone(net))
}

/// Positions to start random games from: standard, tactical, promotion-rich, Chess960.
pub const STARTS: &[(&str, bool)] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        false,
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        false,
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        false,
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", false),
    (
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        true,
    ),
    (
        "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
        true,
    ),
];

pub fn start_board(i: usize) -> Board {
    let (fen, c960) = STARTS[i % STARTS.len()];
    Board::from_fen(fen, c960).expect("test FEN is valid")
}

pub fn legal(board: &Board) -> Vec<Move> {
    let mut v = Vec::new();
    board.generate_moves(|pm| {
        v.extend(pm);
        false
    });
    v
}

#[derive(Default, Debug)]
pub struct Seen {
    pub castles: usize,
    pub en_passant: usize,
    pub promotions: usize,
    pub captures: usize,
    pub nulls: usize,
    pub moves: usize,
    /// Moves that took a king between files d and e (a mirrored net's rebuilds).
    pub king_crossings: usize,
}

pub fn classify(board: &Board, mv: Move, seen: &mut Seen) {
    let us = board.side_to_move();
    let piece = board.piece_on(mv.from);
    if piece == Some(Piece::King) && board.colors(us).has(mv.to) {
        seen.castles += 1;
    } else if piece == Some(Piece::Pawn)
        && mv.from.file() != mv.to.file()
        && board.piece_on(mv.to).is_none()
    {
        seen.en_passant += 1;
    } else if board.colors(!us).has(mv.to) {
        seen.captures += 1;
    }
    if mv.promotion.is_some() {
        seen.promotions += 1;
    }
    let mut after = board.clone();
    after.play_unchecked(mv);
    if eval::features::mirrored(board, us) != eval::features::mirrored(&after, us) {
        seen.king_crossings += 1;
    }
    seen.moves += 1;
}

/// Prefers special moves so castling, en passant and promotions occur often.
pub fn pick(board: &Board, moves: &[Move], rng: &mut StdRng) -> Move {
    let special: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|&mv| {
            let p = board.piece_on(mv.from);
            mv.promotion.is_some()
                || (p == Some(Piece::King) && board.colors(board.side_to_move()).has(mv.to))
                || (p == Some(Piece::Pawn) && mv.from.file() != mv.to.file())
                || (p == Some(Piece::Pawn)
                    && (mv.from.rank() as i32 - mv.to.rank() as i32).abs() == 2)
        })
        .collect();
    if !special.is_empty() && rng.gen_bool(0.5) {
        *special.choose(rng).expect("non-empty")
    } else {
        *moves.choose(rng).expect("non-empty")
    }
}

/// Asserts the evaluator's accumulators equal a full recompute for `board`.
pub fn check_acc(ev: &mut Evaluator, net: &Network, board: &Board, context: &str) {
    let h = net.q.hidden;
    let mut w = vec![0i16; h];
    let mut b = vec![0i16; h];
    refresh(&net.q, board, Color::White, &mut w);
    refresh(&net.q, board, Color::Black, &mut b);
    let (iw, ib) = ev.accumulators();
    assert!(
        iw == w.as_slice() && ib == b.as_slice(),
        "accumulator mismatch after {context}: {board}"
    );
}

/// Positions from random playouts (varied material, castling rights, ep, clocks).
pub fn sample_positions(n: usize, seed: u64) -> Vec<Board> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut board = start_board(0);
    let mut game = 0;
    while out.len() < n {
        let moves = legal(&board);
        if moves.is_empty() || board.halfmove_clock() >= 100 || rng.gen_bool(0.01) {
            game += 1;
            board = start_board(game);
            continue;
        }
        let mv = pick(&board, &moves, &mut rng);
        board.play_unchecked(mv);
        out.push(board.clone());
    }
    out
}

pub fn check_paths_agree(net: Arc<Network>) {
    let paths = Path::all_available();
    eprintln!("kernel versions compared: {:?}", paths);
    if cfg!(target_arch = "x86_64") {
        assert!(
            paths.len() >= 2,
            "this x86-64 CPU has no AVX2: only the portable kernels could be tested"
        );
    }
    let mut evs: Vec<Evaluator> = paths
        .iter()
        .map(|&p| Evaluator::with_path(Arc::clone(&net), p))
        .collect();
    for (ev, &p) in evs.iter().zip(&paths) {
        assert_eq!(ev.path(), p);
    }
    let mut rng = StdRng::seed_from_u64(19);
    let mut compared = 0;
    for game in 0..40 {
        let mut board = start_board(game);
        for ev in &mut evs {
            ev.reset_keep_network(&board);
        }
        for _ in 0..100 {
            let moves = legal(&board);
            if moves.is_empty() || board.halfmove_clock() >= 100 {
                break;
            }
            let mv = pick(&board, &moves, &mut rng);
            let mut after = board.clone();
            after.play_unchecked(mv);
            for ev in &mut evs {
                ev.push(&board, mv, &after);
            }
            board = after;
            if rng.gen_bool(0.7) {
                let outputs: Vec<(u32, Vec<i16>)> = evs
                    .iter_mut()
                    .map(|ev| {
                        let raw = ev.raw(&board).to_bits();
                        let (w, b) = ev.accumulators();
                        (raw, [w, b].concat())
                    })
                    .collect();
                for (o, p) in outputs.iter().zip(&paths).skip(1) {
                    assert!(o == &outputs[0], "{p:?} differs from portable at {board}");
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "only {compared} positions compared");
}

/// Largest kernel-vs-candle error allowed at one position (cp, plus 2 % of |eval|). The
/// integer kernel rounds the `l1` weights to i8 (127 steps per row) and the first-layer
/// activations to 127 steps, as Stockfish does; on the committed nets that costs a mean
/// of 1.7–3.3 cp and at worst 13–24 cp over these positions (docs/net.md). The bound
/// leaves room above that: errors of this size have cost no strength that games could
/// measure (docs/net.md).
pub const KERNEL_CP_BOUND: f32 = 32.0;

/// Largest mean error allowed (cp); every committed net is under 3.3.
pub const KERNEL_CP_MEAN: f64 = 4.5;

pub fn check_kernel_against_candle(net: Arc<Network>) {
    let mut ev = fresh_eval(&net);
    let positions = sample_positions(1200, 3);
    let mut errors = Vec::with_capacity(positions.len());
    let mut worst_excess: Option<(f32, String)> = None;
    for b in &positions {
        ev.reset_keep_network(b);
        let kernel = ev.raw(b) * net.scale;
        let reference = net.reference_cp(b).expect("candle forward");
        let err = (kernel - reference).abs();
        let excess = err - (KERNEL_CP_BOUND + 0.02 * reference.abs());
        if excess > worst_excess.as_ref().map_or(0.0, |w| w.0) {
            worst_excess = Some((
                excess,
                format!("kernel {kernel} vs candle {reference}: {b}"),
            ));
        }
        errors.push(err);
        let cp = ev.evaluate(b);
        assert!(cp.abs() <= EVAL_LIMIT);
    }
    errors.sort_by(f32::total_cmp);
    let mean = errors.iter().map(|&e| e as f64).sum::<f64>() / errors.len() as f64;
    let p99 = errors[errors.len() * 99 / 100];
    let worst = errors[errors.len() - 1];
    eprintln!(
        "{}: kernel vs candle over {} positions: mean {mean:.2} cp, p99 {p99:.2} cp, worst {worst:.2} cp",
        net.name,
        errors.len()
    );
    if let Some((_, what)) = worst_excess {
        panic!(
            "{}: error above {KERNEL_CP_BOUND} cp + 2 %: {what}",
            net.name
        );
    }
    assert!(
        mean < KERNEL_CP_MEAN,
        "{}: mean |kernel - candle| = {mean} cp",
        net.name
    );
}

pub fn mirror_fen(fen: &str) -> String {
    let f: Vec<&str> = fen.split(' ').collect();
    let swap = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect()
    };
    let board: Vec<String> = f[0].split('/').rev().map(swap).collect();
    let stm = if f[1] == "w" { "b" } else { "w" };
    let mut castle: Vec<char> = swap(f[2]).chars().collect();
    castle.sort_by_key(|c| (c.is_ascii_lowercase(), "KQkq".find(*c)));
    let castle: String = castle.into_iter().collect();
    let ep = if f[3] == "-" {
        "-".to_string()
    } else {
        let b = f[3].as_bytes();
        format!("{}{}", b[0] as char, if b[1] == b'3' { '6' } else { '3' })
    };
    format!("{} {stm} {castle} {ep} {} {}", board.join("/"), f[4], f[5])
}

/// Material balance from White's point of view (P 100, N 300, B 300, R 500, Q 900): the
/// label of the tiny training sets below.
pub fn material_cp(board: &Board) -> i32 {
    let value = [100, 300, 300, 500, 900, 0];
    let side = |color: Color| -> i32 {
        Piece::ALL
            .iter()
            .zip(value)
            .map(|(&p, v)| v * board.colored_pieces(color, p).len() as i32)
            .sum()
    };
    side(Color::White) - side(Color::Black)
}

/// A temporary directory holding `data.txt`: 400 random-playout positions labelled by
/// their material balance (a tiny training set).
pub fn material_labelled_data(prefix: &str, seed: u64) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut text = String::new();
    for b in sample_positions(400, seed) {
        let cp = material_cp(&b);
        let result = ["0.0", "0.5", "1.0"][(cp.signum() + 1) as usize];
        text.push_str(&format!("{b} | {cp} | {result}\n"));
    }
    let data = dir.join("data.txt");
    std::fs::write(&data, text).expect("write data");
    (dir, data)
}

/// The largest absolute difference between two tensors of the same shape.
pub fn max_abs_difference(a: &candle_core::Tensor, b: &candle_core::Tensor) -> f32 {
    (a - b)
        .and_then(|d| d.abs())
        .and_then(|d| d.flatten_all())
        .and_then(|d| d.max(0))
        .and_then(|d| d.to_scalar::<f32>())
        .expect("tensor difference")
}

/// Training arguments for a quick test run: `data` into `out`, H = 16, batches of 32,
/// `epochs` passes, no progress output. Tests change what they examine from there.
pub fn tiny_run(
    data: &std::path::Path,
    out: &std::path::Path,
    epochs: usize,
) -> rookery::train::TrainArgs {
    let mut args = rookery::train::TrainArgs::with_data(
        vec![data.to_string_lossy().into_owned()],
        out.to_string_lossy().into_owned(),
    );
    args.hidden = 16;
    args.epochs = epochs;
    args.batch_size = 32;
    args.quiet = true;
    args
}
