//! Search limits from `go` and the time manager that turns clocks into a soft limit
//! (don't start another iteration after it) and a hard limit (abort the search).

use cozy_chess::{Color, Move};
use std::time::{Duration, Instant};

use super::params::{
    TM_DEFAULT_MOVES_TO_GO, TM_HARD_CAP_PERCENT, TM_HARD_FACTOR, TM_INC_PERCENT,
    TM_LAST_MOVE_CAP_PERCENT, TM_MAX_MOVES_TO_GO, TM_SOFT_PERCENT,
};

#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    pub movetime: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// No new iteration once this many nodes are searched (self-play data generation:
    /// a fixed budget that still ends on a completed iteration).
    pub soft_nodes: Option<u64>,
    pub mate: Option<i32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<Move>,
}

impl SearchLimits {
    pub fn depth(depth: i32) -> Self {
        SearchLimits {
            depth: Some(depth),
            ..Default::default()
        }
    }
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    /// When `go` arrived: the soft limit counts thinking from here, pondering included.
    start: Instant,
    /// When our clock started: `go`, or `ponderhit` after `go ponder`. The hard limit
    /// counts from here, since the GUI only charges us from this moment.
    clock_start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
}

impl TimeManager {
    pub fn new(limits: &SearchLimits, us: Color, move_overhead: u64) -> Self {
        let start = Instant::now();
        let (soft, hard) = Self::budget(limits, us, move_overhead);
        TimeManager {
            start,
            clock_start: start,
            soft: soft.map(Duration::from_millis),
            hard: hard.map(Duration::from_millis),
        }
    }

    /// (soft, hard) in milliseconds; `None` means unlimited.
    fn budget(limits: &SearchLimits, us: Color, overhead: u64) -> (Option<u64>, Option<u64>) {
        if let Some(movetime) = limits.movetime {
            let t = movetime.saturating_sub(overhead).max(1);
            return (Some(t), Some(t));
        }
        let (time, inc) = match us {
            Color::White => (limits.wtime, limits.winc.unwrap_or(0)),
            Color::Black => (limits.btime, limits.binc.unwrap_or(0)),
        };
        // A clock given for the opponent only: treat ours as empty rather than unlimited
        // (otherwise `go btime 1000` with White to move never ends).
        let time = match time {
            Some(t) => t,
            None if limits.wtime.is_some() || limits.btime.is_some() => 0,
            None => return (None, None),
        };
        // Never plan to use the overhead or the last few milliseconds.
        let left = time.saturating_sub(overhead).max(1);
        let moves_to_go = limits
            .movestogo
            .unwrap_or(TM_DEFAULT_MOVES_TO_GO())
            .clamp(1, TM_MAX_MOVES_TO_GO());
        let base = left / moves_to_go + inc * TM_INC_PERCENT() / 100;
        let hard_cap = if moves_to_go == 1 {
            left * TM_LAST_MOVE_CAP_PERCENT() / 100
        } else {
            left * TM_HARD_CAP_PERCENT() / 100
        };
        let hard = (base * TM_HARD_FACTOR()).min(hard_cap).max(1);
        let soft = (base * TM_SOFT_PERCENT() / 100).min(hard).max(1);
        (Some(soft), Some(hard))
    }

    /// The soft budget in milliseconds for a move played on a clock (`wtime`/`btime`), the
    /// time the engine would normally plan to spend; `None` for other limits.
    pub fn clock_budget_ms(limits: &SearchLimits, us: Color, move_overhead: u64) -> Option<u64> {
        if limits.movetime.is_some() || limits.infinite {
            return None;
        }
        Self::budget(limits, us, move_overhead).0
    }

    /// `ponderhit`: our clock starts running now. The time already spent pondering still
    /// counts toward the soft limit (it was thinking about this very position), so a long
    /// ponder lets us move at once and bank the clock, as Stockfish does.
    pub fn ponderhit(&mut self) {
        self.clock_start = Instant::now();
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Abort the running iteration?
    pub fn hard_expired(&self) -> bool {
        self.hard.is_some_and(|h| self.clock_start.elapsed() >= h)
    }

    /// Skip the next iteration? `scale` stretches the soft limit (unstable best move → >1).
    pub fn soft_expired(&self, scale: f64) -> bool {
        self.soft
            .is_some_and(|s| self.start.elapsed().as_secs_f64() >= s.as_secs_f64() * scale)
    }

    /// Seconds left until the soft limit stretched by `scale` (negative once past it);
    /// `None` without a clock.
    pub fn soft_left_secs(&self, scale: f64) -> Option<f64> {
        self.soft
            .map(|s| s.as_secs_f64() * scale - self.start.elapsed().as_secs_f64())
    }

    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_stays_inside_the_clock() {
        for (time, inc, mtg) in [
            (1000, 10, None),
            (60_000, 0, None),
            (50, 0, None),
            (5000, 0, Some(1)),
            (300, 100, None),
        ] {
            let limits = SearchLimits {
                wtime: Some(time),
                winc: Some(inc),
                movestogo: mtg,
                ..Default::default()
            };
            let (soft, hard) = TimeManager::budget(&limits, Color::White, 30);
            let (soft, hard) = (soft.unwrap(), hard.unwrap());
            assert!(soft <= hard, "{time} {inc}: {soft} > {hard}");
            assert!(hard < time.max(2), "{time} {inc}: hard {hard}");
        }
    }

    #[test]
    fn ponderhit_restarts_the_hard_limit_but_not_the_soft_one() {
        let limits = SearchLimits {
            wtime: Some(1000),
            ponder: true,
            ..Default::default()
        };
        // soft 24 ms, hard 160 ms
        let mut tm = TimeManager::new(&limits, Color::White, 0);
        std::thread::sleep(Duration::from_millis(200));
        assert!(tm.hard_expired() && tm.soft_expired(1.0));
        tm.ponderhit();
        assert!(!tm.hard_expired(), "our clock starts at ponderhit");
        assert!(
            tm.soft_expired(1.0),
            "time spent pondering counts as thinking"
        );
    }

    #[test]
    fn only_the_opponents_clock_still_limits_the_search() {
        let limits = SearchLimits {
            btime: Some(1000),
            ..Default::default()
        };
        let (soft, hard) = TimeManager::budget(&limits, Color::White, 30);
        assert!(hard.is_some_and(|h| h <= 1) && soft.is_some());
    }

    #[test]
    fn movetime_is_exact_minus_overhead() {
        let limits = SearchLimits {
            movetime: Some(1000),
            ..Default::default()
        };
        assert_eq!(
            TimeManager::budget(&limits, Color::Black, 30),
            (Some(970), Some(970))
        );
    }
}
