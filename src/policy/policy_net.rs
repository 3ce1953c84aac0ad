//! The self-play move policy (issue 57 item 1): what the alpha-beta search would play,
//! learnt from Rookery's own games and used as the MCTS prior. The human prior's board
//! and move encodings ([`super::moves`]) without any rating or time conditioning: the
//! mover's 782 sparse features → ReLU(h) → a d-wide position vector; a legal move's
//! logit is that vector dotted with the sum of its three embedding rows; softmax over
//! the legal moves only. The engine's forward pass (no candle per call) sums the first
//! layer in i16 ([`super::first_layer`]) and runs the second in f32 ([`super::kernel`]);
//! a float reference ([`PolicyNet::position_vector_exact`]) equals the trainer's candle
//! graph (`train::policy::model`) within float rounding, and the engine's pass differs
//! from it by the weights' rounding (logits within 0.01 on the embedded net).
//!
//! The tensors carry a `policy.` prefix so that a human prior file (or a value net) is
//! refused by name rather than misread when its widths happen to fit.

use std::path::Path;

use cozy_chess::{Board, Move};
use safetensors::SafeTensors;

use super::first_layer::QuantisedLayer;
use super::kernel;
use super::moves::{legal_moves, move_rows, MOVE_ROWS};
use super::network::f32_tensor;
use super::tactics::{Threats, TACTIC_ROWS};
use super::threat_features::{board_inputs, input_count, THREAT_INPUTS};
use crate::eval::simd::{self, with_avx2};

/// Names of the net's tensors.
pub const TENSORS: [&str; 5] = [
    "policy.l1.weight",
    "policy.l1.bias",
    "policy.l2.weight",
    "policy.l2.bias",
    "policy.moves",
];

/// Widths of the two layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyShape {
    /// Hidden layer over the sparse inputs (ReLU).
    pub hidden: usize,
    /// Position vector, dotted with each move's embedding.
    pub d: usize,
    /// Whether each move also has a tactical row ([`super::tactics`]); the first nets
    /// (policy-sp1, policy-mz1, policy-mz2) do not.
    pub tactics: bool,
    /// Whether the board inputs carry threat variants ([`super::threat_features`]); nets
    /// before policy-sp4 do not.
    pub threat_inputs: bool,
}

impl PolicyShape {
    /// Rows of the move embedding table.
    pub fn move_rows(&self) -> usize {
        MOVE_ROWS + if self.tactics { TACTIC_ROWS } else { 0 }
    }

    /// Rows of the first layer: the board inputs this net reads.
    pub fn inputs(&self) -> usize {
        input_count(self.threat_inputs)
    }

    /// The mover's active board inputs of `board` for a net of this shape, appended to
    /// `out`.
    pub fn board_features(&self, board: &Board, out: &mut Vec<u16>) {
        board_inputs(board, self.threat_inputs, out);
    }
}

/// Expected shape of tensor `name` (one of [`TENSORS`]) for widths `s`.
pub fn tensor_shape(name: &str, s: PolicyShape) -> Vec<usize> {
    match name {
        "policy.l1.weight" => vec![s.inputs(), s.hidden],
        "policy.l1.bias" => vec![s.hidden],
        "policy.l2.weight" => vec![s.hidden, s.d],
        "policy.l2.bias" => vec![s.d],
        _ => vec![s.move_rows(), s.d],
    }
}

/// Widest first layer the engine's kernel takes (its sums live on the stack).
pub const MAX_HIDDEN: usize = 1024;

/// The policy's weights, input-major as stored, and the first layer in integers (what
/// the engine runs; the float one is the reference it is tested against).
pub struct PolicyNet {
    pub shape: PolicyShape,
    l1: QuantisedLayer,
    l1_weight: Vec<f32>,
    l1_bias: Vec<f32>,
    l2_weight: Vec<f32>,
    l2_bias: Vec<f32>,
    moves: Vec<f32>,
}

