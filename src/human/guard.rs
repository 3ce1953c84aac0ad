//! The blunder guard of the strongest human levels: the moves a level could draw are
//! searched deeper than the human model's own scores, and a move that gives away more
//! than the level's margin of expected result against the best of them is never
//! played. The margin comes from the data: the share of a result that players of the
//! level's rating give away with one move, at a high quantile (docs/human.md), so the
//! guard removes only the blunders that such players almost never make.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use cozy_chess::Move;

use super::features::DEPTHS;
use super::levels::candidates;
use super::model::Prediction;
use crate::chess::Position;
use crate::search::wdl::{material, VALUE};
use crate::search::{
    Reporter, SearchInfo, SearchLimits, SearchOptions, Searcher, TablebaseOptions, MATE_BOUND,
};

/// How a level guards its draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guard {
    /// Depth of the search of the candidate moves.
    pub depth: i32,
    /// Largest share of the expected result (0–1) a played move may give away against
    /// the best candidate.
    pub max_loss: f64,
}

/// Every exact line the search reports: (depth, first move, score).
struct ExactLines(Mutex<Vec<(i32, Move, i32)>>);

impl Reporter for ExactLines {
    fn iteration(&self, info: &SearchInfo) {
        if info.bound.is_none() {
            if let Some(&mv) = info.pv.first() {
                self.0
                    .lock()
                    .expect("guard lock")
                    .push((info.depth, mv, info.score));
            }
        }
    }
}

/// The scores of the deepest iteration, no shallower than `min_depth`, that gave an
/// exact line for every one of `moves`; empty when none did.
fn deepest_complete(
    lines: &[(i32, Move, i32)],
    moves: &[Move],
    min_depth: i32,
) -> Vec<(Move, i32)> {
    let mut depths: Vec<i32> = lines
        .iter()
        .map(|l| l.0)
        .filter(|&d| d >= min_depth)
        .collect();
    depths.sort_unstable();
    depths.dedup();
    for &depth in depths.iter().rev() {
        let mut scores: Vec<(Move, i32)> = Vec::new();
        // The last report of a move at that depth is the search's final word on it.
        for &(d, mv, score) in lines.iter().rev() {
            if d == depth && !scores.iter().any(|s| s.0 == mv) {
                scores.push((mv, score.clamp(-MATE_BOUND, MATE_BOUND)));
            }
        }
        if moves.iter().all(|mv| scores.iter().any(|s| s.0 == *mv)) {
            return scores;
        }
    }
    Vec::new()
}

impl Guard {
    /// Zeroes the probability of every candidate move of `prediction` (the moves a level
    /// could draw, [`candidates`]) that gives away more than [`Guard::max_loss`] against
    /// the best of them and the model's own best-scored move, all searched to
    /// [`Guard::depth`]. Removing the favourite can bring new moves into the draw: they
    /// are searched in turn (at most [`ROUNDS`] searches), and the best one always
    /// remains. `time` bounds the whole guard: a search the clock cuts short judges from
    /// its deepest iteration that scored all its moves, if that is at least
    /// [`MIN_JUDGING_DEPTH`]; otherwise its moves keep their probability. Returns the
    /// nodes searched.
    pub fn apply(
        &self,
        searcher: &mut Searcher,
        pos: &Position,
        prediction: &mut Prediction,
        time: Option<Duration>,
    ) -> u64 {
        let started = Instant::now();
        let m = material(&pos.board);
        let mut judged: Vec<(Move, f64)> = Vec::new();
        let mut tried: Vec<Move> = Vec::new();
        let mut nodes = 0;
        for _ in 0..ROUNDS {
            let mut fresh: Vec<Move> = candidates(&prediction.probabilities)
                .into_iter()
                .map(|i| prediction.moves[i])
                .filter(|mv| !tried.contains(mv))
                .collect();
            if fresh.is_empty() {
                break;
            }
            if tried.is_empty() {
                if let Some(best) = deepest_best(prediction) {
                    if !fresh.contains(&best) {
                        fresh.push(best);
                    }
                }
                if fresh.len() < 2 {
                    // One move, and the model's own best: nothing to compare it with.
                    break;
                }
            }
            let left = time.map(|t| t.saturating_sub(started.elapsed()));
            if left.is_some_and(|t| t.is_zero()) {
                break;
            }
            tried.extend_from_slice(&fresh);
            let (lines, searched) = self.search(searcher, pos, fresh, left);
            nodes += searched;
            if lines.is_empty() {
                break;
            }
            judged.extend(
                lines
                    .into_iter()
                    .map(|(mv, s)| (mv, VALUE.expected_score(s, m))),
            );
            let best = judged.iter().map(|j| j.1).fold(f64::MIN, f64::max);
            for &(mv, expected) in &judged {
                if best - expected > self.max_loss {
                    if let Some(i) = prediction.moves.iter().position(|&x| x == mv) {
                        prediction.probabilities[i] = 0.0;
                    }
                }
            }
        }
        nodes
    }

