//! Human-game conversion (`rookery human-data`, issue 56 item 1) on the fixtures of
//! tests/data/human/ (their source is in its README): converted and skipped records by
//! reason, the .rkh round trip, the split by game, the single-player cap, and the
//! committed data/human files against their manifest.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use rookery::chess::san::{parse_san, san_tokens};
use rookery::data::human::convert::{convert_files, ConvertOptions, SkipReason};
use rookery::data::human::format::{
    game_key, read_games, split_for, write_games, HumanGame, Scale, Source, Split, TimeClass,
    MAGIC, VERSION,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/human")
        .join(name)
}

fn convert(
    paths: &[PathBuf],
    options: &ConvertOptions,
) -> (Vec<HumanGame>, rookery::data::human::ConvertReport) {
    convert_files(paths, options).expect("fixtures convert")
}

fn skipped(report: &rookery::data::human::ConvertReport, reason: SkipReason) -> u64 {
    report.skipped.get(&reason).copied().unwrap_or(0)
}

#[test]
fn kaggle_csv_counts_converted_and_skipped_records_by_reason() {
    let (games, report) = convert(&[fixture("kaggle_sample.csv")], &ConvertOptions::default());
    assert_eq!((report.records, report.kept, games.len()), (9, 4, 4));
    for reason in [
        SkipReason::Unrated,
        SkipReason::Duplicate,
        SkipReason::MissingRating,
        SkipReason::IllegalMove,
        SkipReason::Malformed,
    ] {
        assert_eq!(skipped(&report, reason), 1, "{reason:?}");
    }
    assert!(report
        .messages
        .iter()
        .any(|m| m.contains("fixILLEG") && m.contains("illegal move")));
    let first = &games[0];
    assert_eq!((first.white_rating, first.black_rating), (1322, 1261));
    assert_eq!(
        (first.scale, first.source),
        (Scale::Lichess, Source::KaggleLichess)
    );
    // increment_code "5+10" is minutes + seconds.
    assert_eq!(
        (first.time_control.base_s, first.time_control.increment_s),
        (300, 10)
    );
    assert_eq!(first.time_control.class, TimeClass::Rapid);
    assert_eq!(first.moves.len(), 16);
    assert!(first.clocks.is_none());
}

#[test]
fn pgn_counts_bad_records_and_reads_scales_and_clocks() {
    let (games, report) = convert(&[fixture("mixed.pgn")], &ConvertOptions::default());
    assert_eq!((report.records, report.kept, games.len()), (8, 3, 3));
    for reason in [
        SkipReason::IllegalMove,
        SkipReason::MissingRating,
        SkipReason::UnknownVariant,
        SkipReason::Unrated,
        SkipReason::Duplicate,
    ] {
        assert_eq!(skipped(&report, reason), 1, "{reason:?}");
    }
    let scales: Vec<Scale> = games.iter().map(|g| g.scale).collect();
    assert_eq!(scales, [Scale::Lichess, Scale::Lichess, Scale::ChessCom]);
    let clocks = games[0]
        .clocks
        .as_ref()
        .expect("lichess user game has clocks");
    assert_eq!((clocks[0], clocks[2]), (1800, 1790));
    assert!(games[1].clocks.is_none());
    // chess.com clocks carry tenths, and comments may wrap lines.
    let clocks = games[2].clocks.as_ref().expect("chess.com game has clocks");
    assert_eq!(clocks[0], 1802);
    assert_eq!(clocks.len(), games[2].moves.len());
}

#[test]
fn round_trip_keeps_positions_moves_ratings_and_clocks() {
    let inputs = [fixture("kaggle_sample.csv"), fixture("mixed.pgn")];
    let (games, _) = convert(&inputs, &ConvertOptions::default());
    let mut bytes = Vec::new();
    write_games(&mut bytes, &games).unwrap();
    let back = read_games(&bytes[..]).unwrap();
    assert_eq!(back, games);
    let positions: usize = games.iter().map(|g| g.moves.len()).sum();
    // Well under the 2 bytes per move of a from/to encoding, header and gzip included.
    assert!(bytes.len() < 2 * positions + 200, "{} bytes", bytes.len());

    // Samples replay the SAN of the source: the Kaggle game with id l1NXvwaE.
    let samples = back[0].samples();
    let sans = san_tokens("d4 Nc6 e4 e5 f4 f6 dxe5 fxe5 fxe5 Nxe5 Qd4 Nc6 Qe5+ Nxe5 c4 Bb4+");
    assert_eq!(samples.len(), sans.len());
    for (sample, san) in samples.iter().zip(sans) {
        assert_eq!(parse_san(&sample.board, san), Ok(sample.played));
        let white_moves = sample.ply % 2 == 0;
        let expected = if white_moves {
            (1322, 1261)
        } else {
            (1261, 1322)
        };
        assert_eq!((sample.mover_rating, sample.opponent_rating), expected);
        assert_eq!(sample.split, back[0].split);
    }
    let clocked = back.iter().find(|g| g.clocks.is_some()).unwrap();
    let samples = clocked.samples();
    assert_eq!(
        samples[1].clock_tenths,
        Some(clocked.clocks.as_ref().unwrap()[1])
    );
}