fn read_f32(st: &SafeTensors, name: &str, want: &[usize]) -> Result<Vec<f32>, String> {
    let (shape, values) = f32_tensor(st, name, "a self-play policy net")?;
    if shape != want {
        return Err(format!("tensor '{name}' is {shape:?}, expected {want:?}"));
    }
    Ok(values)
}

impl PolicyNet {
    /// Reads a net file.
    pub fn load(path: &Path) -> Result<PolicyNet, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read policy net '{}': {e}", path.display()))?;
        PolicyNet::from_bytes(&bytes).map_err(|e| format!("policy net '{}': {e}", path.display()))
    }

    /// Parses safetensors bytes, checking every tensor's dtype and shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<PolicyNet, String> {
        let st =
            SafeTensors::deserialize(bytes).map_err(|e| format!("not a safetensors file ({e})"))?;
        let width = |name: &str| -> Result<usize, String> {
            let t = st
                .tensor(name)
                .map_err(|_| format!("no tensor '{name}': not a self-play policy net"))?;
            match t.shape() {
                [_, w] if *w > 0 => Ok(*w),
                s => Err(format!(
                    "tensor '{name}' has shape {s:?}, expected a matrix"
                )),
            }
        };
        // The kind of net shows in the row counts: threat inputs in the first layer's,
        // tactical rows in the move table's.
        let rows = |name: &str| -> Result<Option<usize>, String> {
            let t = st
                .tensor(name)
                .map_err(|_| format!("no tensor '{name}': not a self-play policy net"))?;
            Ok(t.shape().first().copied())
        };
        let (l1_rows, table_rows) = (rows("policy.l1.weight")?, rows("policy.moves")?);
        let shape = PolicyShape {
            hidden: width("policy.l1.weight")?,
            d: width("policy.l2.weight")?,
            tactics: table_rows == Some(MOVE_ROWS + TACTIC_ROWS),
            threat_inputs: l1_rows == Some(THREAT_INPUTS),
        };
        if shape.hidden > MAX_HIDDEN {
            return Err(format!(
                "a first layer of {} is wider than the {MAX_HIDDEN} the engine takes",
                shape.hidden
            ));
        }
        let get = |name: &str| read_f32(&st, name, &tensor_shape(name, shape));
        let (l1_weight, l1_bias) = (get(TENSORS[0])?, get(TENSORS[1])?);
        Ok(PolicyNet {
            shape,
            l1: QuantisedLayer::new(&l1_weight, &l1_bias),
            l1_weight,
            l1_bias,
            l2_weight: get(TENSORS[2])?,
            l2_bias: get(TENSORS[3])?,
            moves: get(TENSORS[4])?,
        })
    }

    /// The position vector of the mover's active `features` into `out`: the integer
    /// first layer, then the float second one over its positive units.
    pub fn position_vector(&self, features: &[u16], out: &mut Vec<f32>) {
        with_avx2(
            #[inline(always)]
            || self.position_vector_inline(features, out),
        )
    }

    #[inline(always)]
    fn position_vector_inline(&self, features: &[u16], out: &mut Vec<f32>) {
        let mut sums = [0i16; MAX_HIDDEN];
        let sums = &mut sums[..self.shape.hidden];
        self.l1.accumulate(features, sums);
        out.clear();
        out.resize(self.shape.d, 0.0);
        kernel::second_layer(
            simd::Path::best(),
            sums,
            1.0 / self.l1.scale(),
            &self.l2_weight,
            &self.l2_bias,
            out,
        );
    }

    /// The position vector with the first layer in f32, as trained: the reference that
    /// the engine's integer layer is measured against.
    pub fn position_vector_exact(&self, features: &[u16], out: &mut Vec<f32>) {
        let (h, d, inputs) = (self.shape.hidden, self.shape.d, self.shape.inputs());
        let mut hidden = self.l1_bias.clone();
        for &f in features {
            let f = f as usize;
            if f < inputs {
                let row = &self.l1_weight[f * h..(f + 1) * h];
                hidden.iter_mut().zip(row).for_each(|(a, w)| *a += w);
            }
        }
        out.clear();
        out.extend_from_slice(&self.l2_bias);
        for (i, x) in hidden.into_iter().enumerate() {
            if x > 0.0 {
                let row = &self.l2_weight[i * d..(i + 1) * d];
                out.iter_mut().zip(row).for_each(|(o, w)| *o += x * w);
            }
        }
    }

    /// The logit of a move given by its three embedding rows and its tactical row (not
    /// read by a net without tactics).
    pub fn move_logit(&self, position: &[f32], rows: [u16; 3], tactic: u16) -> f32 {
        with_avx2(
            #[inline(always)]
            || self.move_logit_inline(position, rows, tactic),
        )
    }

    #[inline(always)]
    fn move_logit_inline(&self, position: &[f32], rows: [u16; 3], tactic: u16) -> f32 {
        let d = self.shape.d;
        let row = |r: u16| &self.moves[r as usize * d..(r as usize + 1) * d];
        let [a, b, c] = rows.map(row);
        let t: &[f32] = if self.shape.tactics { row(tactic) } else { &[] };
        lane_dot(&position[..d], a, b, c, t)
    }

    /// What scoring the moves of `board` one at a time needs: its position vector and
    /// (for a net with tactical rows) its threats. Alpha-beta's move ordering scores only
    /// the quiet moves a node generates, so it prepares once and asks per move.
    pub fn prepare(&self, board: &Board) -> PreparedPosition {
        with_avx2(
            #[inline(always)]
            || self.prepare_inline(board),
        )
    }

    #[inline(always)]
    fn prepare_inline(&self, board: &Board) -> PreparedPosition {
        let mut features = Vec::with_capacity(40);
        self.shape.board_features(board, &mut features);
        let mut position = Vec::with_capacity(self.shape.d);
        self.position_vector_inline(&features, &mut position);
        PreparedPosition {
            position,
            threats: self.shape.tactics.then(|| Threats::new(board)),
        }
    }

    /// The logit of `mv`, a legal move of the `board` that `prepared` was made from.
    pub fn prepared_logit(&self, prepared: &PreparedPosition, board: &Board, mv: Move) -> f32 {
        with_avx2(
            #[inline(always)]
            || self.prepared_logit_inline(prepared, board, mv),
        )
    }

    #[inline(always)]
    fn prepared_logit_inline(&self, prepared: &PreparedPosition, board: &Board, mv: Move) -> f32 {
        let tactic = prepared.threats.as_ref().map_or(0, |t| t.row(board, mv));
        self.move_logit_inline(&prepared.position, move_rows(board, mv), tactic)
    }

    /// One logit per move of `moves` (legal moves of `board`) into `out`.
    pub fn logits(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>) {
        with_avx2(
            #[inline(always)]
            || {
                let prepared = self.prepare_inline(board);
                out.clear();
                // A plain loop, not `extend`: the iterator's code would not be inlined here
                // and so would miss the AVX2 copy.
                for &mv in moves {
                    out.push(self.prepared_logit_inline(&prepared, board, mv));
                }
            },
        )
    }

    /// The legal moves of `board` with their probabilities (summing to 1), in
    /// cozy-chess order; empty when the game is over.
    pub fn probabilities(&self, board: &Board) -> Vec<(Move, f32)> {
        let moves = legal_moves(board);
        let mut p = Vec::with_capacity(moves.len());
        self.logits(board, &moves, &mut p);
        softmax_in_place(&mut p, 1.0);
        moves.into_iter().zip(p).collect()
    }
}

