//! Human levels: under `UCI_LimitStrength`, a `UCI_Elo` in the human range plays a move
//! drawn from the human model ([`super::model`]) for a player of a matching rating, so
//! the level errs as people of its strength do. Above the range, the node-limited
//! levels of `search::strength` take over up to full strength.
//!
//! A level's strength is set by two knobs, the model's rating input and the temperature
//! of the draw. Calibration games (`scripts/calibrate.sh`, docs/strength.md) measured,
//! on Stockfish 15.1's `UCI_Elo` scale at 10+0.1, how strong the model plays at a few
//! settings ([`CALIBRATION`]); a level takes the settings interpolated between the two
//! measured points that bracket its rating. The rating input alone moves strength
//! little (800 → 1350 gains ~280 Elo at temperature 0.4, and 1900 plays no better than
//! 1350), so the weakest levels also draw more freely and the strongest draw closer to
//! the model's favourite move, asked about a stronger player than the level.

use cozy_chess::Move;
use rand::{Rng, SeedableRng};

use super::guard::Guard;
use super::model::Prediction;
use crate::policy::shape::TOP_RATING;

/// The lowest `UCI_Elo` offered.
pub const HUMAN_MIN_ELO: i32 = 600;
/// The strongest human level; above it the node-limited levels play. Level 1900
/// measures 1897 ± 64; a human 2000 would need margins under the 0.10 row, where the
/// one match played (0.07, before gen18) measured 1892 ± 60, and the node-limited 2000
/// measures 2007 ± 70, so the human levels stop at 1900.
pub const HUMAN_MAX_ELO: i32 = 1900;
/// Measured strength → (model rating, temperature, guard margin, guard depth),
/// ascending; each row is a 100-game calibration match of the human model with
/// human-prior-v3 and human-combiner-v2 (docs/calibration/results.jsonl, docs/strength.md;
/// `scripts/calibration_table.py --fit` prints them). The rows from 1360 up were played
/// with rookery-gen18 embedded, whose search scores the model's candidates and runs the
/// guard; the three below it before, by levels whose strength the net moves little (no
/// guard, the model warm).
/// Temperature (see [`sharpen`]): at 1 a level draws as often as the players do and
/// matches their move ~27–35 % of the time; at 0.4 it matches it 36–45 % (validation
/// positions, `rookery train-combiner --evaluate`), close to the model's most likely move
/// while still varying its play. The model alone stops gaining strength near 1600 (a
/// higher rating input and a colder draw add little), so the strongest levels add the
/// [`Guard`]: its largest loss of expected result ([`NO_GUARD`] for none) and the depth
/// of its search. At depth 8 it adds little (0.97 plays like 1678, 0.56 like 1736); at
/// depth 10 margins from 0.45 to 0.20 all play like ~1800 (they veto blunders only; a
/// 0.37 match read 1841 ± 46, above both, and is left out so that strength rises with
/// the table), and only a margin near 0.10 vetoes the model's ordinary inaccuracies too.
/// A level takes the depth of the row nearer to it ([`settings_for`]).
pub const CALIBRATION: [(f64, f64, f32, f64, i32); 12] = [
    (525.0, 600.0, 1.0, NO_GUARD, 0),
    (833.0, 708.0, 0.68, NO_GUARD, 0),
    (1048.0, 816.0, 0.4, NO_GUARD, 0),
    (1360.4, 1327.0, 0.39, NO_GUARD, 0),
    (1574.1, 1898.0, 0.27, NO_GUARD, 0),
    (1631.4, 2600.0, 0.1, NO_GUARD, 0),
    (1677.9, 2600.0, 0.1, 0.97, 8),
    (1696.5, 2600.0, 0.1, 0.67, 8),
    (1736.1, 2600.0, 0.1, 0.56, 8),
    (1775.6, 2600.0, 0.1, 0.45, 10),
    (1815.0, 2600.0, 0.1, 0.20, 10),
    (1934.9, 2600.0, 0.1, 0.10, 10),
];
/// A guard margin that removes nothing: no move gives away more than the whole result.
pub const NO_GUARD: f64 = 1.0;
/// Depth of a guard set by the `Human Guard` option at a level that has none: the
/// shallowest calibrated guard, deeper than the model's own scores
/// ([`super::features::DEPTHS`]).
pub const GUARD_DEPTH: i32 = 8;
/// Ratings the model is asked about (the prior's table and the data's range).
const MODEL_RATING_RANGE: (f64, f64) = (600.0, TOP_RATING as f64);
/// A move the model gives less than this share of its most likely move's probability is
/// never played: the tail of the distribution is where the model knows least, and a
/// move that rare is one no player of that rating would make.
const MIN_SHARE_OF_TOP: f32 = 0.03;

