//! MCTS self-play (`datagen --mode mcts`) and training on its visit counts: a tiny run
//! writes games whose positions and visited moves are legal, whose visits add up to at
//! least the playouts of each search, which read back whole, with the same bytes for a
//! seed whatever the thread count and across a resumed run; `train-policy --visits`
//! lowers the visit-target loss on such a file.

use std::path::{Path, PathBuf};

use rookery::chess::legal_moves;
use rookery::data::datagen::{self, DatagenArgs, DatagenMode, MctsSelfPlayArgs};
use rookery::data::visits::{self, VisitGame};
use rookery::train::policy::{self as train_policy, TrainPolicyArgs};

const PLAYOUTS: u64 = 40;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rookery-mcts-selfplay-{}", std::process::id()));
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
        seed: 3,
        random_plies: 8,
        max_opening_score: 400,
        win_score: 1000,
        win_plies: 4,
        draw_score: 10,
        draw_plies: 8,
        draw_after: 20,
        max_plies: 40,
        hash: 4,
        quiet: true,
        net: None,
        chess960: 0.0,
        double_chess960: 0.5,
        mode: DatagenMode::Mcts,
        mcts: MctsSelfPlayArgs {
            playouts: PLAYOUTS,
            temperature_plies: 10,
            ..Default::default()
        },
    }
}

fn read(path: &Path) -> Vec<VisitGame> {
    visits::read_file(path).expect("a whole .mcv file")
}

#[test]
fn a_tiny_run_writes_legal_positions_whose_visits_cover_the_playouts() {
    let path = temp("games.mcv");
    let tally = datagen::run(&args(path.clone(), 2, 4)).expect("datagen runs");
    let games = read(&path);
    assert_eq!((tally.games, games.len()), (4, 4));
    let (mut positions, mut chosen, mut best) = (0, 0u32, 0u32);
    for game in &games {
        assert!(game.wdl <= 2 && !game.plies.is_empty() && game.plies.len() <= 40);
        for (ply, (board, record)) in game.positions().enumerate() {
            let legal = legal_moves(&board);
            assert!(legal.contains(&record.played));
            assert!(record
                .visits
                .iter()
                .all(|(mv, n)| legal.contains(mv) && *n > 0));
            // Every playout passes through one root child; a reused subtree brings more.
            let total = record.total_visits();
            if legal.len() > 1 {
                assert!(total >= PLAYOUTS, "ply {ply}: {total} visits");
            }
            assert!((0.0..=1.0).contains(&record.root_value));
            assert_eq!(record.sampled, ply < 10);
            if !record.sampled {
                // The search's choice: the most visited (a proven mate may override).
                chosen += 1;
                best += (Some(record.played) == record.most_visited()) as u32;
            }
            positions += 1;
        }
    }
    assert_eq!(tally.positions, positions);
    assert!(chosen > 0 && best * 10 >= chosen * 9, "{best} of {chosen}");
    // `rookery data stats` reads visit files by their extension.
    let st = rookery::data::stats(std::slice::from_ref(&path)).expect("stats");
    assert!(st.errors.is_empty(), "{:?}", st.errors);
    assert_eq!((st.games, st.positions), (4, positions));
    // Written again game by game, the file is byte for byte the same.
    let mut bytes = visits::header().to_vec();
    for g in &games {
        visits::write_game(&mut bytes, g).unwrap();
    }
    assert_eq!(bytes, std::fs::read(&path).unwrap());
}