    /// The exact scores of `moves` at [`Guard::depth`], or at the deepest iteration no
    /// shallower than [`MIN_JUDGING_DEPTH`] that scored them all when `time` runs out
    /// first, and the nodes it took.
    fn search(
        &self,
        searcher: &mut Searcher,
        pos: &Position,
        moves: Vec<Move>,
        time: Option<Duration>,
    ) -> (Vec<(Move, i32)>, u64) {
        let collector = ExactLines(Mutex::new(Vec::new()));
        let options = SearchOptions {
            multipv: moves.len(),
            tablebases: TablebaseOptions {
                probe_limit: 0,
                ..TablebaseOptions::default()
            },
            ..SearchOptions::default()
        };
        let limits = SearchLimits {
            searchmoves: moves.clone(),
            movetime: time.map(|t| t.as_millis().max(1) as u64),
            ..SearchLimits::depth(self.depth)
        };
        let result = searcher.search_alphabeta(pos, &limits, &options, &collector);
        let lines = collector.0.into_inner().expect("guard lock");
        let min_depth = MIN_JUDGING_DEPTH.min(self.depth);
        (deepest_complete(&lines, &moves, min_depth), result.nodes)
    }
}

/// Searches a guard may run for one move.
const ROUNDS: usize = 3;
/// A guard cut short by the clock still judges from its deepest finished iteration if
/// that is deeper than the model's own scores.
const MIN_JUDGING_DEPTH: i32 = DEPTHS[DEPTHS.len() - 1] + 1;

/// The move the model's deepest search scores best.
fn deepest_best(p: &Prediction) -> Option<Move> {
    let deepest = p.scores.depths.len().checked_sub(1)?;
    (0..p.moves.len())
        .max_by_key(|&i| p.scores.scores[i].get(deepest).copied().unwrap_or(i32::MIN))
        .map(|i| p.moves[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{legal_moves, parse_fen};
    use crate::human::scores::score_moves;

    /// A prediction for `fen` giving `favourites` (uci, probability) and the rest nothing.
    fn prediction(
        searcher: &mut Searcher,
        pos: &Position,
        favourites: &[(&str, f32)],
    ) -> Prediction {
        let moves = legal_moves(&pos.board);
        let probabilities: Vec<f32> = moves
            .iter()
            .map(|m| {
                favourites
                    .iter()
                    .find(|f| f.0 == m.to_string())
                    .map_or(0.0, |f| f.1)
            })
            .collect();
        Prediction {
            scores: score_moves(searcher, pos, &[1]),
            prior: probabilities.clone(),
            probabilities,
            features: vec![],
            moves,
        }
    }

    fn probability(p: &Prediction, uci: &str) -> f32 {
        let i = p.moves.iter().position(|m| m.to_string() == uci).unwrap();
        p.probabilities[i]
    }

    #[test]
    fn a_hanging_queen_is_never_drawn_and_sound_moves_stay() {
        // The e5 pawn attacks White's queen on d4: a king move leaves it en prise.
        let pos = Position::new(parse_fen("4k3/8/8/4p3/3Q4/8/8/4K3 w - - 0 1").unwrap());
        let mut searcher = Searcher::new(1, 1);
        let mut p = prediction(
            &mut searcher,
            &pos,
            &[("e1e2", 0.6), ("d4e5", 0.3), ("d4d5", 0.1)],
        );
        let guard = Guard {
            depth: 6,
            max_loss: 0.37,
        };
        let nodes = guard.apply(&mut searcher, &pos, &mut p, None);
        assert!(nodes > 0);
        assert_eq!(
            probability(&p, "e1e2"),
            0.0,
            "the favourite hangs the queen"
        );
        assert!(probability(&p, "d4e5") > 0.0 && probability(&p, "d4d5") > 0.0);

        // No guard at all: the whole result can be given away.
        let mut p = prediction(&mut searcher, &pos, &[("e1e2", 0.6), ("d4e5", 0.3)]);
        Guard {
            depth: 6,
            max_loss: 1.0,
        }
        .apply(&mut searcher, &pos, &mut p, None);
        assert_eq!(probability(&p, "e1e2"), 0.6);
    }

    #[test]
    fn moves_brought_into_the_draw_by_a_removal_are_judged_too() {
        // The favourite hangs the queen; once it is gone, the 2 % move (under 3 % of the
        // favourite's 0.9, so not first searched) joins the draw: it hangs the queen too.
        let pos = Position::new(parse_fen("4k3/8/8/4p3/3Q4/8/8/4K3 w - - 0 1").unwrap());
        let mut searcher = Searcher::new(1, 1);
        let mut p = prediction(
            &mut searcher,
            &pos,
            &[("e1e2", 0.9), ("d4e5", 0.07), ("e1d1", 0.02)],
        );
        Guard {
            depth: 6,
            max_loss: 0.37,
        }
        .apply(&mut searcher, &pos, &mut p, None);
        assert_eq!(probability(&p, "e1e2"), 0.0);
        assert_eq!(probability(&p, "e1d1"), 0.0);
        assert!(probability(&p, "d4e5") > 0.0);
    }

    #[test]
    fn a_guard_cut_short_judges_from_its_deepest_finished_iteration() {
        let pos = Position::new(parse_fen("4k3/8/8/4p3/3Q4/8/8/4K3 w - - 0 1").unwrap());
        let moves = legal_moves(&pos.board);
        let (a, b) = (moves[0], moves[1]);
        // Depth 7 scored both, depth 8 only one before time ran out.
        let lines = vec![(7, a, 10), (7, b, -5), (8, a, 20), (7, b, -7)];
        let judged = deepest_complete(&lines, &[a, b], 6);
        assert_eq!(judged.len(), 2);
        assert!(
            judged.contains(&(a, 10)) && judged.contains(&(b, -7)),
            "{judged:?}"
        );
        // Nothing finished deep enough: nothing is judged.
        assert!(deepest_complete(&lines, &[a, b], 8).is_empty());
        assert!(deepest_complete(&[], &[a, b], 1).is_empty());
    }
}
