//! Playing a little below full strength (`UCI_LimitStrength` + `UCI_Elo` above the
//! human levels of `human::levels`, up to full strength): a smaller search, a choice
//! among the moves that look nearly best, more mistakes in hard positions and in time
//! trouble, and thinking time spread like a person's (which the human levels use too).
//!
//! The rating scale is Stockfish 15.1's `UCI_Elo` at 10+0.1, the scale of the ladder in
//! docs/strength.md; `scripts/calibrate.sh` measures each level against it.

use cozy_chess::Move;
use rand::{Rng, SeedableRng};

use super::{DECISIVE, MATE_BOUND};

/// The bottom of the level curve (its slopes and temperature were shaped from here up).
pub const MIN_ELO: i32 = 1000;
/// A limit at or above it plays at full strength, which the ladder in docs/strength.md
/// measures above it on this scale.
pub const FULL_STRENGTH_ELO: i32 = 2600;
/// Measured strength → curve setting, ascending: each row is a 100-game calibration match
/// of one setting against Stockfish 15.1 at 10+0.1 with the net embedded at the time
/// (docs/calibration/results.jsonl; docs/strength.md says which rows are which net's and
/// why some are left out); `scripts/calibration_table.py --fit` prints it. A level plays
/// the setting interpolated between the two rows around its rating (outside them, the
/// nearest row's offset).
pub const CALIBRATION: [(f64, f64); 7] = [
    (1593.1, 1600.0),
    (1917.4, 1900.0),
    (1936.8, 2000.0),
    (2024.4, 2063.0),
    (2092.5, 2263.0),
    (2340.4, 2463.0),
    (2397.5, 2513.0),
];
/// Where the temperature's slope changes (Stockfish's lowest `UCI_Elo`).
const TEMPERATURE_KINK: i32 = 1350;
/// Where the node curve's two slopes meet, and its node budget there.
const NODES_KINK: i32 = 1510;
const KINK_NODES: f64 = 2191.0;
/// The node budget doubles every this many setting points above the kink…
const ELO_PER_DOUBLING_ABOVE: f64 = 122.0;
/// …and halves only every this many below it: a weak player sees little, not nothing.
const ELO_PER_DOUBLING_BELOW: f64 = 250.0;
/// Root moves the limited search keeps apart to choose among.
const CANDIDATES: usize = 4;
/// Softmax temperature (centipawns) at full strength…
const TEMPERATURE_MIN: f64 = 5.0;
/// …plus this times the squared distance from full strength (0..1)…
const TEMPERATURE_WEAKNESS: f64 = 50.0;
/// …plus this per setting point below the kink.
const TEMPERATURE_PER_POINT_BELOW_KINK: f64 = 0.04;
/// The most a chosen move may lose: this many centipawns…
const MAX_LOSS_BASE: f64 = 30.0;
/// …plus this many temperatures.
const MAX_LOSS_PER_TEMPERATURE: f64 = 3.0;
/// Temperature factor in a hard position (the search changed its mind).
const HARD_POSITION_FACTOR: f64 = 1.4;
/// Temperature factor in time trouble, and the clock below which it applies.
const TIME_TROUBLE_FACTOR: f64 = 1.3;
const TIME_TROUBLE_MS: u64 = 5_000;
/// Thinking time, as a share of the engine's normal budget, in an easy and in a hard
/// position, and the spread (σ of its logarithm) around it.
const THINK_SHARE_EASY: f64 = 0.45;
const THINK_SHARE_HARD: f64 = 0.9;
const THINK_SPREAD: f64 = 0.45;
/// The highest `UCI_Elo` accepted (values above full strength play at full strength).
pub const MAX_ELO: i32 = 3000;

/// A strength limit at one rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    /// The rating asked for (`UCI_Elo`).
    pub elo: i32,
    /// The point of the level curve that plays at that rating ([`CALIBRATION`]): what
    /// the node budget and the temperature follow.
    pub setting: i32,
}

/// The curve setting that plays at `elo`, by [`CALIBRATION`].
fn setting_for(elo: f64, table: &[(f64, f64)]) -> f64 {
    let (Some(first), Some(last)) = (table.first(), table.last()) else {
        return elo;
    };
    if elo <= first.0 {
        return elo + first.1 - first.0;
    }
    if elo >= last.0 {
        return elo + last.1 - last.0;
    }
    let i = table.partition_point(|row| row.0 <= elo);
    let ((m0, s0), (m1, s1)) = (table[i - 1], table[i]);
    s0 + (elo - m0) / (m1 - m0) * (s1 - s0)
}

/// A root move the limited search kept apart (one MultiPV line), with its score.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub mv: Move,
    pub score: i32,
}

