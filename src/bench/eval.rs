//! `rookery bench --eval`: times the search kernel (incremental push + evaluate + pop)
//! and candle's reference forward pass on the same positions.

use std::sync::Arc;
use std::time::Instant;

use cozy_chess::Board;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::eval::network::Network;
use crate::eval::simd::{self, Path};
use crate::eval::Evaluator;

/// Random playouts from the start position: (before, move, after) triples.
pub fn random_walk(n: usize, seed: u64) -> Vec<(Board, cozy_chess::Move, Board)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut board = Board::default();
    while out.len() < n {
        let moves = crate::chess::legal_moves(&board);
        match moves.choose(&mut rng) {
            Some(&mv) if board.halfmove_clock() < 100 => {
                let mut after = board.clone();
                after.play_unchecked(mv);
                out.push((board.clone(), mv, after.clone()));
                board = after;
            }
            _ => board = Board::default(),
        }
    }
    out
}

/// Goes down the walk's games as a search goes down a line: at every position a push
/// from its parent (the stack's top) and, if `evaluate`, an evaluation; back at the start
/// position (a new game) every push is popped. Returns the sum of the evaluations.
fn follow_games(
    ev: &mut Evaluator,
    walk: &[(Board, cozy_chess::Move, Board)],
    root: &Board,
    evaluate: bool,
) -> i64 {
    let mut sum = 0i64;
    for (before, mv, after) in walk {
        if before == root {
            while ev.ply() > 0 {
                ev.pop();
            }
        }
        ev.push(before, *mv, after);
        if evaluate {
            sum += ev.evaluate(after) as i64;
        }
    }
    while ev.ply() > 0 {
        ev.pop();
    }
    sum
}

/// On-CPU time of this thread in ns (Linux `/proc/thread-self/schedstat`), so timings
/// stay meaningful on a machine shared with other jobs; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Times `f` (which does `n` evaluations): (wall ns/eval, CPU ns/eval if known).
pub(super) fn time_it(n: f64, mut f: impl FnMut()) -> (f64, Option<f64>) {
    let cpu0 = thread_cpu_ns();
    let t = Instant::now();
    f();
    let wall = t.elapsed().as_secs_f64() * 1e9 / n;
    let cpu = match (cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => Some((b - a) as f64 / n),
        _ => None,
    };
    (wall, cpu)
}

pub(super) fn show(label: &str, (wall, cpu): (f64, Option<f64>)) {
    match cpu {
        Some(c) => println!("{label:<28} {c:>9.0} ns CPU  ({wall:.0} ns wall)"),
        None => println!("{label:<28} {wall:>9.0} ns wall"),
    }
}

