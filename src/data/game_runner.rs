//! Playing a run's games on several threads and appending them to one file in game order,
//! shared by alpha-beta datagen and MCTS self-play: threads take game numbers in turn, the
//! writer puts each game down whole and in number order (so a seed gives the same bytes
//! with any thread count), and a deadline, a stop signal or a write error end the run
//! after the games in progress.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::datagen::{check_output_unchanged, stop_signal, DatagenArgs, Tally};

/// Where and which games a run plays.
pub(crate) struct Run<'a> {
    pub path: &'a Path,
    /// The output, positioned at its end, and the bytes it holds.
    pub file: BufWriter<File>,
    pub written: u64,
    /// Game numbers `first..last` (`last` may be `u64::MAX`: until the deadline).
    pub first: u64,
    pub last: u64,
    pub threads: usize,
    pub deadline: Option<Instant>,
    pub progress: indicatif::ProgressBar,
}

impl<'a> Run<'a> {
    /// The run `args` asks for, appending to `file` (of `written` bytes) from game number
    /// `first` on; `None` when its games are all in the file already.
    pub fn for_args(
        args: &'a DatagenArgs,
        file: BufWriter<File>,
        written: u64,
        first: u64,
        started: Instant,
    ) -> Option<Run<'a>> {
        let last = args
            .games
            .map_or(u64::MAX, |n| args.first_game.saturating_add(n));
        (first < last).then(|| Run {
            path: &args.out,
            file,
            written,
            first,
            last,
            threads: args.threads,
            deadline: args.time_limit.map(|s| started + Duration::from_secs(s)),
            progress: progress_bar(args.quiet, args.games.map(|_| last - first)),
        })
    }
}

/// One kind of game: a per-thread player, how a game is played, written and counted.
pub(crate) trait GameKind: Sync {
    type Player;
    type Game: Send;
    /// A thread's player (a searcher); `None` stops the run.
    fn player(&self) -> Option<Self::Player>;
    fn play(&self, player: &mut Self::Player, index: u64) -> Self::Game;
    fn write(&self, buf: &mut Vec<u8>, game: &Self::Game) -> Result<(), String>;
    fn count(&self, tally: &mut Tally, game: &Self::Game);
    /// The progress bar's message after `secs` seconds.
    fn progress(&self, tally: &Tally, secs: f64) -> String;
}

/// Plays and appends the run's games; the tally of those written, or the first write
/// error (with how many games this run wrote before it).
pub(crate) fn play<K: GameKind>(kind: &K, run: Run) -> Result<Tally, String> {
    let Run {
        path,
        mut file,
        mut written,
        first,
        last,
        threads,
        deadline,
        progress,
    } = run;
    let next = AtomicU64::new(first);
    let stop = AtomicBool::new(false);
    stop_signal::install();
    let (tx, rx) = mpsc::channel::<(u64, K::Game)>();
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut write_error = None;
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, move || {
                    let Some(mut player) = kind.player() else {
                        stop.store(true, Ordering::Relaxed);
                        return;
                    };
                    loop {
                        if stop.load(Ordering::Relaxed)
                            || stop_signal::requested()
                            || deadline.is_some_and(|d| Instant::now() >= d)
                        {
                            return;
                        }
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= last {
                            return;
                        }
                        let game = kind.play(&mut player, index);
                        if tx.send((index, game)).is_err() {
                            return;
                        }
                    }
                })
                .expect("spawn datagen thread");
        }
        drop(tx);
        // Writer: games in number order, each flushed whole.
        let mut pending = BTreeMap::new();
        let mut want = first;
        let mut buf = Vec::new();
        for (index, game) in rx {
            pending.insert(index, game);
            while let Some(game) = pending.remove(&want) {
                want += 1;
                if write_error.is_some() {
                    continue; // stopping: the games still in flight are not written
                }
                buf.clear();
                // Checked before each write: a write past the end of a file truncated
                // under us would leave a hole of zeros and hide the change.
                let result = kind
                    .write(&mut buf, &game)
                    .and_then(|_| check_output_unchanged(path, file.get_ref(), written))
                    .and_then(|_| {
                        file.write_all(&buf)
                            .and_then(|_| file.flush())
                            .map_err(|e| format!("{}: {e}", path.display()))
                    });
                written += buf.len() as u64;
                if let Err(e) = result {
                    write_error = Some(e);
                    stop.store(true, Ordering::Relaxed);
                    continue;
                }
                kind.count(&mut tally, &game);
                progress.set_position(tally.games);
                let secs = started.elapsed().as_secs_f64().max(1e-9);
                progress.set_message(kind.progress(&tally, secs));
            }
        }
    });
    progress.finish();
    if write_error.is_none() {
        write_error = check_output_unchanged(path, file.get_ref(), written).err();
    }
    if stop_signal::requested() {
        eprintln!("datagen: stopped by a signal after finishing the games in progress");
    }
    match write_error {
        Some(e) => Err(format!(
            "{e} ({} games written to it by this run before that)",
            tally.games
        )),
        None => Ok(tally),
    }
}

/// The run's progress bar: games out of the run's count, or a spinner for a run until a
/// deadline; hidden with `--quiet`.
pub(crate) fn progress_bar(quiet: bool, games: Option<u64>) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let bar = match games {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}
