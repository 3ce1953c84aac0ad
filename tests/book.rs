//! Tests of the Polyglot opening book: reference keys, move encoding, the compiler on a
//! tiny fixture written to a temp dir, the embedded default book, corrupt files, move
//! choice and the `rookery book` CLI.

use cozy_chess::{Board, Move, Square};
use rand::SeedableRng;
use rookery::book::compile::compile_texts;
use rookery::book::{
    build_book, decode_move, default_book, default_names, encode_move, polyglot_key, Book,
    BuildOptions, BuildSummary, Entry, OpeningNames,
};
use rookery::chess::{legal_moves, parse_fen, parse_uci_move};
use std::path::PathBuf;

fn board_after(moves: &[&str]) -> Board {
    let mut board = Board::default();
    for text in moves {
        let mv = parse_uci_move(&board, text).unwrap_or_else(|| panic!("illegal {text}"));
        board.play(mv);
    }
    board
}

fn uci(board: &Board, mv: Move) -> String {
    rookery::chess::move_to_uci(board, mv, false)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rookery-book-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn polyglot_reference_keys() {
    let cases: &[(&[&str], u64)] = &[
        (&[], 0x463b96181691fc9c),
        (&["e2e4"], 0x823c9b50fd114196),
        (&["e2e4", "d7d5"], 0x0756b94461c50fb0),
        (&["e2e4", "d7d5", "e4e5"], 0x662fafb965db29d4),
        (&["e2e4", "d7d5", "e4e5", "f7f5"], 0x22a48b5a8e47ff78),
        (
            &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"],
            0x652a607ca3f242c1,
        ),
        (
            &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"],
            0x00fdd303c946bdd9,
        ),
        (
            &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"],
            0x3c8123ea7b067637,
        ),
        (
            &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
            0x5c3f9b829b279560,
        ),
    ];
    for (moves, expected) in cases {
        let key = polyglot_key(&board_after(moves));
        assert_eq!(
            key, *expected,
            "key after {moves:?}: got {key:016x}, want {expected:016x}"
        );
    }
}

#[test]
fn en_passant_counted_only_with_an_adjacent_pawn() {
    // Same position via FEN with and without the ep square: after 1.e4 no black pawn can
    // capture on e3, so the ep square must not change the key.
    let with_ep = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
    let without = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    assert_eq!(polyglot_key(&with_ep), polyglot_key(&without));
    assert_eq!(polyglot_key(&with_ep), 0x823c9b50fd114196);
    // After ... f7f5 with a white pawn on e5 the ep file is part of the key.
    let ep = parse_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3").unwrap();
    let no_ep = parse_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3").unwrap();
    assert_eq!(polyglot_key(&ep), 0x22a48b5a8e47ff78);
    assert_ne!(polyglot_key(&ep), polyglot_key(&no_ep));
}

#[test]
fn en_passant_is_pseudo_legal_as_in_the_spec() {
    // The e5 pawn is pinned along the fifth rank, so exd6 is illegal, but Polyglot counts
    // the ep file anyway (values from python-chess `chess.polyglot.zobrist_hash`).
    let pinned = parse_fen("4k3/8/8/r2pP2K/8/8/8/8 w - d6 0 2").unwrap();
    assert_eq!(polyglot_key(&pinned), 0x6a40b34573bd36b6);
    let no_ep = parse_fen("4k3/8/8/r2pP2K/8/8/8/8 w - - 0 2").unwrap();
    assert_eq!(polyglot_key(&no_ep), 0x76d96d964f05a617);
}

#[test]
fn move_encoding_castling_and_promotion() {
    let board = parse_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let castle = parse_uci_move(&board, "e1g1").unwrap();
    assert_eq!((castle.from, castle.to), (Square::E1, Square::H1));
    // Polyglot: to = h1 (7), from = e1 (4) << 6.
    assert_eq!(encode_move(castle), 7 | (4 << 6));
    let promo = parse_uci_move(&board, "b7a8q").unwrap();
    assert_eq!(encode_move(promo), 56 | (49 << 6) | (4 << 12));
    let knight = parse_uci_move(&board, "b7b8n").unwrap();
    assert_eq!(encode_move(knight) >> 12, 1);
    for mv in legal_moves(&board) {
        assert_eq!(decode_move(encode_move(mv)), Some(mv));
    }
    assert_eq!(decode_move(7 << 12), None, "promotion field 7 is invalid");
}

const OPENINGS_TSV: &str = "eco\tname\tpgn
B00\tKing's Pawn Game\t1. e4
C20\tKing's Pawn Game\t1. e4 e5
C40\tKing's Knight Opening\t1. e4 e5 2. Nf3
B20\tSicilian Defense\t1. e4 c5
A40\tQueen's Pawn Game\t1. d4
Z99\tKnight Dance\t1. Nf3 Nf6 2. Ng1 Ng8 3. e4
X00\tBroken Line\t1. e4 Ke2
";

const GAMES_HEADER: &str = "id,rated,created_at,last_move_at,turns,victory_status,winner,increment_code,white_id,white_rating,black_id,black_rating,moves,opening_eco,opening_name,opening_ply";

fn games_csv() -> String {
    let rows = [
        // Counted for both sides; its duplicate row below must be skipped.
        "g1,TRUE,1,1,4,resign,white,10+0,a,2000,b,2000,e4 e5 Nf3 Nc6,C44,\"King's Knight Opening, Normal\",4",
        "g1,TRUE,1,1,4,resign,white,10+0,a,2000,b,2000,e4 e5 Nf3 Nc6,C44,\"King's Knight Opening, Normal\",4",
        "g2,FALSE,1,1,3,draw,draw,10+0,a,2000,b,2000,e4 c5 Nf3,B27,Sicilian Defense,2",
        // Black is below the rating threshold: only White's moves count.
        "g3,True,1,1,3,mate,black,10+0,a,2000,b,1000,e4 e5 Nf3,C40,King's Knight Opening,3",
        "g4,True,1,1,2,resign,black,10+0,a,1000,b,2000,d4 d5,D00,Queen's Pawn Game,2",
        // Broken row (too few fields) and a game with an illegal move: errors.
        "g5,TRUE,1,1,4,resign,white",
        "g6,TRUE,1,1,3,resign,white,10+0,a,2000,b,2000,e4 e5 Ke3,C20,King's Pawn Game,2",
        // Both players below the threshold: filtered.
        "g7,TRUE,1,1,2,resign,white,10+0,a,1000,b,1000,c4 e5,A20,English Opening,2",
    ];
    format!("{GAMES_HEADER}\r\n{}\r\n", rows.join("\r\n"))
}

fn fixture_options(dir: &std::path::Path) -> BuildOptions {
    let tsv = dir.join("x.tsv");
    let csv = dir.join("games.csv");
    std::fs::write(&tsv, OPENINGS_TSV).unwrap();
    std::fs::write(&csv, games_csv()).unwrap();
    BuildOptions {
        openings: vec![dir.to_path_buf()],
        games: vec![csv],
        out: dir.join("out/test.bin"),
        names_out: None,
        min_rating: 1500,
        max_ply: 20,
        min_games: 1,
        min_score: 0.3,
        rated_only: false,
        theory_weight: 1,
    }
}

fn weights(book: &Book, moves: &[&str]) -> Vec<(String, u16)> {
    let board = board_after(moves);
    book.probe(&board)
        .into_iter()
        .map(|m| (uci(&board, m.mv), m.weight))
        .collect()
}

fn owned(v: &[(&str, u16)]) -> Vec<(String, u16)> {
    v.iter().map(|(m, w)| (m.to_string(), *w)).collect()
}

#[test]
fn compiler_round_trip_on_fixture() {
    let dir = temp_dir("compile");
    let opts = fixture_options(&dir);
    let summary = build_book(&opts).expect("build");
    let expected_counts = BuildSummary {
        lines: 6,
        line_errors: 1,
        game_rows: 8,
        games_used: 4,
        duplicates_skipped: 1,
        games_filtered: 1,
        game_errors: 2,
        moves_dropped: 1, // g1's Nc6: one game, lost, not theory
        positions: 8,
        entries: 11,
        theory_entries: 9,
        max_ply: 5, // e4 reached at ply 5 through the Knight Dance line
        names: 5,
        bytes: 11 * 16,
        error_samples: summary.error_samples.clone(),
    };
    assert_eq!(summary, expected_counts, "{summary}");
    assert_eq!(summary.errors(), 3);
    assert_eq!(summary.error_samples.len(), 3);

    let book = Book::load_file(opts.out.to_str().unwrap()).expect("load");
    assert_eq!(book.len(), 11);
    assert_eq!(std::fs::metadata(&opts.out).unwrap().len(), 11 * 16);
    // e4: theory 1 + games (g1 win, g2 draw, g3 loss for White) 2*1 + 1 = 4.
    // Equal weights keep file order: lowest Polyglot move code first (g1f3 < d2d4).
    assert_eq!(
        weights(&book, &[]),
        owned(&[("e2e4", 4), ("g1f3", 1), ("d2d4", 1)])
    );
    // e5: one lost game scores 0 < 0.3, so only the theory weight; c5: draw + theory.
    assert_eq!(
        weights(&book, &["e2e4"]),
        owned(&[("c7c5", 2), ("e7e5", 1)])
    );
    // Nf3 after 1.e4 e5: win (g1) + loss (g3) = 2, + theory 1. The duplicate g1 row is ignored.
    assert_eq!(weights(&book, &["e2e4", "e7e5"]), owned(&[("g1f3", 3)]));
    // Game-only moves: Nf3 in g2 (draw) and d5 in g4 (Black 2000 won; White 1000 ignored).
    assert_eq!(weights(&book, &["e2e4", "c7c5"]), owned(&[("g1f3", 1)]));
    assert_eq!(weights(&book, &["d2d4"]), owned(&[("d7d5", 2)]));
    assert!(
        weights(&book, &["e2e4", "e7e5", "g1f3"]).is_empty(),
        "Nc6 scored 0 and is dropped"
    );
    assert!(
        weights(&book, &["c2c4"]).is_empty(),
        "g7 is below the rating threshold"
    );

    // Name index: deepest line ending at a position wins (Knight Dance transposes to 1.e4).
    let names = OpeningNames::load_file(opts.names_path().to_str().unwrap()).expect("names");
    assert_eq!(opts.names_path(), dir.join("out/test-names.tsv"));
    assert_eq!(names.len(), 5);
    assert_eq!(
        names.lookup(&board_after(&["e2e4"])),
        Some(("Z99", "Knight Dance"))
    );
    assert_eq!(
        names.lookup(&board_after(&["e2e4", "e7e5", "g1f3"])),
        Some(("C40", "King's Knight Opening"))
    );
    assert_eq!(
        names.lookup(&board_after(&["e2e4", "e7e5", "g1f3", "b8c6"])),
        None
    );
    let game = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"];
    let keys: Vec<u64> = (0..=game.len())
        .map(|n| polyglot_key(&board_after(&game[..n])))
        .collect();
    assert_eq!(
        names.name_along(&keys),
        Some(("C40", "King's Knight Opening"))
    );
    let start = Board::default();
    let mut b = start.clone();
    let mut moves = Vec::new();
    for text in game {
        let mv = parse_uci_move(&b, text).unwrap();
        moves.push(mv);
        b.play(mv);
    }
    assert_eq!(
        names.name_for_game(&start, &moves),
        Some(("C40", "King's Knight Opening"))
    );
    assert_eq!(names.name_for_game(&start, &[]), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compiler_options_rated_only_and_weight_scaling() {
    let games = vec![("g.csv".to_string(), games_csv())];
    let openings = vec![("x.tsv".to_string(), OPENINGS_TSV.to_string())];
    let opts = BuildOptions {
        min_rating: 1500,
        min_games: 1,
        rated_only: true,
        ..BuildOptions::default()
    };
    let (book, _, summary) = compile_texts(&openings, &games, &opts).unwrap();
    // g2 is unrated: filtered now, and its game-only move (Nf3 after 1.e4 c5) disappears.
    assert_eq!(summary.games_filtered, 2);
    assert!(weights(&book, &["e2e4", "c7c5"]).is_empty());

    // A theory weight above u16::MAX forces proportional scaling within each position.
    let opts = BuildOptions {
        min_rating: 1500,
        min_games: 1,
        theory_weight: 100_000,
        ..BuildOptions::default()
    };
    let (book, _, _) = compile_texts(&openings, &games, &opts).unwrap();
    let start = weights(&book, &[]);
    assert_eq!(start[0], ("e2e4".to_string(), u16::MAX));
    let scaled = (100_000.0 * 65535.0 / 100_003.0f64).round() as u16;
    assert_eq!(start[1].1, scaled);
    assert_eq!(start[2].1, scaled);

    // A missing header column is a file-level error; a missing input file too.
    let bad = vec![("bad.csv".to_string(), "id,moves\r\nx,e4\r\n".to_string())];
    assert!(compile_texts(&openings, &bad, &opts)
        .unwrap_err()
        .contains("rated"));
    let dir = temp_dir("missing");
    let opts = BuildOptions {
        openings: vec![dir.join("nope.tsv")],
        games: vec![],
        out: dir.join("b.bin"),
        ..BuildOptions::default()
    };
    assert!(build_book(&opts).unwrap_err().contains("nope.tsv"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn default_book_has_main_lines() {
    let book = default_book();
    assert!(
        book.len() > 1000,
        "embedded book has {} entries",
        book.len()
    );
    let start: Vec<String> = book
        .probe(&Board::default())
        .iter()
        .map(|m| uci(&Board::default(), m.mv))
        .collect();
    for mv in ["e2e4", "d2d4", "g1f3", "c2c4"] {
        assert!(
            start.contains(&mv.to_string()),
            "{mv} missing at start: {start:?}"
        );
    }
    assert_eq!(start[0], "e2e4");
    let after_e4 = board_after(&["e2e4"]);
    let replies: Vec<String> = book
        .probe(&after_e4)
        .iter()
        .map(|m| uci(&after_e4, m.mv))
        .collect();
    for mv in ["e7e5", "c7c5", "e7e6", "c7c6"] {
        assert!(
            replies.contains(&mv.to_string()),
            "{mv} missing after 1.e4: {replies:?}"
        );
    }
    // A castling move of a main line is found and returned in cozy encoding (king takes rook).
    let ruy = board_after(&[
        "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6",
    ]);
    let castle = book
        .probe(&ruy)
        .into_iter()
        .find(|m| m.mv.from == Square::E1)
        .expect("O-O in book");
    assert_eq!(castle.mv.to, Square::H1);

    let names = default_names();
    assert!(names.len() > 1000);
    assert_eq!(names.lookup(&after_e4), Some(("B00", "King's Pawn Game")));
    assert_eq!(
        names.lookup(&board_after(&["e2e4", "c7c5"])),
        Some(("B20", "Sicilian Defense"))
    );
    let game = ["e2e4", "a7a6", "h2h3", "h7h6"];
    let keys: Vec<u64> = (0..=game.len())
        .map(|n| polyglot_key(&board_after(&game[..n])))
        .collect();
    assert_eq!(names.lookup_key(keys[4]), None);
    assert_eq!(names.name_along(&keys), Some(("B00", "St. George Defense")));
}

#[test]
fn every_probed_move_is_legal() {
    // Breadth-first over the default book to 8 plies, checking every returned move.
    let book = default_book();
    let mut frontier = vec![Board::default()];
    let mut checked = 0;
    for _ in 0..8 {
        let mut next = Vec::new();
        for board in &frontier {
            let legal = legal_moves(board);
            for m in book.probe(board) {
                assert!(
                    legal.contains(&m.mv),
                    "illegal book move {} in {board}",
                    m.mv
                );
                checked += 1;
                if next.len() < 3000 {
                    let mut b = board.clone();
                    b.play(m.mv);
                    next.push(b);
                }
            }
        }
        frontier = next;
    }
    assert!(checked > 1000, "only {checked} moves checked");
}

fn tiny_book(entries: &[(u64, &str, u16)]) -> Vec<u8> {
    let board = Board::default();
    let mut out = Vec::new();
    for (key, mv, weight) in entries {
        let mv = parse_uci_move(&board, mv).unwrap();
        out.extend(
            Entry {
                key: *key,
                raw_move: encode_move(mv),
                weight: *weight,
                learn: 7,
            }
            .to_bytes(),
        );
    }
    out
}

#[test]
fn corrupt_books_are_rejected() {
    let start = polyglot_key(&Board::default());
    let good = tiny_book(&[(1, "e2e4", 5), (start, "d2d4", 3)]);
    assert!(Book::from_bytes(&good).is_ok());
    assert!(Book::from_bytes(&[]).unwrap_err().contains("empty"));
    assert!(Book::from_bytes(&good[..31])
        .unwrap_err()
        .contains("multiple of 16"));
    let unsorted = tiny_book(&[(start, "d2d4", 3), (1, "e2e4", 5)]);
    assert!(Book::from_bytes(&unsorted)
        .unwrap_err()
        .contains("not sorted"));

    let dir = temp_dir("corrupt");
    let truncated = dir.join("truncated.bin");
    std::fs::write(&truncated, &good[..20]).unwrap();
    let err = Book::load_file(truncated.to_str().unwrap()).unwrap_err();
    assert!(
        err.contains("truncated.bin") && err.contains("multiple of 16"),
        "{err}"
    );
    let missing = dir.join("missing.bin");
    let err = Book::load_file(missing.to_str().unwrap()).unwrap_err();
    assert!(
        err.contains("cannot read") && err.contains("missing.bin"),
        "{err}"
    );
    assert!(OpeningNames::from_tsv("zz\tA00\tx\n").is_err());
    assert!(OpeningNames::load_file(missing.to_str().unwrap()).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn probe_skips_illegal_entries_and_reads_learn() {
    let start = polyglot_key(&Board::default());
    // e2e5 is not legal: it must not be returned.
    let bad = Entry {
        key: start,
        raw_move: (36 | (12 << 6)) as u16,
        weight: 100,
        learn: 0,
    };
    let mut bytes = bad.to_bytes().to_vec();
    bytes.extend(tiny_book(&[(start, "d2d4", 3)]));
    let book = Book::from_bytes(&bytes).unwrap();
    let moves = book.probe(&Board::default());
    assert_eq!(moves.len(), 1);
    assert_eq!((moves[0].weight, moves[0].learn), (3, 7));
    assert!(book.probe(&board_after(&["e2e4"])).is_empty());
}

#[test]
fn choose_respects_temperature() {
    let start = polyglot_key(&Board::default());
    let book = Book::from_bytes(&tiny_book(&[
        (start, "e2e4", 90),
        (start, "d2d4", 10),
        (start, "g1f3", 0),
    ]))
    .unwrap();
    let board = Board::default();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for _ in 0..20 {
        assert_eq!(
            uci(&board, book.choose(&board, 0.0, &mut rng).unwrap().mv),
            "e2e4"
        );
    }
    // T = 1: about 90% e2e4, never the zero-weight move.
    let mut e4 = 0;
    for _ in 0..2000 {
        let m = uci(&board, book.choose(&board, 1.0, &mut rng).unwrap().mv);
        assert_ne!(m, "g1f3");
        e4 += usize::from(m == "e2e4");
    }
    assert!(
        (1700..1900).contains(&e4),
        "e2e4 chosen {e4}/2000 times at T=1"
    );
    // Large T flattens towards uniform over the non-zero moves.
    let e4_hot = (0..2000)
        .filter(|_| uci(&board, book.choose(&board, 100.0, &mut rng).unwrap().mv) == "e2e4")
        .count();
    assert!(
        (900..1200).contains(&e4_hot),
        "e2e4 chosen {e4_hot}/2000 times at T=100"
    );
    assert!(book
        .choose(&board_after(&["e2e4"]), 1.0, &mut rng)
        .is_none());

    // Ties at T = 0 are broken deterministically (first stored, i.e. lowest move code).
    let tied = Book::from_entries(
        ["g1f3", "d2d4", "e2e4"]
            .iter()
            .map(|m| Entry {
                key: start,
                raw_move: encode_move(parse_uci_move(&board, m).unwrap()),
                weight: 5,
                learn: 0,
            })
            .collect(),
    );
    let first = tied.choose(&board, 0.0, &mut rng).unwrap().mv;
    assert_eq!(
        uci(&board, first),
        "g1f3",
        "g1f3 has the lowest Polyglot move code"
    );
    for _ in 0..5 {
        assert_eq!(tied.choose(&board, 0.0, &mut rng).unwrap().mv, first);
    }
}

#[test]
fn cli_probe_raw_and_stats() {
    let exe = env!("CARGO_BIN_EXE_rookery");
    let out = std::process::Command::new(exe)
        .args(["book", "probe", "--raw", "--moves", "e2e4"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("");
    let mut parts = first.split_whitespace();
    assert_eq!(parts.next(), Some("e7e5"), "{text}");
    assert!(
        parts.next().and_then(|w| w.parse::<u16>().ok()).is_some(),
        "{text}"
    );

    let out = std::process::Command::new(exe)
        .args(["book", "stats"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("entries:") && text.contains("max ply:"),
        "{text}"
    );

    let out = std::process::Command::new(exe)
        .args(["book", "probe", "--file", "/nonexistent/x.bin"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read book file"));
}
