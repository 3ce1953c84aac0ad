//! Self-play data: datagen at tiny node counts writes games that read back whole, whose
//! results match how they ended, with the same bytes for a seed whatever the thread count
//! and across an interrupted run, and split into chunk files (`--first-game`) that add up
//! to the one file; `data stats` counts; truncated and corrupted files are
//! reported with the offset, and the games before the damage stay readable; a datagen
//! whose file is replaced or truncated under it stops instead of writing into the void;
//! `--net` plays with the net it names, and a net that cannot be loaded stops it first;
//! `--chess960` games start from Chess960 positions (double Chess960 among them), castle
//! by the Chess960 rules and read back.

use std::path::PathBuf;

use cozy_chess::Board;
use rookery::data::datagen::{self, DatagenArgs};
use rookery::data::format::{self, Game};
use rookery::eval::features;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rookery-datagen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn args(out: PathBuf, threads: usize, games: u64) -> DatagenArgs {
    DatagenArgs {
        out,
        threads,
        nodes: 300,
        hard_nodes: None,
        games: Some(games),
        first_game: 0,
        time_limit: None,
        seed: 7,
        random_plies: 8,
        chess960: 0.0,
        double_chess960: 0.5,
        max_opening_score: 400,
        win_score: 1000,
        win_plies: 4,
        draw_score: 10,
        draw_plies: 8,
        draw_after: 40,
        max_plies: 160,
        hash: 2,
        quiet: true,
        net: None,
        mode: Default::default(),
        mcts: Default::default(),
    }
}

fn read(path: &PathBuf) -> Vec<Game> {
    let bytes = std::fs::read(path).expect("datagen wrote its file");
    let (games, error) = format::read_games(&bytes);
    assert!(error.is_none(), "{error:?}");
    games
}

#[test]
fn games_are_whole_legal_and_end_as_recorded() {
    let path = temp("games.vf");
    let a = args(path.clone(), 2, 6);
    let tally = datagen::run(&a).expect("datagen runs");
    let games = read(&path);
    assert_eq!(games.len(), 6);
    assert_eq!(tally.games, 6);
    assert!(tally.positions > 0);
    // Every ply is a search, stopped by the budget (300 nodes, also the default cap): the
    // average move takes about the budget, give or take a few nodes and the rare search
    // that ends early (a position solved to the maximum depth).
    assert_eq!(
        tally.moves,
        games.iter().map(|g| g.moves.len() as u64).sum::<u64>()
    );
    assert!(
        tally.nodes >= tally.moves * a.nodes / 2 && tally.nodes <= tally.moves * 400,
        "{} nodes for {} moves",
        tally.nodes,
        tally.moves
    );
    for g in &games {
        assert!(!g.moves.is_empty());
        // Replay: every move legal (checked by the reader), and the end agrees with the result.
        let mut board = g.start.clone();
        for &(mv, _) in &g.moves {
            assert!(board.is_legal(mv));
            board.play_unchecked(mv);
        }
        let mut has_moves = false;
        board.generate_moves(|_| {
            has_moves = true;
            true
        });
        let last = g.moves.last().expect("moves").1 as i32;
        match g.wdl {
            2 | 0 => {
                let white_won = g.wdl == 2;
                if !has_moves {
                    assert!(!board.checkers().is_empty(), "stalemate scored as a win");
                    assert_eq!(board.side_to_move() == cozy_chess::Color::Black, white_won);
                } else {
                    // Adjudicated: the last score agrees with the winner.
                    assert!(
                        if white_won {
                            last >= a.win_score
                        } else {
                            last <= -a.win_score
                        },
                        "{g:?}"
                    );
                }
            }
            1 => {
                if !has_moves {
                    assert!(board.checkers().is_empty(), "mate scored as a draw");
                }
            }
            other => panic!("bad result {other}"),
        }
        // Training positions: features survive a FEN round trip (castling, ep, clock).
        for s in format::samples(g) {
            assert!(s.board.checkers().is_empty());
            assert!((s.score_white as i32).abs() < format::MATE_SCORE as i32);
            assert_eq!(s.result_white, g.result_white());
            let again: Board = s.board.to_string().parse().expect("FEN");
            for persp in [cozy_chess::Color::White, cozy_chess::Color::Black] {
                assert_eq!(
                    features::dense(&s.board, persp, false),
                    features::dense(&again, persp, false)
                );
            }
        }
    }
    // Re-encoding gives the same bytes.
    let mut bytes = Vec::new();
    for g in &games {
        format::write_game(&mut bytes, g);
    }
    assert_eq!(bytes, std::fs::read(&path).unwrap());
}