#[test]
fn damaged_files_are_errors_not_panics() {
    let (games, _) = convert(&[fixture("mixed.pgn")], &ConvertOptions::default());
    let mut raw = Vec::new();
    write_games(&mut raw, &games).unwrap();
    assert!(read_games(&raw[..raw.len() / 2]).is_err());
    assert!(read_games(&b"not gzip at all"[..]).is_err());
    let mut plain = Vec::new();
    write_games(&mut plain, &[]).unwrap();
    assert_eq!(read_games(&plain[..]).unwrap(), Vec::<HumanGame>::new());

    // Whole gzip, damaged content: wrong magic, wrong version, a move index that is no
    // legal move, a record cut short.
    let gzip = |content: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(content).unwrap();
        gz.finish().unwrap()
    };
    let mut header = MAGIC.to_vec();
    header.extend_from_slice(&VERSION.to_le_bytes());
    let mut record = vec![0xdc, 0x05, 0xdc, 0x05, 1, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 0];
    record.extend_from_slice(&2u16.to_le_bytes());
    let cases: [(&[u8], &[u8], &str); 4] = [
        (b"RKHUMAX\0\x01\x00", b"", "magic"),
        (&MAGIC[..], &[9, 0], "version"),
        (&header, &[&record[..], &[0, 250]].concat(), "legal move"),
        (&header, &[&record[..], &[0]].concat(), "truncated"),
    ];
    for (head, body, expected) in cases {
        let error = read_games(&gzip(&[head, body].concat())[..]).unwrap_err();
        assert!(error.contains(expected), "{error}");
    }
    let whole = [&header[..], &record, &[0, 0]].concat();
    assert_eq!(read_games(&gzip(&whole)[..]).unwrap()[0].moves.len(), 2);
}

#[test]
fn split_is_by_game_deterministic_and_near_the_share() {
    let inputs = [fixture("kaggle_sample.csv"), fixture("mixed.pgn")];
    let options = ConvertOptions {
        validation_per_mille: 500,
        ..Default::default()
    };
    let (first, _) = convert(&inputs, &options);
    let (second, _) = convert(&inputs, &options);
    assert_eq!(first, second, "same inputs, same games and splits");
    for game in &first {
        let key = game_key(&game.moves, game.white_rating, game.black_rating);
        assert_eq!(game.split, split_for(key, 500));
        assert!(game.samples().iter().all(|s| s.split == game.split));
    }
    let in_split = |split| {
        let plies: usize = first
            .iter()
            .filter(|g| g.split == split)
            .map(|g| g.moves.len())
            .sum();
        let samples = rookery::data::human::samples_in(&first, split);
        (plies, samples.filter(|s| s.split == split).count())
    };
    let (train, validation) = (in_split(Split::Train), in_split(Split::Validation));
    assert_eq!(train.0, train.1);
    assert_eq!(validation.0, validation.1);
    assert!(train.0 > 0 && validation.0 > 0, "{train:?} {validation:?}");
    // The 10 % share over many distinct keys lands near 10 %.
    let validation = (0..20_000u64)
        .filter(|&i| split_for(i.wrapping_mul(0x2545_F491_4F6C_DD1D), 100) == Split::Validation)
        .count();
    assert!(
        (1_700..2_300).contains(&validation),
        "{validation} of 20,000"
    );
}

