//! `rookery train --bench-eval`: times the search kernel (incremental push + evaluate +
//! pop) and candle's reference forward pass on the same positions.

use std::sync::Arc;
use std::time::Instant;

use cozy_chess::Board;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::TrainArgs;
use crate::eval::network::Network;
use crate::eval::simd::Path;
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

/// On-CPU time of this thread in ns (Linux `/proc/thread-self/schedstat`), so timings
/// stay meaningful on a machine shared with other jobs; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Times `f` (which does `n` evaluations): (wall ns/eval, CPU ns/eval if known).
fn time_it(n: f64, mut f: impl FnMut()) -> (f64, Option<f64>) {
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

fn show(label: &str, (wall, cpu): (f64, Option<f64>)) {
    match cpu {
        Some(c) => println!("{label:<28} {c:>9.0} ns CPU  ({wall:.0} ns wall)"),
        None => println!("{label:<28} {wall:>9.0} ns wall"),
    }
}

pub fn run(args: &TrainArgs) -> Result<(), String> {
    let net = match &args.net {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
            Arc::new(Network::from_bytes(&bytes, path)?)
        }
        None => crate::eval::current_network(),
    };
    println!("network: {}", net.description());
    let walk = random_walk(20_000, args.seed);
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
                for (before, mv, after) in &walk {
                    ev.push(before, *mv, after);
                    sink += ev.evaluate(after) as i64;
                    ev.pop();
                }
            }
        });
        // push + pop alone: what a node that is never evaluated costs (lazy update).
        let push = time_it(n, || {
            for _ in 0..rounds {
                for (before, mv, after) in &walk {
                    ev.push(before, *mv, after);
                    ev.pop();
                }
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
