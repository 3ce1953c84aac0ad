//! Rookery's own opinion of every legal move at several depths, for the human model:
//! one search with as many MultiPV lines as there are legal moves, read at each
//! iteration, so the shallow depths come for free on the way to the deepest one.

use std::sync::Mutex;

use cozy_chess::Move;

use crate::chess::{legal_moves, Position};
use crate::search::{
    Reporter, SearchInfo, SearchLimits, SearchOptions, Searcher, TablebaseOptions, MATE_BOUND,
};

/// The deepest search the human model may ask for (its cost must fit a blitz move).
pub const MAX_DEPTH: i32 = 6;

/// Each legal move with its score (centipawns, side to move's view) at each depth
/// asked, shallowest first.
#[derive(Clone, Debug)]
pub struct MoveScores {
    pub moves: Vec<Move>,
    pub depths: Vec<i32>,
    /// `scores[m][d]`: move `m` at `depths[d]`.
    pub scores: Vec<Vec<i32>>,
    pub nodes: u64,
}

struct Collector {
    wanted: Vec<i32>,
    /// (depth index, move, score) of every exact line.
    lines: Mutex<Vec<(usize, Move, i32)>>,
}

impl Reporter for Collector {
    fn iteration(&self, info: &SearchInfo) {
        if info.bound.is_some() {
            return;
        }
        let (Some(d), Some(&mv)) = (
            self.wanted.iter().position(|&w| w == info.depth),
            info.pv.first(),
        ) else {
            return;
        };
        self.lines
            .lock()
            .expect("collector lock")
            .push((d, mv, info.score));
    }
}

/// Scores every legal move of `pos` at each of `depths` (ascending, 1..=[`MAX_DEPTH`]).
/// Tablebases are not probed, so the scores are the engine's own judgement. A move
/// the search did not report at a depth (it cannot happen with exact MultiPV lines,
/// but an empty PV would) gets the worst score seen at that depth.
pub fn score_moves(searcher: &mut Searcher, pos: &Position, depths: &[i32]) -> MoveScores {
    score_moves_within(searcher, pos, depths, None)
}

/// [`score_moves`] within a time limit: a depth the search did not complete in time
/// reads as the deepest one it did.
pub fn score_moves_within(
    searcher: &mut Searcher,
    pos: &Position,
    depths: &[i32],
    time: Option<std::time::Duration>,
) -> MoveScores {
    let moves = legal_moves(&pos.board);
    let deepest = depths
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .clamp(1, MAX_DEPTH);
    let collector = Collector {
        wanted: depths.to_vec(),
        lines: Mutex::new(Vec::new()),
    };
    let options = SearchOptions {
        multipv: moves.len().max(1),
        tablebases: TablebaseOptions {
            probe_limit: 0,
            ..TablebaseOptions::default()
        },
        ..SearchOptions::default()
    };
    let result = if moves.is_empty() {
        Default::default()
    } else {
        let limits = SearchLimits {
            movetime: time.map(|t| t.as_millis().max(1) as u64),
            ..SearchLimits::depth(deepest)
        };
        searcher.search_alphabeta(pos, &limits, &options, &collector)
    };
    let lines = collector.lines.into_inner().expect("collector lock");
    let mut scores = vec![vec![None; depths.len()]; moves.len()];
    for (d, mv, score) in lines {
        if let Some(m) = moves.iter().position(|&x| x == mv) {
            scores[m][d].get_or_insert(score.clamp(-MATE_BOUND, MATE_BOUND));
        }
    }
    // A depth not reached at all copies the one before it.
    for d in 1..depths.len() {
        if scores.iter().all(|s| s[d].is_none()) {
            for s in scores.iter_mut() {
                s[d] = s[d - 1];
            }
        }
    }
    let worst: Vec<i32> = (0..depths.len())
        .map(|d| scores.iter().filter_map(|s| s[d]).min().unwrap_or(0))
        .collect();
    MoveScores {
        scores: scores
            .into_iter()
            .map(|s| {
                s.iter()
                    .enumerate()
                    .map(|(d, x)| x.unwrap_or(worst[d]))
                    .collect()
            })
            .collect(),
        moves,
        depths: depths.to_vec(),
        nodes: result.nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_move_gets_a_score_and_a_hanging_queen_scores_worst() {
        // White's queen on d4 is attacked by the e5 pawn: every move but saving it loses it.
        let board = crate::chess::parse_fen("4k3/8/8/4p3/3Q4/8/8/4K3 w - - 0 1").unwrap();
        let pos = Position::new(board);
        let mut searcher = Searcher::new(1, 1);
        let s = score_moves(&mut searcher, &pos, &[1, 3]);
        assert_eq!(s.moves.len(), s.scores.len());
        assert!(s.scores.iter().all(|x| x.len() == 2));
        let best = s.scores.iter().map(|x| x[1]).max().unwrap();
        let king_move = s
            .moves
            .iter()
            .position(|m| m.to_string() == "e1e2")
            .unwrap();
        assert!(
            best - s.scores[king_move][1] > 500,
            "leaving the queen en prise should cost it: best {best}, Ke2 {}",
            s.scores[king_move][1]
        );
    }
}
