//! `rookery human-data samples` (the sample lines that scripts/human_match.py reads): each
//! line's move is legal in its FEN and leads to the next line's FEN, castling is printed
//! as e1g1, the filters (split, minimum ply, bullet) keep what they say, and a bad file is
//! an error naming it, not a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

use rookery::chess::{parse_fen, parse_uci_move};
use rookery::data::human::convert::{convert_files, ConvertOptions};
use rookery::data::human::format::{write_games, HumanGame, Split, TimeClass, TimeControl};
use rookery::data::human::samples::{write_samples, SampleFilter, COLUMNS};

fn fixture_games() -> Vec<HumanGame> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/human");
    let inputs = [dir.join("kaggle_sample.csv"), dir.join("mixed.pgn")];
    let (games, _) = convert_files(&inputs, &ConvertOptions::default()).expect("fixtures");
    assert!(games.len() >= 6, "{} games", games.len());
    games
}

fn lines(games: &[HumanGame], filter: &SampleFilter) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let written = write_samples(&mut out, games, filter).expect("writes");
    let text = String::from_utf8(out).expect("utf-8");
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len() as u64, written);
    rows
}

#[test]
fn every_line_is_a_legal_move_that_leads_to_the_next_line() {
    let games = fixture_games();
    let rows = lines(&games, &SampleFilter::default());
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    assert_eq!(rows.len(), plies);
    // Each game's scale and time class, repeated for each of its plies.
    let per_ply: Vec<(&str, &str)> = games
        .iter()
        .flat_map(|g| {
            std::iter::repeat_n((g.scale.name(), g.time_control.class.name()), g.moves.len())
        })
        .collect();
    let mut castles = 0;
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), COLUMNS.len(), "line {i}: {row:?}");
        let mut board = parse_fen(&row[0]).expect("FEN parses");
        let mv = parse_uci_move(&board, &row[1]).expect("played move is legal");
        let king = board.piece_on(mv.from) == Some(cozy_chess::Piece::King);
        // A king never moves e1h1 in standard chess: that is cozy-chess's castling form.
        assert!(!["e1h1", "e1a1", "e8h8", "e8a8"].contains(&row[1].as_str()));
        if king && ["e1g1", "e1c1", "e8g8", "e8c8"].contains(&row[1].as_str()) {
            castles += 1;
        }
        let mover: u16 = row[2].parse().expect("mover rating");
        let opponent: u16 = row[3].parse().expect("opponent rating");
        assert!(mover > 0 && opponent > 0);
        assert_eq!((row[4].as_str(), row[5].as_str()), per_ply[i], "line {i}");
        let ply: usize = row[6].parse().expect("ply");
        assert_eq!(row[7].len(), 16, "game key");
        board.play(mv);
        if let Some(next) = rows.get(i + 1) {
            if next[7] == row[7] {
                assert_eq!(next[6].parse::<usize>().unwrap(), ply + 1);
                assert_eq!(parse_fen(&next[0]).unwrap(), board, "line {i}");
            } else {
                assert_eq!(next[6], "0", "a new game starts at ply 0");
            }
        }
    }
    assert!(castles > 0, "the fixtures castle");
}

#[test]
fn filters_keep_the_split_the_plies_and_the_time_classes_asked_for() {
    let mut games = fixture_games();
    games[0].time_control = TimeControl::from_seconds(60, 0);
    assert_eq!(games[0].time_control.class, TimeClass::Bullet);
    games[1].split = Split::Validation;
    games[2].split = Split::Train;
    let all = lines(&games, &SampleFilter::default());

    let late = lines(
        &games,
        &SampleFilter {
            min_ply: 11,
            ..Default::default()
        },
    );
    assert!(!late.is_empty() && late.len() < all.len());
    assert!(late.iter().all(|r| r[6].parse::<u16>().unwrap() >= 11));
    assert_eq!(
        late.len(),
        all.iter()
            .filter(|r| r[6].parse::<u16>().unwrap() >= 11)
            .count()
    );

    let no_bullet = lines(
        &games,
        &SampleFilter {
            exclude_bullet: true,
            ..Default::default()
        },
    );
    assert_eq!(no_bullet.len(), all.len() - games[0].moves.len());
    assert!(no_bullet.iter().all(|r| r[5] != "bullet"));

    for split in [Split::Train, Split::Validation] {
        let kept = lines(
            &games,
            &SampleFilter {
                split: Some(split),
                ..Default::default()
            },
        );
        let plies: usize = games
            .iter()
            .filter(|g| g.split == split)
            .map(|g| g.moves.len())
            .sum();
        assert_eq!(kept.len(), plies, "{split:?}");
    }
}

fn rookery(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args(args)
        .output()
        .expect("rookery runs")
}

#[test]
fn the_cli_prints_a_file_and_names_a_bad_one() {
    let dir: PathBuf = std::env::temp_dir().join(format!("rookery-samples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("fixture.rkh");
    let games = fixture_games();
    write_games(std::fs::File::create(&good).unwrap(), &games).unwrap();
    let good_arg = good.to_str().unwrap();

    let output = rookery(&[
        "human-data",
        "samples",
        "--header",
        "--min-ply",
        "11",
        good_arg,
    ]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let mut text_lines = text.lines();
    assert_eq!(
        text_lines.next(),
        Some(format!("#{}", COLUMNS.join("\t")).as_str())
    );
    let expected = lines(
        &games,
        &SampleFilter {
            min_ply: 11,
            ..Default::default()
        },
    );
    assert_eq!(text_lines.count(), expected.len());

    let bad = dir.join("bad.rkh");
    std::fs::write(&bad, b"not a gzip stream").unwrap();
    let output = rookery(&["human-data", "samples", bad.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("bad.rkh"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}
