//! The rating-conditioned human prior (issue 56 item 2): a toy net trained a few steps
//! on the fixture games of tests/data/human/ round-trips through safetensors; the
//! plain-Rust forward pass equals candle's, with and without the tactical rows and with
//! rating rows for every scale; probabilities cover the legal moves only and sum to 1;
//! bad net files and bad `--predict` lines give clear errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use cozy_chess::Board;
use rookery::data::human::convert::{convert_files, ConvertOptions};
use rookery::data::human::{HumanGame, Split};
use rookery::policy::moves::{board_features, move_rows};
use rookery::policy::{PriorNet, PriorQuery};
use rookery::train::human::data::{prepare, PolicySet, PrepareOptions};
use rookery::train::human::model::{Batch, PriorModel};
use rookery::train::human::{mean_loss, save, train, TrainHumanArgs};

#[derive(Parser)]
struct Wrap {
    #[command(flatten)]
    args: TrainHumanArgs,
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rookery-human-prior-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// The fixture games, all in the train split (the fixture is too small to hold any out).
fn fixture_games() -> Vec<HumanGame> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/human");
    let (games, _) = convert_files(
        &[dir.join("kaggle_sample.csv"), dir.join("mixed.pgn")],
        &ConvertOptions::default(),
    )
    .expect("fixtures convert");
    games
        .into_iter()
        .map(|mut g| {
            g.split = Split::Train;
            g
        })
        .collect()
}

/// The fixture games as one training set; `tactics`: moves carry their tactical rows.
fn fixture_set(tactics: bool) -> PolicySet {
    fixture_set_with(tactics, false)
}

/// The same; `all_scales`: the games rated on other scales than Lichess's too.
fn fixture_set_with(tactics: bool, all_scales: bool) -> PolicySet {
    let games = fixture_games();
    let options = PrepareOptions {
        tactics,
        all_scales,
        ..PrepareOptions::default()
    };
    let (set, _, _) = prepare(&games, &options);
    assert!(set.len() > 100, "fixture positions: {}", set.len());
    set
}

fn toy_args(name: &str, steps: usize) -> TrainHumanArgs {
    toy_args_with(name, steps, &[])
}

fn toy_args_with(name: &str, steps: usize, extra: &[&str]) -> TrainHumanArgs {
    let csv = tmp(&format!("{name}.csv"));
    let steps = steps.to_string();
    let base = [
        "x",
        "--h1",
        "32",
        "--h2",
        "16",
        "--d",
        "8",
        "--batch-size",
        "64",
        "--epochs",
        "50",
        "--max-steps",
        &steps,
        "--lr",
        "0.01",
        "--quiet",
        "--csv",
        csv.to_str().expect("utf-8 temp path"),
    ];
    Wrap::parse_from(base.iter().chain(extra)).args
}

/// A toy net with tactical rows trained on the fixture, saved; returns the set, the
/// model and the file.
fn toy_net(name: &str) -> (PolicySet, PriorModel, PathBuf) {
    toy_net_with(name, true)
}

fn toy_net_with(name: &str, tactics: bool) -> (PolicySet, PriorModel, PathBuf) {
    toy_net_scales(name, tactics, false)
}

fn toy_net_scales(name: &str, tactics: bool, all_scales: bool) -> (PolicySet, PriorModel, PathBuf) {
    let set = fixture_set_with(tactics, all_scales);
    let mut extra = Vec::new();
    if !tactics {
        extra.push("--no-tactics");
    }
    if all_scales {
        extra.push("--all-scales");
    }
    let model = train(
        &toy_args_with(name, 30, &extra),
        &set,
        &PolicySet::default(),
    )
    .expect("toy training");
    let path = tmp(&format!("{name}.safetensors"));
    save(&model, &path).expect("save");
    (set, model, path)
}

#[test]
fn training_lowers_the_loss_and_the_net_round_trips_through_safetensors() {
    let set = fixture_set(true);
    let ids: Vec<usize> = (0..set.len()).collect();
    let args = toy_args("lowers", 0);
    let untrained = train(
        &TrainHumanArgs {
            max_steps: 1,
            lr: 1e-9,
            ..args.clone()
        },
        &set,
        &PolicySet::default(),
    )
    .expect("one step");
    let before = mean_loss(&untrained, &set, &ids, 256).expect("loss");
    let (_, model, path) = toy_net("roundtrip");
    let after = mean_loss(&model, &set, &ids, 256).expect("loss");
    assert!(after < before - 0.3, "loss {before:.3} -> {after:.3}");

    let map = candle_core::safetensors::load(&path, &candle_core::Device::Cpu).expect("load");
    let reloaded = PriorModel::from_tensors(&map).expect("a prior net");
    assert_eq!(reloaded.shape, model.shape);
    let again = mean_loss(&reloaded, &set, &ids, 256).expect("loss");
    assert!((again - after).abs() < 1e-9, "{after} vs {again}");
    let csv = std::fs::read_to_string(tmp("roundtrip.csv")).expect("csv");
    assert!(csv.starts_with("step,epoch,lr,train_loss,validation_loss\n"));
    assert_eq!(csv.lines().count(), 2, "one point at the last step: {csv}");
}