/// The head's stages on the accumulators of 512 of the walk's positions (computed from
/// scratch, then cycled so they stay in cache as in a search): what the activations
/// and `l1` cost of the whole head (the rest is `l2` and `out`), and how sparse `l1`'s
/// input is.
fn head_stages(
    net: &Network,
    path: Path,
    walk: &[(Board, cozy_chess::Move, Board)],
    sink: &mut i64,
) {
    use crate::eval::shape::L1;
    let q = &net.q;
    let h = q.hidden;
    let inputs = 2 * h;
    // (side to move's accumulator, the other's, halfmove clock) per position.
    let positions: Vec<(Vec<i16>, Vec<i16>, usize)> = walk
        .iter()
        .take(512)
        .map(|(_, _, board)| {
            let stm = board.side_to_move();
            let (mut us, mut them) = (vec![0i16; h], vec![0i16; h]);
            crate::eval::accumulator::refresh(q, board, stm, &mut us);
            crate::eval::accumulator::refresh(q, board, !stm, &mut them);
            (us, them, crate::eval::features::hmc(board))
        })
        .collect();
    let activate = |(us, them, hmc): &(Vec<i16>, Vec<i16>, usize), x: &mut [u8]| {
        q.activate(path, us, them, *hmc, x)
    };
    let mut x = vec![0u8; inputs];
    let (mut nonzero, mut live_groups) = (0usize, 0usize);
    for p in &positions {
        activate(p, &mut x);
        nonzero += x.iter().filter(|&&v| v != 0).count();
        live_groups += x
            .chunks_exact(4)
            .filter(|g| g.iter().any(|&v| v != 0))
            .count();
    }
    let per = |k: usize, of: usize| 100.0 * k as f64 / (positions.len() * of) as f64;
    println!(
        "  l1 input: {:.1} % nonzero, {:.1} % of groups of four live",
        per(nonzero, inputs),
        per(live_groups, inputs / 4)
    );
    let mut groups = vec![0u16; inputs / 4 + 8];
    let mut s1 = [0i32; L1];
    let rounds = 400;
    let n = (rounds * positions.len()) as f64;
    let t_act = time_it(n, || {
        for _ in 0..rounds {
            for p in &positions {
                activate(p, &mut x);
                *sink += x[0] as i64;
            }
        }
    });
    let t_l1 = time_it(n, || {
        for _ in 0..rounds {
            for p in &positions {
                activate(p, &mut x);
                simd::l1_sparse(path, &x, &q.l1_w, &q.l1_b, &mut groups, &mut s1);
                *sink += s1[0] as i64;
            }
        }
    });
    let mut head_scratch = q.scratch();
    let t_head = time_it(n, || {
        for _ in 0..rounds {
            for (us, them, hmc) in &positions {
                let y = q.forward(path, us, them, *hmc, 32, &mut head_scratch);
                *sink += (y * 1000.0) as i64;
            }
        }
    });
    show("  head: activations", t_act);
    show("  head: activations + l1", t_l1);
    show("  head: all of forward", t_head);
}

/// Times the kernels on `net` (default: the embedded one) over random playouts from
/// `seed`, printing one line per measurement.
pub fn run(net: Option<&str>, seed: u64) -> Result<(), String> {
    let net = match net {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
            Arc::new(Network::from_bytes(&bytes, path)?)
        }
        None => crate::eval::current_network(),
    };
    println!("network: {}", net.description());
    let walk = random_walk(20_000, seed);
    let root = Board::default();
    let mut sink = 0i64;
    let rounds = 20;
    let n = (rounds * walk.len()) as f64;
    // Every kernel version the CPU runs, fastest (the engine's choice) last.
    for path in Path::all_available() {
        let mut ev = Evaluator::with_path(Arc::clone(&net), path);
        ev.reset_keep_network(&root);
        // push + evaluate + pop per position, as at a search node that is evaluated.
        let total = time_it(n, || {
            for _ in 0..rounds {
                sink += follow_games(&mut ev, &walk, &root, true);
            }
        });
        // push + pop alone: what a node that is never evaluated costs (lazy update).
        let push = time_it(n, || {
            for _ in 0..rounds {
                sink += follow_games(&mut ev, &walk, &root, false);
            }
        });
        // The head alone, on an accumulator that is already up to date.
        let eval = time_it(n, || {
            for _ in 0..rounds {
                for (_, _, after) in &walk {
                    sink += ev.evaluate(after) as i64;
                }
            }
        });
        println!(
            "kernels: {}{}",
            path.name(),
            if path == Path::best() {
                " (used by the engine)"
            } else {
                ""
            }
        );
        show("  push+evaluate+pop:", total);
        show("  push+pop (not evaluated):", push);
        show("  evaluate (head only):", eval);
        head_stages(&net, path, &walk, &mut sink);
    }
    // Candle: one position per forward call (features built each time).
    let m = 2000;
    let mut failed = None;
    let candle = time_it(m as f64, || {
        for (_, _, after) in walk.iter().take(m) {
            match net.reference_cp(after) {
                Ok(cp) => sink += cp as i64,
                Err(e) => failed = Some(e),
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    show("candle forward (1 pos):", candle);
    println!("(checksum {sink})");
    Ok(())
}
