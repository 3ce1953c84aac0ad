//! UCI sessions with the `rookery` binary over pipes: the handshake, every `go` variant,
//! pondering, castling notation, MultiPV, WDL and the non-standard commands. Bad input,
//! threads and whole games are in `uci_games.rs`. Every wait has a deadline; timing
//! assertions are loose enough for a busy machine.

mod common;
mod uci_support;

use std::time::{Duration, Instant};

use common::{bestmove_of, board_after, resolve_move, Engine, WAIT};
use cozy_chess::Board;
use rookery::chess::{parse_fen, STARTPOS_FEN};
use uci_support::{assert_legal, displayed_fen, infos, position_cmd, Info};

const SHORT: Duration = Duration::from_millis(500);

#[test]
fn handshake_lists_options_and_answers_isready() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.collect_until("uciok", WAIT);
    assert!(lines[0].starts_with("id name Rookery"), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for name in [
        "Hash",
        "Threads",
        "Move Overhead",
        "MultiPV",
        "Ponder",
        "UCI_Chess960",
        "SyzygyPath",
        "UCI_ShowWDL",
        "Clear Hash",
    ] {
        let prefix = format!("option name {name} type ");
        assert!(
            lines.iter().any(|l| l.starts_with(&prefix)),
            "option {name} missing: {lines:?}"
        );
    }
    let hash = lines
        .iter()
        .find(|l| l.starts_with("option name Hash type spin default "))
        .expect("Hash is a spin option");
    assert!(hash.contains(" min 1 max "), "{hash}");
    assert!(lines
        .iter()
        .any(|l| l == "option name Clear Hash type button"));
    e.send("isready");
    assert_eq!(e.expect("readyok"), "readyok");
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(2)), "no exit after quit");
}

#[test]
fn depth_search_prints_full_info_and_one_legal_bestmove() {
    let mut e = Engine::ready();
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6"];
    e.send(&position_cmd(STARTPOS_FEN, &moves));
    let (lines, best) = e.go("go depth 6", WAIT);
    let board = board_after(STARTPOS_FEN, &moves);
    let mv = assert_legal(&board, &best, false);
    let infos = infos(&lines);
    assert!(!infos.is_empty(), "no info lines: {lines:?}");
    for info in &infos {
        for key in [
            "depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "time",
        ] {
            let v = info
                .fields
                .get(key)
                .unwrap_or_else(|| panic!("'{key}' missing in {info:?}"));
            assert!(v.parse::<u64>().is_ok(), "{key} = {v}");
        }
        assert!(
            info.score.starts_with("cp ") || info.score.starts_with("mate "),
            "{info:?}"
        );
        assert!(!info.pv.is_empty(), "empty pv: {info:?}");
        // Every pv must be a legal line from the root.
        let mut b = board.clone();
        for m in &info.pv {
            let mv = resolve_move(&b, m, false).unwrap_or_else(|err| panic!("pv {info:?}: {err}"));
            b.play(mv);
        }
    }
    let depths: Vec<u64> = infos
        .iter()
        .filter(|i| !i.bound)
        .map(|i| i.fields["depth"].parse().unwrap())
        .collect();
    assert_eq!(depths, (1..=6).collect::<Vec<_>>(), "one line per depth");
    let last = infos.last().unwrap();
    assert_eq!(last.pv[0], bestmove_of(&best), "bestmove is the pv head");
    assert!(last.fields["seldepth"].parse::<u64>().unwrap() >= 6);
    assert!(board.is_legal(mv));
}

#[test]
fn clock_limits_return_legal_moves_in_time() {
    let mut e = Engine::ready();
    let board = board_after(STARTPOS_FEN, &["d2d4"]);
    e.send("position startpos moves d2d4");
    // (command, upper bound in ms): Black is to move, so Black's clock is the one that
    // matters; the bounds leave room for scheduling noise but stay inside that clock.
    for (go, max_ms) in [
        ("go wtime 3000 btime 3000 winc 100 binc 100", 1500),
        ("go btime 2000 wtime 60000", 1000),
        ("go wtime 5000 btime 5000 movestogo 5", 2500),
        ("go btime 1500 wtime 1500 binc 0 winc 0 movestogo 1", 1450),
        // Only White's clock although Black is to move: must not search forever.
        ("go wtime 1000 winc 0", 1000),
    ] {
        let start = Instant::now();
        let (lines, best) = e.go(go, WAIT);
        let took = start.elapsed();
        assert_legal(&board, &best, false);
        assert!(took < Duration::from_millis(max_ms), "'{go}' took {took:?}");
        // The move came from the search (and its time manager), not from the book.
        assert!(
            !infos(&lines).is_empty(),
            "'{go}': no search info: {lines:?}"
        );
    }
}