/// Lanes of [`lane_dot`]'s partial sums: one AVX2 register of f32.
const LANES: usize = 8;

/// `Σ_k position[k] · (a[k] + b[k] + c[k] + t[k])` (`t` empty: left out), summed in
/// [`LANES`] independent partial sums: one running sum is a chain of dependent float
/// additions that cannot be vectorised. All slices are `position`'s length (`t` or empty).
#[inline(always)]
fn lane_dot(position: &[f32], a: &[f32], b: &[f32], c: &[f32], t: &[f32]) -> f32 {
    let d = position.len();
    let (a, b, c) = (&a[..d], &b[..d], &c[..d]);
    let mut lanes = [0f32; LANES];
    let (p8, rest) = position.as_chunks::<LANES>();
    let whole = d - rest.len();
    let (a8, b8, c8) = (
        a.as_chunks::<LANES>().0,
        b.as_chunks::<LANES>().0,
        c.as_chunks::<LANES>().0,
    );
    if t.is_empty() {
        for (((p, a), b), c) in p8.iter().zip(a8).zip(b8).zip(c8) {
            for l in 0..LANES {
                lanes[l] += p[l] * (a[l] + b[l] + c[l]);
            }
        }
    } else {
        for ((((p, a), b), c), t) in p8
            .iter()
            .zip(a8)
            .zip(b8)
            .zip(c8)
            .zip(t[..d].as_chunks::<LANES>().0)
        {
            for l in 0..LANES {
                lanes[l] += p[l] * (a[l] + b[l] + c[l] + t[l]);
            }
        }
    }
    for k in whole..d {
        let t = if t.is_empty() { 0.0 } else { t[k] };
        lanes[0] += position[k] * (a[k] + b[k] + c[k] + t);
    }
    lanes.iter().sum()
}

