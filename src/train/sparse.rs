//! A sparse feature-transformer op for training: a candle `CustomOp2` on `ft.weight`
//! ([H, 782]) and `ft.bias` that computes `crelu(bias + Σ active columns + hmc · column
//! 781)` for both perspectives of every position of a batch (forward) and scatters the
//! output gradient back onto those columns and the bias (backward). It does what
//! `cat(crelu(ft.forward(stm)), crelu(ft.forward(other)))` does on dense features, in
//! O(active · H) per position instead of O(782 · H), which is what makes CPU training
//! fast enough.

use std::sync::Arc;

use candle_core::{CpuStorage, CustomOp2, Layout, Shape, Storage, Tensor};

use crate::eval::features::{HMC, MAX_ACTIVE};
use crate::eval::shape::INPUTS;
use crate::eval::simd::with_avx2;

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

    /// Appends one position given as a dense 782-float row (the tests' reference).
    #[cfg(test)]
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

fn contiguous_f32<'a>(storage: &'a CpuStorage, layout: &Layout) -> candle_core::Result<&'a [f32]> {
    let v = match storage {
        CpuStorage::F32(v) => v.as_slice(),
        _ => candle_core::bail!("sparse-ft: tensors must be f32"),
    };
    match layout.contiguous_offsets() {
        Some((a, b)) => Ok(&v[a..b]),
        None => candle_core::bail!("sparse-ft: tensors must be contiguous"),
    }
}

/// The feature transformer and its clipped ReLU for both perspectives of a batch, as one
/// candle op on (`ft.weight` [H, 782], `ft.bias` [H]): row b of the [B, 2H] output is
/// `[crelu(bias + Σ active columns of stm_b), crelu(bias + Σ … of other_b)]` (the
/// halfmove-clock column weighted by its value). Backward scatters the gradient, masked
/// where the clipped ReLU was flat, onto the active columns and sums it for the bias.
/// Fusing the activation and the concatenation saves candle several passes (and
/// allocations) over [B, H] tensors each way.
pub struct SparseFtCrelu {
    pub stm: Arc<SparseBatch>,
    pub other: Arc<SparseBatch>,
}

impl SparseFtCrelu {
    fn sides(&self) -> [&SparseBatch; 2] {
        [&self.stm, &self.other]
    }
}

