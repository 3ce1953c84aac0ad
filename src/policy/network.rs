//! The human prior's forward pass in plain Rust (f32, no candle per call): the mover's
//! sparse features → ReLU(h1) → + rating/time embeddings → ReLU(h2) → a d-wide
//! position vector, dotted with each legal move's embedding; softmax over the legal
//! moves only. A move is three rows of the move table, four when the net has the
//! tactical block (`super::tactics`; the table's size says which). Equals the trainer's candle graph (`train::human::model`) within float
//! rounding (tests/human_prior.rs). Weights are read from safetensors; a file that is
//! not a prior net of a known shape is refused with a message naming what is wrong.

use std::collections::HashMap;
use std::path::Path;

use cozy_chess::{Board, Move};
use safetensors::{Dtype, SafeTensors};

use super::moves::{board_features, legal_moves, move_rows, MOVE_ROWS};
use super::shape::{
    rating_bucket, PriorShape, INPUTS, RATING_BUCKETS, RATING_SCALES, TIME_BUCKETS,
};
use super::tactics::{Threats, TACTIC_ROWS};

/// Names of the net's tensors, with their shapes as functions of the layer widths.
pub const TENSORS: [&str; 10] = [
    "l1.weight",
    "l1.bias",
    "l2.weight",
    "l2.bias",
    "mover.emb",
    "opp.emb",
    "time.emb",
    "l3.weight",
    "l3.bias",
    "moves.emb",
];

/// Expected shape of tensor `name` for layer widths `s`.
pub fn tensor_shape(name: &str, s: PriorShape) -> Vec<usize> {
    match name {
        "l1.weight" => vec![INPUTS, s.h1],
        "l1.bias" => vec![s.h1],
        "l2.weight" => vec![s.h1, s.h2],
        "l2.bias" => vec![s.h2],
        "mover.emb" | "opp.emb" => vec![s.rating_rows(), s.h2],
        "time.emb" => vec![TIME_BUCKETS, s.h2],
        "l3.weight" => vec![s.h2, s.d],
        "l3.bias" => vec![s.d],
        _ => vec![s.move_rows(), s.d],
    }
}

/// Rating scales of a net from the rows of its rating tables: Lichess alone, or all
/// of [`RATING_SCALES`].
pub fn scales_of_rows(rows: usize) -> Result<usize, String> {
    let all = RATING_SCALES.len();
    if rows == RATING_BUCKETS || rows == all * RATING_BUCKETS {
        Ok(rows / RATING_BUCKETS)
    } else {
        Err(format!(
            "tensor 'mover.emb' has {rows} rows, expected {RATING_BUCKETS} (Lichess) or {} (all {all} rating scales)",
            all * RATING_BUCKETS
        ))
    }
}

/// Who is to move, in the terms the prior is conditioned on (ratings on Lichess's scale:
/// a net trained on several scales is asked about its Lichess rows).
#[derive(Clone, Copy, Debug)]
pub struct PriorQuery {
    pub mover_rating: u16,
    pub opponent_rating: u16,
    /// `shape::time_bucket` of the game's time class.
    pub time_bucket: usize,
}

/// The prior net's weights, row-major as stored (input-major matrices).
pub struct PriorNet {
    pub shape: PriorShape,
    w: HashMap<&'static str, Vec<f32>>,
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `out += x · W` for `W` stored `[x.len()][out.len()]`, skipping zero inputs (ReLU
/// outputs are often zero).
fn add_vec_mat(out: &mut [f32], x: &[f32], w: &[f32]) {
    let n = out.len();
    for (i, &xi) in x.iter().enumerate() {
        if xi != 0.0 {
            for (o, wv) in out.iter_mut().zip(&w[i * n..(i + 1) * n]) {
                *o += xi * wv;
            }
        }
    }
}

impl PriorNet {
    /// Reads a net file.
    pub fn load(path: &Path) -> Result<PriorNet, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read net '{}': {e}", path.display()))?;
        PriorNet::from_bytes(&bytes).map_err(|e| format!("net '{}': {e}", path.display()))
    }

    /// Parses safetensors bytes, checking every tensor's dtype and shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<PriorNet, String> {
        let st =
            SafeTensors::deserialize(bytes).map_err(|e| format!("not a safetensors file ({e})"))?;
        let width = |name: &str, axis: usize| -> Result<usize, String> {
            let t = st
                .tensor(name)
                .map_err(|_| format!("no tensor '{name}': not a human prior net"))?;
            t.shape()
                .get(axis)
                .copied()
                .ok_or_else(|| format!("tensor '{name}' has shape {:?}", t.shape()))
        };
        let shape = PriorShape {
            h1: width("l1.weight", 1)?,
            h2: width("l2.weight", 1)?,
            d: width("l3.weight", 1)?,
            tactics: width("moves.emb", 0)? == MOVE_ROWS + TACTIC_ROWS,
            scales: scales_of_rows(width("mover.emb", 0)?)?,
        };
        let mut w = HashMap::new();
        for name in TENSORS {
            let (got, values) = f32_tensor(&st, name, "a human prior net")?;
            let want = tensor_shape(name, shape);
            if got != want {
                return Err(format!("tensor '{name}' is {got:?}, expected {want:?}"));
            }
            w.insert(name, values);
        }
        Ok(PriorNet { shape, w })
    }