/// A position ready for its moves' logits ([`PolicyNet::prepare`]).
pub struct PreparedPosition {
    position: Vec<f32>,
    threats: Option<Threats>,
}

impl PreparedPosition {
    /// The position vector that each move's embedding is dotted with.
    pub fn position(&self) -> &[f32] {
        &self.position
    }
}

/// Logits to probabilities in place, at `temperature` (max-subtracted, so large logits
/// do not overflow).
pub fn softmax_in_place(values: &mut [f32], temperature: f32) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in values.iter_mut() {
        *v = ((*v - max) / temperature).exp();
        sum += *v;
    }
    for v in values.iter_mut() {
        *v /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use safetensors::Dtype;

    /// A small net with weights from a fixed formula, as safetensors bytes.
    fn toy_net_bytes(shape: PolicyShape) -> Vec<u8> {
        let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = TENSORS
            .iter()
            .enumerate()
            .map(|(t, name)| {
                let dims = tensor_shape(name, shape);
                let n: usize = dims.iter().product();
                let bytes = (0..n)
                    .flat_map(|i| {
                        let x = ((i * 7919 + t * 104_729) % 1000) as f32 / 1000.0 - 0.5;
                        (x * 0.3).to_le_bytes()
                    })
                    .collect();
                (name.to_string(), dims, bytes)
            })
            .collect();
        let views: Vec<(String, safetensors::tensor::TensorView)> = tensors
            .iter()
            .map(|(n, dims, b)| {
                let view = safetensors::tensor::TensorView::new(Dtype::F32, dims.clone(), b)
                    .expect("consistent view");
                (n.clone(), view)
            })
            .collect();
        safetensors::serialize(views, None).expect("serialises")
    }

    const SMALL: PolicyShape = PolicyShape {
        hidden: 16,
        d: 8,
        tactics: false,
        threat_inputs: false,
    };

    #[test]
    fn probabilities_cover_the_legal_moves_and_sum_to_one() {
        for shape in [
            SMALL,
            PolicyShape {
                tactics: true,
                ..SMALL
            },
            PolicyShape {
                tactics: true,
                threat_inputs: true,
                ..SMALL
            },
        ] {
            let net = PolicyNet::from_bytes(&toy_net_bytes(shape)).unwrap();
            assert_eq!(
                net.shape, shape,
                "the first layer's and the table's rows tell the kind of net"
            );
            probabilities_sum_to_one(&net);
        }
    }

    fn probabilities_sum_to_one(net: &PolicyNet) {
        let fens = [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/8/8/4k3/8/8/3p4/K7 b - - 0 1",
            "rnbqkbnr/ppppp2p/5p2/6p1/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 3",
        ];
        for fen in fens {
            let board: Board = fen.parse().unwrap();
            let probs = net.probabilities(&board);
            let legal = legal_moves(&board);
            assert_eq!(probs.len(), legal.len());
            assert!(probs.iter().all(|(m, p)| legal.contains(m) && *p > 0.0));
            let sum: f32 = probs.iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-4, "{fen}: sum {sum}");
        }
        // Mate: no moves, no probabilities.
        let mated: Board = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
            .parse()
            .unwrap();
        assert!(net.probabilities(&mated).is_empty());
    }

    #[test]
    fn the_integer_first_layer_keeps_the_embedded_nets_choices() {
        let net = crate::policy::default_policy();
        let (mut worst, mut same_top, mut positions) = (0f32, 0, 0);
        let (mut features, mut exact, mut ours) = (Vec::new(), Vec::new(), Vec::new());
        for (board, _, _) in crate::bench::eval::random_walk(600, 11) {
            let moves = legal_moves(&board);
            if moves.len() < 2 {
                continue;
            }
            features.clear();
            net.shape.board_features(&board, &mut features);
            net.position_vector_exact(&features, &mut exact);
            net.position_vector(&features, &mut ours);
            let threats = Threats::new(&board);
            let logits = |position: &[f32]| -> Vec<f32> {
                let logit = |&mv: &Move| {
                    let rows = move_rows(&board, mv);
                    net.move_logit(position, rows, threats.row(&board, mv))
                };
                moves.iter().map(logit).collect()
            };
            let (a, b) = (logits(&exact), logits(&ours));
            worst = a
                .iter()
                .zip(&b)
                .map(|(x, y)| (x - y).abs())
                .fold(worst, f32::max);
            let top = |l: &[f32]| (0..l.len()).max_by(|&i, &j| l[i].total_cmp(&l[j]));
            same_top += (top(&a) == top(&b)) as usize;
            positions += 1;
        }
        eprintln!(
            "{positions} positions: largest logit difference {worst}, same top move {same_top}"
        );
        assert!(worst < 0.03, "largest logit difference {worst}");
        assert!(
            same_top * 100 >= positions * 99,
            "{same_top} of {positions}"
        );
    }

    #[test]
    fn a_wrong_shape_a_missing_tensor_and_garbage_are_refused() {
        let err = |bytes: &[u8]| PolicyNet::from_bytes(bytes).err().expect("refused");
        assert!(err(b"not a net").contains("not a safetensors file"));
        // The human prior has no `policy.` tensors.
        let human = err(crate::policy::DEFAULT_PRIOR);
        assert!(human.contains("not a self-play policy net"), "{human}");
        // A bias one wider than its layer.
        let good = toy_net_bytes(SMALL);
        let st = SafeTensors::deserialize(&good).unwrap();
        let mut owned: Vec<(String, Vec<usize>, Vec<u8>)> = st
            .tensors()
            .into_iter()
            .map(|(n, t)| (n, t.shape().to_vec(), t.data().to_vec()))
            .collect();
        for (name, dims, data) in &mut owned {
            if name == "policy.l1.bias" {
                dims[0] += 1;
                data.extend_from_slice(&0f32.to_le_bytes());
            }
        }
        let views: Vec<(String, safetensors::tensor::TensorView)> = owned
            .iter()
            .map(|(n, d, b)| {
                let v = safetensors::tensor::TensorView::new(Dtype::F32, d.clone(), b).unwrap();
                (n.clone(), v)
            })
            .collect();
        let bad = safetensors::serialize(views, None).unwrap();
        let msg = err(&bad);
        assert!(
            msg.contains("policy.l1.bias") && msg.contains("expected"),
            "{msg}"
        );
    }
}
