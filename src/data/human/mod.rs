//! Human games with both players' ratings, in the repo's own compact format, for
//! rating-conditioned move prediction (issue 56): the file format and its reader
//! ([`format`]), the CSV and PGN readers ([`csv`], [`pgn`]), the converter
//! ([`convert`]), the counts ([`stats`]) and the sample lines for scripts ([`samples`])
//! behind `rookery human-data`.
//! Layout and provenance of the committed files: `data/human/README.md`.

pub mod convert;
pub mod csv;
pub mod format;
pub mod pgn;
pub mod samples;
pub mod stats;

use std::path::{Path, PathBuf};
use std::time::Instant;

pub use convert::{convert_files, ConvertOptions, ConvertReport, SkipReason};
pub use format::{
    read_file, samples_in, write_games, HumanGame, HumanSample, Scale, Source, Split,
};
pub use stats::HumanStats;

#[derive(clap::Subcommand, Debug)]
pub enum HumanDataCommand {
    /// Convert Kaggle games.csv and PGN files (plain or .gz) into one .rkh file.
    Convert {
        /// Output file (.rkh, gzip'd).
        #[arg(long)]
        out: PathBuf,
        /// Share of games in the validation split, per mille.
        #[arg(long, default_value_t = 100)]
        validation_per_mille: u64,
        /// Most games kept from each single-player archive.
        #[arg(long, default_value_t = 1500)]
        single_player_cap: usize,
        /// Rating band width of the printed counts.
        #[arg(long, default_value_t = 200)]
        band: u16,
        /// .rkh files whose games count as already converted (dropped as duplicates),
        /// so that sources converted into separate files stay disjoint.
        #[arg(long)]
        dedup_against: Vec<PathBuf>,
        /// `*.csv` is read as Kaggle's games.csv, anything else as PGN; SOURCE.md's file
        /// names set the source and rating scale.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
    /// Counts of .rkh files, or of CSV/PGN inputs converted in memory (then also the
    /// skipped records by reason).
    Stats {
        /// Rating band width (e.g. 100 or 200).
        #[arg(long, default_value_t = 200)]
        band: u16,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print one line per position and move played, tab-separated: FEN, played move (UCI,
    /// castling as e1g1), mover's rating, opponent's rating, scale, time class, ply (plies
    /// played before the position; 0 = first move) and the game's key (16 hex digits).
    Samples {
        /// Only games of this split.
        #[arg(long, value_enum)]
        split: Option<samples::SplitArg>,
        /// Only positions with at least N plies played before them (Maia's protocol skips
        /// each game's first ten plies: `--min-ply 10`).
        #[arg(long, default_value_t = 0)]
        min_ply: u16,
        /// Drop bullet and ultrabullet games.
        #[arg(long)]
        exclude_bullet: bool,
        /// Print the column names first, as a `#` line.
        #[arg(long)]
        header: bool,
        /// .rkh files, read in order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn is_rkh(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rkh")
}

/// Prints the skip counts and messages of a conversion.
pub fn render_report(report: &ConvertReport) -> String {
    let mut out = String::new();
    for message in &report.messages {
        out.push_str(message);
        out.push('\n');
    }
    out.push_str(&format!(
        "records {}: kept {}, skipped {}\n",
        report.records,
        report.kept,
        report.skipped_total()
    ));
    for (reason, n) in &report.skipped {
        out.push_str(&format!("  skipped, {}: {n}\n", reason.name()));
    }
    out
}

pub fn run(cmd: HumanDataCommand) -> Result<(), String> {
    match cmd {
        HumanDataCommand::Convert {
            out,
            validation_per_mille,
            single_player_cap,
            band,
            dedup_against,
            inputs,
        } => {
            let mut known_games = std::collections::HashSet::new();
            for path in &dedup_against {
                for g in read_file(path)? {
                    known_games.insert(format::game_key(&g.moves, g.white_rating, g.black_rating));
                }
            }
            let options = ConvertOptions {
                validation_per_mille,
                single_player_cap,
                progress: true,
                known_games,
                ..Default::default()
            };
            let started = Instant::now();
            let (games, report) = convert_files(&inputs, &options)?;
            let file =
                std::fs::File::create(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            write_games(std::io::BufWriter::new(file), &games)?;
            let seconds = started.elapsed().as_secs_f64();
            eprint!("{}", render_report(&report));
            let mut stats = HumanStats::new(band);
            games.iter().for_each(|g| stats.add(g));
            print!("{}", stats.render());
            let bytes = std::fs::metadata(&out).map_or(0, |m| m.len());
            println!(
                "wrote {}: {bytes} bytes ({:.2} bytes/position); {:.1} s, {:.0} positions/s",
                out.display(),
                bytes as f64 / stats.total.positions.max(1) as f64,
                seconds,
                stats.total.positions as f64 / seconds.max(1e-9)
            );
            Ok(())
        }
        HumanDataCommand::Stats { band, files } => {
            let mut stats = HumanStats::new(band);
            let (stored, raw): (Vec<&PathBuf>, Vec<&PathBuf>) =
                files.iter().partition(|p| is_rkh(p));
            for path in stored {
                read_file(path)?.iter().for_each(|g| stats.add(g));
            }
            if !raw.is_empty() {
                let (games, report) = convert_files(&raw, &ConvertOptions::default())?;
                print!("{}", render_report(&report));
                games.iter().for_each(|g| stats.add(g));
            }
            print!("{}", stats.render());
            Ok(())
        }
        HumanDataCommand::Samples {
            split,
            min_ply,
            exclude_bullet,
            header,
            files,
        } => {
            let filter = samples::SampleFilter {
                split: split.map(Split::from),
                min_ply,
                exclude_bullet,
            };
            samples::run(&files, &filter, header)
        }
    }
}
