//! A move at a human level (`human::levels`): the human model's prediction for the
//! level's rating, one move drawn from it, an `info` line for the GUI, and — with
//! `Human Timing` on a clock — the thinking time a person of that level would take.
//! Runs on the search thread, so `stop`, `isready` and `quit` are answered meanwhile.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::chess::{move_to_uci, Position};
use crate::human::levels::HumanLevel;
use crate::human::model::{HumanModel, Prediction};
use crate::policy::shape::time_bucket;
use crate::policy::PriorQuery;
use crate::search::strength::{Situation, Strength};
use crate::search::wdl::normalized_cp;
use crate::search::{SearchControl, SearchLimits, Searcher, TimeManager};

/// Moves named on the `info string` line.
const SHOWN_MOVES: usize = 5;
/// The model's search never takes more than this share of the move's time budget.
const SEARCH_SHARE: f64 = 0.5;

/// What one human-level move needs besides the searcher.
pub struct HumanTurn {
    pub level: HumanLevel,
    pub position: Position,
    pub limits: SearchLimits,
    pub move_overhead: u64,
    pub human_timing: bool,
    pub show_moves: bool,
    pub chess960: bool,
    pub seed: u64,
}

/// Plays the turn; returns the `bestmove` line.
pub fn play(searcher: &mut Searcher, control: &SearchControl, turn: &HumanTurn) -> String {
    let started = Instant::now();
    let board = &turn.position.board;
    let us = board.side_to_move();
    let budget =
        TimeManager::clock_budget_ms(&turn.limits, us, turn.move_overhead).or(turn.limits.movetime);
    let search_time = budget.map(|ms| Duration::from_millis((ms as f64 * SEARCH_SHARE) as u64));
    let rating = turn.level.model_rating;
    let query = PriorQuery {
        mover_rating: rating,
        opponent_rating: rating,
        time_bucket: time_bucket("blitz").unwrap_or(0),
    };
    let Some(mut prediction) =
        HumanModel::default().predict(searcher, &turn.position, &query, search_time)
    else {
        wait_for_release(control, &turn.limits);
        return "bestmove 0000".into();
    };
    if !turn.limits.searchmoves.is_empty() {
        for (mv, p) in prediction
            .moves
            .iter()
            .zip(prediction.probabilities.iter_mut())
        {
            if !turn.limits.searchmoves.contains(mv) {
                *p = 0.0;
            }
        }
    }
    if let Some(guard) = turn.level.guard {
        // Within the same share of the move's time as the model's own search.
        let left = search_time.map(|t| t.saturating_sub(started.elapsed()));
        prediction.scores.nodes += guard.apply(searcher, &turn.position, &mut prediction, left);
    }
    let chosen = turn
        .level
        .choose(&prediction, turn.seed)
        .unwrap_or(prediction.moves[0]);
    report(&prediction, chosen, turn, started.elapsed());
    let situation = Situation {
        hard: hard(&prediction),
        clock_ms: match us {
            cozy_chess::Color::White => turn.limits.wtime,
            cozy_chess::Color::Black => turn.limits.btime,
        },
    };
    let on_clock = turn.limits.depth.is_none() && turn.limits.mate.is_none();
    if turn.human_timing && on_clock {
        if let Some(ms) = TimeManager::clock_budget_ms(&turn.limits, us, turn.move_overhead) {
            let strength = Strength::at_setting(turn.level.elo, turn.level.elo);
            let think = Duration::from_millis(strength.think_time_ms(ms, &situation, turn.seed));
            while started.elapsed() < think && !control.stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
    wait_for_release(control, &turn.limits);
    format!("bestmove {}", move_to_uci(board, chosen, turn.chess960))
}

/// A position where the shallow search's favourite is not the deep one's: a person
/// thinks longer there.
fn hard(p: &Prediction) -> bool {
    let best_at = |d: usize| {
        (0..p.moves.len()).max_by_key(|&i| p.scores.scores[i].get(d).copied().unwrap_or(i32::MIN))
    };
    let deepest = p.scores.depths.len().saturating_sub(1);
    best_at(0) != best_at(deepest)
}

/// The `Show Human Moves` line (the model's five most likely moves for the level, in
/// the same form as the prior's line at full strength), then the search's line for the
/// chosen move.
fn report(p: &Prediction, chosen: cozy_chess::Move, turn: &HumanTurn, took: Duration) {
    let board = &turn.position.board;
    if turn.show_moves {
        let mut order: Vec<usize> = (0..p.moves.len()).collect();
        order.sort_by(|&a, &b| p.probabilities[b].total_cmp(&p.probabilities[a]));
        let mut text = format!("human {}:", turn.level.elo);
        for &k in order.iter().take(SHOWN_MOVES) {
            text.push_str(&format!(
                " {} {:.1}%",
                move_to_uci(board, p.moves[k], turn.chess960),
                100.0 * p.probabilities[k]
            ));
        }
        super::info_string(&text);
    }
    let i = p.moves.iter().position(|&m| m == chosen).unwrap_or(0);
    let deepest = p.scores.depths.len().saturating_sub(1);
    let score = p.scores.scores[i].get(deepest).copied().unwrap_or(0);
    let depth = p.scores.depths.last().copied().unwrap_or(1);
    let ms = took.as_millis().max(1) as u64;
    super::send(&format!(
        "info depth {depth} seldepth {depth} multipv 1 score cp {} nodes {} nps {} time {ms} pv {}",
        normalized_cp(score),
        p.scores.nodes,
        p.scores.nodes * 1000 / ms,
        move_to_uci(board, chosen, turn.chess960)
    ));
}

/// In `go infinite` and `go ponder`, `bestmove` waits for `stop` or `ponderhit`.
fn wait_for_release(control: &SearchControl, limits: &SearchLimits) {
    while !control.stop.load(Ordering::SeqCst)
        && (limits.infinite || control.pondering.load(Ordering::SeqCst))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}