#[test]
fn a_cap_above_the_budget_lets_the_iteration_under_way_run_on() {
    // With the cap at 8x the budget (in effect the soft budget alone) the iteration that
    // passes 300 nodes is finished, so the average move costs well over the budget; the
    // games stay whole and legal.
    let path = temp("soft.vf");
    let a = DatagenArgs {
        hard_nodes: Some(2400),
        ..args(path.clone(), 2, 4)
    };
    let tally = datagen::run(&a).expect("datagen runs");
    assert_eq!(read(&path).len(), 4);
    assert!(tally.moves > 0 && tally.positions > 0);
    assert!(
        tally.nodes > tally.moves * 400,
        "{} nodes for {} moves with a soft budget of 300",
        tally.nodes,
        tally.moves
    );
}

#[test]
fn a_seed_gives_the_same_bytes_with_any_thread_count_and_after_an_interruption() {
    let one = temp("one.vf");
    let two = temp("two.vf");
    datagen::run(&args(one.clone(), 1, 4)).expect("datagen");
    datagen::run(&args(two.clone(), 2, 4)).expect("datagen");
    let bytes = std::fs::read(&one).unwrap();
    assert_eq!(bytes, std::fs::read(&two).unwrap());

    // A run killed in the middle of its third game, then run again: the half-written
    // game is cut off and the rerun continues the same sequence.
    let resumed = temp("resumed.vf");
    let games = read(&one);
    let mut partial = Vec::new();
    for g in &games[..2] {
        format::write_game(&mut partial, g);
    }
    let mut third = Vec::new();
    format::write_game(&mut third, &games[2]);
    partial.extend_from_slice(&third[..third.len() / 2]);
    std::fs::write(&resumed, &partial).unwrap();
    datagen::run(&args(resumed.clone(), 2, 4)).expect("datagen resumes");
    assert_eq!(std::fs::read(&resumed).unwrap(), bytes);
}

#[test]
fn chunks_that_continue_a_seed_add_up_to_the_single_file() {
    let whole = temp("whole.vf");
    datagen::run(&args(whole.clone(), 2, 5)).expect("datagen");

    // Two chunks, as two rounds of scripts/datagen.sh write them: games 0-1, then 2-4.
    let part1 = temp("seed7-part1.vf");
    let part2 = temp("seed7-part2.vf");
    datagen::run(&args(part1.clone(), 2, 2)).expect("first chunk");
    let second = DatagenArgs {
        first_game: 2,
        ..args(part2.clone(), 2, 3)
    };
    let tally = datagen::run(&second).expect("second chunk");
    assert_eq!(tally.games, 3);
    assert_eq!(read(&part2).len(), 3);

    let mut joined = std::fs::read(&part1).unwrap();
    joined.extend(std::fs::read(&part2).unwrap());
    assert_eq!(joined, std::fs::read(&whole).unwrap());

    // A chunk already holding its games is left as it is.
    let before = std::fs::read(&part2).unwrap();
    assert_eq!(datagen::run(&second).expect("rerun").games, 0);
    assert_eq!(std::fs::read(&part2).unwrap(), before);
}