#[test]
fn movetime_is_respected() {
    let mut e = Engine::ready();
    e.send("position startpos");
    let start = Instant::now();
    let (_, best) = e.go("go movetime 200", WAIT);
    let took = start.elapsed();
    assert_legal(&Board::default(), &best, false);
    assert!(took >= Duration::from_millis(100), "used only {took:?}");
    assert!(took < Duration::from_millis(1000), "took {took:?}");
}

#[test]
fn node_limit_stops_the_search() {
    let mut e = Engine::ready();
    e.send("position startpos moves e2e4");
    let start = Instant::now();
    let (lines, best) = e.go("go nodes 5000", WAIT);
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_legal(&board_after(STARTPOS_FEN, &["e2e4"]), &best, false);
    let infos = infos(&lines);
    assert!(!infos.is_empty(), "no info line: {lines:?}");
    for info in infos {
        let nodes: u64 = info.fields["nodes"].parse().unwrap();
        assert!(nodes <= 5000, "info reports {nodes} nodes > limit");
    }
}

#[test]
fn go_mate_finds_the_mating_line() {
    let mut e = Engine::ready();
    // Back-rank mate in 1: 1. Ra8#.
    e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let (lines, best) = e.go("go mate 1", WAIT);
    assert_eq!(bestmove_of(&best), "a1a8");
    assert!(
        infos(&lines).iter().any(|i| i.score == "mate 1"),
        "{lines:?}"
    );
    // Mate in 2 (Legal's pattern): 1. Nf6+ gxf6 2. Bxf7#.
    let fen = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10";
    e.send(&format!("position fen {fen}"));
    let (lines, best) = e.go("go mate 2", Duration::from_secs(20));
    assert_eq!(bestmove_of(&best), "d5f6");
    let last = infos(&lines).into_iter().rfind(|i| !i.bound).unwrap();
    assert_eq!(last.score, "mate 2", "{lines:?}");
    assert_eq!(last.pv[0], "d5f6");
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut e = Engine::ready();
    e.send("position startpos");
    let (lines, best) = e.go("go depth 6 searchmoves a2a3 b2b4", WAIT);
    let allowed = ["a2a3", "b2b4"];
    assert!(allowed.contains(&bestmove_of(&best)), "{best}");
    let infos = infos(&lines);
    assert!(!infos.is_empty(), "no info line: {lines:?}");
    for info in infos {
        assert!(allowed.contains(&info.pv[0].as_str()), "{info:?}");
    }
}

#[test]
fn infinite_waits_for_stop_and_answers_isready() {
    let mut e = Engine::ready();
    e.send("position startpos moves e2e4");
    e.send("go infinite");
    e.expect_silence("bestmove", SHORT);
    let during = e.sync();
    assert!(
        during.iter().all(|l| !l.starts_with("bestmove")),
        "{during:?}"
    );
    e.send("stop");
    let best = e.expect("bestmove");
    assert_legal(&board_after(STARTPOS_FEN, &["e2e4"]), &best, false);
    let after = e.sync();
    assert!(
        after.iter().all(|l| !l.starts_with("bestmove")),
        "{after:?}"
    );
}

#[test]
fn infinite_and_ponder_wait_even_when_the_search_ends_early() {
    // Regression: in K v K (and mate-in-1 positions) iterative deepening reaches the
    // maximum depth in milliseconds; bestmove must still wait for stop / ponderhit.
    let mut e = Engine::ready();
    for fen in [
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go infinite");
        e.expect_silence("bestmove", SHORT);
        e.send("stop");
        assert_legal(&parse_fen(fen).unwrap(), &e.expect("bestmove"), false);
        e.send("go ponder wtime 1000 btime 1000");
        e.expect_silence("bestmove", SHORT);
        e.send("ponderhit");
        assert_legal(&parse_fen(fen).unwrap(), &e.expect("bestmove"), false);
        let after = e.sync();
        assert!(
            after.iter().all(|l| !l.starts_with("bestmove")),
            "{after:?}"
        );
    }
}