/// `row += Σ columns of the active features of position b` (columns of `wt`, [782][H]).
#[inline(always)]
fn add_columns(row: &mut [f32], wt: &[f32], batch: &SparseBatch, b: usize) {
    let h = row.len();
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

/// Forward of rows `first..` of the output chunk `out` (2H floats a row).
#[inline(always)]
fn forward_rows(op: &SparseFtCrelu, out: &mut [f32], first: usize, wt: &[f32], bias: &[f32]) {
    let h = bias.len();
    for (r, row) in out.chunks_mut(2 * h).enumerate() {
        for (part, side) in row.chunks_mut(h).zip(op.sides()) {
            part.copy_from_slice(bias);
            add_columns(part, wt, side, first + r);
            part.iter_mut().for_each(|x| *x = x.clamp(0.0, 1.0));
        }
    }
}

/// Backward of positions `rows`: `gw` gets the weight gradient as [782][H] columns and
/// then the bias gradient (H).
#[inline(always)]
fn backward_rows(
    op: &SparseFtCrelu,
    rows: std::ops::Range<usize>,
    y: &[f32],
    g: &[f32],
    gw: &mut [f32],
) {
    let h = gw.len() / (INPUTS + 1);
    let mut pre = vec![0f32; h];
    let (cols, gb) = gw.split_at_mut(INPUTS * h);
    for b in rows {
        for (k, side) in op.sides().into_iter().enumerate() {
            let at = (2 * b + k) * h;
            // Clipped ReLU: the gradient passes where 0 < y < 1.
            for ((p, &yv), &gv) in pre.iter_mut().zip(&y[at..at + h]).zip(&g[at..at + h]) {
                *p = if yv > 0.0 && yv < 1.0 { gv } else { 0.0 };
            }
            gb.iter_mut().zip(&pre).for_each(|(o, x)| *o += x);
            for &f in &side.idx[b * MAX_ACTIVE..(b + 1) * MAX_ACTIVE] {
                if f == PAD {
                    break;
                }
                let col = &mut cols[f as usize * h..(f as usize + 1) * h];
                col.iter_mut().zip(&pre).for_each(|(o, x)| *o += x);
            }
            let v = side.hmc[b];
            if v != 0.0 {
                let col = &mut cols[HMC * h..(HMC + 1) * h];
                col.iter_mut().zip(&pre).for_each(|(o, x)| *o += v * x);
            }
        }
    }
}

impl CustomOp2 for SparseFtCrelu {
    fn name(&self) -> &'static str {
        "rookery-sparse-ft-crelu"
    }

    fn cpu_fwd(
        &self,
        w_storage: &CpuStorage,
        w_layout: &Layout,
        b_storage: &CpuStorage,
        b_layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (h, inputs) = w_layout.shape().dims2()?;
        if inputs != INPUTS {
            candle_core::bail!("sparse-ft: weight must have {INPUTS} columns, has {inputs}");
        }
        let w = contiguous_f32(w_storage, w_layout)?;
        let bias = contiguous_f32(b_storage, b_layout)?;
        if bias.len() != h {
            candle_core::bail!(
                "sparse-ft: bias has {} entries, weight {h} rows",
                bias.len()
            );
        }
        let n = self.stm.len();
        if self.other.len() != n {
            candle_core::bail!("sparse-ft: the two perspectives differ in size");
        }
        let wt = transpose(w, h);
        let mut out = vec![0f32; n * 2 * h];
        let per = n.div_ceil(threads()).max(1);
        std::thread::scope(|s| {
            for (c, chunk) in out.chunks_mut(per * 2 * h).enumerate() {
                let wt = &wt;
                s.spawn(move || {
                    with_avx2(
                        #[inline(always)]
                        || forward_rows(self, chunk, c * per, wt, bias),
                    )
                });
            }
        });
        Ok((CpuStorage::F32(out), Shape::from((n, 2 * h))))
    }

    fn bwd(
        &self,
        weight: &Tensor,
        _bias: &Tensor,
        res: &Tensor,
        grad_res: &Tensor,
    ) -> candle_core::Result<(Option<Tensor>, Option<Tensor>)> {
        let (h, _) = weight.dims2()?;
        // Read the output and its gradient in place (each is B × 2H floats).
        let (res, grad_res) = (res.contiguous()?, grad_res.contiguous()?);
        let (y_guard, y_layout) = res.storage_and_layout();
        let (g_guard, g_layout) = grad_res.storage_and_layout();
        let (y, g) = match (&*y_guard, &*g_guard) {
            (Storage::Cpu(ys), Storage::Cpu(gs)) => {
                (contiguous_f32(ys, y_layout)?, contiguous_f32(gs, g_layout)?)
            }
            _ => candle_core::bail!("sparse-ft: backward runs on the CPU only"),
        };
        let n = self.stm.len();
        if y.len() != n * 2 * h || g.len() != y.len() {
            candle_core::bail!("sparse-ft: gradient of the wrong size");
        }
        let per = n.div_ceil(threads()).max(1);
        // Per worker: the weight gradient as [782][H] columns, then the bias gradient.
        let parts: Vec<Vec<f32>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n.div_ceil(per))
                .map(|c| {
                    s.spawn(move || {
                        let mut gw = vec![0f32; (INPUTS + 1) * h];
                        let rows = c * per..((c + 1) * per).min(n);
                        with_avx2(
                            #[inline(always)]
                            || backward_rows(self, rows, y, g, &mut gw),
                        );
                        gw
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|t| t.join().unwrap_or_default())
                .collect()
        });
        let mut sum = vec![0f32; (INPUTS + 1) * h];
        for p in parts {
            if p.len() != sum.len() {
                candle_core::bail!("sparse-ft: a backward worker failed");
            }
            sum.iter_mut().zip(&p).for_each(|(a, b)| *a += b);
        }
        let gb = sum.split_off(INPUTS * h);
        // [782][H] → [H][782]
        let mut gw = vec![0f32; INPUTS * h];
        for f in 0..INPUTS {
            for j in 0..h {
                gw[j * INPUTS + f] = sum[f * h + j];
            }
        }
        let dev = weight.device();
        Ok((
            Some(Tensor::from_vec(gw, (h, INPUTS), dev)?),
            Some(Tensor::from_vec(gb, h, dev)?),
        ))
    }
}

