//! The trainer: a train → save → load round trip, `load_eval_file` error handling,
//! resuming, starting from a saved net, the net variants its flags make, and the fixed
//! validation set.

use std::sync::Arc;

use cozy_chess::Board;

use rookery::eval::network::Network;
use rookery::eval::{self, Evaluator, DEFAULT_NET_NAME};

mod nnue_support;
use nnue_support::*;

/// Trains a tiny network on a file written here, checks the saved file loads with the
/// same outputs, then exercises `load_eval_file` (good file, missing file, garbage, wrong
/// names, wrong shapes) on the global slot. One test, because the slot is global.
#[test]
fn train_save_load_and_eval_file_errors() {
    let dir = std::env::temp_dir().join(format!("rookery-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Tiny labelled data: random positions labelled by their material balance.
    let mut text = String::from("garbage line\n");
    for b in sample_positions(300, 9) {
        let cp = material_cp(&b);
        let result = if cp > 100 {
            "1.0"
        } else if cp < -100 {
            "0.0"
        } else {
            "0.5"
        };
        text.push_str(&format!("{b} | {cp} | {result}\n"));
    }
    let data = dir.join("tiny.txt");
    std::fs::write(&data, text).expect("write data");
    let out = dir.join("tiny.safetensors");
    let csv = dir.join("tiny.csv");
    let mut args = rookery::train::TrainArgs::with_data(
        vec![data.to_string_lossy().into_owned()],
        out.to_string_lossy().into_owned(),
    );
    args.hidden = 32;
    args.epochs = 3;
    args.batch_size = 64;
    args.quiet = true;
    args.csv = Some(csv.to_string_lossy().into_owned());
    args.checkpoint_dir = Some(dir.join("ckpt").to_string_lossy().into_owned());
    let summary = rookery::train::train(&args).expect("training runs");
    assert_eq!((summary.positions, summary.bad_lines), (300, 1));
    assert!(summary.train_loss.is_finite() && summary.val_loss.is_finite());
    let csv_text = std::fs::read_to_string(&csv).expect("csv written");
    assert_eq!(csv_text.lines().count(), 4, "{csv_text}");
    assert!(dir.join("ckpt/epoch-3.safetensors").exists());

    // Round trip: the in-memory trained tensors and the saved file give identical outputs.
    let in_memory = Network::from_tensors(summary.tensors, "memory", 0).expect("in-memory net");
    let bytes = std::fs::read(&out).expect("saved net");
    let loaded = Arc::new(Network::from_bytes(&bytes, "file").expect("saved net loads"));
    let mut e1 = Evaluator::with_network(Arc::new(in_memory));
    let mut e2 = Evaluator::with_network(Arc::clone(&loaded));
    for b in sample_positions(100, 13) {
        let r1 = e1.network().reference_cp(&b).expect("candle");
        let r2 = loaded.reference_cp(&b).expect("candle");
        assert_eq!(r1, r2);
        e1.reset_keep_network(&b);
        e2.reset_keep_network(&b);
        assert_eq!(e1.evaluate(&b), e2.evaluate(&b));
    }

    // The global slot: load the new file, then failures keep it.
    let start = Board::default();
    let desc = eval::load_eval_file(&out.to_string_lossy()).expect("good EvalFile loads");
    assert!(
        desc.contains("tiny.safetensors") && desc.contains("(782 mirrored->32)x2 screlu"),
        "{desc}"
    );
    assert_eq!(eval::net_description(), desc);
    let mut fresh = Evaluator::with_network(Arc::clone(&loaded));
    fresh.reset_keep_network(&start);
    let expected = fresh.evaluate(&start);
    assert_eq!(eval::white_cp(&start), expected);

    let dev = candle_core::Device::Cpu;
    let zeros = |shape: Vec<usize>| {
        candle_core::Tensor::zeros(shape, candle_core::DType::F32, &dev).expect("tensor")
    };
    let garbage = dir.join("garbage.safetensors");
    std::fs::write(&garbage, b"this is not a network").expect("write");
    let mut wrong_names = std::collections::HashMap::new();
    wrong_names.insert("foo".to_string(), zeros(vec![4]));
    let names_path = dir.join("names.safetensors");
    candle_core::safetensors::save(&wrong_names, &names_path).expect("save");
    let mut wrong_shapes = std::collections::HashMap::new();
    for (name, shape) in [
        ("ft.weight", vec![32usize, 100]),
        ("ft.bias", vec![32]),
        ("l1.weight", vec![32, 64]),
        ("l1.bias", vec![32]),
        ("l2.weight", vec![32, 32]),
        ("l2.bias", vec![32]),
        ("out.weight", vec![1, 32]),
        ("out.bias", vec![1]),
    ] {
        wrong_shapes.insert(name.to_string(), zeros(shape));
    }
    let shapes_path = dir.join("shapes.safetensors");
    candle_core::safetensors::save(&wrong_shapes, &shapes_path).expect("save");

    let missing = dir.join("does-not-exist.safetensors");
    for (path, needle) in [
        (missing, "cannot read"),
        (garbage, "not a safetensors"),
        (names_path, "ft.bias"),
        (shapes_path, "shape"),
    ] {
        let err =
            eval::load_eval_file(&path.to_string_lossy()).expect_err("bad EvalFile must fail");
        assert!(err.contains(needle), "error for {}: {err}", path.display());
        assert_eq!(eval::net_description(), desc, "previous net must stay");
        assert_eq!(
            eval::white_cp(&start),
            expected,
            "evaluation must still work"
        );
    }

    // Back to the embedded default.
    let d = eval::load_eval_file("<default>").expect("default reloads");
    assert!(d.contains(DEFAULT_NET_NAME), "{d}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run stopped part-way (`--stop-after-steps`) and resumed from its checkpoint ends
/// with the same net and losses as a run that was never stopped.
#[test]
fn training_resumes_to_the_same_net() {
    let (dir, data) = material_labelled_data("rookery-resume-test", 21);
    let args_for = |name: &str| {
        let mut a = tiny_run(&data, &dir.join(format!("{name}.safetensors")), 2);
        a.checkpoint_every = 3;
        a.checkpoint_dir = Some(dir.join(name).to_string_lossy().into_owned());
        a
    };
    let whole = rookery::train::train(&args_for("whole")).expect("uninterrupted run");

    // 400 positions, 2 % validation: 13 batches an epoch; stop in the middle of epoch 2.
    let mut cut = args_for("cut");
    cut.stop_after_steps = Some(17);
    rookery::train::train(&cut).expect("stopped run");
    let checkpoint = dir.join("cut/resume.safetensors");
    assert!(checkpoint.exists());
    let mut resumed = args_for("cut");
    resumed.resume = Some(checkpoint.to_string_lossy().into_owned());
    let resumed = rookery::train::train(&resumed).expect("resumed run");

    for (name, t) in &whole.tensors {
        let diff = max_abs_difference(t, &resumed.tensors[name]);
        assert!(diff <= 1e-6, "{name} differs by {diff} after resuming");
    }
    assert!(
        (whole.train_loss - resumed.train_loss).abs() <= 1e-9
            && (whole.val_loss - resumed.val_loss).abs() <= 1e-9,
        "losses {} / {} vs {} / {}",
        whole.train_loss,
        whole.val_loss,
        resumed.train_loss,
        resumed.val_loss
    );

    // A checkpoint of another shape is refused with a clear error.
    let mut wrong = args_for("wrong");
    wrong.hidden = 32;
    wrong.resume = Some(checkpoint.to_string_lossy().into_owned());
    let err = rookery::train::train(&wrong)
        .err()
        .expect("shape mismatch refused");
    assert!(err.contains("--hidden"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--init` starts from a saved net's weights: with a vanishing learning rate the run
/// ends where it began (a one-bucket net also as every bucket of a bucketed run, a
/// narrower net as part of a wider one), and a net of another shape or scale is refused.
#[test]
fn training_starts_from_init_net() {
    let (dir, data) = material_labelled_data("rookery-init-test", 22);
    let args_for = |name: &str| {
        let mut a = tiny_run(&data, &dir.join(format!("{name}.safetensors")), 1);
        // A plain base net (one bucket, clipped ReLU, unmirrored), so that each of those
        // can be turned on against it below.
        a.output_buckets = 1;
        a.screlu = false;
        a.mirror = false;
        a
    };
    let base = rookery::train::train(&args_for("base")).expect("base run");
    let base_path = dir.join("base.safetensors").to_string_lossy().into_owned();

    let mut tuned = args_for("tuned");
    tuned.init = Some(base_path.clone());
    tuned.lr = 1e-12;
    tuned.seed = 7; // another random start, so only --init can make the nets agree
    let tuned = rookery::train::train(&tuned).expect("run from --init");
    for (name, t) in &base.tensors {
        let diff = max_abs_difference(t, &tuned.tensors[name]);
        assert!(diff <= 1e-6, "{name} moved by {diff} from the --init net");
    }

    // A one-bucket net starts a bucketed run: every bucket a copy of its output row.
    let mut bucketed = args_for("bucketed");
    bucketed.init = Some(base_path.clone());
    bucketed.lr = 1e-12;
    bucketed.output_buckets = 8;
    let bucketed = rookery::train::train(&bucketed).expect("bucketed run from --init");
    for (name, t) in &base.tensors {
        let spread = &bucketed.tensors[name];
        let spread = if name.starts_with("out.") {
            assert_eq!(spread.dims()[0], 8, "{name}");
            spread.narrow(0, 7, 1).expect("last bucket")
        } else {
            spread.clone()
        };
        let diff = max_abs_difference(t, &spread);
        assert!(diff <= 1e-6, "{name} moved by {diff} from the --init net");
    }
    let first = bucketed.tensors["out.weight"]
        .narrow(0, 0, 1)
        .expect("first bucket");
    assert!(max_abs_difference(&base.tensors["out.weight"], &first) <= 1e-6);
    // ...but not the other way round.
    let mut unbucketed = args_for("unbucketed");
    unbucketed.init = Some(
        dir.join("bucketed.safetensors")
            .to_string_lossy()
            .into_owned(),
    );
    let err = rookery::train::train(&unbucketed)
        .err()
        .expect("8 buckets into 1 refused");
    assert!(err.contains("--output-buckets"), "{err}");

    // A wider feature transformer: the base net's units first, the new ones read by `l1`
    // with zero weights, so the wider net starts out computing what the base net did.
    let mut widened = args_for("widened");
    widened.init = Some(base_path.clone());
    widened.lr = 1e-12;
    widened.hidden = 32;
    let widened = rookery::train::train(&widened).expect("wider run from --init");
    let h = base.tensors["ft.bias"].dims1().expect("ft.bias");
    assert_eq!(widened.tensors["ft.bias"].dims1().expect("ft.bias"), 32);
    for name in ["ft.weight", "ft.bias"] {
        let kept = widened.tensors[name].narrow(0, 0, h).expect("base units");
        assert!(
            max_abs_difference(&base.tensors[name], &kept) <= 1e-6,
            "{name}"
        );
    }
    let l1 = &widened.tensors["l1.weight"];
    for (from, base_from) in [(0, 0), (32, h)] {
        let kept = l1.narrow(1, from, h).expect("base columns");
        let base_cols = base.tensors["l1.weight"]
            .narrow(1, base_from, h)
            .expect("base");
        assert!(
            max_abs_difference(&base_cols, &kept) <= 1e-6,
            "l1 columns from {from}"
        );
        let new = l1.narrow(1, from + h, 32 - h).expect("new columns");
        let zero = new.zeros_like().expect("zeros");
        assert!(
            max_abs_difference(&zero, &new) <= 1e-6,
            "l1 reads new units from {from}"
        );
    }
    for name in ["l1.bias", "l2.weight", "l2.bias", "out.weight", "out.bias"] {
        let diff = max_abs_difference(&base.tensors[name], &widened.tensors[name]);
        assert!(diff <= 1e-6, "{name} moved by {diff} in the widened run");
    }

    let mut wrong_shape = args_for("wrong-shape");
    wrong_shape.hidden = 8;
    wrong_shape.init = Some(base_path.clone());
    let err = rookery::train::train(&wrong_shape)
        .err()
        .expect("a narrower feature transformer refused");
    assert!(err.contains("--hidden"), "{err}");

    let mut wrong_activation = args_for("wrong-activation");
    wrong_activation.screlu = true;
    wrong_activation.init = Some(base_path.clone());
    let err = rookery::train::train(&wrong_activation)
        .err()
        .expect("a plain net cannot start a SCReLU run");
    assert!(err.contains("--no-screlu"), "{err}");

    let mut wrong_mirroring = args_for("wrong-mirroring");
    wrong_mirroring.mirror = true;
    wrong_mirroring.init = Some(base_path.clone());
    let err = rookery::train::train(&wrong_mirroring)
        .err()
        .expect("an unmirrored net cannot start a mirrored run");
    assert!(err.contains("--no-mirror"), "{err}");

    // --init-ft: the feature transformer from the base net, a head of another shape
    // (l1 16 wide, 8 buckets) from random weights.
    let mut new_head = args_for("new-head");
    new_head.init_ft = Some(base_path.clone());
    new_head.lr = 1e-12;
    new_head.l1_width = 16;
    new_head.output_buckets = 8;
    new_head.seed = 7;
    let new_head = rookery::train::train(&new_head).expect("run from --init-ft");
    for name in ["ft.weight", "ft.bias"] {
        let diff = max_abs_difference(&base.tensors[name], &new_head.tensors[name]);
        assert!(
            diff <= 1e-6,
            "{name} moved by {diff} from the --init-ft net"
        );
    }
    assert_eq!(new_head.tensors["l1.weight"].dims()[0], 16);
    assert_eq!(new_head.tensors["out.weight"].dims()[0], 8);
    let mut ft_wrong_hidden = args_for("ft-wrong-hidden");
    ft_wrong_hidden.hidden = 32;
    ft_wrong_hidden.init_ft = Some(base_path.clone());
    let err = rookery::train::train(&ft_wrong_hidden)
        .err()
        .expect("--init-ft of another width refused");
    assert!(err.contains("--hidden"), "{err}");

    let mut wrong_scale = args_for("wrong-scale");
    wrong_scale.scale = 300.0;
    wrong_scale.init = Some(base_path);
    let err = rookery::train::train(&wrong_scale)
        .err()
        .expect("scale refused");
    assert!(err.contains("scale"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The trainer's `--output-buckets`, `--no-screlu`, `--no-mirror` and `--l1`: each saved
/// net has the shapes asked for, loads, its kernel matches candle's forward pass (each
/// position through its own bucket), and every kernel version gives the same bits.
#[test]
fn training_net_variants() {
    let (dir, data) = material_labelled_data("rookery-variant-test", 23);
    // (buckets, screlu, mirror, hidden, l1): 48 hidden units leave the activation to the
    // portable kernel; 144 sends the AVX2 accumulator update through its 128-lane block and
    // then one of 16 lanes; l1 16 runs the two-register `l1` kernels (H 64) and the
    // portable one (H 48).
    for (buckets, screlu, mirror, hidden, l1) in [
        (8, false, false, 32, 32),
        (8, false, true, 48, 32),
        (1, false, false, 144, 32),
        (8, true, false, 64, 32),
        (1, true, true, 48, 32),
        (8, true, true, 64, 16),
        (1, false, false, 48, 16),
    ] {
        let what =
            format!("{buckets} buckets, screlu {screlu}, mirror {mirror}, H {hidden}, l1 {l1}");
        let out = dir.join(format!(
            "net-{buckets}-{screlu}-{mirror}-{hidden}-{l1}.safetensors"
        ));
        let mut args = tiny_run(&data, &out, 2);
        args.hidden = hidden;
        args.output_buckets = buckets;
        args.screlu = screlu;
        args.mirror = mirror;
        args.l1_width = l1;
        let summary = rookery::train::train(&args).expect("training runs");
        assert!(
            summary.train_loss.is_finite() && summary.val_loss.is_finite(),
            "{what}"
        );
        assert_eq!(
            summary.tensors["out.weight"].dims(),
            [buckets, 32],
            "{what}"
        );
        let l1_in = 2 * hidden;
        assert_eq!(summary.tensors["l1.weight"].dims(), [l1, l1_in], "{what}");
        assert_eq!(summary.tensors["l2.weight"].dims(), [32, l1], "{what}");
        let bytes = std::fs::read(&out).expect("saved net");
        let net = Arc::new(Network::from_bytes(&bytes, "variant").expect("net loads"));
        assert_eq!(
            (
                net.q.buckets(),
                net.q.squared,
                net.q.mirroring,
                net.q.l1_width
            ),
            (buckets, screlu, mirror, l1),
            "{what}"
        );
        assert_eq!(net.description().contains("mirrored"), mirror, "{what}");
        assert_eq!(net.description().contains("screlu"), screlu, "{what}");
        assert!(
            net.description().contains(&format!("->{l1}->32->1")),
            "{what}: {}",
            net.description()
        );
        check_kernel_against_candle(Arc::clone(&net));
        check_paths_agree(net);
    }

    let mut args = rookery::train::TrainArgs::with_data(
        vec![data.to_string_lossy().into_owned()],
        dir.join("bad.safetensors").to_string_lossy().into_owned(),
    );
    args.output_buckets = 0;
    let err = rookery::train::train(&args)
        .err()
        .expect("0 buckets refused");
    assert!(err.contains("--output-buckets"), "{err}");
    args.output_buckets = 1;
    args.hidden = 0;
    let err = rookery::train::train(&args)
        .err()
        .expect("no hidden units refused");
    assert!(err.contains("--hidden"), "{err}");
    args.hidden = 32;
    args.l1_width = 24;
    let err = rookery::train::train(&args)
        .err()
        .expect("l1 width 24 refused");
    assert!(err.contains("--l1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `--val-data` the run validates on that fixed file (and trains on every `--data`
/// position); `--score-net` gives a saved net's loss on it, the same as the run's last
/// validation loss.
#[test]
fn fixed_validation_set_and_score_net() {
    let (dir, data) = material_labelled_data("rookery-valset-test", 31);
    let (val_dir, val) = material_labelled_data("rookery-valset-test-val", 32);
    let out = dir.join("net.safetensors");
    let mut args = tiny_run(&data, &out, 2);
    args.val_data = vec![val.to_string_lossy().into_owned()];
    let summary = rookery::train::train(&args).expect("training runs");
    assert_eq!(summary.positions, 400);
    let (loss, n) =
        rookery::train::score_net(&args, &out.to_string_lossy()).expect("scores the saved net");
    assert_eq!(n, 400, "every validation position is scored");
    assert!(
        (loss - summary.val_loss).abs() < 1e-6,
        "score_net {loss} vs the run's validation loss {}",
        summary.val_loss
    );
    // A missing validation file is an error, not an empty set.
    args.val_data = vec![dir.join("missing.txt").to_string_lossy().into_owned()];
    assert!(rookery::train::score_net(&args, &out.to_string_lossy()).is_err());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&val_dir);
}

/// `rookery train`'s defaults are the embedded net's recipe: its shape, activation,
/// mirroring, output buckets and scale, and the schedule it was trained with (λ 0,
/// 8 epochs, lr 0.004 → ×0.05, batch 8192, seed 1; docs/generations.md, rookery-gen13).
#[test]
fn training_defaults_are_the_embedded_nets_recipe() {
    let args = rookery::train::TrainArgs::with_data(vec!["x.vf".into()], "out".into());
    let net = default_net();
    assert_eq!(
        (
            args.hidden,
            args.l1_width,
            args.output_buckets,
            args.screlu,
            args.mirror,
            args.scale
        ),
        (
            net.q.hidden,
            net.q.l1_width,
            net.q.buckets(),
            net.q.squared,
            net.q.mirroring,
            net.scale
        )
    );
    assert_eq!(
        (
            args.wdl_lambda,
            args.epochs,
            args.lr,
            args.lr_final,
            args.batch_size,
            args.seed
        ),
        (0.0, 8, 0.004, 0.05, 8192, 1)
    );
}