#[test]
fn plain_rust_forward_equals_candle() {
    for tactics in [true, false] {
        forward_equals_candle(tactics, false);
    }
    forward_equals_candle(true, true);
}

/// The engine's pass asks about Lichess ratings, so it is compared on the Lichess
/// positions (a net with rows for every scale included).
fn forward_equals_candle(tactics: bool, all_scales: bool) {
    let name = format!("forward-{tactics}-{all_scales}");
    let (set, model, path) = toy_net_scales(&name, tactics, all_scales);
    let net = PriorNet::load(&path).expect("load");
    assert_eq!(net.shape.tactics, tactics);
    assert_eq!(model.shape.tactics, tactics);
    let scales = if all_scales { 3 } else { 1 };
    assert_eq!((net.shape.scales, model.shape.scales), (scales, scales));
    let ids: Vec<usize> = (0..set.len())
        .step_by(7)
        .filter(|&i| set.scale[i] == 0)
        .collect();
    assert!(ids.len() > 20, "{} Lichess positions compared", ids.len());
    let batch = Batch::new(&set, &ids, &candle_core::Device::Cpu).expect("batch");
    let logits = model
        .logits(&batch)
        .and_then(|l| l.to_vec2::<f32>())
        .expect("candle logits");
    let mut worst = 0f32;
    for (r, &i) in ids.iter().enumerate() {
        let q = PriorQuery {
            mover_rating: set.mover_rating[i],
            opponent_rating: set.opponent_rating[i],
            time_bucket: set.time[i] as usize,
        };
        let fast = net.logits(
            &net.position_vector(&net.hidden1(set.features(i)), &q),
            set.move_rows(i),
            set.tactic_rows(i),
        );
        for (k, f) in fast.iter().enumerate() {
            worst = worst.max((f - logits[r][k]).abs() / (1.0 + f.abs()));
        }
    }
    assert!(
        worst < 1e-4,
        "tactics {tactics}: largest relative logit difference {worst}"
    );
}

#[test]
fn other_rating_scales_train_only_with_rows_of_their_own() {
    let lichess = fixture_set(true);
    let all = fixture_set_with(true, true);
    assert!(lichess.scale.iter().all(|&s| s == 0));
    let chess_com = all.scale.iter().filter(|&&s| s == 1).count();
    assert!(chess_com > 0, "no chess.com positions in the fixture");
    assert_eq!(all.len(), lichess.len() + chess_com);
    let err = train(&toy_args("scales", 2), &all, &PolicySet::default())
        .err()
        .expect("a Lichess-only net on positions of other scales is refused");
    assert!(err.contains("--all-scales"), "{err}");
}

#[test]
fn mirrors_add_training_positions_without_castling_rights_and_never_validation_ones() {
    // Every third game validates.
    let games: Vec<_> = fixture_games()
        .into_iter()
        .enumerate()
        .map(|(i, mut g)| {
            if i % 3 == 0 {
                g.split = Split::Validation;
            }
            g
        })
        .collect();
    let plain = PrepareOptions::default();
    let mirror = PrepareOptions {
        mirror: true,
        ..PrepareOptions::default()
    };
    let (train_plain, validation_plain, stats_plain) = prepare(&games, &plain);
    let (train_mirror, validation_mirror, stats) = prepare(&games, &mirror);
    assert_eq!(stats_plain.mirrored_positions, 0);
    assert!(stats.mirrored_positions > 20, "{stats:?}");
    assert!(
        stats.mirrored_positions < train_plain.len(),
        "openings keep their castling rights"
    );
    assert_eq!(
        train_mirror.len(),
        train_plain.len() + stats.mirrored_positions
    );
    assert_eq!(validation_mirror.len(), validation_plain.len());
    assert!(!validation_plain.is_empty());
}

#[test]
fn a_net_and_positions_that_disagree_on_tactical_rows_are_refused() {
    let plain = fixture_set(false);
    let err = train(&toy_args("disagree", 2), &plain, &PolicySet::default())
        .err()
        .expect("a tactics net on plain positions is refused");
    assert!(err.contains("tactical rows"), "{err}");
    let with = fixture_set(true);
    let args = toy_args_with("disagree2", 2, &["--no-tactics"]);
    let err = train(&args, &with, &PolicySet::default())
        .err()
        .expect("a plain net on positions with tactics is refused");
    assert!(err.contains("--no-tactics"), "{err}");
}