/// Whether a board cannot have come from the standard start: a side that may still
/// castle has its king off the e-file or a castling rook off the a- and h-files.
fn chess960_only(board: &Board) -> bool {
    use cozy_chess::{Color, File};
    Color::ALL.iter().any(|&color| {
        let rights = board.castle_rights(color);
        let castling = rights.short.is_some() || rights.long.is_some();
        (castling && board.king(color).file() != File::E)
            || rights.short.is_some_and(|f| f != File::H)
            || rights.long.is_some_and(|f| f != File::A)
    })
}

/// Whether White's and Black's back ranks differ in a way only double Chess960 gives: a
/// castling right or a king (with a right) on different files for the two colours.
fn double_chess960_only(board: &Board) -> bool {
    use cozy_chess::Color;
    let [w, b] = Color::ALL.map(|c| board.castle_rights(c));
    let both = |x: Option<_>, y: Option<_>| x.is_some() && y.is_some() && x != y;
    let kings = (w.short.is_some() || w.long.is_some())
        && (b.short.is_some() || b.long.is_some())
        && board.king(Color::White).file() != board.king(Color::Black).file();
    both(w.short, b.short) || both(w.long, b.long) || kings
}

#[test]
fn chess960_games_start_from_chess960_positions_and_read_back() {
    let path = temp("chess960.vf");
    let a = DatagenArgs {
        chess960: 1.0,
        double_chess960: 0.5,
        ..args(path.clone(), 2, 12)
    };
    let tally = datagen::run(&a).expect("datagen runs");
    let games = read(&path);
    assert_eq!(games.len(), 12);
    assert!(tally.positions > 0);
    let chess960 = games.iter().filter(|g| chess960_only(&g.start)).count();
    let double = games
        .iter()
        .filter(|g| double_chess960_only(&g.start))
        .count();
    assert!(
        chess960 >= 8,
        "{chess960} of 12 games from a Chess960 start"
    );
    assert!(
        double >= 2,
        "{double} of 12 games from a double Chess960 start"
    );
    let mut castles = 0;
    for g in &games {
        // Every position legal: cozy-chess checks each board it builds and each move.
        let mut board = g.start.clone();
        for &(mv, _) in &g.moves {
            assert!(board.is_legal(mv), "{mv} in {board:#}");
            castles += rookery::chess::is_castle(&board, mv) as usize;
            board.play_unchecked(mv);
            let fen = rookery::chess::fen(&board);
            assert_eq!(rookery::chess::parse_fen(&fen), Ok(board.clone()), "{fen}");
        }
        // Training positions keep their features through the text format too.
        for s in format::samples(g) {
            let again = rookery::chess::parse_fen(&rookery::chess::fen(&s.board)).expect("FEN");
            for persp in [cozy_chess::Color::White, cozy_chess::Color::Black] {
                assert_eq!(
                    features::dense(&s.board, persp, true),
                    features::dense(&again, persp, true)
                );
            }
        }
    }
    assert!(castles > 0, "no game castled");
    // Re-encoding gives the same bytes.
    let mut bytes = Vec::new();
    for g in &games {
        format::write_game(&mut bytes, g);
    }
    assert_eq!(bytes, std::fs::read(&path).unwrap());

    // A seed gives the same Chess960 games with any thread count.
    let one = temp("chess960-one-thread.vf");
    datagen::run(&DatagenArgs {
        out: one.clone(),
        threads: 1,
        ..a
    })
    .expect("datagen runs");
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&path).unwrap());
}

#[test]
fn chess960_shares_must_be_fractions() {
    for (option, value) in [("--chess960", "1.5"), ("--double-chess960", "2")] {
        let out = temp("chess960-bad.vf");
        let (ok, err, bytes) = datagen_with(&out, &[option, value]);
        assert!(!ok);
        assert!(err.contains("fraction from 0 to 1"), "{err}");
        assert!(bytes.is_empty());
    }
}

