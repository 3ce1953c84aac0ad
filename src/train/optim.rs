//! AdamW whose state can be saved and restored, so that a training run cut off by the
//! end of a session continues exactly where it stopped. The update is candle's AdamW
//! (`candle_nn::optim::AdamW`, the same formula on the same candle tensors); candle keeps
//! its moments private, which is the only reason this copy exists.

use std::collections::HashMap;

use candle_core::{backprop::GradStore, Result, Tensor, Var};
use candle_nn::ParamsAdamW;

struct Slot {
    name: String,
    var: Var,
    m: Var,
    v: Var,
}

pub struct ResumableAdamW {
    slots: Vec<Slot>,
    step_t: usize,
    pub params: ParamsAdamW,
}

impl ResumableAdamW {
    /// Optimises the named variables (names key the saved state).
    pub fn new(vars: Vec<(String, Var)>, params: ParamsAdamW) -> Result<Self> {
        let slots = vars
            .into_iter()
            .map(|(name, var)| {
                let m = Var::zeros(var.shape(), var.dtype(), var.device())?;
                let v = Var::zeros(var.shape(), var.dtype(), var.device())?;
                Ok(Slot { name, var, m, v })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ResumableAdamW {
            slots,
            step_t: 0,
            params,
        })
    }

    pub fn set_learning_rate(&mut self, lr: f64) {
        self.params.lr = lr;
    }

    pub fn backward_step(&mut self, loss: &Tensor) -> Result<()> {
        let grads = loss.backward()?;
        self.step(&grads)
    }

    fn step(&mut self, grads: &GradStore) -> Result<()> {
        self.step_t += 1;
        let p = &self.params;
        let scale_m = 1.0 / (1.0 - p.beta1.powi(self.step_t as i32));
        let scale_v = 1.0 / (1.0 - p.beta2.powi(self.step_t as i32));
        for slot in &self.slots {
            let Some(g) = grads.get(&slot.var) else {
                continue;
            };
            let next_m = ((slot.m.as_tensor() * p.beta1)? + (g * (1.0 - p.beta1))?)?;
            let next_v = ((slot.v.as_tensor() * p.beta2)? + (g.sqr()? * (1.0 - p.beta2))?)?;
            let m_hat = (&next_m * scale_m)?;
            let v_hat = (&next_v * scale_v)?;
            let decayed = (slot.var.as_tensor() * (1.0 - p.lr * p.weight_decay))?;
            let update = (m_hat / (v_hat.sqrt()? + p.eps)?)?;
            let next = (decayed - (update * p.lr)?)?;
            slot.m.set(&next_m)?;
            slot.v.set(&next_v)?;
            slot.var.set(&next)?;
        }
        Ok(())
    }

    /// The moments, as `adam.m.<name>` / `adam.v.<name>`, and the step count.
    pub fn state(&self) -> Result<HashMap<String, Tensor>> {
        let mut map = HashMap::new();
        for s in &self.slots {
            map.insert(format!("adam.m.{}", s.name), s.m.as_tensor().copy()?);
            map.insert(format!("adam.v.{}", s.name), s.v.as_tensor().copy()?);
        }
        map.insert(
            "adam.step".to_string(),
            Tensor::new(&[self.step_t as u32], &candle_core::Device::Cpu)?,
        );
        Ok(map)
    }

    /// Restores what [`Self::state`] saved.
    pub fn load_state(&mut self, map: &HashMap<String, Tensor>) -> std::result::Result<(), String> {
        let get = |key: &str| {
            map.get(key)
                .ok_or_else(|| format!("checkpoint lacks '{key}'"))
        };
        for s in &self.slots {
            for (key, var) in [("m", &s.m), ("v", &s.v)] {
                let t = get(&format!("adam.{key}.{}", s.name))?;
                if t.shape() != var.shape() {
                    return Err(format!(
                        "checkpoint's adam.{key}.{} has shape {:?}, the net {:?}",
                        s.name,
                        t.shape(),
                        var.shape()
                    ));
                }
                var.set(t).map_err(|e| e.to_string())?;
            }
        }
        let step = get("adam.step")?
            .to_vec1::<u32>()
            .map_err(|e| e.to_string())?;
        self.step_t = *step.first().ok_or("empty adam.step")? as usize;
        Ok(())
    }
}