/// What the choice of a move depends on besides the rating.
#[derive(Clone, Copy, Debug, Default)]
pub struct Situation {
    /// The search changed its mind about the best move as it deepened: a position where
    /// the right move is not the one that catches the eye.
    pub hard: bool,
    /// Our clock in milliseconds, when playing on a clock.
    pub clock_ms: Option<u64>,
}

impl Strength {
    /// The limit for `UCI_Elo`; `None` (full strength) at or above [`FULL_STRENGTH_ELO`].
    pub fn from_elo(elo: i32) -> Option<Strength> {
        let elo = elo.max(MIN_ELO);
        (elo < FULL_STRENGTH_ELO).then(|| {
            Strength::at_setting(elo, setting_for(elo as f64, &CALIBRATION).round() as i32)
        })
    }

    /// A limit that plays the curve's `setting` (calibration matches measure these).
    pub fn at_setting(elo: i32, setting: i32) -> Strength {
        Strength { elo, setting }
    }

    /// Position within the curve: 0 at MIN_ELO, 1 at full strength and past it (the
    /// calibration's offset carries the levels just under full strength to settings there).
    fn skill(setting: i32) -> f64 {
        ((setting - MIN_ELO) as f64 / (FULL_STRENGTH_ELO - MIN_ELO) as f64).min(1.0)
    }

    /// Nodes per move at the level's setting: `KINK_NODES` at `NODES_KINK`, doubling
    /// every `ELO_PER_DOUBLING_ABOVE` above and halving every `ELO_PER_DOUBLING_BELOW`
    /// below (~1,410 at 1350, ~20,100 at 1900, ~530 at 1000).
    pub fn nodes(&self) -> u64 {
        let doublings = if self.setting >= NODES_KINK {
            (self.setting - NODES_KINK) as f64 / ELO_PER_DOUBLING_ABOVE
        } else {
            (self.setting - NODES_KINK) as f64 / ELO_PER_DOUBLING_BELOW
        };
        (KINK_NODES * doublings.exp2()).round() as u64
    }

    /// How many root moves the search keeps apart to choose among (each costs a root
    /// search per iteration, so more would mostly make the search shallower).
    pub fn candidates(&self) -> usize {
        CANDIDATES
    }

    /// Softmax temperature over the candidates' scores, in centipawns: a few at the top of
    /// the range (near-equal moves are mixed, nothing worse), ~28 at 1350, and growing
    /// slowly below it (~42 at the bottom).
    pub fn temperature(&self, situation: &Situation) -> f64 {
        let weakness = 1.0 - Self::skill(self.setting.max(TEMPERATURE_KINK));
        let base = TEMPERATURE_MIN
            + TEMPERATURE_WEAKNESS * weakness * weakness
            + TEMPERATURE_PER_POINT_BELOW_KINK * (TEMPERATURE_KINK - self.setting).max(0) as f64;
        base * self.pressure(situation)
    }

    /// The most a chosen move may fall short of the best one, in centipawns: ~50 at 1900
    /// (no piece is ever dropped), a pawn and more at the bottom.
    pub fn max_loss(&self, situation: &Situation) -> i32 {
        (MAX_LOSS_BASE + MAX_LOSS_PER_TEMPERATURE * self.temperature(situation)).round() as i32
    }

    /// Mistakes grow in hard positions and in time trouble.
    fn pressure(&self, situation: &Situation) -> f64 {
        let mut factor = 1.0;
        if situation.hard {
            factor *= HARD_POSITION_FACTOR;
        }
        // Real time trouble only: at bullet clocks every move is played on a few seconds,
        // and the levels are calibrated at 10+0.1.
        if situation.clock_ms.is_some_and(|ms| ms < TIME_TROUBLE_MS) {
            factor *= TIME_TROUBLE_FACTOR;
        }
        factor
    }

    /// Picks a move among `lines` (best first): a softmax over scores at
    /// [`Self::temperature`], among the moves within [`Self::max_loss`] of the best.
    /// A forced mate is never let go, and a move that allows one is never chosen when
    /// another does not.
    pub fn choose(&self, lines: &[Candidate], situation: &Situation, seed: u64) -> Option<Move> {
        let best = lines.iter().map(|c| c.score).max()?;
        let temperature = self.temperature(situation);
        let max_loss = self.max_loss(situation);
        let allowed = |c: &Candidate| {
            if best >= DECISIVE || c.score <= -MATE_BOUND {
                c.score == best // winning by force, or the alternative gets mated
            } else {
                best - c.score <= max_loss
            }
        };
        let weights: Vec<(Move, f64)> = lines
            .iter()
            .filter(|c| allowed(c))
            .map(|c| (c.mv, (-((best - c.score) as f64) / temperature).exp()))
            .collect();
        let total: f64 = weights.iter().map(|(_, w)| w).sum();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut pick = rng.gen::<f64>() * total;
        for &(mv, w) in &weights {
            if pick < w {
                return Some(mv);
            }
            pick -= w;
        }
        weights.last().map(|&(mv, _)| mv)
    }

