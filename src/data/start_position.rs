//! Where a self-play game starts before its random plies: the standard position, or
//! (`rookery datagen --chess960 F`) for a fraction F of the games one of the 960 Chess960
//! start positions, and for a fraction D of those (`--double-chess960 D`) a double
//! Chess960 position, White's and Black's back ranks drawn independently.
//!
//! Positions are numbered as Scharnagl numbered them (0..960, 518 the standard one), the
//! numbering of cozy-chess's `Board::chess960_startpos`. The draws come from the game's
//! own generator, so a game's start depends only on the seed and its number; with F = 0
//! nothing is drawn, so standard-only runs give the same games as before the option.

use cozy_chess::Board;
use rand::Rng;

/// Number of Chess960 start positions.
pub const CHESS960_POSITIONS: u32 = 960;

/// Which kinds of start position a run plays, as fractions of its games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartMix {
    /// Share of games from a Chess960 start (0 to 1).
    pub chess960: f64,
    /// Share of those Chess960 games whose two back ranks are drawn independently.
    pub double: f64,
}

impl Default for StartMix {
    fn default() -> Self {
        StartMix {
            chess960: 0.0,
            double: 0.5,
        }
    }
}

/// A game's start position, as the Scharnagl numbers of its two back ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    Standard,
    Chess960(u32),
    DoubleChess960 { white: u32, black: u32 },
}

impl Start {
    pub fn board(self) -> Board {
        match self {
            Start::Standard => Board::default(),
            Start::Chess960(n) => Board::chess960_startpos(n),
            Start::DoubleChess960 { white, black } => Board::double_chess960_startpos(white, black),
        }
    }
}

impl StartMix {
    /// Draws a start. Draws nothing when no game is Chess960, and nothing beyond the
    /// Chess960 coin when the game is standard.
    pub fn choose(&self, rng: &mut impl Rng) -> Start {
        if self.chess960 <= 0.0 || rng.gen::<f64>() >= self.chess960 {
            return Start::Standard;
        }
        let white = rng.gen_range(0..CHESS960_POSITIONS);
        if rng.gen::<f64>() < self.double {
            let black = rng.gen_range(0..CHESS960_POSITIONS);
            Start::DoubleChess960 { white, black }
        } else {
            Start::Chess960(white)
        }
    }
}

/// Parses a fraction for the command line: a number from 0 to 1.
pub fn parse_fraction(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number (a fraction from 0 to 1)"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not a fraction from 0 to 1"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn scharnagl_518_is_the_standard_position_and_all_960_differ() {
        assert_eq!(Start::Chess960(518).board(), Board::default());
        let mut seen = std::collections::HashSet::new();
        for n in 0..CHESS960_POSITIONS {
            let board = Start::Chess960(n).board();
            assert!(seen.insert(board.hash()), "position {n} repeats another");
            for color in cozy_chess::Color::ALL {
                let rights = board.castle_rights(color);
                assert!(rights.short.is_some() && rights.long.is_some(), "{n}");
            }
        }
    }

    #[test]
    fn no_chess960_share_draws_nothing() {
        let mix = StartMix::default();
        let mut rng = StdRng::seed_from_u64(3);
        let mut untouched = rng.clone();
        assert_eq!(mix.choose(&mut rng), Start::Standard);
        assert_eq!(rng.gen::<u64>(), untouched.gen::<u64>());
    }

    #[test]
    fn the_shares_come_out_as_asked() {
        let mix = StartMix {
            chess960: 0.5,
            double: 0.25,
        };
        let mut rng = StdRng::seed_from_u64(11);
        let (mut standard, mut single, mut double) = (0, 0, 0);
        for _ in 0..20_000 {
            match mix.choose(&mut rng) {
                Start::Standard => standard += 1,
                Start::Chess960(n) => {
                    assert!(n < CHESS960_POSITIONS);
                    single += 1;
                }
                Start::DoubleChess960 { white, black } => {
                    assert!(white < CHESS960_POSITIONS && black < CHESS960_POSITIONS);
                    double += 1;
                }
            }
        }
        assert!((9_500..10_500).contains(&standard), "{standard}");
        assert!((7_000..8_000).contains(&single), "{single}");
        assert!((2_200..2_800).contains(&double), "{double}");
    }

    #[test]
    fn double_chess960_gives_each_side_its_own_back_rank() {
        let board = Start::DoubleChess960 {
            white: 0,
            black: 959,
        }
        .board();
        assert_eq!(
            board.to_string(),
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        assert_eq!(
            format!("{board:#}"),
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFca - 0 1"
        );
    }

    #[test]
    fn fractions_outside_zero_to_one_are_refused() {
        assert_eq!(parse_fraction("0.25"), Ok(0.25));
        assert_eq!(parse_fraction("1"), Ok(1.0));
        assert!(parse_fraction("1.5").is_err());
        assert!(parse_fraction("-0.1").is_err());
        assert!(parse_fraction("half").is_err());
        assert!(parse_fraction("NaN").is_err());
    }
}
