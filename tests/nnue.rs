//! Tests of the neural evaluation: the incremental accumulator against full recomputes
//! (random games and search-like push/pop trees with castling, en passant, promotions and
//! null moves), the quantised kernel against candle's f32 forward pass, a train → save →
//! load round trip, and `load_eval_file` error handling.

use std::sync::Arc;

use cozy_chess::{Board, Color, Move, Piece};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use rookery::eval::accumulator::refresh;
use rookery::eval::network::Network;
use rookery::eval::simd::Path;
use rookery::eval::{self, Evaluator, DEFAULT_NET, DEFAULT_NET_NAME, EVAL_LIMIT};

fn default_net() -> Arc<Network> {
    Arc::new(Network::from_bytes(DEFAULT_NET, DEFAULT_NET_NAME).expect("embedded net loads"))
}

/// The embedded net's weights marked as horizontally mirrored: not a trained net, but
/// the kernel and the accumulator must follow candle's features for it exactly as for
/// any other.
fn mirrored_net() -> Arc<Network> {
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

fn fresh_eval(net: &Arc<Network>) -> Evaluator {
    Evaluator::with_network(Arc::clone(net))
}

/// Positions to start random games from: standard, tactical, promotion-rich, Chess960.
const STARTS: &[(&str, bool)] = &[
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

fn start_board(i: usize) -> Board {
    let (fen, c960) = STARTS[i % STARTS.len()];
    Board::from_fen(fen, c960).expect("test FEN is valid")
}

fn legal(board: &Board) -> Vec<Move> {
    let mut v = Vec::new();
    board.generate_moves(|pm| {
        v.extend(pm);
        false
    });
    v
}

#[derive(Default, Debug)]
struct Seen {
    castles: usize,
    en_passant: usize,
    promotions: usize,
    captures: usize,
    nulls: usize,
    moves: usize,
    /// Moves that took a king between files d and e (a mirrored net's rebuilds).
    king_crossings: usize,
}

fn classify(board: &Board, mv: Move, seen: &mut Seen) {
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
fn pick(board: &Board, moves: &[Move], rng: &mut StdRng) -> Move {
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
fn check_acc(ev: &mut Evaluator, net: &Network, board: &Board, context: &str) {
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

/// Random games: after every move (and null move) the incremental accumulator equals a
/// full recompute, and now and then the game goes back up the stack (pop) and continues
/// from there, as a search does.
#[test]
fn incremental_matches_refresh_in_random_games() {
    random_games_match_refresh(default_net());
}

/// The same with horizontal mirroring, where a king crossing files d–e rebuilds its side.
#[test]
fn mirrored_incremental_matches_refresh_in_random_games() {
    let seen = random_games_match_refresh(mirrored_net());
    assert!(seen.king_crossings > 100, "{seen:?}");
}

/// Moves after which a piece kind covers the same squares as before, one of them now of
/// the other colour: a promotion capturing a piece of the kind it promotes to. (An
/// accumulator update that skipped unchanged kinds by their squares alone missed these.)
#[test]
fn promotion_capturing_its_own_kind_matches_refresh() {
    for net in [default_net(), mirrored_net()] {
        let mut ev = fresh_eval(&net);
        for (fen, uci) in [
            ("1q2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q"),
            ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8n"),
            ("4k3/8/8/8/8/8/p7/1R2K3 b - - 0 1", "a2b1r"),
            ("4k3/8/8/8/8/8/p7/1B2K3 b - - 0 1", "a2b1b"),
        ] {
            let before: Board = fen.parse().expect("test FEN");
            let mv = rookery::chess::parse_uci_move(&before, uci).expect("legal test move");
            ev.reset_keep_network(&before);
            let mut after = before.clone();
            after.play_unchecked(mv);
            ev.push(&before, mv, &after);
            check_acc(&mut ev, &net, &after, &format!("{uci} from {fen}"));
        }
    }
}

fn random_games_match_refresh(net: Arc<Network>) -> Seen {
    let mut rng = StdRng::seed_from_u64(7);
    let mut seen = Seen::default();
    let mut ev = fresh_eval(&net);
    for game in 0..110 {
        let mut board = start_board(game);
        ev.reset_keep_network(&board);
        let mut path: Vec<Board> = vec![board.clone()];
        for _ in 0..120 {
            let moves = legal(&board);
            if moves.is_empty() || board.halfmove_clock() >= 100 {
                break;
            }
            let before = board.clone();
            if rng.gen_bool(0.08) {
                if let Some(after) = before.null_move() {
                    ev.push_null(&before, &after);
                    seen.nulls += 1;
                    if rng.gen_bool(0.4) {
                        check_acc(&mut ev, &net, &after, "null move");
                    }
                    board = after;
                    path.push(board.clone());
                    continue;
                }
            }
            let mv = pick(&before, &moves, &mut rng);
            classify(&before, mv, &mut seen);
            let mut after = before.clone();
            after.play_unchecked(mv);
            ev.push(&before, mv, &after);
            // Checked only now and then, so the lazy stack catches up over several plies.
            if rng.gen_bool(0.4) {
                check_acc(&mut ev, &net, &after, &format!("{mv} from {before}"));
            }
            board = after;
            path.push(board.clone());
            // Sometimes pop back a few plies and check the older slots are intact.
            if rng.gen_bool(0.1) && path.len() > 4 {
                let back = rng.gen_range(1..4);
                for _ in 0..back {
                    ev.pop();
                    path.pop();
                    let top = path.last().expect("root stays");
                    check_acc(&mut ev, &net, top, "pop");
                }
                board = path.last().expect("root stays").clone();
            }
        }
        assert_eq!(ev.ply() + 1, path.len());
    }
    assert!(seen.moves > 4000, "{seen:?}");
    assert!(
        seen.castles > 20 && seen.en_passant > 20 && seen.promotions > 20,
        "{seen:?}"
    );
    assert!(seen.captures > 100 && seen.nulls > 100, "{seen:?}");
    seen
}

fn tree(
    ev: &mut Evaluator,
    fresh: &mut Evaluator,
    board: &Board,
    depth: usize,
    rng: &mut StdRng,
    nodes: &mut usize,
) {
    // Evaluated at about half the nodes on the way down, so the lazy accumulator stack
    // sometimes catches up over several plies at once.
    if rng.gen_bool(0.5) {
        fresh.reset_keep_network(board);
        assert_eq!(ev.evaluate(board), fresh.evaluate(board), "{board}");
    }
    *nodes += 1;
    if depth == 0 {
        return;
    }
    let moves = legal(board);
    for _ in 0..3.min(moves.len()) {
        let mv = pick(board, &moves, rng);
        let mut child = board.clone();
        child.play_unchecked(mv);
        ev.push(board, mv, &child);
        tree(ev, fresh, &child, depth - 1, rng, nodes);
        ev.pop();
    }
    if depth >= 2 {
        if let Some(child) = board.null_move() {
            ev.push_null(board, &child);
            tree(ev, fresh, &child, depth - 2, rng, nodes);
            ev.pop();
        }
    }
    fresh.reset_keep_network(board);
    assert_eq!(
        ev.evaluate(board),
        fresh.evaluate(board),
        "after children: {board}"
    );
}

/// Search-shaped trees: depth-first push/pop; at every node the evaluation equals that of
/// a fresh evaluator reset at the node, and the root is intact after the tree.
#[test]
fn push_pop_trees_match_fresh_evaluation() {
    for net in [default_net(), mirrored_net()] {
        push_pop_trees_match(net);
    }
}

fn push_pop_trees_match(net: Arc<Network>) {
    let mut rng = StdRng::seed_from_u64(11);
    let mut ev = fresh_eval(&net);
    let mut fresh = fresh_eval(&net);
    let mut nodes = 0usize;
    for i in 0..STARTS.len() * 2 {
        let root = start_board(i);
        ev.reset_keep_network(&root);
        tree(&mut ev, &mut fresh, &root, 4, &mut rng, &mut nodes);
        assert_eq!(ev.ply(), 0);
    }
    assert!(nodes > 1000, "only {nodes} nodes");
}

/// Positions from random playouts (varied material, castling rights, ep, clocks).
fn sample_positions(n: usize, seed: u64) -> Vec<Board> {
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

/// Every kernel version this CPU runs (portable, AVX2, AVX-512 VNNI) gives the same
/// accumulators and the same output bits over random games with push/pop, null moves and
/// resets, so a machine without AVX2 plays the same chess.
#[test]
fn simd_and_portable_kernels_agree() {
    check_paths_agree(default_net());
    check_paths_agree(mirrored_net());
}

fn check_paths_agree(net: Arc<Network>) {
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
/// of 1.7–3.3 cp and at worst 13–24 cp over these positions (docs/net.md). rookery-gen2
/// won its gate by +84 Elo playing with an older kernel whose error on it was larger
/// (mean 5.2, worst 27.2 cp), so errors of that size do not cost games that can be
/// measured.
const KERNEL_CP_BOUND: f32 = 32.0;
/// Largest mean error allowed (cp); every committed net is under 3.3 since `l1` uses
/// its whole i8 range and SCReLU squares at the accumulator's precision.
const KERNEL_CP_MEAN: f64 = 4.5;

/// The quantised kernel agrees with candle's f32 forward pass on 1,200 random-playout
/// positions: every error within [`KERNEL_CP_BOUND`] cp + 2 % of |eval|, mean error below
/// [`KERNEL_CP_MEAN`] cp (the embedded rookery-gen13: mean 2.49, p99 11.9, worst 17.6 cp;
/// gen12f-hmb8 before it 2.67 / 12.0 / 22.5, gen11-hmb8 2.16 / 11.4 / 16.1).
#[test]
fn kernel_matches_candle_forward() {
    check_kernel_against_candle(default_net());
}

/// Candle's dense features and the kernel's accumulator mirror alike.
#[test]
fn mirrored_kernel_matches_candle_forward() {
    check_kernel_against_candle(mirrored_net());
}

/// The same check for every other network committed in `nets/`.
#[test]
fn kernel_matches_candle_forward_for_committed_nets() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("nets/ exists") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "safetensors") {
            let bytes = std::fs::read(&path).expect("readable net");
            let name = path.to_string_lossy();
            let net = Network::from_bytes(&bytes, &name).expect("committed net loads");
            check_kernel_against_candle(Arc::new(net));
            checked += 1;
        }
    }
    assert!(checked >= 1, "no nets found in {}", dir.display());
}

/// A net with 8 output buckets (the embedded net's output row scaled a little and its
/// bias shifted by 40 cp per bucket): the kernel picks the same bucket as candle's gather
/// (a wrong bucket would be off by 40 cp or more), within the same error bound, and the
/// bucket count shows in the description.
#[test]
fn output_buckets_match_candle_forward() {
    use candle_core::{Device, Tensor};
    let mut tensors =
        candle_core::safetensors::load_buffer(DEFAULT_NET, &Device::Cpu).expect("embedded net");
    let row = tensors["out.weight"].to_vec2::<f32>().expect("out.weight")[0].clone();
    let bias = tensors["out.bias"].to_vec1::<f32>().expect("out.bias")[0];
    let buckets = 8;
    let weights: Vec<f32> = (0..buckets)
        .flat_map(|k| row.iter().map(move |w| w * (0.9 + 0.025 * k as f32)))
        .collect();
    let biases: Vec<f32> = (0..buckets).map(|k| bias + 0.1 * k as f32 - 0.3).collect();
    tensors.insert(
        "out.weight".into(),
        Tensor::from_vec(weights, (buckets, row.len()), &Device::Cpu).expect("tensor"),
    );
    tensors.insert(
        "out.bias".into(),
        Tensor::from_vec(biases, buckets, &Device::Cpu).expect("tensor"),
    );
    let net = Arc::new(Network::from_tensors(tensors, "bucketed", 0).expect("bucketed net"));
    assert_eq!(net.q.buckets(), buckets);
    assert!(
        net.description().contains("x8 output buckets"),
        "{}",
        net.description()
    );
    // The positions span enough piece counts to reach several buckets.
    let used: std::collections::BTreeSet<usize> = sample_positions(1200, 3)
        .iter()
        .map(|b| eval::features::output_bucket(b.occupied().len() as usize, buckets))
        .collect();
    assert!(used.len() >= 3, "buckets reached: {used:?}");
    check_kernel_against_candle(net);
}

fn check_kernel_against_candle(net: Arc<Network>) {
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

fn mirror_fen(fen: &str) -> String {
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

/// Symmetry: a position and its colour-mirrored twin get the same side-to-move score.
#[test]
fn mirrored_positions_evaluate_equally() {
    let net = default_net();
    let mut ev = fresh_eval(&net);
    let mut checked = 0;
    for b in sample_positions(300, 5) {
        let fen = b.to_string();
        // Chess960 castling notation does not mirror with this simple helper.
        if fen
            .split(' ')
            .nth(2)
            .is_some_and(|c| c.chars().any(|ch| !"KQkq-".contains(ch)))
        {
            continue;
        }
        let mirrored = mirror_fen(&fen);
        let m = Board::from_fen(&mirrored, false).expect("mirrored FEN");
        ev.reset_keep_network(&b);
        let a = ev.evaluate(&b);
        ev.reset_keep_network(&m);
        assert_eq!(a, ev.evaluate(&m), "{fen} vs {mirrored}");
        checked += 1;
    }
    assert!(checked > 100, "only {checked} positions checked");
}

/// Trains a tiny network on a file written here, checks the saved file loads with the
/// same outputs, then exercises `load_eval_file` (good file, missing file, garbage, wrong
/// names, wrong shapes) on the global slot. One test, because the slot is global.
#[test]
fn train_save_load_and_eval_file_errors() {
    let dir = std::env::temp_dir().join(format!("rookery-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Tiny labelled data: random positions scored by the material/PST evaluation.
    let mut text = String::from("garbage line\n");
    for b in sample_positions(300, 9) {
        let cp = rookery::eval::pst::evaluate(&b) * rookery::chess::sign(b.side_to_move());
        let result = if cp > 100 {
            "1.0"
        } else if cp < -100 {
            "0.0"
        } else {
            "0.5"
        };
        text.push_str(&format!("{b} | {cp} | {result}\n"));
    }
    let data = dir.join("tiny.txt");
    std::fs::write(&data, text).expect("write data");
    let out = dir.join("tiny.safetensors");
    let csv = dir.join("tiny.csv");
    let mut args = rookery::train::TrainArgs::with_data(
        vec![data.to_string_lossy().into_owned()],
        out.to_string_lossy().into_owned(),
    );
    args.hidden = 32;
    args.epochs = 3;
    args.batch_size = 64;
    args.quiet = true;
    args.csv = Some(csv.to_string_lossy().into_owned());
    args.checkpoint_dir = Some(dir.join("ckpt").to_string_lossy().into_owned());
    let summary = rookery::train::train(&args).expect("training runs");
    assert_eq!((summary.positions, summary.bad_lines), (300, 1));
    assert!(summary.train_loss.is_finite() && summary.val_loss.is_finite());
    let csv_text = std::fs::read_to_string(&csv).expect("csv written");
    assert_eq!(csv_text.lines().count(), 4, "{csv_text}");
    assert!(dir.join("ckpt/epoch-3.safetensors").exists());

    // Round trip: the in-memory trained tensors and the saved file give identical outputs.
    let in_memory = Network::from_tensors(summary.tensors, "memory", 0).expect("in-memory net");
    let bytes = std::fs::read(&out).expect("saved net");
    let loaded = Arc::new(Network::from_bytes(&bytes, "file").expect("saved net loads"));
    let mut e1 = Evaluator::with_network(Arc::new(in_memory));
    let mut e2 = Evaluator::with_network(Arc::clone(&loaded));
    for b in sample_positions(100, 13) {
        let r1 = e1.network().reference_cp(&b).expect("candle");
        let r2 = loaded.reference_cp(&b).expect("candle");
        assert_eq!(r1, r2);
        e1.reset_keep_network(&b);
        e2.reset_keep_network(&b);
        assert_eq!(e1.evaluate(&b), e2.evaluate(&b));
    }

    // The global slot: load the new file, then failures keep it.
    let start = Board::default();
    let desc = eval::load_eval_file(&out.to_string_lossy()).expect("good EvalFile loads");
    assert!(
        desc.contains("tiny.safetensors") && desc.contains("782->32"),
        "{desc}"
    );
    assert_eq!(eval::net_description(), desc);
    let mut fresh = Evaluator::with_network(Arc::clone(&loaded));
    fresh.reset_keep_network(&start);
    let expected = fresh.evaluate(&start);
    assert_eq!(eval::white_cp(&start), expected);

    let dev = candle_core::Device::Cpu;
    let zeros = |shape: Vec<usize>| {
        candle_core::Tensor::zeros(shape, candle_core::DType::F32, &dev).expect("tensor")
    };
    let garbage = dir.join("garbage.safetensors");
    std::fs::write(&garbage, b"this is not a network").expect("write");
    let mut wrong_names = std::collections::HashMap::new();
    wrong_names.insert("foo".to_string(), zeros(vec![4]));
    let names_path = dir.join("names.safetensors");
    candle_core::safetensors::save(&wrong_names, &names_path).expect("save");
    let mut wrong_shapes = std::collections::HashMap::new();
    for (name, shape) in [
        ("ft.weight", vec![32usize, 100]),
        ("ft.bias", vec![32]),
        ("l1.weight", vec![32, 64]),
        ("l1.bias", vec![32]),
        ("l2.weight", vec![32, 32]),
        ("l2.bias", vec![32]),
        ("out.weight", vec![1, 32]),
        ("out.bias", vec![1]),
    ] {
        wrong_shapes.insert(name.to_string(), zeros(shape));
    }
    let shapes_path = dir.join("shapes.safetensors");
    candle_core::safetensors::save(&wrong_shapes, &shapes_path).expect("save");

    let missing = dir.join("does-not-exist.safetensors");
    for (path, needle) in [
        (missing, "cannot read"),
        (garbage, "not a safetensors"),
        (names_path, "ft.bias"),
        (shapes_path, "shape"),
    ] {
        let err =
            eval::load_eval_file(&path.to_string_lossy()).expect_err("bad EvalFile must fail");
        assert!(err.contains(needle), "error for {}: {err}", path.display());
        assert_eq!(eval::net_description(), desc, "previous net must stay");
        assert_eq!(
            eval::white_cp(&start),
            expected,
            "evaluation must still work"
        );
    }

    // Back to the embedded default.
    let d = eval::load_eval_file("<default>").expect("default reloads");
    assert!(d.contains(DEFAULT_NET_NAME), "{d}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A temporary directory holding `data.txt`: 400 random-playout positions labelled by
/// the material/PST evaluation (a tiny training set).
fn pst_labelled_data(prefix: &str, seed: u64) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut text = String::new();
    for b in sample_positions(400, seed) {
        let cp = rookery::eval::pst::evaluate(&b) * rookery::chess::sign(b.side_to_move());
        let result = ["0.0", "0.5", "1.0"][(cp.signum() + 1) as usize];
        text.push_str(&format!("{b} | {cp} | {result}\n"));
    }
    let data = dir.join("data.txt");
    std::fs::write(&data, text).expect("write data");
    (dir, data)
}

/// The largest absolute difference between two tensors of the same shape.
fn max_abs_difference(a: &candle_core::Tensor, b: &candle_core::Tensor) -> f32 {
    (a - b)
        .and_then(|d| d.abs())
        .and_then(|d| d.flatten_all())
        .and_then(|d| d.max(0))
        .and_then(|d| d.to_scalar::<f32>())
        .expect("tensor difference")
}

/// A run stopped part-way (`--stop-after-steps`) and resumed from its checkpoint ends
/// with the same net and losses as a run that was never stopped.
#[test]
fn training_resumes_to_the_same_net() {
    let (dir, data) = pst_labelled_data("rookery-resume-test", 21);
    let args_for = |name: &str| {
        let mut a = rookery::train::TrainArgs::with_data(
            vec![data.to_string_lossy().into_owned()],
            dir.join(format!("{name}.safetensors"))
                .to_string_lossy()
                .into_owned(),
        );
        a.hidden = 16;
        a.epochs = 2;
        a.batch_size = 32;
        a.quiet = true;
        a.checkpoint_every = 3;
        a.checkpoint_dir = Some(dir.join(name).to_string_lossy().into_owned());
        a
    };
    let whole = rookery::train::train(&args_for("whole")).expect("uninterrupted run");

    // 400 positions, 2 % validation: 13 batches an epoch; stop in the middle of epoch 2.
    let mut cut = args_for("cut");
    cut.stop_after_steps = Some(17);
    rookery::train::train(&cut).expect("stopped run");
    let checkpoint = dir.join("cut/resume.safetensors");
    assert!(checkpoint.exists());
    let mut resumed = args_for("cut");
    resumed.resume = Some(checkpoint.to_string_lossy().into_owned());
    let resumed = rookery::train::train(&resumed).expect("resumed run");

    for (name, t) in &whole.tensors {
        let diff = max_abs_difference(t, &resumed.tensors[name]);
        assert!(diff <= 1e-6, "{name} differs by {diff} after resuming");
    }
    assert!(
        (whole.train_loss - resumed.train_loss).abs() <= 1e-9
            && (whole.val_loss - resumed.val_loss).abs() <= 1e-9,
        "losses {} / {} vs {} / {}",
        whole.train_loss,
        whole.val_loss,
        resumed.train_loss,
        resumed.val_loss
    );

    // A checkpoint of another shape is refused with a clear error.
    let mut wrong = args_for("wrong");
    wrong.hidden = 32;
    wrong.resume = Some(checkpoint.to_string_lossy().into_owned());
    let err = rookery::train::train(&wrong)
        .err()
        .expect("shape mismatch refused");
    assert!(err.contains("--hidden"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--init` starts from a saved net's weights: with a vanishing learning rate the run
/// ends where it began (a one-bucket net also as every bucket of a bucketed run), and a
/// net of another shape or scale is refused.
#[test]
fn training_starts_from_init_net() {
    let (dir, data) = pst_labelled_data("rookery-init-test", 22);
    let args_for = |name: &str| {
        let mut a = rookery::train::TrainArgs::with_data(
            vec![data.to_string_lossy().into_owned()],
            dir.join(format!("{name}.safetensors"))
                .to_string_lossy()
                .into_owned(),
        );
        a.hidden = 16;
        a.epochs = 1;
        a.batch_size = 32;
        a.quiet = true;
        a
    };
    let base = rookery::train::train(&args_for("base")).expect("base run");
    let base_path = dir.join("base.safetensors").to_string_lossy().into_owned();

    let mut tuned = args_for("tuned");
    tuned.init = Some(base_path.clone());
    tuned.lr = 1e-12;
    tuned.seed = 7; // another random start, so only --init can make the nets agree
    let tuned = rookery::train::train(&tuned).expect("run from --init");
    for (name, t) in &base.tensors {
        let diff = max_abs_difference(t, &tuned.tensors[name]);
        assert!(diff <= 1e-6, "{name} moved by {diff} from the --init net");
    }

    // A one-bucket net starts a bucketed run: every bucket a copy of its output row.
    let mut bucketed = args_for("bucketed");
    bucketed.init = Some(base_path.clone());
    bucketed.lr = 1e-12;
    bucketed.output_buckets = 8;
    let bucketed = rookery::train::train(&bucketed).expect("bucketed run from --init");
    for (name, t) in &base.tensors {
        let spread = &bucketed.tensors[name];
        let spread = if name.starts_with("out.") {
            assert_eq!(spread.dims()[0], 8, "{name}");
            spread.narrow(0, 7, 1).expect("last bucket")
        } else {
            spread.clone()
        };
        let diff = max_abs_difference(t, &spread);
        assert!(diff <= 1e-6, "{name} moved by {diff} from the --init net");
    }
    let first = bucketed.tensors["out.weight"]
        .narrow(0, 0, 1)
        .expect("first bucket");
    assert!(max_abs_difference(&base.tensors["out.weight"], &first) <= 1e-6);
    // ...but not the other way round.
    let mut unbucketed = args_for("unbucketed");
    unbucketed.init = Some(
        dir.join("bucketed.safetensors")
            .to_string_lossy()
            .into_owned(),
    );
    let err = rookery::train::train(&unbucketed)
        .err()
        .expect("8 buckets into 1 refused");
    assert!(err.contains("--output-buckets"), "{err}");

    let mut wrong_shape = args_for("wrong-shape");
    wrong_shape.hidden = 32;
    wrong_shape.init = Some(base_path.clone());
    let err = rookery::train::train(&wrong_shape)
        .err()
        .expect("shape refused");
    assert!(err.contains("--hidden"), "{err}");

    let mut wrong_activation = args_for("wrong-activation");
    wrong_activation.screlu = true;
    wrong_activation.init = Some(base_path.clone());
    let err = rookery::train::train(&wrong_activation)
        .err()
        .expect("a plain net cannot start a SCReLU run");
    assert!(err.contains("--screlu"), "{err}");

    let mut wrong_mirroring = args_for("wrong-mirroring");
    wrong_mirroring.mirror = true;
    wrong_mirroring.init = Some(base_path.clone());
    let err = rookery::train::train(&wrong_mirroring)
        .err()
        .expect("an unmirrored net cannot start a mirrored run");
    assert!(err.contains("--mirror"), "{err}");

    // --init-ft: the feature transformer from the base net, a head of another shape
    // (l1 16 wide, 8 buckets) from random weights.
    let mut new_head = args_for("new-head");
    new_head.init_ft = Some(base_path.clone());
    new_head.lr = 1e-12;
    new_head.l1_width = 16;
    new_head.output_buckets = 8;
    new_head.seed = 7;
    let new_head = rookery::train::train(&new_head).expect("run from --init-ft");
    for name in ["ft.weight", "ft.bias"] {
        let diff = max_abs_difference(&base.tensors[name], &new_head.tensors[name]);
        assert!(
            diff <= 1e-6,
            "{name} moved by {diff} from the --init-ft net"
        );
    }
    assert_eq!(new_head.tensors["l1.weight"].dims()[0], 16);
    assert_eq!(new_head.tensors["out.weight"].dims()[0], 8);
    let mut ft_wrong_hidden = args_for("ft-wrong-hidden");
    ft_wrong_hidden.hidden = 32;
    ft_wrong_hidden.init_ft = Some(base_path.clone());
    let err = rookery::train::train(&ft_wrong_hidden)
        .err()
        .expect("--init-ft of another width refused");
    assert!(err.contains("--hidden"), "{err}");

    let mut wrong_scale = args_for("wrong-scale");
    wrong_scale.scale = 300.0;
    wrong_scale.init = Some(base_path);
    let err = rookery::train::train(&wrong_scale)
        .err()
        .expect("scale refused");
    assert!(err.contains("scale"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The trainer's `--output-buckets`, `--pairwise`, `--screlu`, `--mirror` and `--l1`: each saved
/// net has the shapes asked for, loads, its kernel matches candle's forward pass (each
/// position through its own bucket), and every kernel version gives the same bits.
#[test]
fn training_net_variants() {
    let (dir, data) = pst_labelled_data("rookery-variant-test", 23);
    // (buckets, pairwise, screlu, mirror, hidden, l1): 64 hidden units give the SIMD pairwise
    // kernel one block per half; 48 leave it to the portable one; 144 sends the AVX2
    // accumulator update through its 128-lane block and then one of 16 lanes; l1 16 runs
    // the two-register `l1` kernels (H 64) and the portable one (H 48).
    for (buckets, pairwise, screlu, mirror, hidden, l1) in [
        (8, false, false, false, 32, 32),
        (1, true, false, false, 64, 32),
        (8, true, false, true, 48, 32),
        (1, false, false, false, 144, 32),
        (8, false, true, false, 64, 32),
        (1, false, true, true, 48, 32),
        (8, false, true, true, 64, 16),
        (1, false, false, false, 48, 16),
    ] {
        let what = format!(
            "{buckets} buckets, pairwise {pairwise}, screlu {screlu}, mirror {mirror}, H {hidden}, l1 {l1}"
        );
        let out = dir.join(format!(
            "net-{buckets}-{pairwise}-{screlu}-{mirror}-{hidden}-{l1}.safetensors"
        ));
        let mut args = rookery::train::TrainArgs::with_data(
            vec![data.to_string_lossy().into_owned()],
            out.to_string_lossy().into_owned(),
        );
        args.hidden = hidden;
        args.epochs = 2;
        args.batch_size = 32;
        args.quiet = true;
        args.output_buckets = buckets;
        args.pairwise = pairwise;
        args.screlu = screlu;
        args.mirror = mirror;
        args.l1_width = l1;
        let summary = rookery::train::train(&args).expect("training runs");
        assert!(
            summary.train_loss.is_finite() && summary.val_loss.is_finite(),
            "{what}"
        );
        assert_eq!(
            summary.tensors["out.weight"].dims(),
            [buckets, 32],
            "{what}"
        );
        let l1_in = if pairwise { hidden } else { 2 * hidden };
        assert_eq!(summary.tensors["l1.weight"].dims(), [l1, l1_in], "{what}");
        assert_eq!(summary.tensors["l2.weight"].dims(), [32, l1], "{what}");
        let bytes = std::fs::read(&out).expect("saved net");
        let net = Arc::new(Network::from_bytes(&bytes, "variant").expect("net loads"));
        assert_eq!(
            (
                net.q.buckets(),
                net.q.pairwise,
                net.q.squared,
                net.q.mirroring,
                net.q.l1_width
            ),
            (buckets, pairwise, screlu, mirror, l1),
            "{what}"
        );
        assert_eq!(net.description().contains("pairwise"), pairwise, "{what}");
        assert_eq!(net.description().contains("mirrored"), mirror, "{what}");
        assert_eq!(net.description().contains("screlu"), screlu, "{what}");
        assert!(
            net.description().contains(&format!("->{l1}->32->1")),
            "{what}: {}",
            net.description()
        );
        check_kernel_against_candle(Arc::clone(&net));
        check_paths_agree(net);
    }

    let mut args = rookery::train::TrainArgs::with_data(
        vec![data.to_string_lossy().into_owned()],
        dir.join("bad.safetensors").to_string_lossy().into_owned(),
    );
    args.output_buckets = 0;
    let err = rookery::train::train(&args)
        .err()
        .expect("0 buckets refused");
    assert!(err.contains("--output-buckets"), "{err}");
    args.output_buckets = 1;
    args.pairwise = true;
    args.hidden = 33;
    let err = rookery::train::train(&args)
        .err()
        .expect("odd pairwise refused");
    assert!(err.contains("--pairwise"), "{err}");
    args.pairwise = false;
    args.hidden = 32;
    args.l1_width = 24;
    let err = rookery::train::train(&args)
        .err()
        .expect("l1 width 24 refused");
    assert!(err.contains("--l1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `--val-data` the run validates on that fixed file (and trains on every `--data`
/// position); `--score-net` gives a saved net's loss on it, the same as the run's last
/// validation loss.
#[test]
fn fixed_validation_set_and_score_net() {
    let (dir, data) = pst_labelled_data("rookery-valset-test", 31);
    let (val_dir, val) = pst_labelled_data("rookery-valset-test-val", 32);
    let out = dir.join("net.safetensors");
    let mut args = rookery::train::TrainArgs::with_data(
        vec![data.to_string_lossy().into_owned()],
        out.to_string_lossy().into_owned(),
    );
    args.hidden = 16;
    args.epochs = 2;
    args.batch_size = 32;
    args.quiet = true;
    args.val_data = vec![val.to_string_lossy().into_owned()];
    let summary = rookery::train::train(&args).expect("training runs");
    assert_eq!(summary.positions, 400);
    let (loss, n) =
        rookery::train::score_net(&args, &out.to_string_lossy()).expect("scores the saved net");
    assert_eq!(n, 400, "every validation position is scored");
    assert!(
        (loss - summary.val_loss).abs() < 1e-6,
        "score_net {loss} vs the run's validation loss {}",
        summary.val_loss
    );
    // A missing validation file is an error, not an empty set.
    args.val_data = vec![dir.join("missing.txt").to_string_lossy().into_owned()];
    assert!(rookery::train::score_net(&args, &out.to_string_lossy()).is_err());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&val_dir);
}