    fn t(&self, name: &str) -> &[f32] {
        &self.w[name]
    }

    /// The first hidden layer (independent of the conditioning).
    pub fn hidden1(&self, features: &[u16]) -> Vec<f32> {
        let h1 = self.shape.h1;
        let w1 = self.t("l1.weight");
        let mut acc = self.t("l1.bias").to_vec();
        for &f in features {
            let f = f as usize;
            if f < INPUTS {
                for (a, w) in acc.iter_mut().zip(&w1[f * h1..(f + 1) * h1]) {
                    *a += w;
                }
            }
        }
        acc.iter_mut().for_each(|a| *a = a.max(0.0));
        acc
    }

    /// The position vector for a conditioning, from the first hidden layer.
    pub fn position_vector(&self, hidden1: &[f32], q: &PriorQuery) -> Vec<f32> {
        let h2 = self.shape.h2;
        let mut acc = self.t("l2.bias").to_vec();
        let rows = [
            ("mover.emb", rating_bucket(q.mover_rating)),
            ("opp.emb", rating_bucket(q.opponent_rating)),
            ("time.emb", q.time_bucket.min(TIME_BUCKETS - 1)),
        ];
        for (name, row) in rows {
            let e = &self.t(name)[row * h2..(row + 1) * h2];
            acc.iter_mut().zip(e).for_each(|(a, v)| *a += v);
        }
        add_vec_mat(&mut acc, hidden1, self.t("l2.weight"));
        acc.iter_mut().for_each(|a| *a = a.max(0.0));
        let mut h = self.t("l3.bias").to_vec();
        add_vec_mat(&mut h, &acc, self.t("l3.weight"));
        h
    }

    /// One logit per move, each move given by its three embedding rows and, when the
    /// net has the tactical block, its tactical row (`tactics[k]` for move `k`).
    pub fn logits(&self, h: &[f32], moves: &[[u16; 3]], tactics: &[u16]) -> Vec<f32> {
        let d = self.shape.d;
        let table = self.t("moves.emb");
        let row = |r: u16| dot(h, &table[r as usize * d..(r as usize + 1) * d]);
        moves
            .iter()
            .enumerate()
            .map(|(k, rows)| {
                let tactic = match self.shape.tactics {
                    true => row(tactics[k]),
                    false => 0.0,
                };
                rows.iter().map(|&r| row(r)).sum::<f32>() + tactic
            })
            .collect()
    }

    /// The tactical rows of `moves` when the net reads them, else an empty list.
    pub fn tactic_rows(&self, board: &Board, moves: &[Move]) -> Vec<u16> {
        if !self.shape.tactics {
            return Vec::new();
        }
        let threats = Threats::new(board);
        moves.iter().map(|&m| threats.row(board, m)).collect()
    }

    /// The legal moves of `board` with their probabilities (summing to 1), in
    /// cozy-chess order; empty when the game is over.
    pub fn probabilities(&self, board: &Board, q: &PriorQuery) -> Vec<(Move, f32)> {
        let moves = legal_moves(board);
        let mut features = Vec::with_capacity(40);
        board_features(board, &mut features);
        let h = self.position_vector(&self.hidden1(&features), q);
        let rows: Vec<[u16; 3]> = moves.iter().map(|&m| move_rows(board, m)).collect();
        let tactics = self.tactic_rows(board, &moves);
        let probs = softmax(&self.logits(&h, &rows, &tactics));
        moves.into_iter().zip(probs).collect()
    }
}

/// A finite f32 tensor of a safetensors file, with its shape; `kind` names what the
/// file should be, for the message when the tensor is missing.
pub fn f32_tensor(
    st: &SafeTensors,
    name: &str,
    kind: &str,
) -> Result<(Vec<usize>, Vec<f32>), String> {
    let t = st
        .tensor(name)
        .map_err(|_| format!("no tensor '{name}': not {kind}"))?;
    if t.dtype() != Dtype::F32 {
        return Err(format!("tensor '{name}' is {:?}, expected F32", t.dtype()));
    }
    let values: Vec<f32> = t
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if values.iter().any(|v| !v.is_finite()) {
        return Err(format!("tensor '{name}' holds a NaN or infinity"));
    }
    Ok((t.shape().to_vec(), values))
}

/// Softmax of logits (max-subtracted, so large logits do not overflow).
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}
