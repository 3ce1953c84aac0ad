//! The self-play policy (issue 57 item 1): `train-policy` runs end to end on a fixture of
//! self-play games (tests/data/policy/, 60 games of data/gen1/seed4.vf) and writes a
//! loadable net; the plain-Rust forward pass equals candle's after a safetensors round
//! trip; bad files are refused; MCTS with the net as its prior plays legal moves, in
//! the library and over UCI (`PolicyFile`).

mod common;
mod uci_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use candle_core::Device;
use clap::Parser;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rookery::chess::{legal_moves, parse_fen, Position};
use rookery::policy::{PolicyNet, PolicyShape};
use rookery::search::{SearchLimits, SearchMode, SearchOptions, Searcher, Silent};
use rookery::train::policy::data::{prepare, PositionSet, Sampling};
use rookery::train::policy::model::{Batch, PolicyModel};
use rookery::train::policy::{run, save, PolicyReport, TrainPolicyArgs};

use common::Engine;
use uci_support::assert_legal;

const WAIT: Duration = Duration::from_secs(60);

#[derive(Parser)]
struct Wrap {
    #[command(flatten)]
    args: TrainPolicyArgs,
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/policy/gen1-seed4.vf")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rookery-policy-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn fixture_sets(threat_inputs: bool) -> (PositionSet, PositionSet) {
    let sampling = Sampling {
        positions: 1.0,
        validation_games: 0.2,
        max_train: 0,
        seed: 1,
        threat_inputs,
    };
    let (train, validation, stats) = prepare(&[fixture()], &sampling).expect("fixture reads");
    assert_eq!(stats.games, 60);
    assert!(stats.validation_games > 0 && stats.train_games > stats.validation_games);
    assert!(train.len() > 1000 && !validation.is_empty(), "{stats:?}");
    (train, validation)
}

/// A tiny net trained on the fixture through the subcommand (`extra` arguments added);
/// returns its path.
fn trained_toy_net(name: &str, extra: &[&str]) -> PathBuf {
    trained_toy_net_and_report(name, extra).0
}

fn trained_toy_net_and_report(name: &str, extra: &[&str]) -> (PathBuf, PolicyReport) {
    let out = tmp(&format!("{name}.safetensors"));
    let csv = tmp(&format!("{name}.csv"));
    let fixture = fixture();
    let args = Wrap::parse_from(
        [
            "x",
            fixture.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
            "--hidden",
            "32",
            "--d",
            "8",
            "--batch-size",
            "256",
            "--epochs",
            "2",
            "--curve-every",
            "5",
            "--validation-games",
            "0.2",
            "--sample",
            "1",
            "--baseline",
            "--quiet",
        ]
        .into_iter()
        .chain(extra.iter().copied()),
    )
    .args;
    let report = run(args).expect("train-policy runs");
    assert!(report.train_positions > 1000);
    assert!(report.validation.positions > 0);
    // Better than a uniform guess among ~35 moves, even for a toy.
    assert!(report.validation.top3_share() > 0.15, "{report:?}");
    let curve = std::fs::read_to_string(&csv).expect("loss CSV written");
    assert!(curve.starts_with("step,epoch,lr,train_loss,validation_loss"));
    assert!(curve.lines().count() > 2, "{curve}");
    (out, report)
}

#[test]
fn train_policy_runs_end_to_end_and_writes_a_loadable_net() {
    let path = trained_toy_net("end-to-end", &[]);
    let net = PolicyNet::load(&path).expect("the saved net loads");
    assert_eq!(
        net.shape,
        PolicyShape {
            hidden: 32,
            d: 8,
            tactics: true,
            threat_inputs: false,
        }
    );
    let board = parse_fen(rookery::chess::STARTPOS_FEN).unwrap();
    let probs = net.probabilities(&board);
    assert_eq!(probs.len(), 20);
    let sum: f32 = probs.iter().map(|p| p.1).sum();
    assert!((sum - 1.0).abs() < 1e-4);
}

#[test]
fn a_net_with_threat_inputs_trains_and_is_measured_with_its_own_inputs() {
    let (path, report) = trained_toy_net_and_report("threats", &["--threat-inputs"]);
    let net = PolicyNet::load(&path).expect("the saved net loads");
    assert!(net.shape.threat_inputs && net.shape.tactics);
    // `--evaluate` reads the net's kind from the file and builds matching inputs (the
    // flag is only for fresh nets): the validation figures equal the ones the training
    // run reported for the same net.
    let fixture = fixture();
    let evaluate = |extra: &[&str]| {
        let args = Wrap::parse_from(
            [
                "x",
                fixture.to_str().unwrap(),
                "--evaluate",
                path.to_str().unwrap(),
            ]
            .into_iter()
            .chain(["--validation-games", "0.2", "--sample", "1", "--quiet"])
            .chain(extra.iter().copied()),
        )
        .args;
        run(args).expect("evaluation runs").validation
    };
    let measured = evaluate(&[]);
    assert_eq!(measured.positions, report.validation.positions);
    assert_eq!(measured.top1, report.validation.top1);
    assert_eq!(
        measured.cross_entropy_sum,
        report.validation.cross_entropy_sum
    );
    assert!(measured.top3_share() > 0.15, "{measured:?}");
}

#[test]
fn the_plain_rust_pass_equals_candle_after_a_safetensors_round_trip() {
    for threat_inputs in [false, true] {
        plain_rust_equals_candle(threat_inputs);
    }
}

