//! Syzygy tablebases through the UCI front end, with the 3- and 4-piece tables in
//! `tests/data/syzygy`: probes in the search and at the root, the options' errors,
//! and games from won endings that the engine must win without ever leaving the win.
//! (Probe-by-probe agreement with python-chess is `scripts/check_syzygy.py`, run in CI.)

mod common;

use std::sync::Once;
use std::time::Duration;

use common::{bestmove_of, resolve_move, Engine};
use rookery::tablebase::{self, Wdl};

fn tables() -> String {
    let dir = format!("{}/tests/data/syzygy", env!("CARGO_MANIFEST_DIR"));
    assert!(
        std::path::Path::new(&dir).join("KQvK.rtbw").exists(),
        "the Syzygy tables are missing from {dir}"
    );
    dir
}

/// Loads the tables into this test process too, to judge the engine's moves.
fn load_here() {
    static LOAD: Once = Once::new();
    LOAD.call_once(|| {
        tablebase::load(&tables()).expect("tables load");
    });
}

fn engine_with_tables() -> Engine {
    let mut e = Engine::ready();
    e.send(&format!("setoption name SyzygyPath value {}", tables()));
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("loaded Syzygy tables") && l.contains("up to 4 pieces")),
        "{lines:?}"
    );
    e
}

/// The last `info ... score` line's score text and its tbhits.
fn last_score(info: &[String]) -> (String, u64) {
    let line = info
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info line in {info:?}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = |key: &str| {
        let i = words
            .iter()
            .position(|w| *w == key)
            .unwrap_or_else(|| panic!("no {key} in {line}"));
        i + 1
    };
    let score = format!("{} {}", words[at("score")], words[at("score") + 1]);
    let tbhits = words[at("tbhits")].parse().expect("tbhits number");
    (score, tbhits)
}

#[test]
fn a_table_root_reports_tbhits_and_a_table_score() {
    let mut e = engine_with_tables();
    // KQvK, White to move: won.
    e.send("position fen 8/8/8/8/8/3k4/8/3KQ3 w - - 0 1");
    let (info, best) = e.go("go depth 6", Duration::from_secs(20));
    let (score, tbhits) = last_score(&info);
    assert!(tbhits > 0, "{info:?}");
    assert!(
        score == "cp 20000" || score.starts_with("mate "),
        "won table root scored {score}"
    );
    assert!(!score.starts_with("mate -"), "{score}");
    // The move keeps the win.
    load_here();
    let mut board = rookery::chess::parse_fen("8/8/8/8/8/3k4/8/3KQ3 w - - 0 1").unwrap();
    board.play(resolve_move(&board, bestmove_of(&best), false).unwrap());
    assert_eq!(tablebase::probe_wdl(&board), Some(Wdl::Loss));

    // Black to move (the queen is not en prise): a lost root reports a losing table score.
    e.send("position fen 8/8/8/8/8/3k4/8/3KQ3 b - - 0 1");
    let (info, _) = e.go("go depth 6", Duration::from_secs(20));
    let (score, _) = last_score(&info);
    assert!(
        score == "cp -20000" || score.starts_with("mate -"),
        "lost table root scored {score}"
    );
}

#[test]
fn the_search_probes_after_captures_into_the_tables() {
    let mut e = engine_with_tables();
    // Five pieces (beyond the tables): Qxd4 wins the rook into won KQPvK.
    e.send("position fen 4k3/8/8/8/3r4/8/4P3/3QK3 w - - 0 1");
    let (info, best) = e.go("go depth 8", Duration::from_secs(30));
    let (score, tbhits) = last_score(&info);
    assert!(tbhits > 0, "no probes in {info:?}");
    let cp: Option<i32> = score.strip_prefix("cp ").map(|n| n.parse().unwrap());
    assert!(
        cp.is_some_and(|cp| cp > 19_000) || score.starts_with("mate "),
        "score {score} is not a table win"
    );
    assert_eq!(bestmove_of(&best), "d1d4");
}

#[test]
fn mcts_takes_table_results_at_its_leaves_and_at_the_root() {
    let mut e = engine_with_tables();
    e.send("setoption name SearchMode value mcts");
    e.send("position fen 4k3/8/8/8/3r4/8/4P3/3QK3 w - - 0 1");
    let (info, best) = e.go("go nodes 3000", Duration::from_secs(30));
    let (score, tbhits) = last_score(&info);
    assert!(tbhits > 0, "no probes in {info:?}");
    let cp: Option<i32> = score.strip_prefix("cp ").map(|n| n.parse().unwrap());
    assert!(
        cp.is_some_and(|cp| cp > 19_000) || score.starts_with("mate "),
        "score {score} is not a table win"
    );
    assert_eq!(bestmove_of(&best), "d1d4");
    // A table root: only winning moves, and the tables' score.
    e.send("position fen 8/8/8/8/8/3k4/8/3KQ3 w - - 0 1");
    let (info, best) = e.go("go nodes 500", Duration::from_secs(30));
    let (score, tbhits) = last_score(&info);
    assert!(
        tbhits > 0 && (score.starts_with("cp 2000") || score.starts_with("mate ")),
        "{score}"
    );
    load_here();
    let mut board = rookery::chess::parse_fen("8/8/8/8/8/3k4/8/3KQ3 w - - 0 1").unwrap();
    board.play(resolve_move(&board, bestmove_of(&best), false).unwrap());
    assert_eq!(tablebase::probe_wdl(&board), Some(Wdl::Loss));
}