#[test]
fn ponderhit_releases_the_bestmove() {
    let mut e = Engine::ready();
    let moves = ["e2e4", "c7c5"];
    e.send(&position_cmd(STARTPOS_FEN, &moves));
    e.send("go ponder wtime 10000 btime 10000 winc 100 binc 100");
    let pondering = e.expect_silence("bestmove", SHORT);
    assert!(
        !infos(&pondering).is_empty(),
        "no search while pondering: {pondering:?}"
    );
    e.send("ponderhit");
    let best = e.expect_line("bestmove", Duration::from_secs(6));
    assert_legal(&board_after(STARTPOS_FEN, &moves), &best, false);
    e.sync();

    // go ponder + stop (the opponent played something else): bestmove comes at once.
    e.send("go ponder movetime 1000");
    e.expect_silence("bestmove", SHORT);
    let start = Instant::now();
    e.send("stop");
    let best = e.expect("bestmove");
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_legal(&board_after(STARTPOS_FEN, &moves), &best, false);
    let after = e.sync();
    assert!(
        after.iter().all(|l| !l.starts_with("bestmove")),
        "{after:?}"
    );
}

/// `go ponder` on a book position: the book move is held until `ponderhit` (then sent at
/// once, without a search) or `stop`, so a pondering lichess-bot stays in the book.
#[test]
fn ponder_in_the_book_answers_from_the_book_at_ponderhit() {
    let mut e = Engine::ready_with_book();
    let moves = ["e2e4", "c7c5"];
    e.send(&position_cmd(STARTPOS_FEN, &moves));
    e.send("go ponder wtime 10000 btime 10000 winc 100 binc 100");
    let before = e.expect_silence("bestmove", SHORT);
    assert!(
        before
            .iter()
            .any(|l| l.starts_with("info string book move")),
        "{before:?}"
    );
    assert!(
        !before.iter().any(|l| l.starts_with("info depth")),
        "{before:?}"
    );
    let start = Instant::now();
    e.send("ponderhit");
    let best = e.expect("bestmove");
    assert!(
        start.elapsed() < Duration::from_millis(300),
        "{:?}",
        start.elapsed()
    );
    let board = board_after(STARTPOS_FEN, &moves);
    assert_legal(&board, &best, false);
    assert!(best.contains(" ponder "), "{best}");

    // The opponent played something else: stop releases the held move at once.
    e.send("go ponder wtime 10000 btime 10000 winc 100 binc 100");
    e.expect_silence("bestmove", SHORT);
    e.send("stop");
    assert_legal(&board, &e.expect("bestmove"), false);
    let after = e.sync();
    assert!(
        after.iter().all(|l| !l.starts_with("bestmove")),
        "{after:?}"
    );
}

#[test]
fn quit_during_infinite_exits_promptly() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    e.expect_silence("bestmove", Duration::from_millis(300));
    let start = Instant::now();
    e.send("quit");
    assert!(
        e.wait_exit(Duration::from_secs(2)),
        "engine still running after quit"
    );
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn no_legal_moves_gives_null_bestmove() {
    let mut e = Engine::ready();
    for fen in [
        // Checkmated (fool's mate) and stalemated.
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        e.send(&format!("position fen {fen}"));
        for go in ["go depth 5", "go movetime 100", "go wtime 1000 btime 1000"] {
            let (_, best) = e.go(go, WAIT);
            assert_eq!(best, "bestmove 0000", "{fen} {go}");
        }
    }
}

#[test]
fn castling_notation_standard_and_chess960() {
    let mut e = Engine::ready();
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {fen}"));
    for (search, printed) in [("e1g1", "e1g1"), ("e1h1", "e1g1"), ("e1c1", "e1c1")] {
        let (lines, best) = e.go(&format!("go depth 3 searchmoves {search}"), WAIT);
        assert_eq!(bestmove_of(&best), printed);
        assert_eq!(infos(&lines).last().unwrap().pv[0], printed);
    }
    // Both notations are accepted in `position ... moves`.
    let castled = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1";
    for mv in ["e1g1", "e1h1"] {
        e.send(&format!("position fen {fen} moves {mv}"));
        assert_eq!(displayed_fen(&mut e), castled, "after {mv}");
    }

    // Chess960: king b1, rooks a1/h1. Castling prints as king takes rook.
    e.send("setoption name UCI_Chess960 value true");
    let fen960 = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1";
    e.send(&format!("position fen {fen960}"));
    let board = parse_fen(fen960).unwrap();
    for mv in ["b1h1", "b1a1"] {
        let (lines, best) = e.go(&format!("go depth 3 searchmoves {mv}"), WAIT);
        assert_eq!(bestmove_of(&best), mv);
        assert_eq!(infos(&lines).last().unwrap().pv[0], mv);
        assert_legal(&board, &best, true);
    }
    e.send(&format!("position fen {fen960} moves b1h1"));
    assert!(
        displayed_fen(&mut e).starts_with("rk5r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b"),
        "b1h1 did not castle short"
    );
}