#[test]
fn chess960_games_are_played_from_their_own_starts() {
    let path = temp("chess960.mcv");
    let mut a = args(path.clone(), 2, 3);
    a.chess960 = 1.0;
    datagen::run(&a).expect("datagen runs");
    let games = read(&path);
    assert_eq!(games.len(), 3);
    let standard = cozy_chess::Board::default();
    for game in &games {
        let mut boards = game.positions().map(|(board, _)| board);
        let first = boards.next().expect("a position");
        // Eight random plies leave the back rank's pieces mostly in place: a Chess960
        // start differs from the standard one in where its pieces stand.
        assert_ne!(
            first.colored_pieces(cozy_chess::Color::White, cozy_chess::Piece::Rook)
                | first.colored_pieces(cozy_chess::Color::White, cozy_chess::Piece::King),
            standard.colored_pieces(cozy_chess::Color::White, cozy_chess::Piece::Rook)
                | standard.colored_pieces(cozy_chess::Color::White, cozy_chess::Piece::King),
        );
        for (board, record) in game.positions() {
            assert!(legal_moves(&board).contains(&record.played));
        }
    }
}

#[test]
fn a_seed_gives_the_same_bytes_with_any_thread_count_and_when_resumed() {
    let one = temp("one.mcv");
    datagen::run(&args(one.clone(), 1, 3)).unwrap();
    let two = temp("two.mcv");
    datagen::run(&args(two.clone(), 2, 3)).unwrap();
    let whole = std::fs::read(&one).unwrap();
    assert_eq!(whole, std::fs::read(&two).unwrap());
    // One game, then a half-written second one; the rerun cuts it off and continues.
    let resumed = temp("resumed.mcv");
    datagen::run(&args(resumed.clone(), 1, 1)).unwrap();
    let mut partial = std::fs::read(&resumed).unwrap();
    partial.extend_from_slice(&whole[partial.len()..partial.len() + 20]);
    std::fs::write(&resumed, &partial).unwrap();
    datagen::run(&args(resumed.clone(), 2, 3)).unwrap();
    assert_eq!(whole, std::fs::read(&resumed).unwrap());
}

#[test]
fn a_file_that_is_not_mcv_is_not_appended_to() {
    let path = temp("other.mcv");
    std::fs::write(&path, b"some other data, not games").unwrap();
    let err = datagen::run(&args(path.clone(), 1, 1)).unwrap_err();
    assert!(err.contains("not an .mcv file"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), b"some other data, not games");
}

#[test]
fn training_on_visits_lowers_the_visit_target_loss() {
    let data = temp("train.mcv");
    datagen::run(&args(data.clone(), 2, 6)).unwrap();
    let out = temp("policy.safetensors");
    let csv = temp("policy.csv");
    let train = TrainPolicyArgs {
        files: Vec::new(),
        out: out.clone(),
        csv,
        sample: 1.0,
        validation_games: 0.3,
        max_positions: 0,
        epochs: 30,
        batch_size: 64,
        lr: 3e-3,
        weight_decay: 1e-4,
        max_steps: 0,
        curve_positions: 64,
        curve_every: 10,
        hidden: 32,
        d: 16,
        no_tactics: false,
        threat_inputs: false,
        seed: 1,
        evaluate: None,
        baseline: false,
        visits: vec![data.clone()],
        played_weight: 0.0,
        init: None,
        quiet: true,
    };
    let report = train_policy::run(train.clone()).expect("training on visits");
    let fit = report.visits.expect("a visit report");
    assert!(fit.train_before.positions > 50);
    assert!(
        fit.train_after.loss < fit.train_before.loss - 0.3,
        "{fit:?}"
    );
    // Fine-tuning from the saved net starts where it ended.
    let tuned = temp("tuned.safetensors");
    let again = train_policy::run(TrainPolicyArgs {
        init: Some(out.clone()),
        out: tuned,
        epochs: 1,
        ..train.clone()
    })
    .unwrap();
    let again = again.visits.unwrap();
    assert!((again.train_before.loss - fit.train_after.loss).abs() < 1e-3);
    // The starting net is never the output.
    let err = train_policy::run(TrainPolicyArgs {
        init: Some(out.clone()),
        ..train
    })
    .unwrap_err();
    assert!(err.contains("is the --init net"), "{err}");
}
