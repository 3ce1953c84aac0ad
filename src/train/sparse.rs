//! A sparse feature-transformer op for training: a candle `CustomOp1` on `ft.weight`
//! ([H, 782]) that computes `Σ active columns + hmc · column 781` for every position of a
//! batch (forward) and scatters the output gradient back onto those columns (backward).
//! It does what `ft.forward(dense_features) - bias` does, in O(active · H) per position
//! instead of O(782 · H), which is what makes CPU training fast enough.

use std::sync::Arc;

use candle_core::{CpuStorage, CustomOp1, Layout, Shape, Tensor};

use crate::eval::features::{HMC, INPUTS, MAX_ACTIVE};

/// Padding entry in [`SparseBatch::idx`].
pub const PAD: u16 = u16::MAX;

/// Active binary feature indices (`MAX_ACTIVE` per position, padded) and halfmove-clock
/// values of one perspective of a batch.
#[derive(Default, Clone)]
pub struct SparseBatch {
    pub idx: Vec<u16>,
    pub hmc: Vec<f32>,
}

impl SparseBatch {
    pub fn len(&self) -> usize {
        self.hmc.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hmc.is_empty()
    }

    pub fn clear(&mut self) {
        self.idx.clear();
        self.hmc.clear();
    }

    /// Appends one position given as a dense 782-float row.
    pub fn push_dense(&mut self, row: &[f32]) {
        let start = self.idx.len();
        for (f, &v) in row[..HMC].iter().enumerate() {
            if v != 0.0 && self.idx.len() < start + MAX_ACTIVE {
                self.idx.push(f as u16);
            }
        }
        self.idx.resize(start + MAX_ACTIVE, PAD);
        self.hmc.push(row[HMC]);
    }
}

/// The op; holds its batch.
pub struct SparseFt(pub Arc<SparseBatch>);

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8)
}

/// `[H][782]` (row-major) → `[782][H]`.
fn transpose(w: &[f32], h: usize) -> Vec<f32> {
    let mut t = vec![0f32; w.len()];
    for j in 0..h {
        for f in 0..INPUTS {
            t[f * h + j] = w[j * INPUTS + f];
        }
    }
    t
}

impl CustomOp1 for SparseFt {
    fn name(&self) -> &'static str {
        "rookery-sparse-ft"
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let w = match storage {
            CpuStorage::F32(v) => v.as_slice(),
            _ => candle_core::bail!("sparse-ft: weight must be f32"),
        };
        let (h, inputs) = layout.shape().dims2()?;
        if inputs != INPUTS {
            candle_core::bail!("sparse-ft: weight must have {INPUTS} columns, has {inputs}");
        }
        let w = match layout.contiguous_offsets() {
            Some((a, b)) => &w[a..b],
            None => candle_core::bail!("sparse-ft: weight must be contiguous"),
        };
        let wt = transpose(w, h);
        let batch = &self.0;
        let n = batch.len();
        let mut out = vec![0f32; n * h];
        let per = n.div_ceil(threads()).max(1);
        std::thread::scope(|s| {
            for (c, chunk) in out.chunks_mut(per * h).enumerate() {
                let wt = &wt;
                s.spawn(move || {
                    for (r, row) in chunk.chunks_mut(h).enumerate() {
                        let b = c * per + r;
                        for &f in &batch.idx[b * MAX_ACTIVE..(b + 1) * MAX_ACTIVE] {
                            if f == PAD {
                                break;
                            }
                            let col = &wt[f as usize * h..(f as usize + 1) * h];
                            row.iter_mut().zip(col).for_each(|(o, w)| *o += w);
                        }
                        let v = batch.hmc[b];
                        if v != 0.0 {
                            let col = &wt[HMC * h..(HMC + 1) * h];
                            row.iter_mut().zip(col).for_each(|(o, w)| *o += v * w);
                        }
                    }
                });
            }
        });
        Ok((CpuStorage::F32(out), Shape::from((n, h))))
    }

    fn bwd(
        &self,
        arg: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> candle_core::Result<Option<Tensor>> {
        let (h, _) = arg.dims2()?;
        let g = grad_res.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
        let batch = &self.0;
        let n = batch.len();
        let per = n.div_ceil(threads()).max(1);
        let parts: Vec<Vec<f32>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n.div_ceil(per))
                .map(|c| {
                    let g = &g;
                    s.spawn(move || {
                        let mut gw = vec![0f32; INPUTS * h];
                        for b in c * per..((c + 1) * per).min(n) {
                            let gr = &g[b * h..(b + 1) * h];
                            for &f in &batch.idx[b * MAX_ACTIVE..(b + 1) * MAX_ACTIVE] {
                                if f == PAD {
                                    break;
                                }
                                let col = &mut gw[f as usize * h..(f as usize + 1) * h];
                                col.iter_mut().zip(gr).for_each(|(o, x)| *o += x);
                            }
                            let v = batch.hmc[b];
                            if v != 0.0 {
                                let col = &mut gw[HMC * h..(HMC + 1) * h];
                                col.iter_mut().zip(gr).for_each(|(o, x)| *o += v * x);
                            }
                        }
                        gw
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|t| t.join().unwrap_or_default())
                .collect()
        });
        let mut sum = vec![0f32; INPUTS * h];
        for p in parts {
            if p.len() != sum.len() {
                candle_core::bail!("sparse-ft: a backward worker failed");
            }
            sum.iter_mut().zip(&p).for_each(|(a, b)| *a += b);
        }
        // [782][H] → [H][782]
        let mut out = vec![0f32; INPUTS * h];
        for f in 0..INPUTS {
            for j in 0..h {
                out[j * INPUTS + f] = sum[f * h + j];
            }
        }
        Ok(Some(Tensor::from_vec(out, (h, INPUTS), arg.device())?))
    }
}