    /// How long a person of this level would think, in milliseconds, given the
    /// engine's normal budget for the move: quick when the move is obvious, longer when
    /// it is hard, never the same twice, and never more than the normal budget.
    pub fn think_time_ms(&self, budget_ms: u64, situation: &Situation, seed: u64) -> u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5EED_71DE);
        let base = if situation.hard {
            THINK_SHARE_HARD
        } else {
            THINK_SHARE_EASY
        };
        // A log-normal spread: most moves near the base, a few much quicker or slower.
        let normal: f64 = (0..12).map(|_| rng.gen::<f64>()).sum::<f64>() - 6.0;
        let factor = base * (THINK_SPREAD * normal).exp();
        ((budget_ms as f64 * factor) as u64).min(budget_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn levels_are_monotone() {
        let mut previous: Option<Strength> = None;
        for elo in (MIN_ELO..FULL_STRENGTH_ELO).step_by(50) {
            let s = Strength::from_elo(elo).unwrap();
            let calm = Situation::default();
            if let Some(p) = previous {
                assert!(s.nodes() > p.nodes(), "nodes at {elo}");
                let (t, t_before) = (s.temperature(&calm), p.temperature(&calm));
                if s.setting < FULL_STRENGTH_ELO {
                    assert!(t < t_before, "temperature at {elo}");
                } else {
                    assert!(t <= t_before, "temperature at {elo} (past the curve's top)");
                }
                assert!(s.max_loss(&calm) <= p.max_loss(&calm), "max loss at {elo}");
                assert!(s.candidates() <= p.candidates());
            }
            previous = Some(s);
        }
        assert_eq!(Strength::from_elo(FULL_STRENGTH_ELO), None);
        assert_eq!(Strength::from_elo(2850), None);
        assert_eq!(Strength::from_elo(500).unwrap().elo, MIN_ELO);
    }

    #[test]
    fn settings_follow_the_calibration_table() {
        assert_eq!(setting_for(1700.0, &[]), 1700.0);
        let table = [(1500.0, 1600.0), (2000.0, 2000.0)];
        assert_eq!(setting_for(1500.0, &table), 1600.0);
        assert_eq!(setting_for(1750.0, &table), 1800.0);
        assert_eq!(
            setting_for(1400.0, &table),
            1500.0,
            "below: the first row's offset"
        );
        assert_eq!(
            setting_for(2300.0, &table),
            2300.0,
            "above: the last row's offset"
        );
        for w in CALIBRATION.windows(2) {
            assert!(
                w[0].0 < w[1].0 && w[0].1 < w[1].1,
                "{CALIBRATION:?} is not ascending"
            );
        }
        let level = Strength::at_setting(1700, 1800);
        assert_eq!(level.nodes(), Strength::at_setting(1800, 1800).nodes());
    }

    #[test]
    fn strong_levels_never_drop_material() {
        let lines = [
            Candidate {
                mv: mv("e2e4"),
                score: 30,
            },
            Candidate {
                mv: mv("d2d4"),
                score: 20,
            },
            Candidate {
                mv: mv("g1f3"),
                score: -280, // drops a piece
            },
        ];
        let strong = Strength::from_elo(2000).unwrap();
        let rushed = Situation {
            hard: true,
            clock_ms: Some(5_000),
        };
        for seed in 0..2000 {
            let m = strong.choose(&lines, &rushed, seed).unwrap();
            assert_ne!(m, mv("g1f3"), "seed {seed}");
        }
        // Rushed in a hard position, the weakest level sometimes gives a pawn and more.
        let weak = Strength::from_elo(MIN_ELO).unwrap();
        let pawn_down = [
            lines[0],
            Candidate {
                mv: mv("g1f3"),
                score: -130,
            },
        ];
        assert!((0..2000).any(|seed| weak.choose(&pawn_down, &rushed, seed) == Some(mv("g1f3"))));
    }

    #[test]
    fn mates_are_kept() {
        let lines = [
            Candidate {
                mv: mv("d1h5"),
                score: super::super::MATE - 3,
            },
            Candidate {
                mv: mv("e2e4"),
                score: 900,
            },
        ];
        let weak = Strength::from_elo(MIN_ELO).unwrap();
        for seed in 0..200 {
            assert_eq!(
                weak.choose(&lines, &Situation::default(), seed),
                Some(mv("d1h5"))
            );
        }
    }

    #[test]
    fn think_time_stays_within_the_budget_and_varies() {
        let s = Strength::from_elo(1500).unwrap();
        let times: Vec<u64> = (0..200)
            .map(|seed| s.think_time_ms(1000, &Situation::default(), seed))
            .collect();
        assert!(times.iter().all(|&t| t <= 1000));
        let distinct: std::collections::HashSet<_> = times.iter().collect();
        assert!(distinct.len() > 50);
    }
}