#[test]
fn stats_count_and_damage_is_reported_with_its_offset() {
    let path = temp("stats.vf");
    datagen::run(&args(path.clone(), 2, 3)).expect("datagen");
    let games = read(&path);
    let st = rookery::data::stats(std::slice::from_ref(&path)).expect("stats");
    assert_eq!(st.games, 3);
    assert_eq!(
        st.moves,
        games.iter().map(|g| g.moves.len() as u64).sum::<u64>()
    );
    assert_eq!(
        st.positions,
        games
            .iter()
            .map(|g| format::samples(g).len() as u64)
            .sum::<u64>()
    );
    assert_eq!(st.white_wins + st.draws + st.black_wins, 3);
    assert_eq!(st.histogram.iter().sum::<u64>(), st.positions);
    assert!(st.errors.is_empty());

    let bytes = std::fs::read(&path).unwrap();
    let mut first = Vec::new();
    format::write_game(&mut first, &games[0]);

    // Truncated inside the last game: two games readable, the error names the offset.
    let cut = bytes.len() - 6;
    let (readable, error) = format::read_games(&bytes[..cut]);
    assert_eq!(readable.len(), 2);
    let error = error.expect("truncation is an error");
    assert!(error.what.contains("truncated"), "{error}");
    let truncated = temp("truncated.vf");
    std::fs::write(&truncated, &bytes[..cut]).unwrap();
    let st = rookery::data::stats(std::slice::from_ref(&truncated)).expect("stats");
    assert_eq!(st.games, 2);
    assert_eq!(st.errors.len(), 1);
    assert!(
        st.errors[0].contains("truncated.vf") && st.errors[0].contains("at byte"),
        "{:?}",
        st.errors
    );

    // A flipped bit in the second game's first move (its kind bits): the first game
    // stays readable and the error points at that move.
    let mut flipped = bytes.clone();
    let at = first.len() + format::BOARD_BYTES + 1;
    flipped[at] ^= 0x40;
    let (readable, error) = format::read_games(&flipped);
    assert_eq!(readable.len(), 1);
    let error = error.expect("a flipped move is an error");
    assert_eq!(error.offset, at - 1, "{error}");

    // A result byte out of range.
    let mut bad_result = bytes.clone();
    bad_result[30] = 7;
    let (readable, error) = format::read_games(&bad_result);
    assert!(readable.is_empty());
    assert!(error.expect("bad result").what.contains("result"));
}

/// SIGTERM to a running `rookery datagen` (no game limit): it finishes the games in
/// progress, prints its summary and exits 0, and the file holds only whole games, as many
/// as the summary says.
#[cfg(unix)]
#[test]
fn sigterm_stops_datagen_after_whole_games() {
    use std::process::Command;

    let path = temp("signal.vf");
    // Started and waited for until its first game is on disk, so the signal lands mid-run.
    let child = start_datagen(&path, "3");
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success());
    // The games in progress take well under a second each at 300 nodes; a run that
    // ignores the signal is killed and reported rather than hanging the test.
    let (status, stdout, _) = wait_for_exit(child, "SIGTERM");
    assert!(status.success(), "exit status {status:?}");
    let games = read(&path);
    assert!(!games.is_empty());
    assert!(
        stdout.contains(&format!("datagen: {} games", games.len())),
        "summary {stdout:?} but {} games in the file",
        games.len()
    );
}

/// Starts `rookery datagen` on `path` (no game limit) and waits for its first game.
fn start_datagen(path: &PathBuf, seed: &str) -> std::process::Child {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let child = Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args("datagen --threads 2 --nodes 300 --win-score 1000".split(' '))
        .args("--max-plies 160 --hash 2 --quiet --seed".split(' '))
        .arg(seed)
        .arg("--out")
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rookery datagen");
    let started = Instant::now();
    while std::fs::metadata(path).map_or(0, |m| m.len()) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no game written in 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// Waits (at most 60 s after `what`) for datagen to stop by itself; returns its status,
/// stdout and stderr.
fn wait_for_exit(
    mut child: std::process::Child,
    what: &str,
) -> (std::process::ExitStatus, String, String) {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let since = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll datagen") {
            break status;
        }
        if since.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("datagen still running 60 s after {what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let out = child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut stdout);
    let err = child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr);
    out.and(err).expect("read datagen's output");
    (status, stdout, stderr)
}

