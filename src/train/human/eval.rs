//! Move-matching of a prior net on the validation split, with the plain-Rust forward
//! pass: top-1 and top-3 overall and by Maia's protocol (more than 10 plies played, no
//! bullet, the mover within ±100 of the band's centre), and Maia's diagonal (each
//! band's positions predicted with each band's centre as the mover's rating).

use indicatif::ProgressBar;

use super::data::PolicySet;
use crate::policy::network::PriorNet;
use crate::policy::PriorQuery;

/// Centres of the reported rating bands.
pub const BANDS: [u16; 4] = [1100, 1500, 1900, 2300];
/// Time bucket of bullet games (`policy::shape::time_bucket`).
const BULLET: u8 = 1;

/// Hits out of trials.
#[derive(Clone, Copy, Default, Debug)]
pub struct Count {
    pub hits: usize,
    pub n: usize,
}

impl Count {
    fn add(&mut self, hit: bool) {
        self.n += 1;
        self.hits += hit as usize;
    }

    /// Share and its 95 % Wilson interval.
    pub fn interval(&self) -> (f64, f64, f64) {
        if self.n == 0 {
            return (0.0, 0.0, 0.0);
        }
        let (n, p, z) = (self.n as f64, self.hits as f64 / self.n as f64, 1.96f64);
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
        (p, centre - half, centre + half)
    }

    pub fn render(&self) -> String {
        let (p, lo, hi) = self.interval();
        format!("{:.1} % [{:.1}, {:.1}]", 100.0 * p, 100.0 * lo, 100.0 * hi)
    }
}

/// The measured accuracies.
#[derive(Default, Debug)]
pub struct Accuracy {
    pub top1: Count,
    pub top3: Count,
    pub cross_entropy: f64,
    /// Per band (Maia's protocol, own rating): top-1, top-3.
    pub bands: [(Count, Count); 4],
    /// `diagonal[b][c]`: top-1 on band `b`'s positions conditioned on band `c`'s centre.
    pub diagonal: [[Count; 4]; 4],
    /// `paired[b][c]`: on band `b`'s positions, (hit with its own centre only, hit with
    /// `c`'s centre only), for the paired difference of the diagonal.
    pub paired: [[(usize, usize); 4]; 4],
}

/// Paired difference own − other in points, with its 95 % interval (normal
/// approximation on the discordant pairs).
pub fn paired_difference(own_only: usize, other_only: usize, n: usize) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let (b, c, n) = (own_only as f64, other_only as f64, n as f64);
    let d = (b - c) / n;
    let se = (b + c - (b - c) * (b - c) / n).max(0.0).sqrt() / n;
    (100.0 * d, 100.0 * (d - 1.96 * se), 100.0 * (d + 1.96 * se))
}

fn rank_of(logits: &[f32], target: usize) -> usize {
    logits.iter().filter(|&&l| l > logits[target]).count()
}

/// Measures `net` on every position of `set` (progress bar when `progress`).
pub fn accuracy(net: &PriorNet, set: &PolicySet, progress: bool) -> Accuracy {
    let mut acc = Accuracy::default();
    let bar = if progress {
        ProgressBar::new(set.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    let mut ce = 0.0f64;
    for i in 0..set.len() {
        if i % 4096 == 0 {
            bar.set_position(i as u64);
        }
        let h1 = net.hidden1(set.features(i));
        let rows = set.move_rows(i);
        let tactics = set.tactic_rows(i);
        let target = set.target[i] as usize;
        let q = PriorQuery {
            mover_rating: set.mover_rating[i],
            opponent_rating: set.opponent_rating[i],
            time_bucket: set.time[i] as usize,
        };
        let logits = net.logits(&net.position_vector(&h1, &q), rows, tactics);
        let rank = rank_of(&logits, target);
        acc.top1.add(rank == 0);
        acc.top3.add(rank < 3);
        let probs = crate::policy::network::softmax(&logits);
        ce -= (probs[target].max(1e-30) as f64).ln();
        if set.ply[i] <= 10 || set.time[i] == BULLET {
            continue;
        }
        let rating = set.mover_rating[i];
        let Some(b) = BANDS.iter().position(|&c| rating.abs_diff(c) <= 100) else {
            continue;
        };
        acc.bands[b].0.add(rank == 0);
        acc.bands[b].1.add(rank < 3);
        let hits = BANDS.map(|centre| {
            let q = PriorQuery {
                mover_rating: centre,
                ..q
            };
            rank_of(
                &net.logits(&net.position_vector(&h1, &q), rows, tactics),
                target,
            ) == 0
        });
        for c in 0..BANDS.len() {
            acc.diagonal[b][c].add(hits[c]);
            let pair = &mut acc.paired[b][c];
            pair.0 += (hits[b] && !hits[c]) as usize;
            pair.1 += (!hits[b] && hits[c]) as usize;
        }
    }
    bar.finish_and_clear();
    acc.cross_entropy = ce / set.len().max(1) as f64;
    acc
}

/// The accuracy tables as Markdown.
pub fn render(acc: &Accuracy) -> String {
    let mut out = format!(
        "all validation positions ({}): top-1 {}, top-3 {}, cross-entropy {:.4}\n\n",
        acc.top1.n,
        acc.top1.render(),
        acc.top3.render(),
        acc.cross_entropy
    );
    out.push_str("| band (Maia protocol) | positions | top-1 | top-3 |\n|---|---:|---|---|\n");
    for (b, centre) in BANDS.iter().enumerate() {
        let (t1, t3) = acc.bands[b];
        out.push_str(&format!(
            "| {centre} ± 100 | {} | {} | {} |\n",
            t1.n,
            t1.render(),
            t3.render()
        ));
    }
    out.push_str(&band_table(
        "Maia's diagonal: top-1 of each band's positions, conditioned on each rating",
        "positions \\ conditioned on",
        |b, c| acc.diagonal[b][c].render(),
    ));
    out.push_str(&band_table(
        "Paired difference, own rating − column's rating, top-1 points [95 %]",
        "positions \\ other rating",
        |b, c| {
            let (own, other) = acc.paired[b][c];
            let (d, lo, hi) = paired_difference(own, other, acc.diagonal[b][c].n);
            format!("{d:+.2} [{lo:+.2}, {hi:+.2}]")
        },
    ));
    out
}

/// A markdown table with a row and a column per band, under `title`: cell (b, c) is
/// `cell(b, c)`.
fn band_table(title: &str, corner: &str, cell: impl Fn(usize, usize) -> String) -> String {
    let mut out = format!("\n{title}\n\n| {corner} |");
    for c in BANDS {
        out.push_str(&format!(" {c} |"));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(BANDS.len()));
    out.push('\n');
    for (b, centre) in BANDS.iter().enumerate() {
        out.push_str(&format!("| {centre} |"));
        for c in 0..BANDS.len() {
            out.push_str(&format!(" {} |", cell(b, c)));
        }
        out.push('\n');
    }
    out
}