/// Pre-activation accumulators [B, H] of one perspective: sparse columns + bias.
pub fn ft_forward(
    weight: &Tensor,
    bias: &Tensor,
    batch: Arc<SparseBatch>,
) -> candle_core::Result<Tensor> {
    weight.apply_op1(SparseFt(batch))?.broadcast_add(bias)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, Var};

    /// Forward and weight gradient of the sparse op equal the dense matmul's.
    #[test]
    fn sparse_op_matches_dense() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let (h, n) = (8usize, 5usize);
        let w = Var::randn(0f32, 0.5, (h, INPUTS), &dev)?;
        let bias = Tensor::zeros(h, DType::F32, &dev)?;
        let boards = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 17 1",
            "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
            "8/8/8/8/8/8/8/K6k w - - 99 80",
            "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
        ];
        let mut dense = Vec::new();
        let mut sb = SparseBatch::default();
        for fen in boards {
            let b = crate::chess::parse_fen(fen).map_err(candle_core::Error::msg)?;
            let row = crate::eval::features::dense(&b, b.side_to_move());
            sb.push_dense(&row);
            dense.extend(row);
        }
        let x = Tensor::from_vec(dense, (n, INPUTS), &dev)?;
        let coef = Tensor::randn(0f32, 1.0, (n, h), &dev)?;
        let ys = ft_forward(w.as_tensor(), &bias, Arc::new(sb))?;
        let yd = x.matmul(&w.as_tensor().t()?)?;
        let diff = (&ys - &yd)?.abs()?.max_all()?.to_scalar::<f32>()?;
        assert!(diff < 1e-4, "forward differs by {diff}");
        let gs = (ys * &coef)?.sum_all()?.backward()?;
        let gd = (yd * &coef)?.sum_all()?.backward()?;
        let (gs, gd) = (gs.get(w.as_tensor()), gd.get(w.as_tensor()));
        match (gs, gd) {
            (Some(a), Some(b)) => {
                let diff = (a - b)?.abs()?.max_all()?.to_scalar::<f32>()?;
                assert!(diff < 1e-4, "gradient differs by {diff}");
            }
            _ => panic!("missing gradient"),
        }
        Ok(())
    }
}