/// One human level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HumanLevel {
    /// Nominal strength (`UCI_Elo`).
    pub elo: i32,
    /// The rating the model is asked about.
    pub model_rating: u16,
    /// Below 1 the level plays its likelier moves more often than the players do.
    pub temperature: f32,
    /// The strongest levels never play a move their deeper search calls a blunder.
    pub guard: Option<Guard>,
}

impl HumanLevel {
    /// The level for `UCI_Elo` `elo`, or `None` above the human range.
    pub fn from_elo(elo: i32) -> Option<HumanLevel> {
        if elo > HUMAN_MAX_ELO {
            return None;
        }
        let elo = elo.max(HUMAN_MIN_ELO);
        let (rating, temperature, max_loss, depth) = settings_for(elo as f64);
        Some(HumanLevel {
            elo,
            model_rating: rating
                .clamp(MODEL_RATING_RANGE.0, MODEL_RATING_RANGE.1)
                .round() as u16,
            temperature,
            guard: guard_with(max_loss, depth),
        })
    }

    /// Draws a move from the prediction sharpened by the level's temperature
    /// ([`sharpen`]); the same seed gives the same move.
    pub fn choose(&self, prediction: &Prediction, seed: u64) -> Option<Move> {
        let p = sharpen(&prediction.probabilities, self.temperature);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut pick = rng.gen::<f32>();
        for (&mv, &q) in prediction.moves.iter().zip(&p) {
            if q > 0.0 && pick < q {
                return Some(mv);
            }
            pick -= q;
        }
        // Rounding left a sliver: the most likely move.
        (0..p.len())
            .max_by(|&a, &b| p[a].total_cmp(&p[b]))
            .map(|i| prediction.moves[i])
    }
}

/// The guard of margin `max_loss` (in expected result) searching to `depth`, none at
/// [`NO_GUARD`] or so close to it that it would veto next to nothing for the cost of its
/// search.
pub fn guard_with(max_loss: f64, depth: i32) -> Option<Guard> {
    (max_loss < NO_GUARD - 0.01).then_some(Guard { depth, max_loss })
}

/// The model rating, temperature, guard margin and guard depth for a strength: linear
/// between the two calibration points around it (the temperature and margin held within
/// the table), the rating along the nearest segment beyond them. The guard searches as
/// deep as the nearer of the two points does (as the guarded one, next to a point
/// without a guard): a margin measured at one depth says little about the other (level
/// 1750 at a depth-8 margin searched to depth 10 measured 1841 ± 46).
fn settings_for(elo: f64) -> (f64, f32, f64, i32) {
    let last = CALIBRATION.len() - 1;
    let i = (1..last).find(|&i| elo < CALIBRATION[i].0).unwrap_or(last) - 1;
    let (a, b) = (CALIBRATION[i], CALIBRATION[i + 1]);
    let t = (elo - a.0) / (b.0 - a.0);
    let within = t.clamp(0.0, 1.0);
    let temperature = a.2 + (b.2 - a.2) * within as f32;
    let max_loss = a.3 + (b.3 - a.3) * within;
    let nearer = if within > 0.5 { b.4 } else { a.4 };
    let depth = if nearer == 0 && max_loss < NO_GUARD {
        a.4.max(b.4)
    } else {
        nearer
    };
    (a.1 + (b.1 - a.1) * t, temperature, max_loss, depth)
}

/// The moves a level may draw (indices into `probabilities`): those with at least
/// [`MIN_SHARE_OF_TOP`] of the most likely move's probability.
pub fn candidates(probabilities: &[f32]) -> Vec<usize> {
    let top = probabilities.iter().copied().fold(0.0f32, f32::max);
    (0..probabilities.len())
        .filter(|&i| probabilities[i] > 0.0 && drawable(probabilities[i], top))
        .collect()
}

/// Whether a move of probability `p` may be drawn when the most likely has `top`.
fn drawable(p: f32, top: f32) -> bool {
    p >= MIN_SHARE_OF_TOP * top
}