#[test]
fn single_player_archives_are_capped_and_known_games_are_duplicates() {
    let dir = std::env::temp_dir().join(format!("rookery-human-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A file named like SOURCE.md's single-player archive is treated as one.
    let archive = dir.join("lichess_user_jishanshaikh4_fixture.pgn");
    std::fs::copy(fixture("mixed.pgn"), &archive).unwrap();
    let options = ConvertOptions {
        single_player_cap: 2,
        ..Default::default()
    };
    let (games, report) = convert(std::slice::from_ref(&archive), &options);
    assert_eq!(games.len(), 2);
    assert_eq!(skipped(&report, SkipReason::SinglePlayerCap), 1);
    assert!(games
        .iter()
        .all(|g| g.source == Source::LichessUserJishanshaikh4 && g.scale == Scale::Lichess));

    let known: HashSet<u64> = games
        .iter()
        .map(|g| game_key(&g.moves, g.white_rating, g.black_rating))
        .collect();
    let options = ConvertOptions {
        known_games: known,
        ..Default::default()
    };
    let (again, report) = convert(&[fixture("mixed.pgn")], &options);
    assert_eq!(again.len(), 1);
    assert_eq!(skipped(&report, SkipReason::Duplicate), 3);
    std::fs::remove_dir_all(&dir).ok();
}

/// The committed data/human files are whole and hold what data/human/manifest.tsv says
/// (sha256 is checked by scripts/check_data.py, which reads the same manifest).
#[test]
fn committed_human_data_matches_its_manifest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("data/human/manifest.tsv")).unwrap();
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(
        header,
        [
            "file",
            "source",
            "licence",
            "games",
            "positions",
            "bytes",
            "sha256"
        ]
    );
    let mut rows = 0;
    for line in lines {
        let cols: Vec<&str> = line.split('\t').collect();
        let path = root.join(cols[0]);
        let bytes = std::fs::metadata(&path).unwrap().len();
        assert_eq!(bytes.to_string(), cols[5], "{}", cols[0]);
        let games = rookery::data::human::read_file(&path).unwrap();
        let positions: usize = games.iter().map(|g| g.moves.len()).sum();
        assert_eq!(games.len().to_string(), cols[3], "{}", cols[0]);
        assert_eq!(positions.to_string(), cols[4], "{}", cols[0]);
        assert!(
            games.iter().all(|g| g.scale == Scale::Lichess),
            "{}",
            cols[0]
        );
        assert_eq!(cols[6].len(), 64);
        rows += 1;
    }
    assert!(rows >= 1);
}

#[test]
fn a_byte_order_mark_latin1_names_and_absurd_time_controls_do_not_lose_the_game() {
    let path = std::env::temp_dir().join(format!("rookery-human-bom-{}.pgn", std::process::id()));
    let mut pgn = b"\xef\xbb\xbf[Event \"Rated Blitz game\"]\n[White \"M\xfcller\"]\n".to_vec();
    pgn.extend_from_slice(
        b"[WhiteElo \"1500\"]\n[BlackElo \"1600\"]\n[TimeControl \"4294967295+4294967295\"]\n",
    );
    pgn.extend_from_slice(b"\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n");
    std::fs::write(&path, pgn).unwrap();
    let (games, report) = convert(std::slice::from_ref(&path), &ConvertOptions::default());
    std::fs::remove_file(&path).ok();
    assert_eq!((report.records, games.len()), (1, 1));
    assert_eq!((games[0].moves.len(), games[0].scale), (7, Scale::Unknown));
    assert_eq!(games[0].time_control.class, TimeClass::Classical);
}

#[test]
fn a_game_longer_than_the_format_holds_is_skipped_not_written() {
    let path = std::env::temp_dir().join(format!("rookery-human-long-{}.pgn", std::process::id()));
    let mut pgn = String::from("[WhiteElo \"1500\"]\n[BlackElo \"1600\"]\n\n");
    // Knights out and back: legal forever (no rule ends a PGN game), 65,600 plies.
    pgn.push_str(&"Nf3 Nf6 Ng1 Ng8 ".repeat(16_400));
    pgn.push_str("1/2-1/2\n");
    std::fs::write(&path, pgn).unwrap();
    let (games, report) = convert(std::slice::from_ref(&path), &ConvertOptions::default());
    std::fs::remove_file(&path).ok();
    assert!(games.is_empty());
    assert_eq!(skipped(&report, SkipReason::Malformed), 1);
    assert!(report.messages.iter().any(|m| m.contains("65600 plies")));
}
