//! `Show Human Moves`: before each search, one `info string human <rating>: <move> <p>% …`
//! line with the human prior's five most likely moves for the level's rating, so a GUI
//! or a lichess-bot chat can show what a person of that rating would play here.

use cozy_chess::Board;

use crate::chess::move_to_uci;
use crate::policy::shape::{time_bucket, TOP_RATING};
use crate::policy::{default_prior, PriorQuery};

/// Moves listed on the line.
pub const SHOWN_MOVES: usize = 5;
/// Time class the prior is asked about: UCI does not say which one a game is, and
/// blitz is the most common class in the training games (and `rookery human`'s default).
const TIME_CLASS: &str = "blitz";

/// The rating shown: `UCI_Elo` under `UCI_LimitStrength`, else the prior's top bucket
/// (full strength has no human rating; the strongest players are the nearest).
pub fn rating(limit_strength: bool, elo: i32) -> u16 {
    if limit_strength {
        elo.clamp(0, u16::MAX as i32) as u16
    } else {
        TOP_RATING
    }
}

/// The line's text after `info string`; `None` when the game is over (no legal move).
/// Mover and opponent get the same rating: the GUI does not tell the opponent's.
pub fn line(board: &Board, rating: u16, chess960: bool) -> Option<String> {
    let query = PriorQuery {
        mover_rating: rating,
        opponent_rating: rating,
        time_bucket: time_bucket(TIME_CLASS).unwrap_or(0),
    };
    let mut probs = default_prior().probabilities(board, &query);
    if probs.is_empty() {
        return None;
    }
    probs.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut text = format!("human {rating}:");
    for &(mv, p) in probs.iter().take(SHOWN_MOVES) {
        text.push_str(&format!(
            " {} {:.1}%",
            move_to_uci(board, mv, chess960),
            100.0 * p
        ));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_game_has_no_line() {
        let mate: Board = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
            .parse()
            .expect("fool's mate");
        assert_eq!(line(&mate, 1500, false), None);
    }

    #[test]
    fn the_rating_is_uci_elo_under_a_limit_else_the_top_bucket() {
        assert_eq!(rating(true, 1350), 1350);
        assert_eq!(rating(false, 1350), TOP_RATING);
    }

    #[test]
    fn the_option_help_states_the_full_strength_rating() {
        let help = crate::uci::options::decl(crate::uci::options::OptionId::ShowHumanMoves).help;
        assert!(help.contains(&TOP_RATING.to_string()), "{help}");
    }
}