/// The distribution a level draws from: the probabilities raised to `1 / temperature`
/// (below 1 the likely moves gain), without the moves under [`MIN_SHARE_OF_TOP`] of the
/// most likely one, renormalised. All zeros when all are zero.
pub fn sharpen(probabilities: &[f32], temperature: f32) -> Vec<f32> {
    let top = probabilities.iter().copied().fold(0.0f32, f32::max);
    if top <= 0.0 {
        return vec![0.0; probabilities.len()];
    }
    let power = 1.0 / temperature.max(0.01);
    let q: Vec<f32> = probabilities
        .iter()
        .map(|&p| {
            if drawable(p, top) {
                (p / top).powf(power)
            } else {
                0.0
            }
        })
        .collect();
    let total: f32 = q.iter().sum();
    q.iter().map(|x| x / total).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::human::scores::MoveScores;

    fn prediction(probabilities: Vec<f32>) -> Prediction {
        let board = cozy_chess::Board::default();
        let moves = crate::chess::legal_moves(&board);
        let mut p = probabilities;
        p.resize(moves.len(), 0.0);
        Prediction {
            scores: MoveScores {
                moves: moves.clone(),
                depths: vec![],
                scores: vec![],
                nodes: 0,
            },
            prior: p.clone(),
            probabilities: p,
            features: vec![],
            moves,
        }
    }

    #[test]
    fn levels_cover_the_range_and_rise_with_the_elo() {
        assert_eq!(HumanLevel::from_elo(HUMAN_MAX_ELO + 1), None);
        assert_eq!(HumanLevel::from_elo(100).unwrap().elo, HUMAN_MIN_ELO);
        let (mut last_rating, mut last_temperature, mut last_loss, mut last_depth) =
            (0, f32::INFINITY, NO_GUARD, 0);
        for elo in (HUMAN_MIN_ELO..=HUMAN_MAX_ELO).step_by(50) {
            let level = HumanLevel::from_elo(elo).unwrap();
            assert!(
                level.model_rating >= last_rating,
                "model rating falls at {elo}"
            );
            assert!(
                level.temperature <= last_temperature,
                "temperature rises at {elo}"
            );
            let loss = level.guard.map_or(NO_GUARD, |g| g.max_loss);
            assert!(loss <= last_loss, "the guard loosens at {elo}");
            let depth = level.guard.map_or(0, |g| g.depth);
            assert!(depth >= last_depth, "the guard gets shallower at {elo}");
            (last_rating, last_temperature, last_loss, last_depth) =
                (level.model_rating, level.temperature, loss, depth);
        }
        // The calibration points themselves are met.
        for (measured, rating, temperature, max_loss, depth) in CALIBRATION {
            let (r, t, l, d) = settings_for(measured);
            assert!((r - rating).abs() < 1e-6 && (t - temperature).abs() < 1e-6);
            assert!((l - max_loss).abs() < 1e-9 && d == depth);
        }
        // Only the levels past the model's own strength are guarded, and the top one is.
        assert_eq!(HumanLevel::from_elo(1300).unwrap().guard, None);
        let top = HumanLevel::from_elo(HUMAN_MAX_ELO)
            .unwrap()
            .guard
            .expect("guarded");
        let last = CALIBRATION[CALIBRATION.len() - 1];
        assert!(top.max_loss < NO_GUARD && top.depth == last.4);
        // A guard searches at a measured depth: the nearer row's, never none.
        for elo in HUMAN_MIN_ELO..=HUMAN_MAX_ELO {
            if let Some(guard) = HumanLevel::from_elo(elo).unwrap().guard {
                assert!(guard.depth >= GUARD_DEPTH, "depth {} at {elo}", guard.depth);
            }
        }
        let depth_at = |elo| HumanLevel::from_elo(elo).unwrap().guard.unwrap().depth;
        assert_eq!((depth_at(1750), depth_at(1800)), (8, 10));
        // A margin a hair under none would search for nothing: no guard.
        assert_eq!(guard_with(0.995, GUARD_DEPTH), None);
        assert!(guard_with(0.98, GUARD_DEPTH).is_some());
    }

    #[test]
    fn choices_follow_the_probabilities_and_skip_the_rare_tail() {
        let level = HumanLevel::from_elo(1200).unwrap();
        let pred = prediction(vec![0.6, 0.3, 0.09, 0.01]);
        let mut counts = [0usize; 4];
        for seed in 0..4000 {
            let mv = level.choose(&pred, seed).unwrap();
            counts[pred.moves.iter().position(|&m| m == mv).unwrap()] += 1;
        }
        assert_eq!(counts[3], 0, "1 % is under 3 % of 60 %: never played");
        assert!(
            counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > 0,
            "{counts:?}"
        );
        let expected = sharpen(&pred.probabilities, level.temperature)[0] as f64;
        let share = counts[0] as f64 / 4000.0;
        assert!(
            (share - expected).abs() < 0.03,
            "top share {share}, expected {expected}"
        );
        assert_eq!(level.choose(&pred, 7), level.choose(&pred, 7));
    }

    #[test]
    fn sharpening_keeps_the_order_and_cools_towards_the_top() {
        let p = [0.5, 0.3, 0.2];
        let warm = sharpen(&p, 1.0);
        assert!(warm.iter().zip(&p).all(|(a, b)| (a - b).abs() < 1e-6));
        let cool = sharpen(&p, 0.4);
        assert!(cool[0] > 0.5 && cool[0] > cool[1] && cool[1] > cool[2] && cool[2] > 0.0);
        assert!((cool.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(sharpen(&[0.0, 0.0], 0.4), vec![0.0, 0.0]);
    }
}
