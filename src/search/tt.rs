//! Transposition table shared by all search threads.
//!
//! Lock-free: each slot is two `AtomicU64`s, the key stored XOR-ed with the data so a torn
//! write from another thread reads back as a miss instead of a wrong entry (the scheme
//! Hyatt described for Crafty). Replacement prefers deeper entries from the current search
//! and always lets a new search (a new age) overwrite old results.

use cozy_chess::{Move, Piece, Square};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::pages::{Zeroable, ZeroedSlice};
use super::params::{TT_OTHER_KEY_DEPTH_MARGIN, TT_SAME_KEY_DEPTH_MARGIN};
use super::{DECISIVE, MAX_PLY};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

impl Bound {
    /// The bound of a node's result: it failed high (≥ beta: a lower bound), raised alpha
    /// from `original_alpha` to `alpha` (exact), or failed low (an upper bound).
    pub fn of_result(best_score: i32, alpha: i32, original_alpha: i32, beta: i32) -> Bound {
        if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a `score` with this bound settles the window (alpha, beta): a TT cutoff.
    pub fn cuts_off(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }

    /// Whether a `score` with this bound is a better estimate than `estimate`: exact, a
    /// lower bound above it, or an upper bound below it.
    pub fn improves_on(self, score: i32, estimate: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score > estimate,
            Bound::Upper => score < estimate,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    pub mv: Option<Move>,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

struct Slot {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

// SAFETY: two atomic integers; all-zero bytes are an empty slot.
unsafe impl Zeroable for Slot {}

pub struct TranspositionTable {
    /// On huge pages where the system allows (see `pages`).
    slots: ZeroedSlice<Slot>,
    age: AtomicU8,
}

/// Packs a move into 16 bits: from (6) | to (6) | promotion piece + 1 (3); 0 means none.
pub fn pack_move(mv: Option<Move>) -> u64 {
    match mv {
        None => 0,
        Some(mv) => {
            let promo = mv.promotion.map_or(0, |p| p as u64 + 1);
            mv.from as u64 | (mv.to as u64) << 6 | promo << 12
        }
    }
}

pub fn unpack_move(bits: u64) -> Option<Move> {
    if bits & 0xFFFF == 0 {
        return None;
    }
    let from = Square::index((bits & 63) as usize);
    let to = Square::index(((bits >> 6) & 63) as usize);
    let promotion = match (bits >> 12) & 7 {
        0 => None,
        p => Some(Piece::index(p as usize - 1)),
    };
    Some(Move {
        from,
        to,
        promotion,
    })
}

/// Mate and tablebase scores are stored relative to the node, not the root, so they stay right when the
/// same position is reached at another ply.
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= DECISIVE {
        score + ply as i32
    } else if score <= -DECISIVE {
        score - ply as i32
    } else {
        score
    }
}

pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= DECISIVE {
        score - ply as i32
    } else if score <= -DECISIVE {
        score + ply as i32
    } else {
        score
    }
}

impl TranspositionTable {
    /// A table of `megabytes` MB. Panics only if even that allocation fails; use
    /// [`TranspositionTable::try_new`] for sizes chosen by a user.
    pub fn new(megabytes: usize) -> Self {
        Self::try_new(megabytes).expect("allocate transposition table")
    }

    /// A table of `megabytes` MB, or an error if the memory is not available.
    pub fn try_new(megabytes: usize) -> Result<Self, String> {
        let count = (megabytes.max(1) * 1024 * 1024) / std::mem::size_of::<Slot>();
        let slots = ZeroedSlice::try_new(count)
            .ok_or_else(|| format!("cannot allocate a {megabytes} MB hash table"))?;
        Ok(TranspositionTable {
            slots,
            age: AtomicU8::new(0),
        })
    }

    pub fn clear(&self) {
        for slot in self.slots.iter() {
            slot.key_xor_data.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Called once per `go`: entries from earlier searches become preferred victims.
    pub fn new_search(&self) {
        self.age.store(
            (self.age.load(Ordering::Relaxed) + 1) & 63,
            Ordering::Relaxed,
        );
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift maps the key uniformly onto the table without a modulo.
        ((key as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// Asks the CPU to start loading `key`'s slot into cache. Called as soon as a child
    /// position's key is known, so the memory latency overlaps the work done before the
    /// child probes the table.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let slot: *const Slot = &self.slots[self.index(key)];
            // SAFETY: a prefetch is only a hint and never faults; the pointer is in bounds.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    slot.cast::<i8>(),
                )
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        let slot = &self.slots[self.index(key)];
        let data = slot.data.load(Ordering::Relaxed);
        if slot.key_xor_data.load(Ordering::Relaxed) ^ data != key || data == 0 {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(TtEntry {
            mv: unpack_move(data),
            score: score_from_tt((data >> 16) as u16 as i16 as i32, ply),
            eval: (data >> 32) as u16 as i16 as i32,
            depth: ((data >> 48) & 0xFF) as i32,
            bound,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        ply: usize,
    ) {
        let slot = &self.slots[self.index(key)];
        let age = self.age.load(Ordering::Relaxed) as u64;
        let old_data = slot.data.load(Ordering::Relaxed);
        let old_key = slot.key_xor_data.load(Ordering::Relaxed) ^ old_data;
        let same = old_key == key;
        let old_depth = ((old_data >> 48) & 0xFF) as i32;
        let old_age = (old_data >> 58) & 63;
        if same
            && bound != Bound::Exact
            && depth + TT_SAME_KEY_DEPTH_MARGIN() <= old_depth
            && old_age == age
        {
            return;
        }
        if !same
            && old_age == age
            && old_data != 0
            && depth + TT_OTHER_KEY_DEPTH_MARGIN() < old_depth
            && bound != Bound::Exact
        {
            return;
        }
        // Keep the old move when the new result has none for the same position.
        let mv_bits = if mv.is_none() && same {
            old_data & 0xFFFF
        } else {
            pack_move(mv)
        };
        let depth = depth.clamp(0, MAX_PLY as i32) as u64;
        let data = mv_bits
            | (score_to_tt(score, ply) as i16 as u16 as u64) << 16
            | (eval as i16 as u16 as u64) << 32
            | depth << 48
            | (bound as u64) << 56
            | age << 58;
        slot.data.store(data, Ordering::Relaxed);
        slot.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of the first thousand slots filled by the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> usize {
        let age = self.age.load(Ordering::Relaxed) as u64;
        self.slots
            .iter()
            .take(1000)
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && (d >> 58) & 63 == age
            })
            .count()
            * 1000
            / self.slots.len().min(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let mv: Move = "e7e8q".parse().unwrap();
        tt.store(0xDEAD_BEEF, Some(mv), -123, 45, 7, Bound::Lower, 3);
        let e = tt.probe(0xDEAD_BEEF, 3).unwrap();
        assert_eq!(e.mv, Some(mv));
        assert_eq!(
            (e.score, e.eval, e.depth, e.bound),
            (-123, 45, 7, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEE, 3).is_none());
    }

    #[test]
    fn mate_scores_are_ply_relative() {
        let tt = TranspositionTable::new(1);
        let mate_in_3_from_root = super::super::MATE - 5;
        tt.store(42, None, mate_in_3_from_root, 0, 5, Bound::Exact, 2);
        // Stored at ply 2, the score is kept relative to that node (mate 3 plies below
        // it). Probed at ply 0 — the same position as the root of a later search — the
        // mate is 3 plies away instead of 5: two plies sooner, so the score is 2 higher.
        assert_eq!(tt.probe(42, 0).unwrap().score, mate_in_3_from_root + 2);
    }

    #[test]
    fn tablebase_scores_are_ply_relative_too() {
        let tt = TranspositionTable::new(1);
        // A table win found at ply 7 (7 plies below the root that stored it)…
        let win = super::super::TB_WIN - 7;
        tt.store(43, None, win, 0, 5, Bound::Lower, 7);
        // …is the same table position 3 plies from another root.
        assert_eq!(tt.probe(43, 3).unwrap().score, super::super::TB_WIN - 3);
        tt.store(44, None, -win, 0, 5, Bound::Upper, 7);
        assert_eq!(tt.probe(44, 3).unwrap().score, -(super::super::TB_WIN - 3));
    }
}