/// MCTS `tbhits` after `playouts` from `fen`, its leaves judged by an alpha-beta search of
/// `leaf_depth` (−1: by the value net, no leaf search), with the tables loaded here.
fn mcts_tb_hits(fen: &str, leaf_depth: i32, playouts: u64) -> u64 {
    use rookery::chess::{parse_fen, Position};
    use rookery::search::{SearchLimits, SearchMode, SearchOptions, Searcher, Silent};
    load_here();
    let mut s = Searcher::new(16, 1);
    s.set_mode(SearchMode::Mcts).expect("memory for the tree");
    s.mcts_mut().expect("MCTS mode").leaf_depth = Some(leaf_depth);
    let pos = Position::new(parse_fen(fen).unwrap());
    let limits = SearchLimits {
        nodes: Some(playouts),
        ..Default::default()
    };
    s.search(&pos, &limits, &SearchOptions::default(), &Silent)
        .tbhits
}

#[test]
fn mcts_counts_the_probes_of_its_leaf_searches() {
    // Seven pieces, exchanges on d4 into the tables. The tree probes a node once, at its
    // first visit, so 20 playouts make at most 20 probes of their own; a leaf search of
    // five plies probes many times more, and those count too.
    let fen = "4k3/8/2n5/8/3r4/4P3/3Q4/R3K3 w - - 0 1";
    let own_only = mcts_tb_hits(fen, -1, 20);
    assert!(own_only <= 20, "{own_only}");
    let with_leaf_searches = mcts_tb_hits(fen, 5, 20);
    assert!(with_leaf_searches > 20, "{with_leaf_searches}");
}

#[test]
fn bad_paths_keep_the_loaded_tables_and_no_tables_means_no_probes() {
    let mut e = engine_with_tables();
    for bad in ["/no/such/folder", "src"] {
        e.send(&format!("setoption name SyzygyPath value {bad}"));
        let lines = e.sync();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error") && l.contains("keeping the tables in")),
            "{bad}: {lines:?}"
        );
    }
    e.send("position fen 8/8/8/8/8/3k4/8/3KQ3 w - - 0 1");
    let (info, _) = e.go("go depth 4", Duration::from_secs(20));
    assert!(last_score(&info).1 > 0, "tables lost after a bad path");

    e.send("setoption name SyzygyPath value <empty>");
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.contains("no tablebases loaded")),
        "{lines:?}"
    );
    let (info, _) = e.go("go depth 4", Duration::from_secs(20));
    assert_eq!(last_score(&info).1, 0, "probes without tables: {info:?}");

    // A limit of 0 turns probing off even with tables.
    e.send(&format!("setoption name SyzygyPath value {}", tables()));
    e.send("setoption name SyzygyProbeLimit value 0");
    e.sync();
    let (info, _) = e.go("go depth 4", Duration::from_secs(20));
    assert_eq!(
        last_score(&info).1,
        0,
        "probes with SyzygyProbeLimit 0: {info:?}"
    );
    e.send("setoption name SyzygyProbeLimit value 9");
    assert!(e.sync().iter().any(|l| l.starts_with("info string error")));
}

/// Plays the engine against itself from a won table position: every position must stay
/// won for the side that started winning, and the game must end in mate within the
/// fifty-move rule.
fn play_out(fen: &str) {
    load_here();
    let mut e = engine_with_tables();
    let mut board = rookery::chess::parse_fen(fen).unwrap();
    let winner = board.side_to_move();
    assert_eq!(tablebase::probe_wdl(&board), Some(Wdl::Win), "{fen}");
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..300 {
        if board.status() != cozy_chess::GameStatus::Ongoing {
            break;
        }
        e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        let (_, best) = e.go("go movetime 50", Duration::from_secs(20));
        let text = bestmove_of(&best).to_string();
        let mv = resolve_move(&board, &text, false)
            .unwrap_or_else(|err| panic!("{err} after {fen} moves {moves:?}"));
        board.play(mv);
        moves.push(text);
        assert!(
            board.halfmove_clock() < 100,
            "fifty-move rule reached from {fen}: {moves:?}"
        );
        // The tables assume a fresh counter; the engine's moves must keep the win anyway.
        if board.status() == cozy_chess::GameStatus::Ongoing {
            let expected = if board.side_to_move() == winner {
                Wdl::Win
            } else {
                Wdl::Loss
            };
            assert_eq!(
                tablebase::probe_wdl(&board),
                Some(expected),
                "left the win after {fen} moves {moves:?}"
            );
        }
    }
    assert_eq!(
        board.status(),
        cozy_chess::GameStatus::Won,
        "no mate from {fen}: {moves:?}"
    );
    assert_ne!(
        board.side_to_move(),
        winner,
        "the wrong side was mated from {fen}"
    );
}

#[test]
fn won_endings_are_won_kqk_krk() {
    play_out("8/8/8/4k3/8/8/8/3QK3 w - - 0 1");
    play_out("8/8/3k4/8/8/8/8/R3K3 w - - 0 1");
}

#[test]
fn won_endings_are_won_kbnk() {
    play_out("8/8/8/3k4/8/8/8/2B1KN2 w - - 0 1");
}

#[test]
fn won_endings_are_won_kpk() {
    play_out("8/8/8/3k4/8/8/2KP4/8 w - - 0 1");
    play_out("8/8/1k6/8/8/8/4P3/4K3 w - - 0 1");
}
