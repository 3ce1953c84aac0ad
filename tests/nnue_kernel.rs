//! The quantised kernel against candle's f32 forward pass, every kernel version against
//! the others, output buckets, and colour symmetry.

use std::sync::Arc;

use cozy_chess::Board;

use rookery::eval::network::Network;
use rookery::eval::{self, DEFAULT_NET};

mod nnue_support;
use nnue_support::*;

/// Every kernel version this CPU runs (portable, AVX2, AVX-512 VNNI) gives the same
/// accumulators and the same output bits over random games with push/pop, null moves and
/// resets, so a machine without AVX2 plays the same chess.
#[test]
fn simd_and_portable_kernels_agree() {
    check_paths_agree(default_net());
    check_paths_agree(mirrored_net());
}

/// The quantised kernel agrees with candle's f32 forward pass on 1,200 random-playout
/// positions: every error within [`KERNEL_CP_BOUND`] cp + 2 % of |eval|, mean error below
/// [`KERNEL_CP_MEAN`] cp (each net's own figures are on its card in docs/net.md).
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
            // nets/ also holds the human model's nets (src/policy, src/human) and the
            // self-play policies (src/policy/policy_net.rs), which are not evaluation nets.
            if rookery::policy::PriorNet::from_bytes(&bytes).is_ok()
                || rookery::human::combiner::Combiner::from_bytes(&bytes).is_ok()
                || rookery::policy::PolicyNet::from_bytes(&bytes).is_ok()
            {
                continue;
            }
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