#[test]
fn multipv_prints_distinct_lines_per_depth() {
    let mut e = Engine::ready();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    let (lines, best) = e.go("go depth 5", WAIT);
    assert_legal(&Board::default(), &best, false);
    let infos: Vec<Info> = infos(&lines).into_iter().filter(|i| !i.bound).collect();
    for depth in 1..=5 {
        let at: Vec<&Info> = infos
            .iter()
            .filter(|i| i.fields["depth"] == depth.to_string())
            .collect();
        let mut pvs: Vec<&str> = at.iter().map(|i| i.fields["multipv"].as_str()).collect();
        pvs.sort();
        assert_eq!(pvs, ["1", "2", "3"], "depth {depth}: {lines:?}");
        let mut firsts: Vec<&str> = at.iter().map(|i| i.pv[0].as_str()).collect();
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "depth {depth}: same first move twice");
    }
    // The bestmove is the head of line 1 of the last depth.
    let last1 = infos
        .iter()
        .rev()
        .find(|i| i.fields["multipv"] == "1")
        .unwrap();
    assert_eq!(last1.pv[0], bestmove_of(&best));
}

#[test]
fn multipv_scores_are_each_lines_own_and_sorted() {
    // Two rooks, two mates in one (Ra8#, Rb8#); every other move mates later or not at
    // all. With MultiPV 3 the first two lines must both say "mate 1" and the third must
    // not: a line-2 score copied from line 1, or an unsorted list, would show here.
    let fen = "7k/6pp/8/8/8/8/1R6/R5K1 w - - 0 1";
    let mut e = Engine::ready();
    e.send("setoption name MultiPV value 3");
    e.send(&format!("position fen {fen}"));
    let (lines, best) = e.go("go depth 6", WAIT);
    assert_legal(&Board::from_fen(fen, false).unwrap(), &best, false);
    let infos: Vec<Info> = infos(&lines).into_iter().filter(|i| !i.bound).collect();
    let last_depth = infos.last().expect("info lines").fields["depth"].clone();
    let mut at: Vec<&Info> = infos
        .iter()
        .filter(|i| i.fields["depth"] == last_depth)
        .collect();
    at.sort_by_key(|i| i.fields["multipv"].parse::<u32>().unwrap());
    assert_eq!(at.len(), 3, "{lines:?}");
    let mut mates: Vec<&str> = at[..2].iter().map(|i| i.pv[0].as_str()).collect();
    mates.sort();
    assert_eq!(mates, ["a1a8", "b2b8"], "{lines:?}");
    assert_eq!(at[0].score, "mate 1");
    assert_eq!(at[1].score, "mate 1");
    assert_ne!(at[2].score, "mate 1", "{lines:?}");
    if let Some(cp) = at[2].score.strip_prefix("cp ") {
        // White stays two rooks up whatever else it plays.
        assert!(cp.parse::<i32>().unwrap() > 200, "{lines:?}");
    } else {
        let n: i32 = at[2].score.strip_prefix("mate ").unwrap().parse().unwrap();
        assert!(n >= 2, "{lines:?}");
    }
}

#[test]
fn show_wdl_adds_wdl_per_mille() {
    let mut e = Engine::ready();
    e.send("setoption name UCI_ShowWDL value true");
    e.send("position startpos");
    let (lines, _) = e.go("go depth 4", WAIT);
    let infos = infos(&lines);
    assert!(!infos.is_empty(), "no info line: {lines:?}");
    for info in infos {
        let wdl: Vec<i32> = info.fields["wdl"]
            .split(' ')
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(wdl.len(), 3);
        assert_eq!(wdl.iter().sum::<i32>(), 1000, "{info:?}");
        assert!(wdl.iter().all(|&x| x >= 0));
    }
}

#[test]
fn perft_display_eval_and_bench_commands() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go perft 3");
    let lines = e.collect_until("Nodes searched", WAIT);
    assert_eq!(lines.last().unwrap(), "Nodes searched: 8902");
    // Divide output: one line per root move.
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 20 + 1);
    e.sync();
    assert_eq!(displayed_fen(&mut e), STARTPOS_FEN);
    e.send("eval");
    assert!(e.expect("info string").contains("eval"));
    e.sync();
    e.send("bench 2");
    let deadline = Instant::now() + Duration::from_secs(30);
    let summary = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = e.next_line(left).expect("bench summary line");
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        if words.len() == 4 && words[1] == "nodes" && words[3] == "nps" {
            break words;
        }
    };
    assert!(summary[0].parse::<u64>().unwrap() > 0);
    assert!(summary[2].parse::<u64>().is_ok());
    // Still responsive, and a normal search works after bench.
    e.send("position startpos");
    let (_, best) = e.go("go depth 3", WAIT);
    assert_legal(&Board::default(), &best, false);
}
