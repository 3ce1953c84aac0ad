//! Move-ordering statistics learned during search: butterfly history, continuation history
//! (one and two plies back), capture history, counter moves and killers; and the
//! static-eval correction history by pawn structure.

use cozy_chess::{Color, Move, Piece};

use super::params::{
    history_bonus, CORRECTION_MAX_CP, CORRECTION_MAX_WEIGHT, CORRECTION_WEIGHT_SCALE, HISTORY_MAX,
};
use super::MAX_PLY;

/// Piece kind and colour packed into 0..12.
pub fn piece_index(color: Color, piece: Piece) -> usize {
    color as usize * 6 + piece as usize
}

/// "Gravity" update: bonuses shrink as a value nears the limit, so entries stay bounded
/// and recent results weigh more.
fn apply(entry: &mut i16, bonus: i32) {
    let v = *entry as i32;
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry = (v + bonus - v * bonus.abs() / HISTORY_MAX) as i16;
}

/// What a missing continuation key contributes: nothing.
static ZERO_ROW: [i16; 64] = [0; 64];

/// One piece's butterfly and continuation rows (see [`History::quiet_rows`]).
pub struct QuietRows<'a> {
    butterfly: &'a [i16; 64],
    cont: [&'a [i16; 64]; 2],
}

impl QuietRows<'_> {
    /// [`History::quiet_score`] of this piece's move to `to`.
    #[inline]
    pub fn score(&self, to: cozy_chess::Square) -> i32 {
        let to = to as usize;
        self.butterfly[to] as i32 + self.cont[0][to] as i32 + self.cont[1][to] as i32
    }
}

/// Continuation history block for one (previous piece, previous destination).
pub type ContBlock = [[i16; 64]; 12];

pub struct History {
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    continuation: Vec<ContBlock>, // indexed by piece_index * 64 + to
    capture: Box<[[[i16; 6]; 64]; 12]>,
    counter: Box<[[Option<Move>; 64]; 12]>,
    pub killers: [[Option<Move>; 2]; MAX_PLY + 4],
    /// Static-eval corrections by side to move and pawn-structure hash, in 1/256 cp.
    correction: Box<[[i32; CORRECTION_SIZE]; 2]>,
}

const CORRECTION_SIZE: usize = 16_384;
const CORRECTION_GRAIN: i32 = 256;
/// The largest correction entry.
fn correction_limit() -> i32 {
    CORRECTION_MAX_CP() * CORRECTION_GRAIN
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            continuation: vec![[[0; 64]; 12]; 12 * 64],
            capture: Box::new([[[0; 6]; 64]; 12]),
            counter: Box::new([[None; 64]; 12]),
            killers: [[None; 2]; MAX_PLY + 4],
            correction: Box::new([[0; CORRECTION_SIZE]; 2]),
        }
    }
}

/// The previous moves a node's continuation history is keyed on: (piece index, to square).
pub type ContKey = Option<(usize, usize)>;

impl History {
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// Centipawns to add to the static eval of a position with this pawn structure.
    pub fn correction(&self, color: Color, pawn_key: u64) -> i32 {
        self.correction[color as usize][pawn_key as usize % CORRECTION_SIZE] / CORRECTION_GRAIN
    }

    /// Moves the correction toward the error a search just measured, weighted by depth.
    pub fn update_correction(&mut self, color: Color, pawn_key: u64, error: i32, depth: i32) {
        let entry = &mut self.correction[color as usize][pawn_key as usize % CORRECTION_SIZE];
        let weight = (depth + 1).min(CORRECTION_MAX_WEIGHT());
        let target = error * CORRECTION_GRAIN;
        *entry = ((*entry * (CORRECTION_WEIGHT_SCALE() - weight) + target * weight)
            / CORRECTION_WEIGHT_SCALE())
        .clamp(-correction_limit(), correction_limit());
    }

    /// A quiet move's history score: butterfly plus both continuation entries (the order
    /// of the quiets and the late-move reductions both use it).
    pub fn quiet_score(&self, color: Color, piece: usize, mv: Move, conts: [ContKey; 2]) -> i32 {
        self.quiet_rows(color, mv.from, piece, conts).score(mv.to)
    }

    /// The rows [`Self::quiet_score`] reads, for every move of one piece (from one
    /// square): the move picker looks them up once for all of that piece's moves.
    pub fn quiet_rows(
        &self,
        color: Color,
        from: cozy_chess::Square,
        piece: usize,
        conts: [ContKey; 2],
    ) -> QuietRows<'_> {
        let cont =
            |key: ContKey| key.map_or(&ZERO_ROW, |(p, t)| &self.continuation[p * 64 + t][piece]);
        QuietRows {
            butterfly: &self.butterfly[color as usize][from as usize],
            cont: [cont(conts[0]), cont(conts[1])],
        }
    }

    pub fn capture(&self, piece: usize, to: usize, victim: Piece) -> i32 {
        self.capture[piece][to][victim as usize] as i32
    }

    pub fn counter(&self, key: ContKey) -> Option<Move> {
        key.and_then(|(p, t)| self.counter[p][t])
    }

    /// Rewards the quiet move that caused a cutoff and punishes the quiets tried before it.
    #[allow(clippy::too_many_arguments)]
    pub fn update_quiets(
        &mut self,
        color: Color,
        piece_of: impl Fn(Move) -> usize,
        best: Move,
        tried: &[Move],
        conts: [ContKey; 2],
        depth: i32,
        ply: usize,
    ) {
        let bonus = history_bonus(depth);
        for &mv in tried {
            let b = if mv == best { bonus } else { -bonus };
            apply(
                &mut self.butterfly[color as usize][mv.from as usize][mv.to as usize],
                b,
            );
            let piece = piece_of(mv);
            for (p, t) in conts.iter().flatten() {
                apply(&mut self.continuation[p * 64 + t][piece][mv.to as usize], b);
            }
        }
        let killers = &mut self.killers[ply];
        if killers[0] != Some(best) {
            killers[1] = killers[0];
            killers[0] = Some(best);
        }
        if let Some((p, t)) = conts[0] {
            self.counter[p][t] = Some(best);
        }
    }

    /// Capture history: (moving piece, to, victim) rewarded for the cutoff capture,
    /// punished for captures tried before it.
    pub fn update_captures(
        &mut self,
        best: Option<(usize, usize, Piece)>,
        tried: &[(usize, usize, Piece)],
        depth: i32,
    ) {
        let bonus = history_bonus(depth);
        for &(p, t, v) in tried {
            let b = if Some((p, t, v)) == best {
                bonus
            } else {
                -bonus
            };
            apply(&mut self.capture[p][t][v as usize], b);
        }
    }
}