#[test]
fn probabilities_cover_the_legal_moves_and_sum_to_one() {
    let (_, _, path) = toy_net("legal");
    let net = PriorNet::load(&path).expect("load");
    let fens = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2P5/8/8/8/8/5k1p/K7 b - - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    ];
    for fen in fens {
        let board: Board = fen.parse().expect("fen");
        for elo in [800, 1500, 2900] {
            let q = PriorQuery {
                mover_rating: elo,
                opponent_rating: 1500,
                time_bucket: 2,
            };
            let probs = net.probabilities(&board, &q);
            let legal = rookery::chess::legal_moves(&board);
            let moves: Vec<_> = probs.iter().map(|p| p.0).collect();
            assert_eq!(moves, legal, "{fen}");
            let sum: f32 = probs.iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-5, "{fen}: sum {sum}");
            assert!(probs.iter().all(|p| p.1 > 0.0 && p.1 < 1.0), "{fen}");
        }
    }
    let mate: Board = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
        .parse()
        .expect("fen");
    let q = PriorQuery {
        mover_rating: 1500,
        opponent_rating: 1500,
        time_bucket: 2,
    };
    assert!(net.probabilities(&mate, &q).is_empty());
    // The encodings the trainer and the engine share stay within their tables.
    let board: Board = fens[1].parse().expect("fen");
    let mut feats = Vec::new();
    board_features(&board, &mut feats);
    assert!(feats
        .iter()
        .all(|&f| (f as usize) < rookery::policy::shape::INPUTS));
    for mv in rookery::chess::legal_moves(&board) {
        let rows = move_rows(&board, mv);
        assert!(rows
            .iter()
            .all(|&r| (r as usize) < rookery::policy::moves::MOVE_ROWS));
    }
    let legal = rookery::chess::legal_moves(&board);
    let tactic = net.tactic_rows(&board, &legal);
    assert_eq!(tactic.len(), legal.len());
    assert!(tactic
        .iter()
        .all(|&r| (r as usize) >= rookery::policy::moves::MOVE_ROWS
            && (r as usize) < net.shape.move_rows()));
}

#[test]
fn bad_net_files_are_refused_with_a_clear_error() {
    let missing = PriorNet::load(Path::new("/nonexistent/prior.safetensors"))
        .err()
        .expect("missing file refused");
    assert!(missing.contains("cannot read net"), "{missing}");
    let garbage = PriorNet::from_bytes(b"not a net at all")
        .err()
        .expect("garbage refused");
    assert!(garbage.contains("not a safetensors"), "{garbage}");
    let dev = candle_core::Device::Cpu;
    let one = std::collections::HashMap::from([(
        "ft.weight".to_string(),
        candle_core::Tensor::zeros((4, 4), candle_core::DType::F32, &dev).expect("tensor"),
    )]);
    let other = tmp("other.safetensors");
    candle_core::safetensors::save(&one, &other).expect("save");
    let err = PriorNet::load(&other).err().expect("value net refused");
    assert!(err.contains("not a human prior net"), "{err}");
    let (_, model, _) = toy_net("badshape");
    // The toy net with some tensors replaced by zeros of another shape: the load error.
    let load_with = |replaced: &[&str], shape: (usize, usize), file: &str| {
        let mut map = model.tensors().expect("tensors");
        for &name in replaced {
            let zeros = candle_core::Tensor::zeros(shape, candle_core::DType::F32, &dev);
            map.insert(name.into(), zeros.expect("tensor"));
        }
        let bad = tmp(file);
        candle_core::safetensors::save(&map, &bad).expect("save");
        PriorNet::load(&bad).err().expect("wrong shape refused")
    };
    let err = load_with(&["moves.emb"], (10, 8), "badshape-cut.safetensors");
    assert!(
        err.contains("moves.emb") && err.contains("expected"),
        "{err}"
    );
    // Rating tables for neither one scale nor all of them.
    let err = load_with(
        &["mover.emb", "opp.emb"],
        (30, 16),
        "badshape-rows.safetensors",
    );
    assert!(
        err.contains("mover.emb") && err.contains("30 rows"),
        "{err}"
    );
}

#[test]
fn human_command_predicts_one_line_per_input_line_and_names_bad_lines() {
    let (_, _, net) = toy_net("cli");
    let input = tmp("predict.tsv");
    std::fs::write(
        &input,
        "1100\t1200\trnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
         2300\t2200\tr3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\n\
         1500\t1500\trnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n",
    )
    .expect("write");
    let out = predict(&net, &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for line in &lines[..2] {
        let (mv, p) = line.split_once('\t').expect("two fields");
        assert!((4..=5).contains(&mv.len()), "{line}");
        let p: f32 = p.parse().expect("probability");
        assert!(p > 0.0 && p <= 1.0, "{line}");
    }
    assert_eq!(lines[2], "0000\t0");

    std::fs::write(&input, "1500\tabc\t8/8/8/8/8/8/8/K6k w - - 0 1\n").expect("write");
    let out = predict(&net, &input);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 1") && err.contains("opponent elo"),
        "{err}"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args(["human", "--elo", "1500", "--top", "3", "--net"])
        .arg(&net)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(
        text.lines().count(),
        5,
        "title, header and three moves: {text}"
    );
    assert!(
        text.lines().nth(1).is_some_and(|h| h.contains("2300")),
        "{text}"
    );
}

/// `rookery human --net NET --predict INPUT`.
fn predict(net: &std::path::Path, input: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args(["human", "--net"])
        .arg(net)
        .arg("--predict")
        .arg(input)
        .output()
        .expect("runs")
}