fn plain_rust_equals_candle(threat_inputs: bool) {
    let (train, _) = fixture_sets(threat_inputs);
    let mut rng = StdRng::seed_from_u64(7);
    let shape = PolicyShape {
        hidden: 24,
        d: 12,
        tactics: true,
        threat_inputs,
    };
    let model = PolicyModel::new(shape, &mut rng, &Device::Cpu).unwrap();
    let path = tmp(&format!("random-threats-{threat_inputs}.safetensors"));
    save(&model, &path).unwrap();
    let net = PolicyNet::load(&path).unwrap();
    assert_eq!(net.shape, shape, "the file tells the kind of net");
    let ids: Vec<usize> = (0..train.len()).step_by(train.len() / 64).collect();
    let batch = Batch::new(&train, &ids, &Device::Cpu).unwrap();
    let candle = model.logits(&batch).unwrap().to_vec2::<f32>().unwrap();
    let (mut exact, mut engine) = (Vec::new(), Vec::new());
    for (r, &i) in ids.iter().enumerate() {
        // The float reference is candle's graph; the engine's pass (an i16 first layer)
        // differs from it only by the weights' rounding.
        net.position_vector_exact(train.features(i), &mut exact);
        net.position_vector(train.features(i), &mut engine);
        let tactics = train.tactic_rows(i);
        for (k, &rows) in train.move_rows(i).iter().enumerate() {
            let theirs = candle[r][k];
            let reference = net.move_logit(&exact, rows, tactics[k]);
            assert!(
                (reference - theirs).abs() <= 1e-4 * (1.0 + theirs.abs()),
                "position {i} move {k}: {reference} vs candle {theirs}"
            );
            let ours = net.move_logit(&engine, rows, tactics[k]);
            assert!(
                (ours - theirs).abs() <= 5e-3 * (1.0 + theirs.abs()),
                "position {i} move {k}: the engine's {ours} vs candle {theirs}"
            );
        }
        // Padded slots are masked far below every real move.
        if let Some(&pad) = candle[r].get(train.move_rows(i).len()) {
            assert!(pad < -1e8);
        }
    }
}

#[test]
fn a_value_net_a_human_prior_and_a_truncated_file_are_refused() {
    let missing = PolicyNet::load(Path::new("no/such/policy.safetensors"))
        .err()
        .unwrap();
    assert!(missing.contains("cannot read policy net"), "{missing}");
    let value_net = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets/rookery-gen13.safetensors");
    let msg = PolicyNet::load(&value_net).err().unwrap();
    assert!(msg.contains("not a self-play policy net"), "{msg}");
    let human = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets/human-prior-v3.safetensors");
    let msg = PolicyNet::load(&human).err().unwrap();
    assert!(msg.contains("not a self-play policy net"), "{msg}");
    let mut rng = StdRng::seed_from_u64(3);
    let model = PolicyModel::new(
        PolicyShape {
            hidden: 8,
            d: 4,
            tactics: true,
            threat_inputs: false,
        },
        &mut rng,
        &Device::Cpu,
    )
    .unwrap();
    let path = tmp("truncated.safetensors");
    save(&model, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let msg = PolicyNet::from_bytes(&bytes[..bytes.len() - 100])
        .err()
        .unwrap();
    assert!(msg.contains("not a safetensors file"), "{msg}");
}

#[test]
fn mcts_with_the_net_prior_plays_legal_moves() {
    let net = Arc::new(PolicyNet::load(&trained_toy_net("mcts", &[])).unwrap());
    let mut searcher = Searcher::new(16, 1);
    searcher.set_mcts_policy(Some(Arc::clone(&net)));
    // Chosen before the mode: the tree made on entering MCTS mode gets it.
    searcher.set_mode(SearchMode::Mcts).unwrap();
    assert!(searcher.mcts_policy().is_some());
    let fens = [
        rookery::chess::STARTPOS_FEN,
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    ];
    for fen in fens {
        let pos = Position::new(parse_fen(fen).unwrap());
        let limits = SearchLimits {
            nodes: Some(300),
            ..Default::default()
        };
        let result = searcher.search(&pos, &limits, &SearchOptions::default(), &Silent);
        let best = result.best_move.expect("a move");
        assert!(legal_moves(&pos.board).contains(&best), "{fen}: {best}");
    }
    // A Hash change rebuilds the tree and keeps the net.
    searcher.resize_hash(8).unwrap();
    assert!(searcher.mcts_policy().is_some());
    // The back-rank mate is found with the net prior too.
    let pos = Position::new(parse_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap());
    let limits = SearchLimits {
        nodes: Some(2000),
        ..Default::default()
    };
    let result = searcher.search(&pos, &limits, &SearchOptions::default(), &Silent);
    assert_eq!(result.best_move.unwrap().to_string(), "a1a8");
}

#[test]
fn policy_file_over_uci_loads_a_net_and_refuses_a_bad_one() {
    let path = trained_toy_net("uci", &[]);
    let mut e = Engine::ready();
    e.send("setoption name SearchMode value mcts");
    e.send(&format!(
        "setoption name PolicyFile value {}",
        path.display()
    ));
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string MCTS prior: policy net")),
        "{lines:?}"
    );
    e.send("position startpos moves e2e4");
    let board = common::board_after(rookery::chess::STARTPOS_FEN, &["e2e4"]);
    let (_, best) = e.go("go nodes 300", WAIT);
    assert_legal(&board, &best, false);
    e.send("setoption name PolicyFile value no/such/file.safetensors");
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error") && l.contains("keeping the previous")),
        "{lines:?}"
    );
    e.send("setoption name PolicyFile value <hand>");
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.contains("hand-written")),
        "{lines:?}"
    );
    let (_, best) = e.go("go nodes 200", WAIT);
    assert_legal(&board, &best, false);
    e.send("setoption name PolicyFile value <default>");
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("embedded policy net policy-sp4-mz1")),
        "{lines:?}"
    );
    let (_, best) = e.go("go nodes 200", WAIT);
    assert_legal(&board, &best, false);
}
