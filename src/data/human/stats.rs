//! Counts over human games for `rookery human-data stats`: games and positions by
//! source, rating scale, split and time-control class, and positions by the mover's
//! rating band within each scale (bands never mix scales).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::format::{HumanGame, Scale, Source, Split, TimeClass};

/// Games and positions (plies) of one group.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub games: u64,
    pub positions: u64,
}

impl Count {
    fn add(&mut self, positions: u64) {
        self.games += 1;
        self.positions += positions;
    }
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HumanStats {
    pub total: Count,
    pub by_source: BTreeMap<Source, Count>,
    pub by_scale: BTreeMap<Scale, Count>,
    pub train: Count,
    pub validation: Count,
    pub by_time_class: BTreeMap<TimeClass, Count>,
    pub with_clocks: Count,
    /// (scale, band start) → positions whose mover is rated in [start, start + band).
    pub mover_bands: BTreeMap<(Scale, u16), u64>,
    pub band_width: u16,
}

impl HumanStats {
    pub fn new(band_width: u16) -> Self {
        HumanStats {
            band_width: band_width.max(1),
            ..Default::default()
        }
    }

    pub fn add(&mut self, game: &HumanGame) {
        let plies = game.moves.len() as u64;
        self.total.add(plies);
        self.by_source.entry(game.source).or_default().add(plies);
        self.by_scale.entry(game.scale).or_default().add(plies);
        self.by_time_class
            .entry(game.time_control.class)
            .or_default()
            .add(plies);
        match game.split {
            Split::Train => self.train.add(plies),
            Split::Validation => self.validation.add(plies),
        }
        if game.clocks.is_some() {
            self.with_clocks.add(plies);
        }
        // White moves at even plies, Black at odd ones.
        let white_moves = plies.div_ceil(2);
        let black_moves = plies / 2;
        for (rating, moves) in [
            (game.white_rating, white_moves),
            (game.black_rating, black_moves),
        ] {
            let band = rating / self.band_width * self.band_width;
            *self.mover_bands.entry((game.scale, band)).or_default() += moves;
        }
    }

    /// The report as text (what the CLI prints and README quotes).
    pub fn render(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, name: &str, c: &Count| {
            let _ = writeln!(
                out,
                "  {name:<28} {:>8} games {:>10} positions",
                c.games, c.positions
            );
        };
        line(&mut out, "total", &self.total);
        let _ = writeln!(out, "by source:");
        for (s, c) in &self.by_source {
            line(&mut out, s.name(), c);
        }
        let _ = writeln!(out, "by rating scale:");
        for (s, c) in &self.by_scale {
            line(&mut out, s.name(), c);
        }
        let _ = writeln!(out, "by split (by game):");
        line(&mut out, "train", &self.train);
        line(&mut out, "validation", &self.validation);
        let _ = writeln!(out, "by time-control class:");
        for (t, c) in &self.by_time_class {
            line(&mut out, t.name(), c);
        }
        line(&mut out, "with per-move clocks", &self.with_clocks);
        let _ = writeln!(
            out,
            "positions by mover's rating band (width {}), per scale:",
            self.band_width
        );
        let scales: std::collections::BTreeSet<Scale> =
            self.mover_bands.keys().map(|&(scale, _)| scale).collect();
        for scale in scales {
            let bands: Vec<String> = self
                .mover_bands
                .iter()
                .filter(|((s, _), _)| *s == scale)
                .map(|((_, band), n)| format!("{band}: {n}"))
                .collect();
            let _ = writeln!(out, "  {}: {}", scale.name(), bands.join(" · "));
        }
        out
    }
}