/// A datagen whose output file is replaced (as `git checkout` or `git stash` of the file
/// does) or truncated under it stops with a clear error instead of writing games that
/// nothing will read, and leaves the file on disk as the other program left it.
#[test]
fn datagen_stops_when_its_output_file_is_replaced_or_truncated() {
    // Replaced: a copy of what is there, renamed over the path.
    let path = temp("replaced.vf");
    let child = start_datagen(&path, "5");
    let snapshot = std::fs::read(&path).expect("read the file");
    let copy = path.with_extension("copy");
    std::fs::write(&copy, &snapshot).expect("write the copy");
    std::fs::rename(&copy, &path).expect("replace the file");
    let (status, _, stderr) = wait_for_exit(child, "the file was replaced");
    assert!(!status.success(), "datagen went on: {status:?}");
    assert!(stderr.contains("was replaced"), "stderr: {stderr}");
    assert_eq!(std::fs::read(&path).expect("read again"), snapshot);
    assert!(
        !read(&path).is_empty(),
        "the replacement holds the games written before"
    );

    // Truncated in place: the same file, emptied.
    let path = temp("truncated.vf");
    let child = start_datagen(&path, "6");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_len(0))
        .expect("truncate the file");
    let (status, _, stderr) = wait_for_exit(child, "the file was truncated");
    assert!(!status.success(), "datagen went on: {status:?}");
    assert!(stderr.contains("changed size"), "stderr: {stderr}");
    assert_eq!(std::fs::metadata(&path).expect("file").len(), 0);
}

/// Runs `rookery datagen` for two games at 300 nodes, seed 5, with `extra` arguments;
/// returns whether it succeeded, its stderr and the file's bytes.
fn datagen_with(out: &PathBuf, extra: &[&str]) -> (bool, String, Vec<u8>) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args("datagen --threads 2 --nodes 300 --games 2 --seed 5 --win-score 1000".split(' '))
        .args("--max-plies 160 --hash 2 --quiet --out".split(' '))
        .arg(out)
        .args(extra)
        .output()
        .expect("run rookery datagen");
    let bytes = std::fs::read(out).unwrap_or_default();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        bytes,
    )
}

#[test]
fn net_option_plays_with_the_named_net() {
    let nets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
    let embedded = nets.join(format!("{}.safetensors", rookery::eval::DEFAULT_NET_NAME));
    let other = nets.join("rookery-v1.safetensors");
    let (ok, err, default_bytes) = datagen_with(&temp("net-default.vf"), &[]);
    assert!(ok, "{err}");
    assert!(!default_bytes.is_empty());
    // The embedded net's own file plays the same games, byte for byte...
    let arg = embedded.to_string_lossy();
    let (ok, err, same) = datagen_with(&temp("net-embedded.vf"), &["--net", &arg]);
    assert!(ok, "{err}");
    assert_eq!(same, default_bytes);
    // ...and another net plays other games.
    let arg = other.to_string_lossy();
    let (ok, err, different) = datagen_with(&temp("net-v1.vf"), &["--net", &arg]);
    assert!(ok, "{err}");
    assert!(!different.is_empty());
    assert_ne!(different, default_bytes);
    // A net that cannot be loaded: a clear error, and no file written.
    let missing = temp("net-missing.vf");
    let (ok, err, bytes) = datagen_with(&missing, &["--net", "nets/no-such-net.safetensors"]);
    assert!(!ok);
    assert!(err.contains("no-such-net.safetensors"), "{err}");
    assert!(bytes.is_empty() && !missing.exists());
}