/// The activated feature transformer of both perspectives, [B, 2H] (see [`SparseFtCrelu`]).
pub fn ft_crelu_pair(
    weight: &Tensor,
    bias: &Tensor,
    stm: Arc<SparseBatch>,
    other: Arc<SparseBatch>,
) -> candle_core::Result<Tensor> {
    weight.apply_op2(bias, SparseFtCrelu { stm, other })
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, Var};

    /// Forward and gradients (weight and bias) of the fused op equal those of the dense
    /// graph it replaces.
    #[test]
    fn sparse_op_matches_dense() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let (h, n) = (8usize, 5usize);
        let w = Var::randn(0f32, 0.5, (h, INPUTS), &dev)?;
        let bias = Var::randn(0f32, 0.5, h, &dev)?;
        let boards = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 17 1",
            "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
            "8/8/8/8/8/8/8/K6k w - - 99 80",
            "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
        ];
        let (mut dense_s, mut dense_o) = (Vec::new(), Vec::new());
        let (mut sb_s, mut sb_o) = (SparseBatch::default(), SparseBatch::default());
        for fen in boards {
            let b = crate::chess::parse_fen(fen).map_err(candle_core::Error::msg)?;
            let s = crate::eval::features::dense(&b, b.side_to_move(), false);
            let o = crate::eval::features::dense(&b, !b.side_to_move(), false);
            sb_s.push_dense(&s);
            sb_o.push_dense(&o);
            dense_s.extend(s);
            dense_o.extend(o);
        }
        let xs = Tensor::from_vec(dense_s, (n, INPUTS), &dev)?;
        let xo = Tensor::from_vec(dense_o, (n, INPUTS), &dev)?;
        let coef = Tensor::randn(0f32, 1.0, (n, 2 * h), &dev)?;
        let (wt, bt) = (w.as_tensor(), bias.as_tensor());
        let ys = ft_crelu_pair(wt, bt, Arc::new(sb_s), Arc::new(sb_o))?;
        let pre = |x: &Tensor| x.matmul(&wt.t()?)?.broadcast_add(bt);
        let yd = Tensor::cat(
            &[pre(&xs)?.clamp(0f32, 1f32)?, pre(&xo)?.clamp(0f32, 1f32)?],
            1,
        )?;
        let diff = (&ys - &yd)?.abs()?.max_all()?.to_scalar::<f32>()?;
        assert!(diff < 1e-5, "forward differs by {diff}");
        let active = ys
            .gt(0f32)?
            .to_dtype(DType::F32)?
            .sum_all()?
            .to_scalar::<f32>()?;
        assert!(
            active > 0.0,
            "every unit clipped: the gradient test would be empty"
        );
        let gs = (ys * &coef)?.sum_all()?.backward()?;
        let gd = (yd * &coef)?.sum_all()?.backward()?;
        for (name, v) in [("weight", wt), ("bias", bt)] {
            match (gs.get(v), gd.get(v)) {
                (Some(a), Some(b)) => {
                    let diff = (a - b)?.abs()?.max_all()?.to_scalar::<f32>()?;
                    assert!(diff < 1e-4, "{name} gradient differs by {diff}");
                }
                _ => panic!("missing {name} gradient"),
            }
        }
        Ok(())
    }
}
